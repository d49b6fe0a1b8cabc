/**
 * Every settlement, recorded durably before its payment can reach the chain, with everything
 * needed to deliver the answer later: the transaction, the computed answer and what its receipt
 * needs (docs/contract.md#paid-call-flow step 6). A settlement not confirmed within the settle
 * time-out answers 402 `settlement_pending`; a retry of the same payment checks the chain and gets
 * the stored 200 once it landed, or the x402 error once it can no longer land. Once a 200 is sent
 * it is kept with the record, for the identical retry of the same payment.
 */
import type { CommitJournal } from '../../durable/commit-journal.ts';
import type { StagedWrite } from '../../durable/staged-write.ts';
import type { HttpReply, ServiceError } from '../../errors.ts';
import { createDurableRecordLog } from './durable-record-log.ts';
import { type BoundedStore, createRecordShares, type RecordOwners, type RecordRefusal, recordsRefused, type ShareLimits } from './record-shares.ts';
import { REPLAY_KEY_TTL_MS } from './replay-guard.ts';
import type { PaidResource } from '../types/paid-call.ts';
import type { PaymentPayload } from '../types/x402-types.ts';

/**
 * Default of --payment-records-max: settlement records held at once (pending ones and the 200s
 * kept for retries). None is dropped before its time: beyond it new paid calls get 503 `payments_full`.
 */
export const PENDING_SETTLEMENTS_MAX = 10_000;
/** How long a pending settlement can be resolved by a retry (the replay record's lifetime). */
export const PENDING_SETTLEMENT_TTL_MS = REPLAY_KEY_TTL_MS;
const FILE = 'pending-settlements.log';

/** A computed answer in storable form. */
export interface StoredAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A text body as it was sent (JSON answers: kept as text, a third smaller than base64 and not encoded per call). */
  readonly body?: string;
  /** A binary body, base64 (and every answer kept before text bodies were). */
  readonly bodyBase64?: string;
}

export interface PendingSettlement {
  readonly network: string;
  /** Signature (Solana) or hash (EVM) of the sent settlement. */
  readonly transaction: string;
  readonly payer: string;
  /** sha256 of the payment's scheme payload: only a retry of exactly this payment resolves it. */
  readonly payloadSha256: string;
  /** The answer computed for the paid request, sent once the settlement lands. */
  readonly answer: StoredAnswer;
  /** What the receipt and ledger entry of the answer need. */
  readonly paid: PaidResource;
  readonly recordedAt: number;
  /**
   * The 200 exactly as delivered (PAYMENT-RESPONSE and receipt included), kept once it was sent:
   * the identical retry of the same payment gets it, with no new charge.
   */
  readonly delivered?: StoredAnswer;
  /**
   * An early answer (early-settlement.ts): the payment, so a restart can ask the chain where it
   * stands, and its share of the bounds (what its failed transaction would cost our fee payer, and
   * whether its payer had confirmed history), so a restart counts it as it was admitted.
   */
  readonly early?: { readonly payment: PaymentPayload; readonly feeUnits?: number; readonly trusted?: boolean; readonly ended?: true };
}

/**
 * An early answer that left and whose outcome is not yet written (`ended` is set once it is):
 * money state, never dropped by age (a restart, however late, follows it to its outcome).
 */
export const unresolvedEarly = (r: PendingSettlement): boolean => r.early !== undefined && r.delivered !== undefined && !r.early.ended;

/** The settlement records as the payment path uses them: this file's log, or the database (pg-pending-settlements.ts). */
export interface PendingSettlements extends BoundedStore {
  get(key: string): PendingSettlement | undefined | Promise<PendingSettlement | undefined>;
  /**
   * Resolves once the record is durable; `client` (the caller's address, memory only) counts it
   * toward that address's share with its payer's. A new record past the bound or a share rejects
   * with payments_full.
   */
  record(key: string, pending: PendingSettlement, client?: string): Promise<void>;
  /** `record`, staged to ride in another commit (an early answer's admission); throws `payments_full` as `record` refuses. */
  stageRecord?(key: string, pending: PendingSettlement, client?: string): StagedWrite;
  resolve(key: string): Promise<void>;
  /** Keeps the delivered 200 of `key` for retries (until the record expires); resolves once durable. */
  keepDelivered(key: string, reply: HttpReply): Promise<void>;
  /** `keepDelivered`, staged to ride in the paid call's commit (its ledger entry's); throws without a record. */
  stageDelivered?(key: string, reply: HttpReply): StagedWrite;
  /** The records of early answers not yet `ended` (whatever their age), for a restart to settle. */
  listEarly(): Promise<Array<[string, PendingSettlement]>>;
  /** Marks the early answer of `key` as ended (its outcome written): from now on it expires as any record. */
  ended(key: string): Promise<void>;
}

/** The file log: reads answer at once, from memory. */
export interface FilePendingSettlements extends PendingSettlements {
  get(key: string): PendingSettlement | undefined;
  stageRecord(key: string, pending: PendingSettlement, client?: string): StagedWrite;
  refusal(owners: RecordOwners): RecordRefusal | null;
  size(): number;
}

/** The fault of a new paid call while the payment records are at their bound: 503 before any charge. */
export function paymentsFull(): ServiceError<'payments_full'> {
  return recordsRefused('full');
}

/** The error of keepDelivered without a record: the record is written before every broadcast. */
export function noRecordToKeep(key: string): Error {
  return new Error(`no settlement record for ${key} to keep the delivered answer with`);
}

/** The record's write as a staged one, for a store that can stage it or (on its own path) one that cannot. */
export function stagedRecord(
  pending: Pick<PendingSettlements, 'record' | 'stageRecord'>,
  key: string,
  record: PendingSettlement,
  client?: string,
): StagedWrite {
  if (pending.stageRecord) return pending.stageRecord(key, record, client);
  return { commitAlone: () => pending.record(key, record, client), settle: () => undefined };
}

/** The stored answer as the reply it was, byte for byte. */
export function replyOf(answer: StoredAnswer): HttpReply {
  return { status: answer.status, headers: answer.headers, body: answer.body ?? Buffer.from(answer.bodyBase64 ?? '', 'base64') };
}

/** The answer in storable form. */
export function storableAnswer(reply: HttpReply): StoredAnswer {
  const headers = { ...reply.headers };
  return typeof reply.body === 'string'
    ? { status: reply.status, headers, body: reply.body }
    : { status: reply.status, headers, bodyBase64: reply.body.toString('base64') };
}

/** Opens the store under `dir` (the replay record's directory). */
export function createPendingSettlements(config: {
  readonly dir: string;
  readonly ttlMs?: number;
  readonly maxEntries?: number;
  /** Shares of the records per payer and per client address (absent: the bound alone). */
  readonly shares?: ShareLimits;
  readonly now?: () => number;
  readonly journal?: CommitJournal;
}): FilePendingSettlements {
  const now = config.now ?? Date.now;
  const ttlMs = config.ttlMs ?? PENDING_SETTLEMENT_TTL_MS;
  const log = createDurableRecordLog<PendingSettlement>({
    dir: config.dir,
    file: FILE,
    maxEntries: config.maxEntries ?? PENDING_SETTLEMENTS_MAX,
    now,
    keep: { holds: unresolvedEarly, forMs: ttlMs },
    ...(config.journal ? { journal: config.journal } : {}),
    ...(config.shares ? { shares: { counts: createRecordShares(config.shares), ownersOf: (r: PendingSettlement) => ({ payer: r.payer, client: '' }) } } : {}),
  });
  return {
    get: (key) => log.get(key),
    record(key, pending, client = '') {
      const owners = { payer: pending.payer, client };
      // A new settlement only while there is room: the records held are never dropped for it.
      const why = log.get(key) === undefined ? log.refusal(owners) : null;
      if (why) return Promise.reject(recordsRefused(why));
      return log.put(key, pending, now() + ttlMs, owners);
    },
    stageRecord(key, pending, client = '') {
      const owners = { payer: pending.payer, client };
      const why = log.get(key) === undefined ? log.refusal(owners) : null;
      if (why) throw recordsRefused(why);
      return log.stage(key, pending, now() + ttlMs, owners);
    },
    resolve: (key) => log.remove(key),
    async keepDelivered(key, reply) {
      const record = log.get(key);
      // The record is written before every broadcast; without it there is nothing to attach to.
      if (!record) throw noRecordToKeep(key);
      await log.put(key, { ...record, delivered: storableAnswer(reply) }, now() + ttlMs);
    },
    stageDelivered(key, reply) {
      const record = log.get(key);
      if (!record) throw noRecordToKeep(key);
      return log.stage(key, { ...record, delivered: storableAnswer(reply) }, now() + ttlMs);
    },
    listEarly: () => Promise.resolve([...log.entries()].filter(([, r]) => r.early !== undefined && !r.early.ended)),
    async ended(key) {
      const record = log.get(key);
      if (record?.early && !record.early.ended) await log.put(key, { ...record, early: { ...record.early, ended: true } }, now() + ttlMs);
    },
    size: () => log.size(),
    full: () => log.full(),
    refusal: (owners) => log.refusal(owners),
  };
}
