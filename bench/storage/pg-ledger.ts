/**
 * Shared-ledger benchmark: durable appends per second of the file WAL (group commit, one write +
 * fdatasync per batch) against the ledger the database sequences (group commit in one transaction
 * under the head row lock, pg-ledger-writer.ts), at the same numbers of appenders in flight (which
 * bound the batch size), in the same run; the database ledger once from one instance and once
 * from three instances (three connection pools) sharing the appenders, where the instances queue
 * on the head row lock. The local PostgreSQL 15, fsync and synchronous_commit on.
 *
 *   npm run bench -- pg-ledger [--seconds 2]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyMigrations } from '../../src/postgres/migrate.ts';
import { createPgClient, type PgClient } from '../../src/postgres/pg-client.ts';
import { createLedger, type Ledger } from '../../src/ledger/ledger.ts';
import { createPgLedger } from '../../src/ledger/pg-ledger.ts';
import { createTestDatabase } from '../../test/helpers/postgres.ts';
import { BATCH_SWEEP, draft } from './ledger.ts';

/** Appenders in flight per point (all instances together): the file WAL's sweep, so the two compare point for point. */
export const PG_LEDGER_SWEEP = BATCH_SWEEP;
const DEFAULT_SECONDS = 2;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** Appends from `appenders` loops spread over `ledgers` for `seconds`; appends/s and the mean batch. */
async function rate(ledgers: readonly Ledger[], appenders: number, seconds: number): Promise<{ perSecond: number; meanBatch: number }> {
  const before = ledgers.map((l) => l.stats());
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: appenders }, async (_, a) => {
      const ledger = ledgers[a % ledgers.length]!;
      while (performance.now() < deadline) {
        await ledger.append(draft(done));
        done += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const commits = ledgers.reduce((n, l, i) => n + l.stats().commits - before[i]!.commits, 0);
  return { perSecond: round(done / elapsed, 0), meanBatch: round(done / Math.max(1, commits), 1) };
}

/** Runs the sweep; returns one row per point. */
export async function benchPgLedger(options: { readonly seconds?: number } = {}): Promise<Record<string, unknown>> {
  const seconds = options.seconds ?? DEFAULT_SECONDS;
  const db = await createTestDatabase('bench_pg_ledger');
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-ledger-'));
  const clients: PgClient[] = [];
  const ledgers: Ledger[] = [];
  const open = async (i: number): Promise<Ledger> => {
    const c = createPgClient({ url: db.url, maxConnections: 2 });
    clients.push(c);
    const l = await createPgLedger({ db: c, viewDir: join(dir, `view-${i}`) });
    ledgers.push(l);
    return l;
  };
  try {
    const migrator = createPgClient({ url: db.url, maxConnections: 1 });
    clients.push(migrator);
    await applyMigrations(migrator);
    const file = await createLedger({ dir: join(dir, 'file') });
    ledgers.push(file);
    const one = [await open(0)];
    const three = [one[0]!, await open(1), await open(2)];
    const rows = [];
    for (const appenders of PG_LEDGER_SWEEP) {
      const f = await rate([file], appenders, seconds);
      const p1 = await rate(one, appenders, seconds);
      const p3 = await rate(three, appenders, seconds);
      rows.push({
        appenders,
        fileAppendsPerSecond: f.perSecond,
        fileMeanBatch: f.meanBatch,
        pgAppendsPerSecond: p1.perSecond,
        pgMeanBatch: p1.meanBatch,
        pgVsFile: round(p1.perSecond / f.perSecond, 2),
        pg3InstancesAppendsPerSecond: p3.perSecond,
        pg3MeanBatch: p3.meanBatch,
        pg3VsPg1: round(p3.perSecond / p1.perSecond, 2),
      });
      console.error(JSON.stringify(rows.at(-1)));
    }
    return { name: 'pg-ledger', seconds, rows };
  } finally {
    for (const l of ledgers) await l.close().catch(() => undefined);
    await Promise.all(clients.map((c) => c.close()));
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
