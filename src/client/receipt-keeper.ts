/**
 * What the client does with a paid answer's receipt: saves it beside the exact body (with a
 * directory), and checks it offline (when asked): the service's signature under the key the client
 * holds, the body's hash, the request and price it names. The key is the one given, or the one
 * `/trust/pubkey` publishes, read once (trust on first use: pin it with `publicKey` to trust no
 * answer of the service's about its own key).
 */
import { type CheckReport, verifyReceiptOffline } from '../receipt-checks/receipt-check.ts';
import type { ReceiptOutcome } from './call-result.ts';
import type { ClientHttp, HttpAnswer } from './client-http.ts';
import { type DecodedReceipt, saveReceiptFiles } from './receipt-files.ts';
import type { Terms } from './x402-wire.ts';

/** What to do with receipts. */
export interface ReceiptOptions {
  /** Save each paid answer's receipt and body here (created when absent; never overwritten). */
  readonly dir?: string;
  /** Check each receipt offline; the result is the answer's `verification`. */
  readonly verify?: boolean;
  /** The service's base58 ed25519 key to check against (default: read once from /trust/pubkey). */
  readonly publicKey?: string;
}

const failed = (name: string, detail: string): CheckReport => ({ ok: false, lines: [{ name, ok: false, detail }] });

/** Saves and checks a paid answer's receipt; null when asked to do neither (the receipt is then decoded only when read). */
export type ReceiptKeeper = ((decoded: DecodedReceipt | null, answer: HttpAnswer, resource: string, terms: Terms | null) => Promise<ReceiptOutcome>) | null;

export function createReceiptKeeper(options: ReceiptOptions, http: ClientHttp, timeoutMs: number): ReceiptKeeper {
  if (!options.dir && !options.verify) return null;
  let key: Promise<string | null> | null = options.publicKey ? Promise.resolve(options.publicKey) : null;

  async function publishedKey(): Promise<string | null> {
    try {
      const answer = await http.get('/trust/pubkey', {}, timeoutMs);
      const value = answer.status === 200 ? (JSON.parse(answer.bytes.toString('utf8')) as { publicKey?: unknown }).publicKey : null;
      return typeof value === 'string' ? value : null;
    } catch {
      return null;
    }
  }

  async function verify(decoded: DecodedReceipt | null, answer: HttpAnswer, resource: string, terms: Terms | null): Promise<CheckReport> {
    if (!decoded) return failed('the answer carries a receipt (X-Service-Receipt)', 'none readable');
    key ??= publishedKey();
    const publicKey = await key;
    if (publicKey === null) {
      key = null;
      return failed('the service key is known (/trust/pubkey)', 'not readable now');
    }
    return verifyReceiptOffline(decoded.receipt as Record<string, unknown>, publicKey, answer.bytes, {
      resource,
      ...(terms ? { priceUnits: Number(terms.amount) } : {}),
    });
  }

  return async (decoded: DecodedReceipt | null, answer: HttpAnswer, resource: string, terms: Terms | null): Promise<ReceiptOutcome> => {
    let saved = null;
    let saveError = null;
    if (options.dir && decoded) {
      try {
        saved = await saveReceiptFiles(options.dir, decoded, answer.bytes);
      } catch (err) {
        saveError = `the receipt could not be saved under ${options.dir}: ${(err as Error).message}`;
      }
    }
    const verification = options.verify ? await verify(decoded, answer, resource, terms) : null;
    return { saved, saveError, verification };
  };
}
