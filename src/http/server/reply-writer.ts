/**
 * How a reply becomes bytes on a uWS response (types only from uWS: server.ts loads it): the status
 * line, the CORS headers every reply carries and the reply's own, then the body, or none for a 304
 * and for `HEAD`; and what those bytes weigh, for the free limit's byte bound (wire-bytes.ts).
 *
 * Every string handed to uWS is converted on each call (a UTF-8 length scan, a malloc, a copy, a
 * free), and a 402's `PAYMENT-REQUIRED` is 2.8 kB: under load those conversions were about a sixth
 * of the service's user-space time on the unpaid 402 (perf, docs/benchmarks.md). A frozen reply is
 * one the service sends again unchanged (a route's kept 402, a query's kept 400), so its head and
 * body are encoded once (`wireOf`).
 */
import type uWS from 'uWebSockets.js';
import type { HttpReply } from '../../errors.ts';
import type { AnyReply } from './route.ts';
import { CORS_HEADERS, STATUS_TEXT } from './route-table.ts';
import { contentBytes, headBytes } from './wire-bytes.ts';

const STATUS_LINES = new Map(Object.entries(STATUS_TEXT).map(([code, text]) => [Number(code), `${code} ${text}`]));
const statusLine = (status: number): string => STATUS_LINES.get(status) ?? `${status} Status`;

/** `name: value` lines, each but the last ended by CRLF: uWS ends what `writeStatus` is given with one. */
const headerLines = (headers: Readonly<Record<string, string>>): string =>
  Object.keys(headers)
    .map((k) => `\r\n${k}: ${headers[k]}`)
    .join('');
const CORS_LINES = headerLines(CORS_HEADERS);
/**
 * The status line and the CORS headers as one `writeStatus` argument, per status: uWS writes
 * `HTTP/1.1 `, the argument and CRLF, the same bytes a `writeHeader` per CORS header wrote
 * (test/unit/http/reply-writer.test.ts), in one native call and no string conversion.
 */
const STATUS_HEADS = new Map<number, Buffer>();
const statusHead = (status: number): Buffer => {
  let head = STATUS_HEADS.get(status);
  if (head === undefined) {
    head = Buffer.from(`${statusLine(status)}${CORS_LINES}`);
    STATUS_HEADS.set(status, head);
  }
  return head;
};

/** A frozen reply's bytes, encoded once: the head as one `writeStatus` argument, the body, and what the answer weighs. */
export interface WireReply {
  readonly head: Buffer;
  readonly body: Buffer;
  /** The answer's bytes on the wire, as `repliedBytes` counts them. */
  readonly bytes: number;
}

const WIRE = new WeakMap<HttpReply, WireReply>();

/**
 * The encoded form of a frozen reply, its headers frozen too (made on its first write and kept as
 * long as the reply is), or null for any other: a reply built per request would pay the encoding
 * and the weak entry for nothing, and one whose headers can still change must be read each time.
 */
export function wireOf(reply: HttpReply): WireReply | null {
  // The weak map first: `isFrozen` is a runtime call, a kept reply's lookup is not.
  let wire = WIRE.get(reply);
  if (wire === undefined) {
    if (!Object.isFrozen(reply) || (reply.headers !== undefined && !Object.isFrozen(reply.headers)) || reply.status === 304) return null;
    const headers = reply.headers;
    // UTF-8, as uWS writes a string.
    const head = Buffer.from(`${statusLine(reply.status)}${CORS_LINES}${headers ? headerLines(headers) : ''}`);
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
    wire = { head, body, bytes: repliedBytes(reply, false) };
    WIRE.set(reply, wire);
  }
  return wire;
}

/** The status line and headers (run corked). */
export function writeHead(res: uWS.HttpResponse, reply: AnyReply): void {
  res.writeStatus(statusHead(reply.status));
  const headers = reply.headers;
  if (headers) for (const k in headers) res.writeHeader(k, headers[k]!);
}

/** A frozen reply's encoded bytes (`wireOf`); corked unless `inCallback` (as `write`). */
function writeWire(res: uWS.HttpResponse, wire: WireReply, closeConnection: boolean, inCallback = false): void {
  if (inCallback) {
    res.writeStatus(wire.head);
    res.end(wire.body, closeConnection);
  } else
    res.cork(() => {
      res.writeStatus(wire.head);
      res.end(wire.body, closeConnection);
    });
}

/**
 * The whole reply; `head`: a HEAD's answer, the headers alone. `inCallback`: written in the uWS
 * callback that received the request, where uWS has corked the socket already (everything written
 * there leaves in one send); a `cork` there only costs a call back into JavaScript. Anywhere
 * else (after an await) the writes are corked here.
 */
export function write(res: uWS.HttpResponse, reply: HttpReply, closeConnection: boolean, head = false, inCallback = false): void {
  const wire = head ? null : wireOf(reply);
  if (wire !== null) writeWire(res, wire, closeConnection, inCallback);
  else if (inCallback) writeReply(res, reply, closeConnection, head);
  else res.cork(() => writeReply(res, reply, closeConnection, head));
}

function writeReply(res: uWS.HttpResponse, reply: HttpReply, closeConnection: boolean, head: boolean): void {
  writeHead(res, reply);
  // A 304 has no body, and no Content-Length of an empty one either (it would describe the 200).
  // Called without arguments: given any, the binding writes a length (a bogus one for undefined),
  // and in this binding a reported length leaves the response unended: the length is ours to write.
  if (reply.status === 304) res.endWithoutBody();
  else if (head) {
    // RFC 9110 9.3.2: the GET's headers, its Content-Length included, and no content. Bytes after
    // the head would be read by a kept-alive client as the start of its next response.
    res.writeHeader('Content-Length', String(contentBytes(reply.body)));
    res.endWithoutBody();
  } else res.end(reply.body, closeConnection);
}

/** A streamed reply's head alone, for HEAD (run corked). */
export function writeHeadOnly(res: uWS.HttpResponse, reply: AnyReply): void {
  res.cork(() => {
    writeHead(res, reply);
    res.endWithoutBody();
  });
}

/** What a written reply weighed on the wire: a stream with the content it streamed, a HEAD's without its content. */
export function repliedBytes(reply: AnyReply, head: boolean, streamed = 0): number {
  if ('stream' in reply) return headBytes(statusLine(reply.status), reply.headers, null) + streamed;
  const wire = head ? undefined : WIRE.get(reply);
  if (wire !== undefined) return wire.bytes;
  const length = reply.status === 304 ? 0 : contentBytes(reply.body);
  return headBytes(statusLine(reply.status), reply.headers, length) + (head ? 0 : length);
}
