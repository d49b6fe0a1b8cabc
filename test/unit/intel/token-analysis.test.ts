/**
 * Pure logic of the token analysis: mint parsing, every extension flag with its severity, penalty
 * and note, hook upgradeability from loader state, holder bucketing at the thresholds, the index
 * and its bands, the decision mapping at its edges, and the fail-closed firewall with presets.
 */
// Mint bytes come from the localnet's encoder, independent of the decoder under test.
import { encodeMintAccount, encodeTokenAccount, type ExtensionInput } from '@solana-x402-intel/localnet';
import { describe, expect, it } from 'vitest';
import { addressToBytes } from '../../../src/chain/tokens/byte-cursor.ts';
import type { MintState } from '../../../src/chain/tokens/token-extensions.ts';
import { evaluatePolicy, effectivePolicy, hasPolicyInput, type PolicyFacts } from '../../../src/intel/token/decision-policy.ts';
import { contractScore, mintFlags } from '../../../src/intel/token/extension-flags.ts';
import { bucketHolders, holderBand, labelOwner, percentOf } from '../../../src/intel/token/holder-buckets.ts';
import {
  hookProgramStatus,
  parseMint,
  programDataAddressOf,
  SPL_TOKEN_PROGRAM_ID,
  TOKEN_2022_PROGRAM_ID,
  UPGRADEABLE_LOADER_ID,
  type ParsedMint,
} from '../../../src/intel/token/mint-analysis.ts';
import { mintAgeOf } from '../../../src/intel/token/mint-age.ts';
import { CONTRACT_PENALTIES, POLICY_PRESETS, TOKEN_METHODOLOGY } from '../../../src/intel/token/token-methodology.ts';
import { computeIndex, concentrationScore, decisionOf, riskBandOf, smriBandOf } from '../../../src/intel/token/token-scoring.ts';

const AUTH = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const OTHER = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const HOOK = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const BURN = '1nc1nerator11111111111111111111111111111111';
const U64_MAX = 2n ** 64n - 1n;
const BASE: MintState = { mintAuthority: null, supply: 1_000_000n, decimals: 6, isInitialized: true, freezeAuthority: null };

function mint22(extensions: ExtensionInput[], base: Partial<MintState> = {}): ParsedMint {
  const r = parseMint(TOKEN_2022_PROGRAM_ID, encodeMintAccount({ ...BASE, ...base }, extensions));
  if (!r.ok) throw new Error(r.detail);
  return r.mint;
}

const fee = (olderBps: number, newerBps: number, newerEpoch: bigint): ExtensionInput => ({
  extension: 'transferFeeConfig',
  state: {
    transferFeeConfigAuthority: AUTH,
    withdrawWithheldAuthority: AUTH,
    withheldAmount: 0n,
    olderTransferFee: { epoch: 0n, maximumFee: U64_MAX, transferFeeBasisPoints: olderBps },
    newerTransferFee: { epoch: newerEpoch, maximumFee: U64_MAX, transferFeeBasisPoints: newerBps },
  },
});

const codes = (m: ParsedMint, epoch: number | null = 5) => mintFlags(m, { epoch, hook: null }).map((f) => `${f.code}:${f.severity}:${f.penalty}`);

describe('parseMint', () => {
  it('reads SPL Token and Token-2022 mints and refuses everything else as not_a_mint', () => {
    const spl = parseMint(SPL_TOKEN_PROGRAM_ID, encodeMintAccount({ ...BASE, mintAuthority: AUTH }));
    expect(spl).toMatchObject({
      ok: true,
      mint: { program: 'spl-token', decimals: 6, supply: 1_000_000n, mintAuthority: AUTH, freezeAuthority: null, extensions: [] },
    });
    const t22 = mint22([{ extension: 'permanentDelegate', state: { delegate: OTHER } }]);
    expect(t22.program).toBe('token-2022');
    expect(t22.extensions).toEqual([{ extension: 'permanentDelegate', typeId: 12, state: { delegate: OTHER } }]);
    const account = encodeTokenAccount({
      mint: AUTH,
      owner: OTHER,
      amount: 1n,
      delegate: null,
      state: 'initialized',
      isNative: null,
      delegatedAmount: 0n,
      closeAuthority: null,
    });
    expect(parseMint(SPL_TOKEN_PROGRAM_ID, account)).toMatchObject({ ok: false, reason: 'not_a_mint' });
    expect(parseMint('11111111111111111111111111111111', encodeMintAccount(BASE))).toMatchObject({
      ok: false,
      reason: 'not_a_mint',
      owner: '11111111111111111111111111111111',
    });
    expect(parseMint(SPL_TOKEN_PROGRAM_ID, encodeMintAccount({ ...BASE, isInitialized: false }))).toMatchObject({
      ok: false,
      detail: 'the mint is not initialized',
    });
  });
});

describe('mint flags', () => {
  it('flags authorities with their penalties and an exact contract score', () => {
    const m = parseMint(SPL_TOKEN_PROGRAM_ID, encodeMintAccount({ ...BASE, mintAuthority: AUTH, freezeAuthority: OTHER }));
    const flags = mintFlags((m as { mint: ParsedMint }).mint, { epoch: null, hook: null });
    expect(flags.map((f) => f.code)).toEqual(['mint_authority', 'freeze_authority']);
    expect(flags[0]!.note).toContain(AUTH);
    expect(contractScore(flags)).toBe(100 - CONTRACT_PENALTIES.mintAuthority - CONTRACT_PENALTIES.freezeAuthority);
  });

  it('flags each risky extension with its severity and penalty', () => {
    expect(codes(mint22([{ extension: 'permanentDelegate', state: { delegate: OTHER } }]))).toEqual(['permanent_delegate:high:40']);
    expect(codes(mint22([{ extension: 'defaultAccountState', state: { accountState: 'frozen' } }], { freezeAuthority: AUTH }))).toEqual([
      'freeze_authority:medium:20',
      'default_account_state_frozen:high:30',
    ]);
    expect(codes(mint22([{ extension: 'defaultAccountState', state: { accountState: 'initialized' } }]))).toEqual([]);
    expect(codes(mint22([{ extension: 'nonTransferable', state: {} }]))).toEqual(['non_transferable:high:40']);
    expect(codes(mint22([{ extension: 'mintCloseAuthority', state: { closeAuthority: AUTH } }]))).toEqual(['mint_close_authority:medium:10']);
    expect(
      codes(
        mint22([
          { extension: 'permanentDelegate', state: { delegate: OTHER } },
          { extension: 'mintCloseAuthority', state: { closeAuthority: AUTH } },
        ]),
      ),
    ).toEqual(['permanent_delegate:high:40', 'mint_close_authority:high:25']);
    expect(codes(mint22([{ extension: 'pausableConfig', state: { authority: AUTH, paused: true } }]))).toEqual(['pausable:high:35']);
    expect(codes(mint22([{ extension: 'pausableConfig', state: { authority: AUTH, paused: false } }]))).toEqual(['pausable:medium:15']);
    expect(
      codes(mint22([{ extension: 'confidentialTransferMint', state: { authority: AUTH, autoApproveNewAccounts: true, auditorElgamalPubkey: null } }])),
    ).toEqual(['confidential_transfer:medium:10']);
    expect(
      codes(
        mint22([
          {
            extension: 'interestBearingConfig',
            state: { rateAuthority: AUTH, initializationTimestamp: 1n, preUpdateAverageRate: 3000, lastUpdateTimestamp: 1n, currentRate: 3000 },
          },
        ]),
      ),
    ).toEqual(['interest_bearing:low:5']);
    expect(
      codes(
        mint22([{ extension: 'scaledUiAmountConfig', state: { authority: AUTH, multiplier: 1, newMultiplierEffectiveTimestamp: 99n, newMultiplier: 0.01 } }]),
      ),
    ).toEqual(['scaled_ui_amount:medium:15']);
    expect(
      codes(mint22([{ extension: 'scaledUiAmountConfig', state: { authority: AUTH, multiplier: 2, newMultiplierEffectiveTimestamp: 0n, newMultiplier: 2 } }])),
    ).toEqual(['scaled_ui_amount:low:10']);
    expect(codes(mint22([{ typeId: 999, raw: new Uint8Array([1, 2]) }]))).toEqual(['unparseable_extension:medium:10']);
  });

  it('reads the transfer fee in force by epoch and states the scheduled one', () => {
    const m = mint22([fee(1000, 5000, 1_000_000n)]);
    const [now] = mintFlags(m, { epoch: 5, hook: null });
    expect(now).toMatchObject({
      code: 'transfer_fee',
      severity: 'high',
      penalty: 30,
      facts: { currentFeeBps: 1000, scheduledFeeBps: 5000, scheduledFromEpoch: 1_000_000 },
    });
    expect(now!.note).toContain('10% (1000 bps)');
    expect(now!.note).toContain('50% (5000 bps) from epoch 1000000');
    const [later] = mintFlags(m, { epoch: 1_000_000, hook: null });
    expect(later!.facts).toMatchObject({ currentFeeBps: 5000, scheduledFeeBps: null });
    const [unknownEpoch] = mintFlags(m, { epoch: null, hook: null });
    expect(unknownEpoch!.facts).toMatchObject({ currentFeeBps: 'unknown', epoch: 'unknown' });
    expect(codes(mint22([fee(50, 100, 9n)]))).toEqual(['transfer_fee:medium:15']);
    expect(codes(mint22([fee(50, 50, 9n)]))).toEqual(['transfer_fee:low:5']);
    expect(codes(mint22([fee(0, 0, 9n)]))).toEqual(['transfer_fee:info:0']);
  });

  it('weighs a transfer hook by whether its program is upgradeable', () => {
    const m = mint22([{ extension: 'transferHook', state: { authority: AUTH, programId: HOOK } }]);
    const status = (up: boolean | 'unknown') => ({
      programId: HOOK,
      upgradeable: up,
      upgradeAuthority: up === true ? AUTH : up === false ? null : ('unknown' as const),
      programData: null,
      detail: 'd',
    });
    expect(mintFlags(m, { epoch: 1, hook: status(true) })[0]).toMatchObject({ severity: 'medium', penalty: 25 });
    expect(mintFlags(m, { epoch: 1, hook: status(false) })[0]).toMatchObject({ severity: 'low', penalty: 15 });
    expect(mintFlags(m, { epoch: 1, hook: status('unknown') })[0]).toMatchObject({ severity: 'medium', penalty: 25 });
    expect(mintFlags(m, { epoch: 1, hook: status(true) })[0]!.note).toContain(`upgradeable by ${AUTH}`);
  });

  it('floors the contract score at 0', () => {
    const m = mint22(
      [
        { extension: 'permanentDelegate', state: { delegate: OTHER } },
        { extension: 'nonTransferable', state: {} },
        { extension: 'pausableConfig', state: { authority: AUTH, paused: true } },
      ],
      { mintAuthority: AUTH },
    );
    expect(contractScore(mintFlags(m, { epoch: 1, hook: null }))).toBe(0);
  });
});

describe('hook program upgradeability', () => {
  const programData = 'HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3';
  const programAccount = () => {
    const d = new Uint8Array(36);
    new DataView(d.buffer).setUint32(0, 2, true);
    d.set(addressToBytes(programData), 4);
    return d;
  };
  const pdAccount = (authority: string | null) => {
    const d = new Uint8Array(45);
    new DataView(d.buffer).setUint32(0, 3, true);
    if (authority) {
      d[12] = 1;
      d.set(addressToBytes(authority), 13);
    }
    return d;
  };
  it('follows Program -> ProgramData and reads the upgrade authority', () => {
    expect(programDataAddressOf(UPGRADEABLE_LOADER_ID, programAccount())).toBe(programData);
    expect(programDataAddressOf('11111111111111111111111111111111', programAccount())).toBeNull();
    const prog = { owner: UPGRADEABLE_LOADER_ID, data: programAccount() };
    expect(hookProgramStatus(HOOK, prog, { address: programData, account: { owner: UPGRADEABLE_LOADER_ID, data: pdAccount(AUTH) } })).toMatchObject({
      upgradeable: true,
      upgradeAuthority: AUTH,
    });
    expect(hookProgramStatus(HOOK, prog, { address: programData, account: { owner: UPGRADEABLE_LOADER_ID, data: pdAccount(null) } })).toMatchObject({
      upgradeable: false,
      upgradeAuthority: null,
    });
    expect(hookProgramStatus(HOOK, prog, { address: programData, account: null })).toMatchObject({ upgradeable: 'unknown' });
    expect(hookProgramStatus(HOOK, null, null)).toMatchObject({ upgradeable: 'unknown', detail: 'the hook program account does not exist' });
    expect(hookProgramStatus(HOOK, { owner: 'BPFLoader2111111111111111111111111111111111', data: new Uint8Array(10) }, null)).toMatchObject({
      upgradeable: false,
    });
  });
});

describe('holder bucketing', () => {
  const acct = (i: number, amount: bigint, owner: string | null = `owner${i}`) => ({
    address: `acct${String(i).padStart(2, '0')}`,
    amount,
    owner,
    state: 'initialized',
  });
  it('computes shares, top-N, buckets at the exact thresholds and the band', () => {
    // supply 10000: shares 40%, 5% (bucket 1-5), 1% (bucket 1-5), 0.99% (lt1), rest unlisted
    const d = bucketHolders({ supply: 10_000n, decimals: 0, mint: 'M', accounts: [acct(3, 99n), acct(1, 4000n), acct(2, 500n), acct(4, 100n)] });
    expect(d.accounts.map((a) => [a.rank, a.address, a.sharePct])).toEqual([
      [1, 'acct01', 40],
      [2, 'acct02', 5],
      [3, 'acct04', 1],
      [4, 'acct03', 0.99],
    ]);
    expect(d.buckets).toEqual({ gt5pct: 1, from1to5pct: 2, lt1pct: 1, unknown: 0 });
    expect([d.top1Pct, d.top5Pct, d.top10Pct, d.top20Pct]).toEqual([40, 46.99, 46.99, 46.99]);
    expect(d.band).toBe('moderate');
    expect(d.top10CirculatingPct).toBe(46.99);
  });
  it('labels burn and system owners, keeps others unresolved, and removes labelled balances from circulating supply', () => {
    const d = bucketHolders({
      supply: 1000n,
      decimals: 0,
      mint: 'M',
      accounts: [acct(1, 400n, BURN), acct(2, 100n, '11111111111111111111111111111111'), acct(3, 250n), acct(4, 250n, null)],
    });
    expect(d.accounts.map((a) => [a.owner, a.label])).toEqual([
      [BURN, 'burn'],
      ['owner3', 'unresolved'],
      ['unknown', 'unknown'],
      ['11111111111111111111111111111111', 'system'],
    ]);
    expect(d.labelledAmount).toBe('500');
    expect(d.top10Pct).toBe(100);
    expect(d.top10CirculatingPct).toBe(100); // 500 of the 500 circulating
    expect(labelOwner('M', 'M').label).toBe('system');
  });
  it('reports unknown shares for a zero supply', () => {
    const d = bucketHolders({ supply: 0n, decimals: 0, mint: 'M', accounts: [acct(1, 0n)] });
    expect(d.buckets).toEqual({ gt5pct: 0, from1to5pct: 0, lt1pct: 0, unknown: 1 });
    expect(d.band).toBe('unknown');
    expect(d.top10CirculatingPct).toBeNull();
    expect(percentOf(1n, 3n)).toBe(33.333333);
  });
  it('bands by top-10 share', () => {
    expect([holderBand(80), holderBand(79.99), holderBand(50), holderBand(20), holderBand(19.9)]).toEqual([
      'highly-concentrated',
      'concentrated',
      'concentrated',
      'moderate',
      'dispersed',
    ]);
  });
});

describe('index, bands and decision', () => {
  it('weighs the components and renormalises when concentration is unknown', () => {
    const both = computeIndex({ score: 40, note: '' }, { score: 0, note: '' });
    expect(both).toMatchObject({ smri: 24, smriBand: 'high-risk', confidence: 1 });
    const contractOnly = computeIndex({ score: 50, note: '' }, { score: 'unknown', note: '' });
    expect(contractOnly).toMatchObject({
      smri: 50,
      smriBand: 'medium-risk',
      confidence: 0.5,
      components: { concentration: { score: 'unknown', weight: 0.4 } },
    });
    expect(concentrationScore(72.42)).toBe(28);
    expect(concentrationScore(null)).toBe('unknown');
    expect([smriBandOf(70), smriBandOf(69), smriBandOf(40), smriBandOf(39), smriBandOf(null)]).toEqual([
      'low-risk',
      'medium-risk',
      'medium-risk',
      'high-risk',
      'unknown',
    ]);
  });
  it('maps the index to EXECUTE / REVIEW / REJECT at the contract edges', () => {
    expect(decisionOf(39, 1).decision).toBe('REJECT');
    expect(decisionOf(40, 1).decision).toBe('REVIEW');
    expect(decisionOf(69, 1).reason).toContain('review range 40-69');
    expect(decisionOf(70, 0.6).decision).toBe('EXECUTE');
    expect(decisionOf(70, 0.5).decision).toBe('REVIEW');
    expect(decisionOf(null, 0).decision).toBe('REVIEW');
  });
  it('takes the risk band from the worst flag and the concentration', () => {
    const f = (severity: 'high' | 'medium' | 'low' | 'info') => [{ code: 'x', severity, penalty: 0, note: '' }];
    expect(riskBandOf(f('info'), 10)).toBe('low');
    expect(riskBandOf(f('low'), 50)).toBe('low');
    expect(riskBandOf(f('low'), 50.1)).toBe('medium');
    expect(riskBandOf(f('low'), 80.1)).toBe('high');
    expect(riskBandOf(f('medium'), null)).toBe('medium');
    expect(riskBandOf(f('high'), 0)).toBe('high');
  });
});

describe('firewall policy', () => {
  const facts: PolicyFacts = { smri: 60, confidence: 1, top10Pct: 45, mintAuthorityPresent: false, freezeAuthorityPresent: false, riskBand: 'medium' };
  it('expands presets and lets explicit parameters override them', () => {
    expect(effectivePolicy('anti-rug', {})).toEqual(POLICY_PRESETS['anti-rug']);
    expect(effectivePolicy('anti-rug', { minSmri: 90 })).toMatchObject({ minSmri: 90, maxConcentrationPct: 60 });
    expect(hasPolicyInput(null, {})).toBe(false);
    expect(hasPolicyInput(null, { denyMintAuthority: false })).toBe(true);
  });
  it('allows when every rule passes and names the deciding rule and value when one fails', () => {
    expect(evaluatePolicy('anti-rug', {}, facts)).toMatchObject({ verdict: 'ALLOW', decidedBy: null });
    const deny = evaluatePolicy('conservative', {}, facts);
    expect(deny.verdict).toBe('DENY');
    expect(deny.decidedBy).toMatchObject({ rule: 'minSmri', threshold: 70, observed: 60, pass: false });
    expect(evaluatePolicy('degen', {}, { ...facts, mintAuthorityPresent: true }).verdict).toBe('ALLOW');
    expect(evaluatePolicy('degen', {}, { ...facts, freezeAuthorityPresent: true }).decidedBy).toMatchObject({ rule: 'denyFreezeAuthority', observed: true });
    expect(evaluatePolicy(null, { maxConcentrationPct: 40 }, facts).decidedBy).toMatchObject({ rule: 'maxConcentrationPct', observed: 45 });
  });
  it('is fail-closed: an unknown input denies', () => {
    const r = evaluatePolicy(null, { maxConcentrationPct: 99 }, { ...facts, top10Pct: null });
    expect(r).toMatchObject({ verdict: 'DENY', decidedBy: { rule: 'maxConcentrationPct', observed: 'unknown' } });
    expect(evaluatePolicy(null, { minSmri: 0 }, { ...facts, smri: null }).verdict).toBe('DENY');
    expect(evaluatePolicy(null, { denyHighRiskBand: true }, { ...facts, riskBand: null }).verdict).toBe('DENY');
  });
  it('publishes the presets and version in the methodology', () => {
    expect(TOKEN_METHODOLOGY.firewall.presets).toBe(POLICY_PRESETS);
    expect(TOKEN_METHODOLOGY.methodologyVersion).toMatch(/^token-sir-/);
  });
});

describe('mint age (best-effort)', () => {
  const page = (count: number, oldest: number | null) => ({
    ok: true as const,
    slot: 1,
    value: { count, limit: 1000, newestBlockTime: oldest, oldestBlockTime: oldest },
  });
  it('is exact below a full page, a lower bound on a full page, unknown when empty or failed', () => {
    const now = 1_000_000_000;
    expect(mintAgeOf(page(10, now - 2 * 86_400), now)).toMatchObject({
      ageDays: 2,
      atLeastDays: null,
      firstActivityUnix: now - 2 * 86_400,
      signaturesRead: 10,
    });
    expect(mintAgeOf(page(1000, now - 86_400 / 2), now)).toMatchObject({ ageDays: 'unknown', atLeastDays: 0.5 });
    expect(mintAgeOf(page(0, null), now)).toMatchObject({ ageDays: 'unknown', signaturesRead: 0 });
    expect(mintAgeOf({ ok: false, code: -32603, message: 'boom' }, now)).toMatchObject({ ageDays: 'unknown', error: 'history_unavailable' });
  });
});
