/**
 * The signature watch (src/chain/geyser/signature-watch.ts) fed as the Geyser stream feeds it: a
 * signature registered before its transaction arrives is seen (with its slot and failure), one
 * that arrived before registering is not (hence settlement registers before sending), finalized
 * slots wake a sighted entry, and entries go away on release, within a bound.
 */
import { describe, expect, it } from 'vitest';
import { encodeBase58 } from '../../../src/chain/solana/base58.ts';
import { createSignatureWatch } from '../../../src/chain/geyser/signature-watch.ts';
import { freshSignature, landed } from '../../helpers/stream-signatures.ts';

const watchOf = (live = true, maxEntries?: number) => createSignatureWatch({ isLive: () => live, ...(maxEntries ? { maxEntries } : {}) });
/** A `changed()` that resolved before the time limit is news, not the timer. */
const HOUR_MS = 3_600_000;

describe('signature watch', () => {
  it('sees a transaction that arrives after its signature was registered, and wakes the waiter', async () => {
    const watch = watchOf();
    const sig = freshSignature();
    const watched = watch.watch(sig.id)!;
    const woken = watched.changed(HOUR_MS);
    watch.feed.onTransaction(41, landed(freshSignature().bytes));
    expect(watched.sighting()).toBeNull();
    watch.feed.onTransaction(42, landed(sig.bytes));
    await woken;
    expect(watched.sighting()).toEqual({ slot: 42, failed: false });
    watched.release();
  });

  it('keeps nothing of a transaction that arrived before its signature was registered (register first)', () => {
    const watch = watchOf();
    const sig = freshSignature();
    watch.feed.onTransaction(42, landed(sig.bytes));
    const watched = watch.watch(sig.id)!;
    expect(watched.sighting()).toBeNull();
    expect(watch.size).toBe(1);
    watched.release();
  });

  it('reports a failed transaction as failed, and the first sighting stands over a replay', () => {
    const watch = watchOf();
    const sig = freshSignature();
    const watched = watch.watch(sig.id)!;
    watch.feed.onTransaction(42, landed(sig.bytes, true));
    watch.feed.onTransaction(43, landed(sig.bytes, false));
    expect(watched.sighting()).toEqual({ slot: 42, failed: true });
    watched.release();
  });

  it('wakes a sighted entry when a finalized slot reaches its slot, not before', async () => {
    const watch = watchOf();
    const sig = freshSignature();
    const watched = watch.watch(sig.id)!;
    watch.feed.onTransaction(50, landed(sig.bytes));
    let woken = false;
    const waiting = watched.changed(HOUR_MS).then(() => {
      woken = true;
    });
    watch.feed.onSlot(49, 'finalized', Date.now(), false);
    watch.feed.onSlot(51, 'confirmed', Date.now(), false);
    await Promise.resolve();
    expect(woken).toBe(false);
    expect(watched.finalizedSlot()).toBe(49);
    watch.feed.onSlot(50, 'finalized', Date.now(), false);
    await waiting;
    expect(watched.finalizedSlot()).toBe(50);
    watched.release();
  });

  it('releases entries, refuses malformed or doubled signatures, and stops at its bound', () => {
    const watch = watchOf(true, 2);
    const [a, b, c] = [freshSignature(), freshSignature(), freshSignature()];
    expect(watch.watch('not-base58!')).toBeNull();
    expect(watch.watch(encodeBase58(new Uint8Array(32)))).toBeNull();
    const first = watch.watch(a.id)!;
    expect(watch.watch(a.id)).toBeNull();
    const second = watch.watch(b.id)!;
    expect(watch.size).toBe(2);
    expect(watch.watch(c.id)).toBeNull();
    first.release();
    first.release();
    expect(watch.size).toBe(1);
    // A released signature is no longer matched: its transaction arriving later keeps nothing.
    watch.feed.onTransaction(60, landed(a.bytes));
    expect(first.sighting()).toBeNull();
    second.release();
    expect(watch.size).toBe(0);
  });

  it('a release wakes its waiter (an abandoned wait does not linger)', async () => {
    const watch = watchOf();
    const watched = watch.watch(freshSignature().id)!;
    const waiting = watched.changed(HOUR_MS);
    watched.release();
    await waiting;
    expect(watch.size).toBe(0);
  });

  it('answers live() from its stream', () => {
    expect(watchOf(true).live()).toBe(true);
    expect(watchOf(false).live()).toBe(false);
  });
});
