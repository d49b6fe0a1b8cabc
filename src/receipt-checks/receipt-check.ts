/**
 * Client-side proof that a paid answer was signed by the service and logged in its ledger,
 * recomputed from the receipt and the public trust endpoints only (docs/trust-and-proofs.md):
 * the ed25519 signature over canonicalReceipt, the signer against /trust/pubkey, a signed
 * checkpoint, the ledger entry that carries SHA-256(canonicalReceipt), and the Merkle path from
 * its leaf to the checkpoint's root by the contract's proof rule. Browser-safe (no node:
 * imports): the storefront page and the CLI run exactly this code, and neither asks the service
 * whether it is right. Every answer from the service is treated as adversarial input.
 */
import { base64Text, sha256Hex, sha256PairHex, verifyEd25519Text } from './client-crypto.ts';

/** One named check and what it saw. */
export interface CheckLine {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** All checks of one verification; `ok` when every line passed. */
export interface CheckReport {
  readonly ok: boolean;
  readonly lines: readonly CheckLine[];
}

/** GET a trust path ('/trust/pubkey', '/trust/checkpoint', '/trust/proof?...') of the service. */
export type TrustFetch = (path: string) => Promise<{ readonly status: number; readonly body: unknown }>;

type Json = Record<string, unknown>;

/** `signature.scheme` of receipts and checkpoints (docs/contract.md#receipts). */
const RECEIPT_SCHEME = 'ed25519-detached(utf8(canonicalReceipt))';
const CHECKPOINT_SCHEME = 'ed25519-detached(utf8(canonicalCheckpoint))';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const field = (v: unknown, key: string): unknown => (isObject(v) ? v[key] : undefined);
const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * The receipt object from what a user holds: the `X-Service-Receipt` header value (base64 of
 * the JSON) or the JSON itself. Keys stay in the order they arrived: the canonical form is that
 * order, so re-ordering would break a valid signature.
 */
export function parseReceipt(text: string): { ok: true; receipt: Json } | { ok: false; reason: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, reason: 'the receipt is empty' };
  const json = trimmed.startsWith('{') ? trimmed : base64Text(trimmed);
  if (json === null) return { ok: false, reason: 'the receipt is neither JSON nor base64 of JSON' };
  try {
    const value: unknown = JSON.parse(json);
    return isObject(value) ? { ok: true, receipt: value } : { ok: false, reason: 'the receipt is not a JSON object' };
  } catch {
    return { ok: false, reason: 'the receipt is neither JSON nor base64 of JSON' };
  }
}

/** A fresh list of check lines with a recorder. */
export function lineRecorder() {
  const lines: CheckLine[] = [];
  const check = (name: string, ok: boolean, detail = ''): boolean => {
    lines.push({ name, ok, detail });
    return ok;
  };
  return { lines, check, report: (): CheckReport => ({ ok: lines.length > 0 && lines.every((l) => l.ok), lines }) };
}

type Check = ReturnType<typeof lineRecorder>['check'];

/** The simple proof rule (docs/contract.md#merkle-proofs): from the leaf up, side by side. */
export function specProofRoot(leafHex: string, steps: unknown): string | null {
  if (!Array.isArray(steps)) return null;
  let cur: string | null = leafHex;
  for (const step of steps) {
    const hash = field(step, 'hash');
    if (cur === null || typeof hash !== 'string') return null;
    cur = field(step, 'side') === 'left' ? sha256PairHex(hash, cur) : sha256PairHex(cur, hash);
  }
  return cur;
}

/** The canonical JSON of a checkpoint's signed part (fixed key order). */
function canonicalCheckpoint(cp: Json): string {
  const root = field(cp, 'rootHash');
  return JSON.stringify({
    schema: cp.schema,
    treeSize: cp.treeSize,
    rootHash: { rfc6962: field(root, 'rfc6962'), spec: field(root, 'spec') },
    chainHead: cp.chainHead,
    timestamp: cp.timestamp,
  });
}

async function publishedKey(get: TrustFetch, check: Check): Promise<string | null> {
  const { status, body } = await get('/trust/pubkey');
  const key = field(body, 'publicKey');
  return check('the service publishes its key (/trust/pubkey)', status === 200 && typeof key === 'string', `HTTP ${status}`) ? (key as string) : null;
}

async function signedCheckpoint(get: TrustFetch, publicKey: string, check: Check): Promise<Json | null> {
  const { status, body } = await get('/trust/checkpoint');
  const cp = isObject(body) ? body : {};
  const sig = field(cp, 'signature');
  const ok =
    status === 200 &&
    isIndex(cp.treeSize) &&
    field(sig, 'scheme') === CHECKPOINT_SCHEME &&
    field(sig, 'signedBy') === publicKey &&
    verifyEd25519Text(canonicalCheckpoint(cp), field(sig, 'signatureBase58'), publicKey);
  return check('checkpoint signed by the published key', ok, `treeSize ${String(cp.treeSize)}, root ${String(field(cp.rootHash, 'spec'))}`) ? cp : null;
}

/** Checks a /trust/proof answer: the entry hashes to the leaf and the path leads to the checkpoint's root. */
function checkInclusion(proof: unknown, index: number, checkpoint: Json, check: Check): Json | null {
  const entry = field(proof, 'entry');
  const leaf = field(proof, 'leaf');
  if (!check('the proof carries its ledger entry', isObject(entry) && field(entry, 'index') === index, `index ${index}`)) return null;
  const { entrySha256, ...unsealed } = entry as Json;
  check(
    'sha256(entry canonical JSON) equals entrySha256 and the leaf',
    sha256Hex(JSON.stringify(unsealed)) === entrySha256 && entrySha256 === leaf,
    String(leaf),
  );
  const root = typeof leaf === 'string' ? specProofRoot(leaf, field(proof, 'proof')) : null;
  const steps = field(proof, 'proof');
  check(
    'the proof rule leads from the leaf to merkleRootSha256',
    root !== null && root === field(proof, 'merkleRootSha256'),
    `${Array.isArray(steps) ? steps.length : 0} steps`,
  );
  check(
    'merkleRootSha256 is the signed checkpoint root',
    field(proof, 'treeSize') === checkpoint.treeSize && field(proof, 'merkleRootSha256') === field(checkpoint.rootHash, 'spec'),
    String(field(checkpoint.rootHash, 'spec')),
  );
  return entry as Json;
}

async function proofAt(index: number, checkpoint: Json, get: TrustFetch, check: Check): Promise<Json | null> {
  const size = checkpoint.treeSize as number;
  if (!check('the entry is inside the signed tree', index < size, `index ${index}, tree size ${size}`)) return null;
  const { status, body } = await get(`/trust/proof?index=${index}&treeSize=${size}`);
  if (!check('/trust/proof answers for the index', status === 200, `HTTP ${status}`)) return null;
  return checkInclusion(body, index, checkpoint, check);
}

function checkSignature(receipt: Json, publicKey: string, check: Check): string {
  const { signature, ...unsigned } = receipt;
  const canonical = JSON.stringify(unsigned);
  check('signature scheme', field(signature, 'scheme') === RECEIPT_SCHEME, String(field(signature, 'scheme')));
  const signedBy = field(signature, 'signedBy');
  check('ed25519 signature over utf8(canonicalReceipt) by signedBy', verifyEd25519Text(canonical, field(signature, 'signatureBase58'), signedBy));
  check('signedBy is the published key', signedBy === publicKey, publicKey);
  return sha256Hex(canonical);
}

function checkBody(receipt: Json, body: Uint8Array, check: Check): void {
  check('sha256(body) equals responseSha256', sha256Hex(body) === receipt.responseSha256, String(receipt.responseSha256));
  check('body length equals responseBytes', body.length === receipt.responseBytes, `${body.length} bytes`);
}

/**
 * Verifies a receipt against the service's public trust endpoints: signature, signer, the saved
 * body when given, and the inclusion of its ledger entry under a signed checkpoint.
 */
export async function verifyReceipt(receipt: Json, get: TrustFetch, options: { readonly body?: Uint8Array } = {}): Promise<CheckReport> {
  const { check, report } = lineRecorder();
  const publicKey = await publishedKey(get, check);
  if (publicKey === null) return report();
  const receiptHash = checkSignature(receipt, publicKey, check);
  if (options.body) checkBody(receipt, options.body, check);
  const index = receipt.ledgerIndex;
  check('the receipt names its ledger entry (ledgerIndex)', isIndex(index), String(index));
  if (!isIndex(index)) return report();
  const checkpoint = await signedCheckpoint(get, publicKey, check);
  const entry = checkpoint && (await proofAt(index, checkpoint, get, check));
  if (entry) {
    check("the entry is the receipt's payment", entry.kind === 'payment', String(entry.kind));
    check('entry.receiptSha256 equals sha256(canonicalReceipt)', entry.receiptSha256 === receiptHash, receiptHash);
    check('entry.prevHash equals ledgerChainHead', entry.prevHash === receipt.ledgerChainHead, String(receipt.ledgerChainHead));
  }
  return report();
}

/** Verifies that ledger entry `index` is included in the tree of a checkpoint signed by the published key. */
export async function verifyProofAt(index: number, get: TrustFetch): Promise<CheckReport> {
  const { check, report } = lineRecorder();
  check('the index is a non-negative integer', isIndex(index), String(index));
  if (!isIndex(index)) return report();
  const publicKey = await publishedKey(get, check);
  const checkpoint = publicKey === null ? null : await signedCheckpoint(get, publicKey, check);
  if (checkpoint) await proofAt(index, checkpoint, get, check);
  return report();
}

/** What the client asked and paid, for the offline check: the receipt must name exactly this. */
export interface AskedFor {
  /** The path and query sent (`/v1/epoch?rate=both`): the receipt's `resource`. */
  readonly resource: string;
  /** The price paid, token units. */
  readonly priceUnits?: number;
}

/**
 * Verifies a receipt offline, against a key the client already holds (pinned, or read once from
 * /trust/pubkey): the signature and signer, the body's hash and length, and that it names the
 * request that was sent and its price. No request is made; the ledger inclusion is the online
 * check's (verifyReceipt), as the ledger proves what a receipt alone cannot.
 */
export function verifyReceiptOffline(receipt: Json, publicKey: string, body: Uint8Array, asked: AskedFor): CheckReport {
  const { check, report } = lineRecorder();
  checkSignature(receipt, publicKey, check);
  checkBody(receipt, body, check);
  check('the receipt names the request sent', receipt.resource === asked.resource, String(receipt.resource));
  check('requestSha256 equals sha256("GET " + resource)', receipt.requestSha256 === sha256Hex(`GET ${asked.resource}`), String(receipt.requestSha256));
  if (asked.priceUnits !== undefined) check('the receipt names the price paid', receipt.priceUsdcUnits === asked.priceUnits, String(receipt.priceUsdcUnits));
  return report();
}
