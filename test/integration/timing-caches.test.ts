/**
 * The Geyser-fed timing caches against the real localnet: the official Yellowstone client streams
 * from a Geyser server over the localnet chain, and every figure is checked against the block
 * producer's ground truth (CU prices and tips it generated). Then the stream goes stale (producer
 * paused), goes away (server closed) and comes back on the same port: answers fall back to the
 * RPC saying so, and the caches recover.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGeyserStream } from '../../src/chain/geyser/geyser-client.ts';
import { createRpcClient, createRpcTransport } from '../../src/chain/solana/rpc-client.ts';
import { openLiveCaches, type LiveCaches } from '../../src/caches/live-caches.ts';
import { createTimingRuntime, type TimingRuntime } from '../../src/intel/timing/timing-runtime.ts';
import { type GeyserServer, type Localnet, type ProducedTransaction, startGeyserServer } from '@solana-x402-intel/localnet';
import { createWorkerPool, type WorkerPool } from '../../src/pool/worker-pool.ts';
import { LIGHT_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { responseErrors } from '../helpers/check-response.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';
import { COMMON_TEST_SEED } from '../helpers/world-snapshots.ts';

/**
 * The product's default (5 s). The figures are checked while the stream is live (a slot within
 * this long); with 1.5 s, a loaded machine (other files beside this one) let slots come later than
 * that and the answers fell back to the RPC. The outage tests wait for staleness, however long.
 */
const STALE_MS = 5_000;
/** The shortest epoch a Solana schedule allows: the first transition comes 12.8 s after start, not 25.6 s. */
const SLOTS_PER_EPOCH = 32;

/** A TCP relay in front of the Geyser server: cutting it is a network drop the server survives. */
interface Relay {
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}
async function startRelay(target: () => number): Promise<Relay> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = async (): Promise<void> => {
    server = createServer((client) => {
      const upstream = connect(target(), '127.0.0.1');
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server!.address() as { port: number }).port;
  };
  const cut = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    for (const s of sockets) s.destroy();
    await closed;
    server = null;
  };
  await listen();
  return {
    get port() {
      return port;
    },
    cut,
    restore: listen,
    close: cut,
  };
}
let localnet: Localnet;
let geyser: GeyserServer;
let port: number;
let relay: Relay;
let pool: WorkerPool<PoolTasks>;
let rt: TimingRuntime;
let live: LiveCaches;
const signal = new AbortController().signal;

type Body = Record<string, any>;
const call = async (path: keyof TimingRuntime['handlers'], query: Record<string, unknown> = {}): Promise<Body> => {
  const body = (await rt.handlers[path](query, signal)) as Body;
  expect(responseErrors(path, body)).toEqual([]);
  return body;
};

/** Waits for `predicate`; a time-out names what never came. */
async function until(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  await vi.waitUntil(predicate, { timeout: timeoutMs, interval: 100 }).catch(() => {
    throw new Error(`timed out waiting for ${what}`);
  });
}

/** Independent nearest-rank percentile. */
const nearestRank = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1]!;
};

/** Landed producer transactions of the given slots. */
const producedIn = (slots: ReadonlySet<number>): ProducedTransaction[] =>
  localnet.producer
    .history()
    .filter((s) => slots.has(Number(s.slot)))
    .flatMap((s) => s.transactions.filter((t) => t.landed));

/** When the runtime was started (the earliest a slot can have been observed). */
let runtimeStartedAtMs = 0;
const coveredSlots = (which: 'fees' | 'tips'): Set<number> => new Set(live.caches[which].window.completeBuckets().map((b) => b.slot));

beforeAll(async () => {
  // Light traffic (1 to 4 transactions a slot, about one tip): every figure is still checked
  // against what the producer made, exactly; the full 5 to 20 made the same checks on more numbers
  // at about five times the producer's CPU, paid through every wait below.
  ({ localnet } = await startTestLocalnet(COMMON_TEST_SEED, { slotsPerEpoch: SLOTS_PER_EPOCH, ...LIGHT_TRAFFIC }));
  geyser = await startGeyserServer({ events: localnet.chain, head: localnet.chain, host: '127.0.0.1', port: 0 });
  port = geyser.port;
  relay = await startRelay(() => port);
  const transport = createRpcTransport({ url: localnet.urls.rpc });
  pool = createWorkerPool({ size: 1 });
  runtimeStartedAtMs = Date.now();
  live = await openLiveCaches({
    rpcTransport: transport,
    geyser: { url: `http://127.0.0.1:${relay.port}`, token: null },
    staleMs: STALE_MS,
    tipHistoryEverySlots: 5,
    checkpointEverySlots: 5,
    backoffMaxMs: 500,
  });
  // Small enough that the pool task computes the percentiles of a light window here (the path large windows take).
  rt = createTimingRuntime({ live, rpc: createRpcClient(transport), pool, poolMinValues: 10 });
  await until('ten complete slots', () => coveredSlots('fees').size >= 10);
}, 120_000);

afterAll(async () => {
  rt?.close();
  await live?.close();
  await relay?.close();
  await geyser?.close();
  await pool?.close();
  await localnet?.close();
});

describe('figures match the block producer', () => {
  it('priority fee: per-transaction CU prices of the window, nearest rank, bands mapped', async () => {
    const body = await call('/v1/priority-fee');
    expect(body.source).toBe('geyser');
    const slots = new Set<number>();
    for (let s = body.window.fromSlot; s <= body.window.toSlot; s++) if (coveredSlots('fees').has(s)) slots.add(s);
    expect(slots.size).toBe(body.window.slotsCovered);
    const prices = producedIn(slots).map((t) => Number(t.computeUnitPrice ?? 0n));
    expect(body.observed.transactions).toBe(prices.length);
    expect(body.observed.unpricedTransactionsInWindow).toBe(prices.filter((p) => p === 0).length);
    expect(body.percentiles).toEqual({
      p50: nearestRank(prices, 50),
      p75: nearestRank(prices, 75),
      p90: nearestRank(prices, 90),
      p99: nearestRank(prices, 99),
    });
    expect(body.suggestedBands).toEqual({
      economy: body.percentiles.p50,
      normal: body.percentiles.p75,
      fast: body.percentiles.p90,
      aggressive: body.percentiles.p99,
    });
    expect(body.freshness.slot).toBe(body.window.toSlot);
    // The age counts from when the runtime saw the slot: after it started, not after the answer.
    const observedAtMs = Date.parse(body.freshness.asOf) - body.freshness.ageMs;
    expect(observedAtMs).toBeGreaterThanOrEqual(runtimeStartedAtMs);
    expect(body.note).toMatch(/not a prediction/);
  });

  it('priority fee: accounts narrow to transactions write-locking them', async () => {
    const pool0 = localnet.world.pools[0]!;
    const pool1 = localnet.world.pools[1]!;
    await until('swaps through both pools', () => {
      const txs = producedIn(coveredSlots('fees'));
      return txs.some((t) => t.pool === pool0.label) && txs.some((t) => t.pool === pool1.label);
    });
    const body = await call('/v1/priority-fee', { accounts: [pool0.vaultA, pool1.vaultB] });
    const slots = new Set<number>();
    for (let s = body.window.fromSlot; s <= body.window.toSlot; s++) if (coveredSlots('fees').has(s)) slots.add(s);
    const prices = producedIn(slots)
      .filter((t) => t.kind === 'swap' && (t.pool === pool0.label || t.pool === pool1.label))
      .map((t) => Number(t.computeUnitPrice ?? 0n));
    expect(body.observed).toMatchObject({ narrowed: true, transactions: prices.length, accountsRequested: 2 });
    expect(body.percentiles.p50).toBe(nearestRank(prices, 50));
    expect(body.percentiles.p99).toBe(nearestRank(prices, 99));

    const untouched = await call('/v1/priority-fee', { accounts: [`${'Sysvar1111111111111111111111111111111111111'.slice(0, 43)}1`] });
    expect(untouched.observed.narrowed).toBe(false);
    expect(untouched.observed.narrowingNote).toMatch(/no transaction/);
  });

  it('tip floor: successful landed tips, EMA of per-slot medians, interval history', async () => {
    const body = await call('/v1/tipfloor', { fresh: true });
    expect(body.source).toBe('geyser');
    const covered = coveredSlots('tips');
    const slots = new Set([...covered].filter((s) => s >= body.window.fromSlot && s <= body.window.toSlot));
    const tipsOf = (set: ReadonlySet<number>) =>
      producedIn(set)
        .filter((t) => !t.failed && t.tipLamports > 0n)
        .map((t) => Number(t.tipLamports));
    const tips = tipsOf(slots);
    expect(body.tips).toBe(tips.length);
    expect([body.p50, body.p95, body.p99]).toEqual([nearestRank(tips, 50), nearestRank(tips, 95), nearestRank(tips, 99)]);
    // The EMA over every completed slot since it started, recomputed from the producer's record.
    let ema: number | null = null;
    const alpha = 2 / (body.emaMethod.spanSlots + 1);
    for (let s = body.emaMethod.sinceSlot; s <= body.window.toSlot; s++) {
      const slotTips = tipsOf(new Set([s]));
      if (slotTips.length > 0) ema = ema === null ? nearestRank(slotTips, 50) : alpha * nearestRank(slotTips, 50) + (1 - alpha) * ema;
    }
    expect(body.ema).toBe(Math.round(ema!));
    expect(body.history.length).toBeGreaterThan(0);
    const point = body.history[body.history.length - 1];
    const pointSlots = new Set<number>();
    for (let s = point.fromSlot; s <= point.toSlot; s++) pointSlots.add(s);
    const pointTips = tipsOf(pointSlots);
    expect(point.tips).toBe(pointTips.length);
    if (pointTips.length > 0) expect(point.p95).toBe(nearestRank(pointTips, 95));
  });

  it('tip floor: served from the ~60 s cache unless fresh=true', async () => {
    const first = await call('/v1/tipfloor', { fresh: true });
    await until('a newer confirmed slot', () => (live.caches.tips.window.lastConfirmed ?? 0) > first.window.toSlot);
    const cached = await call('/v1/tipfloor');
    expect(cached.freshness.fromCache).toBe(true);
    expect(cached.window.toSlot).toBe(first.window.toSlot);
    const fresh = await call('/v1/tipfloor', { fresh: true });
    expect(fresh.freshness.fromCache).toBe(false);
    expect(fresh.window.toSlot).toBeGreaterThan(first.window.toSlot);
  });

  it('lends pretrade the suggested bands of the same figures', async () => {
    const bands = await rt.feeBands(signal);
    const body = await call('/v1/priority-fee');
    expect(bands).toMatchObject({ unit: 'microLamportsPerComputeUnit', source: 'geyser' });
    expect(bands.slot! - body.window.toSlot).toBeLessThanOrEqual(4);
    expect(bands.suggestedBands.normal).toBeGreaterThan(0);
  });

  it('epoch: position from the streamed slot and the schedule, two labelled rates', async () => {
    const streamedBefore = live.caches.clock.head()!.slot;
    const body = await call('/v1/epoch', { rate: 'both' });
    const streamedAfter = live.caches.clock.head()!.slot;
    expect(body.source).toBe('geyser');
    // The streamed head of the moment of the answer, one the chain has made.
    expect(body.absoluteSlot).toBeGreaterThanOrEqual(streamedBefore);
    expect(body.absoluteSlot).toBeLessThanOrEqual(streamedAfter);
    expect(body.slotsInEpoch).toBe(SLOTS_PER_EPOCH);
    expect(body.epoch).toBe(Math.floor(body.absoluteSlot / SLOTS_PER_EPOCH));
    expect(body.slotIndex).toBe(body.absoluteSlot % SLOTS_PER_EPOCH);
    expect(body.slotRates.primary.label).toMatch(/last 60 s/);
    expect(body.slotRates.alt.label).toMatch(/baseline/);
    expect(body.slotRates.primary.slotMs).toBeGreaterThan(300);
    expect(body.etaSecondsToEnd).toBe(Math.round(((SLOTS_PER_EPOCH - body.slotIndex) * body.slotRates.primary.slotMs) / 1000));
    expect(Number(localnet.chain.slot('processed'))).toBeGreaterThanOrEqual(body.absoluteSlot);
    const alt = await call('/v1/epoch', { rate: 'alt' });
    expect(alt.etaRate).toBe('alt');
    expect(alt.slotRates.primary).toBeUndefined();
  });

  it('sgp-checkpoint: an epoch transition is recorded in the series', async () => {
    await until('an epoch transition', () => live.caches.clock.transitions().length > 0, 90_000);
    const body = await call('/v1/sgp-checkpoint', { n: 200 });
    expect(body.source).toBe('geyser');
    const { fromEpoch, toEpoch, slot } = body.series.lastTransition;
    expect(toEpoch).toBe(fromEpoch + 1);
    expect(slot % SLOTS_PER_EPOCH).toBeLessThan(3);
    expect(body.series.recent.some((p: Body) => p.epoch === toEpoch && p.slot === slot)).toBe(true);
    expect(body.series.recent.length).toBe(Math.min(200, body.series.count));
    expect(body.latest.progressPct).toBeCloseTo((body.latest.slotIndex / SLOTS_PER_EPOCH) * 100, 2);
    // The ETA is the observation time (the answer's asOf less its age) plus the slots left at the measured rate.
    const observedAtMs = Date.parse(body.freshness.asOf) - body.freshness.ageMs;
    const expectedEta = observedAtMs + (body.latest.slotsInEpoch - body.latest.slotIndex) * body.measured.slotMs;
    expect(Math.abs(Date.parse(body.measured.etaEpochEndIso) - expectedEta)).toBeLessThanOrEqual(1);
    expect((await call('/v1/sgp-checkpoint', { n: 1 })).series.recent).toHaveLength(1);
  }, 120_000);
});

describe('x-token', () => {
  it('a wrong token is refused (the gRPC status from error.cause is reported); the right one streams', async () => {
    const guarded = await startGeyserServer({ events: localnet.chain, head: localnet.chain, host: '127.0.0.1', port: 0, xToken: 'right-token' });
    const handlers = { onSubscribed() {}, onSlot() {}, onTransaction() {} };
    const wrong = createGeyserStream({ url: guarded.url, token: 'wrong-token', staleMs: 2_000, backoffMaxMs: 500, handlers });
    const right = createGeyserStream({ url: guarded.url, token: 'right-token', staleMs: 2_000, handlers });
    try {
      wrong.start();
      right.start();
      expect(await right.whenLive(20_000)).toBe(true);
      await until('the refusal', () => wrong.status().lastError !== null, 20_000);
      expect(wrong.status().lastError!.message).toMatch(/x-token|unauthenticated/i);
      expect(wrong.isLive()).toBe(false);
    } finally {
      await Promise.all([wrong.close(), right.close()]);
      await guarded.close();
    }
  }, 60_000);
});

describe('stream outages', () => {
  it('a stream with no slots goes stale, answers fall back to the RPC, and it recovers', async () => {
    localnet.producer.stop();
    try {
      await until('stale', () => live.stream.status().state === 'stale', 20_000);
      expect(live.stream.status().lastError?.message).toMatch(new RegExp(`no slot update for ${STALE_MS} ms`));
      const fee = await call('/v1/priority-fee');
      expect(fee.source).toBe('rpc-fallback');
      expect(fee.method).toMatch(/getRecentPrioritizationFees/);
      // The chain is halted: the RPC cannot measure a rate, so the stream's last one is used, labelled.
      const epoch = await call('/v1/epoch');
      expect(epoch.source).toBe('rpc-fallback');
      expect(epoch.slotRates.primary.label).toMatch(/before the stream stopped/);
      const tip = await call('/v1/tipfloor', { fresh: true });
      expect(tip.staleNote).toMatch(/not live/);
      expect(tip.freshness.stream).not.toBe('live');
    } finally {
      localnet.producer.start();
    }
    await until('live again', () => live.stream.isLive(), 30_000);
    expect(live.stream.status().subscriptions).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it('a dropped connection resubscribes with from_slot: the missed slots are replayed, none is missing', async () => {
    await until('fresh complete slots', () => (live.caches.fees.window.lastConfirmed ?? 0) > 0);
    const subscriptionsBefore = live.stream.status().subscriptions;
    const confirmedBeforeCut = live.caches.fees.window.lastConfirmed!;
    await relay.cut();
    await until('not live', () => !live.stream.isLive(), 20_000);
    await until('slots made during the drop', () => localnet.chain.slot('confirmed') >= BigInt(confirmedBeforeCut + 4), 20_000);
    await relay.restore();
    // Every slot the chain had confirmed when the connection came back: the replay must bring them
    // all (a fixed target; the head itself moves on, and a loaded process trails it by a few slots).
    const headAtRestore = Number(localnet.chain.slot('confirmed'));
    await until('live again', () => live.stream.isLive() && live.stream.status().subscriptions > subscriptionsBefore, 30_000);
    await until('slots after the drop', () => (live.caches.fees.window.lastConfirmed ?? 0) >= Math.max(headAtRestore, confirmedBeforeCut + 7));
    const covered = coveredSlots('fees');
    const missing: number[] = [];
    for (let s = confirmedBeforeCut; s <= live.caches.fees.window.lastConfirmed!; s++) if (!covered.has(s)) missing.push(s);
    expect(missing).toEqual([]);
    const body = await call('/v1/priority-fee');
    const slots = new Set([...coveredSlots('fees')].filter((s) => s >= body.window.fromSlot && s <= body.window.toSlot));
    const prices = producedIn(slots).map((t) => Number(t.computeUnitPrice ?? 0n));
    const bySlot = new Map(live.caches.fees.window.completeBuckets().map((b) => [b.slot, b.items.length]));
    const diffs = [...slots]
      .filter((sl) => bySlot.get(sl) !== producedIn(new Set([sl])).length)
      .map((sl) => [sl, bySlot.get(sl), producedIn(new Set([sl])).length]);
    expect({ confirmedBeforeCut, diffs }).toEqual({ confirmedBeforeCut, diffs: [] });
    expect(body.observed.transactions).toBe(prices.length);
    expect(body.percentiles.p75).toBe(nearestRank(prices, 75));
  }, 120_000);

  it('the server goes away and comes back on the same port: fallback meanwhile, caches recover', async () => {
    const subscriptionsBefore = live.stream.status().subscriptions;
    const confirmedBeforeClose = live.caches.fees.window.lastConfirmed!;
    await geyser.close();
    // The chain's own head once the server is gone: a loaded process's cache may trail it by
    // several slots, all of which the old server had sent; only slots made after this one are
    // sure to be streamed by nobody.
    const chainAtClose = Number(localnet.chain.slot('confirmed'));
    await until('not live', () => !live.stream.isLive(), 20_000);
    expect(live.stream.status().lastError?.message).toBeTruthy();
    expect((await call('/v1/priority-fee')).source).toBe('rpc-fallback');
    expect((await call('/v1/sgp-checkpoint')).source).toBe('rpc-fallback');
    const epoch = await call('/v1/epoch');
    expect(epoch.source).toBe('rpc-fallback');
    expect(epoch.freshness.stream).not.toBe('live');
    // Long enough that the slots after the last confirmed one predate anything the new server records.
    const outageEnd = BigInt(Math.max(chainAtClose + 3, confirmedBeforeClose + 5));
    await until('slots made during the outage', () => localnet.chain.slot('confirmed') >= outageEnd, 20_000);
    geyser = await startGeyserServer({ events: localnet.chain, head: localnet.chain, host: '127.0.0.1', port });
    await until('live again', () => live.stream.isLive(), 30_000);
    expect(live.stream.status().subscriptions).toBeGreaterThan(subscriptionsBefore);
    await until('three slots streamed by the new server', () => [...coveredSlots('fees')].filter((s) => s > confirmedBeforeClose).length >= 3);
    const body = await call('/v1/priority-fee');
    expect(body.source).toBe('geyser');
    // A restarted server has nothing to replay: the outage is a gap (no buckets), the slots streamed
    // since are exact.
    const covered = coveredSlots('fees');
    const after = [...covered].filter((s) => s > confirmedBeforeClose);
    const gap = [];
    for (let s = confirmedBeforeClose + 1; s <= live.caches.fees.window.lastConfirmed!; s++) if (!covered.has(s)) gap.push(s);
    expect(gap.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThanOrEqual(3);
    const cached = new Map(live.caches.fees.window.completeBuckets().map((b) => [b.slot, b.items.map((i) => i.price).sort((a, b) => a - b)]));
    for (const slot of after) {
      expect(cached.get(slot)).toEqual(
        producedIn(new Set([slot]))
          .map((t) => Number(t.computeUnitPrice ?? 0n))
          .sort((a, b) => a - b),
      );
    }
    expect((await call('/v1/epoch')).source).toBe('geyser');
  }, 120_000);
});
