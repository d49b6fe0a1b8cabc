/**
 * The c2sp.org/tlog-proof@v1 text: a header line, an optional `extra <base64>` line, `index <n>`,
 * the RFC 6962 inclusion proof (one base64 hash a line, leaf's sibling first), an empty line, then
 * the checkpoint verbatim (with any cosignatures). We carry the ledger entry (its JSON) as the
 * extra data: the leaf is SHA-256 of it, so a verifier holding only the receipt can recompute it.
 * Browser-safe; every input is adversarial: a malformed proof is a reason, never a throw.
 */
import { base64Bytes, bytesBase64 } from './client-crypto.ts';

/** The first line of every proof. */
export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';
/** File name ending of a saved proof (tlog-proof recommends it). */
export const TLOG_PROOF_SUFFIX = '.tlog-proof';
const MAX_PROOF_HASHES = 63;
const HASH_BYTES = 32;
const INDEX_RE = /^index (0|[1-9]\d{0,15})$/;

/** The parts of a proof. */
export interface TlogProof {
  readonly index: number;
  readonly extra: Uint8Array | null;
  /** Inclusion proof hashes, bottom-up. */
  readonly proof: readonly Uint8Array[];
  /** The checkpoint note as carried (text, empty line, signature lines). */
  readonly checkpoint: string;
}

/** The proof as text. */
export function formatTlogProof(p: TlogProof): string {
  const extra = p.extra ? `extra ${bytesBase64(p.extra)}\n` : '';
  const hashes = p.proof.map((h) => `${bytesBase64(h)}\n`).join('');
  return `${TLOG_PROOF_HEADER}\n${extra}index ${p.index}\n${hashes}\n${p.checkpoint}`;
}

/** Reads a proof; the checkpoint is returned as is, for the caller to verify. */
export function parseTlogProof(text: string): { ok: true; proof: TlogProof } | { ok: false; reason: string } {
  const fail = (reason: string) => ({ ok: false as const, reason });
  const blank = text.indexOf('\n\n');
  if (blank < 0) return fail('no empty line before the checkpoint');
  const head = text.slice(0, blank).split('\n');
  if (head.shift() !== TLOG_PROOF_HEADER) return fail(`the first line is not ${TLOG_PROOF_HEADER}`);
  let extra: Uint8Array | null = null;
  if (head[0]?.startsWith('extra ')) {
    extra = base64Bytes(head.shift()!.slice(6));
    if (extra === null) return fail('the extra line is not base64');
  }
  const indexLine = INDEX_RE.exec(head.shift() ?? '');
  const index = indexLine ? Number(indexLine[1]) : Number.NaN;
  if (!Number.isSafeInteger(index)) return fail('no "index <n>" line');
  if (head.length > MAX_PROOF_HASHES) return fail('the inclusion proof is longer than any tree allows');
  const proof: Uint8Array[] = [];
  for (const line of head) {
    const hash = base64Bytes(line);
    if (hash?.length !== HASH_BYTES) return fail(`proof line ${proof.length + 1} is not a base64 SHA-256 hash`);
    proof.push(hash);
  }
  return { ok: true, proof: { index, extra, proof, checkpoint: text.slice(blank + 2) } };
}
