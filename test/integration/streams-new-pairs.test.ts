/**
 * The new-pairs stream end to end (docs/streams.md#new-pairs): the real service on port 0 against
 * the embedded localnet, whose block producer launches a pool every 5 slots (a signed transaction
 * creating the mint, the vaults and the liquidity); the service polls the market stand-in's
 * GeckoTerminal `new_pools` while the topic has a subscriber. A `ws` client pays a period with a
 * voucher signed by the OFFICIAL @x402/evm `signVoucher`, receives a pool launched after it
 * subscribed, reconnects with its last payment (no second charge), and is never sent a pair twice.
 * The stream clock is the test's: the paid period never lapses while the test runs.
 */
import type { PaymentRequirements } from '@x402/core/types';
import { signVoucher } from '@x402/evm/batch-settlement/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evmAccountFromKey } from '../../src/chain/keys/evm-key-file.ts';
import { EXIT } from '../../src/cli/cli-error.ts';
import { runCliIn, streamOutputOf } from '../helpers/cli-in-process.ts';
import { writeEvmKey } from '../helpers/cli-process.ts';
import { BASE, type ChannelPayer, channelOf, channelPayer } from '../helpers/channel-payer.ts';
import { updateErrors } from '../helpers/check-response.ts';
import { manualStreamClock, openStream, type StreamConnection, type StreamMessage } from '../helpers/stream-client.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const clock = manualStreamClock();
let t: TestService;
let wsBase: string;

beforeAll(async () => {
  // Launches only, no background traffic: a launch is its own transaction, and the stand-in's
  // listing prices a new pool from its reserves, not from swaps.
  t = await startTestService({ streamClock: clock, newPairsPollMs: 250 }, [], { launchEverySlots: 5 });
  wsBase = t.url.replace(/^http/, 'ws');
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const entries = () => t.service.ledger.head().treeSize;
const health = async () => (await (await fetch(`${t.url}/health`)).json()) as any;
const listed = async (): Promise<string[]> =>
  ((await (await fetch(`${t.localnet!.urls.market}/api/v2/networks/solana/new_pools`)).json()) as any).data.map((d: any) => d.attributes.address);

async function openedPayer(): Promise<ChannelPayer> {
  const payer = await channelPayer(t.localnet!.evm, 1_000_000n, 100_000n);
  const res = await payer.pay(`${t.url}/v1/epoch`);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return payer;
}

async function voucher(payer: ChannelPayer, terms: PaymentRequirements, max: bigint) {
  const { config, channelId } = channelOf(payer, terms);
  const v = await signVoucher(evmAccountFromKey(payer.key), channelId, max.toString(), BASE);
  return { x402Version: 2, accepted: terms, payload: { type: 'voucher', channelConfig: config, voucher: v } };
}

/** Opens the stream; every update it gets goes to `updates`. */
function openCollecting(updates: StreamMessage[]): Promise<StreamConnection> {
  return openStream(`${wsBase}/v1/stream/new-pairs`, { onMessage: (m) => m.type === 'update' && void updates.push(m) });
}

describe('the new-pairs stream', () => {
  it('pushes a pool launched after the subscription, in the catalog schema, and no pair twice across a reconnect', async () => {
    const payer = await openedPayer();
    const updates: StreamMessage[] = [];
    const a = await openCollecting(updates);
    const offer = await a.nextOf('payment-required');
    const terms = offer.paymentRequired.accepts.find((o: PaymentRequirements) => o.scheme === 'batch-settlement');
    expect(terms).toMatchObject({ network: BASE, amount: '1000' });
    const before = entries();
    const payment = await voucher(payer, terms, 2000n);
    a.pay(payment);
    const paid = await a.nextOf('payment-response');
    expect(paid).toMatchObject({ resumed: false, paymentResponse: { success: true } });

    // The feed's baseline poll has answered: any pool the stand-in lists later is new to it.
    await vi.waitUntil(async () => (await health()).streams.newPairs.polls >= 2, { timeout: 20_000, interval: 100 });
    const known = new Set(await listed());
    await vi.waitUntil(() => updates.some((u) => !known.has(u.data.poolAddress)), { timeout: 30_000, interval: 100 });
    const first = updates.find((u) => !known.has(u.data.poolAddress))!;
    const pool = t.localnet!.producer.pools().find((p) => p.address === first.data.poolAddress);
    expect(pool?.label).toMatch(/^launch-\d+$/);
    expect(first).toMatchObject({ type: 'update', topic: 'new-pairs', slot: expect.any(Number), at: expect.any(Number) });
    expect(first.data).toMatchObject({ baseMint: pool!.mintA, quoteMint: pool!.mintB, baseSymbol: 'unknown', dex: pool!.label });
    expect(first.data.liquidityUsd).toBeGreaterThan(0);
    expect(Date.parse(first.data.createdAt)).toBe(pool!.createdAt * 1000);
    expect(updateErrors('/v1/stream/new-pairs', first.data)).toEqual([]);

    // Reconnect with the same payment: the window resumes, nothing is charged again.
    const seenOnA = updates.length;
    const b = await openCollecting(updates);
    await b.nextOf('payment-required');
    b.pay(payment);
    expect(await b.nextOf('payment-response')).toMatchObject({ resumed: true, paidUntil: paid.paidUntil, receipt: paid.receipt });
    expect(await a.nextOf('closing')).toMatchObject({ reason: 'superseded' });
    await vi.waitUntil(() => updates.length >= seenOnA + 2, { timeout: 30_000, interval: 100 });

    const addresses = updates.map((u) => u.data.poolAddress);
    expect(new Set(addresses).size).toBe(addresses.length);
    const launched = new Set(
      t
        .localnet!.producer.pools()
        .filter((p) => p.label.startsWith('launch-'))
        .map((p) => p.address),
    );
    expect(addresses.every((address) => launched.has(address))).toBe(true);
    expect(entries()).toBe(before + 1);
    b.ws.close();
  }, 120_000);

  it('polls the market source only while the topic has a subscriber', async () => {
    await vi.waitUntil(async () => (await health()).streams.newPairs.polling === false, { timeout: 20_000, interval: 100 });
    const polls = (await health()).streams.newPairs.polls;
    // Several poll intervals and a pool launch later, with nobody subscribed: no call was made.
    const launchedBefore = t.localnet!.producer.pools().length;
    await vi.waitUntil(() => t.localnet!.producer.pools().length > launchedBefore, { timeout: 30_000, interval: 100 });
    expect((await health()).streams.newPairs).toMatchObject({ polling: false, polls });
  }, 60_000);

  it('x402-intel stream new-pairs prints one JSON line per new pair and what it paid; --periods above 1 on a channel is a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stream-new-pairs-'));
    try {
      const address = writeEvmKey(join(dir, 'base.key'));
      await t.localnet!.evm.fundUsdc(address, 1_000_000n);
      const refused = await runCliIn(dir, ['stream', 'new-pairs', '--evm-key', 'base.key', '--periods', '2', '--url', t.url]);
      expect(refused.code).toBe(EXIT.usage);
      expect(refused.stderr).toContain('--periods buys a window on Solana only');
      // Runs until interrupted, as Ctrl-C does, once it has printed a pair: it waits on what came, not on a clock.
      const firstUpdate = (out: string) => /^\{"topic"/m.test(out);
      const run = await runCliIn(dir, ['stream', 'new-pairs', '--evm-key', 'base.key', '--url', t.url, '--json'], {}, firstUpdate);
      expect(run.code, `${run.stderr}|${run.stdout}`).toBe(0);
      const { lines, summary } = streamOutputOf(run.stdout);
      expect(summary).toMatchObject({ topic: 'new-pairs', ended: 'ended', periods: 1, paidUnits: '1000' });
      expect(summary.updates).toBe(lines.length);
      expect(lines.length).toBeGreaterThan(0);
      for (const u of lines) expect(updateErrors('/v1/stream/new-pairs', u.data)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
