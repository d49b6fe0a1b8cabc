/**
 * The library saves receipts off the event loop: the CLI's names and files, a fresh name for each
 * save found by exclusive creation, so saves at once of the same receipt (a retried call's answer
 * saved twice) never overwrite each other.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { saveReceiptFiles } from '../../../src/client/receipt-files.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('receipts saved by the library', () => {
  it('gets a name of its own for each of several saves at once, next to one saved before', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'client-receipts-')), 'nested');
    dirs.push(dir);
    const text = JSON.stringify({ ledgerIndex: 7, endpoint: '/v1/epoch' });
    const decoded = { text, receipt: JSON.parse(text) as Record<string, unknown> };
    const first = await saveReceiptFiles(dir, decoded, Buffer.from('{"a":1}'));
    expect(first.receiptFile).toBe(join(dir, '000007-v1-epoch.receipt.json'));
    await saveReceiptFiles(dir, decoded, Buffer.from('{"a":2}'));
    const many = await Promise.all([3, 4, 5, 6].map((n) => saveReceiptFiles(dir, decoded, Buffer.from(`{"a":${n}}`))));
    const bodies = [first, ...many].map((s) => readFileSync(s.bodyFile, 'utf8'));
    expect(bodies).toEqual(['{"a":1}', '{"a":3}', '{"a":4}', '{"a":5}', '{"a":6}']);
    expect(new Set(many.map((s) => s.bodyFile)).size).toBe(4);
    expect(readdirSync(dir).length).toBe(12);
    expect(readFileSync(many[3]!.receiptFile, 'utf8')).toBe(`${text}\n`);
  });
});
