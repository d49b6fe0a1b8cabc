/**
 * An HTTP/1.1 response read from a connection's bytes as they arrive, for the client library's own
 * keep-alive connections (client-http.ts): the status line, the headers (names lower-cased, a
 * repeated one joined by ', ', values as latin1, as `node:http` gives them) and the body by its
 * `Content-Length`, chunked, or until the connection closes. Everything is read from an untrusted
 * service: the head and the body are bounded, and a malformed response is an error, never a guess.
 */

/** Largest response head read: Node's own client stops at 16 KiB; a 402 with every option is about 4 kB. */
export const MAX_HEAD_BYTES = 64 * 1024;
/** Largest body read (a discovery document is about 150 kB; answers are far smaller). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** An answer read whole: status, lower-cased headers (a repeated one joined by ', '), exact body bytes. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly bytes: Buffer;
  /** Requests sent for it, when more than one: a kept connection closed under the first, the same request sent anew. */
  readonly sends?: number;
}

/** A response the service sent that HTTP/1.1 does not allow, or one past the bounds. */
export class BadResponseError extends Error {
  readonly code = 'ERR_BAD_RESPONSE';
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const STATUS_LINE_RE = /^HTTP\/1\.[01] ([1-9]\d\d)(?: |$)/;
const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CHUNK_SIZE_RE = /^[0-9A-Fa-f]{1,8}$/;

type BodyMode = { kind: 'length'; left: number } | { kind: 'chunked'; left: number; trailer: boolean } | { kind: 'close' };

/**
 * Reads one response after another from one connection. `push` takes bytes and returns the
 * response they completed (or null); `end` is the connection's close: the response it completes
 * (a body read until the close), or null when none was under way.
 */
export class ResponseReader {
  private pending: Buffer | null = null;
  private status = 0;
  private headers: Record<string, string> | null = null;
  private body: BodyMode | null = null;
  private parts: Buffer[] = [];
  private size = 0;
  /** Whether the connection may carry another request after this response. */
  keepAlive = true;

  /** Whether any byte of the current response has arrived. */
  get started(): boolean {
    return this.pending !== null || this.headers !== null;
  }

  push(chunk: Buffer): HttpAnswer | null {
    this.pending = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    if (this.headers === null && !this.readHead()) return null;
    return this.readBody();
  }

  end(): HttpAnswer | null {
    if (this.body?.kind !== 'close') return null;
    if (this.pending) this.take(this.pending);
    this.pending = null;
    return this.finish();
  }

  /** Whether bytes came after the response they belong to (a protocol error: the connection is not reused). */
  get leftover(): boolean {
    return this.pending !== null && this.pending.length > 0;
  }

  private readHead(): boolean {
    const buf = this.pending!;
    const at = buf.indexOf(HEAD_END);
    if (at < 0) {
      if (buf.length > MAX_HEAD_BYTES) throw new BadResponseError('the response head is too large');
      return false;
    }
    if (at > MAX_HEAD_BYTES) throw new BadResponseError('the response head is too large');
    const lines = buf.toString('latin1', 0, at).split('\r\n');
    this.pending = at + 4 < buf.length ? buf.subarray(at + 4) : null;
    const status = STATUS_LINE_RE.exec(lines[0]!);
    if (!status) throw new BadResponseError('not an HTTP/1.1 status line');
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon).toLowerCase() : '';
      if (!TOKEN_RE.test(name)) throw new BadResponseError('a malformed header line');
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    this.status = Number(status[1]);
    if (this.status < 200) {
      // An interim response (100 Continue, 103 Early Hints): the real one follows.
      return this.pending !== null && this.readHead();
    }
    this.headers = headers;
    this.keepAlive = !/(?:^|,)\s*close\s*(?:,|$)/i.test(headers.connection ?? '');
    this.body = this.bodyMode(headers);
    return true;
  }

  private bodyMode(headers: Record<string, string>): BodyMode {
    if (this.status === 204 || this.status === 304) return { kind: 'length', left: 0 };
    const coding = headers['transfer-encoding'];
    if (coding !== undefined) {
      if (!/(?:^|,)\s*chunked\s*$/i.test(coding)) throw new BadResponseError('a transfer coding other than chunked');
      return { kind: 'chunked', left: -1, trailer: false };
    }
    const length = headers['content-length'];
    if (length === undefined) {
      this.keepAlive = false;
      return { kind: 'close' };
    }
    if (!/^\d{1,12}$/.test(length)) throw new BadResponseError('a malformed Content-Length');
    const left = Number(length);
    if (left > MAX_BODY_BYTES) throw new BadResponseError('the response body is too large');
    return { kind: 'length', left };
  }

  private readBody(): HttpAnswer | null {
    const mode = this.body!;
    if (mode.kind === 'close') {
      if (this.pending) this.take(this.pending);
      this.pending = null;
      return null;
    }
    if (mode.kind === 'length') {
      const buf = this.pending;
      if (buf && mode.left > 0) {
        const n = Math.min(mode.left, buf.length);
        this.take(n === buf.length ? buf : buf.subarray(0, n));
        mode.left -= n;
        this.pending = n < buf.length ? buf.subarray(n) : null;
      }
      return mode.left === 0 ? this.finish() : null;
    }
    return this.readChunked(mode);
  }

  /** Chunks: `size CRLF data CRLF`, ended by a zero size and optional trailer lines. */
  private readChunked(mode: { left: number; trailer: boolean }): HttpAnswer | null {
    for (;;) {
      const buf = this.pending;
      if (buf === null) return null;
      if (mode.left > 0) {
        const n = Math.min(mode.left, buf.length);
        this.take(buf.subarray(0, n));
        mode.left -= n;
        this.pending = n < buf.length ? buf.subarray(n) : null;
        continue;
      }
      const eol = buf.indexOf(CRLF);
      if (eol < 0) {
        if (buf.length > MAX_HEAD_BYTES) throw new BadResponseError('a malformed chunk');
        return null;
      }
      const line = buf.toString('latin1', 0, eol);
      this.pending = eol + 2 < buf.length ? buf.subarray(eol + 2) : null;
      if (mode.trailer) {
        if (line === '') return this.finish();
        continue;
      }
      if (mode.left === 0) {
        // The CRLF that closes a chunk's data.
        if (line !== '') throw new BadResponseError('a malformed chunk');
        mode.left = -1;
        continue;
      }
      const size = line.split(';')[0]!.trim();
      if (!CHUNK_SIZE_RE.test(size)) throw new BadResponseError('a malformed chunk size');
      const n = Number.parseInt(size, 16);
      if (n === 0) mode.trailer = true;
      else if (this.size + n > MAX_BODY_BYTES) throw new BadResponseError('the response body is too large');
      else mode.left = n;
    }
  }

  private take(part: Buffer): void {
    this.size += part.length;
    if (this.size > MAX_BODY_BYTES) throw new BadResponseError('the response body is too large');
    this.parts.push(part);
  }

  private finish(): HttpAnswer {
    const parts = this.parts;
    const answer: HttpAnswer = {
      status: this.status,
      headers: this.headers!,
      bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.size),
    };
    this.headers = null;
    this.body = null;
    this.parts = [];
    this.size = 0;
    return answer;
  }
}
