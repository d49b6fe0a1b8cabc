/**
 * The free ledger and trust endpoints (docs/contract.md#free-endpoints, #merkle-proofs): the log,
 * proofs under the contract's simple rule and RFC 6962, signed checkpoints, consistency proofs, the
 * published key, receipt verification and the open receipt specification. Every answer reads only
 * durable ledger state, in one synchronous step, so entries and head always agree.
 */
import { errorReply, type HttpReply } from '../../errors.ts';
import type { SignedCheckpoint } from '../../tlog/checkpoint.ts';
import { createCheckpoint, type SignBytes } from '../../tlog/checkpoint.ts';
import type { Ledger } from '../../ledger/ledger.ts';
import { decodeReceiptHeader } from '../../receipts/receipt.ts';
import { buildReceiptSpec } from '../../receipts/receipt-spec.ts';
import { verifyReceipt } from '../../receipts/receipt-verify.ts';
import type { Route } from '../server/route.ts';
import { enumParam, intParam, parameterless, queryParams } from './trust-query.ts';

/** `/ledger` and `/trust/log` `limit`: default 400, max 1000 (docs/contract.md#limits). */
export const LEDGER_LIMIT = Object.freeze({ min: 1, max: 1000, fallback: 400 });
/** A checkpoint is re-signed at most this often per tree size: signing on every call would let free traffic load the signer. */
export const CHECKPOINT_CACHE_MS = 1000;
const HEX_DIGEST_RE = /^[0-9a-fA-F]{64}$/;
const BASE64_RE = /^[A-Za-z0-9+/_-]*={0,2}$/;

export interface TrustRoutesConfig {
  readonly ledger: Ledger;
  /** The service identity; only its public key is read. */
  readonly identity: { readonly publicKey: string };
  readonly baseUrl: () => string;
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** ed25519 signature with the identity, for checkpoints (the pool's task, or a local signer). */
  readonly sign: SignBytes;
  /** The scoring and data methodology published in `/trust/sir`. */
  readonly methodology: Readonly<Record<string, unknown>>;
  /** The signed-note key of `/checkpoint` (tlog-routes.ts), added to `/trust/pubkey`. */
  readonly noteKey?: Readonly<Record<string, string>>;
  readonly now?: () => Date;
}

const JSON_TYPE = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } as const;
const ok = (body: unknown): HttpReply => ({ status: 200, headers: JSON_TYPE, body: JSON.stringify(body) });
const badParam = (param: string, message: string): HttpReply => errorReply({ error: 'invalid_parameter', param, message });

function logRoute(path: string, config: TrustRoutesConfig): Route {
  return {
    method: 'GET',
    path,
    handler(req) {
      const q = queryParams(req.query, ['limit']);
      if (!q.ok) return q.reply;
      const limit = intParam(q.params, 'limit', LEDGER_LIMIT);
      if (!limit.ok) return limit.reply;
      const head = config.ledger.head();
      const entries = config.ledger.recent(limit.value);
      return ok({ treeSize: head.treeSize, chainHeadSha256: head.chainHead, merkleRootSha256: head.merkleRoot, count: entries.length, entries });
    },
  };
}

function proofRoute(config: TrustRoutesConfig): Route {
  return {
    method: 'GET',
    path: '/trust/proof',
    handler(req) {
      const q = queryParams(req.query, ['index', 'treeSize', 'format']);
      if (!q.ok) return q.reply;
      const size = config.ledger.head().treeSize;
      const index = intParam(q.params, 'index', { min: 0, max: Number.MAX_SAFE_INTEGER });
      if (!index.ok) return index.reply;
      const treeSize = intParam(q.params, 'treeSize', { min: 1, max: Math.max(1, size), fallback: size });
      if (!treeSize.ok) return treeSize.reply;
      const format = enumParam(q.params, 'format', ['spec', 'rfc6962'] as const, 'spec');
      if (!format.ok) return format.reply;
      if (index.value >= treeSize.value)
        return errorReply({ error: 'not_found', param: 'index', message: `no entry ${index.value} in a tree of size ${treeSize.value}` });
      const proof = config.ledger.proof(index.value, treeSize.value, format.value);
      // The entry travels with its proof: a client holding only a receipt recomputes the leaf
      // from it (the entry's time is not in the receipt), and /ledger serves only the newest 1000.
      return proof.ok ? ok({ ...proof.value, entry: config.ledger.entry(index.value) }) : badParam('treeSize', proof.reason);
    },
  };
}

function consistencyRoute(config: TrustRoutesConfig): Route {
  return {
    method: 'GET',
    path: '/trust/consistency',
    handler(req) {
      const q = queryParams(req.query, ['from', 'to', 'format']);
      if (!q.ok) return q.reply;
      const size = config.ledger.head().treeSize;
      const to = intParam(q.params, 'to', { min: 0, max: size, fallback: size });
      if (!to.ok) return to.reply;
      const from = intParam(q.params, 'from', { min: 0, max: to.value });
      if (!from.ok) return from.reply;
      const format = enumParam(q.params, 'format', ['rfc6962', 'spec'] as const, 'rfc6962');
      if (!format.ok) return format.reply;
      const proof = config.ledger.consistency(from.value, to.value, format.value);
      return proof.ok ? ok(proof.value) : badParam('from', proof.reason);
    },
  };
}

/** What `/trust/verify` was asked, from either the query or a JSON body. */
interface VerifyInput {
  readonly receipt: unknown;
  readonly body?: unknown;
  readonly bodySha256?: unknown;
}

function runVerify(config: TrustRoutesConfig, input: VerifyInput): HttpReply {
  // A `+` in an unencoded query arrives as a space; base64 has no spaces, so put it back.
  const unspace = (s: string) => s.replace(/ /g, '+');
  if (typeof input.receipt !== 'string' || input.receipt === '')
    return errorReply({ error: 'missing_parameter', param: 'receipt', message: 'receipt (the X-Service-Receipt header value) is required' });
  const decoded = decodeReceiptHeader(unspace(input.receipt));
  if (!decoded.ok) return badParam('receipt', decoded.reason);
  if (input.body !== undefined && input.bodySha256 !== undefined) return badParam('body', 'give body or bodySha256, not both');
  let body: Buffer | undefined;
  if (input.body !== undefined) {
    if (typeof input.body !== 'string' || !BASE64_RE.test(unspace(input.body))) return badParam('body', 'body must be base64 of the saved response body');
    body = Buffer.from(unspace(input.body).replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  }
  if (input.bodySha256 !== undefined && (typeof input.bodySha256 !== 'string' || !HEX_DIGEST_RE.test(input.bodySha256)))
    return badParam('bodySha256', 'bodySha256 must be 64 hex characters');
  const bodySha256 = input.bodySha256 as string | undefined;
  const result = verifyReceipt(decoded.receipt, {
    publicKey: config.identity.publicKey,
    ledger: config.ledger,
    ...(body ? { body } : {}),
    ...(bodySha256 ? { bodySha256 } : {}),
  });
  return ok({ ...result, publicKey: config.identity.publicKey });
}

function verifyRoutes(config: TrustRoutesConfig): Route[] {
  const get: Route = {
    method: 'GET',
    path: '/trust/verify',
    handler(req) {
      const q = queryParams(req.query, ['receipt', 'body', 'bodySha256']);
      if (!q.ok) return q.reply;
      return runVerify(config, { receipt: q.params.get('receipt'), body: q.params.get('body'), bodySha256: q.params.get('bodySha256') });
    },
  };
  const post: Route = {
    method: 'POST',
    path: '/trust/verify',
    handler(req) {
      let input: unknown;
      try {
        input = JSON.parse(req.body?.toString('utf8') ?? '');
      } catch {
        return errorReply({
          error: 'invalid_request',
          message: 'body must be JSON {"receipt": "<header value>", "body"?: "<base64>", "bodySha256"?: "<hex>"}',
        });
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input))
        return errorReply({ error: 'invalid_request', message: 'body must be a JSON object' });
      return runVerify(config, input as VerifyInput);
    },
  };
  return [get, post];
}

/** One signature of the checkpoint route: its tree size, and when it was made (null while it is being made). */
interface KeptCheckpoint {
  readonly size: number;
  signedAt: number | null;
  readonly checkpoint: Promise<SignedCheckpoint>;
}

function checkpointRoute(config: TrustRoutesConfig): Route {
  // The signature in the making is shared by every request that arrives meanwhile, as /checkpoint
  // shares its note's: keeping only a finished one let each request that came during a signature
  // (the pool busy, a burst of free requests) queue a signature of its own. A failed one is dropped.
  let kept: KeptCheckpoint | null = null;
  const stale = (k: KeptCheckpoint, size: number, nowMs: number) => k.size !== size || (k.signedAt !== null && nowMs - k.signedAt > CHECKPOINT_CACHE_MS);
  return {
    method: 'GET',
    path: '/trust/checkpoint',
    async handler() {
      const head = config.ledger.head();
      const nowMs = Date.now();
      if (kept === null || stale(kept, head.treeSize, nowMs)) {
        const signer = { service: config.serviceName, publicKey: config.identity.publicKey, sign: config.sign };
        const entry: KeptCheckpoint = { size: head.treeSize, signedAt: null, checkpoint: createCheckpoint(signer, head, config.now?.() ?? new Date(nowMs)) };
        kept = entry;
        entry.checkpoint.then(
          () => {
            entry.signedAt = Date.now();
          },
          () => {
            if (kept === entry) kept = null;
          },
        );
      }
      return ok(await kept.checkpoint);
    },
  };
}

/** The trust routes over a ledger and the service identity. */
export function createTrustRoutes(config: Readonly<TrustRoutesConfig>): Route[] {
  let sir: { baseUrl: string; body: string } | null = null;
  const sirBody = () => {
    const baseUrl = config.baseUrl();
    if (sir?.baseUrl !== baseUrl) {
      const doc = buildReceiptSpec({
        service: config.serviceName,
        serviceVersion: config.serviceVersion,
        baseUrl,
        publicKey: config.identity.publicKey,
        methodology: config.methodology,
      });
      sir = { baseUrl, body: JSON.stringify(doc) };
    }
    return sir.body;
  };
  const pubkey = JSON.stringify({
    publicKey: config.identity.publicKey,
    algorithm: 'ed25519',
    encoding: 'base58',
    usage: ['receipt signatures (signature.signedBy)', 'checkpoint signatures', 'Solana fee payer of settled payments'],
    ...config.noteKey,
  });
  return [
    logRoute('/ledger', config),
    logRoute('/trust/log', config),
    proofRoute(config),
    consistencyRoute(config),
    parameterless(checkpointRoute(config)),
    ...verifyRoutes(config),
    parameterless({
      method: 'GET',
      path: '/trust/pubkey',
      handler: () => ({ status: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' }, body: pubkey }),
    }),
    parameterless({
      method: 'GET',
      path: '/trust/sir',
      handler: () => ({ status: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' }, body: sirBody() }),
    }),
  ];
}
