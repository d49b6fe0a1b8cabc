/**
 * Checkpoint bodies (C2SP tlog-checkpoint): the note text `<origin>\n<tree size>\n<base64 RFC 6962
 * root>\n` followed by optional non-empty extension lines, signed as a note (signed-note.ts). The
 * root is the ledger's RFC 6962 root, the same as `format=rfc6962` proofs and
 * `/trust/checkpoint`'s `rootHash.rfc6962`.
 */
import { HASH_BYTES } from '../ledger/merkle-hash.ts';
import { decodeBase64Strict, type NoteResult, type NoteSigner, type NoteVerifierKey, signNote, type VerifiedNote, verifyNote } from './signed-note.ts';

const TREE_SIZE_RE = /^(?:0|[1-9][0-9]{0,15})$/;

/** The content of a checkpoint. */
export interface TlogCheckpoint {
  /** The log's name; by convention also its note key name. */
  readonly origin: string;
  readonly treeSize: number;
  /** 32-byte RFC 6962 Merkle tree hash of the first `treeSize` leaves. */
  readonly rootHash: Uint8Array;
  /** Opaque extension lines (without newlines); usually none. */
  readonly extensions: readonly string[];
}

function lineProblem(line: string): boolean {
  return line.length === 0 || line.includes('\n');
}

/** The note text of a checkpoint (ends in a newline). Throws on a malformed checkpoint: a caller bug. */
export function formatCheckpointText(c: TlogCheckpoint): string {
  if (lineProblem(c.origin)) throw new TypeError('checkpoint origin must be one non-empty line');
  if (!Number.isSafeInteger(c.treeSize) || c.treeSize < 0) throw new TypeError('checkpoint tree size must be a non-negative safe integer');
  if (c.rootHash.length !== HASH_BYTES) throw new TypeError('checkpoint root hash must be 32 bytes');
  if (c.extensions.some(lineProblem)) throw new TypeError('checkpoint extension lines must be non-empty single lines');
  const lines = [c.origin, String(c.treeSize), Buffer.from(c.rootHash).toString('base64'), ...c.extensions];
  return `${lines.join('\n')}\n`;
}

/** Reads a checkpoint's note text (signature block already removed, e.g. `Note.text`). */
export function parseCheckpointText(text: string): NoteResult<TlogCheckpoint> {
  if (typeof text !== 'string' || !text.endsWith('\n')) return { ok: false, reason: 'checkpoint text must end with a newline' };
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3 || lines.some((l) => l.length === 0)) return { ok: false, reason: 'checkpoint needs origin, size and root lines, none empty' };
  const [origin, size, root] = lines as [string, string, string];
  if (!TREE_SIZE_RE.test(size) || !Number.isSafeInteger(Number(size))) return { ok: false, reason: 'checkpoint tree size is not a decimal integer' };
  const rootHash = decodeBase64Strict(root);
  if (!rootHash || rootHash.length !== HASH_BYTES) return { ok: false, reason: 'checkpoint root hash is not 32 bytes of base64' };
  return { ok: true, value: { origin, treeSize: Number(size), rootHash: new Uint8Array(rootHash), extensions: lines.slice(3) } };
}

/** Formats and signs a checkpoint; returns the signed note's wire form. */
export function signCheckpoint(c: TlogCheckpoint, signers: readonly NoteSigner[]): Promise<string> {
  return signNote(formatCheckpointText(c), signers);
}

/** A checkpoint whose note verified, with the verified note (other signatures, e.g. cosignatures, kept). */
export interface OpenedCheckpoint {
  readonly checkpoint: TlogCheckpoint;
  readonly note: VerifiedNote;
}

/**
 * Verifies a signed checkpoint against the log's key and reads its body. With `origin`, the
 * checkpoint's origin line must equal it (a log's checkpoints all carry its one origin).
 */
export function openCheckpoint(input: Uint8Array | string, logKey: NoteVerifierKey, origin?: string): NoteResult<OpenedCheckpoint> {
  const verified = verifyNote(input, [logKey]);
  if (!verified.ok) return verified;
  const body = parseCheckpointText(verified.value.text);
  if (!body.ok) return body;
  if (origin !== undefined && body.value.origin !== origin) return { ok: false, reason: 'checkpoint origin is not the expected log' };
  return { ok: true, value: { checkpoint: body.value, note: verified.value } };
}
