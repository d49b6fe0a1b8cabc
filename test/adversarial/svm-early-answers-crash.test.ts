/**
 * kill -9 with early answers in flight (docs/security.md, "Solana early answers"): the real
 * service as a child process in mainnet mode, against a localnet in this test's process (the chain
 * outlives the service) behind an RPC that accepts transactions and holds them back
 * (test/helpers/held-send-rpc.ts). Two payers get early answers; the service is killed before any
 * of their transactions lands; one payer then drains its token account, and the held transactions
 * go on to the chain. After the restart on the same data dir, every early answer is confirmed or
 * recorded failed, each failed receipt has its ledger event, and the payer whose payment failed
 * is barred from early answers across the restart. Then a kill at the hand-off's own boundary:
 * a handed-off answer's record, receipt entry and kept 200 are durable in one commit before its
 * broadcast; the service is killed as its send reaches the RPC and the transaction is lost there
 * (never reaches the chain). After the restart the recorded transaction is sent again and lands,
 * its receipt is in the ledger once, the payment's retry gets the kept 200, nothing is charged twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Localnet } from '@solana-x402-intel/localnet';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localnetMainnetArgs } from '../../bench/harness/mainnet-args.ts';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { LIGHT_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { type HeldSendRpc, startHeldSendRpc } from '../helpers/held-send-rpc.ts';
import { officialSvmFetch, SOLANA } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { killService, type ServiceProcess, spawnService } from '../helpers/service-process.ts';
import { buildPaymentTx, fundedPayer, handBuiltPaymentHeader, rpcCall, type TestPayer, tokenBalance } from '../helpers/svm-payer.ts';
import { readUntil } from '../helpers/read-until.ts';
import { waitForTimingWindows } from '../helpers/timing-warm.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';
import { COMMON_TEST_SEED } from '../helpers/world-snapshots.ts';

const PRICE = 1_000;
/** Early answers in flight per payer at the kill: more than one, so the restart resolves several of each. */
const CALLS_EACH = 3;
let root: string;
let net: Localnet;
let rpc: HeldSendRpc;
let args: string[];
let service: ServiceProcess | null = null;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'early-crash-'));
  // /v1/tipfloor is only the paid call here: it needs a Jito tip seen, which light traffic gives.
  ({ localnet: net } = await startTestLocalnet(COMMON_TEST_SEED, LIGHT_TRAFFIC));
  rpc = await startHeldSendRpc(net.urls.rpc);
  const payTo = (await fundedPayer(net.urls.rpc, 1)).signer.address;
  const mainnet = localnetMainnetArgs(net, join(root, 'relayer.key'), payTo);
  args = [...mainnet.map((a) => (a === net.urls.rpc ? rpc.url : a)), '--evm-pay-to', evmAddressOfKey(generateEvmKey())];
  service = await spawnService(join(root, 'data'), args);
  await waitForTimingWindows(service.url);
  const challenge = await fetch(`${service.url}/v1/tipfloor`);
  const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required')!, 'base64').toString('utf8'));
  const feePayer = required.accepts.find((a: { network: string }) => a.network.startsWith('solana:')).extra.feePayer as string;
  await rpcCall(net.urls.rpc, 'requestAirdrop', [feePayer, 10_000_000_000]);
}, 240_000);

afterAll(async () => {
  await killService(service);
  await rpc?.close();
  await net?.close();
  rmSync(root, { recursive: true, force: true });
});

const health = async (s: ServiceProcess) => (await readJson(fetch(`${s.url}/health`))).earlyAnswers;

/** The payer moves its whole balance away, straight to the chain. */
async function drain(payer: TestPayer, to: string): Promise<void> {
  const { value } = await rpcCall<{ value: { blockhash: string } }>(net.urls.rpc, 'getLatestBlockhash', [{ commitment: 'processed' }]);
  const amount = await tokenBalance(net.urls.rpc, payer.signer.address, net.stablecoinMint);
  const wire = await buildPaymentTx({
    payer,
    feePayer: payer.signer.address,
    mint: net.stablecoinMint,
    payTo: to,
    amount,
    blockhash: value.blockhash,
    arrange: ({ transfer }) => [transfer],
  });
  await rpcCall(net.urls.rpc, 'sendTransaction', [wire, { encoding: 'base64' }]);
}

describe('kill -9 with early answers in flight', () => {
  it('after the restart each is confirmed or recorded failed, with its ledger event, and the failed payer stays barred', async () => {
    const honest = await fundedPayer(net.urls.rpc, 100 * PRICE);
    const cheat = await fundedPayer(net.urls.rpc, 100 * PRICE);
    // Both earned CALLS_EACH early answers in flight: twice as many calls each paid and confirmed first.
    for (const p of [honest, cheat]) {
      const pay = officialSvmFetch(p, { rpcUrl: net.urls.rpc, stablecoinMint: net.stablecoinMint });
      for (let i = 0; i < 2 * CALLS_EACH; i++) expect((await pay(`${service!.url}/v1/tipfloor`)).status).toBe(200);
    }
    await readUntil(
      () => health(service!),
      (h) => h.exposureUnits === 0,
    );
    const warmed = await health(service!);
    rpc.holding = true;
    const answers = await Promise.all(
      [honest, cheat].flatMap((p) => {
        const pay = officialSvmFetch(p, { rpcUrl: net.urls.rpc, stablecoinMint: net.stablecoinMint });
        return Array.from({ length: CALLS_EACH }, async () => {
          const res = await pay(`${service!.url}/v1/tipfloor`);
          await res.arrayBuffer();
          return { payer: p, res };
        });
      }),
    );
    // Every answer arrived while its transaction was held: all of them early.
    expect(rpc.passedThrough).toEqual([]);
    expect(rpc.held).toHaveLength(2 * CALLS_EACH);
    for (const { res } of answers) {
      expect(res.status).toBe(200);
      expect(decodePaymentResponseHeader(res.headers.get('payment-response')!).extra).toEqual({ settlement: 'submitted' });
    }
    await killService(service);
    await drain(cheat, honest.signer.address);
    rpc.holding = false;
    await rpc.release();

    service = await spawnService(join(root, 'data'), args);
    await waitForTimingWindows(service.url);
    const after = await readUntil(
      () => health(service!),
      (h) => h.confirmed + h.failed === 2 * CALLS_EACH && h.exposureUnits === 0,
    );
    expect(after.failed).toBe(CALLS_EACH);
    expect(after.failedUnits).toBe(CALLS_EACH * PRICE);
    // The losses survived the stop with the budget: the answers and our fee payer's fees for the failed transactions.
    expect(after.lossUnits).toBe(CALLS_EACH * (PRICE + 5_001));
    expect(warmed.lossUnits).toBe(0);

    const log = await readJson(fetch(`${service.url}/ledger?limit=1000`));
    const byIndex = new Map<number, { receiptSha256?: string }>(log.entries.map((e: { index: number }) => [e.index, e]));
    const events: string[] = log.entries.filter((e: { event?: string }) => e.event === 'payment.failed-after-answer').map((e: { reason: string }) => e.reason);
    for (const { payer, res } of answers) {
      const receipt = JSON.parse(Buffer.from(res.headers.get('x-service-receipt')!, 'base64').toString('utf8'));
      const sha = byIndex.get(receipt.ledgerIndex)!.receiptSha256!;
      expect(events.filter((r) => r.includes(sha))).toHaveLength(payer === cheat ? 1 : 0);
    }

    // The bar outlived the process: the cheat's next call waits for the chain.
    await rpcCall(net.urls.rpc, 'localnet_fundStablecoin', [cheat.signer.address, 10 * PRICE]);
    rpc.holding = true;
    const before = await health(service);
    const pay = officialSvmFetch(cheat, { rpcUrl: net.urls.rpc, stablecoinMint: net.stablecoinMint });
    const call = pay(`${service.url}/v1/tipfloor`);
    await rpc.heldAtLeast(1);
    expect((await health(service)).answered).toBe(before.answered);
    rpc.holding = false;
    await rpc.release();
    const res = await call;
    expect(res.status).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!).extra).toBeUndefined();
  }, 180_000);

  it("killed between the handed-off answer's commit and its send: the restart sends it, it lands once, its receipt is in the ledger once", async () => {
    const payer = await fundedPayer(net.urls.rpc, 100 * PRICE);
    // Eight confirmed calls (8,000 units) cover one answer's loss with its fee (6,001): handed off.
    const pay = officialSvmFetch(payer, { rpcUrl: net.urls.rpc, stablecoinMint: net.stablecoinMint });
    for (let i = 0; i < 8; i++) expect((await pay(`${service!.url}/v1/tipfloor`)).status).toBe(200);
    await readUntil(
      () => health(service!),
      (h) => h.exposureUnits === 0,
    );
    const required = decodePaymentRequiredHeader((await fetch(`${service!.url}/v1/tipfloor`)).headers.get('payment-required')!);
    const accepted = required.accepts.find((a) => a.network === SOLANA)!;
    const feePayer = String(accepted.extra?.feePayer);
    const header = await handBuiltPaymentHeader({ accepted, resource: required.resource }, { payer, feePayer, mint: net.stablecoinMint });
    const paidBefore = await tokenBalance(net.urls.rpc, payer.signer.address, net.stablecoinMint);
    const dead = service!;
    // The send reaches the RPC only after the one commit: the process dies there, and the RPC loses the transaction.
    rpc.only.clear();
    rpc.only.add(payer.signer.address);
    rpc.holding = true;
    rpc.beforeSend = async () => {
      rpc.beforeSend = null;
      await killService(dead);
    };
    // The 200 may or may not have left before the kill: a handed-off answer leaves at the hand-off.
    const first = await fetch(`${dead.url}/v1/tipfloor`, { headers: { 'PAYMENT-SIGNATURE': header } }).then(
      async (res) => ({ status: res.status, receipt: res.headers.get('x-service-receipt'), body: await res.text() }),
      () => null,
    );
    await dead.exited;
    await rpc.heldAtLeast(1);
    expect(rpc.held).toHaveLength(1);
    const signature = rpc.unsimulated.at(-1)!;
    rpc.drop();
    rpc.holding = false;
    rpc.only.clear();
    expect(await rpcCall(net.urls.rpc, 'getSignatureStatuses', [[signature]])).toMatchObject({ value: [null] });
    expect(await tokenBalance(net.urls.rpc, payer.signer.address, net.stablecoinMint)).toBe(paidBefore);

    const before = { confirmed: 0 };
    service = await spawnService(join(root, 'data'), args);
    await waitForTimingWindows(service.url);
    const after = await readUntil(
      () => health(service!),
      (h) => h.exposureUnits === 0 && h.confirmed > before.confirmed,
    );
    expect(after.confirmed).toBe(1);
    expect(after.failed).toBe(0);
    expect(await tokenBalance(net.urls.rpc, payer.signer.address, net.stablecoinMint)).toBe(paidBefore - BigInt(PRICE));

    // The payment's retry: the 200 kept in the commit, with the same receipt; nothing charged again.
    const retry = await fetch(`${service.url}/v1/tipfloor`, { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(retry.status).toBe(200);
    const receiptHeader = retry.headers.get('x-service-receipt')!;
    if (first?.status === 200) expect([receiptHeader, await retry.text()]).toEqual([first.receipt, first.body]);
    expect(decodePaymentResponseHeader(retry.headers.get('payment-response')!).transaction).toBe(signature);
    expect(await tokenBalance(net.urls.rpc, payer.signer.address, net.stablecoinMint)).toBe(paidBefore - BigInt(PRICE));
    const receipt = JSON.parse(Buffer.from(receiptHeader, 'base64').toString('utf8'));
    const log = await readJson(fetch(`${service.url}/ledger?limit=1000`));
    const sha = log.entries.find((e: { index: number }) => e.index === receipt.ledgerIndex).receiptSha256 as string;
    expect(log.entries.filter((e: { receiptSha256?: string }) => e.receiptSha256 === sha)).toHaveLength(1);
    expect(log.entries.filter((e: { reason?: string }) => e.reason?.includes(sha))).toHaveLength(0);
  }, 180_000);
});
