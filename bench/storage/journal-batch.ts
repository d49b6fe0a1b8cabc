/**
 * The commit journal's cost per commit, for an A/B of two checkouts in one run: 300 rounds of 8
 * concurrent commits of a 4.7 kB text (a channel call's record) in a journal of its own, and the
 * bytes of one batch of 8 such records framed with sequence numbers in the millions. Prints one JSON
 * line: batch bytes, bytes per call, CPU per commit (µs), wall per batch (ms), the journal's counters.
 *
 *   npx tsx bench/storage/journal-batch.ts /work/main; npx tsx bench/storage/journal-batch.ts .
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROUNDS = 300;
const CONCURRENT = 8;
const RECORD_TEXT = `${'x'.repeat(4700)}\n`;

const root = resolve(process.argv[2] ?? '.');
const { openCommitJournal } = await import(join(root, 'src/durable/commit-journal.ts'));
const { frameBatch } = await import(join(root, 'src/durable/frame-batch.ts'));
const dir = mkdtempSync(join(tmpdir(), 'journal-batch-'));
const journal = openCommitJournal({ dir });
const f = journal.file(join(dir, 'f.log'));
const framed = frameBatch(
  Array.from({ length: CONCURRENT }, () => [{ file: f, text: RECORD_TEXT }]),
  new Map([[f.name, f]]),
  1_234_567,
);
const batchBytes = framed.lines.reduce((n: number, b: Buffer) => n + b.length, 0);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let r = 0; r < ROUNDS; r++) await Promise.all(Array.from({ length: CONCURRENT }, () => journal.commit([{ file: f, text: RECORD_TEXT }])));
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    root,
    batchBytes,
    bytesPerCall: batchBytes / CONCURRENT,
    cpuUsPerCommit: Math.round((cpu.user + cpu.system) / (ROUNDS * CONCURRENT)),
    wallMsPerBatch: Number((wallMs / ROUNDS).toFixed(3)),
    stats: journal.stats(),
  }),
);
await journal.close();
rmSync(dir, { recursive: true, force: true });
