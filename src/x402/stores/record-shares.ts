/**
 * Shares of a bounded money store (settlement records, payment-identifier answers, channels): how
 * many live records each payer and each client address holds, and whether a new one would take
 * either past its share. A store's bound alone let one payer who simply paid fill it for the
 * records' lifetime and shut every other payer out; with shares, no single payer or address can.
 *
 * A record's payer is read from the record (so it is counted again after a restart); its client
 * address is known only in memory (addresses are never written to the data dir), so records read
 * back at start count toward their payers alone.
 */
import { ServiceError } from '../../errors.ts';

/** Who a record is held for: the payer's address and the client's key (`''`: unknown). */
export interface RecordOwners {
  readonly payer: string;
  readonly client: string;
}

/** The most live records one payer, and one client address, may hold in one store. */
export interface ShareLimits {
  readonly perPayer: number;
  readonly perClient: number;
}

/** Why a new record has no room: the store is at its bound, or its payer or client at its share. */
export type RecordRefusal = 'full' | 'payer' | 'client';

export interface RecordShares {
  add(owners: RecordOwners): void;
  remove(owners: RecordOwners): void;
  /** Whether a new record of `owners` would take its payer or its client past its share. */
  refusal(owners: RecordOwners): Exclude<RecordRefusal, 'full'> | null;
}

/**
 * A payer as records are counted: an EVM address in lower case (a payment may spell it in either
 * case), a Solana address as it is.
 */
export const payerKey = (payer: string): string => (payer.startsWith('0x') ? payer.toLowerCase() : payer);

/** Counts per payer and per client under `limits`. */
export function createRecordShares(limits: ShareLimits): RecordShares {
  const byPayer = new Map<string, number>();
  const byClient = new Map<string, number>();
  const change = (counts: Map<string, number>, key: string, by: number) => {
    if (key === '') return;
    const n = (counts.get(key) ?? 0) + by;
    if (n > 0) counts.set(key, n);
    else counts.delete(key);
  };
  return {
    add(owners) {
      change(byPayer, payerKey(owners.payer), 1);
      change(byClient, owners.client, 1);
    },
    remove(owners) {
      change(byPayer, payerKey(owners.payer), -1);
      change(byClient, owners.client, -1);
    },
    refusal(owners) {
      if (owners.payer !== '' && (byPayer.get(payerKey(owners.payer)) ?? 0) >= limits.perPayer) return 'payer';
      if (owners.client !== '' && (byClient.get(owners.client) ?? 0) >= limits.perClient) return 'client';
      return null;
    },
  };
}

const SHARE_SENTENCE: Record<RecordRefusal, string> = {
  full: 'the service holds as many unsettled payments and kept answers as it may; nothing was charged; retry shortly',
  payer:
    'this payer holds as many payment records (unsettled payments, kept answers, channels) as one payer may; nothing was charged; retry once some of them end',
  client:
    'this client address holds as many payment records (unsettled payments, kept answers, channels) as one address may; nothing was charged; retry once some of them end',
};

/** A store as the payment path asks it for room: bounded ones say why a new record of `owners` has none. */
export interface BoundedStore {
  full?(): boolean;
  refusal?(owners: RecordOwners): RecordRefusal | null;
}

/** Why `store` has no room for a new record of `owners`, or null (unbounded stores always have room). */
export function noRoomFor(store: BoundedStore, owners: RecordOwners): RecordRefusal | null {
  if (store.refusal) return store.refusal(owners);
  return store.full?.() ? 'full' : null;
}

/** The 503 of a new paid call with no room for its record: the store's bound, or its payer's or client's share (`share` says which). */
export function recordsRefused(why: RecordRefusal): ServiceError<'payments_full'> {
  return new ServiceError('payments_full', SHARE_SENTENCE[why], why === 'full' ? {} : { share: why });
}
