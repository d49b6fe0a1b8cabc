/**
 * A body served in the encoding the client asks for (Brotli, gzip or none), each variant with its
 * own strong ETag, and `If-None-Match` answered 304 (RFC 9110 sections 8.8.3, 12.5.3, 13.1.2).
 * The variants are compressed once (at build time for assets, after listen for the page), never
 * per request.
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { HttpReply } from '../errors.ts';

export type ContentCoding = 'br' | 'gzip' | 'identity';

/** One body and its compressed variants. */
export interface EncodedBody {
  readonly identity: Buffer;
  readonly br: Buffer;
  readonly gzip: Buffer;
  /** Hex SHA-256 of `identity`: the ETags are derived from it. */
  readonly sha256: string;
}

/** Brotli quality of bodies compressed at run time: near the best ratio at a few ms for tens of kB. */
const RUNTIME_BROTLI_QUALITY = 9;

/**
 * Bodies compressed in this process, by digest. The page is the same text at every start of one
 * build, and a process that starts the service many times (the test runner's workers) compressed
 * it at each: a few tens of ms of Brotli and gzip per start. Bounded; the bodies are never changed.
 */
const encodedByDigest = new Map<string, EncodedBody>();
const ENCODED_KEPT_MAX = 8;

/** Compresses `text` both ways (for bodies rendered at run time, such as the page). */
export function encodeBody(text: string | Buffer): EncodedBody {
  const identity = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const sha256 = createHash('sha256').update(identity).digest('hex');
  const kept = encodedByDigest.get(sha256);
  if (kept !== undefined) return kept;
  const body: EncodedBody = {
    identity,
    br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: RUNTIME_BROTLI_QUALITY } }),
    gzip: gzipSync(identity, { level: constants.Z_BEST_COMPRESSION }),
    sha256,
  };
  if (encodedByDigest.size < ENCODED_KEPT_MAX) encodedByDigest.set(sha256, body);
  return body;
}

/** The strong ETag of one variant: different bytes, different tag. */
export function etagOf(body: Pick<EncodedBody, 'sha256'>, coding: ContentCoding): string {
  const tag = body.sha256.slice(0, 32);
  return coding === 'identity' ? `"${tag}"` : `"${tag}-${coding === 'br' ? 'br' : 'gz'}"`;
}

/** The quality value of each coding an `Accept-Encoding` header names (`*` included). */
function qualities(header: string): Map<string, number> {
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam === undefined ? 1 : Number(qParam.slice(2));
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  return q;
}

/** The coding to send for an `Accept-Encoding` header: the most wanted of br and gzip (br on a tie), else identity. */
export function preferredCoding(acceptEncoding: string | undefined): ContentCoding {
  if (!acceptEncoding) return 'identity';
  const q = qualities(acceptEncoding);
  const wanted = (c: string) => q.get(c) ?? (c === 'gzip' ? q.get('x-gzip') : undefined) ?? q.get('*') ?? 0;
  const br = wanted('br');
  const gzip = wanted('gzip');
  if (br > 0 && br >= gzip) return 'br';
  return gzip > 0 ? 'gzip' : 'identity';
}

/** True when an `If-None-Match` header matches `etag` (weak comparison, as RFC 9110 asks of this header). */
export function noneMatch(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || opaque(t) === opaque(etag));
}

/**
 * The reply for a GET of `body`: the variant `Accept-Encoding` prefers with its ETag, or 304
 * when `If-None-Match` already names that variant. `headers` (type, caching) go on both.
 */
export function encodedReply(body: EncodedBody, request: Readonly<Record<string, string>>, headers: Readonly<Record<string, string>>): HttpReply {
  const coding = preferredCoding(request['accept-encoding']);
  const etag = etagOf(body, coding);
  const common = { ...headers, ETag: etag, Vary: 'Accept-Encoding' };
  if (noneMatch(request['if-none-match'], etag)) return { status: 304, headers: common, body: '' };
  const encoded: Record<string, string> = coding === 'identity' ? {} : { 'Content-Encoding': coding };
  return { status: 200, headers: { ...common, ...encoded }, body: body[coding] };
}
