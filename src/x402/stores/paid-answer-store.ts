/**
 * The durable half of the x402 `payment-identifier` extension: every paid 200 answered under an
 * id is written (fsync'd) before it leaves, with the fingerprint of the payment that bought it,
 * so after a restart the same id and payload get the same answer again without a new charge, and
 * the same id with another payload still gets 409. Answers leave at the end of their retry window,
 * never earlier: at the bound (--payment-records-max) new calls with an id are refused instead.
 */
import type { CommitJournal } from '../../durable/commit-journal.ts';
import type { StagedWrite } from '../../durable/staged-write.ts';
import type { HttpReply } from '../../errors.ts';
import { createDurableRecordLog } from './durable-record-log.ts';
import { IDEMPOTENCY_MAX_ENTRIES, IDEMPOTENCY_TTL_MS } from './idempotency-cache.ts';
import { replyOf, storableAnswer, type StoredAnswer } from './pending-settlements.ts';
import { type BoundedStore, createRecordShares, type RecordOwners, type RecordRefusal, type ShareLimits } from './record-shares.ts';

const FILE = 'payment-identifier.log';
/** The staged write of an answer for an id that has one already: nothing to make durable. */
const KEPT_ALREADY: StagedWrite = { commitAlone: () => Promise.resolve(), settle: () => undefined };

export interface StoredPaidAnswer {
  readonly fingerprint: string;
  readonly answer: StoredAnswer;
  /** The payer the payment named, so the answer counts toward its share after a restart too (absent in answers kept before shares). */
  readonly payer?: string;
}

/** What a lookup finds: `hit` for the same fingerprint, `conflict` for another, else `miss`. */
export type PaidAnswerLookup = { readonly kind: 'miss' } | { readonly kind: 'conflict' } | { readonly kind: 'hit'; readonly reply: HttpReply };

/**
 * An exclusive claim on an id across instances: `acquired` (process the payment, then remember
 * or release), the answer or conflict of another payment, or `busy`: the same payment is being
 * processed under the id elsewhere right now.
 */
export type IdClaim = { readonly kind: 'acquired' } | { readonly kind: 'busy' } | PaidAnswerLookup;

/** The payment-identifier answers as the payment path uses them: this file's log, or the database (pg-paid-answer-store.ts). */
export interface PaidAnswerStore extends BoundedStore {
  /** The stored answer of `id`, compared with `fingerprint`. */
  lookup(id: string, fingerprint: string): PaidAnswerLookup | Promise<PaidAnswerLookup>;
  /** Resolves once the answer is durable; `owners` count it toward its payer's and address's shares (bounded stores). */
  remember(id: string, fingerprint: string, reply: HttpReply, owners?: RecordOwners): Promise<void>;
  /** `remember`, staged to ride in the paid call's commit (its ledger entry's). */
  stageRemember?(id: string, fingerprint: string, reply: HttpReply, owners?: RecordOwners): StagedWrite;
  /** Shared stores only (one process needs none: its memory cache sees every call): claims the id before the payment is processed. */
  claim?(id: string, fingerprint: string): Promise<IdClaim>;
  /** Gives a claim back when its answer was not a 200 (the same as forgetting it in memory). */
  release?(id: string, fingerprint: string): Promise<void>;
}

/** The file log: lookups answer at once, from memory. */
export interface FilePaidAnswerStore extends PaidAnswerStore {
  lookup(id: string, fingerprint: string): PaidAnswerLookup;
  refusal(owners: RecordOwners): RecordRefusal | null;
  size(): number;
}

/** `stored` compared with `fingerprint`, as a lookup result. */
export function lookupOf(stored: StoredPaidAnswer | undefined, fingerprint: string): PaidAnswerLookup {
  if (!stored) return { kind: 'miss' };
  if (stored.fingerprint !== fingerprint) return { kind: 'conflict' };
  return { kind: 'hit', reply: replyOf(stored.answer) };
}

/** Opens the store under `dir` (the replay record's directory). */
export function createPaidAnswerStore(config: {
  readonly dir: string;
  readonly ttlMs?: number;
  readonly maxEntries?: number;
  /** Shares of the answers per payer and per client address (absent: the bound alone). */
  readonly shares?: ShareLimits;
  readonly now?: () => number;
  readonly journal?: CommitJournal;
}): FilePaidAnswerStore {
  const now = config.now ?? Date.now;
  const ttlMs = config.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const log = createDurableRecordLog<StoredPaidAnswer>({
    dir: config.dir,
    file: FILE,
    maxEntries: config.maxEntries ?? IDEMPOTENCY_MAX_ENTRIES,
    now,
    ...(config.journal ? { journal: config.journal } : {}),
    ...(config.shares
      ? { shares: { counts: createRecordShares(config.shares), ownersOf: (a: StoredPaidAnswer) => ({ payer: a.payer ?? '', client: '' }) } }
      : {}),
  });
  const stored = (fingerprint: string, reply: HttpReply, owners?: RecordOwners): StoredPaidAnswer => ({
    fingerprint,
    answer: storableAnswer(reply),
    ...(owners?.payer ? { payer: owners.payer } : {}),
  });
  // The first answer of an id stays while it lives, as in the database: a retry under the id gets
  // the answer it was given, never a later one (another payment's answer does not replace it).
  return {
    lookup: (id, fingerprint) => lookupOf(log.get(id), fingerprint),
    remember: (id, fingerprint, reply, owners) => (log.get(id) ? Promise.resolve() : log.put(id, stored(fingerprint, reply, owners), now() + ttlMs, owners)),
    stageRemember: (id, fingerprint, reply, owners) => (log.get(id) ? KEPT_ALREADY : log.stage(id, stored(fingerprint, reply, owners), now() + ttlMs, owners)),
    size: () => log.size(),
    full: () => log.full(),
    refusal: (owners) => log.refusal(owners),
  };
}
