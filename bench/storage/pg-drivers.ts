/**
 * PostgreSQL driver benchmark (issue 17): durable append throughput of `postgres` (porsager)
 * against `pg` (node-postgres) on the local server, in the same run. One transaction appends a
 * batch of ledger-sized rows (1, 16 or 128) with one INSERT ... SELECT FROM unnest(arrays) and
 * commits with synchronous_commit on (so every commit waits for the WAL flush): the statement
 * the database-sequenced ledger would send. Each driver runs with one connection (transactions
 * one after another) and with CONCURRENCY connections (group commit in the server). Rounds
 * alternate the drivers so drift on a shared machine hits both alike. Figures are rows per
 * second, the ratio postgres / pg per case, and each driver's CPU per row in this process.
 * Register in bench/run.ts as `'pg-drivers': () => benchPgDrivers()`.
 */
import pg from 'pg';
import postgres from 'postgres';
import { sha256Hex } from '../../src/ledger/merkle-hash.ts';
import { createTestDatabase } from '../../test/helpers/postgres.ts';

export interface PgDriverBenchOptions {
  readonly secondsPerCase?: number;
  readonly rounds?: number;
}

const BATCHES = [1, 16, 128] as const;
const CONCURRENCY = 4;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** Columns of a ledger entry (docs/trust-and-proofs.md#the-ledger): about 330 bytes a row. */
const CREATE = `create table bench_ledger (
  idx bigint primary key, time text not null, kind text not null, endpoint text, price_usdc_units bigint,
  network text, receipt_sha256 text not null, prev_hash text not null, entry_sha256 text not null)`;
const INSERT = `insert into bench_ledger select * from unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[])`;

let nextIndex = 0;
function batchParams(size: number): unknown[][] {
  const cols: unknown[][] = Array.from({ length: 9 }, () => []);
  for (let i = 0; i < size; i++) {
    const idx = nextIndex++;
    const row = [
      idx,
      new Date().toISOString(),
      'payment',
      '/v1/token-risk',
      28000,
      'eip155:8453',
      sha256Hex(`r${idx}`),
      sha256Hex(`p${idx}`),
      sha256Hex(`e${idx}`),
    ];
    for (const [c, v] of row.entries()) cols[c]!.push(v);
  }
  return cols;
}

/** Appends one batch in one transaction on one connection of the driver. */
type AppendBatch = (params: unknown[][]) => Promise<void>;

interface Driver {
  readonly name: 'postgres' | 'pg';
  append: AppendBatch;
  close(): Promise<void>;
}

function porsager(url: string, connections: number): Driver {
  const sql = postgres(url, { max: connections, onnotice: () => undefined });
  return {
    name: 'postgres',
    append: async (params) => {
      await sql.begin((tx) => tx.unsafe(INSERT, params as never[], { prepare: true }));
    },
    close: () => sql.end(),
  };
}

function nodePostgres(url: string, connections: number): Driver {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  return {
    name: 'pg',
    append: async (params) => {
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query({ name: 'bench-append', text: INSERT, values: params });
        await client.query('commit');
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** Rows per second, and the driver's CPU per row on this process (µs): what it costs the service beside the wait. */
async function rowsPerSecond(driver: Driver, batch: number, workers: number, seconds: number): Promise<{ rate: number; cpuUsPerRow: number }> {
  const deadline = performance.now() + seconds * 1000;
  const cpu = process.cpuUsage();
  let rows = 0;
  const work = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await driver.append(batchParams(batch));
      rows += batch;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: workers }, work));
  const used = process.cpuUsage(cpu);
  return { rate: rows / ((performance.now() - started) / 1000), cpuUsPerRow: (used.user + used.system) / rows };
}

/** Runs every case for both drivers, `rounds` times, alternating; reports the medians. */
export async function benchPgDrivers(options: PgDriverBenchOptions = {}): Promise<Record<string, unknown>> {
  const seconds = options.secondsPerCase ?? 3;
  const rounds = options.rounds ?? 3;
  const db = await createTestDatabase('bench_pg_drivers');
  const setup = postgres(db.url, { max: 1, onnotice: () => undefined });
  await setup.unsafe(CREATE);
  const [settings] = await setup<{ synchronous_commit: string; fsync: string; version: string }[]>`
    select current_setting('synchronous_commit') as synchronous_commit, current_setting('fsync') as fsync, current_setting('server_version') as version`;
  await setup.end();
  if (settings?.synchronous_commit !== 'on' || settings.fsync !== 'on')
    throw new Error('pg-drivers measures durable commits: synchronous_commit and fsync must be on');
  const samples = new Map<string, number[]>();
  const cpuSamples = new Map<string, number[]>();
  try {
    for (let r = 0; r < rounds; r++) {
      for (const workers of [1, CONCURRENCY]) {
        for (const batch of BATCHES) {
          const order = r % 2 === 0 ? [porsager, nodePostgres] : [nodePostgres, porsager];
          for (const make of order) {
            const driver = make(db.url, workers);
            await driver.append(batchParams(1)); // connect and prepare outside the timing
            const measured = await rowsPerSecond(driver, batch, workers, seconds);
            await driver.close();
            const key = `${driver.name}|${workers}|${batch}`;
            samples.set(key, [...(samples.get(key) ?? []), measured.rate]);
            cpuSamples.set(key, [...(cpuSamples.get(key) ?? []), measured.cpuUsPerRow]);
          }
        }
      }
    }
  } finally {
    await db.drop();
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const cases = [1, CONCURRENCY].flatMap((workers) =>
    BATCHES.map((batch) => {
      const [pa, pb] = [samples.get(`postgres|${workers}|${batch}`)!, samples.get(`pg|${workers}|${batch}`)!];
      const [a, b] = [median(pa), median(pb)];
      const [ca, cb] = [median(cpuSamples.get(`postgres|${workers}|${batch}`)!), median(cpuSamples.get(`pg|${workers}|${batch}`)!)];
      return {
        connections: workers,
        batch,
        postgresRowsPerSecond: round(a, 0),
        pgRowsPerSecond: round(b, 0),
        ratioPostgresToPg: round(a / b, 2),
        // The spread of the rounds: on a shared disk the fsync time moves more than the drivers differ.
        postgresRange: [round(Math.min(...pa), 0), round(Math.max(...pa), 0)],
        pgRange: [round(Math.min(...pb), 0), round(Math.max(...pb), 0)],
        postgresCpuUsPerRow: round(ca, 1),
        pgCpuUsPerRow: round(cb, 1),
        cpuRatioPostgresToPg: round(ca / cb, 2),
      };
    }),
  );
  return { name: 'pg-drivers', server: settings.version, synchronousCommit: settings.synchronous_commit, secondsPerCase: seconds, rounds, cases };
}
