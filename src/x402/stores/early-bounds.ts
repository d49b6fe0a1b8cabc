/**
 * The bounds of early answers, pure (docs/payments.md#early-answers): given what is at risk now
 * (the exposure of the answers not yet confirmed, the losses of the last day, the payer's own
 * answers in flight, its confirmed history and its bar), may one more early answer go out? Both
 * books (early-answer-store.ts in memory over files, pg-early-answer-store.ts in PostgreSQL under
 * a lock) decide with this one function, so one instance and many apply the same rules.
 *
 * What an early answer risks is its price plus what its transaction costs our fee payer if it
 * fails on chain. The loss budget holds the day's recorded losses PLUS the risk of every answer
 * still in flight: were all of them to fail, the day's losses would still be within the budget.
 * So no admission can ever push a rolling day's losses past it, however many keys an attacker
 * rotates through.
 */

/** The rolling window of the loss budget. */
export const LOSS_WINDOW_MS = 86_400_000;
/** The window of a payer's confirmed history, in whole days (its trust). */
export const TRUST_WINDOW_DAYS = 30;
/** A payer with confirmed history may have this share of its confirmed value in flight (up to the payer cap). */
export const TRUST_SHARE = 0.5;
/**
 * Payers with no confirmed history, all together, may hold at most this share of the global cap
 * and lose at most this share of the budget: keys rotated by an attacker cannot crowd out (or
 * stop) the early answers of payers who paid before.
 */
export const NEW_PAYER_SHARE = 0.5;
export const DAY_MS = 86_400_000;

/** The configured bounds (token units: 6 decimals, 1_000 = $0.001). */
export interface EarlyLimits {
  /** Highest price answered early; 0 turns early answers off. */
  readonly ceilingUnits: number;
  /** Most value in flight for one payer, however much it has paid before. */
  readonly payerCapUnits: number;
  /** Most value in flight for all payers (the deployment's, when instances share PostgreSQL). */
  readonly globalCapUnits: number;
  /** Most the early answers may lose in any rolling day: failed answers plus the fees of their transactions. */
  readonly lossBudgetUnits: number;
  readonly barMs: number;
}

/** One early answer's share, held from its admission until its payment is confirmed or failed. */
export interface EarlyShare {
  /** The payment's replay key. */
  readonly key: string;
  readonly payer: string;
  /** The price answered for. */
  readonly units: number;
  /** What its transaction costs our fee payer if it fails on chain, in token units. */
  readonly feeUnits: number;
  /** The payer had confirmed history when admitted (else it counts against the new payers' share). */
  readonly trusted: boolean;
  /** Admission time (ms since the epoch, the book's clock). */
  readonly at: number;
}

/** What the bounds read, at one moment. */
export interface EarlyTotals {
  /** Value and risk (value plus fees) of all answers in flight, and of those of payers without history. */
  readonly exposureUnits: number;
  readonly exposureRisk: number;
  readonly newExposureUnits: number;
  readonly newExposureRisk: number;
  /** Losses recorded in the last LOSS_WINDOW_MS, and those of payers without history. */
  readonly lossUnits: number;
  readonly newLossUnits: number;
}

/** The payer's side of a decision. */
export interface PayerStanding {
  readonly inFlightUnits: number;
  readonly inFlightCount: number;
  /** Its confirmed value over the last TRUST_WINDOW_DAYS. */
  readonly trustUnits: number;
  /** When its bar ends (ms since the epoch), 0 without one. */
  readonly barredUntil: number;
}

/** Why an early answer was not admitted (the call then waits for its confirmation). */
export type EarlyRefusal = 'barred' | 'payer_cap' | 'global_cap' | 'loss_budget' | 'new_payers';

export const riskOf = (share: Pick<EarlyShare, 'units' | 'feeUnits'>): number => share.units + share.feeUnits;

/**
 * How much of its own the payer may have in flight: with no confirmed history, one answer at a
 * time; with history, TRUST_SHARE of its confirmed value; never above the payer cap.
 */
export function payerAllowance(standing: Pick<PayerStanding, 'trustUnits' | 'inFlightCount'>, units: number, payerCapUnits: number): number {
  const earned = Math.floor(standing.trustUnits * TRUST_SHARE);
  // The first answer in flight is allowed to every payer (that is how history starts).
  const floor = standing.inFlightCount === 0 ? units : 0;
  return Math.min(payerCapUnits, Math.max(earned, floor));
}

/** Null when the share may go out now; else the first bound it breaks. */
export function earlyVerdict(
  totals: EarlyTotals,
  payer: PayerStanding,
  share: Pick<EarlyShare, 'units' | 'feeUnits' | 'trusted' | 'at'>,
  limits: EarlyLimits,
): EarlyRefusal | null {
  if (payer.barredUntil > share.at) return 'barred';
  if (payer.inFlightUnits + share.units > payerAllowance(payer, share.units, limits.payerCapUnits)) return 'payer_cap';
  if (totals.exposureUnits + share.units > limits.globalCapUnits) return 'global_cap';
  const risk = riskOf(share);
  if (totals.lossUnits + totals.exposureRisk + risk > limits.lossBudgetUnits) return 'loss_budget';
  if (share.trusted) return null;
  if (totals.newExposureUnits + share.units > limits.globalCapUnits * NEW_PAYER_SHARE) return 'new_payers';
  if (totals.newLossUnits + totals.newExposureRisk + risk > limits.lossBudgetUnits * NEW_PAYER_SHARE) return 'new_payers';
  return null;
}

/**
 * Whether an admitted share may be handed off (sent without the node's preflight, its answer
 * leaving once the transaction is handed to the RPC: docs/payments.md#the-hand-off): its payer has
 * history, and its confirmed value covers what every one of its answers in flight, this one
 * included, would cost if each failed, fees included. A payer can then never make us lose by the
 * hand-off more than it has already paid and seen confirmed.
 */
export function handOffCovered(
  payer: Pick<PayerStanding, 'inFlightUnits' | 'inFlightCount' | 'trustUnits'>,
  share: Pick<EarlyShare, 'units' | 'feeUnits' | 'trusted'>,
): boolean {
  const riskInFlight = payer.inFlightUnits + share.units + (payer.inFlightCount + 1) * share.feeUnits;
  return share.trusted && payer.trustUnits >= riskInFlight;
}

/** The day index of a time (UTC days since the epoch): trust is kept per payer and day. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** The first day still inside the trust window at `now`. */
export const trustSince = (now: number): number => dayOf(now) - TRUST_WINDOW_DAYS + 1;

/** A payer's confirmed value per UTC day (the day index as a string), inside the trust window. */
export interface TrustRow {
  readonly status: 'trust';
  readonly days: Readonly<Record<string, number>>;
}

const isTrust = (row: { readonly status: string } | undefined): row is TrustRow => row?.status === 'trust';

/** The trust row after crediting `units` on the day of `at` (days out of the window dropped). */
export function creditedTrust(row: { readonly status: string } | undefined, units: number, at: number): { row: TrustRow; expiresAt: number } {
  const since = trustSince(at);
  const days: Record<string, number> = {};
  if (isTrust(row)) for (const [d, u] of Object.entries(row.days)) if (Number(d) >= since) days[d] = u;
  const today = String(dayOf(at));
  days[today] = (days[today] ?? 0) + units;
  return { row: { status: 'trust', days }, expiresAt: (dayOf(at) + TRUST_WINDOW_DAYS) * DAY_MS };
}

/** A payer's confirmed value inside the trust window. */
export function trustOf(row: { readonly status: string } | undefined, now: number): number {
  if (!isTrust(row)) return 0;
  const since = trustSince(now);
  let sum = 0;
  for (const [d, u] of Object.entries(row.days)) if (Number(d) >= since) sum += u;
  return sum;
}
