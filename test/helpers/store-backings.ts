/**
 * What the store conformance suites (test/integration/*-stores.test.ts) run each implementation
 * on: a fresh directory per test for the file stores, and one migrated PostgreSQL database per
 * file for the database stores (test/helpers/postgres.ts starts it when needed), each opening on
 * a connection pool of its own as a separate instance would. Keys are made unique per test, so
 * the cases of one file never meet in the shared database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { applyMigrations } from '../../src/postgres/migrate.ts';
import { createPgClient, type PgClient } from '../../src/postgres/pg-client.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';

/** The two places a payment store keeps its state. */
export type StoreKind = 'file' | 'postgres';
export const STORE_KINDS: readonly StoreKind[] = ['file', 'postgres'];

/** The options every payment store takes: how long a record lives, and the clock. */
export interface StoreClock {
  readonly ttlMs?: number;
  readonly now?: () => number;
}

/** How a suite opens its store on each backing (`dir`: a directory of its own beside the database, for a local view). */
export interface StoreOpeners<S> {
  readonly file: (dir: string, options: StoreClock) => S;
  readonly postgres: (db: PgClient, options: StoreClock, dir: string) => S;
}

export interface StoreBackings {
  /** A new place of `kind`, and how to open the store there (again: a restart, or another instance). */
  place<S>(kind: StoreKind, openers: StoreOpeners<S>): (options?: StoreClock) => S;
  /**
   * `place`, where the database is a fresh migrated one of its own: for stores whose state is one
   * per deployment (the ledger's one chain, the kill switch's one row), so tests never meet.
   */
  placeAlone<S>(kind: StoreKind, openers: StoreOpeners<S>): Promise<(options?: StoreClock) => S>;
  /** A new directory for a file store (removed after the test). */
  dir(): string;
  /** A new connection pool on this file's migrated database (closed after the file). */
  db(): PgClient;
  /** `name` made unique to this call, for keys in the shared database. */
  unique(name: string): string;
}

/** Registers the hooks that make and clean up the backings of one suite file. */
export function useStoreBackings(label: string): StoreBackings {
  let database: TestDatabase | undefined;
  const clients: PgClient[] = [];
  const dirs: string[] = [];
  const alone: TestDatabase[] = [];
  let n = 0;
  const pool = (url: string): PgClient => {
    const c = createPgClient({ url, maxConnections: 4 });
    clients.push(c);
    return c;
  };
  const aloneDatabase = async (): Promise<string> => {
    const db = await createTestDatabase(`${label}-${alone.length}`);
    alone.push(db);
    await applyMigrations(pool(db.url));
    return db.url;
  };
  beforeAll(async () => {
    database = await createTestDatabase(label);
    const migrator = createPgClient({ url: database.url, maxConnections: 1 });
    clients.push(migrator);
    await applyMigrations(migrator);
  }, 120_000);
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    for (const db of [...alone, database]) await db?.drop();
  });
  const backings: StoreBackings = {
    place(kind, openers) {
      const dir = backings.dir();
      if (kind === 'file') return (options = {}) => openers.file(dir, options);
      return (options = {}) => openers.postgres(pool(database!.url), options, backings.dir());
    },
    async placeAlone(kind, openers) {
      if (kind === 'file') return backings.place(kind, openers);
      const url = await aloneDatabase();
      return (options = {}) => openers.postgres(pool(url), options, backings.dir());
    },
    dir() {
      const d = mkdtempSync(join(tmpdir(), `${label}-`));
      dirs.push(d);
      return d;
    },
    db: () => pool(database!.url),
    unique: (name) => `${name}-${process.pid}-${n++}`,
  };
  return backings;
}
