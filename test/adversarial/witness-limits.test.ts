/**
 * Anyone who can reach a witness (docs/security.md#a-witnesss-connections): a slow client is cut within the
 * head and body deadlines, one client cannot hold every connection, all clients together cannot
 * hold more than the cap, and a client sending faster than its pace gets 429 while the others are
 * answered. The real listener with its default limits, the pace's clock pinned (no refill);
 * clients are told apart by the loopback address they connect from (127.0.0.0/8 is all local on Linux).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WITNESS_CONNECTIONS_PER_CLIENT, WITNESS_MAX_CONNECTIONS, WITNESS_REQUEST_BURST } from '../../src/witness/witness-admission.ts';
import { startWitnessServer, WITNESS_HEADERS_TIMEOUT_MS, WITNESS_REQUEST_TIMEOUT_MS, type WitnessServer } from '../../src/witness/witness-server.ts';

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

/** When the server closed `socket`, ms after `since`, or null if it still held it after `waitMs`. */
function closedWithin(socket: Socket, since: number, waitMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), waitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - since);
    });
  });
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
  it('are cut within the head and body deadlines: a silent one, one trickling its head, one trickling its body', async () => {
    const started = performance.now();
    const silent = await open('127.0.3.1');
    const head = await open('127.0.3.2');
    const body = await open('127.0.3.3');
    head.write('POST /add-checkpoint HTTP/1.1\r\nHost: w\r\n');
    body.write('POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nContent-Length: 60000\r\n\r\n');
    const trickle = setInterval(() => {
      if (head.writable) head.write('X-Slow: y\r\n');
      if (body.writable) body.write('z');
    }, 200);
    const waitMs = WITNESS_REQUEST_TIMEOUT_MS + SLACK_MS + 1_000;
    const closed = await Promise.all([silent, head, body].map((s) => closedWithin(s, started, waitMs)));
    clearInterval(trickle);
    // Before: Node looked at its deadlines every 30 s, and the request deadline was 10 s: each held its socket for 30 to 40 s.
    expect(closed.map((ms) => ms !== null)).toEqual([true, true, true]);
    expect(closed[0]!).toBeLessThan(WITNESS_HEADERS_TIMEOUT_MS + SLACK_MS);
    expect(closed[1]!).toBeLessThan(WITNESS_HEADERS_TIMEOUT_MS + SLACK_MS);
    expect(closed[2]!).toBeLessThan(WITNESS_REQUEST_TIMEOUT_MS + SLACK_MS);
  }, 30_000);
});

describe('connections', () => {
  it('one client holds at most its share, and another client is still answered', async () => {
    const held = await Promise.all(Array.from({ length: WITNESS_CONNECTIONS_PER_CLIENT }, () => open('127.0.4.1')));
    const extra = await open('127.0.4.1');
    // Before: every connection was kept, however many one client opened.
    expect(await closedWithin(extra, performance.now(), 2_000)).not.toBeNull();
    expect(await post('127.0.4.2')).toBe('HTTP/1.1 400 Bad Request');
    for (const s of held) s.destroy();
  });

  it('all clients together hold at most the cap', async () => {
    const clients = Math.ceil(WITNESS_MAX_CONNECTIONS / WITNESS_CONNECTIONS_PER_CLIENT);
    const held: Socket[] = [];
    for (let c = 0; c < clients; c++) held.push(...(await Promise.all(Array.from({ length: WITNESS_CONNECTIONS_PER_CLIENT }, () => open(`127.0.5.${c + 1}`)))));
    // The server counts a connection once it accepted it: give it the moment to see them all.
    await new Promise((r) => setTimeout(r, 200));
    expect(await post('127.0.6.1')).toBe('closed');
    for (const s of held) s.destroy();
    await Promise.all(held.map((s) => (s.closed ? null : new Promise((r) => s.once('close', r)))));
    await new Promise((r) => setTimeout(r, 200));
    expect(await post('127.0.6.1')).toBe('HTTP/1.1 400 Bad Request');
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
