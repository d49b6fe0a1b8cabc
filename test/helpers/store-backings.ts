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

/** How a suite opens its store on each backing. */
export interface StoreOpeners<S> {
  readonly file: (dir: string, options: StoreClock) => S;
  readonly postgres: (db: PgClient, options: StoreClock) => S;
}

export interface StoreBackings {
  /** A new place of `kind`, and how to open the store there (again: a restart, or another instance). */
  place<S>(kind: StoreKind, openers: StoreOpeners<S>): (options?: StoreClock) => S;
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
  let n = 0;
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
    await database?.drop();
  });
  const backings: StoreBackings = {
    place(kind, openers) {
      if (kind === 'file') {
        const dir = backings.dir();
        return (options = {}) => openers.file(dir, options);
      }
      return (options = {}) => openers.postgres(backings.db(), options);
    },
    dir() {
      const d = mkdtempSync(join(tmpdir(), `${label}-`));
      dirs.push(d);
      return d;
    },
    db() {
      const c = createPgClient({ url: database!.url, maxConnections: 4 });
      clients.push(c);
      return c;
    },
    unique: (name) => `${name}-${process.pid}-${n++}`,
  };
  return backings;
}
