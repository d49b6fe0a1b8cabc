/**
 * The book of early answers (docs/payments.md#early-answers): what is at risk now and what was lost,
 * and the records that must outlive a restart. The contract every store keeps, and the book of one
 * instance: the shares in flight in memory (a restart takes them up again from the pending records),
 * and, durably in rows (early-answer-store.ts: a record log under the data directory), each answer's
 * outcome, payers barred after a failure, the day's losses and each payer's confirmed value per day.
 * PostgreSQL's book, shared by instances: pg-early-answer-store.ts.
 */
import type { StagedWrite } from '../../durable/staged-write.ts';
import {
  creditedTrust,
  type EarlyLimits,
  type EarlyRefusal,
  type EarlyShare,
  type EarlyTotals,
  earlyVerdict,
  LOSS_WINDOW_MS,
  type PayerStanding,
  handOffCovered,
  riskOf,
  type TrustRow,
  trustOf,
} from './early-bounds.ts';
import { PENDING_SETTLEMENT_TTL_MS } from './pending-settlements.ts';

/** A payment that failed after its early answer left: what the answer was, and why it failed. */
export interface EarlyFailure {
  readonly status: 'failed';
  readonly network: string;
  readonly transaction: string;
  readonly payer: string;
  readonly endpoint: string;
  readonly priceUsdcUnits: number;
  /** SHA-256 of the answer's receipt (null when the answer went out without one), and its ledger index. */
  readonly receiptSha256: string | null;
  readonly ledgerIndex: number | null;
  readonly reason: string;
  readonly message: string;
  readonly failedAt: number;
}

/** Where an early answer's payment ended. */
export type EarlyOutcome = { readonly status: 'confirmed' } | EarlyFailure;

/** A durable row of the book. */
export type EarlyRow =
  | EarlyOutcome
  | { readonly status: 'barred'; readonly untilMs: number }
  | { readonly status: 'loss'; readonly units: number; readonly newPayer: boolean; readonly at: number }
  | TrustRow;

/** The rows under a book: read from memory, written together durably. */
export interface EarlyRows {
  get(key: string): EarlyRow | undefined;
  entries(): Iterable<[string, EarlyRow]>;
  /**
   * Writes the rows in one commit where the store can; resolves once all are durable. `unhurried`:
   * no answer waits for them (a confirmation's), so the commit may share a device write with others.
   */
  putAll(rows: ReadonlyArray<EarlyRowWrite>, options?: { readonly unhurried?: boolean }): Promise<void>;
}

/** One row to write, with when it lapses. */
export type EarlyRowWrite = { readonly key: string; readonly row: EarlyRow; readonly expiresAt: number };

/** The day's losses before and after one was recorded (to tell the one that reached the budget). */
export interface LossStep {
  readonly before: number;
  readonly after: number;
}

/** Admitted (`handOff`: the payer's confirmed value covers the hand-off, early-bounds.ts `handOffCovered`), or refused. */
export type EarlyAdmission = { readonly share: EarlyShare; readonly handOff: boolean } | { readonly refused: EarlyRefusal };

/** The totals /health shows. */
export interface EarlyBookStatus extends EarlyTotals {
  readonly payersExposed: number;
}

export interface EarlyAnswerStore {
  /** 'instance': this process's book; 'database': every instance on the database shares it. */
  readonly scope: 'instance' | 'database';
  /**
   * Decides one early answer (early-bounds.ts) and takes its share when admitted, with the
   * settlement's pending record (`record(share, handOff)`, null when refused) made durable in the same commit where the
   * store can. `handOff` is told to `record` by a book that commits the record through its
   * `commitAlone` (this instance's): the record may then bring the answer's own writes into that
   * commit (exact-new-payment.ts); a book that runs the record in its own transaction says false.
   * Throws when the record could not be written: then nothing is taken.
   */
  admit(ask: Omit<EarlyShare, 'trusted'>, limits: EarlyLimits, record: (share: EarlyShare | null, handOff: boolean) => StagedWrite): Promise<EarlyAdmission>;
  /** The share of an answer already sent (found unresolved at start): taken whatever the bounds say, once per key. */
  hold(share: EarlyShare): Promise<void>;
  /** Gives a share back with no outcome (the answer did not go out early). */
  release(key: string): Promise<void>;
  /** Confirmed: the share given back, the outcome recorded, the payer's confirmed value credited; once per key. */
  confirmed(share: EarlyShare, at: number): Promise<void>;
  /**
   * Failed: the share given back, `lossUnits` counted in the day's losses, the outcome and the bar recorded, and the
   * payer's confirmed history forfeited (`barUntil` 0: no bar and nothing forfeited, the loss was not the payer's
   * doing); once per key (null: the outcome was recorded already, by another instance or before).
   */
  failed(share: EarlyShare, failure: EarlyFailure, lossUnits: number, barUntil: number): Promise<LossStep | null>;
  /** A payment of `payer` confirmed on the confirmed path: its confirmed value credited. */
  credit(payer: string, units: number, at: number): Promise<void>;
  outcome(key: string): Promise<EarlyOutcome | undefined>;
  barredUntil(payer: string): Promise<number>;
  /** The totals now (the database's: as of its last read, refreshed in the background). */
  status(now: number): EarlyBookStatus;
}

/** The book of one instance over `rows`. */
export function createInstanceBook(config: { readonly rows: EarlyRows }): EarlyAnswerStore {
  const { rows } = config;
  const shares = new Map<string, EarlyShare>();
  const payers = new Map<string, { units: number; count: number }>();
  const sums = { units: 0, risk: 0, newUnits: 0, newRisk: 0 };
  // The day's losses, oldest first (a loss row per failed answer, kept a day).
  const losses: Array<{ at: number; units: number; newPayer: boolean }> = [];
  for (const [, row] of rows.entries()) if (row.status === 'loss') losses.push({ at: row.at, units: row.units, newPayer: row.newPayer });
  losses.sort((a, b) => a.at - b.at);

  function lossesNow(t: number): { all: number; newPayers: number } {
    while (losses.length > 0 && losses[0]!.at <= t - LOSS_WINDOW_MS) losses.shift();
    let [all, newPayers] = [0, 0];
    for (const l of losses) {
      all += l.units;
      if (l.newPayer) newPayers += l.units;
    }
    return { all, newPayers };
  }

  function totals(t: number): EarlyTotals {
    const lost = lossesNow(t);
    return {
      exposureUnits: sums.units,
      exposureRisk: sums.risk,
      newExposureUnits: sums.newUnits,
      newExposureRisk: sums.newRisk,
      lossUnits: lost.all,
      newLossUnits: lost.newPayers,
    };
  }

  function take(share: EarlyShare, sign: 1 | -1): void {
    const p = payers.get(share.payer) ?? { units: 0, count: 0 };
    p.units += sign * share.units;
    p.count += sign;
    if (p.count > 0) payers.set(share.payer, p);
    else payers.delete(share.payer);
    sums.units += sign * share.units;
    sums.risk += sign * riskOf(share);
    if (!share.trusted) {
      sums.newUnits += sign * share.units;
      sums.newRisk += sign * riskOf(share);
    }
    if (sign > 0) shares.set(share.key, share);
    else shares.delete(share.key);
  }

  /** Gives the share of `key` back; the share held, or undefined when none was. */
  function giveBack(key: string): EarlyShare | undefined {
    const share = shares.get(key);
    if (share) take(share, -1);
    return share;
  }

  const barOf = (payer: string): number => {
    const row = rows.get(`bar:${payer}`);
    return row?.status === 'barred' ? row.untilMs : 0;
  };

  function standing(payer: string, t: number): PayerStanding {
    const p = payers.get(payer);
    return { inFlightUnits: p?.units ?? 0, inFlightCount: p?.count ?? 0, trustUnits: trustOf(rows.get(`trust:${payer}`), t), barredUntil: barOf(payer) };
  }

  return {
    scope: 'instance',
    async admit(ask, limits, record) {
      const payer = standing(ask.payer, ask.at);
      const share: EarlyShare = { ...ask, trusted: payer.trustUnits > 0 };
      const refused = earlyVerdict(totals(ask.at), payer, share, limits);
      // Taken in the same turn as the decision: a concurrent admission sees it.
      if (refused === null) take(share, 1);
      const handOff = refused === null && handOffCovered(payer, share);
      const write = record(refused === null ? share : null, handOff);
      try {
        await write.commitAlone();
        write.settle(null);
      } catch (err) {
        write.settle(err);
        if (refused === null) giveBack(share.key);
        throw err;
      }
      return refused === null ? { share, handOff } : { refused };
    },
    async hold(share) {
      if (!shares.has(share.key)) take(share, 1);
    },
    async release(key) {
      giveBack(key);
    },
    async confirmed(share, at) {
      giveBack(share.key);
      const key = `trust:${share.payer}`;
      const trust = creditedTrust(rows.get(key), share.units, at);
      // Kept as long as the record it resolves; unhurried: a stop before it only means a follow again.
      const outcome = { key: `outcome:${share.key}`, row: { status: 'confirmed' as const }, expiresAt: at + PENDING_SETTLEMENT_TTL_MS };
      await rows.putAll([outcome, { key, ...trust }], { unhurried: true });
    },
    async failed(share, failure, lossUnits, barUntil) {
      if (rows.get(`outcome:${share.key}`)) {
        giveBack(share.key);
        return null;
      }
      const at = failure.failedAt;
      const before = lossesNow(at).all;
      losses.push({ at, units: lossUnits, newPayer: !share.trusted });
      const bar = Math.max(barUntil, barOf(failure.payer));
      // barUntil 0: a loss that is not the payer's fault (our crash before the send) bars nobody.
      const barRow = bar > 0 ? [{ key: `bar:${failure.payer}`, row: { status: 'barred' as const, untilMs: bar }, expiresAt: bar }] : [];
      // A failure the payer is barred for forfeits the history it was trusted on: else the same
      // history would pay for a fresh round of losses after every bar, for the trust window's 30 days.
      const forfeit = barUntil > 0 ? [{ key: `trust:${failure.payer}`, row: { status: 'trust' as const, days: {} }, expiresAt: bar }] : [];
      try {
        await rows.putAll([
          { key: `outcome:${share.key}`, row: failure, expiresAt: at + PENDING_SETTLEMENT_TTL_MS },
          ...barRow,
          ...forfeit,
          { key: `loss:${share.key}`, row: { status: 'loss', units: lossUnits, newPayer: !share.trusted, at }, expiresAt: at + LOSS_WINDOW_MS },
        ]);
      } finally {
        // Given back only once the loss is on record (or its write failed): the exposure never drops first.
        giveBack(share.key);
      }
      return { before, after: before + lossUnits };
    },
    async credit(payer, units, at) {
      const key = `trust:${payer}`;
      await rows.putAll([{ key, ...creditedTrust(rows.get(key), units, at) }], { unhurried: true });
    },
    outcome(key) {
      const row = rows.get(`outcome:${key}`);
      return Promise.resolve(row && (row.status === 'confirmed' || row.status === 'failed') ? row : undefined);
    },
    barredUntil: (payer) => Promise.resolve(barOf(payer)),
    status: (t) => ({ ...totals(t), payersExposed: payers.size }),
  };
}
