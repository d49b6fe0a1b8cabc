/**
 * The ledger as a C2SP tiled log, on a real uWS server over a real file ledger: `/checkpoint`
 * opens with the vkey `/trust/pubkey` publishes and carries the same root as `/trust/checkpoint`;
 * tiles and entry bundles agree with `format=rfc6962` proofs and `/ledger`; and Go's own
 * golang.org/x/mod/sumdb/{note,tlog} (Debian's packages, GOPATH mode) verifies the checkpoints,
 * tiles, inclusion of entries and consistency between two checkpoints, producing byte for byte
 * the proofs our endpoints serve.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, type HttpServer } from '../../src/http/server/server.ts';
import { createTlogRoutes } from '../../src/http/routes/tlog-routes.ts';
import { createTrustRoutes } from '../../src/http/routes/trust-routes.ts';
import { METHODOLOGY } from '../../src/intel/methodology.ts';
import { signEd25519 } from '../../src/tlog/checkpoint.ts';
import { loadOrCreateIdentity, type Identity } from '../../src/receipts/identity.ts';
import { createLedger, type Ledger } from '../../src/ledger/ledger.ts';
import { RFC6962_HASHER } from '../../src/ledger/merkle-hash.ts';
import { decodeVerifierKey } from '../../src/tlog/signed-note.ts';
import { openCheckpoint } from '../../src/tlog/tlog-checkpoint.ts';
import { FUZZ_SEED } from '../helpers/fuzz-arbitraries.ts';
import { buildGoVerifier, runGoVerifier } from '../helpers/go-tlog.ts';
import { readJson } from '../helpers/read-json.ts';

const dir = mkdtempSync(join(tmpdir(), 'tlog-http-'));
const ORIGIN = 'intel.test/ledger';
let identity: Identity;
let ledger: Ledger;
let server: HttpServer;
let url = '';

const payment = (n: number) =>
  ({ kind: 'payment', endpoint: '/v1/epoch', priceUsdcUnits: 1000 + n, network: 'solana:test', receiptSha256: n.toString(16).padStart(64, '0') }) as const;

async function appendUpTo(size: number): Promise<void> {
  const from = ledger.head().treeSize;
  await Promise.all(Array.from({ length: size - from }, (_, i) => ledger.append(payment(from + i))));
}

const get = (path: string) => fetch(`${url}${path}`);
const bytesOf = async (path: string) => Buffer.from(await (await get(path)).arrayBuffer());

async function start(): Promise<void> {
  identity = loadOrCreateIdentity(join(dir, 'identity.json'));
  ledger = await createLedger({ dir: join(dir, 'ledger') });
  const sign = (m: Uint8Array) => signEd25519(identity.secretKey, m);
  const tlog = createTlogRoutes({ ledger, identity, sign, origin: ORIGIN, publicUrl: null, serviceName: 'solana-x402-intel' });
  const trust = createTrustRoutes({
    ledger,
    identity,
    baseUrl: () => url,
    serviceName: 'solana-x402-intel',
    serviceVersion: '0.1.9',
    sign,
    methodology: METHODOLOGY,
    noteKey: tlog.noteKey,
  });
  server = createHttpServer({ routes: [...trust, ...tlog.routes], prefixRoutes: tlog.prefixRoutes });
  url = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
}

beforeAll(start);
afterAll(async () => {
  await server?.close();
  await ledger?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function logKey() {
  const pub = await readJson(await get('/trust/pubkey'));
  const key = decodeVerifierKey(pub.noteVerifierKey!);
  if (!key.ok) throw new Error(key.reason);
  return { pub, key: key.value };
}

describe('GET /checkpoint', () => {
  it('is a signed note the published vkey opens, with the root of /trust/checkpoint', async () => {
    await appendUpTo(21);
    const { pub, key } = await logKey();
    expect(pub).toMatchObject({ publicKey: identity.publicKey, logOrigin: ORIGIN, noteKeyName: ORIGIN });
    const res = await get('/checkpoint');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await res.text();
    const opened = openCheckpoint(text, key, ORIGIN);
    if (!opened.ok) throw new Error(opened.reason);
    const json = await readJson(await get('/trust/checkpoint'));
    expect(opened.value.checkpoint.treeSize).toBe(21);
    expect(Buffer.from(opened.value.checkpoint.rootHash).toString('hex')).toBe(json.rootHash.rfc6962);
    // Checked again with tweetnacl alone: the signature is over the note text, after a 4-byte key ID.
    const [body, sigLine] = text.split('\n\n') as [string, string];
    const sig = Buffer.from(sigLine.split(' ')[2]!, 'base64');
    expect(nacl.sign.detached.verify(Buffer.from(`${body}\n`), sig.subarray(4), identity.publicKeyBytes)).toBe(true);
    expect(await (await get('/checkpoint')).text()).toBe(text);
  });

  it('refuses a query', async () => {
    const res = await get('/checkpoint?size=3');
    expect(res.status).toBe(400);
    expect((await readJson(res)).error).toBe('unknown_parameter');
  });
});

describe('GET /tile/...', () => {
  beforeAll(() => appendUpTo(256 + 40));

  it('serves full level-0 tiles of RFC 6962 leaf hashes, immutable', async () => {
    const res = await get('/tile/0/000');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const tile = Buffer.from(await res.arrayBuffer());
    expect(tile.length).toBe(256 * 32);
    for (const i of [0, 5, 255]) {
      const proof = await readJson(await get(`/trust/proof?index=${i}&format=rfc6962`));
      expect(tile.subarray(i * 32, (i + 1) * 32).toString('hex')).toBe(proof.leafHash);
    }
  });

  it('serves partial tiles and bundles short-lived, and level-1 tiles of level-0 tile roots', async () => {
    const res = await get('/tile/0/001.p/40');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect((await res.arrayBuffer()).byteLength).toBe(40 * 32);
    const level1 = await bytesOf('/tile/1/000.p/1');
    const consistency = await readJson(await get('/trust/consistency?from=0&to=256'));
    expect(level1.toString('hex')).toBe(consistency.toRoot);
  });

  it('serves entry bundles whose entries are the raw entrySha256 each leaf hashes', async () => {
    const bundle = await bytesOf('/tile/entries/001.p/40');
    const log = (await readJson(get('/ledger?limit=40'))) as { entries: Array<{ index: number; entrySha256: string }> };
    expect(bundle.length).toBe(40 * 34);
    log.entries.forEach((e, i) => {
      expect(bundle.readUInt16BE(i * 34)).toBe(32);
      expect(bundle.subarray(i * 34 + 2, (i + 1) * 34).toString('hex')).toBe(e.entrySha256);
    });
    const leaves = await bytesOf('/tile/0/001.p/40');
    expect(Buffer.from(RFC6962_HASHER.leaf(bundle.subarray(2, 34)))).toEqual(leaves.subarray(0, 32));
  });

  it('answers 404 beyond the tree and a 400 JSON error for paths that are not tiles', async () => {
    for (const path of ['/tile/0/001', '/tile/0/001.p/41', '/tile/entries/002.p/1', '/tile/1/000', '/tile/2/000.p/1', '/tile/63/000']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect((await readJson(res)).error).toBe('not_found');
    }
    for (const path of [
      '/tile/',
      '/tile/0/1',
      '/tile/0/x000/001',
      '/tile/64/000',
      '/tile/0/000.p/256',
      '/tile/0/000.p/0',
      '/tile/data/000',
      '/tile/0/000?x=1',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      const body = await readJson(res);
      expect(body.error, path).toMatch(/^(invalid_parameter|unknown_parameter)$/);
    }
    expect((await get('/tile/0/000')).status).toBe(200);
  });
});

describe('tile paths from anyone', () => {
  it('never answer 5xx: anything but a tile in the tree is a 4xx JSON error, and the server stays up', async () => {
    const segment = fc.oneof(fc.constantFrom('x001', '000', '001.p', '255', 'entries', '..', '%00', 'x000', '1', ''), fc.string({ maxLength: 12 }));
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 8 }), async (parts) => {
        const res = await get(`/tile/${parts.map((p) => encodeURIComponent(p)).join('/')}`);
        const body = Buffer.from(await res.arrayBuffer());
        expect(res.status).toBeLessThan(500);
        if (res.status !== 200) expect(JSON.parse(body.toString()).error).toMatch(/^(invalid_parameter|not_found|unknown_parameter)$/);
      }),
      { seed: FUZZ_SEED, numRuns: 300 },
    );
    expect((await get('/tile/0/000')).status).toBe(200);
  });
});

describe("Go's sumdb note and tlog packages", () => {
  let goBinary = '';
  beforeAll(async () => {
    goBinary = await buildGoVerifier(dir);
  }, 600_000);

  it('verify our checkpoints, tiles, entries, inclusion and consistency, and compute our proofs byte for byte', async () => {
    await appendUpTo(300);
    const oldFile = join(dir, 'old.checkpoint');
    writeFileSync(oldFile, await (await get('/checkpoint')).text());
    await appendUpTo(256 * 2 + 37);
    const newFile = join(dir, 'new.checkpoint');
    writeFileSync(newFile, await (await get('/checkpoint')).text());
    const { pub } = await logKey();
    const indexes = [0, 1, 7, 131, 255, 256, 299, 300, 333, 419, 511, 512, 548];
    const go = await runGoVerifier(goBinary, { url, vkey: pub.noteVerifierKey!, oldFile, newFile, indexes });
    if (!go.ok) throw new Error(go.stderr);
    const r = go.report;
    expect(r).toMatchObject({ origin: ORIGIN, oldSize: 300, newSize: 549, entriesChecked: 549 });
    const consistency = await readJson(await get('/trust/consistency?from=300&to=549'));
    expect([r.oldRoot, r.newRoot]).toEqual([consistency.fromRoot, consistency.toRoot]);
    expect(r.consistency).toEqual(consistency.proof);
    for (const inc of r.inclusion) {
      const ours = await readJson(await get(`/trust/proof?index=${inc.index}&treeSize=549&format=rfc6962`));
      expect(inc, `entry ${inc.index}`).toEqual({ index: inc.index, entry: ours.entrySha256, leafHash: ours.leafHash, proof: ours.auditPath });
    }
  });

  it('refuse a checkpoint signed by another key under the same name', async () => {
    const other = nacl.sign.keyPair();
    const text = await (await get('/checkpoint')).text();
    const body = text.slice(0, text.indexOf('\n\n') + 1);
    const forged = Buffer.concat([
      Buffer.from(text.slice(text.lastIndexOf('— ') + 2).split(' ')[1]!, 'base64').subarray(0, 4),
      nacl.sign.detached(Buffer.from(body), other.secretKey),
    ]);
    const file = join(dir, 'forged.checkpoint');
    writeFileSync(file, `${body}\n— ${ORIGIN} ${forged.toString('base64')}\n`);
    const { pub } = await logKey();
    const go = await runGoVerifier(goBinary, { url, vkey: pub.noteVerifierKey!, oldFile: file, newFile: file, indexes: [0] });
    expect(go.ok).toBe(false);
  });
});

describe('after a restart', () => {
  it('serves the same checkpoint, tiles and bundles (node files rebuilt from the WAL)', async () => {
    const paths = ['/checkpoint', '/tile/0/000', '/tile/0/002.p/37', '/tile/1/000.p/2', '/tile/entries/001', '/tile/entries/002.p/37'];
    const before = await Promise.all(paths.map(bytesOf));
    await server.close();
    await ledger.close();
    await start();
    const after = await Promise.all(paths.map(bytesOf));
    for (const [i, p] of paths.entries()) expect(after[i]!.equals(before[i]!), p).toBe(true);
    expect(before[0]!.toString().split('\n')[1]).toBe('549');
  });
});
