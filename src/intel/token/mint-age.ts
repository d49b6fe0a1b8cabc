/**
 * Best-effort age of a mint from one page of its signatures: when the RPC returned fewer than a
 * page, the oldest one is the first transaction referencing the mint (normally its creation) as
 * far back as the RPC's history reaches; a full page only bounds the age from below. Pure.
 */
import type { MintHistory, RpcElement } from '../../chain/solana/rpc-token-methods.ts';

export interface MintAge {
  /** Days since the oldest signature; `unknown` when the page was full, empty, or unreadable. */
  readonly ageDays: number | 'unknown';
  /** Lower bound in days when the page was full. */
  readonly atLeastDays: number | null;
  readonly firstActivityUnix: number | null;
  readonly signaturesRead: number | 'unknown';
  readonly note: string;
  /** Set when the history read failed. */
  readonly error?: string;
}

const DAY_SECONDS = 86_400;
const days = (from: number, now: number) => Math.max(0, Math.round(((now - from) / DAY_SECONDS) * 100) / 100);

/** The age context of a mint at `nowUnix`. */
export function mintAgeOf(h: RpcElement<MintHistory>, nowUnix: number): MintAge {
  if (!h.ok) {
    return {
      ageDays: 'unknown',
      atLeastDays: null,
      firstActivityUnix: null,
      signaturesRead: 'unknown',
      note: `getSignaturesForAddress failed (JSON-RPC ${h.code})`,
      error: 'history_unavailable',
    };
  }
  const { count, limit, oldestBlockTime } = h.value;
  if (count === 0)
    return {
      ageDays: 'unknown',
      atLeastDays: null,
      firstActivityUnix: null,
      signaturesRead: 0,
      note: 'no transaction referencing the mint is in the RPC history',
    };
  if (oldestBlockTime === null)
    return { ageDays: 'unknown', atLeastDays: null, firstActivityUnix: null, signaturesRead: count, note: 'the oldest signature has no block time' };
  if (count >= limit) {
    return {
      ageDays: 'unknown',
      atLeastDays: days(oldestBlockTime, nowUnix),
      firstActivityUnix: null,
      signaturesRead: count,
      note: `more than ${limit} signatures reference the mint; the ${limit}th newest bounds the age from below`,
    };
  }
  return {
    ageDays: days(oldestBlockTime, nowUnix),
    atLeastDays: null,
    firstActivityUnix: oldestBlockTime,
    signaturesRead: count,
    note: `age of the oldest of ${count} signatures referencing the mint, as far back as the RPC history reaches`,
  };
}
