/**
 * Writes a streamed reply to a uWS response: the head corked, then each chunk corked as the stream
 * yields it. When uWS has to buffer (a slow client), the next read waits until the socket drains,
 * so a stream never piles up in memory; when the client goes away the stream is cancelled, which
 * ends its producer.
 */
import type uWS from 'uWebSockets.js';
import type { StreamedReply } from './route.ts';
import { CHUNK_FRAME_BYTES } from './wire-bytes.ts';

/** Resolves when uWS reports the response writable again, or at once if the client is gone. */
function drained(res: uWS.HttpResponse, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    res.onWritable(() => {
      done();
      return true;
    });
  });
}

/**
 * Streams `reply` after `writeHead` (status and headers, run corked). Resolves when the body ended,
 * failed (the response is then ended where it stands) or the client went away (`signal`), with the
 * bytes of content written (each chunk with its chunked framing).
 */
export async function writeStream(
  res: uWS.HttpResponse,
  reply: StreamedReply,
  writeHead: () => void,
  signal: AbortSignal,
  closeConnection: () => boolean,
): Promise<number> {
  const reader = reply.stream.getReader();
  let sent = 0;
  const cancel = () => {
    reader.cancel().catch(() => undefined);
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    if (signal.aborted) return sent;
    res.cork(writeHead);
    for (;;) {
      const { done, value } = await reader.read();
      if (signal.aborted) return sent;
      if (done) break;
      sent += value.byteLength + CHUNK_FRAME_BYTES;
      let written = true;
      res.cork(() => {
        written = res.write(value);
      });
      if (!written) await drained(res, signal);
    }
  } catch {
    // The producer failed mid-stream: end the response with what was sent.
  } finally {
    signal.removeEventListener('abort', cancel);
  }
  if (!signal.aborted) res.cork(() => res.end('', closeConnection()));
  return sent;
}
