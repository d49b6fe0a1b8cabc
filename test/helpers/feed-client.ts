/**
 * Clients of the live feeds for tests: Node's own WebSocket (enabled in vitest.config.ts) that
 * queues messages for `next`, and a raw HTTP upgrade for what a WebSocket client hides (the
 * status of a refused upgrade, a subscriber that stops reading).
 */
import { request } from 'node:http';
import type { Socket } from 'node:net';

/** A connected WebSocket and its messages in arrival order. */
export interface FeedConnection {
  readonly socket: WebSocket;
  /** The next message (waits for it). */
  next(): Promise<string>;
  /** Resolves with the close code once the server closes the socket. */
  readonly closed: Promise<number>;
}

/** Opens a WebSocket to `url` and waits until it is open. */
export function openFeed(url: string): Promise<FeedConnection> {
  const socket = new WebSocket(url);
  const queue: string[] = [];
  const waiting: ((m: string) => void)[] = [];
  socket.onmessage = (ev) => {
    const m = String(ev.data);
    const w = waiting.shift();
    if (w) w(m);
    else queue.push(m);
  };
  const closed = new Promise<number>((resolve) => {
    socket.onclose = (ev) => resolve(ev.code);
  });
  return new Promise((resolve, reject) => {
    socket.onopen = () =>
      resolve({
        socket,
        closed,
        next: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise<string>((r) => waiting.push(r))),
      });
    socket.onerror = () => reject(new Error(`WebSocket to ${url} failed`));
  });
}

/** The HTTP answer to an upgrade request the server refused. */
export interface RefusedUpgrade {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** Sends a WebSocket upgrade request (with `headers` besides); resolves with the raw socket when upgraded, or the refusal. */
export function rawUpgrade(url: string, headers: Readonly<Record<string, string>> = {}): Promise<{ upgraded: Socket } | { refused: RefusedUpgrade }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
    });
    req.on('upgrade', (_res, socket) => resolve({ upgraded: socket }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ refused: { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() } }));
    });
    req.on('error', reject);
    req.end();
  });
}
