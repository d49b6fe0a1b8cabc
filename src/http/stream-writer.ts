/**
 * Writes a streamed reply to a uWS response: the head corked, then each chunk corked as the stream
 * yields it. When uWS has to buffer (a slow client), the next read waits until the socket drains,
 * so a stream never piles up in memory; when the client goes away the stream is cancelled, which
 * ends its producer.
 */
import type uWS from 'uWebSockets.js';
import type { StreamedReply } from './route.ts';

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
 * failed (the response is then ended where it stands) or the client went away (`signal`).
 */
export async function writeStream(
  res: uWS.HttpResponse,
  reply: StreamedReply,
  writeHead: () => void,
  signal: AbortSignal,
  closeConnection: () => boolean,
): Promise<void> {
  const reader = reply.stream.getReader();
  const cancel = () => {
    reader.cancel().catch(() => undefined);
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    if (signal.aborted) return;
    res.cork(writeHead);
    for (;;) {
      const { done, value } = await reader.read();
      if (signal.aborted) return;
      if (done) break;
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
}
