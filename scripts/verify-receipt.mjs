#!/usr/bin/env node
/**
 * Proves by hand that a paid answer was signed and logged, with nothing but the receipt and the
 * service's public trust endpoints (docs/contract.md#receipts, /trust/sir). Independent of the
 * service's code: plain Node, tweetnacl, bs58 and node:crypto.
 *
 *   node scripts/verify-receipt.mjs <base-url> <receipt-base64-or-file> [body-file]
 *
 * <receipt-base64-or-file>: the X-Service-Receipt header value, or a file holding it (or the
 * receipt JSON). [body-file]: the saved response body, byte for byte.
 * Checks: the ed25519 signature over canonicalReceipt; signedBy equals /trust/pubkey; the body's
 * SHA-256 and length (when given); a signed checkpoint from /trust/checkpoint; /trust/proof at
 * the checkpoint's tree size: its entry carries SHA-256(canonicalReceipt), links to
 * ledgerChainHead and hashes to the leaf, and the contract's proof rule leads from the leaf to
 * the signed root.
 * Exit status 0 when every check passes, 1 when one fails, 2 on bad usage or unreachable service.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import bs58 from 'bs58';
import nacl from 'tweetnacl';

const RECEIPT_SCHEME = 'ed25519-detached(utf8(canonicalReceipt))';
const CHECKPOINT_SCHEME = 'ed25519-detached(utf8(canonicalCheckpoint))';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest();
const utf8 = (text) => Buffer.from(text, 'utf8');
const results = [];

function check(name, ok, detail) {
  results.push(ok);
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}${detail ? `: ${detail}` : ''}`);
  return ok;
}

function usage(message) {
  if (message) console.error(message);
  console.error('usage: node scripts/verify-receipt.mjs <base-url> <receipt-base64-or-file> [body-file]');
  process.exit(2);
}

/** The receipt object, keys in the order they arrived (the canonical form depends on it). */
function readReceipt(arg) {
  const text = (existsSync(arg) ? readFileSync(arg, 'utf8') : arg).trim();
  const json = text.startsWith('{') ? text : Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  try {
    return JSON.parse(json);
  } catch {
    return usage('the receipt is neither base64 of JSON nor JSON');
  }
}

async function getJson(base, path) {
  let res;
  try {
    res = await fetch(new URL(path, base));
  } catch (err) {
    return usage(`cannot reach ${base}: ${err.message}`);
  }
  const body = await res.json().catch(() => null);
  return { status: res.status, body };
}

function verifySignature(message, signatureBase58, signedByBase58) {
  try {
    return nacl.sign.detached.verify(message, bs58.decode(signatureBase58), bs58.decode(signedByBase58));
  } catch {
    return false; // undecodable base58 or wrong lengths
  }
}

/** The simple proof rule (docs/contract.md#merkle-proofs) over the raw 32-byte digests the hex encodes. */
function specRoot(leafHex, steps) {
  let cur = Buffer.from(leafHex, 'hex');
  for (const step of steps) {
    const h = Buffer.from(step.hash, 'hex');
    cur = sha256(step.side === 'left' ? Buffer.concat([h, cur]) : Buffer.concat([cur, h]));
  }
  return cur.toString('hex');
}

function checkReceipt(receipt, publicKey, bodyFile) {
  const { signature, ...unsigned } = receipt;
  const canonical = JSON.stringify(unsigned);
  check('signature scheme', signature?.scheme === RECEIPT_SCHEME, signature?.scheme);
  check('ed25519 signature over utf8(canonicalReceipt) by signedBy', verifySignature(utf8(canonical), signature?.signatureBase58, signature?.signedBy));
  check('signedBy is the published key (/trust/pubkey)', signature?.signedBy === publicKey, publicKey);
  if (bodyFile) {
    const body = readFileSync(bodyFile);
    check('sha256(body) equals responseSha256', sha256(body).toString('hex') === receipt.responseSha256, receipt.responseSha256);
    check('body length equals responseBytes', body.length === receipt.responseBytes, `${body.length} bytes`);
  }
  return sha256(utf8(canonical)).toString('hex');
}

function checkCheckpoint(cp, publicKey) {
  const canonical = JSON.stringify({
    schema: cp.schema,
    treeSize: cp.treeSize,
    rootHash: { rfc6962: cp.rootHash?.rfc6962, spec: cp.rootHash?.spec },
    chainHead: cp.chainHead,
    timestamp: cp.timestamp,
  });
  const ok =
    cp.signature?.scheme === CHECKPOINT_SCHEME &&
    cp.signature?.signedBy === publicKey &&
    verifySignature(utf8(canonical), cp.signature?.signatureBase58, publicKey);
  return check('checkpoint signed by the published key', ok, `treeSize ${cp.treeSize}, root ${cp.rootHash?.spec}`);
}

function checkProof(proof, receipt, receiptHash, checkpoint) {
  const entry = proof.entry ?? {};
  const { entrySha256, ...unsealed } = entry;
  check("ledger entry is the receipt's", entry.index === receipt.ledgerIndex && entry.kind === 'payment', `index ${entry.index}, kind ${entry.kind}`);
  check('entry.receiptSha256 equals sha256(canonicalReceipt)', entry.receiptSha256 === receiptHash, receiptHash);
  check('entry.prevHash equals ledgerChainHead', entry.prevHash === receipt.ledgerChainHead);
  check(
    'sha256(entry canonical JSON) equals entrySha256 and the proof leaf',
    sha256(utf8(JSON.stringify(unsealed))).toString('hex') === entrySha256 && entrySha256 === proof.leaf,
    proof.leaf,
  );
  const root = specRoot(proof.leaf, Array.isArray(proof.proof) ? proof.proof : []);
  check('"spec" rule leads from the leaf to merkleRootSha256', root === proof.merkleRootSha256, `${proof.proof?.length} steps`);
  check('merkleRootSha256 is the signed checkpoint root', proof.treeSize === checkpoint.treeSize && proof.merkleRootSha256 === checkpoint.rootHash?.spec);
}

async function main() {
  const [base, receiptArg, bodyFile] = process.argv.slice(2);
  if (!base || !receiptArg) usage();
  const receipt = readReceipt(receiptArg);
  const pubkey = await getJson(base, '/trust/pubkey');
  const publicKey = pubkey.body?.publicKey;
  const receiptHash = checkReceipt(receipt, publicKey, bodyFile);
  const { body: checkpoint } = await getJson(base, '/trust/checkpoint');
  const indexed = check('receipt carries ledgerIndex', Number.isSafeInteger(receipt.ledgerIndex) && receipt.ledgerIndex >= 0, String(receipt.ledgerIndex));
  if (checkCheckpoint(checkpoint ?? {}, publicKey) && indexed) {
    const proof = await getJson(base, `/trust/proof?index=${receipt.ledgerIndex}&treeSize=${checkpoint.treeSize}`);
    if (check('/trust/proof answers for ledgerIndex', proof.status === 200, `HTTP ${proof.status}`)) checkProof(proof.body, receipt, receiptHash, checkpoint);
  }
  const ok = results.every(Boolean);
  console.log(ok ? 'VERIFIED: the answer was signed by the service and is logged in its ledger' : 'NOT VERIFIED');
  process.exit(ok ? 0 : 1);
}

await main();
