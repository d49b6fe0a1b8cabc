/**
 * The ledger's memory stays a few bytes per entry (docs/trust-and-proofs.md#the-ledger, issue 5:
 * bounded at millions of entries): after opening a WAL of ENTRIES entries, live heap plus buffers
 * grow by at most MAX_BYTES_PER_ENTRY per entry plus FIXED_BYTES (node-file write buffers), far
 * below the ~400 bytes an entry takes on disk. Keeping entries, lines or lower tree levels in
 * memory fails this.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { GENESIS_PREV_HASH, sealEntry } from '../../../src/ledger/ledger-entry.ts';
import { WAL_FILE_NAME } from '../../../src/ledger/ledger-durable-state.ts';
import { createLedger } from '../../../src/ledger/ledger.ts';
import { sha256Hex } from '../../../src/ledger/merkle-hash.ts';

const ENTRIES = 150_000;
/** Offset index (8 B, up to 16 B with doubling headroom) and upper tree levels (~0.5 B). */
const MAX_BYTES_PER_ENTRY = 17;
const FIXED_BYTES = 3 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const root = mkdtempSync(join(tmpdir(), 'ledger-memory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writeWal(dir: string, n: number): void {
  mkdirSync(dir, { recursive: true });
  const fd = openSync(join(dir, WAL_FILE_NAME), 'w');
  let prevHash = GENESIS_PREV_HASH;
  let chunk: string[] = [];
  const time = new Date('2026-01-01T00:00:00.000Z');
  for (let i = 0; i < n; i++) {
    const { entry, line } = sealEntry(
      { kind: 'payment', endpoint: '/v1/smri', priceUsdcUnits: 10_000, network: 'eip155:8453', receiptSha256: sha256Hex(`r${i}`) },
      { index: i, prevHash },
      time,
    );
    prevHash = entry.entrySha256;
    chunk.push(line, '\n');
    if (chunk.length >= 20_000 || i === n - 1) {
      writeSync(fd, chunk.join(''));
      chunk = [];
    }
  }
  closeSync(fd);
}

const live = (): number => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

describe('ledger memory', () => {
  it(`holds ${ENTRIES} entries in a few bytes each, and still proves and reads any of them`, async () => {
    const dir = join(root, 'ledger');
    writeWal(dir, ENTRIES);
    const before = live();
    const ledger = await createLedger({ dir });
    const grown = live() - before;
    try {
      expect(ledger.openReport.entries).toBe(ENTRIES);
      expect(grown).toBeLessThan(ENTRIES * MAX_BYTES_PER_ENTRY + FIXED_BYTES);
      expect(ledger.proof(12_345).ok).toBe(true);
      expect(ledger.entry(ENTRIES - 1)?.index).toBe(ENTRIES - 1);
      expect(ledger.recent(1000)).toHaveLength(1000);
    } finally {
      await ledger.close();
    }
  }, 180_000);
});
