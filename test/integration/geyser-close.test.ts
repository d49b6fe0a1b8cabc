/**
 * close() of the Geyser stream is bounded whatever the server does. The bug this catches: a close
 * that came while the client was still connecting (the server hung, e.g. a paused process) was
 * never seen by the stream opened once the server answered again, so a live stream kept close()
 * (and the service's shutdown) waiting forever.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGeyserStream } from '../../src/chain/geyser/geyser-client.ts';
import type { Localnet } from '@solana-x402-intel/localnet';
import { startTcpFaultRelay } from '../helpers/tcp-fault-relay.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

let localnet: Localnet;

beforeAll(async () => {
  ({ localnet } = await startTestLocalnet());
}, 120_000);

afterAll(async () => {
  await localnet.close();
});

describe('closing the Geyser stream', () => {
  it('finishes when close() comes while connecting to a frozen server that answers afterwards', async () => {
    const relay = await startTcpFaultRelay(Number(new URL(localnet.urls.geyser).port), 'hold');
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
      relay.mode = 'pass';
      await closing;
      expect(stream.status().state).toBe('closed');
      // Nothing subscribed after the close: while a second client, through the same relay, sees
      // the server stream three slots, the closed one gets none.
      const after = slots.length;
      const seen: number[] = [];
      const control = createGeyserStream({
        url: relay.url,
        token: null,
        handlers: { onSubscribed() {}, onSlot: (slot) => void seen.push(slot), onTransaction() {} },
      });
      control.start();
      try {
        await vi.waitUntil(() => seen.length >= 3, { timeout: 20_000, interval: 20 });
      } finally {
        await control.close();
      }
      expect(slots.length).toBe(after);
    } finally {
      await relay.close();
    }
  }, 60_000);
});
