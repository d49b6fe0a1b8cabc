/**
 * `GET /trust/checkpoint` signs a timestamped checkpoint at most once a second per tree size, and
 * the signature being made is shared by every request that arrives meanwhile: free traffic never
 * queues a second signature while one is in the pool (docs/security.md#one-signature-per-checkpoint-both-routes).
 */
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import type { HttpReply } from '../../../src/errors.ts';
import type { HttpRequestData } from '../../../src/http/server/route.ts';
import { createTrustRoutes } from '../../../src/http/routes/trust-routes.ts';
import type { Ledger } from '../../../src/ledger/ledger.ts';
import type { LedgerHead } from '../../../src/ledger/ledger-reader.ts';
import { sha256Hex } from '../../../src/ledger/merkle-hash.ts';

const pair = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(7));
const request: HttpRequestData = {
  method: 'GET',
  path: '/trust/checkpoint',
  query: '',
  headers: {},
  remoteIp: '127.0.0.1',
  body: null,
  signal: new AbortController().signal,
};

/** The route over a ledger whose head the test moves, signing through `sign`. */
function fixture(sign: (m: Uint8Array) => Promise<Uint8Array>) {
  let head: LedgerHead = { chainHead: sha256Hex('c'), treeSize: 5, merkleRoot: sha256Hex('s'), merkleRootRfc6962: sha256Hex('r'), lastAppendAt: null };
  const ledger = { head: () => head } as unknown as Ledger;
  const routes = createTrustRoutes({
    ledger,
    identity: { publicKey: 'Key58' },
    baseUrl: () => '',
    serviceName: 'svc',
    serviceVersion: '1',
    sign,
    methodology: {},
  });
  const route = routes.find((r) => r.path === '/trust/checkpoint')!;
  return {
    checkpoint: () => route.handler(request) as Promise<HttpReply>,
    grow: (n: number) => {
      head = { ...head, treeSize: n };
    },
  };
}

describe('GET /trust/checkpoint signing', () => {
  it('makes one signature for all the requests that arrive while it is being made', async () => {
    let signs = 0;
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const f = fixture(async (m) => {
      signs += 1;
      await held;
      return nacl.sign.detached(m, pair.secretKey);
    });
    const asked = Array.from({ length: 50 }, () => f.checkpoint());
    release();
    const answers = await Promise.all(asked);
    // Before: only a finished signature was kept, so each of the 50 signed (50 signatures).
    expect(signs).toBe(1);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(JSON.parse(String(answers[0]!.body)).treeSize).toBe(5);
    await f.checkpoint();
    expect(signs).toBe(1);
    f.grow(6);
    expect(JSON.parse(String((await f.checkpoint()).body)).treeSize).toBe(6);
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
