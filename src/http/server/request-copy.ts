/**
 * Copies what a handler needs out of a uWS request before the callback returns (uWS reuses the
 * request and the body chunks' memory afterwards). Types only from uWS: server.ts loads it.
 */
import type uWS from 'uWebSockets.js';

// The copy in progress: one callback for every request, not a closure made per request.
let copying: Record<string, string> = {};
let copiedBytes = 0;
const copyOne = (k: string, v: string): void => {
  copiedBytes += k.length + v.length;
  // Repeated headers are joined as RFC 9110 allows for list-valued fields.
  copying[k] = copying[k] === undefined ? v : `${copying[k]}, ${v}`;
};

/** Copies the request's headers (lower-case names; repeats joined); their size is `copiedHeaderBytes()` until the next copy. */
export function copyHeaders(req: uWS.HttpRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  copying = headers;
  copiedBytes = 0;
  req.forEach(copyOne);
  return headers;
}

/** The total size of the headers `copyHeaders` copied last, bytes (read in the same callback: no wrapper object per request). */
export const copiedHeaderBytes = (): number => copiedBytes;

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
