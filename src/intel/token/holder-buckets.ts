/**
 * Holder distribution of a mint from its largest token accounts: each account's share of supply,
 * top-1/5/10/20 concentration, buckets, band, burn/system labels, and the top-10 share of
 * circulating supply (burn- and system-owned balances removed) the concentration score uses.
 * Pure and plain-data in and out: it runs in the worker pool as task `bucketHolders`.
 */
import { BURN_OWNERS, HOLDER_BANDS, HOLDER_BUCKETS, SYSTEM_OWNERS } from './token-methodology.ts';

/** One largest account as read from chain. */
export interface HolderAccountInput {
  readonly address: string;
  readonly amount: bigint;
  /** Owner from the token account data; null when it could not be read. */
  readonly owner: string | null;
  readonly state: string | null;
}

export interface BucketHoldersInput {
  readonly supply: bigint;
  readonly decimals: number;
  readonly accounts: readonly HolderAccountInput[];
  /** The mint itself counts as a system owner. */
  readonly mint: string;
}

export type HolderLabel = 'burn' | 'system' | 'unresolved' | 'unknown';

export interface HolderAccount {
  readonly rank: number;
  readonly address: string;
  /** Owner as written in the token account; `unknown` when not readable. Not resolved to an identity. */
  readonly owner: string;
  readonly amount: string;
  readonly uiAmount: number;
  /** Percent of supply; null when supply is 0. */
  readonly sharePct: number | null;
  readonly label: HolderLabel;
  readonly labelNote: string | null;
  readonly state: string;
}

export interface HolderDistribution {
  readonly accounts: readonly HolderAccount[];
  readonly top1Pct: number;
  readonly top5Pct: number;
  readonly top10Pct: number;
  readonly top20Pct: number;
  readonly buckets: { readonly gt5pct: number; readonly from1to5pct: number; readonly lt1pct: number; readonly unknown: number };
  readonly band: string;
  /** Top-10 unlabelled accounts over supply minus labelled balances (percent); null when that is 0. */
  readonly top10CirculatingPct: number | null;
  /** Sum held by burn/system-labelled accounts among those listed. */
  readonly labelledAmount: string;
}

const SHARE_SCALE = 100_000_000n; // percent with 6 decimals

/** Percent `part / whole` with 6 decimals; null when whole is 0. */
export function percentOf(part: bigint, whole: bigint): number | null {
  if (whole <= 0n) return null;
  return Number((part * SHARE_SCALE) / whole) / 1_000_000;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** Label of an owner: burn, system, left unresolved, or unknown when the account data was unreadable. */
export function labelOwner(owner: string | null, mint: string): { label: HolderLabel; note: string | null } {
  if (owner === null) return { label: 'unknown', note: 'token account data not readable; owner unknown' };
  if (owner !== null && BURN_OWNERS.includes(owner)) return { label: 'burn', note: 'incinerator address: tokens here cannot be moved' };
  if (owner !== null && Object.hasOwn(SYSTEM_OWNERS, owner)) return { label: 'system', note: `owned by the ${SYSTEM_OWNERS[owner]}` };
  if (owner === mint) return { label: 'system', note: 'owned by the mint address itself' };
  return { label: 'unresolved', note: null };
}

/** Burn- and system-owned balances are not counted as circulating. */
const isOutOfCirculation = (label: HolderLabel) => label === 'burn' || label === 'system';

/** token-holders band from the top-10 share (percent). */
export function holderBand(top10Pct: number): string {
  return HOLDER_BANDS.find((b) => top10Pct >= b.minTop10Pct)?.band ?? 'dispersed';
}

function bucketOf(share: number | null, buckets: { gt5pct: number; from1to5pct: number; lt1pct: number; unknown: number }): void {
  if (share === null) buckets.unknown += 1;
  else if (share > HOLDER_BUCKETS.gt5pctAbove) buckets.gt5pct += 1;
  else if (share >= HOLDER_BUCKETS.from1to5pctMin) buckets.from1to5pct += 1;
  else buckets.lt1pct += 1;
}

function uiAmount(amount: bigint, decimals: number): number {
  return Number(amount) / 10 ** decimals;
}

/** The whole distribution. Accounts are ranked by amount (largest first, address order on ties). */
export function bucketHolders(input: BucketHoldersInput): HolderDistribution {
  const sorted = [...input.accounts].sort((a, b) => (b.amount > a.amount ? 1 : b.amount < a.amount ? -1 : a.address < b.address ? -1 : 1));
  const buckets = { gt5pct: 0, from1to5pct: 0, lt1pct: 0, unknown: 0 };
  let labelled = 0n;
  const accounts = sorted.map((a, i): HolderAccount => {
    const sharePct = percentOf(a.amount, input.supply);
    bucketOf(sharePct, buckets);
    const { label, note } = labelOwner(a.owner, input.mint);
    if (isOutOfCirculation(label)) labelled += a.amount;
    return {
      rank: i + 1,
      address: a.address,
      owner: a.owner ?? 'unknown',
      amount: a.amount.toString(),
      uiAmount: uiAmount(a.amount, input.decimals),
      sharePct: sharePct === null ? null : round4(sharePct),
      label,
      labelNote: note,
      state: a.state ?? 'unknown',
    };
  });
  const topPct = (n: number) =>
    round4(
      percentOf(
        sorted.slice(0, n).reduce((s, a) => s + a.amount, 0n),
        input.supply,
      ) ?? 0,
    );
  const circulating = input.supply - labelled;
  const unlabelledTop10 = sorted
    .filter((a) => !isOutOfCirculation(labelOwner(a.owner, input.mint).label))
    .slice(0, 10)
    .reduce((s, a) => s + a.amount, 0n);
  const circ = percentOf(unlabelledTop10, circulating);
  const top10Pct = topPct(10);
  return {
    accounts,
    top1Pct: topPct(1),
    top5Pct: topPct(5),
    top10Pct,
    top20Pct: topPct(20),
    buckets,
    band: input.supply > 0n ? holderBand(top10Pct) : 'unknown',
    top10CirculatingPct: circ === null ? null : round4(Math.min(100, circ)),
    labelledAmount: labelled.toString(),
  };
}
