/**
 * The localnet block producer: every `slotMs` it executes a modest batch of signed traffic
 * (swaps, Jito tips, transfers, now and then a failing transfer) through the chain, then closes
 * the slot with `chain.advanceSlot()`, which drives the RPC, Geyser and cache surfaces. Given the
 * same seed and world it produces the same transactions. It records what it generated (compute-
 * unit prices and tips per slot, bounded) so tests can check caches and streams against the truth.
 * Every `launchEverySlots` slots one transaction launches a new pool (pool-launches.ts).
 * Epoch length is the chain's (`slotsPerEpoch`): keep it short in tests to see a transition.
 */
import type { LocalChain } from '../chain/local-chain.ts';
import { produceTransaction, type ProducedTransaction, type TrafficContext } from './block-traffic.ts';
import { createPrng } from '../signing/world-keys.ts';
import type { World, WorldPool } from '../world/world.ts';
import { createPoolLauncher, DEFAULT_LAUNCH_EVERY_SLOTS, type LaunchRecord } from './pool-launches.ts';

export type { ProducedTransaction, TrafficKind } from './block-traffic.ts';

/** Default slot length, as on mainnet. */
export const DEFAULT_SLOT_MS = 400;
/** Transactions per slot: kit-free signing is fast, but the chain stays responsive at this size. */
export const DEFAULT_MIN_TXS_PER_SLOT = 5;
export const DEFAULT_MAX_TXS_PER_SLOT = 20;
/** Produced slots kept in `history()`. */
export const DEFAULT_HISTORY_SLOTS = 512;
/** Probability that a generated transaction is a deliberately failing one. */
const FAILING_PROBABILITY = 0.04;

/** Producer configuration. */
export interface BlockProducerConfig {
  readonly chain: LocalChain;
  readonly world: World;
  readonly seed: string | number;
  readonly slotMs?: number;
  readonly minTxsPerSlot?: number;
  readonly maxTxsPerSlot?: number;
  readonly historySlots?: number;
  /** Produced slots between two pool launches (default DEFAULT_LAUNCH_EVERY_SLOTS); 0: never. */
  readonly launchEverySlots?: number;
  /** Launches a saved state kept: their pools are listed again (pool-launches.ts). */
  readonly restoredLaunches?: readonly LaunchRecord[];
  /** Called when a slot fails to produce; the producer keeps going. Default: console.error. */
  readonly onError?: (error: unknown) => void;
}

/** Ground truth of one produced slot. */
export interface ProducedSlot {
  readonly slot: bigint;
  readonly transactions: readonly ProducedTransaction[];
}

/** A running or stopped producer. */
export interface BlockProducer {
  /** Starts producing a slot every `slotMs`; idempotent. */
  start(): void;
  /** Stops after the current slot; idempotent. */
  stop(): void;
  /** Produces one slot synchronously (tests; works whether or not the timer runs). */
  step(): ProducedSlot;
  readonly running: boolean;
  /** Produced slots, oldest first, at most `historySlots`. */
  history(): readonly ProducedSlot[];
  /** The produced slot for `slot`, if still kept. */
  slot(slot: bigint): ProducedSlot | undefined;
  /** The world's pools and those launched since, oldest first (the market stand-ins list these). */
  pools(): readonly WorldPool[];
  /** The landed launches (a saved state keeps them). */
  launches(): readonly LaunchRecord[];
}

/** Creates a producer over `chain` and `world`. */
export function createBlockProducer(config: BlockProducerConfig): BlockProducer {
  const cfg = Object.freeze({ ...config });
  const slotMs = cfg.slotMs ?? DEFAULT_SLOT_MS;
  const minTxs = cfg.minTxsPerSlot ?? DEFAULT_MIN_TXS_PER_SLOT;
  const maxTxs = cfg.maxTxsPerSlot ?? DEFAULT_MAX_TXS_PER_SLOT;
  const keep = cfg.historySlots ?? DEFAULT_HISTORY_SLOTS;
  const prng = createPrng(`producer/${String(cfg.seed)}`);
  const ctx: TrafficContext = { chain: cfg.chain, prng, pools: cfg.world.pools, traders: cfg.world.traders, tipAccounts: cfg.world.tipAccounts };
  const launcher = createPoolLauncher({
    chain: cfg.chain,
    seed: String(cfg.seed),
    seeded: cfg.world.pools,
    traders: cfg.world.traders,
    everySlots: cfg.launchEverySlots ?? DEFAULT_LAUNCH_EVERY_SLOTS,
    ...(cfg.restoredLaunches ? { restored: cfg.restoredLaunches } : {}),
  });
  const produced: ProducedSlot[] = [];
  const bySlot = new Map<bigint, ProducedSlot>();
  let timer: NodeJS.Timeout | null = null;

  function step(): ProducedSlot {
    const slot = cfg.chain.openSlot();
    const transactions: ProducedTransaction[] = [];
    const count = prng.int(minTxs, maxTxs);
    for (let i = 0; i < count; i += 1) {
      const tx = produceTransaction(ctx, prng.next() < FAILING_PROBABILITY);
      if (tx !== null) transactions.push(tx);
    }
    const launch = launcher.onSlot();
    if (launch !== null) transactions.push(launch);
    cfg.chain.advanceSlot();
    const record: ProducedSlot = { slot, transactions };
    produced.push(record);
    bySlot.set(slot, record);
    while (produced.length > keep) {
      const old = produced.shift();
      if (old) bySlot.delete(old.slot);
    }
    return record;
  }

  function tick(): void {
    const started = Date.now();
    try {
      step();
    } catch (error) {
      (cfg.onError ?? console.error)(error);
    }
    // Schedule from the slot's start so slots keep their cadence while production takes time.
    if (timer !== null) timer = setTimeout(tick, Math.max(0, slotMs - (Date.now() - started)));
  }

  return {
    start() {
      if (timer !== null) return;
      timer = setTimeout(tick, slotMs);
    },
    stop() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
    step,
    get running() {
      return timer !== null;
    },
    history: () => produced,
    slot: (s) => bySlot.get(s),
    pools: launcher.pools,
    launches: launcher.launches,
  };
}
