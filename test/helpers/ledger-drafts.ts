/**
 * What the ledger tests append and how they check what they read back: a payment draft per index,
 * an audit draft, and the chain walked as a client of `/ledger` walks it (each hash recomputed,
 * each link followed).
 */
import { expect } from 'vitest';
import { entryHash, GENESIS_PREV_HASH, type LedgerDraft, type LedgerEntry } from '../../src/ledger/ledger-entry.ts';
import { sha256Hex } from '../../src/ledger/merkle-hash.ts';

/** The payment draft of index `i` (its receipt hash differs per index). */
export const paymentDraft = (i: number): LedgerDraft => ({
  kind: 'payment',
  endpoint: '/v1/token-risk',
  priceUsdcUnits: 28000,
  network: 'eip155:8453',
  receiptSha256: sha256Hex(`receipt-${i}`),
});
export const AUDIT_DRAFT: LedgerDraft = { kind: 'audit', event: 'kill-switch.activated' };

/** What a client does with `/ledger`: recompute each hash and follow the links. */
export function verifyChain(entries: readonly LedgerEntry[], firstPrev = GENESIS_PREV_HASH): void {
  let prev = firstPrev;
  for (const [i, e] of entries.entries()) {
    expect(e.index).toBe(entries[0]!.index + i);
    expect(e.prevHash).toBe(prev);
    expect(entryHash(e)).toBe(e.entrySha256);
    prev = e.entrySha256;
  }
}
