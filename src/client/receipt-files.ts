/**
 * Receipts kept on disk beside the exact bytes they cover: `<ledger index>-<endpoint>.receipt.json`
 * (the decoded X-Service-Receipt, byte for byte as signed, so its key order survives) and
 * `<same>.body.json` (the answer's bytes), so that `x402-intel verify-receipt` finds the body by
 * itself. A file is never overwritten: a second service's ledger can reuse an index, and then a
 * suffix is added. The library saves here when given a directory; the CLI saves the same way.
 */
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseReceipt } from '../receipt-checks/receipt-check.ts';

/** File name endings of a saved receipt and of the body it covers. */
export const RECEIPT_SUFFIX = '.receipt.json';
export const BODY_SUFFIX = '.body.json';
/** Digits the ledger index is padded to, so a directory listing sorts in ledger order. */
const INDEX_DIGITS = 6;
/** Names tried for one receipt before giving up (`stem`, `stem-2`, ...). */
const MAX_NAME_TRIES = 1000;

/** A service receipt as parsed JSON (its fields: docs/trust-and-proofs.md#receipts). */
export type ServiceReceipt = Readonly<Record<string, unknown>>;

/** A receipt with the exact JSON text it was decoded from. */
export interface DecodedReceipt {
  readonly text: string;
  readonly receipt: ServiceReceipt;
}

/** The X-Service-Receipt header (base64 of the receipt JSON) decoded, or null when it is not a receipt. */
export function decodeReceiptHeader(header: string | null | undefined): DecodedReceipt | null {
  if (!header) return null;
  const text = Buffer.from(header.trim(), 'base64').toString('utf8');
  const parsed = parseReceipt(text);
  return parsed.ok ? { text, receipt: parsed.receipt } : null;
}

/** `000042-v1-lending-markets`: the ledger index and the endpoint, safe as a file name. */
export function receiptStem(receipt: ServiceReceipt): string {
  const index = Number.isSafeInteger(receipt.ledgerIndex) ? String(receipt.ledgerIndex).padStart(INDEX_DIGITS, '0') : 'unindexed';
  const endpoint = typeof receipt.endpoint === 'string' ? receipt.endpoint : 'answer';
  const slug =
    endpoint
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'answer';
  return `${index}-${slug}`;
}

/** Where a receipt and its body were written. */
export interface SavedReceipt {
  readonly receiptFile: string;
  readonly bodyFile: string;
}

const exists = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'EEXIST';

/**
 * Writes the receipt and the body under `dir` (created when absent), off the event loop, for the
 * library's calls and the CLI's alike; throws the file system's error. The fresh name is found by
 * exclusive creation (`wx`), so saves at once never share a name. It resolves once both files are
 * written (not flushed to the disk: a process crash loses none reported saved; a power loss may
 * lose the last ones).
 */
export async function saveReceiptFiles(dir: string, decoded: DecodedReceipt, body: Uint8Array): Promise<SavedReceipt> {
  await mkdir(dir, { recursive: true });
  const stem = receiptStem(decoded.receipt);
  for (let n = 1; n <= MAX_NAME_TRIES; n++) {
    const name = n === 1 ? stem : `${stem}-${n}`;
    const saved = { receiptFile: join(dir, name + RECEIPT_SUFFIX), bodyFile: join(dir, name + BODY_SUFFIX) };
    try {
      await writeFile(saved.bodyFile, body, { flag: 'wx' });
    } catch (err) {
      if (exists(err)) continue;
      throw err;
    }
    try {
      await writeFile(saved.receiptFile, `${decoded.text}\n`, { flag: 'wx' });
    } catch (err) {
      await unlink(saved.bodyFile).catch(() => undefined);
      if (exists(err)) continue;
      throw err;
    }
    return saved;
  }
  throw new Error(`no free name for ${stem} after ${MAX_NAME_TRIES} tries`);
}
