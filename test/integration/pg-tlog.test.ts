/**
 * The tiled log when PostgreSQL sequences the ledger (a real database, one per file): two
 * instances, each its own view and its own uWS server with the one identity, serve the same
 * `/checkpoint` bytes for the same size and the same tiles and entry bundles; Go's sumdb
 * packages verify one instance's checkpoint against the other's, reading tiles from the second.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHttpServer, type HttpServer } from '../../src/http/server/server.ts';
import { createTlogRoutes, type TlogRoutes } from '../../src/http/routes/tlog-routes.ts';
import { applyMigrations } from '../../src/postgres/migrate.ts';
import { createPgClient, type PgClient } from '../../src/postgres/pg-client.ts';
import { signEd25519 } from '../../src/tlog/checkpoint.ts';
import { loadOrCreateIdentity, type Identity } from '../../src/receipts/identity.ts';
import type { Ledger } from '../../src/ledger/ledger.ts';
import { createPgLedger } from '../../src/ledger/pg-ledger.ts';
import { buildGoVerifier, runGoVerifier } from '../helpers/go-tlog.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'pg-tlog-'));
let db: TestDatabase;
let identity: Identity;
const clients: PgClient[] = [];
const instances: Array<{ ledger: Ledger; server: HttpServer; url: string; tlog: TlogRoutes }> = [];

const payment = (n: number) =>
  ({ kind: 'payment', endpoint: '/v1/epoch', priceUsdcUnits: 1000 + n, network: 'solana:test', receiptSha256: n.toString(16).padStart(64, '0') }) as const;

async function startInstance(n: number): Promise<void> {
  const db_ = createPgClient({ url: db.url, maxConnections: 4 });
  clients.push(db_);
  const ledger = await createPgLedger({ db: db_, viewDir: join(dir, `view-${n}`), pollMs: 100 });
  const sign = (m: Uint8Array) => signEd25519(identity.secretKey, m);
  const tlog = createTlogRoutes({ ledger, identity, sign, origin: null, publicUrl: 'https://intel.example/', serviceName: 'solana-x402-intel' });
  const server = createHttpServer({ routes: tlog.routes, prefixRoutes: tlog.prefixRoutes });
  const url = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
  instances.push({ ledger, server, url, tlog });
}

async function bothAt(size: number): Promise<void> {
  // Each view follows the table (notification, else its poll); wait until both hold `size`.
  await vi.waitUntil(() => instances.every((x) => x.ledger.head().treeSize >= size), { timeout: 10_000, interval: 25 });
  for (const x of instances) expect(x.ledger.head().treeSize).toBe(size);
}

const bytes = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

beforeAll(async () => {
  db = await createTestDatabase('pg-tlog');
  const c = createPgClient({ url: db.url, maxConnections: 2 });
  await applyMigrations(c);
  await c.close();
  identity = loadOrCreateIdentity(join(dir, 'identity.json'));
  await startInstance(0);
  await startInstance(1);
}, 120_000);
afterAll(async () => {
  for (const x of instances) {
    await x.server.close();
    await x.ledger.close().catch(() => undefined);
  }
  await Promise.all(clients.map((c) => c.close()));
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the tiled log on PostgreSQL', () => {
  it('serves the same checkpoint, tiles and bundles on every instance, and Go verifies across them', async () => {
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    expect(a.tlog.noteKey).toEqual(b.tlog.noteKey);
    expect(a.tlog.noteKey.logOrigin).toBe('intel.example');
    await Promise.all(Array.from({ length: 270 }, (_, n) => instances[n % 2]!.ledger.append(payment(n))));
    await bothAt(270);
    const oldNote = await (await fetch(`${a.url}/checkpoint`)).text();
    expect(await (await fetch(`${b.url}/checkpoint`)).text()).toBe(oldNote);
    await Promise.all(Array.from({ length: 130 }, (_, n) => instances[n % 2]!.ledger.append(payment(270 + n))));
    await bothAt(400);
    const newNote = await (await fetch(`${b.url}/checkpoint`)).text();
    expect(await (await fetch(`${a.url}/checkpoint`)).text()).toBe(newNote);
    for (const path of ['/tile/0/000', '/tile/0/001.p/144', '/tile/1/000.p/1', '/tile/entries/000', '/tile/entries/001.p/144']) {
      const [x, y] = [await bytes(`${a.url}${path}`), await bytes(`${b.url}${path}`)];
      expect(x.length, path).toBeGreaterThan(0);
      expect(y.equals(x), path).toBe(true);
    }
    const goBinary = await buildGoVerifier(dir);
    const oldFile = join(dir, 'old');
    const newFile = join(dir, 'new');
    writeFileSync(oldFile, oldNote);
    writeFileSync(newFile, newNote);
    const go = await runGoVerifier(goBinary, { url: b.url, vkey: a.tlog.noteKey.noteVerifierKey!, oldFile, newFile, indexes: [0, 269, 270, 399] });
    if (!go.ok) throw new Error(go.stderr);
    expect(go.report).toMatchObject({ origin: 'intel.example', oldSize: 270, newSize: 400, entriesChecked: 400 });
    const proof = a.ledger.proof(270, 400, 'rfc6962');
    expect(proof.ok && go.report.inclusion[2]!.proof).toEqual(proof.ok && proof.value.auditPath);
  }, 600_000);
});
