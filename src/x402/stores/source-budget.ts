/**
 * Settlements in flight from one source (a Solana token account; a Base payer's address) never add
 * up to more than its balance as read when each payment was verified. Racing payments from one
 * payer each pass verification alone (each read sees the whole balance); every one we send that
 * then fails on chain is still billed to us (our Solana fee payer's fee, our Base relayer's gas).
 * So before signing, a settlement reserves its amount:
 * what its verification read, less the settlements in flight and those that finished spending since
 * that read, must cover it. One that does not fit waits (bounded) for the settlements ahead of it,
 * or is refused; a payer whose calls are covered never waits.
 *
 * A read counts as of when it was asked for, not when its answer came back: a settlement that
 * finished while the read was on its way may or may not show in its balance, so it is counted as
 * not shown (the conservative side: a payer is refused, never our fee payer made to send twice).
 *
 * A settlement whose fate is unknown (sent, not confirmed) stays in flight for UNKNOWN_HOLD_MS,
 * past its blockhash's life, so a read that does not show it yet cannot commit the same tokens.
 * Reads and finishes older than RECENT_MS are forgotten; a read that old is treated as stale.
 *
 * A read that passed verification's checks may serve the same source's next payments for
 * READ_REUSE_MS (`reuseRead`), with its own time, so every settlement that spent since it still
 * counts against it. It is at `confirmed`, which already trails the chain's newest state by a slot
 * or more; reusing it for one more slot widens that by as much, and the send's preflight checks the
 * balance again before anything is broadcast. It is reused only when what it leaves covers the
 * payment outright (otherwise a fresh read, so a refusal keeps its reason), and forgotten once a
 * settlement from that source is refused or fails.
 */
import type { SourceBudget, SourceBudgetConfig, SourceHold } from './source-budget-types.ts';

export type { SettlementOutcome, SourceBudget, SourceBudgetConfig, SourceHold, SourceRead } from './source-budget-types.ts';

/** How long a settlement that does not fit waits for those ahead of it before `payer_busy`. */
export const SOURCE_WAIT_MS = 3_000;
/** A sent settlement whose outcome is unknown counts as in flight this long (a blockhash lives ~60-90 s). */
export const UNKNOWN_HOLD_MS = 120_000;
/** Verification reads and spent finishes kept per source; longer than any verify-to-settle span. */
export const RECENT_MS = 300_000;
/** Most verification reads kept waiting for their settlement (a non-200 answer never settles). */
export const MAX_NOTED_READS = 50_000;
/** How long a source's checked read may serve its next payments: one 400 ms slot. */
export const READ_REUSE_MS = 400;

interface SourceState {
  inFlight: bigint;
  holds: number;
  waiting: number;
  /** Finished settlements that spent tokens: when, and how much. */
  readonly spent: { at: number; amount: bigint }[];
  readonly wake: Set<() => void>;
}

interface NotedRead {
  readonly source: string;
  readonly balance: bigint;
  readonly at: number;
}

interface CheckedRead extends NotedRead {
  readonly mint: string;
}

/**
 * Drops a map's oldest entries (it is kept in insertion order, so oldest first) until at most
 * MAX_NOTED_READS remain and none was read before `since`.
 */
function dropOldest<K>(map: Map<K, { readonly at: number }>, since: number): void {
  for (const [k, r] of map) {
    if (map.size <= MAX_NOTED_READS && r.at >= since) break;
    map.delete(k);
  }
}

/** Creates the budget of every source (one per scheme, in memory: a restart has nothing in flight). */
export function createSourceBudget(config: SourceBudgetConfig = {}): SourceBudget {
  const waitMs = config.waitMs ?? SOURCE_WAIT_MS;
  const unknownHoldMs = config.unknownHoldMs ?? UNKNOWN_HOLD_MS;
  const now = config.now ?? (() => performance.now());
  const sources = new Map<string, SourceState>();
  const reads = new Map<string, NotedRead>();
  const reuseMs = config.reuseMs ?? READ_REUSE_MS;
  /** The newest checked read per source, reusable for `reuseMs` (bounded like `reads`). */
  const checked = new Map<string, CheckedRead>();
  /** Every spent finish in time order, so a source nobody touches again is still forgotten. */
  const finishes: { readonly at: number; readonly source: string }[] = [];

  function forgetOld(state: SourceState, source: string): void {
    const horizon = now() - RECENT_MS;
    while (state.spent.length > 0 && state.spent[0]!.at < horizon) state.spent.shift();
    if (state.holds === 0 && state.waiting === 0 && state.spent.length === 0) sources.delete(source);
  }

  function stateOf(source: string): SourceState {
    let state = sources.get(source);
    if (!state) {
      state = { inFlight: 0n, holds: 0, waiting: 0, spent: [], wake: new Set() };
      sources.set(source, state);
    }
    return state;
  }

  /** What the read leaves for this payment: less what is in flight and what was spent since the read. */
  function available(state: SourceState, read: NotedRead): bigint {
    let spentSince = 0n;
    for (const s of state.spent) if (s.at >= read.at) spentSince += s.amount;
    return read.balance - state.inFlight - spentSince;
  }

  function finish(source: string, state: SourceState, amount: bigint, spent: boolean): void {
    state.inFlight -= amount;
    state.holds--;
    if (spent) {
      state.spent.push({ at: now(), amount });
      finishes.push({ at: now(), source });
    }
    for (const wake of [...state.wake]) wake();
    forgetOld(state, source);
  }

  /** Resolves when a settlement of this source finishes, the time is up, or the caller leaves. */
  function changed(state: SourceState, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        state.wake.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      state.wake.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  function holdFor(source: string, state: SourceState, amount: bigint): SourceHold {
    state.inFlight += amount;
    state.holds++;
    let ended = false;
    return {
      end(outcome) {
        if (ended) return;
        ended = true;
        if (outcome !== 'unknown') return finish(source, state, amount, outcome === 'spent');
        setTimeout(() => finish(source, state, amount, true), unknownHoldMs).unref();
      },
    };
  }

  async function reserve(
    key: string,
    source: string,
    amount: bigint,
    signal?: AbortSignal,
    readNow?: () => Promise<bigint | null>,
  ): Promise<SourceHold | null> {
    if (readNow && !reads.has(key)) {
      const at = now();
      const balance = await readNow();
      if (balance !== null) noteRead(at, key, source, balance);
    }
    const read = reads.get(key);
    reads.delete(key);
    if (!read || read.source !== source || read.at < now() - RECENT_MS) return null;
    const state = stateOf(source);
    const deadline = now() + waitMs;
    state.waiting++;
    try {
      while (available(state, read) < amount) {
        // Nothing ahead of it to finish: waiting cannot make room.
        if (state.holds === 0 || signal?.aborted || now() >= deadline) return null;
        await changed(state, deadline - now(), signal);
      }
      return holdFor(source, state, amount);
    } finally {
      state.waiting--;
      forgetOld(state, source);
    }
  }

  /** Forgets what aged out: amortized, a few entries per verification. */
  function sweep(at: number): void {
    while (finishes.length > 0 && finishes[0]!.at < at - RECENT_MS) {
      const { source } = finishes.shift()!;
      const state = sources.get(source);
      if (state) forgetOld(state, source);
    }
  }

  function noteRead(at: number, key: string, source: string, balance: bigint, mint?: string): void {
    const t = now();
    sweep(t);
    reads.delete(key);
    reads.set(key, { source, balance, at });
    // A read that started before the kept one and came back after it is not newer.
    if (mint !== undefined && (checked.get(source)?.at ?? -Infinity) <= at) {
      checked.delete(source);
      checked.set(source, { source, balance, at, mint });
      dropOldest(checked, t - reuseMs);
    }
    // A read whose answer was not a 200 never settles and ages out here.
    dropOldest(reads, t - RECENT_MS);
  }

  function reuseRead(key: string, source: string, mint: string, amount: bigint): boolean {
    const read = checked.get(source);
    if (!read || read.mint !== mint || read.at < now() - reuseMs) return false;
    const state = sources.get(source);
    if ((state ? available(state, read) : read.balance) < amount) return false;
    reads.delete(key);
    reads.set(key, read);
    return true;
  }

  return {
    hasRead: (key) => reads.has(key),
    startRead() {
      const at = now();
      return { note: (key, source, balance, mint) => noteRead(at, key, source, balance, mint) };
    },
    reuseRead,
    forgetRead: (source) => void checked.delete(source),
    reserve,
    get trackedSources() {
      return sources.size;
    },
  };
}
