/**
 * The stream hub and its lapse wheel without a network: a fake socket records what a session sends
 * and how it closes, a fake payment side answers what the test says, and the clock moves only when
 * the test moves it. Covers what the integration test cannot force on a loopback socket: a slow
 * consumer (uWS's unsent bytes past the bound) and the unpaid socket's deadline.
 */
import { describe, expect, it, vi } from 'vitest';
import { STREAM_CATALOG } from '../../../src/catalog/streams.ts';
import { createLapseWheel } from '../../../src/http/streams/lapse-wheel.ts';
import { createStreamHub } from '../../../src/http/streams/stream-hub.ts';
import { STREAM_GRACE_MS, STREAM_MAX_BACKPRESSURE_BYTES, STREAM_UNPAID_MAX_MS } from '../../../src/http/streams/stream-protocol.ts';
import type { StreamCharge, StreamPayments } from '../../../src/x402/flow/stream-payment.ts';
import { manualStreamClock } from '../../helpers/stream-client.ts';

const stream = STREAM_CATALOG[0]!;

function fakeSocket() {
  const sent: any[] = [];
  const state = { buffered: 0, ended: null as null | { code: number; reason: string }, subscribed: false };
  return {
    sent,
    state,
    socket: {
      send: (text: string) => void sent.push(JSON.parse(text)),
      end: (code: number, reason: string) => {
        state.ended = { code, reason };
      },
      subscribe: () => {
        state.subscribed = true;
      },
      unsubscribe: () => {
        state.subscribed = false;
      },
      buffered: () => state.buffered,
    },
  };
}

function setup(charge: (paidUntil: number) => StreamCharge) {
  const clock = manualStreamClock(0);
  const payments: StreamPayments = {
    paymentRequired: () => ({ accepts: [] }),
    pay: async (_s, attempt) => charge(attempt.paidUntil),
  };
  const hub = createStreamHub({ payments, clock });
  return { clock, hub };
}

const paidFor =
  (now: () => number) =>
  (paidUntil: number): StreamCharge => ({
    ok: true,
    paidUntil: Math.max(now(), paidUntil) + stream.periodSeconds * 1000,
    charged: true,
    paymentResponse: { success: true },
    receipt: `r${paidUntil}`,
  });

const PAYMENT = JSON.stringify({ type: 'payment', payment: { x402Version: 2 } });

describe('the stream hub', () => {
  it('cuts a paid subscriber whose unsent bytes pass the bound with slow_consumer, and not before', async () => {
    const { clock, hub } = setup((p) => paidFor(() => clock.now())(p));
    const s = fakeSocket();
    const session = hub.open({ stream, resourceUrl: 'ws://x/v1/stream/tipfloor', client: 'c' }, s.socket);
    session.message(PAYMENT);
    await vi.waitUntil(() => s.state.subscribed);
    s.state.buffered = STREAM_MAX_BACKPRESSURE_BYTES;
    clock.advance(250);
    expect(s.state.ended).toBeNull();
    s.state.buffered = STREAM_MAX_BACKPRESSURE_BYTES + 1;
    clock.advance(250);
    expect(s.state.ended).toEqual({ code: 4003, reason: 'slow_consumer' });
    expect(s.sent.at(-1)).toMatchObject({ type: 'closing', reason: 'slow_consumer' });
    expect(hub.status().open).toBe(0);
  });

  it('closes an unpaid socket at its deadline, and a paid one at paidUntil + grace, not a slot before', async () => {
    const { clock, hub } = setup((p) => paidFor(() => clock.now())(p));
    const unpaid = fakeSocket();
    hub.open({ stream, resourceUrl: 'ws://x', client: 'c' }, unpaid.socket);
    const paid = fakeSocket();
    const session = hub.open({ stream, resourceUrl: 'ws://x', client: 'c' }, paid.socket);
    session.message(PAYMENT);
    await vi.waitUntil(() => paid.state.subscribed);
    const until = session.paidUntil;
    clock.advance(until + STREAM_GRACE_MS - 250 - clock.now());
    expect(paid.sent.map((m) => m.type)).toEqual(['payment-required', 'payment-response', 'renew']);
    expect(paid.state.ended).toBeNull();
    clock.advance(250);
    expect(paid.state.ended).toEqual({ code: 4001, reason: 'lapsed' });
    clock.advance(STREAM_UNPAID_MAX_MS - clock.now() - 1);
    expect(unpaid.state.ended).toBeNull();
    clock.advance(250);
    expect(unpaid.state.ended).toEqual({ code: 4002, reason: 'unpaid' });
  });

  it('counts messages per second of the stream clock: the eleventh in one second is a flood, the next second starts again', async () => {
    const { clock, hub } = setup((p) => paidFor(() => clock.now())(p));
    const s = fakeSocket();
    const session = hub.open({ stream, resourceUrl: 'ws://x', client: 'c' }, s.socket);
    const payOnce = async () => {
      const answered = s.sent.length + 1;
      session.message(PAYMENT);
      await vi.waitUntil(() => s.sent.length >= answered);
    };
    for (let i = 0; i < 10; i++) await payOnce();
    clock.advance(1000);
    for (let i = 0; i < 10; i++) await payOnce();
    expect(s.state.ended).toBeNull();
    session.message(PAYMENT);
    expect(s.state.ended).toEqual({ code: 4005, reason: 'flood' });
  });

  it('a window is held by one socket: the same payment resumed on another supersedes the first', async () => {
    const { clock, hub } = setup(() => ({ ok: true, paidUntil: clock.now() + 10_000, charged: false, paymentResponse: {}, receipt: 'same' }));
    const a = fakeSocket();
    const b = fakeSocket();
    hub.open({ stream, resourceUrl: 'ws://x', client: 'c' }, a.socket).message(PAYMENT);
    await vi.waitUntil(() => a.state.subscribed);
    hub.open({ stream, resourceUrl: 'ws://x', client: 'c' }, b.socket).message(PAYMENT);
    await vi.waitUntil(() => b.state.subscribed);
    expect(a.state.ended).toEqual({ code: 4007, reason: 'superseded' });
    expect(b.state.ended).toBeNull();
  });

  it('cuts a message above the size bound with flood', () => {
    const { hub } = setup(() => ({ ok: false, reason: 'x', message: 'y' }));
    const s = fakeSocket();
    hub.open({ stream, resourceUrl: 'ws://x', client: 'c' }, s.socket).message('x'.repeat(9000));
    expect(s.state.ended).toEqual({ code: 4005, reason: 'flood' });
  });
});

describe('the lapse wheel', () => {
  it('gives each item once when its slot is due, forgets cancelled ones, and files past moments for the next tick', () => {
    const wheel = createLapseWheel<string>(250);
    wheel.at('a', 1000);
    wheel.at('a', 1100);
    wheel.at('b', 2000);
    wheel.at('c', 1000);
    wheel.cancel('c');
    expect(wheel.due(999)).toEqual([]);
    expect(wheel.due(1250)).toEqual(['a']);
    expect(wheel.due(1999)).toEqual([]);
    expect(wheel.due(2000)).toEqual(['b']);
    wheel.at('d', 0);
    expect(wheel.due(2000)).toEqual(['d']);
    expect(wheel.size).toBe(0);
  });
});
