/**
 * The string work behind a kept 402: the `accepts` JSON with the live Solana fields spliced in,
 * and the base64 of a challenge whose long fixed tail is encoded once.
 */
import type { PaymentRequirements } from '../types/x402-types.ts';

/** Per-challenge values that change over time (kept out of `accepts`, which payments must match). */
export interface LiveTerms {
  /**
   * Extra fields spliced into the Solana option, e.g. a warm `recentBlockhash`; null for none.
   * The same object while the values stay the same, a new one when they change (never mutated).
   */
  readonly svmExtra: () => Readonly<Record<string, string>> | null;
}

/**
 * Renders `accepts` with live extra fields added to the Solana option (the first). `extra` is that
 * option's last key, so its closing `}}` is where the live fields go; the last rendering is reused
 * while the live values stay the same (a blockhash lives ~2 s in the cache).
 */
export function createAcceptsRenderer(accepts: readonly PaymentRequirements[], live?: LiveTerms): () => string {
  const staticJson = JSON.stringify(accepts);
  if (!live) return () => staticJson;
  const [svm, ...rest] = accepts;
  const svmJson = JSON.stringify(svm);
  const svmHead = svmJson.slice(0, -2);
  const restJson = rest.map((r) => `,${JSON.stringify(r)}`).join('');
  let lastKey = '';
  let lastJson = staticJson;
  let lastExtra: Readonly<Record<string, string>> | null = null;
  return () => {
    const extra = live.svmExtra();
    if (!extra) return staticJson;
    // The live terms hand out one object per value: the same object renders the same JSON.
    if (extra === lastExtra) return lastJson;
    lastExtra = extra;
    const fields = Object.entries(extra)
      .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
      .join('');
    if (fields !== lastKey) {
      lastKey = fields;
      lastJson = `[${svmHead}${fields}}}${restJson}]`;
    }
    return lastJson;
  };
}

/**
 * Base64 of `head + tail` where `tail` is fixed and long and `head` varies and is short: base64
 * works in 3-byte groups, so the tail's encoding only depends on where it starts modulo 3. The
 * tail is encoded once per alignment (from byte 0, 1 or 2, the skipped bytes going with the head),
 * and each call encodes only the head and the 0-2 tail bytes that complete its last group.
 */
export function createSplicedBase64(tail: string): (head: string) => string {
  // The bytes a head borrows are taken as characters: they must be one byte each.
  if (!(tail.charCodeAt(0) < 0x80 && tail.charCodeAt(1) < 0x80)) throw new Error('the fixed part must start with two ASCII characters');
  const tails = [0, 1, 2].map((skip) => Buffer.from(tail.slice(skip)).toString('base64'));
  return (head) => {
    const borrow = (3 - (Buffer.byteLength(head) % 3)) % 3;
    return Buffer.from(borrow === 0 ? head : head + tail.slice(0, borrow)).toString('base64') + tails[borrow];
  };
}
