/**
 * Payers who take back what they paid between their early answer and its landing (docs/security.md,
 * "Solana early answers"): the real service, paid by the official x402 SVM client, with an RPC in
 * front (test/helpers/held-send-rpc.ts) that accepts each transaction after its preflight and holds
 * it back until the test lets it land. Meanwhile the payer drains its token account, closes it, or
 * lands a second transfer of its own. Then: a payer with confirmed history loses at most what its
 * history earned it (within the payer cap), a payer without any at most one answer, each receipt
 * whose payment failed has its ledger event, and a payer whose payment failed gets no further early
 * answer.
 */
import { address } from '@solana/kit';
import { findAssociatedTokenPda, getCloseAccountInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { Localnet } from '@solana-x402-intel/localnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/service.ts';
import type { HeldSendRpc } from '../helpers/held-send-rpc.ts';
import { type EarlyService, startEarlyService } from '../helpers/early-service.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { buildPaymentTx, fundedPayer, rpcCall, type TestPayer, tokenBalance } from '../helpers/svm-payer.ts';
import { readUntil } from '../helpers/read-until.ts';

const PRICE = 1_000;
/**
 * Four answers: enough for a loss to happen within it and for the race to leave room for only part
 * of it, and every unit of it is paid for twice (WARM_CALLS) before each attack.
 */
const PAYER_CAP = 4_000;
/** Above the eight new payers' answers (their share is half of it): it does not bind here. */
const GLOBAL_CAP = 30_000;
/** Large enough not to bind here (test/adversarial/svm-early-rotation.test.ts tests the budget). */
const LOSS_BUDGET = 10_000_000;
/** More calls per payer than its cap lets answer early: the rest must wait for the chain. */
const CALLS_EACH = 7;
/** Confirmed calls that earn a payer its cap: half of 8 x $0.001 is $0.004. */
const WARM_CALLS = (2 * PAYER_CAP) / PRICE;
/** Calls each of the eight new payers makes at once: one answered early, the rest refused by the payer cap. */
const NEW_PAYER_CALLS = 3;

const CAPS = ['--svm-early-payer-cap', String(PAYER_CAP), '--svm-early-global-cap', String(GLOBAL_CAP), '--svm-early-loss-budget', String(LOSS_BUDGET)];

let early: EarlyService;
let localnet: Localnet;
let rpc: HeldSendRpc;
let service: RunningService;
let sink: TestPayer;

beforeAll(async () => {
  early = await startEarlyService('early-answers', CAPS);
  ({ localnet, rpc, service, sink } = early);
}, 120_000);

afterAll(() => early?.close());

const health = () => early.health();

/** A transaction of the payer's own (it pays its fee), sent straight to the chain. */
async function sendOwn(payer: TestPayer, amount: bigint, close: boolean): Promise<void> {
  const { value } = await rpcCall<{ value: { blockhash: string } }>(localnet.urls.rpc, 'getLatestBlockhash', [{ commitment: 'processed' }]);
  const mint = address(localnet.stablecoinMint);
  const [account] = await findAssociatedTokenPda({ owner: payer.signer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const closing = close ? [getCloseAccountInstruction({ account, destination: payer.signer.address, owner: payer.signer })] : [];
  const wire = await buildPaymentTx({
    payer,
    feePayer: payer.signer.address,
    mint: localnet.stablecoinMint,
    payTo: sink.signer.address,
    amount,
    blockhash: value.blockhash,
    arrange: ({ transfer }) => [transfer],
    extra: closing,
  });
  await rpcCall(localnet.urls.rpc, 'sendTransaction', [wire, { encoding: 'base64' }]);
}

/** How the payer takes its money back while its payments are held. */
type Spoil = (payer: TestPayer) => Promise<void>;
const drain: Spoil = async (p) => sendOwn(p, await tokenBalance(localnet.urls.rpc, p.signer.address, localnet.stablecoinMint), false);
const drainAndClose: Spoil = async (p) => sendOwn(p, await tokenBalance(localnet.urls.rpc, p.signer.address, localnet.stablecoinMint), true);
/** A second transfer that leaves room for only two of the held payments. */
const race: Spoil = async (p) => sendOwn(p, (await tokenBalance(localnet.urls.rpc, p.signer.address, localnet.stablecoinMint)) - 2n * BigInt(PRICE), false);

interface Answered {
  readonly payer: string;
  readonly res: Response;
  readonly at: number;
}

/** Every payer calls CALLS_EACH times at once with its sends held; spoils, lets them land; returns the 200s and when each came. */
async function attack(payers: readonly TestPayer[], spoil: Spoil, callsEach = CALLS_EACH) {
  const before = await health();
  rpc.holding = true;
  const answered: Answered[] = [];
  const calls = payers.flatMap((p) => {
    const pay = officialSvmFetch(p, { rpcUrl: localnet.urls.rpc, stablecoinMint: localnet.stablecoinMint });
    return Array.from({ length: callsEach }, () =>
      pay(`${service.url}/v1/tipfloor`).then((res) => {
        answered.push({ payer: p.signer.address, res, at: rpc.held.length });
        return res;
      }),
    );
  });
  await rpc.heldAtLeast(payers.length * callsEach);
  const early = (await health()).answered - before.answered;
  // The early ones leave once accepted: all of them arrive while every transaction is still held.
  await readUntil(
    () => Promise.resolve(answered.length),
    (n) => n >= early,
  );
  const whileHeld = answered.slice();
  const exposure = await health();
  for (const p of payers) await spoil(p);
  rpc.holding = false;
  await rpc.release();
  const all = await Promise.all(calls);
  const after = await readUntil(health, (h) => h.exposureUnits === 0);
  return { early, whileHeld, all, exposure, before, after };
}

/** The receipt hash of a paid 200, read from the ledger entry its receipt names. */
async function receiptShaOf(res: Response, entries: Map<number, { receiptSha256?: string }>): Promise<string> {
  const receipt = JSON.parse(Buffer.from(res.headers.get('x-service-receipt')!, 'base64').toString('utf8'));
  return entries.get(receipt.ledgerIndex)!.receiptSha256!;
}

async function landedOk(signature: string): Promise<boolean> {
  const { value } = await rpcCall<{ value: Array<{ err: unknown } | null> }>(localnet.urls.rpc, 'getSignatureStatuses', [[signature]]);
  return value[0] !== null && value[0]!.err === null;
}

/** Checks the outcome of an attack: losses within the caps, and a ledger event for every lost receipt. */
async function lossesOf(whileHeld: readonly Answered[]) {
  const log = await readJson(fetch(`${service.url}/ledger?limit=1000`));
  const entries = new Map<number, { receiptSha256?: string }>(log.entries.map((e: { index: number }) => [e.index, e]));
  const events: string[] = log.entries.filter((e: { event?: string }) => e.event === 'payment.failed-after-answer').map((e: { reason: string }) => e.reason);
  const lostBy = new Map<string, number>();
  for (const a of whileHeld) {
    expect(a.res.status).toBe(200);
    const settled = decodePaymentResponseHeader(a.res.headers.get('payment-response')!);
    expect(settled.success).toBe(true);
    expect(settled.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const sha = await receiptShaOf(a.res, entries);
    const lost = !(await landedOk(settled.transaction));
    expect(events.filter((r) => r.includes(sha))).toHaveLength(lost ? 1 : 0);
    if (lost) lostBy.set(a.payer, (lostBy.get(a.payer) ?? 0) + PRICE);
  }
  return lostBy;
}

/** A payer whose payment failed pays again (funded anew): its call waits for the chain, and is answered then. */
async function expectNoEarlyAnswer(payer: TestPayer): Promise<void> {
  await rpcCall(localnet.urls.rpc, 'localnet_fundStablecoin', [payer.signer.address, 10 * PRICE]);
  const before = await health();
  rpc.holding = true;
  const pay = officialSvmFetch(payer, { rpcUrl: localnet.urls.rpc, stablecoinMint: localnet.stablecoinMint });
  const call = pay(`${service.url}/v1/tipfloor`);
  await rpc.heldAtLeast(1);
  // Decided before the send: had it been answered early, the count and the exposure would show it now.
  const now = await health();
  expect(now.answered).toBe(before.answered);
  expect(now.exposureUnits).toBe(0);
  rpc.holding = false;
  await rpc.release();
  expect((await call).status).toBe(200);
}

/**
 * A payer with confirmed history: WARM_CALLS paid at once and confirmed (nothing held). The first
 * is answered early, the others wait for the chain (the payer has no history yet); what the payer
 * earns is the confirmed value, however the calls were spread, so they need not wait for each other.
 */
async function establishedPayer(): Promise<TestPayer> {
  const payer = await fundedPayer(localnet.urls.rpc, 200 * PRICE);
  const pay = officialSvmFetch(payer, { rpcUrl: localnet.urls.rpc, stablecoinMint: localnet.stablecoinMint });
  const warm = await Promise.all(Array.from({ length: WARM_CALLS }, () => pay(`${service.url}/v1/tipfloor`)));
  expect(warm.map((r) => r.status)).toEqual(Array<number>(WARM_CALLS).fill(200));
  // Every warm-up answer confirmed (and credited) before the attack.
  await readUntil(health, (h) => h.exposureUnits === 0);
  return payer;
}

describe('payers who take their payment back before it lands', () => {
  for (const [name, spoil] of [
    ['drains its token account', drain],
    ['drains and closes its token account', drainAndClose],
    ['races a second transfer of its own', race],
  ] as const) {
    it(`one payer with history ${name}: early answers up to what it earned, a loss within it, each failure in the ledger, no early answer after`, async () => {
      const payer = await establishedPayer();
      const { early, whileHeld, all, exposure, after, before } = await attack([payer], spoil);
      expect(early).toBe(PAYER_CAP / PRICE);
      expect(whileHeld).toHaveLength(early);
      expect(exposure.exposureUnits).toBe(PAYER_CAP);
      const lost = await lossesOf(whileHeld);
      expect(lost.get(payer.signer.address) ?? 0).toBeLessThanOrEqual(PAYER_CAP);
      expect(after.failedUnits - before.failedUnits).toBe(lost.get(payer.signer.address) ?? 0);
      // The calls past the cap waited for the chain, as before early answers: none answered for a failed payment.
      const waited = all.filter((r) => !whileHeld.some((a) => a.res === r));
      for (const r of waited)
        if (r.status === 200) expect(await landedOk(decodePaymentResponseHeader(r.headers.get('payment-response')!).transaction)).toBe(true);
      if ((lost.get(payer.signer.address) ?? 0) > 0) await expectNoEarlyAnswer(payer);
    }, 180_000);
  }

  it('eight payers without history drain at once: one early answer each, each failure in the ledger', async () => {
    const payers = await Promise.all(Array.from({ length: 8 }, () => fundedPayer(localnet.urls.rpc, 100 * PRICE)));
    const { early, whileHeld, exposure, before, after } = await attack(payers, drain, NEW_PAYER_CALLS);
    expect(early).toBe(8);
    expect(new Set(whileHeld.map((a) => a.payer)).size).toBe(8);
    expect(exposure.exposureUnits).toBe(8 * PRICE);
    expect(after.refused.payer_cap - before.refused.payer_cap).toBe(8 * (NEW_PAYER_CALLS - 1));
    const lost = await lossesOf(whileHeld);
    for (const units of lost.values()) expect(units).toBe(PRICE);
    expect(after.failed - before.failed).toBe(8);
    for (const p of payers.slice(0, 2)) await expectNoEarlyAnswer(p);
  }, 240_000);
});
