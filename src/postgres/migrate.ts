/**
 * Versioned schema migrations, applied at start: the SQL files of migrations/ (`NNNN-name.sql`,
 * applied in version order) that `schema_migrations` does not list yet run in one transaction
 * under an advisory lock, so instances starting at once apply each migration exactly once (the
 * second waits for the lock, then finds them applied). A version the database has but this build
 * does not know means a newer build migrated it: refused, rather than run old code on it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceError } from '../errors.ts';
import type { PgClient } from './pg-client.ts';

/** Beside this file in the sources; the build copies it beside the bundle (scripts/build-server.ts). */
export const MIGRATIONS_DIR = join(import.meta.dirname, 'migrations');
/** Key of the advisory lock migrations hold (any constant the service uses for nothing else). */
export const MIGRATION_LOCK_KEY = 0x78343032; // 'x402'

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const FILE_RE = /^(\d{4})-([a-z0-9-]+)\.sql$/;

/** The migrations in `dir`, in version order; a misnamed or duplicated version is an error. */
export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const found = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((file) => {
      const m = FILE_RE.exec(file);
      if (!m) throw new Error(`migration file ${file} is not named NNNN-name.sql`);
      return { version: Number(m[1]), name: m[2]!, sql: readFileSync(join(dir, file), 'utf8') };
    })
    .sort((a, b) => a.version - b.version);
  found.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration versions must run 1, 2, 3 ... without gaps; found ${m.version} at place ${i + 1}`);
  });
  return found;
}

/** What `applyMigrations` did. */
export interface MigrationReport {
  readonly applied: readonly number[];
  readonly current: number;
}

/** Applies the missing migrations in one transaction under the advisory lock. */
export async function applyMigrations(db: Pick<PgClient, 'transaction'>, migrations: readonly Migration[] = readMigrations()): Promise<MigrationReport> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.query(
      'create table if not exists schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())',
    );
    const rows = await tx.query<{ version: number }>('select version from schema_migrations order by version');
    const have = new Set(rows.map((r) => r.version));
    const newest = Math.max(0, ...have);
    if (newest > migrations.length)
      throw new ServiceError('database_unavailable', `the database schema is at version ${newest}, newer than this build knows (${migrations.length})`, {
        reason: 'schema_newer',
      });
    const applied: number[] = [];
    for (const m of migrations) {
      if (have.has(m.version)) continue;
      // Several statements in one simple query: the file runs as written, inside this transaction.
      await tx.query(m.sql);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return { applied, current: migrations.length };
  });
}
