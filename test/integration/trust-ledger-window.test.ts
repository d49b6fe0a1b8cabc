/**
 * `/ledger` and `/trust/log` windows on a ledger longer than the largest window
 * (docs/contract.md#limits: default 400, max 1000, 400 status outside), and `/trust/proof` carrying
 * the entry of an index that no window reaches any more, so a client holding an old receipt can
 * still recompute the leaf from the entry. Real uWS server over a real ledger in a temp dir.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, type HttpServer } from '../../src/http/server/server.ts';
import { createTrustRoutes } from '../../src/http/routes/trust-routes.ts';
import { signEd25519 } from '../../src/tlog/checkpoint.ts';
import { loadOrCreateIdentity } from '../../src/receipts/identity.ts';
import { createLedger, type Ledger } from '../../src/ledger/ledger.ts';
import { chainProblem, GENESIS, specProofRoot, type ServedEntry } from '../helpers/ledger-client.ts';
import { readJson } from '../helpers/read-json.ts';

const ENTRIES = 1234;
const dataDir = mkdtempSync(join(tmpdir(), 'trust-window-'));
let ledger: Ledger;
let server: HttpServer;
let url = '';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

beforeAll(async () => {
  const identity = loadOrCreateIdentity(join(dataDir, 'identity.json'));
  ledger = await createLedger({ dir: join(dataDir, 'ledger') });
  // Concurrent appends share group commits, so 1234 durable entries take a moment only.
  await Promise.all(
    Array.from({ length: ENTRIES }, (_, i) =>
      ledger.append({ kind: 'payment', endpoint: '/v1/smri', priceUsdcUnits: 10_000, network: 'eip155:8453', receiptSha256: sha(`receipt-${i}`) }),
    ),
  );
  const routes = createTrustRoutes({
    ledger,
    identity,
    baseUrl: () => url,
    serviceName: 'solana-x402-intel',
    serviceVersion: '0.1.9',
    sign: (m) => signEd25519(identity.secretKey, m),
    methodology: {},
  });
  server = createHttpServer({ routes });
  url = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
}, 60_000);
afterAll(async () => {
  await server.close();
  await ledger.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('ledger windows', () => {
  it('answers the newest 400 by default and at most 1000, oldest first, linking to the head', async () => {
    for (const path of ['/ledger', '/trust/log']) {
      const byDefault = await readJson(fetch(`${url}${path}`));
      expect([path, byDefault.count, byDefault.entries[0].index, byDefault.treeSize]).toEqual([path, 400, ENTRIES - 400, ENTRIES]);
      const max = await readJson(fetch(`${url}${path}?limit=1000`));
      expect(max.entries.map((e: ServedEntry) => e.index)).toEqual(Array.from({ length: 1000 }, (_, i) => ENTRIES - 1000 + i));
      expect(max.entries.at(-1).entrySha256).toBe(max.chainHeadSha256);
      for (const limit of ['1001', '0', '400.0', '1e3']) {
        const res = await fetch(`${url}${path}?limit=${limit}`);
        expect([path, limit, res.status, (await readJson(res)).param]).toEqual([path, limit, 400, 'limit']);
      }
    }
  });

  it('/trust/proof carries the entry, so an index older than every window still recomputes to its leaf', async () => {
    const windowStart = ENTRIES - 1000;
    const proof = await readJson(fetch(`${url}/trust/proof?index=3`));
    expect(3).toBeLessThan(windowStart);
    const { entrySha256, ...unsealed } = proof.entry;
    expect(Object.keys(proof.entry)).toEqual(['index', 'time', 'kind', 'endpoint', 'priceUsdcUnits', 'network', 'receiptSha256', 'prevHash', 'entrySha256']);
    expect(proof.entry).toMatchObject({ index: 3, receiptSha256: sha('receipt-3') });
    expect(sha(JSON.stringify(unsealed))).toBe(entrySha256);
    expect(proof.leaf).toBe(entrySha256);
    expect(specProofRoot(proof.leaf, proof.proof)).toBe(proof.merkleRootSha256);
    const rfc = await readJson(fetch(`${url}/trust/proof?index=3&format=rfc6962`));
    expect(rfc.entry).toEqual(proof.entry);
    // The chain of the first four entries, fetched only through proofs, links from genesis.
    const first = await Promise.all([0, 1, 2, 3].map(async (i) => (await readJson(fetch(`${url}/trust/proof?index=${i}`))).entry));
    expect(first[0].prevHash).toBe(GENESIS);
    expect(chainProblem(first)).toBeNull();
  });
});
