import { describe, expect, it } from 'vitest';
import { entryHash, GENESIS_PREV_HASH, parseEntryLine, sealEntry } from '../../../src/ledger/ledger-entry.ts';
import { sha256Hex } from '../../../src/ledger/merkle-hash.ts';

const time = new Date('2026-01-01T00:00:00.000Z');
const slot = { index: 3, prevHash: GENESIS_PREV_HASH };

describe('sealEntry', () => {
  it("writes the line as the entry's JSON, entrySha256 last, which the WAL reader takes as canonical", () => {
    const drafts = [
      { kind: 'payment', endpoint: '/v1/smri', priceUsdcUnits: 10_000, network: 'eip155:8453', receiptSha256: sha256Hex('r') },
      { kind: 'audit', event: 'early.loss', reason: 'a "quoted" reason \\ with é' },
      { kind: 'audit', event: 'restart' },
    ] as const;
    for (const draft of drafts) {
      const { entry, line } = sealEntry(draft, slot, time);
      expect(line).toBe(JSON.stringify(entry));
      expect(Object.keys(entry).at(-1)).toBe('entrySha256');
      expect(entry.entrySha256).toBe(entryHash(entry));
      expect(parseEntryLine(line, slot)).toEqual({ ok: true, entry: JSON.parse(line) });
    }
  });
});
