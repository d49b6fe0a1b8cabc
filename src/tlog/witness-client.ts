/**
 * The log's side of one tlog-witness `add-checkpoint` call: the body (old size, consistency proof
 * lines, empty line, checkpoint note), a bounded POST, and the answer read as data: the witness's
 * cosignature lines that verify against its key, the size it knows (409), or a refusal. A
 * witness's answer is adversarial input: lines that do not verify are dropped, and nothing of its
 * body or of its URL (which may carry credentials) reaches an error text.
 */

/** How long one add-checkpoint call may take, connect to last byte. */
export const WITNESS_CALL_TIMEOUT_MS = 5000;
/** Largest answer read from a witness. */
const MAX_ANSWER_BYTES = 64 * 1024;
const SIZE_RE = /^(?:0|[1-9]\d{0,15})\n$/;

/** One submission: the witness's known size, the proof from it, and the checkpoint note. */
export interface Submission {
  readonly oldSize: number;
  /** RFC 6962 consistency proof from oldSize to the checkpoint's size. */
  readonly proof: readonly Uint8Array[];
  readonly note: string;
}

/** What a witness answered. */
export type WitnessAnswer =
  /** The witness's cosignature lines that verified, each ending in a newline. */
  | { readonly kind: 'cosigned'; readonly lines: readonly string[] }
  | { readonly kind: 'conflict'; readonly size: number }
  | { readonly kind: 'refused'; readonly reason: string };

export interface WitnessClientConfig {
  /** The witness's submission prefix (…/add-checkpoint is appended). */
  readonly url: string;
  /** Keeps the lines that are this witness's valid cosignatures of the submitted note. */
  readonly acceptCosignatures: (lines: readonly string[], note: string) => Promise<readonly string[]>;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

/** The add-checkpoint body of a submission. */
export function addCheckpointBody(s: Submission): string {
  const proof = s.proof.map((h) => `${Buffer.from(h).toString('base64')}\n`).join('');
  return `old ${s.oldSize}\n${proof}\n${s.note}`;
}

/** The answer's text, or null past MAX_ANSWER_BYTES (read no further: a witness is untrusted). */
async function readCapped(res: Response): Promise<string | null> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    if (bytes > MAX_ANSWER_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends one submission; a network fault, a timeout or an abort is a refusal with a fixed reason. */
export async function submitCheckpoint(config: Readonly<WitnessClientConfig>, s: Submission, signal?: AbortSignal): Promise<WitnessAnswer> {
  const timeout = AbortSignal.timeout(config.timeoutMs ?? WITNESS_CALL_TIMEOUT_MS);
  const url = `${config.url.replace(/\/+$/, '')}/add-checkpoint`;
  let res: Response;
  try {
    res = await (config.fetch ?? fetch)(url, {
      method: 'POST',
      body: addCheckpointBody(s),
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch {
    return { kind: 'refused', reason: timeout.aborted ? 'no answer in time' : signal?.aborted ? 'aborted' : 'unreachable' };
  }
  const text = await readCapped(res).catch(() => null);
  if (text === null) return { kind: 'refused', reason: `HTTP ${res.status} with an unreadable body` };
  if (res.status === 409 && SIZE_RE.test(text)) return { kind: 'conflict', size: Number(text.trim()) };
  if (res.status !== 200) return { kind: 'refused', reason: `HTTP ${res.status}` };
  const lines = await config.acceptCosignatures(
    text.split('\n').filter((l) => l !== ''),
    s.note,
  );
  return lines.length > 0 ? { kind: 'cosigned', lines } : { kind: 'refused', reason: 'no cosignature by its key verified' };
}
