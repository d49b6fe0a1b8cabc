/**
 * Paid live streams end to end (docs/streams.md): the real service on port 0 against the embedded
 * localnet, a `ws` client, vouchers signed with the OFFICIAL @x402/evm `signVoucher` on a channel
 * the official batch-settlement client opened. The service's stream clock is the test's: the
 * renew and the lapse come when the test moves it, never with the wall clock.
 */
import type { PaymentRequirements } from '@x402/core/types';
import { signVoucher } from '@x402/evm/batch-settlement/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createIntelClient } from '../../src/client/intel-client.ts';
import { evmAddressOfKey } from '../../src/chain/keys/evm-key-file.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { runCliIn, streamOutputOf } from '../helpers/cli-in-process.ts';
import { writeEvmKey } from '../helpers/cli-process.ts';
import { evmAccountFromKey, type EvmHexKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { STREAM_GRACE_MS, STREAM_RENEW_LEAD_MS } from '../../src/http/streams/stream-protocol.ts';
import { BASE, type ChannelPayer, channelOf, channelPayer } from '../helpers/channel-payer.ts';
import { manualStreamClock, openStream, type StreamConnection } from '../helpers/stream-client.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const PERIOD_MS = 10_000;
const clock = manualStreamClock();
let t: TestService;
let wsBase: string;

beforeAll(async () => {
  t = await startTestService({ streamClock: clock }, [], FULL_TRAFFIC);
  wsBase = t.url.replace(/^http/, 'ws');
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const entries = () => t.service.ledger.head().treeSize;

/** A payer whose channel was opened (deposit) and charged once (1000) by a paid call through the official client. */
async function openedPayer(): Promise<ChannelPayer> {
  const payer = await channelPayer(t.localnet!.evm, 1_000_000n, 100_000n);
  const res = await payer.pay(`${t.url}/v1/epoch`);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return payer;
}

/** The channel option of a stream's offer. */
async function offerOf(conn: StreamConnection): Promise<PaymentRequirements> {
  const offer = await conn.nextOf('payment-required');
  return offer.paymentRequired.accepts.find((a: PaymentRequirements) => a.scheme === 'batch-settlement');
}

/** A voucher payment: `signer` signs a ceiling of `max` for `payer`'s channel under `terms`. */
async function voucher(payer: ChannelPayer, terms: PaymentRequirements, max: bigint, signer: EvmHexKey = payer.key) {
  const { config, channelId } = channelOf(payer, terms);
  const v = await signVoucher(evmAccountFromKey(signer), channelId, max.toString(), BASE);
  return { x402Version: 2, accepted: terms, payload: { type: 'voucher', channelConfig: config, voucher: v } };
}

describe('a tipfloor stream paid by channel vouchers', () => {
  it('offers the period, streams once paid, one ledger entry per charge, says renew before the window ends, lapses with a reason', async () => {
    const payer = await openedPayer();
    const conn = await openStream(`${wsBase}/v1/stream/tipfloor`);
    const terms = await offerOf(conn);
    expect(terms).toMatchObject({ network: BASE, amount: '1000' });
    const before = entries();
    conn.pay(await voucher(payer, terms, 2000n));
    const paid = await conn.nextOf('payment-response');
    expect(paid).toMatchObject({ resumed: false, paidUntil: clock.now() + PERIOD_MS, paymentResponse: { success: true, network: BASE } });
    expect(paid.paymentResponse.extra.channelState.chargedCumulativeAmount).toBe('2000');
    expect(paid.receipt).toEqual(expect.any(String));
    const first = await conn.nextOf('update');
    const second = await conn.nextOf('update');
    expect(first).toMatchObject({ topic: 'tipfloor', data: { unit: 'lamports' } });
    expect(second.slot).toBeGreaterThan(first.slot);
    expect(entries()).toBe(before + 1);

    clock.advance(PERIOD_MS - STREAM_RENEW_LEAD_MS);
    expect(conn.ws.readyState).toBe(conn.ws.OPEN);
    const renew = await conn.nextOf('renew');
    expect(renew.paidUntil).toBe(paid.paidUntil);
    conn.pay(await voucher(payer, terms, 3000n));
    const renewed = await conn.nextOf('payment-response');
    // Bought from the end of the window already paid: no overlap, no hole.
    expect(renewed.paidUntil).toBe(paid.paidUntil + PERIOD_MS);
    expect(entries()).toBe(before + 2);

    clock.advance(renewed.paidUntil - clock.now() + STREAM_GRACE_MS);
    const closing = await conn.nextOf('closing');
    expect(closing).toMatchObject({ reason: 'lapsed' });
    expect(await conn.closed).toEqual({ code: 4001, reason: 'lapsed' });
    expect(entries()).toBe(before + 2);
  }, 120_000);

  it('a reconnect resumes the paid window with its last payment: no second charge; the old socket is superseded', async () => {
    const payer = await openedPayer();
    const a = await openStream(`${wsBase}/v1/stream/tipfloor`);
    const terms = await offerOf(a);
    const payment = await voucher(payer, terms, 2000n);
    a.pay(payment);
    const paid = await a.nextOf('payment-response');
    const before = entries();

    const b = await openStream(`${wsBase}/v1/stream/tipfloor`);
    await b.nextOf('payment-required');
    b.pay(payment);
    const resumed = await b.nextOf('payment-response');
    expect(resumed).toMatchObject({ resumed: true, paidUntil: paid.paidUntil, receipt: paid.receipt });
    expect(await a.nextOf('closing')).toMatchObject({ reason: 'superseded' });
    expect(await b.nextOf('update')).toMatchObject({ topic: 'tipfloor' });
    expect(entries()).toBe(before);
    b.ws.close();
  }, 120_000);
});

describe('the client library and the CLI', () => {
  it('client.stream pays the first period (a deposit), answers renew by itself, and reports what it paid', async () => {
    const evmKey = generateEvmKey();
    await t.localnet!.evm.fundUsdc(evmAddressOfKey(evmKey), 1_000_000n);
    const client = createIntelClient({ url: t.url, evmKey, anyAsset: true, depositCalls: 20 });
    const stop = new AbortController();
    const before = entries();
    const seen: number[] = [];
    const ended = client.stream('tipfloor', { signal: stop.signal, onUpdate: (u) => seen.push(u.slot as number) });
    await vi.waitUntil(() => seen.length > 0, { timeout: 60_000 });
    const start = clock.now();
    clock.advance(PERIOD_MS - STREAM_RENEW_LEAD_MS);
    await vi.waitUntil(() => entries() === before + 2, { timeout: 60_000 });
    stop.abort();
    const result = await ended;
    expect(result).toMatchObject({ reason: 'ended', periods: 2, paidUnits: 2000n });
    expect(result.receipts).toHaveLength(2);
    expect(result.updates).toBe(seen.length);
    expect(client.totals()).toMatchObject({ chargedUnits: 2000n, depositedUnits: 20_000n, heldUnits: 0n });
    expect(clock.now()).toBe(start + PERIOD_MS - STREAM_RENEW_LEAD_MS);
    client.close();
  }, 120_000);

  it('x402-intel stream prints one JSON line per update and, at the end, what it paid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stream-cli-'));
    try {
      const address = writeEvmKey(join(dir, 'base.key'));
      await t.localnet!.evm.fundUsdc(address, 1_000_000n);
      const run = await runCliIn(dir, ['stream', 'slot', '--evm-key', 'base.key', '--seconds', '2', '--url', t.url, '--json']);
      expect(run.code, `${run.stderr}|${run.stdout}`).toBe(0);
      const { lines, summary } = streamOutputOf(run.stdout);
      expect(summary).toMatchObject({ topic: 'slot', ended: 'ended', periods: 1, paidUnits: '1000' });
      expect(summary.updates).toBe(lines.length);
      for (const u of lines) expect(u).toMatchObject({ topic: 'slot', data: { status: expect.stringMatching(/^(processed|confirmed)$/) } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('hostile stream clients', () => {
  it('a voucher below what was consumed is refused with the corrective reason; nothing streams on it', async () => {
    const payer = await openedPayer();
    const conn = await openStream(`${wsBase}/v1/stream/tipfloor`);
    const terms = await offerOf(conn);
    const before = entries();
    conn.pay(await voucher(payer, terms, 1000n));
    const closing = await conn.nextOf('closing');
    expect(closing).toMatchObject({ reason: 'payment_refused', error: 'invalid_batch_settlement_evm_cumulative_amount_mismatch' });
    expect((await conn.closed).code).toBe(4004);
    expect(entries()).toBe(before);
  }, 120_000);

  it("another payer's channel: a voucher its signer did not sign is refused with a plain reason", async () => {
    const victim = await openedPayer();
    const conn = await openStream(`${wsBase}/v1/stream/tipfloor`);
    const terms = await offerOf(conn);
    const before = entries();
    conn.pay(await voucher(victim, terms, 2000n, generateEvmKey()));
    const closing = await conn.nextOf('closing');
    expect(closing.reason).toBe('payment_refused');
    expect(closing.error).toMatch(/^invalid_batch_settlement_evm_voucher_signature/);
    expect(JSON.stringify(closing)).not.toContain(victim.address.slice(2).toLowerCase());
    expect(entries()).toBe(before);
  }, 120_000);

  it('a replayed voucher buys no new period', async () => {
    const payer = await openedPayer();
    const conn = await openStream(`${wsBase}/v1/stream/tipfloor`);
    const terms = await offerOf(conn);
    const payment = await voucher(payer, terms, 2000n);
    conn.pay(payment);
    const paid = await conn.nextOf('payment-response');
    const before = entries();
    clock.advance(1);
    conn.pay(payment);
    const again = await conn.nextOf('payment-response');
    expect(again).toMatchObject({ resumed: true, paidUntil: paid.paidUntil });
    expect(entries()).toBe(before);
    conn.ws.close();
  }, 120_000);

  it('a flood, an oversized message and a message of no kind are cut with their reasons; the service stays healthy', async () => {
    const payer = await openedPayer();
    const flood = await openStream(`${wsBase}/v1/stream/slot`);
    const terms = await offerOf(flood);
    const payment = JSON.stringify({ type: 'payment', payment: await voucher(payer, terms, 2000n) });
    for (let i = 0; i < 20; i++) flood.ws.send(payment);
    expect(await flood.nextOf('closing')).toMatchObject({ reason: 'flood' });
    expect((await flood.closed).code).toBe(4005);

    const big = await openStream(`${wsBase}/v1/stream/slot`);
    big.ws.send(`{"type":"payment","payment":{"pad":"${'x'.repeat(9000)}"}}`);
    expect(await big.nextOf('closing')).toMatchObject({ reason: 'flood' });

    const odd = await openStream(`${wsBase}/v1/stream/slot`);
    odd.ws.send('{"type":"subscribe","topic":"everything"}');
    expect(await odd.nextOf('closing')).toMatchObject({ reason: 'bad_message' });
    expect((await odd.closed).code).toBe(4006);

    const health = await fetch(`${t.url}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { streams: { open: number } }).streams.open).toBe(0);
  }, 120_000);

  it('discovery, OpenAPI and llms.txt list every stream of the catalog with its period terms', async () => {
    const known = (await (await fetch(`${t.url}/.well-known/x402`)).json()) as { streams: any[] };
    expect(known.streams.map((s) => s.resource)).toEqual(['tipfloor', 'priority-fee', 'slot', 'new-pairs'].map((topic) => `${wsBase}/v1/stream/${topic}`));
    expect(known.streams[0]).toMatchObject({ type: 'websocket', metadata: { periodSeconds: 10, pricePerPeriod: '$0.001' } });
    expect(known.streams[0].accepts.find((a: PaymentRequirements) => a.scheme === 'batch-settlement')).toMatchObject({ amount: '1000' });
    const openapi = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, any> };
    expect(openapi.paths['/v1/stream/slot'].get['x-x402-stream']).toMatchObject({ periodSeconds: 10 });
    expect(openapi.paths['/v1/stream/new-pairs'].get['x-x402-stream']).toMatchObject({ periodSeconds: 10 });
    expect(await (await fetch(`${t.url}/llms.txt`)).text()).toContain(`${wsBase}/v1/stream/priority-fee $0.002 per 10 s`);
  });

  it('a plain GET of a stream answers 426', async () => {
    const res = await fetch(`${t.url}/v1/stream/tipfloor`);
    expect(res.status).toBe(426);
    expect(((await res.json()) as { error: string }).error).toBe('upgrade_required');
  });
});
