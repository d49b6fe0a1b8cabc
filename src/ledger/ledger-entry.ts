/**
 * Ledger entries (docs/contract.md#ledger-entries): what one WAL line holds, how it is hashed and
 * how a line read back is checked. An entry never carries query content, caller identity, payer
 * address or IP: the endpoint is a bare path (a `?` is refused) and a payment is referenced only by
 * the SHA-256 of its receipt.
 *
 * Canonical JSON: `JSON.stringify` of an object whose keys are in the fixed order below, no
 * whitespace. Payment: index, time, kind, endpoint, priceUsdcUnits, network, receiptSha256,
 * prevHash, entrySha256. Audit: index, time, kind, event, reason (only when given), prevHash,
 * entrySha256.
 * `entrySha256` = SHA-256 of the UTF-8 canonical JSON of the entry without `entrySha256`;
 * `prevHash` is the previous entry's `entrySha256`, 64 zeros for the first entry.
 */
import { ServiceError } from '../errors.ts';
import { isHexDigest, sha256Hex } from './merkle-hash.ts';

/** `prevHash` of entry 0. */
export const GENESIS_PREV_HASH = '0'.repeat(64);
const ENDPOINT_RE = /^\/[A-Za-z0-9._~/-]{0,255}$/;
const NETWORK_RE = /^[A-Za-z0-9:._-]{1,100}$/;
const EVENT_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const ISO_MS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Longest operator reason an audit entry carries, characters (UTF-16 code units). */
export const MAX_AUDIT_REASON_CHARS = 256;
// Control characters would make the public log ambiguous to read; JSON would escape them anyway.
// biome-ignore lint/suspicious/noControlCharactersInRegex: a reason must not contain control characters
const REASON_RE = /^[^\u0000-\u001f\u007f]+$/;

/** A settled paid call. */
export interface PaymentEntry {
  readonly index: number;
  readonly time: string;
  readonly kind: 'payment';
  readonly endpoint: string;
  readonly priceUsdcUnits: number;
  readonly network: string;
  readonly receiptSha256: string;
  readonly prevHash: string;
  readonly entrySha256: string;
}

/** An audited operator event (e.g. kill switch activated / released). */
export interface AuditEntry {
  readonly index: number;
  readonly time: string;
  readonly kind: 'audit';
  readonly event: string;
  /** The operator's stated reason; public, so it must never carry secrets or caller data. */
  readonly reason?: string;
  readonly prevHash: string;
  readonly entrySha256: string;
}

export type LedgerEntry = PaymentEntry | AuditEntry;

/** The position an entry is appended at, known before its content is final. */
export interface LedgerSlot {
  readonly index: number;
  readonly prevHash: string;
}

/**
 * A payment to append. `receiptSha256` may be computed from the slot, because the receipt
 * carries `ledgerIndex` and `ledgerChainHead` (= slot.prevHash) while the entry carries the
 * receipt's hash: the callback runs synchronously at the moment the slot is assigned.
 */
export interface PaymentDraft {
  readonly kind: 'payment';
  readonly endpoint: string;
  readonly priceUsdcUnits: number;
  readonly network: string;
  readonly receiptSha256: string | ((slot: LedgerSlot) => string);
}

/** An audit event to append; `event` is a short lowercase code such as `kill-switch.activated`. */
export interface AuditDraft {
  readonly kind: 'audit';
  readonly event: string;
  /** Optional operator reason, 1..MAX_AUDIT_REASON_CHARS printable characters. */
  readonly reason?: string;
}

export type LedgerDraft = PaymentDraft | AuditDraft;

type Unsealed = Omit<PaymentEntry, 'entrySha256'> | Omit<AuditEntry, 'entrySha256'>;

/** Why `reason` cannot be an audit entry's reason, or null when it can. */
export function auditReasonProblem(reason: unknown): string | null {
  const ok = typeof reason === 'string' && reason.length <= MAX_AUDIT_REASON_CHARS && REASON_RE.test(reason);
  return ok ? null : `reason must be 1..${MAX_AUDIT_REASON_CHARS} printable characters`;
}

/** Field problem of an entry or draft, or null when it is well-formed. */
function problem(e: Record<string, unknown>): string | null {
  if (e.kind === 'payment') {
    if (typeof e.endpoint !== 'string' || !ENDPOINT_RE.test(e.endpoint)) return 'endpoint must be a bare path (no query)';
    if (typeof e.priceUsdcUnits !== 'number' || !Number.isSafeInteger(e.priceUsdcUnits) || e.priceUsdcUnits < 0)
      return 'priceUsdcUnits must be a non-negative integer';
    if (typeof e.network !== 'string' || !NETWORK_RE.test(e.network)) return 'network must be a network label';
    if (!isHexDigest(e.receiptSha256)) return 'receiptSha256 must be a lowercase hex SHA-256';
    return null;
  }
  if (e.kind === 'audit') {
    if (typeof e.event !== 'string' || !EVENT_RE.test(e.event)) return 'event must be a short lowercase code';
    return e.reason === undefined ? null : auditReasonProblem(e.reason);
  }
  return 'kind must be payment or audit';
}

/**
 * The canonical object (fixed key order) of an entry without `entrySha256`. Written out as literals:
 * a spread copy here took V8's slow path (about 8 µs an entry, most of the CPU of opening a long WAL).
 */
function canonicalUnsealed(e: Record<string, unknown>): Unsealed {
  const index = e.index as number;
  const time = e.time as string;
  const prevHash = e.prevHash as string;
  if (e.kind === 'payment') {
    return {
      index,
      time,
      kind: 'payment',
      endpoint: e.endpoint as string,
      priceUsdcUnits: e.priceUsdcUnits as number,
      network: e.network as string,
      receiptSha256: e.receiptSha256 as string,
      prevHash,
    };
  }
  const event = e.event as string;
  return e.reason === undefined ? { index, time, kind: 'audit', event, prevHash } : { index, time, kind: 'audit', event, reason: e.reason as string, prevHash };
}

/** Builds the entry for `draft` at `slot`, with its hash and its WAL line (no newline). */
export function sealEntry(draft: LedgerDraft, slot: LedgerSlot, time: Date): { entry: LedgerEntry; line: string } {
  // Assigned, not spread: see canonicalUnsealed.
  const fields: Record<string, unknown> = Object.assign<Record<string, unknown>, LedgerDraft>({}, draft);
  fields.index = slot.index;
  fields.time = time.toISOString();
  fields.prevHash = slot.prevHash;
  if (draft.kind === 'payment' && typeof draft.receiptSha256 === 'function') fields.receiptSha256 = draft.receiptSha256(slot);
  const bad = problem(fields);
  if (bad) throw new ServiceError('internal_error', `ledger entry refused: ${bad}`);
  const unsealed = canonicalUnsealed(fields);
  const json = JSON.stringify(unsealed);
  const entrySha256 = sha256Hex(json);
  // The line is the canonical JSON with `entrySha256` last (what parseEntryLine demands), spliced
  // rather than serialized a second time: the paid path seals one entry per call on the event loop.
  const entry = Object.assign(unsealed, { entrySha256 }) as LedgerEntry;
  return { entry, line: `${json.slice(0, -1)},"entrySha256":"${entrySha256}"}` };
}

/** Result of checking one WAL line: the entry, or why it is not the expected next entry. */
export type ParsedLine = { readonly ok: true; readonly entry: LedgerEntry } | { readonly ok: false; readonly parsable: boolean; readonly reason: string };

/** Parses a WAL line and checks it is canonical, well-formed and the entry expected at `slot`. */
export function parseEntryLine(text: string, slot: LedgerSlot): ParsedLine {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, parsable: false, reason: 'not JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, parsable: true, reason: 'not a JSON object' };
  const e = raw as Record<string, unknown>;
  const bad = problem(e);
  if (bad) return { ok: false, parsable: true, reason: bad };
  if (typeof e.time !== 'string' || !ISO_MS_RE.test(e.time)) return { ok: false, parsable: true, reason: 'time must be ISO 8601 UTC with milliseconds' };
  if (e.index !== slot.index) return { ok: false, parsable: true, reason: `index ${String(e.index)} where ${slot.index} was expected` };
  if (e.prevHash !== slot.prevHash) return { ok: false, parsable: true, reason: `prevHash does not link to the previous entry (${slot.prevHash})` };
  const unsealed = JSON.stringify(canonicalUnsealed(e));
  if (e.entrySha256 !== sha256Hex(unsealed)) return { ok: false, parsable: true, reason: 'entrySha256 is not the SHA-256 of the entry' };
  // Extra fields, another key order or whitespace would hash differently for a client re-checking.
  if (text !== `${unsealed.slice(0, -1)},"entrySha256":"${e.entrySha256}"}`) return { ok: false, parsable: true, reason: 'line is not canonical JSON' };
  return { ok: true, entry: e as unknown as LedgerEntry };
}

/** SHA-256 (hex) of an entry's canonical JSON without `entrySha256`: what a client recomputes. */
export function entryHash(entry: LedgerEntry): string {
  return sha256Hex(JSON.stringify(canonicalUnsealed(entry as unknown as Record<string, unknown>)));
}
