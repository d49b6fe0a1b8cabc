/**
 * The bounds of early answers (src/x402/settlement/early-answers.ts) over the real file store: the ceiling,
 * the per-payer and global caps, the bar after a failure (kept by the store across a reopen), the
 * ledger audit entry that names the receipt, and the exposure given back only once a loss is on record.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEarlyAnswerStore } from '../../src/x402/state/early-answer-store.ts';
import { createEarlyAnswers, EARLY_FAILED_EVENT, type EarlyLimits } from '../../src/x402/settlement/early-answers.ts';
import type { LedgerDraft } from '../../src/trust/ledger-entry.ts';
import { manualClock } from '../helpers/manual-clock.ts';

const LIMITS: EarlyLimits = { ceilingUnits: 5_000, payerCapUnits: 10_000, globalCapUnits: 25_000, barMs: 60_000 };
const SHA = 'ab'.repeat(32);
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'early-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function open(clock = manualClock(), appended: LedgerDraft[] = []) {
  const lines: string[] = [];
  const early = createEarlyAnswers({
    limits: LIMITS,
    store: createEarlyAnswerStore({ dir, now: clock.now }),
    ledger: {
      append: async (d) => {
        appended.push(d);
        return { index: appended.length - 1 } as never;
      },
    },
    log: (l) => lines.push(l),
    now: clock.now,
  });
  return { early, appended, lines, clock };
}

const failure = (payer: string) => ({
  network: 'solana:x',
  transaction: 'sig',
  payer,
  endpoint: '/v1/tipfloor',
  priceUsdcUnits: 1_000,
  receiptSha256: SHA,
  ledgerIndex: 7,
  reason: 'invalid_exact_svm_transaction_failed',
  message: 'failed on chain',
});

describe('early answers: admission', () => {
  it('only at or below the ceiling, for a known payer', async () => {
    const { early } = open();
    expect(await early.admit('A', 5_001)).toBeNull();
    expect(await early.admit('', 1_000)).toBeNull();
    expect(await early.admit('A', 5_000)).not.toBeNull();
  });

  it('a payer up to its cap, all payers up to the global cap; a release makes room again', async () => {
    const { early } = open();
    const a = [];
    for (let i = 0; i < 10; i++) a.push(await early.admit('A', 1_000));
    expect(a.every((t) => t !== null)).toBe(true);
    expect(await early.admit('A', 1_000)).toBeNull();
    for (let i = 0; i < 10; i++) expect(await early.admit('B', 1_000)).not.toBeNull();
    for (let i = 0; i < 5; i++) expect(await early.admit('C', 1_000)).not.toBeNull();
    expect(await early.admit('C', 1_000)).toBeNull();
    expect(early.status()).toMatchObject({ exposureUnits: 25_000, payersExposed: 3 });
    a[0]!.release();
    a[0]!.release();
    expect(early.status().exposureUnits).toBe(24_000);
    expect(await early.admit('C', 1_000)).not.toBeNull();
  });

  it('with the ceiling at 0 nothing is answered early', async () => {
    const early = createEarlyAnswers({
      limits: { ...LIMITS, ceilingUnits: 0 },
      store: createEarlyAnswerStore({ dir }),
      ledger: { append: async () => ({}) as never },
    });
    expect(await early.admit('A', 1)).toBeNull();
  });
});

describe('early answers: a payment that failed after its answer', () => {
  it('records it, bars the payer until the bar ends (across a reopen), names the receipt in the ledger, and only then frees the exposure', async () => {
    const clock = manualClock(1_000_000);
    const { early, appended, lines } = open(clock);
    const t = (await early.admit('A', 1_000))!;
    const failing = early.failed('k1', t, failure('A'));
    expect(early.status().exposureUnits).toBe(1_000);
    await failing;
    expect(early.status()).toMatchObject({ exposureUnits: 0, failed: 1, failedUnits: 1_000 });
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({ kind: 'audit', event: EARLY_FAILED_EVENT });
    expect((appended[0] as { reason: string }).reason).toContain(SHA);
    expect((appended[0] as { reason: string }).reason).not.toContain('A ');
    expect(lines.join('\n')).toContain('barred');
    expect(await early.store.outcome('k1')).toMatchObject({ status: 'failed', receiptSha256: SHA, payer: 'A' });
    expect(await early.admit('A', 1_000)).toBeNull();
    expect(await early.admit('B', 1_000)).not.toBeNull();

    const reopened = open(clock).early;
    expect(await reopened.admit('A', 1_000)).toBeNull();
    clock.advance(LIMITS.barMs + 1);
    expect(await reopened.admit('A', 1_000)).not.toBeNull();
  });

  it('a confirmed one is recorded and frees its share', async () => {
    const { early } = open();
    const t = (await early.admit('A', 1_000))!;
    await early.confirmed('k2', t);
    expect(await early.store.outcome('k2')).toEqual({ status: 'confirmed' });
    expect(early.status()).toMatchObject({ exposureUnits: 0, confirmed: 1 });
  });

  it('a confirmed one frees its share at once, before its outcome is on disk', async () => {
    const store = createEarlyAnswerStore({ dir });
    let written: () => void = () => undefined;
    const slowDisk = { ...store, settle: () => new Promise<void>((resolve) => (written = resolve)) };
    const early = createEarlyAnswers({ limits: LIMITS, store: slowDisk, ledger: { append: async () => ({ index: 0 }) as never }, log: () => undefined });
    const t = (await early.admit('A', 1_000))!;
    const recorded = early.confirmed('k3', t);
    // The chain confirmed it: nothing is at risk while the outcome's write is still under way.
    expect(early.status()).toMatchObject({ exposureUnits: 0, payersExposed: 0, confirmed: 1 });
    written();
    await recorded;
  });

  it('the status shows the median time a confirmed answer held its share', async () => {
    const { early, clock } = open();
    expect(early.status().heldMsP50).toBeNull();
    for (const [key, ms] of [
      ['h1', 900],
      ['h2', 100],
      ['h3', 300],
    ] as const) {
      const t = (await early.admit('A', 1_000))!;
      clock.advance(ms);
      await early.confirmed(key, t);
    }
    expect(early.status().heldMsP50).toBe(300);
  });

  it('a held share (found at start) counts against the caps whatever they say', async () => {
    const { early } = open();
    early.hold('A', 10_000);
    expect(await early.admit('A', 1_000)).toBeNull();
    early.hold('B', 20_000);
    expect(early.status().exposureUnits).toBe(30_000);
    expect(await early.admit('C', 1_000)).toBeNull();
  });
});
