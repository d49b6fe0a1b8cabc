/**
 * A real PostgreSQL for tests and benchmarks, never a mock: starts the machine's Debian cluster
 * when it is not running (`pg_ctlcluster`), makes sure a login role for tests exists (through the
 * `postgres` OS user, so it needs root or passwordless sudo), and creates a fresh database per
 * test file, dropped when the file is done. `TEST_DATABASE_URL` (a role that may CREATE DATABASE)
 * skips the start and the role: the databases are made through it instead.
 */
import { execFileSync } from 'node:child_process';
import pg from 'pg';

/** The login role tests connect as (loopback only; created with CREATEDB, no superuser). */
const TEST_ROLE = 'x402_test';
/** Only ever valid on this machine's loopback cluster. */
const TEST_PASSWORD = 'x402-test-only';
/** A cluster that was just started may take a while to accept connections on a loaded machine. */
const READY_TIMEOUT_MS = 60_000;
const DB_PREFIX = 'x402t_';
const DROP_ATTEMPTS = 10;

export interface TestDatabase {
  /** Connection URL of the fresh database (password included: tests only). */
  readonly url: string;
  readonly name: string;
  /** The port of the cluster, for a fault relay in front of it. */
  readonly port: number;
  /** Drops the database, ending any session still connected to it. */
  drop(): Promise<void>;
}

interface Cluster {
  readonly version: string;
  readonly name: string;
  readonly port: number;
  readonly online: boolean;
}

function asRoot(args: readonly string[]): string {
  const [cmd, ...rest] = process.getuid?.() === 0 ? args : ['sudo', '-n', ...args];
  return execFileSync(cmd!, rest, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function firstCluster(): Cluster {
  let text: string;
  try {
    text = execFileSync('pg_lsclusters', ['-h'], { encoding: 'utf8' });
  } catch {
    throw new Error('PostgreSQL is not installed (pg_lsclusters missing): apt-get install postgresql, or set TEST_DATABASE_URL');
  }
  const line = text.split('\n').find((l) => l.trim() !== '');
  if (!line) throw new Error('no PostgreSQL cluster on this machine: pg_createcluster 15 main, or set TEST_DATABASE_URL');
  const [version, name, port, status] = line.trim().split(/\s+/);
  return { version: version!, name: name!, port: Number(port), online: status === 'online' };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the cluster answers as the postgres OS user (the role may not exist yet). */
async function waitReady(cluster: Cluster): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      asRoot(['runuser', '-u', 'postgres', '--', 'psql', '-p', String(cluster.port), '-Atqc', 'select 1']);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`PostgreSQL ${cluster.version}/${cluster.name} did not accept connections: ${String(err)}`);
      await sleep(250);
    }
  }
}

const ROLE_SQL = `DO $$ BEGIN CREATE ROLE ${TEST_ROLE} LOGIN CREATEDB PASSWORD '${TEST_PASSWORD}'; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`;

async function prepareCluster(): Promise<string> {
  const fromEnv = process.env.TEST_DATABASE_URL;
  if (fromEnv) return fromEnv;
  const cluster = firstCluster();
  if (!cluster.online) {
    try {
      asRoot(['pg_ctlcluster', '--skip-systemctl-redirect', cluster.version, cluster.name, 'start']);
    } catch {
      // Another test file may be starting it at the same moment: readiness below decides.
    }
  }
  await waitReady(cluster);
  asRoot(['runuser', '-u', 'postgres', '--', 'psql', '-p', String(cluster.port), '-v', 'ON_ERROR_STOP=1', '-Atqc', ROLE_SQL]);
  return `postgres://${TEST_ROLE}:${TEST_PASSWORD}@127.0.0.1:${cluster.port}/postgres`;
}

let prepared: Promise<string> | null = null;

/** The admin URL (a role that may create databases), starting the cluster once per process. */
export function ensurePostgres(): Promise<string> {
  prepared ??= prepareCluster();
  return prepared;
}

/** Databases of test processes that are gone (a run killed before its clean-up). */
async function dropStale(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${DB_PREFIX}%`]);
  for (const { datname } of rows) {
    const pid = Number(datname.split('_')[1]);
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    if (!alive) await admin.query(`drop database if exists "${datname}" with (force)`).catch(() => undefined);
  }
}

async function connectAdmin(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** A fresh, empty database named after `label` (e.g. the test file). */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const adminUrl = await ensurePostgres();
  const admin = await connectAdmin(adminUrl);
  const name = `${DB_PREFIX}${process.pid}_${label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30)}_${Math.random().toString(36).slice(2, 8)}`;
  try {
    await dropStale(admin);
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    port: Number(url.port || 5432),
    async drop() {
      const a = await connectAdmin(adminUrl);
      try {
        // A server process of another role (autovacuum) may hold it a moment: try again, and at
        // worst leave it to the next run's dropStale.
        for (let attempt = 0; attempt < DROP_ATTEMPTS; attempt++) {
          const dropped = await a.query(`drop database if exists "${name}" with (force)`).then(
            () => true,
            () => false,
          );
          if (dropped) return;
          await sleep(500);
        }
      } finally {
        await a.end();
      }
    },
  };
}
