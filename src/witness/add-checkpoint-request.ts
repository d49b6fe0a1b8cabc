/**
 * The body of a tlog-witness `add-checkpoint` request, read strictly: `old <size>`, at most 63
 * consistency proof lines (one base64 SHA-256 hash each), an empty line, then the checkpoint note
 * as sent. Anything else is a 400 with the reason; the note itself is read by the caller.
 */

/** The most consistency proof lines a request may carry (tlog-witness). */
export const MAX_PROOF_LINES = 63;
/** Largest request body accepted: a checkpoint with a few dozen signatures and a full proof fit many times. */
export const MAX_ADD_CHECKPOINT_BYTES = 64 * 1024;
const HASH_BYTES = 32;
const DECIMAL_RE = /^(?:0|[1-9]\d{0,15})$/;
const BASE64_RE = /^[A-Za-z0-9+/]+={0,2}$/;

/** A request read from its body. */
export interface AddCheckpointRequest {
  readonly oldSize: number;
  readonly proof: readonly Uint8Array[];
  /** The checkpoint note, byte for byte as sent (text and signature lines). */
  readonly note: string;
}

export type ParsedRequest = { readonly ok: true; readonly request: AddCheckpointRequest } | { readonly ok: false; readonly reason: string };

/** An ASCII decimal with no leading zeroes as a safe integer, or null. */
export function parseDecimal(text: string): number | null {
  if (!DECIMAL_RE.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** A base64 SHA-256 hash, or null when the text is not exactly that. */
export function parseHashLine(line: string): Uint8Array | null {
  if (!BASE64_RE.test(line)) return null;
  const bytes = Buffer.from(line, 'base64');
  return bytes.length === HASH_BYTES && bytes.toString('base64') === line ? new Uint8Array(bytes) : null;
}

/** Reads an add-checkpoint body (UTF-8 text). */
export function parseAddCheckpoint(body: string): ParsedRequest {
  const fail = (reason: string): ParsedRequest => ({ ok: false, reason });
  const firstBreak = body.indexOf('\n');
  if (firstBreak < 0) return fail('the body must start with an "old <size>" line');
  const oldLine = body.slice(0, firstBreak);
  if (!oldLine.startsWith('old ')) return fail('the body must start with an "old <size>" line');
  const oldSize = parseDecimal(oldLine.slice(4));
  if (oldSize === null) return fail('the old size must be a decimal with no leading zeroes');
  const proof: Uint8Array[] = [];
  let at = firstBreak + 1;
  for (;;) {
    const end = body.indexOf('\n', at);
    if (end < 0) return fail('an empty line must separate the proof from the checkpoint');
    const line = body.slice(at, end);
    at = end + 1;
    if (line === '') break;
    if (proof.length === MAX_PROOF_LINES) return fail(`a consistency proof has at most ${MAX_PROOF_LINES} lines`);
    const hash = parseHashLine(line);
    if (hash === null) return fail(`proof line ${proof.length + 1} is not a base64 SHA-256 hash`);
    proof.push(hash);
  }
  if (oldSize === 0 && proof.length > 0) return fail('the proof must be empty when the old size is 0');
  return { ok: true, request: { oldSize, proof, note: body.slice(at) } };
}
