/**
 * Copies what a handler needs out of a uWS request before the callback returns (uWS reuses the
 * request and the body chunks' memory afterwards). Types only from uWS: server.ts loads it.
 */
import type uWS from 'uWebSockets.js';

/** Copies the request's headers (lower-case names; repeats joined) and their total size, bytes. */
export function copyHeaders(req: uWS.HttpRequest): { headers: Record<string, string>; bytes: number } {
  const headers: Record<string, string> = {};
  let bytes = 0;
  req.forEach((k, v) => {
    bytes += k.length + v.length;
    // Repeated headers are joined as RFC 9110 allows for list-valued fields.
    headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
  });
  return { headers, bytes };
}

/** Reads the body into one Buffer, or null once it passes `maxBytes` (the rest is ignored). */
export function readBody(res: uWS.HttpResponse, maxBytes: number, onDone: (body: Buffer | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  res.onData((chunk, isLast) => {
    size += chunk.byteLength;
    if (size > maxBytes) {
      if (size - chunk.byteLength <= maxBytes) onDone(null);
      return;
    }
    // uWS reuses the chunk's memory after this callback returns: copy it out.
    chunks.push(Buffer.from(new Uint8Array(chunk)));
    if (isLast) onDone(Buffer.concat(chunks));
  });
}
