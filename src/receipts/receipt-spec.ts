/**
 * The open receipt specification served at `/trust/sir`: everything an independent client needs
 * to check a receipt, a ledger entry, a proof, a checkpoint or a consistency proof without our
 * code. The statements of the hash rules are taken from the modules that implement them, so the
 * document cannot drift from the behaviour.
 */
import { CHECKPOINT_SIGNATURE_SCHEME } from '../tlog/checkpoint.ts';
import { GENESIS_PREV_HASH, MAX_AUDIT_REASON_CHARS } from '../ledger/ledger-entry.ts';
import { RFC6962_HASHER, SPEC_HASHER, sha256Hex } from '../ledger/merkle-hash.ts';
import { RECEIPT_FIELD_ORDER, RECEIPT_HEADER, RECEIPT_HEADER_ALT, RECEIPT_SIGNATURE_SCHEME } from './receipt.ts';

/** What the document is rendered from. */
export interface ReceiptSpecConfig {
  readonly service: string;
  readonly serviceVersion: string;
  readonly baseUrl: string;
  readonly publicKey: string;
  readonly methodology: Readonly<Record<string, unknown>>;
}

const FIELD_RULES: Readonly<Record<(typeof RECEIPT_FIELD_ORDER)[number], readonly [string, string]>> = {
  schema: ['string', '<service>.intelligence-receipt.v1; a backward-incompatible change bumps it to .v2'],
  service: ['string', 'provider name'],
  resource: ['string', 'exact path plus query served'],
  endpoint: ['string', 'path'],
  priceUsd: ['string', 'e.g. $0.10'],
  priceUsdcUnits: ['integer', 'atomic stablecoin units (6 decimals)'],
  network: ['string', 'settlement network (CAIP-2: the Solana mainnet id or eip155:8453)'],
  serviceVersion: ['string', 'service version'],
  requestSha256: ['string', 'lowercase hex SHA-256 of utf8("GET " + resource)'],
  responseSha256: ['string', 'lowercase hex SHA-256 of the exact response body bytes'],
  responseBytes: ['integer', 'body length in bytes'],
  ledgerChainHead: ['string', "hash-chain head when issued: the prevHash of this receipt's ledger entry"],
  generatedAtUtc: ['string', 'ISO 8601 UTC with milliseconds'],
  ledgerIndex: [
    'integer',
    'extension (after the contract receipt fields): index of the ledger entry whose receiptSha256 is SHA-256(utf8(canonicalReceipt)); part of the signed canonical form',
  ],
};

function receiptPart(c: ReceiptSpecConfig) {
  return {
    transport: {
      header: RECEIPT_HEADER,
      alternativeHeader: RECEIPT_HEADER_ALT,
      value: 'base64(utf8(JSON of the receipt))',
      body: 'the response body is unchanged by the receipt',
    },
    fields: [
      ...RECEIPT_FIELD_ORDER.map((name) => ({ name, type: FIELD_RULES[name][0], rule: FIELD_RULES[name][1] })),
      {
        name: 'signature',
        type: 'object',
        rule: `{scheme: "${RECEIPT_SIGNATURE_SCHEME}", signatureBase58, signedBy (base58 ed25519 public key, the payment-settling identity), verify: "${c.baseUrl}/trust/verify"}`,
      },
    ],
    canonicalization: {
      rule: 'canonicalReceipt = JSON serialization (no whitespace, ECMAScript JSON.stringify) of the receipt object without "signature", keys in insertion order',
      keyOrder: RECEIPT_FIELD_ORDER,
      note: 'ledgerIndex is included in canonicalReceipt; only "signature" is removed. Take the keys in the order they arrive: JSON.parse then delete signature then JSON.stringify reproduces it.',
    },
    signing: {
      algorithm: 'ed25519 (RFC 8032), detached',
      scheme: RECEIPT_SIGNATURE_SCHEME,
      message: 'the UTF-8 bytes of canonicalReceipt',
      signatureEncoding: 'base58 (Bitcoin alphabet), 64 bytes',
      signedBy: c.publicKey,
      publicKeyUrl: `${c.baseUrl}/trust/pubkey`,
    },
    verification: [
      'base64-decode the header value and parse the JSON',
      'canonicalReceipt = JSON.stringify(receipt without signature); message = utf8(canonicalReceipt)',
      'verify signature.signatureBase58 (base58-decoded, 64 bytes) over message with the base58-decoded signature.signedBy (32 bytes)',
      `check signature.signedBy equals publicKey of ${c.baseUrl}/trust/pubkey`,
      'optionally check lowercase hex SHA-256 of the saved body bytes equals responseSha256 and its length equals responseBytes',
      `optionally fetch ${c.baseUrl}/trust/proof?index=<ledgerIndex>: its entry must have index ledgerIndex, receiptSha256 = SHA-256(utf8(canonicalReceipt)) and prevHash = ledgerChainHead; the SHA-256 of the entry's canonical JSON must equal entry.entrySha256 and the proof's leaf; then apply the "spec" proof rule (with &treeSize=<checkpoint treeSize> the root must equal the signed checkpoint's rootHash.spec)`,
    ],
    verifyEndpoint: {
      url: `${c.baseUrl}/trust/verify`,
      get: 'receipt=<header value>, optional body=<base64 of the saved body> or bodySha256=<hex>',
      post: 'JSON {receipt, body?, bodySha256?} for bodies too large for a URL',
      answer: '{valid, receiptSha256, checks: {fields, signature, signedBy, responseSha256, ledgerInclusion}}, each {status: pass|fail|skipped, detail}',
    },
  };
}

function ledgerPart(c: ReceiptSpecConfig) {
  return {
    entries: {
      payment: ['index', 'time', 'kind', 'endpoint', 'priceUsdcUnits', 'network', 'receiptSha256', 'prevHash', 'entrySha256'],
      audit: ['index', 'time', 'kind', 'event', 'reason (only when given)', 'prevHash', 'entrySha256'],
      auditEvents: { 'kill-switch.activated': 'paid calls answer 503 from here', 'kill-switch.released': 'paid calls resume' },
      auditReason: `operator text, 1..${MAX_AUDIT_REASON_CHARS} printable characters`,
      privacy: 'no query content, caller identity, payer address or IP: endpoint is a bare path and a payment is referenced only by the hash of its receipt',
    },
    hashing: {
      entrySha256: 'lowercase hex SHA-256 of utf8(JSON.stringify of the entry without entrySha256, keys in the order listed above, no whitespace)',
      prevHash: `the previous entry's entrySha256; ${GENESIS_PREV_HASH} for entry 0`,
      chainHead: 'entrySha256 of the newest entry (64 zeros while empty)',
      receiptLink: 'payment.receiptSha256 = SHA-256(utf8(canonicalReceipt)); receipt.ledgerIndex = entry.index; receipt.ledgerChainHead = entry.prevHash',
    },
    endpoints: { ledger: `${c.baseUrl}/ledger?limit=<1..1000, default 400> (oldest first)`, log: `${c.baseUrl}/trust/log?limit=<1..1000>` },
  };
}

function merklePart(c: ReceiptSpecConfig) {
  return {
    shape: 'RFC 6962 §2.1: leaves in ledger order; a tree of n > 1 leaves splits at the largest power of two k < n; no odd-node duplication',
    leaf: 'entrySha256 of each ledger entry',
    specProof: {
      endpoint: `${c.baseUrl}/trust/proof?index=<N>[&treeSize=<M>]`,
      answer:
        '{index, leaf, proof: [{hash, side}], merkleRootSha256, treeSize, algorithm, entry} (entry: the ledger entry at index, whose entrySha256 is the leaf)',
      rule: 'cur = leaf; for each step: side "left" gives cur = sha256(step.hash + cur), otherwise cur = sha256(cur + step.hash); cur must equal merkleRootSha256',
      byteLevel: SPEC_HASHER.algorithm,
      emptyRoot: sha256Hex(''),
    },
    rfc6962Proof: { endpoint: `${c.baseUrl}/trust/proof?index=<N>&format=rfc6962`, algorithm: RFC6962_HASHER.algorithm },
    checkpoints: {
      endpoint: `${c.baseUrl}/trust/checkpoint`,
      canonical: 'JSON.stringify of {schema, treeSize, rootHash: {rfc6962, spec}, chainHead, timestamp} in this key order',
      scheme: CHECKPOINT_SIGNATURE_SCHEME,
      use: 'keep signed checkpoints; a proof is authenticated by the root of a checkpoint of its treeSize',
    },
    consistency: {
      endpoint: `${c.baseUrl}/trust/consistency?from=<m>&to=<n>[&format=rfc6962|spec]`,
      algorithm: 'RFC 6962 §2.1.2 proof, RFC 9162 §2.1.4.2 verification, under the hash rule named by format (default rfc6962)',
      use: 'proves the tree of size n extends the tree of size m: a rewritten or forked ledger fails',
    },
  };
}

/** The `/trust/sir` document. */
export function buildReceiptSpec(c: Readonly<ReceiptSpecConfig>): Record<string, unknown> {
  return {
    name: 'Service Intelligence Receipt (SIR)',
    schema: `${c.service}.intelligence-receipt.v1`,
    service: c.service,
    serviceVersion: c.serviceVersion,
    receipt: receiptPart(c),
    ledger: ledgerPart(c),
    merkle: merklePart(c),
    methodology: c.methodology,
  };
}
