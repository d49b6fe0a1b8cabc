/**
 * Reads a node:http request body as UTF-8 for the localnet's JSON-RPC servers (Solana and EVM),
 * stopping at `maxBytes`: an oversized body resolves null and the socket is destroyed, so a
 * client cannot make the localnet buffer without bound.
 */
import type { IncomingMessage } from 'node:http';

/** The body text, or null when it exceeds `maxBytes`. */
export function readRequestBody(req: IncomingMessage, maxBytes: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
