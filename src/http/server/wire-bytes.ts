/**
 * What an answer weighs on the wire, as the free limit's byte bound counts it (client-admission.ts):
 * the status line, every header the front end writes and the ones uWS adds (its date, the length
 * or the chunked framing), the blank line, and the content. Reckoned from lengths only (every
 * header we write is ASCII), so counting costs a few additions per header; no uWS here.
 */
import { CORS_HEADERS } from './route-table.ts';

/** What the front end tells the free limit of the bytes it sent (client-admission.ts implements it). */
export interface ByteMeter {
  /** Whether the answer of `path` with `status` counts (asked first: one that does not costs no reckoning). */
  counts(path: string, status: number): boolean;
  /** Spends `bytes` sent to `client`; false once the client owes bytes. */
  sent(client: string, bytes: number): boolean;
}

/** `HTTP/1.1 ` before the status line and its CRLF. */
const STATUS_LINE_FRAME_BYTES = 'HTTP/1.1 \r\n'.length;
/** The date uWS writes into every answer (`Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n`). */
const DATE_LINE_BYTES = 37;
/** The blank line that ends a head. */
const HEAD_END_BYTES = 2;
/** `Transfer-Encoding: chunked\r\n`, and each chunk's size line and CRLF (a few hex digits). */
const CHUNKED_LINE_BYTES = 28;
export const CHUNK_FRAME_BYTES = 8;

let corsBytes = 0;
for (const k in CORS_HEADERS) corsBytes += k.length + CORS_HEADERS[k]!.length + 4;

/** The head's bytes: status line, CORS, the reply's headers, the date, the framing line (`contentLength` null: chunked). */
export function headBytes(statusLine: string, headers: Readonly<Record<string, string>> | undefined, contentLength: number | null): number {
  let n = STATUS_LINE_FRAME_BYTES + statusLine.length + corsBytes + DATE_LINE_BYTES + HEAD_END_BYTES;
  if (headers) for (const k in headers) n += k.length + headers[k]!.length + 4;
  return n + (contentLength === null ? CHUNKED_LINE_BYTES : CONTENT_LENGTH_LINE_BYTES + digits(contentLength));
}

/** `Content-Length: \r\n` around the length's digits. */
const CONTENT_LENGTH_LINE_BYTES = 'Content-Length: \r\n'.length;

/** The decimal digits of a length, counted (no string made per answer). */
function digits(n: number): number {
  let d = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) d++;
  return d;
}

/** The content's bytes as they are written (UTF-8 for text). */
export const contentBytes = (body: string | Buffer): number => (typeof body === 'string' ? Buffer.byteLength(body) : body.length);
