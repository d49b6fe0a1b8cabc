/**
 * Where the time of one paid call went, as the standard `Server-Timing` header of its 200
 * (docs/payments.md#server-timing). One recorder per call travels down the paid path; each step
 * adds the milliseconds it spent to its phase. It holds a fixed array of numbers and reads the
 * clock only at phase edges, so timing every paid call costs a few `performance.now()` reads.
 */
import type { HttpReply } from '../../errors.ts';
import type { PaidCall } from '../types/paid-call.ts';

/** The response header that carries the phases of a paid answer. */
export const SERVER_TIMING_HEADER = 'Server-Timing';

/**
 * The phases, in the order a paid call runs them. `record` (the pending settlement's durable write)
 * and `send` (the broadcast until the node accepted it) are parts of `settle`, shown apart; `receipt`
 * (signing) and `ledger` (the durable append) run side by side, so they overlap; `total` spans the
 * call in the payment processor.
 */
export const PAID_PHASES = ['verify', 'simulate', 'handler', 'settle', 'record', 'send', 'receipt', 'ledger', 'total'] as const;
/** One phase of a paid call. */
export type PaidPhase = (typeof PAID_PHASES)[number];

const PHASE_INDEX: Readonly<Record<PaidPhase, number>> = Object.fromEntries(PAID_PHASES.map((p, i) => [p, i])) as Record<PaidPhase, number>;
const TOTAL = PHASE_INDEX.total;

/** Accumulates the phases of one paid call. */
export interface PaidTiming {
  /** Adds `ms` to `phase` (a phase that ran twice, e.g. two chain checks, sums). */
  add(phase: PaidPhase, ms: number): void;
  /** Adds the time since `since` (a `performance.now()` reading) to `phase`; returns the reading it took. */
  lap(phase: PaidPhase, since: number): number;
  /** The header value (`verify;dur=0.41, simulate;dur=3.2, ...`), phases that ran only; null when none did. */
  header(): string | null;
}

/** Milliseconds with two decimals (10 µs): finer than the clock's jitter would be noise. */
const formatMs = (ms: number): string => String(Math.round(ms * 100) / 100);

/** What a recorder reads: `performance.now()` in the service, a clock the test moves in tests. */
export interface PaidTimingConfig {
  readonly now?: () => number;
}

/** Starts the recorder of one paid call; `total` runs from now until `header()`. */
export function createPaidTiming(config: PaidTimingConfig = {}): PaidTiming {
  const now = config.now ?? (() => performance.now());
  const started = now();
  // NaN marks a phase that did not run in this call (a retry that only resolved its settlement).
  const spent = new Float64Array(PAID_PHASES.length).fill(Number.NaN);
  const add = (phase: PaidPhase, ms: number): void => {
    const i = PHASE_INDEX[phase];
    spent[i] = Number.isNaN(spent[i]!) ? ms : spent[i]! + ms;
  };
  return {
    add,
    lap(phase, since) {
      const reading = now();
      add(phase, reading - since);
      return reading;
    },
    header() {
      spent[TOTAL] = now() - started;
      let value = '';
      for (let i = 0; i < TOTAL; i++) {
        if (Number.isNaN(spent[i]!)) continue;
        value += `${PAID_PHASES[i]};dur=${formatMs(spent[i]!)}, `;
      }
      return value === '' ? null : `${value}total;dur=${formatMs(spent[TOTAL]!)}`;
    },
  };
}

/** `reply` with the call's `Server-Timing` when it is a 200 that this call worked for; other replies unchanged. */
export function withServerTiming(reply: HttpReply, timing: PaidTiming): HttpReply {
  if (reply.status !== 200) return reply;
  const value = timing.header();
  return value === null ? reply : { ...reply, headers: { ...reply.headers, [SERVER_TIMING_HEADER]: value } };
}

/** Runs the paid handler, timed as the `handler` phase. */
export async function timedAnswer(call: PaidCall, timing: PaidTiming): Promise<HttpReply> {
  const started = performance.now();
  const answer = await call.answer();
  timing.add('handler', performance.now() - started);
  return answer;
}
