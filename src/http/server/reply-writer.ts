/**
 * How a reply becomes bytes on a uWS response (types only from uWS: server.ts loads it): the status
 * line, the CORS headers every reply carries and the reply's own, then the body, or none for a 304
 * and for `HEAD`; and what those bytes weigh, for the free limit's byte bound (wire-bytes.ts).
 */
import type uWS from 'uWebSockets.js';
import type { HttpReply } from '../../errors.ts';
import type { AnyReply } from './route.ts';
import { CORS_HEADERS, STATUS_TEXT } from './route-table.ts';
import { contentBytes, headBytes } from './wire-bytes.ts';

const CORS_ENTRIES = Object.entries(CORS_HEADERS);
const STATUS_LINES = new Map(Object.entries(STATUS_TEXT).map(([code, text]) => [Number(code), `${code} ${text}`]));
const statusLine = (status: number): string => STATUS_LINES.get(status) ?? `${status} Status`;

/** The status line and headers (run corked). */
export function writeHead(res: uWS.HttpResponse, reply: AnyReply): void {
  res.writeStatus(statusLine(reply.status));
  for (const [k, v] of CORS_ENTRIES) res.writeHeader(k, v);
  const headers = reply.headers;
  if (headers) for (const k in headers) res.writeHeader(k, headers[k]!);
}

/** The whole reply, corked; `head`: a HEAD's answer, the headers alone. */
export function write(res: uWS.HttpResponse, reply: HttpReply, closeConnection: boolean, head = false): void {
  res.cork(() => {
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
  });
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
  const length = reply.status === 304 ? 0 : contentBytes(reply.body);
  return headBytes(statusLine(reply.status), reply.headers, length) + (head ? 0 : length);
}
