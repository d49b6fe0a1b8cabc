/**
 * Anyone who can reach a witness (docs/security.md#a-witnesss-connections): a slow client is cut within the
 * head and body deadlines, one client cannot hold every connection, all clients together cannot
 * hold more than the cap, and a client sending faster than its pace gets 429 while the others are
 * answered. The real listener with its default limits, the pace's clock pinned (no refill);
 * clients are told apart by the loopback address they connect from (127.0.0.0/8 is all local on Linux).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WITNESS_CONNECTIONS_PER_CLIENT, WITNESS_MAX_CONNECTIONS, WITNESS_REQUEST_BURST } from '../../src/witness/witness-admission.ts';
import { startWitnessServer, WITNESS_REQUEST_TIMEOUT_MS, type WitnessServer } from '../../src/witness/witness-server.ts';

/** Longest a deadline may take to cut a client here: the deadline, Node's check interval, and room for a busy machine. */
const SLACK_MS = 2_000;
let witness: WitnessServer;
beforeAll(async () => {
  // The listener alone: every request it lets through is answered 400 without touching a state.
  witness = await startWitnessServer({
    host: '127.0.0.1',
    port: 0,
    addCheckpoint: async () => ({ status: 400, contentType: 'application/json', body: '{"error":"invalid_request"}' }),
    now: () => 0,
  });
});
afterAll(async () => witness?.close());

const sockets: Socket[] = [];
afterAll(() => {
  for (const s of sockets) s.destroy();
});

/** A connection from `from`, open (or refused at once). */
function open(from: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: witness.port, host: '127.0.0.1', localAddress: from }, () => resolve(socket));
    socket.on('error', reject);
    // Flowing, so the server's end of the connection is seen (a paused socket never reads its end).
    socket.resume();
    sockets.push(socket);
  });
}

/** Whether the server closed `socket`, and the first line it answered on it before (a 408 when a deadline cut it). */
function watch(socket: Socket): { readonly closed: () => boolean; readonly answer: () => string } {
  let closed = false;
  let got = '';
  socket.on('data', (c: Buffer) => {
    got += c.toString('latin1');
  });
  socket.on('close', () => {
    closed = true;
  });
  return { closed: () => closed, answer: () => got.slice(0, Math.max(0, got.indexOf('\r\n'))) };
}

/** The status line of one POST sent on a fresh connection from `from` (`closed` when the server dropped the connection unanswered). */
async function post(from: string): Promise<string> {
  const socket = await open(from);
  return new Promise((resolve) => {
    let got = '';
    socket.removeAllListeners('error');
    socket.on('data', (c: Buffer) => {
      got += c.toString();
    });
    socket.on('close', () => resolve(got === '' ? 'closed' : got.slice(0, got.indexOf('\r\n'))));
    socket.on('error', () => undefined);
    socket.write('POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nContent-Length: 2\r\nConnection: close\r\n\r\nxx');
  });
}

describe('slow clients', () => {
  it('are cut by the head and body deadlines: a silent one, one trickling its head, one trickling its body', async () => {
    const sockets = [await open('127.0.3.1'), await open('127.0.3.2'), await open('127.0.3.3')];
    const [, head, body] = sockets as [Socket, Socket, Socket];
    const seen = sockets.map(watch);
    head.write('POST /add-checkpoint HTTP/1.1\r\nHost: w\r\n');
    body.write('POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nContent-Length: 60000\r\n\r\n');
    const trickle = setInterval(() => {
      if (head.writable) head.write('X-Slow: y\r\n');
      if (body.writable) body.write('z');
    }, 200);
    // Before: Node looked at its deadlines every 30 s, and the request deadline was 10 s: each held its socket for 30 to 40 s.
    await vi.waitUntil(() => seen.every((s) => s.closed()), { timeout: WITNESS_REQUEST_TIMEOUT_MS + SLACK_MS });
    clearInterval(trickle);
    expect(seen.map((s) => s.answer())).toEqual(Array(3).fill('HTTP/1.1 408 Request Timeout'));
  }, 30_000);
});

describe('connections', () => {
  it('one client holds at most its share, and another client is still answered', async () => {
    const held = await Promise.all(Array.from({ length: WITNESS_CONNECTIONS_PER_CLIENT }, () => open('127.0.4.1')));
    const extra = watch(await open('127.0.4.1'));
    // Before: every connection was kept, however many one client opened.
    await vi.waitUntil(extra.closed, { timeout: 2_000 });
    expect(extra.answer()).toBe('');
    expect(await post('127.0.4.2')).toBe('HTTP/1.1 400 Bad Request');
    for (const s of held) s.destroy();
  });

  it('all clients together hold at most the cap', async () => {
    const clients = Math.ceil(WITNESS_MAX_CONNECTIONS / WITNESS_CONNECTIONS_PER_CLIENT);
    const held: Socket[] = [];
    for (let c = 0; c < clients; c++) held.push(...(await Promise.all(Array.from({ length: WITNESS_CONNECTIONS_PER_CLIENT }, () => open(`127.0.5.${c + 1}`)))));
    // The server counts a connection once it accepted it: until it saw them all, a newcomer may still be answered.
    let newcomer = 0;
    await vi.waitUntil(async () => (await post(`127.0.6.${++newcomer}`)) === 'closed', { timeout: 10_000 });
    for (const s of held) s.destroy();
    // Before: the newcomer was answered whatever was open. Once the others left, the next one is.
    await vi.waitUntil(async () => (await post(`127.0.6.${++newcomer}`)) === 'HTTP/1.1 400 Bad Request', { timeout: 10_000 });
  });
});

describe('requests', () => {
  it('beyond a client’s pace are refused 429 with Retry-After; another client is still answered', async () => {
    const seen: string[] = [];
    for (let i = 0; i < WITNESS_REQUEST_BURST + 3; i++) seen.push(await post('127.0.7.1'));
    // Before: every one was answered (and each could have carried a note to parse and check).
    expect(seen).toEqual([
      ...Array<string>(WITNESS_REQUEST_BURST).fill('HTTP/1.1 400 Bad Request'),
      ...Array<string>(3).fill('HTTP/1.1 429 Too Many Requests'),
    ]);
    expect(await post('127.0.7.2')).toBe('HTTP/1.1 400 Bad Request');
  });
});
