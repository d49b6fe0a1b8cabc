/**
 * Receipts kept on disk beside the exact bytes they cover: `<ledger index>-<endpoint>.receipt.json`
 * (the decoded X-Service-Receipt, byte for byte as signed, so its key order survives) and
 * `<same>.body.json` (the answer's bytes), so that verify-receipt finds the body by itself. A file
 * is never overwritten: a second service's ledger can reuse an index, and then a suffix is added.
 * The naming and writing are the client library's (src/client/receipt-files.ts); the CLI adds the
 * x402 receipt beside them and its exit status when a file cannot be written.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { BODY_SUFFIX, type DecodedReceipt, RECEIPT_SUFFIX, type SavedReceipt, saveReceiptFiles } from '../client/receipt-files.ts';
import { CliError, EXIT } from './cli-error.ts';

// The files are the client library's: a bot's saved receipts and the CLI's are the same.
export { BODY_SUFFIX, type DecodedReceipt, decodeReceiptHeader, RECEIPT_SUFFIX, receiptStem, type SavedReceipt } from '../client/receipt-files.ts';

/** Ending of the x402 `offer-receipt` receipt saved beside ours (the signed object as the settlement carried it). */
export const X402_RECEIPT_SUFFIX = '.x402-receipt.json';
/** Where receipts go when --receipt-dir is absent (relative to the working directory). */
export const DEFAULT_RECEIPT_DIR = 'x402-receipts';

/** Writes the receipt and the body under `dir` (created when absent) with fresh names; a failure is exit 1 (the call was paid). */
export async function saveReceipt(dir: string, decoded: DecodedReceipt, body: Uint8Array): Promise<SavedReceipt> {
  try {
    return await saveReceiptFiles(dir, decoded, body);
  } catch (err) {
    throw new CliError('receipt_not_saved', `paid, but the receipt could not be saved under ${dir}: ${(err as Error).message}`, EXIT.failed);
  }
}

/** The body saved next to a receipt file, when there is one. */
export function bodyFileFor(receiptFile: string): string | null {
  if (!receiptFile.endsWith(RECEIPT_SUFFIX)) return null;
  const body = receiptFile.slice(0, -RECEIPT_SUFFIX.length) + BODY_SUFFIX;
  return existsSync(body) ? body : null;
}

/** The x402 extension receipt's file beside a receipt file (whether or not it exists). */
export function x402ReceiptFileFor(receiptFile: string): string | null {
  return receiptFile.endsWith(RECEIPT_SUFFIX) ? receiptFile.slice(0, -RECEIPT_SUFFIX.length) + X402_RECEIPT_SUFFIX : null;
}

/** Writes the x402 extension receipt beside a saved receipt; returns its file. */
export function saveX402Receipt(receiptFile: string, receipt: Readonly<Record<string, unknown>>): string {
  const file = x402ReceiptFileFor(receiptFile)!;
  try {
    writeFileSync(file, `${JSON.stringify(receipt)}\n`, { flag: 'wx' });
    return file;
  } catch (err) {
    throw new CliError('receipt_not_saved', `paid, but the x402 receipt could not be saved as ${file}: ${(err as Error).message}`, EXIT.failed);
  }
}

/** Reads a file as bytes; a missing file is a usage error naming the option. */
export function readInputFile(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new CliError('usage', `cannot read ${what} ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, EXIT.usage);
  }
}
