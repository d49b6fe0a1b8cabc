/**
 * The client library (`solana-x402-intel/client`) against the real service on the embedded
 * localnet, as a bot uses it: through a Base channel one deposit, then a voucher per call, each
 * call one round trip; Solana `exact` answered early; spend limits refused before anything is
 * signed; answers lost on the way retried with the identical payment (one charge, one ledger entry);
 * receipts saved and checked offline; and the package's `solana-x402-intel/client` export, built,
 * paying from plain Node.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createEvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { buildClient } from '../../scripts/build-client.ts';
import { createIntelClient } from '../../src/client/index.ts';
import { LIGHT_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { readJson } from '../helpers/read-json.ts';
import { startSwitchRelay, type SwitchRelay } from '../helpers/switch-relay.ts';
import { fundedPayer, tokenBalance } from '../helpers/svm-payer.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { waitForTimingWindows } from '../helpers/timing-warm.ts';

/** A paid test's limit: the shared machine runs at many times its cores at times (calls then take seconds). */
const PAID_TEST_MS = 240_000;

const PRICE = 1000n;
let t: TestService;
let relay: SwitchRelay;
let receiptDir: string;

beforeAll(async () => {
  t = await startTestService({}, [], LIGHT_TRAFFIC);
  relay = await startSwitchRelay(Number(new URL(t.url).port));
  receiptDir = mkdtempSync(join(tmpdir(), 'client-receipts-'));
}, 120_000);
afterAll(async () => {
  await relay?.close();
  await t?.close();
  rmSync(receiptDir, { recursive: true, force: true });
});

const ledgerSize = async (): Promise<number> => (await readJson(fetch(`${t.url}/ledger?limit=1`))).treeSize;

/** A result as one line: '200', or the status, reason and sentence of anything else (a failure says why). */
const said = (r: { ok: boolean; status: number | null; reason?: string; message?: string }): string => (r.ok ? '200' : `${r.status} ${r.reason}: ${r.message}`);

async function fundedEvmKey(units: bigint) {
  const key = generateEvmKey();
  await t.localnet!.evm.fundUsdc(evmAddressOfKey(key), units);
  return key;
}

async function evmBalance(owner: string): Promise<bigint> {
  const reader = createEvmTokenReader({ rpcUrl: t.localnet!.evm.url, asset: t.localnet!.evm.usdcAddress });
  const state = await reader.payerState(owner, `0x${'00'.repeat(32)}`);
  if (!state.ok) throw new Error(state.message);
  return state.balance;
}

describe('the Base channel lane', () => {
  it(
    'deposits once, then pays each call with a voucher in one round trip; receipts saved and checked offline',
    async () => {
      const key = await fundedEvmKey(1_000_000n);
      const client = createIntelClient({ url: t.url, evmKey: key, anyAsset: true, receipts: { dir: receiptDir, verify: true } });
      try {
        expect(client.lanes).toEqual(['base-channel', 'base-exact']);
        const size = await ledgerSize();
        const results = [];
        for (let i = 0; i < 12; i++) results.push(await client.call('/v1/epoch', { rate: 'both' }));
        for (const [i, r] of results.entries()) {
          if (!r.ok) throw new Error(`call ${i}: ${r.status} ${r.reason}: ${r.message}`);
          expect(r.roundTrips).toBe(1);
          expect(r.payment).toMatchObject({ lane: 'base-channel', paymentId: null });
          expect(r.body.epoch).toEqual(expect.any(Number));
          expect(r.paymentResponse).toMatchObject({ success: true, network: 'eip155:8453', extra: { chargedAmount: '1000' } });
          expect((r.paymentResponse!.extra!.channelState as { chargedCumulativeAmount: string }).chargedCumulativeAmount).toBe(String(PRICE * BigInt(i + 1)));
          expect(r.verification?.ok, JSON.stringify(r.verification)).toBe(true);
          expect(r.saved && existsSync(r.saved.receiptFile) && readFileSync(r.saved.bodyFile).equals(Buffer.from(r.bytes))).toBe(true);
        }
        // One deposit (the first call's; its transaction on chain), vouchers after: nothing moved on chain.
        expect(results[0]!.payment!.depositUnits).toBe(100_000n);
        expect(results[0]!.ok && results[0]!.paymentResponse!.transaction).toMatch(/^0x[0-9a-f]{64}$/);
        expect(results.slice(1).every((r) => r.ok && r.payment!.depositUnits === 0n && r.paymentResponse!.transaction === '')).toBe(true);
        expect(1_000_000n - (await evmBalance(evmAddressOfKey(key)))).toBe(100_000n);
        expect(client.totals()).toEqual({ chargedUnits: PRICE * 12n, depositedUnits: 100_000n, heldUnits: 0n });
        expect(await ledgerSize()).toBe(size + 12);
      } finally {
        client.close();
      }
    },
    PAID_TEST_MS,
  );
});

describe('the Solana exact lane', () => {
  it(
    'pays with the first request and is answered early; a payment-identifier rides with it',
    async () => {
      // The tip floor needs a tip seen on the stream first (else a 502, nothing charged): on a fast
      // machine this test came before the light traffic's first tip about one run in three.
      await waitForTimingWindows(t.url);
      const payer = await fundedPayer(t.localnet!.urls.rpc, 1_000_000);
      const client = createIntelClient({ url: t.url, svmKeypair: payer.signer, svmRpcUrl: t.localnet!.urls.rpc, anyAsset: true, receipts: { verify: true } });
      try {
        const r = await client.call('/v1/tipfloor');
        if (!r.ok) throw new Error(`${r.status} ${r.reason}: ${r.message}`);
        expect(r.roundTrips).toBe(1);
        expect(r.early).toBe(true);
        expect(r.payment).toMatchObject({ lane: 'solana-exact', paymentId: expect.stringMatching(/^pay_[0-9a-f]{32}$/) });
        expect(r.paymentResponse).toMatchObject({ success: true, network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', payer: payer.signer.address });
        expect(r.verification?.ok).toBe(true);
        expect(await tokenBalance(t.localnet!.urls.rpc, payer.signer.address, t.localnet!.stablecoinMint)).toBe(1_000_000n - PRICE);
      } finally {
        client.close();
      }
    },
    PAID_TEST_MS,
  );
});

describe('spend limits', () => {
  it(
    'refuses a price above the per-call limit and a call past the total, before anything is signed or sent',
    async () => {
      const key = await fundedEvmKey(1_000_000n);
      const client = createIntelClient({ url: t.url, evmKey: key, anyAsset: true, spendLimit: { perCallUnits: 5_000n, totalUnits: 2_500n } });
      try {
        const size = await ledgerSize();
        const dear = await client.call('/v1/smri', { mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263' });
        expect(dear).toMatchObject({
          ok: false,
          status: null,
          reason: 'price_above_limit',
          roundTrips: 0,
          refusedTerms: { amount: '10000', scheme: 'batch-settlement' },
        });
        expect(said(await client.call('/v1/epoch'))).toBe('200');
        expect(said(await client.call('/v1/epoch'))).toBe('200');
        const third = await client.call('/v1/epoch');
        expect(third).toMatchObject({ ok: false, status: null, reason: 'spend_limit', roundTrips: 0 });
        expect(client.totals().chargedUnits).toBe(2_000n);
        expect(await ledgerSize()).toBe(size + 2);
      } finally {
        client.close();
      }
    },
    PAID_TEST_MS,
  );

  it(
    'refuses a channel deposit above the deposit limit: nothing signed, nothing moved',
    async () => {
      const key = await fundedEvmKey(1_000_000n);
      const client = createIntelClient({ url: t.url, evmKey: key, anyAsset: true, prefer: 'base-channel', spendLimit: { depositUnits: 500n } });
      try {
        const r = await client.call('/v1/epoch');
        expect(r).toMatchObject({ ok: false, status: null, reason: 'deposit_above_limit' });
        expect(await evmBalance(evmAddressOfKey(key))).toBe(1_000_000n);
      } finally {
        client.close();
      }
    },
    PAID_TEST_MS,
  );
});

describe('answers lost on the way', () => {
  it(
    'sends the identical payment again: the same 200, one charge, one ledger entry (Solana exact and a channel voucher)',
    async () => {
      const payer = await fundedPayer(t.localnet!.urls.rpc, 1_000_000);
      const svm = createIntelClient({ url: relay.url, svmKeypair: payer.signer, svmRpcUrl: t.localnet!.urls.rpc, anyAsset: true });
      const evm = createIntelClient({ url: relay.url, evmKey: await fundedEvmKey(1_000_000n), anyAsset: true });
      try {
        expect(said(await evm.call('/v1/epoch'))).toBe('200');
        const size = await ledgerSize();
        const cutBefore = relay.cut();
        relay.cutAnswers = 1;
        const paid = await svm.call('/v1/epoch', { rate: 'both' });
        if (!paid.ok) throw new Error(`${paid.status} ${paid.reason}: ${paid.message}`);
        expect(relay.cut()).toBe(cutBefore + 1);
        expect(paid.roundTrips).toBe(2);
        expect(await tokenBalance(t.localnet!.urls.rpc, payer.signer.address, t.localnet!.stablecoinMint)).toBe(1_000_000n - PRICE);
        expect(await ledgerSize()).toBe(size + 1);

        relay.cutAnswers = 1;
        const voucher = await evm.call('/v1/epoch');
        if (!voucher.ok) throw new Error(`${voucher.status} ${voucher.reason}: ${voucher.message}`);
        expect(voucher.roundTrips).toBe(2);
        expect((voucher.paymentResponse!.extra!.channelState as { chargedCumulativeAmount: string }).chargedCumulativeAmount).toBe(String(PRICE * 2n));
        expect(await ledgerSize()).toBe(size + 2);
        expect(evm.totals().chargedUnits).toBe(PRICE * 2n);
      } finally {
        svm.close();
        evm.close();
      }
    },
    PAID_TEST_MS,
  );
});

describe('the package export', () => {
  it(
    'solana-x402-intel/client, built, pays from plain Node (no TypeScript loader)',
    async () => {
      await buildClient();
      const key = await fundedEvmKey(1_000_000n);
      const script = `
      import { createIntelClient } from 'solana-x402-intel/client';
      const client = createIntelClient({ url: process.env.URL, evmKey: process.env.KEY, anyAsset: true });
      const r = await client.call('/v1/epoch');
      client.close();
      console.log(JSON.stringify({ ok: r.ok, status: r.status, trips: r.roundTrips, epoch: r.body?.epoch, lane: r.payment?.lane }));`;
      const run = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        cwd: join(import.meta.dirname, '..', '..'),
        env: { PATH: process.env.PATH, URL: t.url, KEY: key },
      });
      expect(JSON.parse(run.stdout)).toEqual({ ok: true, status: 200, trips: 1, epoch: expect.any(Number), lane: 'base-channel' });
    },
    PAID_TEST_MS,
  );
});
