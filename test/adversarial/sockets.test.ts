/**
 * Attacks on the front end's sockets (docs/security.md#sockets-the-pool-proxies-and-processes),
 * against the real service: uploads announced and never sent, then dropped.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../helpers/test-service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t?.close());

/** Opens a connection and sends `head` (and a body's beginning), leaving the rest unsent. */
function partialRequest(port: number, head: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head, () => resolve(socket)));
    socket.on('error', reject);
  });
}

describe('aborted uploads', () => {
  it('200 POST /mcp announcing 60,000 bytes, sending 10, then closing: none stays in flight', async () => {
    const head = 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"jsonrpc"';
    const sockets = await Promise.all(Array.from({ length: 200 }, () => partialRequest(t.service.port, head)));
    // Tracked while the bodies are awaited: the count is the service's, not a guess.
    await vi.waitUntil(() => t.service.inFlight() === 200, { timeout: 20_000 });
    for (const s of sockets) s.destroy();
    // Before the fix they stayed in flight for ever, and a shutdown waited its whole drain time for them.
    await vi.waitUntil(() => t.service.inFlight() === 0, { timeout: 20_000 });
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });
});
