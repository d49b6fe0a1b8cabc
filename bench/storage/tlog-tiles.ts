/**
 * Tiled log benchmark (issue 32): what a client that checks EVERY entry of the log costs the
 * service through tiles versus through `/trust/proof`.
 * - Measured, on a log of `entries` entries (a real WAL, the real uWS server, fetch as the
 *   client, `concurrency` requests in flight): tile reads per second and bytes per tile (every
 *   entry bundle and every hash tile of the tree, fetched in passes for `seconds`), and
 *   `/trust/proof?format=rfc6962` reads per second and bytes per proof (indexes spread over the
 *   tree, for `seconds`).
 * - Computed for 1M entries: the exact tile count and bytes of the tile API at size 1,000,000,
 *   and the proof bytes as 1M × the measured fixed part of a proof answer plus each index's
 *   audit path at size 1,000,000 (67 bytes a hash in the JSON); time = requests / measured rate.
 * Bytes are response bodies only (no HTTP headers). Register in bench/run.ts as
 * `tlog-tiles: () => benchTlogTiles()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpServer } from '../../src/http/server/server.ts';
import { createTlogRoutes } from '../../src/http/routes/tlog-routes.ts';
import { createTrustRoutes } from '../../src/http/routes/trust-routes.ts';
import { METHODOLOGY } from '../../src/intel/methodology.ts';
import { signEd25519 } from '../../src/tlog/checkpoint.ts';
import { loadOrCreateIdentity } from '../../src/receipts/identity.ts';
import { createLedger } from '../../src/ledger/ledger.ts';
import { largestPowerOfTwoBelow } from '../../src/ledger/merkle-tree.ts';
import { formatTilePath, TILE_WIDTH, type TileRef } from '../../src/ledger/tlog-tiles.ts';
import { writeWal } from './ledger.ts';

/** Options; the defaults measure in about half a minute. */
export interface TlogTilesBenchOptions {
  readonly entries?: number;
  readonly seconds?: number;
  readonly concurrency?: number;
}

const MILLION = 1_000_000;
/** `"<64 hex>",` in a JSON array of hashes. */
const JSON_HASH_BYTES = 67;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** Every tile (bundles and hash tiles, partial ones included) a tree of `size` leaves has. */
export function tilesOf(size: number): TileRef[] {
  const out: TileRef[] = [];
  for (let level = 0, span = 1; span <= size; level++, span *= TILE_WIDTH) {
    const hashes = Math.floor(size / span);
    for (let index = 0; index * TILE_WIDTH < hashes; index++) {
      const width = Math.min(TILE_WIDTH, hashes - index * TILE_WIDTH);
      out.push({ entries: false, level, index, width });
      if (level === 0) out.push({ entries: true, level, index, width });
    }
  }
  return out;
}

/** Body bytes of a tile: 32 per hash, 2 + 32 per entry. */
const tileBytes = (t: TileRef): number => t.width * (t.entries ? 34 : 32);

/** Length of the RFC 6962 audit path of `index` in a tree of `size`. */
export function auditPathLength(index: number, size: number): number {
  let length = 0;
  let [i, n] = [index, size];
  while (n > 1) {
    const k = largestPowerOfTwoBelow(n);
    if (i < k) n = k;
    else [i, n] = [i - k, n - k];
    length += 1;
  }
  return length;
}

/** Runs `fetchOne(i)` for i = 0, 1, ... with `concurrency` in flight until `seconds` passed. */
async function drive(seconds: number, concurrency: number, fetchOne: (i: number) => Promise<number>) {
  const deadline = performance.now() + seconds * 1000;
  let next = 0;
  let bytes = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      // Not `bytes += await ...`: that reads `bytes` before the await and loses the other workers' sums.
      const got = await fetchOne(next++);
      bytes += got;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  return { requests: next, bytes, perSecond: round(next / elapsed) };
}

async function body(url: string): Promise<Buffer> {
  const res = await fetch(url);
  const b = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return b;
}

/** Tile and proof totals at 1M entries from the measured rates and proof sizes. */
function atOneMillion(tileRate: number, proofRate: number, proofFixedBytes: number) {
  const tiles = tilesOf(MILLION);
  const tileTotal = tiles.reduce((s, t) => s + tileBytes(t), 0);
  const bundles = tiles.filter((t) => t.entries);
  let pathBytes = 0;
  for (let i = 0; i < MILLION; i++) pathBytes += JSON_HASH_BYTES * auditPathLength(i, MILLION) - 1;
  const proofTotal = MILLION * proofFixedBytes + pathBytes;
  return {
    tiles: { requests: tiles.length, bytes: tileTotal, bundleRequests: bundles.length, bundleBytes: bundles.reduce((s, t) => s + tileBytes(t), 0) },
    proofs: { requests: MILLION, bytes: Math.round(proofTotal) },
    bytesRatioProofsToTiles: round(proofTotal / tileTotal, 1),
    requestsRatioProofsToTiles: round(MILLION / tiles.length, 0),
    secondsAtMeasuredRates: { tiles: round(tiles.length / tileRate, 1), proofs: round(MILLION / proofRate, 1) },
  };
}

export async function benchTlogTiles(options: TlogTilesBenchOptions = {}): Promise<Record<string, unknown>> {
  const entries = options.entries ?? 100_000;
  const seconds = options.seconds ?? 8;
  const concurrency = options.concurrency ?? 8;
  const root = mkdtempSync(join(tmpdir(), 'bench-tlog-'));
  writeWal(join(root, 'ledger'), entries);
  const ledger = await createLedger({ dir: join(root, 'ledger') });
  const identity = loadOrCreateIdentity(join(root, 'identity.json'));
  const sign = (m: Uint8Array) => signEd25519(identity.secretKey, m);
  const tlog = createTlogRoutes({ ledger, identity, sign, origin: 'bench.example/log', publicUrl: null, serviceName: 'bench' });
  const trust = createTrustRoutes({ ledger, identity, baseUrl: () => '', serviceName: 'bench', serviceVersion: '0', sign, methodology: METHODOLOGY });
  const server = createHttpServer({ routes: [...trust, ...tlog.routes], prefixRoutes: tlog.prefixRoutes });
  const url = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
  try {
    const tiles = tilesOf(entries).map((t) => `${url}/${formatTilePath(t)}`);
    const tileRun = await drive(seconds, concurrency, async (i) => (await body(tiles[i % tiles.length]!)).length);
    // Indexes spread over the tree by a stride co-prime with it, so no cache of neighbours helps.
    const stride = 7919;
    let fixed = 0;
    const proofRun = await drive(seconds, concurrency, async (i) => {
      const index = (i * stride) % entries;
      const b = await body(`${url}/trust/proof?index=${index}&format=rfc6962`);
      fixed += b.length - (JSON_HASH_BYTES * auditPathLength(index, entries) - 1);
      return b.length;
    });
    const proofFixedBytes = fixed / proofRun.requests;
    return {
      name: 'tlog-tiles',
      measured: {
        entries,
        concurrency,
        secondsPerClient: seconds,
        client: 'fetch (undici) on the same host, response bodies read whole',
        tiles: { ...tileRun, meanBytes: round(tileRun.bytes / tileRun.requests, 0), tilesInTree: tiles.length },
        proofs: { ...proofRun, meanBytes: round(proofRun.bytes / proofRun.requests, 0), fixedBytesBesidesAuditPath: round(proofFixedBytes, 0) },
      },
      oneMillionEntries: atOneMillion(tileRun.perSecond, proofRun.perSecond, proofFixedBytes),
    };
  } finally {
    await server.close();
    await ledger.close();
    rmSync(root, { recursive: true, force: true });
  }
}
