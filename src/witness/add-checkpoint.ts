/**
 * The witness's decision on one `add-checkpoint` request (c2sp.org/tlog-witness), as an HTTP
 * answer: 400 for a malformed body or an old size above the checkpoint's, 404 for a log it does
 * not witness, 403 when no signature by the log's key verifies, 409 with the size it knows when
 * the old size is not the one it last cosigned (or the same size comes with another root), 422
 * when the consistency proof does not lead from its recorded root to the new one, else 200 with
 * its cosignature, given only once the new view is on disk.
 */
import { toHex } from '../ledger/merkle-hash.ts';
import { verifyConsistency } from '../ledger/merkle-verify.ts';
import { parseAddCheckpoint } from './add-checkpoint-request.ts';
import type { LogView, WitnessState } from './witness-state.ts';

/** What a log's checkpoint says once its signature by the log's key verified. */
export interface VerifiedCheckpoint {
  readonly origin: string;
  readonly size: number;
  readonly root: Uint8Array;
  /** The note text (origin, size, root and any extension lines, each ending in a newline). */
  readonly text: string;
}

/** Reads a checkpoint note against the witnessed logs' keys. */
export type CheckpointVerifier = (
  note: string,
) =>
  | { readonly ok: true; readonly checkpoint: VerifiedCheckpoint }
  | { readonly ok: false; readonly kind: 'malformed' | 'unknown_log' | 'bad_signature'; readonly reason: string };

/** A witness's answer. */
export interface WitnessReply {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export interface AddCheckpointConfig {
  readonly state: WitnessState;
  readonly verify: CheckpointVerifier;
  /** The cosignature line(s) of the note text, each ending in a newline. */
  readonly cosign: (text: string) => string;
}

/** The media type of a 409's body (the size the witness knows). */
export const TLOG_SIZE_TYPE = 'text/x.tlog.size';
const COSIGNATURE_TYPE = 'text/plain; charset=utf-8';

const STATUS_OF = { malformed: 400, unknown_log: 404, bad_signature: 403 } as const;
const CODE_OF = { 400: 'invalid_request', 403: 'unknown_log_key', 404: 'unknown_log', 409: 'conflict', 422: 'inconsistent' } as const;

/** A JSON error answer with one fixed sentence (the reason names only what the request said). */
export function errorAnswer(status: keyof typeof CODE_OF, message: string): WitnessReply {
  return { status, contentType: 'application/json', body: JSON.stringify({ error: CODE_OF[status], message }) };
}

const sizeConflict = (size: number): WitnessReply => ({ status: 409, contentType: TLOG_SIZE_TYPE, body: `${size}\n` });

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

/** Whether `proof` shows `next` extends `known` (RFC 6962 §2.1.2 via the ledger's own verifier). */
function extendsView(known: LogView, next: VerifiedCheckpoint, proof: readonly Uint8Array[]): boolean {
  if (known.size === 0) return true;
  const verdict = verifyConsistency({
    format: 'rfc6962',
    fromSize: known.size,
    toSize: next.size,
    fromRoot: toHex(known.root),
    toRoot: toHex(next.root),
    proof: proof.map(toHex),
    algorithm: 'rfc6962',
  });
  return verdict.ok;
}

type Decision = { readonly next: LogView | null; readonly result: WitnessReply | null };

function decide(current: LogView | null, oldSize: number, proof: readonly Uint8Array[], cp: VerifiedCheckpoint): Decision {
  const known = current ?? { size: 0, root: new Uint8Array(32) };
  if (oldSize !== known.size) return { next: null, result: sizeConflict(known.size) };
  if (cp.size === known.size) {
    // The same size again: only the very same tree may be cosigned again (else it is a fork).
    if (current !== null && !sameBytes(cp.root, known.root)) return { next: null, result: sizeConflict(known.size) };
    return { next: current === null ? { size: cp.size, root: cp.root } : null, result: null };
  }
  if (!extendsView(known, cp, proof))
    return { next: null, result: errorAnswer(422, 'The consistency proof does not lead from the recorded checkpoint to this one.') };
  return { next: { size: cp.size, root: cp.root }, result: null };
}

/** Answers one add-checkpoint body. */
export async function addCheckpoint(config: Readonly<AddCheckpointConfig>, body: string): Promise<WitnessReply> {
  const parsed = parseAddCheckpoint(body);
  if (!parsed.ok) return errorAnswer(400, `The request body is malformed: ${parsed.reason}.`);
  const { oldSize, proof, note } = parsed.request;
  const read = config.verify(note);
  if (!read.ok) return errorAnswer(STATUS_OF[read.kind], `The checkpoint was refused: ${read.reason}.`);
  const cp = read.checkpoint;
  if (oldSize > cp.size) return errorAnswer(400, 'The old size is larger than the checkpoint size.');
  const refusal = await config.state.update(cp.origin, (current) => decide(current, oldSize, proof, cp));
  if (refusal !== null) return refusal;
  return { status: 200, contentType: COSIGNATURE_TYPE, body: config.cosign(cp.text) };
}
