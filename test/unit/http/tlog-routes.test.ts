import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import type { HttpReply } from '../../../src/errors.ts';
import type { HttpRequestData } from '../../../src/http/server/route.ts';
import { createTlogRoutes, defaultLogOrigin } from '../../../src/http/routes/tlog-routes.ts';
import type { LedgerHead } from '../../../src/ledger/ledger-reader.ts';
import { sha256Hex } from '../../../src/ledger/merkle-hash.ts';

const pair = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(9));
const identity = { publicKey: 'Key58', publicKeyBytes: pair.publicKey };
const request = (path: string): HttpRequestData => ({
  method: 'GET',
  path,
  query: '',
  headers: {},
  remoteIp: '127.0.0.1',
  body: null,
  signal: new AbortController().signal,
});

function fixture(sign: (m: Uint8Array) => Promise<Uint8Array>) {
  let head: LedgerHead = { chainHead: sha256Hex('c'), treeSize: 5, merkleRoot: sha256Hex('s'), merkleRootRfc6962: sha256Hex('r'), lastAppendAt: null };
  const ledger = { head: () => head, tile: () => null };
  const { routes } = createTlogRoutes({ ledger, identity, sign, origin: 'log.example/x', publicUrl: null, serviceName: 'svc' });
  const checkpoint = () => routes[0]!.handler(request('/checkpoint')) as Promise<HttpReply>;
  return { checkpoint, grow: (n: number) => (head = { ...head, treeSize: n, merkleRootRfc6962: sha256Hex(`r${n}`) }) };
}

describe('GET /checkpoint signing', () => {
  it('signs once per tree size however many requests ask (free traffic cannot load the signer)', async () => {
    let signs = 0;
    const f = fixture(async (m) => {
      signs += 1;
      return nacl.sign.detached(m, pair.secretKey);
    });
    const first = await Promise.all(Array.from({ length: 50 }, () => f.checkpoint()));
    expect(new Set(first.map((r) => r.body)).size).toBe(1);
    expect(signs).toBe(1);
    await f.checkpoint();
    expect(signs).toBe(1);
    f.grow(6);
    const next = await f.checkpoint();
    expect(String(next.body).startsWith('log.example/x\n6\n')).toBe(true);
    expect(signs).toBe(2);
  });

  it('does not keep a failed signature: the next request signs again', async () => {
    let fail = true;
    const f = fixture(async (m) => {
      if (fail) throw new Error('pool busy');
      return nacl.sign.detached(m, pair.secretKey);
    });
    await expect(f.checkpoint()).rejects.toThrow('pool busy');
    fail = false;
    expect((await f.checkpoint()).status).toBe(200);
  });
});

describe('the log origin', () => {
  it('is the public URL without scheme and trailing slashes, else the service name and key', () => {
    expect(defaultLogOrigin('https://intel.example.com/', 'svc', 'K')).toBe('intel.example.com');
    expect(defaultLogOrigin('https://intel.example.com/api//', 'svc', 'K')).toBe('intel.example.com/api');
    expect(defaultLogOrigin(null, 'solana-x402-intel', 'K58')).toBe('solana-x402-intel/K58');
    expect(defaultLogOrigin(null, 'my service+', 'K')).toBe('my-service-/K');
  });

  it('refuses an origin that cannot be a note key name', () => {
    const ledger = { head: () => ({}) as LedgerHead, tile: () => null };
    expect(() => createTlogRoutes({ ledger, identity, sign: async () => new Uint8Array(64), origin: 'a b', publicUrl: null, serviceName: 's' })).toThrow(
      /log origin/,
    );
  });
});
