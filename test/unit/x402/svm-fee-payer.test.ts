/**
 * What /health shows of the Solana fee payer (src/x402/exact-svm/svm-fee-payer.ts): the balance from a
 * periodic read (never per request; a failed read keeps the last one and its time), and the fees
 * of the settlements the node accepted, base and priority apart.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFeePayerWatch } from '../../../src/x402/exact-svm/svm-fee-payer.ts';

const LIMITS = { maxComputeUnits: 40_000, maxPriorityFeeLamports: 5_000 };

afterEach(() => {
  vi.useRealTimers();
});

describe('createFeePayerWatch', () => {
  it('reads the balance at start and every period, keeping the last good read through a failure', async () => {
    vi.useFakeTimers();
    const answers = [10_000_000_000n, new Error('rpc down'), 9_999_989_999n];
    let reads = 0;
    const rpc = {
      async getAccountInfo() {
        const next = answers[reads++];
        if (next instanceof Error) throw next;
        return { owner: '11111111111111111111111111111111', lamports: next!, data: new Uint8Array(0) };
      },
    };
    let t = Date.parse('2026-11-27T06:00:00Z');
    const watch = createFeePayerWatch({ address: 'Fee', rpc, limits: LIMITS, readEveryMs: 1_000, now: () => new Date(t) });
    await vi.advanceTimersByTimeAsync(0);
    expect(watch.status()).toMatchObject({ address: 'Fee', lamports: 10_000_000_000, readAt: '2026-11-27T06:00:00.000Z', limits: LIMITS });
    t += 1_000;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(watch.status()).toMatchObject({ lamports: 10_000_000_000, readAt: '2026-11-27T06:00:00.000Z' });
    t += 1_000;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(watch.status()).toMatchObject({ lamports: 9_999_989_999, readAt: '2026-11-27T06:00:02.000Z' });
    expect(reads).toBe(3);
    watch.close();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(reads).toBe(3);
  });

  it('counts each accepted settlement and its fee, base and priority apart', () => {
    const rpc = { getAccountInfo: () => new Promise<never>(() => undefined) };
    const watch = createFeePayerWatch({ address: 'Fee', rpc, limits: LIMITS });
    expect(watch.status()).toMatchObject({ lamports: null, readAt: null, settlementsSent: 0, spentLamports: { base: 0, priority: 0, total: 0 } });
    watch.record({ baseLamports: 10_000n, priorityLamports: 1n });
    watch.record({ baseLamports: 10_000n, priorityLamports: 5_000n });
    expect(watch.status()).toMatchObject({ settlementsSent: 2, spentLamports: { base: 20_000, priority: 5_001, total: 25_001 } });
    watch.close();
  });
});
