/**
 * The forensics handlers called directly against one real embedded localnet: each world wallet
 * gets its band, counts and age from the chain; tx-inspect agrees with the block producer's
 * ground truth (success, tips, compute budget, swap token legs); simulate never lands anything
 * and refuses undecodable transactions with 400; pretrade reports failed parts as error fields,
 * answers 404 for an unknown mint and 502 when every part fails; RPC down gives 502.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRpcClient, createRpcTransport, type RpcTransport } from '../../src/chain/solana/rpc-client.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { responseErrors } from '../helpers/check-response.ts';
import { FAULT_MESSAGE, ServiceError } from '../../src/errors.ts';
import type { FeeBands, HandlerDeps, PaidHandler } from '../../src/intel/handler-group.ts';
import { createForensicsGroup, type ForensicsPeers } from '../../src/intel/forensics/forensics-group.ts';
import { createTokenGroup } from '../../src/intel/token/token-group.ts';
import { createWorkerPool, type WorkerPool } from '../../src/pool/worker-pool.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';
import { buildSignedWire, type Localnet, type ProducedTransaction, signerFromSeed, transferSolIx } from '@solana-x402-intel/localnet';
import { rpcCall } from '../helpers/svm-payer.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

let localnet: Localnet;
let handlers: Record<string, PaidHandler>;
let pool: WorkerPool<PoolTasks>;
/** Every answer the tests saw, checked at the end for verdict words. */
const answers: unknown[] = [];
const VERDICT_WORDS = /\b(safe|safer|unsafe|scam|rug|rugpull|honeypot|buy|sell|avoid|recommend(ed)?|trustworthy|legit)\b/i;
const signal = new AbortController().signal;
const FEE_BANDS: FeeBands = { unit: 'microLamportsPerComputeUnit', suggestedBands: { economy: 1, normal: 2, fast: 3, aggressive: 4 }, source: 'test', slot: 1 };
const unavailable = () => Promise.reject(new ServiceError('upstream_unavailable', 'peer not running'));

function depsFor(url: string, transport: RpcTransport = createRpcTransport({ url, timeoutMs: 5_000 })): HandlerDeps {
  return { rpc: createRpcClient(transport), rpcTransport: transport, pool } as unknown as HandlerDeps;
}

function groupWith(peers: Partial<ForensicsPeers>, url = localnet.urls.rpc): Record<string, PaidHandler> {
  return createForensicsGroup(depsFor(url), { feeBands: unavailable, tokenIntel: unavailable, ...peers }).handlers as Record<string, PaidHandler>;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return e instanceof ServiceError ? `${e.code}:${e.status}` : `other:${String(e)}`;
  }
}

function checkSchema(path: string, body: unknown): void {
  answers.push(body);
  expect(responseErrors(path, body)).toEqual([]);
}

beforeAll(async () => {
  ({ localnet } = await startTestLocalnet('forensics-1', FULL_TRAFFIC));
  pool = createWorkerPool({ size: 1 });
  handlers = groupWith({});
}, 120_000);
afterAll(async () => {
  await pool?.close();
  await localnet?.close();
});

describe('wallet-scan', () => {
  it('gives every world wallet its band, counts, balance and exact age from the chain', async () => {
    for (const band of ['fresh', 'active', 'heavy', 'empty'] as const) {
      for (const w of localnet.world.wallets[band]) {
        const body = (await handlers['/v1/wallet-scan']!({ address: w.address }, signal)) as Record<string, any>;
        checkSchema('/v1/wallet-scan', body);
        expect(body.profile.band, w.label).toBe(band);
        expect(body.activity.recentSignatures, w.label).toBe(w.signatures.length);
        expect(body.tokens.splTokenAccounts, w.label).toBe(w.tokenAccounts.length);
        expect(body.lamports).toBe(String(localnet.chain.getAccount(w.address)?.lamports ?? 0n));
        expect(body.profile.summary).toMatch(/fresh < 10, active 10-49, heavy >= 50/);
        expect(body.disclaimer).toBeTypeOf('string');
        if (w.signatures.length === 0) {
          expect(body.age).toBe('unknown');
        } else {
          const first = await rpcCall<{ blockTime: number }>(localnet.urls.rpc, 'getTransaction', [
            w.signatures[0],
            { encoding: 'json', maxSupportedTransactionVersion: 0 },
          ]);
          expect(body.age).toMatchObject({ firstSeenUnix: first.blockTime, basis: 'exact' });
        }
      }
    }
  }, 60_000);

  it('counts Token-2022 accounts apart from SPL Token accounts', async () => {
    const mint = localnet.world.mints.get('cleanToken2022')!;
    const owner = mint.holders[0]!.owner;
    const body = (await handlers['/v1/wallet-scan']!({ address: owner }, signal)) as Record<string, any>;
    checkSchema('/v1/wallet-scan', body);
    expect(body.tokens.token2022Accounts).toBeGreaterThanOrEqual(1);
    expect(body.tokens.listed).toEqual(expect.arrayContaining([expect.objectContaining({ mint: mint.address, programId: mint.programId })]));
  });

  it('concurrent identical scans share one upstream read', async () => {
    const counts = new Map<string, number>();
    const base = createRpcTransport({ url: localnet.urls.rpc });
    const counting: RpcTransport = {
      ...base,
      call: (what, sig, send) => {
        counts.set(what, (counts.get(what) ?? 0) + 1);
        return base.call(what, sig, send);
      },
    };
    const h = createForensicsGroup(depsFor(localnet.urls.rpc, counting), { feeBands: unavailable, tokenIntel: unavailable }).handlers;
    const address = localnet.world.wallets.active[0]!.address;
    const bodies = await Promise.all(Array.from({ length: 8 }, () => h['/v1/wallet-scan']!({ address }, new AbortController().signal)));
    expect(new Set(bodies).size).toBe(1);
    expect(counts.get('getSignaturesForAddress')).toBe(1);
    expect(counts.get('getTokenAccountsByOwner')).toBe(2);
  });

  it('an address with no account is empty with unknown age', async () => {
    const body = (await handlers['/v1/wallet-scan']!({ address: signerFromSeed(new Uint8Array(32).fill(3)).address }, signal)) as Record<string, any>;
    checkSchema('/v1/wallet-scan', body);
    expect(body).toMatchObject({ profile: { band: 'empty' }, solBalance: 0, age: 'unknown', account: { exists: false, owner: 'unknown' } });
  });
});

/** Produced transactions whose slot is confirmed, so getTransaction answers them. */
async function confirmedProduced(min: number): Promise<ProducedTransaction[]> {
  const confirmedNow = (): ProducedTransaction[] | false => {
    const confirmed = localnet.chain.slot('confirmed');
    const done = localnet.producer
      .history()
      .filter((s) => s.slot <= confirmed)
      .flatMap((s) => s.transactions)
      .filter((t) => t.landed && t.signature !== null);
    return done.length >= min && done.some((t) => t.tipLamports > 0n) && done.some((t) => t.kind === 'swap') && done;
  };
  return vi.waitUntil(confirmedNow, { timeout: 40_000, interval: 100 }).catch(() => {
    throw new Error('the producer did not confirm enough traffic');
  });
}

describe('tx-inspect', () => {
  it('agrees with the block producer ground truth', async () => {
    const produced = await confirmedProduced(20);
    const seen = new Map<string, number>();
    for (const t of produced) {
      seen.set(t.kind, (seen.get(t.kind) ?? 0) + 1);
      if (t.tipLamports > 0n) seen.set('tipped', (seen.get('tipped') ?? 0) + 1);
      const body = (await handlers['/v1/tx-inspect']!({ sig: t.signature }, signal)) as Record<string, any>;
      checkSchema('/v1/tx-inspect', body);
      expect(body.success, t.kind).toBe(!t.failed);
      expect(body.feeSol).toBeGreaterThan(0);
      const names = body.programsInvoked.map((p: { name: string }) => p.name);
      if (t.computeUnitPrice !== null) expect(names).toContain('Compute Budget');
      expect(BigInt(body.jitoTip.lamports)).toBe(t.failed ? 0n : t.tipLamports);
      if (t.tipAccount && !t.failed) expect(body.jitoTip.accounts).toEqual([t.tipAccount]);
      if (t.kind === 'swap') {
        expect(body.tokenBalanceChanges).toHaveLength(4);
        const byMint = new Map<string, bigint>();
        for (const c of body.tokenBalanceChanges) byMint.set(c.mint, (byMint.get(c.mint) ?? 0n) + BigInt(c.change));
        expect([...byMint.values()]).toEqual([0n, 0n]);
      }
      if (t.failed) expect(body.tokenBalanceChanges).toEqual([]);
      const payer = body.solBalanceChanges.find((c: { feePayer: boolean }) => c.feePayer);
      expect(BigInt(payer.changeLamports)).toBeLessThanOrEqual(-BigInt(body.feeLamports));
    }
    expect(seen.get('swap')).toBeGreaterThan(0);
    expect(seen.get('tipped')).toBeGreaterThan(0);
  }, 90_000);

  it('a wallet SOL transfer shows the peer credited with what the sender lost minus the fee', async () => {
    const w = localnet.world.wallets.fresh[0]!;
    const body = (await handlers['/v1/tx-inspect']!({ sig: w.signatures[1] }, signal)) as Record<string, any>;
    const [sender, receiver] = body.solBalanceChanges;
    expect(sender.account).toBe(w.address);
    expect(BigInt(sender.changeLamports) + BigInt(receiver.changeLamports)).toBe(-BigInt(body.feeLamports));
    expect(body.programsInvoked).toEqual([expect.objectContaining({ name: 'System Program', programId: '11111111111111111111111111111111' })]);
  });

  it('an unknown signature is 404 not_found', async () => {
    const sig = buildSignedWire(signerFromSeed(new Uint8Array(32).fill(4)), [], localnet.chain.latestBlockhash('processed').blockhash).signature;
    expect(await codeOf(handlers['/v1/tx-inspect']!({ sig }, signal))).toBe('not_found:404');
  });
});

describe('simulate', () => {
  const sender = () => localnet.world.wallets.heavy[0]!.signer;
  const dest = signerFromSeed(new Uint8Array(32).fill(5)).address;
  const wireOf = (lamports: bigint) =>
    buildSignedWire(sender(), [transferSolIx(sender().address, dest, lamports)], localnet.chain.latestBlockhash('processed').blockhash);

  it('dry-runs a transfer and never lands it', async () => {
    const before = localnet.chain.getAccount(sender().address)?.lamports;
    const signed = wireOf(1_000_000n);
    const body = (await handlers['/v1/simulate']!({ tx: Buffer.from(signed.wire).toString('base64') }, signal)) as Record<string, any>;
    checkSchema('/v1/simulate', body);
    expect(body).toMatchObject({ willSucceed: true, err: null, accountsTouched: 3 });
    expect(body.unitsConsumed).toBeGreaterThan(0);
    expect(body.logs.join('\n')).toContain('11111111111111111111111111111111');
    // Had the simulation sent it, the transaction would have landed in one of the next slots.
    const slotAtSimulation = localnet.chain.slot('processed');
    await vi.waitUntil(() => localnet.chain.slot('confirmed') > slotAtSimulation + 2n, { timeout: 20_000, interval: 50 });
    const status = await rpcCall<{ value: unknown[] }>(localnet.urls.rpc, 'getSignatureStatuses', [[signed.signature], { searchTransactionHistory: true }]);
    expect(status.value[0]).toBeNull();
    expect(localnet.chain.getAccount(dest)).toBeNull();
    expect(localnet.chain.getAccount(sender().address)?.lamports).toBe(before);
  });

  it('judges an unsigned transaction and reports a failing one', async () => {
    const signed = wireOf(10n ** 15n);
    const unsigned = Uint8Array.from(signed.wire);
    unsigned.fill(0, 1, 65);
    const body = (await handlers['/v1/simulate']!({ tx: Buffer.from(unsigned).toString('base64') }, signal)) as Record<string, any>;
    checkSchema('/v1/simulate', body);
    expect(body.willSucceed).toBe(false);
    expect(body.err).not.toBeNull();
    expect(body.signaturesPresent).toBe(0);
  });

  it('undecodable transactions are 400 invalid_transaction, also when only the node refuses them', async () => {
    const wire = wireOf(1n).wire;
    expect(await codeOf(handlers['/v1/simulate']!({ tx: Buffer.from(wire.subarray(0, 40)).toString('base64') }, signal))).toBe('invalid_transaction:400');
    expect(await codeOf(handlers['/v1/simulate']!({ tx: Buffer.from(new Uint8Array(300).fill(0x41)).toString('base64') }, signal))).toBe(
      'invalid_transaction:400',
    );
    // Our decoder accepts it; the program index points past the account list, so only the node refuses it.
    const badIndex = Uint8Array.from(wire);
    badIndex[badIndex.length - 1 - 12 - 1 - 2 - 1] = 200;
    const code = await codeOf(handlers['/v1/simulate']!({ tx: Buffer.from(badIndex).toString('base64') }, signal));
    expect(code).toBe('invalid_transaction:400');
  });
});

describe('pretrade', () => {
  const risk = (key: string) => localnet.world.mints.get(key)!;

  it('failed peers are explicit error fields; the checklist follows the mint', async () => {
    const mint = risk('mintable');
    const body = (await handlers['/v1/pretrade']!({ mint: mint.address }, signal)) as Record<string, any>;
    checkSchema('/v1/pretrade', body);
    expect(body.digest).toMatchObject({ error: 'upstream_unavailable' });
    // The peer's own text ('peer not running') goes to the log; the answer carries the code's fixed sentence.
    expect(body.tokenIntel).toMatchObject({ error: 'upstream_unavailable', message: FAULT_MESSAGE.upstream_unavailable });
    expect(body.priorityFee).toMatchObject({ error: 'upstream_unavailable' });
    const top = [...mint.holders].sort((a, b) => (b.amount > a.amount ? 1 : -1))[0]!;
    expect(body.largestHolder).toMatchObject({ account: top.address, owner: top.owner });
    expect(['fresh', 'active', 'heavy', 'empty']).toContain(body.largestHolder.band);
    const obs = Object.fromEntries(body.checklist.map((c: { check: string; observed: unknown }) => [c.check.split(' (')[0], c.observed]));
    expect(obs['mint authority revoked']).toBe(mint.mintAuthority === null);
    expect(obs['freeze authority revoked']).toBe(mint.freezeAuthority === null);
    expect(obs['top-10 token accounts hold under 50% of supply']).toBe('unknown');
    expect(body.disclaimer).toBeTypeOf('string');
  });

  it('peers that answer are bundled; risky extensions show in the checklist', async () => {
    const h = groupWith({ feeBands: async () => FEE_BANDS, tokenIntel: async () => ({ digest: { riskBand: 'high', top10ConcentrationPct: 100 } }) });
    const body = (await h['/v1/pretrade']!({ mint: risk('multiRisk').address }, signal)) as Record<string, any>;
    checkSchema('/v1/pretrade', body);
    expect(body.priorityFee.suggestedBands.normal).toBe(2);
    expect(body.digest.riskBand).toBe('high');
    const ext = body.checklist.find((c: { check: string }) => c.check.startsWith('no risky Token-2022'));
    expect(ext.observed).toBe(false);
    expect(ext.value).toEqual(expect.arrayContaining(['permanentDelegate', 'mintCloseAuthority', 'transferFeeConfig']));
    expect(body.checklist.find((c: { check: string }) => c.check.startsWith('top-10')).observed).toBe(false);
    const clean = (await h['/v1/pretrade']!({ mint: usdc().address }, signal)) as Record<string, any>;
    expect(clean.checklist.find((c: { check: string }) => c.check.startsWith('no risky Token-2022')).observed).toBe(true);
  });

  it('an unknown mint or a non-mint account is 404, even when token-intel is down', async () => {
    expect(await codeOf(handlers['/v1/pretrade']!({ mint: signerFromSeed(new Uint8Array(32).fill(6)).address }, signal))).toBe('not_found:404');
    expect(await codeOf(handlers['/v1/pretrade']!({ mint: localnet.world.wallets.heavy[0]!.address }, signal))).toBe('not_found:404');
    const h = groupWith({ tokenIntel: () => Promise.reject(new ServiceError('not_found', 'unknown mint')) });
    expect(await codeOf(h['/v1/pretrade']!({ mint: usdc().address }, signal))).toBe('not_found:404');
  });

  it('with the real token group: digest, top-10 and largest holder come from token-intel', async () => {
    const tokenDeps = depsFor(localnet.urls.rpc);
    const token = createTokenGroup(tokenDeps);
    const h = groupWith({ tokenIntel: (m, s) => token.tokenIntel(m, s), feeBands: async () => FEE_BANDS });
    for (const key of ['concentrated', 'flat', 'multiRisk', 'mintable']) {
      const mint = risk(key);
      const body = (await h['/v1/pretrade']!({ mint: mint.address }, signal)) as Record<string, any>;
      checkSchema('/v1/pretrade', body);
      expect(body.digest.riskBand, key).toBeTypeOf('string');
      expect(body.digest.canStillMint).toBe(mint.mintAuthority !== null);
      const top10 = body.checklist.find((c: { check: string }) => c.check.startsWith('top-10'));
      expect(top10.value).toBe(body.digest.top10ConcentrationPct);
      expect(top10.observed).toBe(body.digest.top10ConcentrationPct < 50);
      expect(body.largestHolder.source).toMatch(/^token-intel/);
      const first = body.tokenIntel.holders.classification.find((c: { label: string }) => c.label === 'unresolved');
      expect(body.largestHolder.owner).toBe(first.owner);
    }
  }, 60_000);

  it('every part failing is 502 (the largest-holder read fails for a mint excluded from the index)', async () => {
    expect(await codeOf(handlers['/v1/pretrade']!({ mint: localnet.world.largeHolderMint.mint }, signal))).toBe('upstream_unavailable:502');
  });
});

describe('answers', () => {
  it('carry no verdict words', () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const body of answers) expect(JSON.stringify(body)).not.toMatch(VERDICT_WORDS);
  });
});

/** A loopback HTTP proxy to the localnet RPC that can be stopped and started on the same port. */
function rpcProxy(target: string) {
  const to = new URL(target);
  let server: Server | null = null;
  let port = 0;
  return {
    url: () => `http://127.0.0.1:${port}`,
    async start() {
      server = createServer((req, res) => {
        const up = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.on('error', () => res.destroy());
        req.pipe(up);
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', () => resolve()));
      port = (server!.address() as AddressInfo).port;
    },
    async stop() {
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
}

describe('upstream down', () => {
  it('RPC killed mid-test: 502, then answers again once it is back', async () => {
    const proxy = rpcProxy(localnet.urls.rpc);
    await proxy.start();
    try {
      const h = groupWith({}, proxy.url());
      const [a, b] = [localnet.world.wallets.active[0]!, localnet.world.wallets.fresh[1]!];
      expect(((await h['/v1/wallet-scan']!({ address: a.address }, signal)) as Record<string, any>).profile.band).toBe('active');
      await proxy.stop();
      expect(await codeOf(h['/v1/wallet-scan']!({ address: b.address }, signal))).toMatch(/^upstream_(unavailable|timeout):502$/);
      expect(await codeOf(h['/v1/tx-inspect']!({ sig: b.signatures[0] }, signal))).toMatch(/:502$/);
      await proxy.start();
      expect(((await h['/v1/wallet-scan']!({ address: b.address }, signal)) as Record<string, any>).profile.band).toBe('fresh');
      expect(((await h['/v1/tx-inspect']!({ sig: b.signatures[0] }, signal)) as Record<string, any>).success).toBe(true);
    } finally {
      await proxy.stop();
    }
  }, 60_000);

  it('every endpoint answers 502 when the RPC cannot be reached', async () => {
    const h = groupWith({}, 'http://127.0.0.1:9');
    const w = localnet.world.wallets.fresh[0]!;
    expect(await codeOf(h['/v1/wallet-scan']!({ address: w.address }, signal))).toMatch(/^upstream_(unavailable|timeout):502$/);
    expect(await codeOf(h['/v1/tx-inspect']!({ sig: w.signatures[0] }, signal))).toMatch(/:502$/);
    expect(await codeOf(h['/v1/pretrade']!({ mint: usdc().address }, signal))).toMatch(/:502$/);
    const wire = buildSignedWire(w.signer, [transferSolIx(w.address, w.address, 1n)], localnet.chain.latestBlockhash('processed').blockhash).wire;
    expect(await codeOf(h['/v1/simulate']!({ tx: Buffer.from(wire).toString('base64') }, signal))).toMatch(/:502$/);
  });
});

function usdc() {
  return [...localnet.world.mints.values()].find((m) => m.symbol === 'USDC')!;
}
