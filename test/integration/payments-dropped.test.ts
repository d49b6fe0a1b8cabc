/**
 * A paid answer survives a dropped connection. The caller sends a valid payment on a raw socket
 * and closes it at a chosen moment of the paid flow; the retry of the identical request with the
 * identical header must then get a 200 with its receipt and PAYMENT-RESPONSE, and the payer is
 * charged exactly once, with exactly one ledger entry, on both networks. Before the fix, closing
 * while the settlement confirmed charged the payer and the retry answered 402
 * `duplicate_settlement: this payment was already settled`: the answer was lost.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createEvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { readJson } from '../helpers/read-json.ts';
import { officialSvmClient } from '../helpers/official-svm-client.ts';
import { fundedPayer, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const BASE = 'eip155:8453';
const PATH = '/v1/epoch?rate=both';
const PRICE = 1000n;
let t: TestService;
let svmPayer: TestPayer;
let evmClient: x402Client;
let evmPayer = '';

beforeAll(async () => {
  // The confirmed path (a close while the settlement confirms): no early answer for the $0.001 route tested here.
  t = await startTestService({}, ['--svm-early-ceiling', '0']);
  svmPayer = await fundedPayer(t.localnet!.urls.rpc, 1_000_000);
  const key = generateEvmKey();
  evmPayer = evmAddressOfKey(key);
  await t.localnet!.evm.fundUsdc(evmPayer, 1_000_000n);
  evmClient = new x402Client((_v, accepts) => accepts.find((a) => a.network === BASE)!);
  evmClient.setSpendControls({ allowedAssets: [{ network: BASE, asset: t.localnet!.evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
  evmClient.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
}, 120_000);

afterAll(async () => {
  await t?.close();
});

const NETWORKS = {
  solana: {
    header: async (path: string) =>
      paymentHeader(path, officialSvmClient(svmPayer, { rpcUrl: t.localnet!.urls.rpc, stablecoinMint: t.localnet!.stablecoinMint })),
    balance: () => tokenBalance(t.localnet!.urls.rpc, svmPayer.signer.address, t.localnet!.stablecoinMint),
  },
  base: {
    header: (path: string) => paymentHeader(path, evmClient),
    balance: async () => {
      const state = await createEvmTokenReader({ rpcUrl: t.localnet!.evm.url, asset: t.localnet!.evm.usdcAddress }).payerState(
        evmPayer,
        `0x${'00'.repeat(32)}`,
      );
      if (!state.ok) throw new Error(state.message);
      return state.balance;
    },
  },
} as const;

async function paymentHeader(path: string, client: x402Client): Promise<string> {
  const res = await fetch(`${t.url}${path}`);
  expect(res.status).toBe(402);
  const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
  return Buffer.from(JSON.stringify(await client.createPaymentPayload(required))).toString('base64');
}

/**
 * True while a settlement is in flight: the pending-settlement log (replayed like the service
 * replays it) holds a live record without a delivered answer. The record is written just before
 * the broadcast and dropped (or given its delivered answer) after delivery, so this is exactly
 * the window between the payment reaching the chain and the answer being ready. (The file's size
 * is no such signal: the log is compacted now and then.)
 */
const settlementInFlight = (): boolean => {
  let text = '';
  try {
    text = readFileSync(join(t.dataDir, 'replay', 'pending-settlements.log'), 'utf8');
  } catch {
    return false;
  }
  const live = new Map<string, { delivered?: unknown }>();
  for (const line of text.split('\n')) {
    try {
      const parsed = JSON.parse(line) as { k: string; del?: true; v?: { delivered?: unknown } };
      live.delete(parsed.k);
      if (!parsed.del && parsed.v) live.set(parsed.k, parsed.v);
    } catch {
      // a torn or empty line
    }
  }
  return [...live.values()].some((v) => v.delivered === undefined);
};

/**
 * Sends the paid request on a raw socket and closes it when `dropWhen` says so. True when the
 * answer reached the socket before the close (on a loaded machine the moment can come late):
 * then nothing was dropped.
 */
async function sendAndDrop(path: string, header: string, dropWhen: () => Promise<void>): Promise<boolean> {
  const socket = connect(t.service.port, '127.0.0.1');
  socket.on('error', () => undefined);
  let answered = false;
  socket.on('data', () => {
    answered = true;
  });
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nPAYMENT-SIGNATURE: ${header}\r\n\r\n`);
  await dropWhen();
  socket.destroy();
  return answered;
}

/** A fresh payment sent and dropped at `moment`, retried (a new payment) while the drop came too late. */
async function dropPayment(net: (typeof NETWORKS)[keyof typeof NETWORKS], moment: string) {
  for (let attempt = 1; ; attempt++) {
    const header = await net.header(PATH);
    const [balanceBefore, ledgerBefore] = [await net.balance(), await ledgerSize()];
    if (!(await sendAndDrop(PATH, header, MOMENTS[moment]!))) return { header, balanceBefore, ledgerBefore };
    expect(attempt, 'the answer reached the caller before every close').toBeLessThan(3);
  }
}

const ledgerSize = async (): Promise<number> => (await readJson(fetch(`${t.url}/trust/log?limit=1`))).treeSize;

/** The moments of the paid flow at which the caller goes away. */
const MOMENTS: Record<string, () => Promise<void>> = {
  // Before verification is done: usually nothing is charged and the retry pays afresh.
  'at once': async () => undefined,
  // The settlement record is written just before the broadcast: the payment is on its way to the chain.
  'during the settlement': async () => {
    await vi.waitUntil(settlementInFlight, { timeout: 30_000, interval: 2 });
  },
};

describe.each(Object.keys(NETWORKS) as (keyof typeof NETWORKS)[])('dropped connection on %s', (network) => {
  const net = NETWORKS[network];
  it.each(Object.keys(MOMENTS))(
    'closed %s: the retry of the same payment gets its 200, charged exactly once',
    async (moment) => {
      const { header, balanceBefore, ledgerBefore } = await dropPayment(net, moment);
      // Retry the identical request until the first attempt has finished one way or the other.
      let res: Response | null = null;
      await vi.waitUntil(
        async () => {
          res = await fetch(`${t.url}${PATH}`, { headers: { 'PAYMENT-SIGNATURE': header } });
          if (res.status === 200) return true;
          expect(res.status).toBe(402);
          const refusal = await readJson(res);
          expect(`${refusal.error}: ${refusal.message}`).toMatch(/being settled by another request|settlement_pending/);
          return false;
        },
        { timeout: 60_000, interval: 100 },
      );
      const answered = res! as Response;
      expect(decodePaymentResponseHeader(answered.headers.get('payment-response')!)).toMatchObject({ success: true });
      const receipt = answered.headers.get('x-service-receipt');
      expect(receipt).toBeTruthy();
      expect(typeof (await readJson(answered)).epoch).toBe('number');
      expect(await net.balance()).toBe(balanceBefore - PRICE);
      expect(await ledgerSize()).toBe(ledgerBefore + 1);
      // Asked again: the same answer and receipt, still no second charge and no second entry.
      const again = await fetch(`${t.url}${PATH}`, { headers: { 'PAYMENT-SIGNATURE': header } });
      expect(again.status).toBe(200);
      expect(again.headers.get('x-service-receipt')).toBe(receipt);
      expect(await net.balance()).toBe(balanceBefore - PRICE);
      expect(await ledgerSize()).toBe(ledgerBefore + 1);
    },
    120_000,
  );

  it('the kept answer is only for the request it was paid for', async () => {
    const { header } = await dropPayment(net, 'during the settlement');
    await vi.waitUntil(async () => (await fetch(`${t.url}${PATH}`, { headers: { 'PAYMENT-SIGNATURE': header } })).status === 200, {
      timeout: 60_000,
      interval: 100,
    });
    // The same payment sent for another query of the same price: refused, not that answer.
    const other = await fetch(`${t.url}/v1/epoch?rate=alt`, { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(other.status).toBe(402);
    const refusal = await readJson(other);
    expect(refusal.error).toBe('duplicate_settlement');
    expect(refusal.message).toMatch(/already settled/);
  }, 120_000);
});
