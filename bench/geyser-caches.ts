/**
 * Geyser caches benchmark (issue 7):
 * - stream updates absorbed per second: synthetic parsed updates fed to the caches' handlers
 *   directly, the same with byte-level parsing of each transaction update included, and end to
 *   end (localnet Geyser server -> official Yellowstone client -> caches, both in this process);
 * - answer latency of the four timing handlers in-process on mainnet-sized windows (150 slots of
 *   1,000 transactions) while a feeder keeps absorbing a slot every 400 ms, against a trivial
 *   async handler measured in the same run (the reference).
 * Register in bench/run.ts as `'geyser-caches': () => benchGeyserCaches()`.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { decodeBase58, encodeBase58 } from '../src/chain/base58.ts';
import { createGeyserStream, type GeyserStream } from '../src/chain/geyser-client.ts';
import { JITO_TIP_ACCOUNTS, keyId, parseTransaction, type ParsedTransaction, type TxInfoLike } from '../src/chain/geyser-tx-parse.ts';
import type { RpcClient } from '../src/chain/rpc-client.ts';
import type { TimingRpcMethods } from '../src/chain/rpc-timing-methods.ts';
import { computePercentiles } from '../src/caches/percentiles.ts';
import { createTimingCaches, type TimingCaches } from '../src/caches/timing-caches.ts';
import { createEpochHandler } from '../src/intel/timing/epoch.ts';
import { createPriorityFee } from '../src/intel/timing/priority-fee.ts';
import { createSgpCheckpointHandler } from '../src/intel/timing/sgp-checkpoint.ts';
import { createTimingSource } from '../src/intel/timing/timing-source.ts';
import { createTipFloorHandler } from '../src/intel/timing/tipfloor.ts';
import type { PaidHandler } from '../src/intel/handler-group.ts';
import { type ChainHeadReader, type ExecutedTransaction, type LocalChainEvents, startGeyserServer } from '@solana-x402-intel/localnet';
import { createWorkerPool } from '../src/pool/worker-pool.ts';
import type { PoolTasks } from '../workers/pool-worker.ts';

const SCHEDULE = { slotsPerEpoch: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 };
const TXS_PER_SLOT = 1_000;
const WINDOW_SLOTS = 150;
const ACCOUNTS = 5_000;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));
const keys = Array.from({ length: ACCOUNTS }, () => new Uint8Array(randomBytes(32)));
const keyIds = keys.map(keyId);
const tipKeys = JITO_TIP_ACCOUNTS.map((a) => decodeBase58(a)!);
const tipIds = new Set(tipKeys.map(keyId));
const SYSTEM = new Uint8Array(32);
const COMPUTE_BUDGET = decodeBase58('ComputeBudget111111111111111111111111111111')!;

const price = (i: number): number => Math.round(1_000 * Math.exp(((i * 7919) % 1000) / 150));
const parsedTx = (i: number): ParsedTransaction => ({
  cuPrice: i % 5 === 0 ? 0 : price(i),
  tipLamports: i % 10 === 0 ? 1_000 + (i % 997) * 100 : 0,
  failed: false,
  writable: [keyIds[i % ACCOUNTS]!, keyIds[(i * 31) % ACCOUNTS]!, keyIds[(i * 97) % ACCOUNTS]!],
});

function u64(kind: number, value: number, width: 1 | 4): Uint8Array {
  const out = new Uint8Array(width + 8);
  const view = new DataView(out.buffer);
  if (width === 1) out[0] = kind;
  else view.setUint32(0, kind, true);
  view.setBigUint64(width, BigInt(value), true);
  return out;
}

/** A transaction update as the client hands it over (bytes for keys and data). */
function txInfo(i: number): TxInfoLike {
  const accountKeys = [keys[i % ACCOUNTS]!, keys[(i * 31) % ACCOUNTS]!, tipKeys[i % 8]!, SYSTEM, COMPUTE_BUDGET];
  return {
    isVote: false,
    transaction: {
      message: {
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 },
        accountKeys,
        instructions: [
          { programIdIndex: 4, accounts: new Uint8Array(0), data: u64(3, price(i), 1) },
          { programIdIndex: 3, accounts: Uint8Array.of(0, 1), data: u64(2, 5_000, 4) },
          { programIdIndex: 3, accounts: Uint8Array.of(0, 2), data: u64(2, 1_000 + (i % 997) * 100, 4) },
        ],
      },
    },
    meta: { innerInstructions: [], loadedWritableAddresses: [], loadedReadonlyAddresses: [] },
  };
}

/** Feeds `slots` slots of `perSlot` transactions starting after `from`; returns the next slot. */
function feed(caches: TimingCaches, from: number, slots: number, perSlot: number, make: (i: number) => ParsedTransaction, atMs = Date.now()): number {
  const h = caches.handlers;
  let s = from;
  for (let k = 0; k < slots; k++, s++) {
    h.onSlot(s, 'processed', atMs, false);
    for (let i = 0; i < perSlot; i++) h.onTransaction(s + 1, make(s * perSlot + i));
    h.onSlot(s, 'confirmed', atMs, false);
  }
  return s;
}

function absorbRate(withParsing: boolean): Record<string, number> {
  const caches = createTimingCaches({ schedule: SCHEDULE });
  caches.handlers.onSubscribed(null);
  const infos = withParsing ? Array.from({ length: 4096 }, (_, i) => txInfo(i)) : [];
  const make = withParsing ? (i: number) => parseTransaction(infos[i & 4095]!, tipIds)! : parsedTx;
  let slot = feed(caches, 1, WINDOW_SLOTS, TXS_PER_SLOT, make); // fill the window so evictions run
  const before = caches.absorbed;
  const started = performance.now();
  while (performance.now() - started < 2_000) slot = feed(caches, slot, 10, TXS_PER_SLOT, make);
  const seconds = (performance.now() - started) / 1000;
  return {
    updatesPerSecond: Math.round((caches.absorbed - before) / seconds),
    windowSlots: WINDOW_SLOTS,
    txsPerSlot: TXS_PER_SLOT,
    indexedAccounts: caches.fees.indexedAccounts,
  };
}

/** A chain event source of synthetic executed transactions for the localnet Geyser server. */
function syntheticChain(): { events: LocalChainEvents & EventEmitter; head: ChainHeadReader; slot(txs: number): void } {
  const events = new EventEmitter() as LocalChainEvents & EventEmitter;
  let slot = 1_000n;
  const blockhash = encodeBase58(keys[0]!);
  const keyText = keys.slice(0, 64).map(encodeBase58);
  const tipText = JITO_TIP_ACCOUNTS;
  let n = 0;
  const tx = (s: bigint, index: number): ExecutedTransaction => {
    n++;
    return {
      signature: encodeBase58(randomBytes(64)),
      signatures: [],
      slot: s,
      index,
      isVote: false,
      err: null,
      fee: 5_000n,
      computeUnitsConsumed: 450n,
      logs: [],
      header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 },
      accountKeys: [keyText[n % 64]!, tipText[n % 8]!, '11111111111111111111111111111111', 'ComputeBudget111111111111111111111111111111'],
      recentBlockhash: blockhash,
      instructions: [
        { programIdIndex: 3, accounts: [], data: u64(3, price(n), 1) },
        { programIdIndex: 2, accounts: [0, 1], data: u64(2, 10_000 + n, 4) },
      ],
      innerInstructions: [],
      preBalances: [1n, 1n, 1n, 1n],
      postBalances: [1n, 1n, 1n, 1n],
      preTokenBalances: [],
      postTokenBalances: [],
      wire: new Uint8Array(0),
      blockTime: 1_750_000_000,
    };
  };
  const status = (s: bigint, st: 'processed' | 'confirmed') => events.emit('slot', { slot: s, parent: s - 1n, status: st });
  return {
    events,
    head: {
      slot: () => slot,
      blockHeight: () => slot,
      latestBlockhash: () => ({ slot, blockhash, lastValidBlockHeight: slot + 150n }),
      isBlockhashValid: () => ({ slot, valid: true }),
      version: () => ({ 'solana-core': '2.2.0', 'feature-set': 0 }),
    },
    slot(txs) {
      slot += 1n;
      for (let i = 0; i < txs; i++) events.emit('transaction', tx(slot, i));
      status(slot, 'processed');
      status(slot - 1n, 'confirmed');
    },
  };
}

async function endToEnd(): Promise<Record<string, number>> {
  const chain = syntheticChain();
  const server = await startGeyserServer({ events: chain.events, head: chain.head, host: '127.0.0.1', port: 0 });
  const caches = createTimingCaches({ schedule: SCHEDULE });
  let txs = 0;
  const handlers = {
    ...caches.handlers,
    onTransaction: (slot: number, tx: ParsedTransaction) => {
      txs++;
      caches.handlers.onTransaction(slot, tx);
    },
  };
  const stream = createGeyserStream({ url: server.url, token: null, staleMs: 30_000, handlers });
  stream.start();
  while (!stream.isLive()) {
    chain.slot(0);
    await new Promise((r) => setTimeout(r, 50));
  }
  const slots = 100;
  const perSlot = 500;
  const started = performance.now();
  for (let s = 0; s < slots; s++) {
    chain.slot(perSlot);
    // Yield so the server's writes and the client's reads interleave as on a live stream.
    await new Promise((r) => setImmediate(r));
  }
  chain.slot(0);
  const target = slots * perSlot;
  while (txs < target && performance.now() - started < 120_000) await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - started) / 1000;
  await stream.close();
  await server.close();
  return { transactions: txs, seconds: round(seconds, 2), transactionUpdatesPerSecond: Math.round(txs / seconds) };
}

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

async function answerLatency(): Promise<Record<string, unknown>> {
  const pool = createWorkerPool<PoolTasks>({ size: 1 });
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
  const source = createTimingSource({ caches, stream, rpc: {} as RpcClient, timingRpc: {} as TimingRpcMethods, pool });
  const fees = createPriorityFee(source, WINDOW_SLOTS);
  const handlers: Record<string, [PaidHandler, Record<string, unknown>]> = {
    reference: [async () => ({ ok: true }), {}],
    '/v1/tipfloor': [createTipFloorHandler(source, { emaSlots: 20, windowSlots: WINDOW_SLOTS, historyEverySlots: 25 }), {}],
    '/v1/priority-fee': [fees.handler, {}],
    '/v1/priority-fee?accounts=3': [fees.handler, { accounts: [encodeBase58(keys[1]!), encodeBase58(keys[2]!), encodeBase58(keys[3]!)] }],
    '/v1/epoch': [createEpochHandler(source), { rate: 'both' }],
    '/v1/sgp-checkpoint': [createSgpCheckpointHandler(source, { checkpointEverySlots: 25 }), { n: 20 }],
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
  const feeder = setInterval(feedSlot, 400);
  const results: Record<string, unknown> = {};
  for (const [name, [handler, query]] of Object.entries(handlers)) {
    await time(handler, query, 50); // warm
    results[name] = summarize(await time(handler, query, 3_000));
  }
  // After a new slot the previous figures answer at once while the 150k-sample window is sorted
  // in the pool; measured: each call's time, and how long until the new slot's figures answer.
  const callsDuringRecompute: number[] = [];
  const figuresLagMs: number[] = [];
  for (let i = 0; i < 10; i++) {
    const before = caches.fees.window.lastConfirmed;
    await until(() => caches.fees.window.lastConfirmed !== before);
    const target = caches.fees.window.lastConfirmed;
    const started = performance.now();
    for (;;) {
      const t = performance.now();
      const body = (await fees.handler({}, new AbortController().signal)) as unknown as { freshness: { slot: number } };
      callsDuringRecompute.push(performance.now() - t);
      if (body.freshness.slot === target) break;
      await new Promise((r) => setTimeout(r, 1));
    }
    figuresLagMs.push(performance.now() - started);
  }
  const sortInline: number[] = [];
  for (let i = 0; i < 5; i++) {
    const values = caches.fees.select().prices;
    const t = performance.now();
    computePercentiles({ values, percentiles: [50, 75, 90, 99] });
    sortInline.push(performance.now() - t);
  }
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

/** Runs the whole benchmark. */
export async function benchGeyserCaches(): Promise<Record<string, unknown>> {
  return {
    absorbParsed: absorbRate(false),
    absorbWithByteParsing: absorbRate(true),
    endToEnd: await endToEnd(),
    answerLatency: await answerLatency(),
  };
}
