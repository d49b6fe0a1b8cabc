/**
 * Ledger benchmark (issue 5):
 * - durable appends per second with group commit, against one write + fdatasync per append in
 *   the same run (the reference ratio), and both over a sweep of appenders in flight: group commit
 *   writes whatever is waiting in one batch, so that count bounds the batch size (the report gives
 *   the mean batch per fsync it reached);
 * - proof time at 1M leaves (trees built by appending leaf hashes directly, no WAL);
 * - start-up recovery of a 1M-entry WAL (replay, chain verification, tree and node-file rebuild);
 * - the replay guard's settled keys per second (bench/storage/replay-guard.ts), the paid path's other durable append.
 * Register in bench/run.ts as `ledger: () => benchLedger()`.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENESIS_PREV_HASH, sealEntry, type LedgerDraft } from '../../src/ledger/ledger-entry.ts';
import { WAL_FILE_NAME } from '../../src/ledger/ledger-durable-state.ts';
import { createLedger } from '../../src/ledger/ledger.ts';
import { RFC6962_HASHER, sha256, sha256Hex, SPEC_HASHER } from '../../src/ledger/merkle-hash.ts';
import { createFileNodeStore } from '../../src/ledger/merkle-node-store.ts';
import { buildConsistencyProof, buildRfc6962InclusionProof, buildSpecInclusionProof } from '../../src/ledger/merkle-proof.ts';
import { createMerkleTree, type MerkleTree } from '../../src/ledger/merkle-tree.ts';
import { benchReplayGuard } from './replay-guard.ts';

/** Options; defaults are the figures. */
export interface LedgerBenchOptions {
  readonly appendSeconds?: number;
  readonly concurrency?: number;
  readonly leaves?: number;
  readonly proofSamples?: number;
}

const WAL_WRITE_CHUNK_BYTES = 4 * 1024 * 1024;
/** Appenders in flight in the batch-size sweep, and the seconds each point runs per mode. */
export const BATCH_SWEEP = [1, 4, 16, 64, 256] as const;
const SWEEP_SECONDS = 2;
const MIB = 1024 * 1024;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** The i-th entry a benchmark appends (a paid answer's shape, a distinct receipt hash each). */
export const draft = (i: number): LedgerDraft => ({
  kind: 'payment',
  endpoint: '/v1/token-risk',
  priceUsdcUnits: 28000,
  network: 'eip155:8453',
  receiptSha256: sha256Hex(`receipt-${i}`),
});

async function appendRate(dir: string, groupCommit: boolean, seconds: number, concurrency: number): Promise<Record<string, number>> {
  const ledger = await createLedger({ dir, groupCommit });
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await ledger.append(draft(done));
      done += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const stats = ledger.stats();
  await ledger.close();
  return {
    concurrency,
    appends: done,
    appendsPerSecond: round(done / elapsed, 0),
    fsyncs: stats.commits,
    meanBatch: round(done / stats.commits, 1),
    maxBatch: stats.maxBatch,
  };
}

/** Append rate of group commit and of the reference at each count of appenders in flight. */
async function batchSweep(root: string, seconds: number): Promise<Array<Record<string, number>>> {
  const points: Array<Record<string, number>> = [];
  for (const appenders of BATCH_SWEEP) {
    const grouped = await appendRate(join(root, `sweep-group-${appenders}`), true, seconds, appenders);
    const reference = await appendRate(join(root, `sweep-serial-${appenders}`), false, seconds, appenders);
    points.push({
      appenders,
      groupCommitAppendsPerSecond: grouped.appendsPerSecond!,
      meanBatch: grouped.meanBatch!,
      maxBatch: grouped.maxBatch!,
      referenceAppendsPerSecond: reference.appendsPerSecond!,
    });
  }
  return points;
}

function timeOps(samples: number, op: (i: number) => void): { meanUs: number; p50Us: number; p99Us: number } {
  const t: number[] = [];
  for (let i = 0; i < samples; i++) {
    const s = performance.now();
    op(i);
    t.push((performance.now() - s) * 1000);
  }
  t.sort((a, b) => a - b);
  const at = (q: number): number => round(t[Math.min(t.length - 1, Math.floor(q * t.length))]!, 1);
  return { meanUs: round(t.reduce((a, b) => a + b, 0) / t.length, 1), p50Us: at(0.5), p99Us: at(0.99) };
}

function proofBench(dir: string, leaves: number, samples: number): Record<string, unknown> {
  const started = performance.now();
  const spec = createMerkleTree({ hasher: SPEC_HASHER, store: createFileNodeStore({ dir: join(dir, 'spec') }) });
  const rfc = createMerkleTree({ hasher: RFC6962_HASHER, store: createFileNodeStore({ dir: join(dir, 'rfc') }) });
  const idx = Buffer.alloc(8);
  for (let i = 0; i < leaves; i++) {
    idx.writeUInt32LE(i, 0);
    const leaf = sha256(idx);
    spec.append(leaf);
    rfc.append(leaf);
  }
  spec.flush();
  rfc.flush();
  const buildSeconds = (performance.now() - started) / 1000;
  // Deterministic spread of indices and sizes over the whole tree (no Math.random: repeatable).
  const pick = (i: number, n: number): number => Math.floor((((i * 2654435761) % 4294967296) / 4294967296) * n);
  const sizeAt = (i: number): number => 1 + pick(i + 7, leaves);
  const result = {
    leaves,
    buildSeconds: round(buildSeconds, 2),
    appendsPerSecondBothTrees: round(leaves / buildSeconds, 0),
    specProofAtFullSize: timeOps(samples, (i) => buildSpecInclusionProof(spec, pick(i, leaves), leaves)),
    specProofAtEarlierSize: timeOps(samples, (i) => {
      const n = sizeAt(i);
      buildSpecInclusionProof(spec, pick(i, n), n);
    }),
    rfc6962ProofAtFullSize: timeOps(samples, (i) => buildRfc6962InclusionProof(rfc, pick(i, leaves), leaves, '00'.repeat(32))),
    consistencyProof: timeOps(samples, (i) => {
      const n = sizeAt(i);
      buildConsistencyProof(rfc, 1 + pick(i + 3, n), n);
    }),
    nodeFileBytes: nodeBytes(join(dir, 'spec')) + nodeBytes(join(dir, 'rfc')),
  };
  closeTrees(spec, rfc);
  return result;
}

function nodeBytes(dir: string): number {
  let total = 0;
  for (let l = 0; l < 64; l++) {
    try {
      total += statSync(join(dir, `level-${String(l).padStart(2, '0')}.bin`)).size;
    } catch {
      break;
    }
  }
  return total;
}

function closeTrees(...trees: MerkleTree[]): void {
  for (const t of trees) t.close();
}

/** Writes a valid chained WAL of `n` entries directly (what n durable appends would leave). */
/** Writes a valid n-entry WAL straight to `dir` (sealed lines, no fsync per entry); returns its bytes. */
export function writeWal(dir: string, n: number): number {
  mkdirSync(dir, { recursive: true });
  const fd = openSync(join(dir, WAL_FILE_NAME), 'w');
  let prevHash = GENESIS_PREV_HASH;
  let chunk: string[] = [];
  let chunkBytes = 0;
  const time = new Date('2025-06-01T00:00:00.000Z');
  for (let i = 0; i < n; i++) {
    const { entry, line } = sealEntry(draft(i), { index: i, prevHash }, time);
    prevHash = entry.entrySha256;
    chunk.push(line, '\n');
    chunkBytes += line.length + 1;
    if (chunkBytes >= WAL_WRITE_CHUNK_BYTES || i === n - 1) {
      writeSync(fd, chunk.join(''));
      chunk = [];
      chunkBytes = 0;
    }
  }
  closeSync(fd);
  return statSync(join(dir, WAL_FILE_NAME)).size;
}

async function recoveryBench(dir: string, entries: number): Promise<Record<string, unknown>> {
  const walBytes = writeWal(dir, entries);
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage();
  const started = performance.now();
  const ledger = await createLedger({ dir });
  const seconds = (performance.now() - started) / 1000;
  const after = process.memoryUsage();
  const report = ledger.openReport;
  const p = ledger.proof(entries - 1);
  await ledger.close();
  return {
    entries: report.entries,
    walMiB: round(walBytes / MIB, 1),
    seconds: round(seconds, 2),
    entriesPerSecond: round(entries / seconds, 0),
    tornTail: report.tornTail,
    proofAfterOpenOk: p.ok,
    memoryGrowthMiB: {
      rss: round((after.rss - before.rss) / MIB),
      heapUsed: round((after.heapUsed - before.heapUsed) / MIB),
      arrayBuffers: round((after.arrayBuffers - before.arrayBuffers) / MIB),
    },
  };
}

/** Runs the ledger benchmarks and returns the report. */
export async function benchLedger(options: LedgerBenchOptions = {}): Promise<Record<string, unknown>> {
  const seconds = options.appendSeconds ?? 3;
  const concurrency = options.concurrency ?? 64;
  const leaves = options.leaves ?? 1_000_000;
  const root = mkdtempSync(join(tmpdir(), 'bench-ledger-'));
  try {
    const reference = await appendRate(join(root, 'serial'), false, seconds, concurrency);
    const grouped = await appendRate(join(root, 'group'), true, seconds, concurrency);
    const groupedSingle = await appendRate(join(root, 'group1'), true, seconds, 1);
    return {
      name: 'ledger',
      durableAppends: {
        reference: { what: 'one write + fdatasync per append', ...reference },
        groupCommit: { ...grouped, ratioToReference: round(grouped.appendsPerSecond! / reference.appendsPerSecond!, 1) },
        groupCommitOneClient: groupedSingle,
      },
      batchSweep: { secondsPerPoint: SWEEP_SECONDS, points: await batchSweep(root, SWEEP_SECONDS) },
      replayGuard: { seconds, points: await benchReplayGuard(root, seconds) },
      proofs: proofBench(join(root, 'trees'), leaves, options.proofSamples ?? 20_000),
      recovery: await recoveryBench(join(root, 'recovery'), leaves),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
