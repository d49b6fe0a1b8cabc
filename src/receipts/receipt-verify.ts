/**
 * Receipt verification (docs/contract.md#receipts, plus the ledger link of #ledger-entries), each
 * check answered separately as data so `/trust/verify` can say exactly what holds. The receipt is
 * adversarial input: a malformed field fails its check with a reason, never throws.
 */
import { decodeBase58 } from '../chain/solana/base58.ts';
import { verifyEd25519 } from '../tlog/checkpoint.ts';
import type { Ledger } from '../ledger/ledger.ts';
import { sha256, toHex } from '../ledger/merkle-hash.ts';
import { verifyInclusionSpec } from '../ledger/merkle-verify.ts';
import { bodyBytes, canonicalReceipt, RECEIPT_FIELD_ORDER, RECEIPT_SIGNATURE_SCHEME, receiptSha256, type Receipt } from './receipt.ts';

/** Outcome of one check; `skipped` when its input was not given. */
export interface ReceiptCheck {
  readonly status: 'pass' | 'fail' | 'skipped';
  readonly detail: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** Every check of a receipt; `valid` when signature and signer pass and nothing failed. */
export interface ReceiptVerification {
  readonly valid: boolean;
  /** SHA-256 of the canonical receipt: what the ledger entry carries. */
  readonly receiptSha256: string;
  readonly checks: {
    readonly fields: ReceiptCheck;
    readonly signature: ReceiptCheck;
    readonly signedBy: ReceiptCheck;
    readonly responseSha256: ReceiptCheck;
    readonly ledgerInclusion: ReceiptCheck;
  };
}

/** What verification is checked against. */
export interface VerifyReceiptOptions {
  /** The published key (`/trust/pubkey`), base58. */
  readonly publicKey: string;
  /** The saved response body, exactly as received. */
  readonly body?: string | Uint8Array;
  /** Or only its SHA-256, hex. */
  readonly bodySha256?: string;
  /** The ledger, for the inclusion check of `ledgerIndex`. */
  readonly ledger?: Pick<Ledger, 'entry' | 'proof'>;
}

const pass = (detail: string, data?: Readonly<Record<string, unknown>>): ReceiptCheck => (data ? { status: 'pass', detail, data } : { status: 'pass', detail });
const fail = (detail: string): ReceiptCheck => ({ status: 'fail', detail });
const skipped = (detail: string): ReceiptCheck => ({ status: 'skipped', detail });
const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

function checkFields(r: Receipt): ReceiptCheck {
  const keys = Object.keys(r);
  const expected = [...RECEIPT_FIELD_ORDER, 'signature'];
  if (keys.join(',') !== expected.join(',')) return fail(`fields must be exactly, in order: ${expected.join(', ')}`);
  const strings = RECEIPT_FIELD_ORDER.filter((k) => k !== 'priceUsdcUnits' && k !== 'responseBytes' && k !== 'ledgerIndex');
  const notString = strings.find((k) => typeof r[k] !== 'string');
  if (notString) return fail(`${notString} must be a string`);
  const notCount = (['priceUsdcUnits', 'responseBytes', 'ledgerIndex'] as const).find((k) => !isCount(r[k]));
  if (notCount) return fail(`${notCount} must be a non-negative integer`);
  if (!r.schema.endsWith('.intelligence-receipt.v1')) return fail('schema must be <service>.intelligence-receipt.v1');
  return pass('every contract receipt field, then ledgerIndex, then signature, in order');
}

function checkSignature(r: Receipt, canonical: string): ReceiptCheck {
  const sig = r.signature;
  if (typeof sig !== 'object' || sig === null) return fail('signature object is missing');
  if (sig.scheme !== RECEIPT_SIGNATURE_SCHEME) return fail(`signature.scheme must be ${RECEIPT_SIGNATURE_SCHEME}`);
  const key = typeof sig.signedBy === 'string' ? decodeBase58(sig.signedBy) : null;
  const bytes = typeof sig.signatureBase58 === 'string' ? decodeBase58(sig.signatureBase58) : null;
  if (key?.length !== 32) return fail('signature.signedBy must be a base58 32-byte ed25519 public key');
  if (bytes?.length !== 64) return fail('signature.signatureBase58 must be a base58 64-byte signature');
  const ok = verifyEd25519(key, Buffer.from(canonical, 'utf8'), bytes);
  return ok
    ? pass('ed25519 signature over utf8(canonicalReceipt) verifies with signedBy')
    : fail('ed25519 signature does not verify over utf8(canonicalReceipt)');
}

function checkBody(r: Receipt, options: VerifyReceiptOptions): ReceiptCheck {
  if (options.body !== undefined) {
    const bytes = bodyBytes(options.body);
    const digest = toHex(sha256(bytes));
    if (digest !== r.responseSha256) return fail(`sha256 of the body is ${digest}, not responseSha256`);
    if (bytes.byteLength !== r.responseBytes) return fail(`the body has ${bytes.byteLength} bytes, not responseBytes`);
    return pass('sha256 of the saved body equals responseSha256');
  }
  if (options.bodySha256 !== undefined) {
    return options.bodySha256.toLowerCase() === r.responseSha256 ? pass('bodySha256 equals responseSha256') : fail('bodySha256 differs from responseSha256');
  }
  return skipped('give the saved body (or its sha256) to check responseSha256');
}

function checkLedger(r: Receipt, digest: string, ledger: VerifyReceiptOptions['ledger']): ReceiptCheck {
  if (!ledger) return skipped('no ledger to check against');
  if (!isCount(r.ledgerIndex)) return fail('ledgerIndex must be a non-negative integer');
  const entry = ledger.entry(r.ledgerIndex);
  if (!entry) return fail(`the ledger has no entry ${r.ledgerIndex}`);
  if (entry.kind !== 'payment' || entry.receiptSha256 !== digest) return fail(`ledger entry ${r.ledgerIndex} does not carry sha256(canonicalReceipt)`);
  if (entry.prevHash !== r.ledgerChainHead) return fail(`ledgerChainHead is not the prevHash of ledger entry ${r.ledgerIndex}`);
  const proof = ledger.proof(r.ledgerIndex);
  if (!proof.ok) return fail(proof.reason);
  const verdict = verifyInclusionSpec(proof.value);
  if (!verdict.ok) return fail(verdict.reason);
  const { merkleRootSha256, treeSize } = proof.value;
  return pass(`entry ${r.ledgerIndex} carries sha256(canonicalReceipt) and is included in the Merkle root`, {
    entrySha256: entry.entrySha256,
    merkleRootSha256,
    treeSize,
  });
}

/** Runs every check of docs/contract.md#receipts and the ledger link on `receipt`. */
export function verifyReceipt(receipt: Receipt, options: VerifyReceiptOptions): ReceiptVerification {
  if (typeof receipt !== 'object' || receipt === null || Array.isArray(receipt)) {
    const no = fail('the receipt is not a JSON object');
    return { valid: false, receiptSha256: '', checks: { fields: no, signature: no, signedBy: no, responseSha256: no, ledgerInclusion: no } };
  }
  const canonical = canonicalReceipt(receipt);
  const digest = receiptSha256(receipt);
  const signedBy = receipt.signature?.signedBy;
  const checks = {
    fields: checkFields(receipt),
    signature: checkSignature(receipt, canonical),
    signedBy: signedBy === options.publicKey ? pass('signedBy equals the published key') : fail('signedBy is not the published key (/trust/pubkey)'),
    responseSha256: checkBody(receipt, options),
    ledgerInclusion: checkLedger(receipt, digest, options.ledger),
  };
  const valid = checks.signature.status === 'pass' && checks.signedBy.status === 'pass' && Object.values(checks).every((c) => c.status !== 'fail');
  return { valid, receiptSha256: digest, checks };
}
