/**
 * Yellowstone `SubscribeRequest` filter semantics as pure functions: compile a decoded request into
 * filters (validating it the way Yellowstone does), then ask which named filters an event matches.
 * The names matched are what a `SubscribeUpdate` echoes in `filters`; no match means no update.
 */
import { isAddress, isSignature } from '@solana/kit';
import type { Commitment, ExecutedTransaction, SlotStatus } from '../chain/types.ts';

/** A transaction filter as decoded from the wire; `null` means "not set" (proto3 optional). */
export interface TransactionFilterRequest {
  readonly vote: boolean | null;
  readonly failed: boolean | null;
  readonly signature: string | null;
  readonly accountInclude: readonly string[];
  readonly accountExclude: readonly string[];
  readonly accountRequired: readonly string[];
}

/** The decoded `SubscribeRequest`, independent of the protobuf library. */
export interface SubscribeRequestData {
  readonly slots: Readonly<Record<string, { readonly filterByCommitment: boolean | null }>>;
  readonly transactions: Readonly<Record<string, TransactionFilterRequest>>;
  readonly transactionsStatus: Readonly<Record<string, TransactionFilterRequest>>;
  readonly blocksMeta: readonly string[];
  /** Names of filter maps the localnet does not serve (accounts, blocks, entry) that were non-empty. */
  readonly unsupported: readonly string[];
  /** Raw `CommitmentLevel` enum value, `null` when absent. */
  readonly commitment: number | null;
  /** `ping.id` when the request is a ping. */
  readonly ping: number | null;
  readonly fromSlot: bigint | null;
}

interface CompiledTransactionFilter {
  readonly name: string;
  readonly vote: boolean | null;
  readonly failed: boolean | null;
  readonly signature: string | null;
  readonly include: ReadonlySet<string>;
  readonly exclude: ReadonlySet<string>;
  readonly required: readonly string[];
}

/** A subscription's compiled filters. */
export interface SubscriptionFilters {
  readonly commitment: Commitment;
  readonly slots: readonly { readonly name: string; readonly filterByCommitment: boolean }[];
  readonly transactions: readonly CompiledTransactionFilter[];
  readonly transactionsStatus: readonly CompiledTransactionFilter[];
  readonly blocksMeta: readonly string[];
}

/** Why a request was refused; the server maps `kind` to a gRPC status. */
export class GeyserFilterError extends Error {
  override readonly name = 'GeyserFilterError';
  constructor(
    readonly kind: 'invalid_argument' | 'unimplemented',
    message: string,
  ) {
    super(message);
  }
}

/** Index = `geyser.CommitmentLevel` enum value. */
const COMMITMENT_BY_ENUM: readonly Commitment[] = ['processed', 'confirmed', 'finalized'];

/** Maps a `CommitmentLevel` enum value (absent = processed, as Yellowstone does). */
export function commitmentFromEnum(value: number | null): Commitment {
  const commitment = COMMITMENT_BY_ENUM[value ?? 0];
  if (commitment === undefined) {
    throw new GeyserFilterError('invalid_argument', `failed to create CommitmentLevel from ${value}`);
  }
  return commitment;
}

/** The empty filter set a stream has before its first request: nothing is delivered. */
export const EMPTY_FILTERS: SubscriptionFilters = {
  commitment: 'processed',
  slots: [],
  transactions: [],
  transactionsStatus: [],
  blocksMeta: [],
};

/** Validates and compiles a request; throws `GeyserFilterError` as Yellowstone would refuse it. */
export function compileFilters(request: SubscribeRequestData): SubscriptionFilters {
  if (request.unsupported.length > 0) {
    throw new GeyserFilterError(
      'unimplemented',
      `the localnet Geyser serves slots, transactions, transactionsStatus and blocksMeta; not ${request.unsupported.join(', ')}`,
    );
  }
  return {
    commitment: commitmentFromEnum(request.commitment),
    slots: Object.entries(request.slots).map(([name, slot]) => ({
      name,
      filterByCommitment: slot.filterByCommitment ?? false,
    })),
    transactions: compileTransactionFilters(request.transactions),
    transactionsStatus: compileTransactionFilters(request.transactionsStatus),
    blocksMeta: [...request.blocksMeta],
  };
}

function compileTransactionFilters(filters: Readonly<Record<string, TransactionFilterRequest>>): CompiledTransactionFilter[] {
  return Object.entries(filters).map(([name, filter]) => {
    if (filter.signature !== null && !isSignature(filter.signature)) {
      throw new GeyserFilterError('invalid_argument', `filter ${name}: invalid signature ${filter.signature}`);
    }
    return {
      name,
      vote: filter.vote,
      failed: filter.failed,
      signature: filter.signature,
      include: new Set(checkedPubkeys(name, filter.accountInclude)),
      exclude: new Set(checkedPubkeys(name, filter.accountExclude)),
      required: [...new Set(checkedPubkeys(name, filter.accountRequired))],
    };
  });
}

function checkedPubkeys(filterName: string, pubkeys: readonly string[]): readonly string[] {
  for (const pubkey of pubkeys) {
    if (!isAddress(pubkey)) {
      throw new GeyserFilterError('invalid_argument', `filter ${filterName}: invalid pubkey ${pubkey}`);
    }
  }
  return pubkeys;
}

/** Names of the `transactions` filters a transaction matches. */
export function matchTransactionFilters(filters: SubscriptionFilters, tx: ExecutedTransaction): string[] {
  return matchingNames(filters.transactions, tx);
}

/** Names of the `transactionsStatus` filters a transaction matches. */
export function matchTransactionStatusFilters(filters: SubscriptionFilters, tx: ExecutedTransaction): string[] {
  return matchingNames(filters.transactionsStatus, tx);
}

function matchingNames(compiled: readonly CompiledTransactionFilter[], tx: ExecutedTransaction): string[] {
  const names: string[] = [];
  for (const filter of compiled) {
    if (transactionMatches(filter, tx)) names.push(filter.name);
  }
  return names;
}

/**
 * Yellowstone's rule: every set criterion must hold. `vote`/`failed` compare when set; include
 * needs any listed key in the message, exclude needs none, required needs all.
 */
function transactionMatches(filter: CompiledTransactionFilter, tx: ExecutedTransaction): boolean {
  if (filter.vote !== null && filter.vote !== tx.isVote) return false;
  const failed = tx.err !== null && tx.err !== undefined;
  if (filter.failed !== null && filter.failed !== failed) return false;
  if (filter.signature !== null && filter.signature !== tx.signature) return false;
  const keys = tx.accountKeys;
  if (filter.include.size > 0 && !keys.some((key) => filter.include.has(key))) return false;
  if (filter.exclude.size > 0 && keys.some((key) => filter.exclude.has(key))) return false;
  return filter.required.every((key) => keys.includes(key));
}

/**
 * Names of the `slots` filters a slot status update matches: all of them, except that a filter
 * with `filterByCommitment` only takes the status equal to the subscription's commitment.
 */
export function matchSlotFilters(filters: SubscriptionFilters, status: SlotStatus): string[] {
  const names: string[] = [];
  for (const slot of filters.slots) {
    if (!slot.filterByCommitment || status === filters.commitment) names.push(slot.name);
  }
  return names;
}

/** Names of the `blocksMeta` filters (they have no criteria: every block meta matches). */
export function matchBlockMetaFilters(filters: SubscriptionFilters): readonly string[] {
  return filters.blocksMeta;
}

/** Whether the subscription wants anything built from transactions (saves encoding work). */
export function wantsTransactions(filters: SubscriptionFilters): boolean {
  return filters.transactions.length > 0 || filters.transactionsStatus.length > 0;
}
