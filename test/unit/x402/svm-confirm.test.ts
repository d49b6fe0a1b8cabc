/**
 * How a Solana settlement waits for its commitment (src/x402/exact-svm/svm-confirm.ts), with the signature
 * watch fed as the stream feeds it and an RPC that records each getSignatureStatuses it is asked:
 * a live stream confirms without polling, a missed update is caught by the slow safety checks, a
 * stale or absent stream polls as before, a failure on the stream is reported with the RPC's error,
 * `finalized` waits for the RPC to say so, and time running out is `pending`. The clock is fake
 * (timers and Date), so what is checked is the order of events, never how long they took.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SignatureStatus } from '../../../src/chain/solana/rpc-client.ts';
import { createSignatureWatch } from '../../../src/chain/geyser/signature-watch.ts';
import {
  CONFIRM_POLL_MS,
  type ConfirmOutcome,
  confirmSignature,
  STREAM_CHECK_EVERY_MS,
  STREAM_FIRST_CHECK_MS,
} from '../../../src/x402/exact-svm/svm-confirm.ts';
import { freshSignature, landed } from '../../helpers/stream-signatures.ts';

const TIMEOUT_MS = 30_000;

/** An RPC whose answer is what the chain says now; every status query is counted. */
function recordingRpc() {
  const rpc = {
    answer: null as SignatureStatus | null,
    polls: 0,
    getSignatureStatus: async () => {
      rpc.polls++;
      return rpc.answer;
    },
  };
  return rpc;
}

/** A watch whose stream is live while `stream.live` says so, and one signature registered on it. */
function streamed() {
  const stream = { live: true };
  const watch = createSignatureWatch({ isLive: () => stream.live });
  const sig = freshSignature();
  const watched = watch.watch(sig.id)!;
  return { stream, watch, sig, watched, confirm: { watched, live: watch.live } };
}

/** The outcome once settled, or null while the wait goes on. */
function track(p: Promise<ConfirmOutcome>): { readonly outcome: ConfirmOutcome | null } {
  const box = { outcome: null as ConfirmOutcome | null };
  void p.then((o) => {
    box.outcome = o;
  });
  return box;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('confirmSignature with a live stream', () => {
  it('is confirmed by the streamed transaction with no status query', async () => {
    const rpc = recordingRpc();
    const s = streamed();
    const waiting = track(confirmSignature(rpc, s.sig.id, 'confirmed', TIMEOUT_MS, s.confirm));
    await vi.advanceTimersByTimeAsync(STREAM_FIRST_CHECK_MS / 2);
    expect(waiting.outcome).toBeNull();
    s.watch.feed.onTransaction(77, landed(s.sig.bytes));
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.outcome).toEqual({ status: 'confirmed', slot: 77 });
    expect(rpc.polls).toBe(0);
  });

  it('a missed update does not hang it: the safety checks find the confirmation', async () => {
    const rpc = recordingRpc();
    const s = streamed();
    const waiting = track(confirmSignature(rpc, s.sig.id, 'confirmed', TIMEOUT_MS, s.confirm));
    await vi.advanceTimersByTimeAsync(STREAM_FIRST_CHECK_MS - 1);
    expect(rpc.polls).toBe(0);
    await vi.advanceTimersByTimeAsync(1 + 2 * STREAM_CHECK_EVERY_MS);
    expect(rpc.polls).toBe(3);
    rpc.answer = { confirmationStatus: 'confirmed', err: null, slot: 90 };
    await vi.advanceTimersByTimeAsync(STREAM_CHECK_EVERY_MS);
    expect(waiting.outcome).toEqual({ status: 'confirmed', slot: 90 });
    expect(rpc.polls).toBe(4);
  });

  it('reports a transaction the stream saw fail as failed, with the RPC error as the message', async () => {
    const rpc = recordingRpc();
    rpc.answer = { confirmationStatus: 'confirmed', err: { InstructionError: [2, { Custom: 1 }] }, slot: 12 };
    const s = streamed();
    const waiting = track(confirmSignature(rpc, s.sig.id, 'confirmed', TIMEOUT_MS, s.confirm));
    s.watch.feed.onTransaction(12, landed(s.sig.bytes, true));
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.outcome).toEqual({ status: 'failed', message: '{"InstructionError":[2,{"Custom":1}]}' });
    expect(rpc.polls).toBe(1);
  });

  it("a failure the RPC does not know yet is still a failure, in the stream's words", async () => {
    const rpc = recordingRpc();
    const s = streamed();
    const waiting = track(confirmSignature(rpc, s.sig.id, 'confirmed', TIMEOUT_MS, s.confirm));
    s.watch.feed.onTransaction(12, landed(s.sig.bytes, true));
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.outcome).toMatchObject({ status: 'failed', message: expect.stringMatching(/failed on chain at slot 12/) });
  });

  it('finalized: a streamed confirmation is not enough; a finalized slot past it prompts the RPC, which decides', async () => {
    const rpc = recordingRpc();
    const s = streamed();
    const waiting = track(confirmSignature(rpc, s.sig.id, 'finalized', TIMEOUT_MS, s.confirm));
    s.watch.feed.onTransaction(30, landed(s.sig.bytes));
    await vi.advanceTimersByTimeAsync(STREAM_FIRST_CHECK_MS / 2);
    expect(waiting.outcome).toBeNull();
    expect(rpc.polls).toBe(0);
    rpc.answer = { confirmationStatus: 'finalized', err: null, slot: 30 };
    s.watch.feed.onSlot(31, 'finalized', Date.now(), false);
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.outcome).toEqual({ status: 'confirmed', slot: 30 });
    expect(rpc.polls).toBe(1);
  });
});

describe('confirmSignature without a live stream', () => {
  it('polls every CONFIRM_POLL_MS while the stream is stale, as with no stream at all', async () => {
    const rpc = recordingRpc();
    const s = streamed();
    s.stream.live = false;
    track(confirmSignature(rpc, s.sig.id, 'confirmed', TIMEOUT_MS, s.confirm));
    const bare = recordingRpc();
    track(confirmSignature(bare, s.sig.id, 'confirmed', TIMEOUT_MS));
    await vi.advanceTimersByTimeAsync(5 * CONFIRM_POLL_MS);
    expect(rpc.polls).toBe(6);
    expect(bare.polls).toBe(6);
  });

  it('a stream that goes stale mid-wait hands back to polling', async () => {
    const rpc = recordingRpc();
    const s = streamed();
    const waiting = track(confirmSignature(rpc, s.sig.id, 'confirmed', TIMEOUT_MS, s.confirm));
    await vi.advanceTimersByTimeAsync(STREAM_FIRST_CHECK_MS / 4);
    expect(rpc.polls).toBe(0);
    s.stream.live = false;
    await vi.advanceTimersByTimeAsync(CONFIRM_POLL_MS);
    expect(rpc.polls).toBe(1);
    rpc.answer = { confirmationStatus: 'confirmed', err: null, slot: 5 };
    await vi.advanceTimersByTimeAsync(CONFIRM_POLL_MS);
    expect(waiting.outcome).toEqual({ status: 'confirmed', slot: 5 });
  });

  it('is pending when time runs out, with or without the stream, and says what it last saw', async () => {
    const rpc = recordingRpc();
    rpc.answer = { confirmationStatus: 'processed', err: null, slot: 3 };
    const s = streamed();
    const live = track(confirmSignature(rpc, s.sig.id, 'confirmed', 3_000, s.confirm));
    const bare = track(confirmSignature(recordingRpc(), s.sig.id, 'confirmed', 3_000));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(live.outcome).toEqual({ status: 'pending', message: 'not confirmed within 3000 ms (at processed)' });
    expect(bare.outcome).toEqual({ status: 'pending', message: 'not confirmed within 3000 ms (not seen yet)' });
    // A time limit shorter than the first safety check still gets an RPC answer.
    expect(rpc.polls).toBeGreaterThanOrEqual(1);
  });
});

describe('confirmSignature when the service stops', () => {
  it('ends the wait at once as pending when its stop signal aborts, with or without the stream, and queries no more', async () => {
    const rpc = recordingRpc();
    const bareRpc = recordingRpc();
    const s = streamed();
    const stopping = new AbortController();
    const live = track(confirmSignature(rpc, s.sig.id, 'confirmed', TIMEOUT_MS, s.confirm, stopping.signal));
    const bare = track(confirmSignature(bareRpc, s.sig.id, 'confirmed', TIMEOUT_MS, null, stopping.signal));
    await vi.advanceTimersByTimeAsync(STREAM_FIRST_CHECK_MS + CONFIRM_POLL_MS);
    expect([live.outcome, bare.outcome]).toEqual([null, null]);
    stopping.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(live.outcome).toEqual({ status: 'pending', message: 'not confirmed when the service stopped waiting (not seen yet)' });
    expect(bare.outcome).toEqual({ status: 'pending', message: 'not confirmed when the service stopped waiting (not seen yet)' });
    const polls = [rpc.polls, bareRpc.polls];
    await vi.advanceTimersByTimeAsync(TIMEOUT_MS);
    expect([rpc.polls, bareRpc.polls]).toEqual(polls);
    // Nothing of either wait is left armed: a closed service keeps no timer of a confirmation.
    expect(vi.getTimerCount()).toBe(0);
  });
});
