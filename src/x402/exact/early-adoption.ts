/**
 * With PostgreSQL, the early answers of an instance that stopped and does not come back would be
 * followed only when some instance starts (early-settlement.ts `recover` runs at a start): until
 * then their failures are not counted against the loss budget and their payers not barred. So every
 * instance on the database takes up, now and then, the unresolved early answers recorded long enough
 * ago that their own instance would have seen them end (a blockhash lives ~60-90 s), and that it does
 * not follow itself. Following one twice is safe: its outcome, loss, bar and credit are recorded once
 * per key whoever records first (pg-early-answer-store.ts), and its share of the exposure is one row.
 * A live instance stuck on an answer (an RPC outage) is joined, not replaced.
 */
import type { EarlySettlement } from './early-settlement.ts';
import type { ExactSchemeFacilitator } from '../types/scheme-facilitator.ts';

/** How often an instance looks for other instances' unresolved early answers. */
export const EARLY_ADOPT_EVERY_MS = 60_000;
/** How old an unresolved early answer is before another instance takes it up (its owner had 5 minutes). */
export const EARLY_ADOPT_AFTER_MS = 300_000;

export interface EarlyAdoption {
  /** One look now (the timer's); resolves with the answers taken up (0 while a look is running). */
  adopt(): Promise<number>;
  stop(): void;
}

/** Looks every `everyMs` until `signal` ends (the service's close). */
export function startEarlyAdoption(config: {
  readonly early: EarlySettlement;
  readonly schemeFor: (network: string) => ExactSchemeFacilitator | undefined;
  readonly fault: (what: string, err: unknown) => void;
  readonly now?: () => number;
  readonly everyMs?: number;
  readonly afterMs?: number;
}): EarlyAdoption {
  const now = config.now ?? Date.now;
  const afterMs = config.afterMs ?? EARLY_ADOPT_AFTER_MS;
  let looking = false;
  // One look at a time: two would each take up the same answer before either follows it.
  async function adopt(): Promise<number> {
    if (looking) return 0;
    looking = true;
    try {
      return await config.early.recover(config.schemeFor, now() - afterMs);
    } finally {
      looking = false;
    }
  }
  const timer = setInterval(() => {
    adopt().catch((err: unknown) => config.fault('other instances’ early answers could not be read', err));
  }, config.everyMs ?? EARLY_ADOPT_EVERY_MS);
  timer.unref();
  const stop = (): void => clearInterval(timer);
  if (config.early.answers.signal.aborted) stop();
  else config.early.answers.signal.addEventListener('abort', stop, { once: true });
  return { adopt, stop };
}
