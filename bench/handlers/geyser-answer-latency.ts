/**
 * Answer latency of the four timing handlers in-process on mainnet-sized windows (150 slots of
 * 1,000 transactions) while a feeder keeps absorbing a slot every 400 ms, against a trivial async
 * handler measured in the same run (the reference). Part of the geyser-caches benchmark.
 */
import type { GeyserStream } from '../../src/chain/geyser/geyser-client.ts';
import { encodeBase58 } from '../../src/chain/solana/base58.ts';
import type { RpcClient } from '../../src/chain/solana/rpc-client.ts';
import type { TimingRpcMethods } from '../../src/chain/solana/rpc-timing-methods.ts';
import { computePercentiles } from '../../src/caches/percentiles.ts';
import { createTimingCaches, type TimingCaches } from '../../src/caches/timing-caches.ts';
import { createEpochHandler } from '../../src/intel/timing/epoch.ts';
import { createPriorityFee } from '../../src/intel/timing/priority-fee.ts';
import { createSgpCheckpointHandler } from '../../src/intel/timing/sgp-checkpoint.ts';
import { createTimingSource } from '../../src/intel/timing/timing-source.ts';
import { createTipFloorHandler } from '../../src/intel/timing/tipfloor.ts';
import type { PaidHandler } from '../../src/intel/handler-group.ts';
import { createWorkerPool } from '../../src/pool/worker-pool.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';
import { feed, KEYS, parsedTx, SCHEDULE, TXS_PER_SLOT, WINDOW_SLOTS } from './synthetic-updates.ts';

const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((r) => setTimeout(r, 1));
}

function summarize(samples: number[]): Record<string, number> {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { calls: samples.length, p50Us: round(at(50) * 1000, 1), p99Us: round(at(99) * 1000, 1), maxUs: round(sorted[sorted.length - 1]! * 1000, 1) };
}

function summarizeMs(samples: number[]): Record<string, number> {
  const sorted = [...samples].sort((a, b) => a - b);
  return { samples: samples.length, p50Ms: round(sorted[Math.ceil(sorted.length / 2) - 1]!, 1), maxMs: round(sorted[sorted.length - 1]!, 1) };
}

async function time(handler: PaidHandler, query: Record<string, unknown>, calls: number): Promise<number[]> {
  const signal = new AbortController().signal;
  const out: number[] = [];
  for (let i = 0; i < calls; i++) {
    // Let the feeder's chunks run between calls (outside the measured time): answers under load.
    if (i % 16 === 0) await new Promise((r) => setImmediate(r));
    const t0 = performance.now();
    await handler(query, signal);
    out.push(performance.now() - t0);
  }
  return out;
}

/** Caches holding a full window, a live stream stand-in, and the feeder that keeps them loaded. */
function loadedCaches(): { caches: TimingCaches; stream: GeyserStream; startFeeder(): NodeJS.Timeout } {
  const caches = createTimingCaches({ schedule: SCHEDULE });
  caches.handlers.onSubscribed(null);
  const t0 = Date.now() - WINDOW_SLOTS * 400;
  let slot = 300_000_000;
  for (let k = 0; k < WINDOW_SLOTS; k++) slot = feed(caches, slot, 1, TXS_PER_SLOT, parsedTx, t0 + k * 400);
  let lastAt = Date.now();
  const stream: GeyserStream = {
    start() {},
    whenLive: async () => true,
    isLive: () => true,
    close: async () => undefined,
    status: () => ({ state: 'live', lastSlot: slot, lastSlotAtMs: lastAt, subscriptions: 1, updates: caches.absorbed, lastError: null }),
  };
  // Load: a mainnet-sized slot absorbed every 400 ms while the handlers answer.
  // Absorbed in chunks of 50 transactions, as a live stream delivers updates one by one.
  const feedSlot = (): void => {
    lastAt = Date.now();
    const s0 = slot;
    caches.handlers.onSlot(s0, 'processed', lastAt, false);
    let done = 0;
    const chunk = (): void => {
      for (let i = 0; i < 50 && done < TXS_PER_SLOT; i++, done++) caches.handlers.onTransaction(s0 + 1, parsedTx(s0 * TXS_PER_SLOT + done));
      if (done < TXS_PER_SLOT) setImmediate(chunk);
      else caches.handlers.onSlot(s0, 'confirmed', Date.now(), false);
    };
    slot = s0 + 1;
    chunk();
  };
  return { caches, stream, startFeeder: () => setInterval(feedSlot, 400) };
}

/**
 * After a new slot the previous figures answer at once while the 150k-sample window is sorted
 * in the pool; measured: each call's time, and how long until the new slot's figures answer.
 */
async function newSlotFigures(caches: TimingCaches, handler: PaidHandler): Promise<{ callsDuringRecompute: number[]; figuresLagMs: number[] }> {
  const callsDuringRecompute: number[] = [];
  const figuresLagMs: number[] = [];
  for (let i = 0; i < 10; i++) {
    const before = caches.fees.window.lastConfirmed;
    await until(() => caches.fees.window.lastConfirmed !== before);
    const target = caches.fees.window.lastConfirmed;
    const started = performance.now();
    for (;;) {
      const t = performance.now();
      const body = (await handler({}, new AbortController().signal)) as unknown as { freshness: { slot: number } };
      callsDuringRecompute.push(performance.now() - t);
      if (body.freshness.slot === target) break;
      await new Promise((r) => setTimeout(r, 1));
    }
    figuresLagMs.push(performance.now() - started);
  }
  return { callsDuringRecompute, figuresLagMs };
}

/** What sorting the window for percentiles would cost if it ran on the event loop. */
function inlineSortTimes(caches: TimingCaches): number[] {
  const sortInline: number[] = [];
  for (let i = 0; i < 5; i++) {
    const values = caches.fees.select().prices;
    const t = performance.now();
    computePercentiles({ values, percentiles: [50, 75, 90, 99] });
    sortInline.push(performance.now() - t);
  }
  return sortInline;
}

/** Runs the answer-latency part of the benchmark. */
export async function benchAnswerLatency(): Promise<Record<string, unknown>> {
  const pool = createWorkerPool<PoolTasks>({ size: 1 });
  const { caches, stream, startFeeder } = loadedCaches();
  const source = createTimingSource({ caches, stream, rpc: {} as RpcClient, timingRpc: {} as TimingRpcMethods, pool });
  const fees = createPriorityFee(source, WINDOW_SLOTS);
  const handlers: Record<string, [PaidHandler, Record<string, unknown>]> = {
    reference: [async () => ({ ok: true }), {}],
    '/v1/tipfloor': [createTipFloorHandler(source, { emaSlots: 20, windowSlots: WINDOW_SLOTS, historyEverySlots: 25 }), {}],
    '/v1/priority-fee': [fees.handler, {}],
    '/v1/priority-fee?accounts=3': [fees.handler, { accounts: [encodeBase58(KEYS[1]!), encodeBase58(KEYS[2]!), encodeBase58(KEYS[3]!)] }],
    '/v1/epoch': [createEpochHandler(source), { rate: 'both' }],
    '/v1/sgp-checkpoint': [createSgpCheckpointHandler(source, { checkpointEverySlots: 25 }), { n: 20 }],
  };
  const feeder = startFeeder();
  const results: Record<string, unknown> = {};
  for (const [name, [handler, query]] of Object.entries(handlers)) {
    await time(handler, query, 50); // warm
    results[name] = summarize(await time(handler, query, 3_000));
  }
  const { callsDuringRecompute, figuresLagMs } = await newSlotFigures(caches, fees.handler);
  const sortInline = inlineSortTimes(caches);
  const tipFresh = await time(handlers['/v1/tipfloor']![0], { fresh: true }, 20);
  clearInterval(feeder);
  fees.close();
  await pool.close();
  return {
    handlers: results,
    priorityFeeCallsWhileNewSlotComputes: summarize(callsDuringRecompute),
    priorityFeeNewSlotFiguresAfterMs: summarizeMs(figuresLagMs),
    percentilesOf150kOnEventLoopWouldBlock: summarize(sortInline),
    tipfloorFreshTrue: summarize(tipFresh),
    windowSamples: WINDOW_SLOTS * TXS_PER_SLOT,
  };
}
