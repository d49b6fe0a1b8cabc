/**
 * close() of the Geyser stream is bounded whatever the server does. The bug this catches: a close
 * that came while the client was still connecting (the server hung, e.g. a paused process) was
 * never seen by the stream opened once the server answered again, so a live stream kept close()
 * (and the service's shutdown) waiting forever.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGeyserStream } from '../../src/chain/geyser-client.ts';
import type { Localnet } from '@solana-x402-intel/localnet';
import { startTestLocalnet } from '../helpers/test-service.ts';

/** A TCP relay that can hold every byte in both directions (a frozen peer) and release them later. */
interface HoldingRelay {
  readonly url: string;
  /** Bytes the client sent while held. */
  heldFromClient(): number;
  release(): void;
  close(): Promise<void>;
}

async function startHoldingRelay(targetPort: number): Promise<HoldingRelay> {
  let held = true;
  let fromClient = 0;
  const queues: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket, counted: boolean) =>
    from.on('data', (chunk) => {
      if (!held) return void to.write(chunk);
      if (counted) fromClient += chunk.length;
      queues.push(() => to.write(chunk));
    });
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    forward(client, upstream, true);
    forward(upstream, client, false);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    heldFromClient: () => fromClient,
    release() {
      held = false;
      for (const send of queues.splice(0)) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

let localnet: Localnet;

beforeAll(async () => {
  ({ localnet } = await startTestLocalnet('geyser-close-1'));
}, 120_000);

afterAll(async () => {
  await localnet.close();
});

describe('closing the Geyser stream', () => {
  it('finishes when close() comes while connecting to a frozen server that answers afterwards', async () => {
    const relay = await startHoldingRelay(Number(new URL(localnet.urls.geyser).port));
    const slots: number[] = [];
    const stream = createGeyserStream({
      url: relay.url,
      token: null,
      handlers: { onSubscribed() {}, onSlot: (slot) => void slots.push(slot), onTransaction() {} },
    });
    try {
      stream.start();
      // The client's connection preface is held: the connect is in flight.
      await vi.waitUntil(() => relay.heldFromClient() > 0, { timeout: 20_000, interval: 20 });
      const closing = stream.close();
      relay.release();
      await closing;
      expect(stream.status().state).toBe('closed');
      // Nothing subscribed after the close: no slot arrives however long the server streams.
      const after = slots.length;
      await new Promise((r) => setTimeout(r, 1_000));
      expect(slots.length).toBe(after);
    } finally {
      await relay.close();
    }
  }, 60_000);
});
