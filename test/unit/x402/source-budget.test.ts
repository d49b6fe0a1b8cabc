/**
 * The per-source budget of Solana settlements (src/x402/stores/source-budget.ts): settlements in
 * flight from one token account never add up to more than the balance each payment's verification
 * read; the rest wait for those ahead or are refused; a covered payer never waits; a finish that
 * spent counts against reads taken before it, never after; an unknown outcome stays in flight; a
 * checked read serves the same source's next payments for one slot only while it covers them.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSourceBudget, READ_REUSE_MS, RECENT_MS } from '../../../src/x402/stores/source-budget.ts';
import { manualClock } from '../../helpers/manual-clock.ts';

const A = 'SourceA';
const PRICE = 1000n;

const clock = manualClock;

afterEach(() => {
  vi.useRealTimers();
});

describe('createSourceBudget', () => {
  it('a payer whose balance covers every call in flight is never held back', async () => {
    const c = clock();
    const budget = createSourceBudget({ now: c.now });
    for (const k of ['k1', 'k2', 'k3']) budget.startRead().note(k, A, 3n * PRICE);
    const holds = await Promise.all(['k1', 'k2', 'k3'].map((k) => budget.reserve(k, A, PRICE)));
    expect(holds.every((h) => h !== null)).toBe(true);
  });

  it('racing payments from a balance that covers one: the second waits, then is refused once the first spent it', async () => {
    const c = clock();
    const budget = createSourceBudget({ now: c.now });
    budget.startRead().note('k1', A, PRICE);
    budget.startRead().note('k2', A, PRICE);
    const first = await budget.reserve('k1', A, PRICE);
    expect(first).not.toBeNull();
    let settled = false;
    const second = budget.reserve('k2', A, PRICE).then((h) => {
      settled = true;
      return h;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    c.advance(5);
    first!.end('spent');
    expect(await second).toBeNull();
  });

  it('the one ahead failing (its tokens never moved) lets the waiting one through', async () => {
    const budget = createSourceBudget({ now: clock().now });
    budget.startRead().note('k1', A, PRICE);
    budget.startRead().note('k2', A, PRICE);
    const first = await budget.reserve('k1', A, PRICE);
    const second = budget.reserve('k2', A, PRICE);
    first!.end('unspent');
    expect(await second).not.toBeNull();
  });

  it('a spend that finished after a read counts against it; one that finished before it does not (the read shows it)', async () => {
    const c = clock();
    const budget = createSourceBudget({ now: c.now });
    budget.startRead().note('early', A, 2n * PRICE);
    budget.startRead().note('k1', A, 2n * PRICE);
    c.advance(10);
    (await budget.reserve('k1', A, PRICE))!.end('spent');
    c.advance(10);
    // Read after that spend: the chain's balance already shows it (PRICE left), and it fits.
    budget.startRead().note('late', A, PRICE);
    // Read before it: 2 prices less the one spent since.
    const early = await budget.reserve('early', A, 2n * PRICE);
    expect(early).toBeNull();
    expect(await budget.reserve('late', A, PRICE)).not.toBeNull();
  });

  it('found in CI: a read asked for before a spend finished and answered after it counts that spend (its balance may not show it)', async () => {
    const c = clock();
    const budget = createSourceBudget({ now: c.now });
    budget.startRead().note('k1', A, PRICE);
    const first = (await budget.reserve('k1', A, PRICE))!;
    const onItsWay = budget.startRead();
    c.advance(10);
    first.end('spent');
    c.advance(10);
    // The chain answered from before the spend: the whole price still shows.
    onItsWay.note('k2', A, PRICE, 'MintM');
    expect(await budget.reserve('k2', A, PRICE)).toBeNull();
    expect(budget.reuseRead('k3', A, 'MintM', PRICE)).toBe(false);
  });
  it('waits a bounded time for the settlements ahead, and stops when the caller leaves', async () => {
    vi.useFakeTimers();
    const c = clock();
    const budget = createSourceBudget({ waitMs: 20, now: c.now });
    for (const k of ['k1', 'k2', 'k3']) budget.startRead().note(k, A, PRICE);
    const first = await budget.reserve('k1', A, PRICE);
    const second = budget.reserve('k2', A, PRICE);
    let waited: unknown = 'still waiting';
    void second.then((r) => {
      waited = r;
    });
    c.advance(19);
    await vi.advanceTimersByTimeAsync(19);
    expect(waited).toBe('still waiting');
    c.advance(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await second).toBeNull();
    const left = new AbortController();
    const third = budget.reserve('k3', A, PRICE, left.signal);
    left.abort();
    expect(await third).toBeNull();
    first!.end('unspent');
  });

  it('an unknown outcome (sent, not confirmed) stays in flight for its hold, then counts as spent', async () => {
    vi.useFakeTimers();
    const c = clock();
    const budget = createSourceBudget({ waitMs: 1, unknownHoldMs: 60_000, now: c.now });
    budget.startRead().note('k1', A, 2n * PRICE);
    (await budget.reserve('k1', A, 2n * PRICE))!.end('unknown');
    budget.startRead().note('k2', A, 2n * PRICE);
    const during = budget.reserve('k2', A, PRICE);
    c.advance(5);
    await vi.advanceTimersByTimeAsync(5);
    expect(await during).toBeNull();
    budget.startRead().note('k3', A, 2n * PRICE);
    c.advance(60_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await budget.reserve('k3', A, PRICE)).toBeNull();
  });

  it('refuses a payment whose read is unknown, for another source, or stale; a read serves one reservation', async () => {
    const c = clock();
    const budget = createSourceBudget({ now: c.now });
    expect(await budget.reserve('never', A, PRICE)).toBeNull();
    budget.startRead().note('other', 'SourceB', PRICE);
    expect(await budget.reserve('other', A, PRICE)).toBeNull();
    budget.startRead().note('old', A, PRICE);
    c.advance(RECENT_MS + 1);
    expect(budget.hasRead('old')).toBe(true);
    expect(await budget.reserve('old', A, PRICE)).toBeNull();
    budget.startRead().note('once', A, 5n * PRICE);
    expect(await budget.reserve('once', A, PRICE)).not.toBeNull();
    expect(budget.hasRead('once')).toBe(false);
  });

  it('forgets a source once nothing is in flight and its spends aged out, even if it is never touched again', async () => {
    const c = clock();
    const budget = createSourceBudget({ now: c.now });
    budget.startRead().note('k1', A, PRICE);
    (await budget.reserve('k1', A, PRICE))!.end('spent');
    expect(budget.trackedSources).toBe(1);
    c.advance(RECENT_MS + 1);
    budget.startRead().note('k2', 'SourceB', PRICE);
    expect(budget.trackedSources).toBe(0);
  });
  it("a checked read serves the source's next payments for READ_REUSE_MS, counting what spent since it", async () => {
    const c = clock();
    const budget = createSourceBudget({ now: c.now });
    expect(budget.reuseRead('k0', A, 'MintM', PRICE)).toBe(false);
    budget.startRead().note('k1', A, 2n * PRICE, 'MintM');
    // Another mint, or a read not checked (no mint), is never reused.
    expect(budget.reuseRead('x', A, 'MintN', PRICE)).toBe(false);
    budget.startRead().note('u', 'SourceB', 9n * PRICE);
    expect(budget.reuseRead('y', 'SourceB', 'MintM', PRICE)).toBe(false);
    c.advance(5);
    (await budget.reserve('k1', A, PRICE))!.end('spent');
    // The read showed 2 prices; one was spent since: one more is covered, with the read's own time.
    expect(budget.reuseRead('k2', A, 'MintM', PRICE)).toBe(true);
    const second = await budget.reserve('k2', A, PRICE);
    expect(second).not.toBeNull();
    // What is left (nothing, one in flight) does not cover a third: verification reads the chain.
    expect(budget.reuseRead('k3', A, 'MintM', PRICE)).toBe(false);
    expect(budget.hasRead('k3')).toBe(false);
    second!.end('unspent');
    expect(budget.reuseRead('k3', A, 'MintM', PRICE)).toBe(true);
    c.advance(READ_REUSE_MS + 1);
    expect(budget.reuseRead('k4', A, 'MintM', PRICE)).toBe(false);
  });

  it('a forgotten read (its settlement was refused or failed) is not reused', () => {
    const budget = createSourceBudget({ now: clock().now });
    budget.startRead().note('k1', A, 5n * PRICE, 'MintM');
    budget.forgetRead(A);
    expect(budget.reuseRead('k2', A, 'MintM', PRICE)).toBe(false);
  });
});
