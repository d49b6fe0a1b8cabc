/**
 * The receipt of a paid answer and its canonical form, signature and checks
 * (docs/contract.md#receipts).
 *
 * Field order is the contract: a verifier takes the received JSON, drops `signature` and
 * re-serializes the rest in the order it arrived, so the receipt is built with its keys in the
 * contract's order followed by the extension `ledgerIndex` (docs/contract.md#receipts), which is
 * therefore part of the signed canonical form.
 *
 * Signing is injected (bytes in, signature out) so the worker pool can do it off the event loop.
 */
import { encodeBase58 } from '../chain/solana/base58.ts';
import { formatUsd } from '../catalog/format-usd.ts';
import { sha256, sha256Hex, toHex } from '../ledger/merkle-hash.ts';
import type { SignBytes } from '../tlog/checkpoint.ts';

/** `signature.scheme` of every receipt (docs/contract.md#receipts). */
export const RECEIPT_SIGNATURE_SCHEME = 'ed25519-detached(utf8(canonicalReceipt))';
/** Header carrying the base64 receipt on a paid 200 (docs/contract.md#receipts). */
export const RECEIPT_HEADER = 'X-Service-Receipt';
/** The generic alternative header name the contract allows (docs/contract.md#receipts). */
export const RECEIPT_HEADER_ALT = 'X-Intelligence-Receipt';
/** The receipt fields in signed (canonical) order: the contract's order, then `ledgerIndex`. */
export const RECEIPT_FIELD_ORDER = [
  'schema',
  'service',
  'resource',
  'endpoint',
  'priceUsd',
  'priceUsdcUnits',
  'network',
  'serviceVersion',
  'requestSha256',
  'responseSha256',
  'responseBytes',
  'ledgerChainHead',
  'generatedAtUtc',
  'ledgerIndex',
] as const;

/** Everything a receipt says except its signature, in canonical key order. */
export interface UnsignedReceipt {
  readonly schema: string;
  readonly service: string;
  /** Path plus query exactly as served. */
  readonly resource: string;
  readonly endpoint: string;
  readonly priceUsd: string;
  readonly priceUsdcUnits: number;
  readonly network: string;
  readonly serviceVersion: string;
  readonly requestSha256: string;
  readonly responseSha256: string;
  readonly responseBytes: number;
  /** Chain head when issued: the `prevHash` of this receipt's own ledger entry. */
  readonly ledgerChainHead: string;
  readonly generatedAtUtc: string;
  /** Index of the ledger entry that carries SHA-256(canonicalReceipt). */
  readonly ledgerIndex: number;
}

/** The receipt's `signature` object (docs/contract.md#receipts). */
export interface ReceiptSignature {
  readonly scheme: string;
  readonly signatureBase58: string;
  readonly signedBy: string;
  readonly verify: string;
}

/** A signed receipt. */
export interface Receipt extends UnsignedReceipt {
  readonly signature: ReceiptSignature;
}

/** What a receipt is built from. */
export interface ReceiptFields {
  readonly service: string;
  readonly serviceVersion: string;
  /** Path plus query as requested, e.g. `/v1/smri?mint=...` (Express' `originalUrl`). */
  readonly originalUrl: string;
  readonly endpoint: string;
  readonly priceUsdcUnits: number;
  readonly network: string;
  /** The exact response body. */
  readonly body: string | Uint8Array;
  readonly ledgerChainHead: string;
  readonly ledgerIndex: number;
  readonly generatedAt: Date;
}

/** Who signs and where a receipt can be verified. */
export interface ReceiptSigner {
  /** Base58 ed25519 public key of the service identity (`signedBy`). */
  readonly publicKey: string;
  readonly sign: SignBytes;
  /** `{base_url}/trust/verify`. */
  readonly verifyUrl: string;
}

/** The exact bytes of a body as sent. */
export function bodyBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** The unsigned receipt, keys in canonical order. */
export function buildUnsignedReceipt(f: ReceiptFields): UnsignedReceipt {
  const bytes = bodyBytes(f.body);
  return {
    schema: `${f.service}.intelligence-receipt.v1`,
    service: f.service,
    resource: f.originalUrl,
    endpoint: f.endpoint,
    priceUsd: formatUsd(f.priceUsdcUnits),
    priceUsdcUnits: f.priceUsdcUnits,
    network: f.network,
    serviceVersion: f.serviceVersion,
    requestSha256: sha256Hex(`GET ${f.originalUrl}`),
    responseSha256: toHex(sha256(bytes)),
    responseBytes: bytes.byteLength,
    ledgerChainHead: f.ledgerChainHead,
    generatedAtUtc: f.generatedAt.toISOString(),
    ledgerIndex: f.ledgerIndex,
  };
}

/**
 * The canonical form (docs/contract.md#receipts): JSON of the receipt without `signature`, keys in
 * the order they stand in the object. For a receipt we built that is RECEIPT_FIELD_ORDER; for a
 * received one it is the order it arrived in, exactly what an independent verifier computes.
 */
export function canonicalReceipt(receipt: UnsignedReceipt | Receipt): string {
  const { signature: _signature, ...rest } = receipt as Receipt;
  return JSON.stringify(rest);
}

/** SHA-256 (hex) of the canonical receipt: the ledger entry's `receiptSha256`. */
export function receiptSha256(receipt: UnsignedReceipt | Receipt): string {
  return sha256Hex(canonicalReceipt(receipt));
}

/** Signs the canonical form and appends `signature` as the last key. */
export async function signReceipt(unsigned: UnsignedReceipt, signer: ReceiptSigner): Promise<Receipt> {
  return (await signCanonical(unsigned, canonicalReceipt(unsigned), signer)).receipt;
}

/** A signed receipt with its `X-Service-Receipt` value. */
export interface SignedReceipt {
  readonly receipt: Receipt;
  readonly headerValue: string;
}

/**
 * Signs `canonical` (`canonicalReceipt(unsigned)`, which the caller has already made for the
 * receipt's hash) and gives the header value too. The receipt's JSON is its canonical form with
 * `signature` as the last key, so the header is spliced from the one serialization: the paid path
 * used to serialize a receipt four times (hash, signature, and the header twice).
 */
export async function signCanonical(unsigned: UnsignedReceipt, canonical: string, signer: ReceiptSigner): Promise<SignedReceipt> {
  const bytes = await signer.sign(Buffer.from(canonical, 'utf8'));
  const signature: ReceiptSignature = {
    scheme: RECEIPT_SIGNATURE_SCHEME,
    signatureBase58: encodeBase58(bytes),
    signedBy: signer.publicKey,
    verify: signer.verifyUrl,
  };
  const json = `${canonical.slice(0, -1)},"signature":${JSON.stringify(signature)}}`;
  return { receipt: { ...unsigned, signature }, headerValue: Buffer.from(json, 'utf8').toString('base64') };
}

/** Builds and signs a receipt in one step (when the ledger slot is already known). */
export function buildReceipt(fields: ReceiptFields, signer: ReceiptSigner): Promise<Receipt> {
  return signReceipt(buildUnsignedReceipt(fields), signer);
}

/** The `X-Service-Receipt` header value: base64 of the receipt JSON as built (docs/contract.md#receipts). */
export function receiptHeaderValue(receipt: Receipt): string {
  return Buffer.from(JSON.stringify(receipt), 'utf8').toString('base64');
}

/** Longest receipt header value accepted for decoding, characters (a receipt is ~1 kB). */
export const MAX_RECEIPT_HEADER_CHARS = 8192;
const BASE64_RE = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Decodes a receipt header value (base64 or base64url of a JSON object); malformed input is data. */
export function decodeReceiptHeader(value: string): { ok: true; receipt: Receipt } | { ok: false; reason: string } {
  const text = value.trim();
  if (text.length === 0 || text.length > MAX_RECEIPT_HEADER_CHARS || !BASE64_RE.test(text))
    return { ok: false, reason: 'receipt must be base64 of the receipt JSON' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'));
  } catch {
    return { ok: false, reason: 'receipt is not base64 of JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, reason: 'receipt JSON must be an object' };
  return { ok: true, receipt: parsed as Receipt };
}
