/**
 * The token group against the real localnet world (one localnet, producer stopped so balances hold
 * still): every risk-profile mint gives the flags, scores, bands and decision its construction
 * implies; golden answers for USDC, BONK and TFEE; holder mints give the shares they were built
 * with; USDT (too many accounts) answers snapshot_unavailable; a batch with invalid, missing,
 * non-mint and duplicate entries costs a fixed number of RPC round trips; the RPC going away gives
 * 502 and the group recovers when it is back; and every answer keeps
 * docs/contract.md#response-principles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countsBetween, startDelayProxy } from '../../bench/harness/delay-proxy.ts';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import type { PaidPath } from '../../src/catalog/endpoints.ts';
import { validateQuery } from '../../src/catalog/validate-query.ts';
import { createRpcClient, createRpcTransport } from '../../src/chain/solana/rpc-client.ts';
import { parseTokenAccount } from '../../src/chain/tokens/token-extensions.ts';
import { loadConfig } from '../../src/config.ts';
import { ServiceError } from '../../src/errors.ts';
import type { HandlerDeps, PaidHandlerLookup } from '../../src/intel/handler-group.ts';
import { createTokenGroup, type TokenGroup } from '../../src/intel/token/token-group.ts';
import { CONTRACT_PENALTIES as P, TOKEN_METHODOLOGY_VERSION } from '../../src/intel/token/token-methodology.ts';
import { type Localnet, type RpcServer, startRpcServer } from '@solana-x402-intel/localnet';
import { createWorkerPool, type WorkerPool } from '../../src/pool/worker-pool.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { responseErrors } from '../helpers/check-response.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

let net: Localnet;
let pool: WorkerPool<PoolTasks>;
let group: TokenGroup;
const signal = new AbortController().signal;
/** Every answer produced here, for the principles test. */
const answers: { path: string; body: Record<string, unknown> }[] = [];

function depsFor(rpcUrl: string): HandlerDeps {
  const rpcTransport = createRpcTransport({ url: rpcUrl, timeoutMs: 5_000 });
  return {
    settings: loadConfig({}, []),
    rpc: createRpcClient(rpcTransport),
    rpcTransport,
    pool,
    market: { jupiter: '', geckoterminal: '', magiceden: '', lending: '' },
  };
}

async function call(path: PaidPath, query: Record<string, unknown>, g: TokenGroup = group): Promise<Record<string, unknown>> {
  const body = (await (g.handlers as PaidHandlerLookup)[path]!(query, signal)) as Record<string, unknown>;
  answers.push({ path, body: JSON.parse(JSON.stringify(body)) });
  return body;
}
const addr = (key: string) => net.world.mints.get(key)!.address;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** Oracle independent of getTokenLargestAccounts: every token account of the mint, read from chain state. */
function chainTop10Pct(mint: string): number {
  const amounts = net.chain
    .tokenAccountsByMint(mint)
    .map((a) => {
      const parsed = parseTokenAccount(net.chain.getAccount(a)!.data);
      return parsed.ok ? parsed.state.amount : 0n;
    })
    .sort((a, b) => (b > a ? 1 : b < a ? -1 : 0));
  const supply = amounts.reduce((s, x) => s + x, 0n);
  const top10 = amounts.slice(0, 10).reduce((s, x) => s + x, 0n);
  return Math.round(Number((top10 * 100_000_000n) / supply) / 100) / 10_000;
}

beforeAll(async () => {
  ({ localnet: net } = await startTestLocalnet('token-intel', FULL_TRAFFIC));
  net.producer.stop();
  pool = createWorkerPool({ size: 1 });
  group = createTokenGroup(depsFor(net.urls.rpc));
}, 120_000);
afterAll(async () => {
  await pool?.close();
  await net?.close();
});

/** Construction of each risk mint: the flags it must raise and its contract score. */
const RISK: Record<string, { flags: string[]; contract: number }> = {
  permanentDelegate: { flags: ['mint_authority', 'permanent_delegate'], contract: 100 - P.mintAuthority - P.permanentDelegate },
  transferHookUpgradeable: { flags: ['mint_authority', 'transfer_hook'], contract: 100 - P.mintAuthority - P.transferHookUpgradeableOrUnknown },
  transferHookImmutable: { flags: ['mint_authority', 'transfer_hook'], contract: 100 - P.mintAuthority - P.transferHookImmutable },
  transferFeeHigh: { flags: ['mint_authority', 'transfer_fee'], contract: 100 - P.mintAuthority - P.transferFeeAtLeast10pct },
  defaultFrozen: {
    flags: ['mint_authority', 'freeze_authority', 'default_account_state_frozen'],
    contract: 100 - P.mintAuthority - P.freezeAuthority - P.defaultAccountStateFrozen,
  },
  nonTransferable: { flags: ['mint_authority', 'non_transferable'], contract: 100 - P.mintAuthority - P.nonTransferable },
  mintCloseAuthority: { flags: ['mint_authority', 'mint_close_authority'], contract: 100 - P.mintAuthority - P.mintCloseAuthority },
  pausable: { flags: ['mint_authority', 'pausable'], contract: 100 - P.mintAuthority - P.pausablePaused },
  confidentialTransfer: { flags: ['mint_authority', 'confidential_transfer'], contract: 100 - P.mintAuthority - P.confidentialTransfer },
  interestBearing: { flags: ['mint_authority', 'interest_bearing'], contract: 100 - P.mintAuthority - P.interestBearing },
  scaledUiAmount: { flags: ['mint_authority', 'scaled_ui_amount'], contract: 100 - P.mintAuthority - P.scaledUiAmountChangeScheduled },
  multiRisk: { flags: ['mint_authority', 'permanent_delegate', 'transfer_fee', 'pausable', 'mint_close_authority'], contract: 0 },
  cleanToken2022: { flags: ['mint_authority'], contract: 100 - P.mintAuthority },
};

describe('risk-profile mints', () => {
  it.each(Object.keys(RISK))('%s gives the flags, scores, bands and decision of its construction', async (key) => {
    const world = net.world.mints.get(key)!;
    const expected = RISK[key]!;
    const risk: Any = await call('/v1/token-risk', { mint: world.address });
    expect(risk.program).toBe('token-2022');
    expect(risk.extensions.map((e: Any) => e.extension)).toEqual(world.extensions);
    expect(risk.flags.filter((f: Any) => f.severity !== 'info').map((f: Any) => f.code)).toEqual(expected.flags);
    for (const f of risk.flags) expect(f.note.length).toBeGreaterThan(20);
    // 8 holders, 60% + 7 x ~5.7%: the top 10 hold everything, so concentration scores 0 and the band is high.
    expect(chainTop10Pct(world.address)).toBe(100);
    expect(risk.concentration).toMatchObject({ top10Pct: 100, top10CirculatingPct: 100 });
    expect(risk.riskBand).toBe('high');
    // Written straight into chain state: no transaction references the mint, so its age is unknown.
    expect(risk.context.age).toMatchObject({ ageDays: 'unknown', signaturesRead: 0 });
    const smri: Any = await call('/v1/smri', { mint: world.address });
    const index = Math.round(0.6 * expected.contract);
    expect(smri).toMatchObject({ smri: index, confidence: 1, components: { contract: { score: expected.contract }, concentration: { score: 0 } } });
    expect(smri.smriBand).toBe(index >= 70 ? 'low-risk' : index >= 40 ? 'medium-risk' : 'high-risk');
    const decision: Any = await call('/v1/decision', { mint: world.address });
    expect(decision.decision).toBe(index < 40 ? 'REJECT' : 'REVIEW');
    expect(decision.policy).toBeUndefined();
  });

  it('reads the hook programs upgradeability from ProgramData', async () => {
    const up: Any = await call('/v1/token-risk', { mint: addr('transferHookUpgradeable') });
    expect(up.transferHookProgram).toMatchObject({
      programId: net.world.hookPrograms.upgradeable.programId,
      upgradeable: true,
      upgradeAuthority: net.world.hookPrograms.upgradeable.upgradeAuthority,
    });
    const fixed: Any = await call('/v1/token-risk', { mint: addr('transferHookImmutable') });
    expect(fixed.transferHookProgram).toMatchObject({ programId: net.world.hookPrograms.immutable.programId, upgradeable: false, upgradeAuthority: null });
  });

  it('MULTI: the close authority counts worse beside the permanent delegate; PAUS is paused', async () => {
    const multi: Any = await call('/v1/token-risk', { mint: addr('multiRisk') });
    expect(multi.flags.find((f: Any) => f.code === 'mint_close_authority')).toMatchObject({
      severity: 'high',
      penalty: P.mintCloseAuthorityWithPermanentDelegate,
    });
    expect(multi.flags.find((f: Any) => f.code === 'pausable')).toMatchObject({ severity: 'medium', facts: { paused: false } });
    const paused: Any = await call('/v1/token-risk', { mint: addr('pausable') });
    expect(paused.flags.find((f: Any) => f.code === 'pausable')).toMatchObject({
      severity: 'high',
      facts: { paused: true, authority: net.world.riskAuthority.address },
    });
  });
});

describe('golden answers', () => {
  it('USDC: real authorities, SPL Token, contract 50, concentration from the chain', async () => {
    const usdc = net.world.mints.get('USDC')!;
    const risk: Any = await call('/v1/token-risk', { mint: usdc.address });
    expect(risk).toMatchObject({
      program: 'spl-token',
      methodologyVersion: TOKEN_METHODOLOGY_VERSION,
      mintAuthority: { present: true, address: 'BJE5MMbqXjVwjAF7oxwPYXnTXDyspzZyt4vwenNw5ruG' },
      freezeAuthority: { present: true, address: '7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar' },
      supply: { decimals: 6, amount: usdc.supply.toString() },
      extensions: [],
    });
    expect(risk.flags.map((f: Any) => f.code)).toEqual(['mint_authority', 'freeze_authority']);
    const top10 = chainTop10Pct(usdc.address);
    expect(risk.concentration.top10Pct).toBeCloseTo(top10, 3);
    const smri: Any = await call('/v1/smri', { mint: usdc.address });
    const conc = Math.round(100 - top10);
    expect(smri.components).toMatchObject({ contract: { score: 50, weight: 0.6 }, concentration: { score: conc, weight: 0.4 } });
    expect(smri.smri).toBe(Math.round(0.6 * 50 + 0.4 * conc));
    const intel: Any = await call('/v1/token-intel', { mint: usdc.address });
    expect(intel.digest).toMatchObject({ canStillMint: true, canFreezeAccounts: true, isToken2022: false });
    // Age context: the wallets' USDC history references the mint; fewer than a page, so the age is exact.
    const history = net.chain.signaturesForAddress(usdc.address, { limit: 1000, commitment: 'confirmed' });
    expect(history.length).toBeGreaterThan(0);
    expect(risk.context.age).toMatchObject({ signaturesRead: history.length, firstActivityUnix: history.at(-1)!.blockTime });
    expect(typeof risk.context.age.ageDays).toBe('number');
  });

  it('BONK: no authorities, no flags, contract 100', async () => {
    const bonk = net.world.mints.get('BONK')!;
    const risk: Any = await call('/v1/token-risk', { mint: bonk.address });
    expect(risk).toMatchObject({
      program: 'spl-token',
      mintAuthority: { present: false, address: null },
      freezeAuthority: { present: false, address: null },
      flags: [],
      supply: { decimals: 5 },
    });
    const top10 = chainTop10Pct(bonk.address);
    const smri: Any = await call('/v1/smri', { mint: bonk.address });
    expect(smri).toMatchObject({ confidence: 1, components: { contract: { score: 100 }, concentration: { score: Math.round(100 - top10) } } });
    expect(smri.smri).toBe(Math.round(60 + 0.4 * Math.round(100 - top10)));
  });

  it('TFEE (Token-2022): 10% now, 50% scheduled from epoch 1000000, contract 40, smri 24, REJECT', async () => {
    const tfee = net.world.mints.get('transferFeeHigh')!;
    const intel: Any = await call('/v1/token-intel', { mint: tfee.address });
    expect(intel.flags.find((f: Any) => f.code === 'transfer_fee')).toMatchObject({
      severity: 'high',
      penalty: 30,
      facts: { currentFeeBps: 1000, scheduledFeeBps: 5000, scheduledFromEpoch: 1_000_000, feeAuthority: net.world.riskAuthority.address },
    });
    expect(intel.digest).toMatchObject({
      riskBand: 'high',
      canStillMint: true,
      canFreezeAccounts: false,
      top10ConcentrationPct: 100,
      isToken2022: true,
      smri: 24,
      smriBand: 'high-risk',
    });
    expect(intel.supply).toMatchObject({ decimals: 6, uiAmount: 100_000_000 });
    expect(intel.holders.classification).toHaveLength(8);
    expect(intel.holders.classification[0]).toMatchObject({ rank: 1, sharePct: 60, label: 'unresolved' });
    expect(intel.context).toMatchObject({ holderAccounts: 8 });
    const decision: Any = await call('/v1/decision', { mint: tfee.address, policy: 'degen' });
    expect(decision).toMatchObject({
      decision: 'REJECT',
      smri: 24,
      policyTemplate: 'degen',
      policy: { verdict: 'DENY', decidedBy: { rule: 'maxConcentrationPct', threshold: 90, observed: 100 } },
    });
  });
});

describe('holder mints', () => {
  it('FLAT, CONC, ONE, BURN give the shares, buckets and bands they were built with', async () => {
    const flat: Any = await call('/v1/token-holders', { mint: addr('flat') });
    expect(flat.concentration).toMatchObject({ top1Pct: 1, top5Pct: 5, top10Pct: 10, top20Pct: 20, band: 'dispersed' });
    expect(flat.buckets).toEqual({ gt5pct: 0, from1to5pct: 20, lt1pct: 0, unknown: 0 });
    expect(flat.largestAccounts).toMatchObject({ returned: 20, limit: 20 });
    const conc: Any = await call('/v1/token-holders', { mint: addr('concentrated') });
    expect(conc.concentration).toMatchObject({ top1Pct: 60, band: 'concentrated' });
    expect(conc.concentration.top10Pct).toBeCloseTo(chainTop10Pct(addr('concentrated')), 3);
    expect(conc.buckets).toMatchObject({ gt5pct: 1, from1to5pct: 19 });
    const one: Any = await call('/v1/token-holders', { mint: addr('singleHolder') });
    expect(one.concentration).toMatchObject({ top1Pct: 100, top10Pct: 100, band: 'highly-concentrated' });
    expect(one.largestAccounts.returned).toBe(1);
    const burn: Any = await call('/v1/token-holders', { mint: addr('burnHolder') });
    expect(burn.largestAccounts.accounts[0]).toMatchObject({ owner: net.world.burnAddress, label: 'burn', sharePct: 40 });
    expect(burn.largestAccounts.accounts.slice(1).every((a: Any) => a.label === 'unresolved')).toBe(true);
    const holders = [...net.world.mints.get('burnHolder')!.holders].sort((a, b) => (b.amount > a.amount ? 1 : -1)).slice(1, 11);
    const circ = Number((holders.reduce((s, h) => s + h.amount, 0n) * 1_000_000n) / ((net.world.mints.get('burnHolder')!.supply * 6n) / 10n)) / 10_000;
    expect(burn.concentration.top10CirculatingPct).toBeCloseTo(circ, 2);
  });

  it('RUGME keeps its authorities; the degen preset denies on the freeze authority', async () => {
    const d: Any = await call('/v1/decision', { mint: addr('mintable'), policy: 'degen' });
    expect(d.policy).toMatchObject({ verdict: 'DENY', decidedBy: { rule: 'denyFreezeAuthority', observed: true } });
    const flat: Any = await call('/v1/decision', { mint: addr('flat'), policy: 'conservative' });
    expect(flat).toMatchObject({ decision: 'EXECUTE', policy: { verdict: 'ALLOW', decidedBy: null }, policyTemplate: 'conservative' });
    const override: Any = await call('/v1/decision', { mint: addr('flat'), policy: 'conservative', maxConcentrationPct: 5 });
    expect(override.policy.decidedBy).toMatchObject({ rule: 'maxConcentrationPct', threshold: 5, observed: 10 });
  });

  it('USDT is too large to snapshot: token-holders answers 502 snapshot_unavailable; other answers carry the explicit error', async () => {
    const usdt = addr('USDT');
    const err = await group.handlers['/v1/token-holders']!({ mint: usdt }, signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'snapshot_unavailable', status: 502, details: { rpcCode: -32010 } });
    const risk: Any = await call('/v1/token-risk', { mint: usdt });
    expect(risk.concentration).toMatchObject({ top10Pct: 'unknown', error: 'snapshot_unavailable' });
    const smri: Any = await call('/v1/smri', { mint: usdt });
    expect(smri).toMatchObject({ smri: 50, confidence: 0.5, components: { concentration: { score: 'unknown' } } });
    const d: Any = await call('/v1/decision', { mint: usdt, policy: 'anti-rug' });
    expect(d).toMatchObject({ decision: 'REVIEW', policy: { verdict: 'DENY', decidedBy: { rule: 'maxConcentrationPct', observed: 'unknown' } } });
    const intel: Any = await call('/v1/token-intel', { mint: usdt });
    expect(intel.holders).toMatchObject({ classification: [], error: 'snapshot_unavailable' });
    expect(intel.digest.top10ConcentrationPct).toBe('unknown');
  });

  it('a missing account and a non-mint account answer 404 not_found with the reason', async () => {
    await expect(group.handlers['/v1/token-risk']!({ mint: '11111111111111111111111111111112' }, signal)).rejects.toMatchObject({
      code: 'not_found',
      details: { reason: 'account_not_found' },
    });
    await expect(group.handlers['/v1/smri']!({ mint: net.world.hookPrograms.upgradeable.programId }, signal)).rejects.toMatchObject({
      code: 'not_found',
      details: { reason: 'not_a_mint' },
    });
  });

  it('tokenIntel (for pretrade) returns the token-intel answer', async () => {
    const intel: Any = await group.tokenIntel(addr('burnHolder'), signal);
    expect(intel.holders.classification[0]).toMatchObject({ owner: net.world.burnAddress, label: 'burn' });
    expect(intel.digest).toMatchObject({ canStillMint: false, isToken2022: false });
  });
});

describe('batch', () => {
  it('removes duplicates, gives per-element errors, and costs a fixed number of round trips', async () => {
    const entry = CATALOG.find((e) => e.path === '/v1/batch/token-risk')!;
    const mints = [
      addr('BONK'),
      addr('USDC'),
      addr('BONK'),
      'not-a-mint',
      '11111111111111111111111111111112',
      net.world.hookPrograms.immutable.programId,
      addr('flat'),
      addr('pausable'),
    ];
    const q = validateQuery(entry, `mints=${mints.join(',')}`);
    expect(q.ok).toBe(true);
    // Round trips counted where they arrive: a proxy in front of the RPC (one HTTP request per round trip, a batch included).
    const proxy = await startDelayProxy(net.urls.rpc, 0);
    try {
      const fresh = createTokenGroup(depsFor(proxy.url));
      const before = proxy.counts();
      const body: Any = await (async () => {
        const b = (await fresh.handlers['/v1/batch/token-risk']!((q as { value: Record<string, unknown> }).value, signal)) as Any;
        answers.push({ path: '/v1/batch/token-risk', body: b });
        return b;
      })();
      const roundTrips = countsBetween(before, proxy.counts()).requests;
      // requested is what the caller sent (BONK twice), count what was evaluated (was 7 and 7).
      expect(body.requested).toBe(8);
      expect(body.count).toBe(7);
      expect(body.results.map((r: Any) => r.error ?? r.risk.riskBand)).toEqual(['high', 'high', 'invalid_mint', 'not_found', 'not_a_mint', 'low', 'high']);
      expect(body.results[0].mint).toBe(addr('BONK'));
      expect(body.results[0].risk.disclaimer).toBeTruthy();
      expect(roundTrips).toBe(2); // mints+largest, then owners (no hook among these)

      const single = createTokenGroup(depsFor(proxy.url));
      const beforeSingles = proxy.counts();
      for (const m of [addr('BONK'), addr('USDC'), addr('flat'), addr('pausable')]) await single.handlers['/v1/token-risk']!({ mint: m }, signal);
      const singles = countsBetween(beforeSingles, proxy.counts()).requests;
      expect(singles).toBe(8);
    } finally {
      await proxy.close();
    }
  });
});

describe('upstream RPC down', () => {
  let own: RpcServer;
  it('answers 502 while the RPC is gone and recovers when it is back', async () => {
    own = await startRpcServer({ chain: net.chain, port: 0, excludedFromSecondaryIndexes: [addr('USDT')] });
    const port = own.port;
    const g = createTokenGroup(depsFor(own.url));
    expect(((await g.handlers['/v1/token-risk']!({ mint: addr('BONK') }, signal)) as Any).riskBand).toBeTruthy();
    await own.close();
    const err = await g.handlers['/v1/token-risk']!({ mint: addr('USDC') }, signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(502);
    expect((err as ServiceError).code).toMatch(/^upstream_/);
    await expect(g.handlers['/v1/batch/token-risk']!({ mints: [addr('JUP')] }, signal)).rejects.toMatchObject({ status: 502 });
    own = await startRpcServer({ chain: net.chain, port });
    const back = (await g.handlers['/v1/token-risk']!({ mint: addr('USDC') }, signal)) as Any;
    expect(back.mintAuthority.present).toBe(true);
    await own.close();
  }, 60_000);
});

describe('principles over every answer', () => {
  const VERDICT = /\b(safe|safer|unsafe|scam|scammy|buy|sell|avoid|rug ?pull|rugpull|honeypot|legit|trustworthy|guaranteed)\b/i;
  it('no verdict words, disclaimer present, methodology version, schema-valid, unknown instead of guesses', () => {
    expect(answers.length).toBeGreaterThan(40);
    for (const { path, body } of answers) {
      const text = JSON.stringify(body).replaceAll('"anti-rug"', '""');
      expect(text, path).not.toMatch(VERDICT);
      expect(responseErrors(path, body), `${path} schema`).toEqual([]);
      const items = path === '/v1/batch/token-risk' ? (body.results as Any[]).filter((r) => r.risk).map((r) => r.risk) : [body];
      for (const item of items) {
        expect(typeof item.disclaimer, path).toBe('string');
        expect(item.methodologyVersion, path).toBe(TOKEN_METHODOLOGY_VERSION);
      }
      expect(text).not.toContain('NaN');
      expect(text).not.toContain('undefined');
    }
  });
});
