/**
 * Receipts kept on disk beside the exact bytes they cover: `<ledger index>-<endpoint>.receipt.json`
 * (the decoded X-Service-Receipt, byte for byte as signed, so its key order survives) and
 * `<same>.body.json` (the answer's bytes), so that verify-receipt finds the body by itself. A file
 * is never overwritten: a second service's ledger can reuse an index, and then a suffix is added.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseReceipt } from '../receipt-checks/receipt-check.ts';
import { CliError, EXIT } from './cli-error.ts';

/** File name endings of a saved receipt and of the body it covers. */
export const RECEIPT_SUFFIX = '.receipt.json';
export const BODY_SUFFIX = '.body.json';
/** Ending of the x402 `offer-receipt` receipt saved beside ours (the signed object as the settlement carried it). */
export const X402_RECEIPT_SUFFIX = '.x402-receipt.json';
/** Where receipts go when --receipt-dir is absent (relative to the working directory). */
export const DEFAULT_RECEIPT_DIR = 'x402-receipts';
/** Digits the ledger index is padded to, so a directory listing sorts in ledger order. */
const INDEX_DIGITS = 6;

type Receipt = Record<string, unknown>;

/** A receipt with the exact JSON text it was decoded from. */
export interface DecodedReceipt {
  readonly text: string;
  readonly receipt: Receipt;
}

/** The X-Service-Receipt header (base64 of the receipt JSON) decoded, or null when it is not a receipt. */
export function decodeReceiptHeader(header: string | null): DecodedReceipt | null {
  if (!header) return null;
  const text = Buffer.from(header.trim(), 'base64').toString('utf8');
  const parsed = parseReceipt(text);
  return parsed.ok ? { text, receipt: parsed.receipt } : null;
}

/** `000042-v1-lending-markets`: the ledger index and the endpoint, safe as a file name. */
export function receiptStem(receipt: Receipt): string {
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

/** Writes the receipt and the body under `dir` (created when absent) with fresh names. */
export function saveReceipt(dir: string, decoded: DecodedReceipt, body: Uint8Array): SavedReceipt {
  try {
    mkdirSync(dir, { recursive: true });
    const stem = receiptStem(decoded.receipt);
    let name = stem;
    for (let n = 2; existsSync(join(dir, name + RECEIPT_SUFFIX)) || existsSync(join(dir, name + BODY_SUFFIX)); n++) name = `${stem}-${n}`;
    const saved = { receiptFile: join(dir, name + RECEIPT_SUFFIX), bodyFile: join(dir, name + BODY_SUFFIX) };
    writeFileSync(saved.bodyFile, body, { flag: 'wx' });
    writeFileSync(saved.receiptFile, `${decoded.text}\n`, { flag: 'wx' });
    return saved;
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
