/**
 * The world's mints, planned into the ledger in a fixed order: the real mainnet mints at their
 * real addresses and authorities, the local x402 stablecoin, the Token-2022 risk-profile mints
 * (and the two transfer-hook programs they point at), and the holder-distribution mints. After the
 * ledger has written them, `worldMints` gives the ground truth of each.
 */
import { addressToBytes } from '../encoding/base58.ts';
import type { LocalChain } from '../chain/local-chain.ts';
import type { ExtensionName } from '../encoding/token-extension-codecs.ts';
import type { WorldFixture } from './world-fixture.ts';
import type { WorldKeys, WorldSigner } from '../signing/world-keys.ts';
import { type MintPlan, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, type TokenHolding, type WorldLedger } from './world-ledger.ts';
import { programAccountData, programDataAccountData, type RiskProfile, riskProfile, UPGRADEABLE_LOADER_ID } from './world-risk-mints.ts';

/** What a mint is in the world. */
export type WorldMintKind = 'real' | 'stablecoin' | 'risk' | 'holders';

/** A mint and the ground truth of how it was built. */
export interface WorldMint {
  /** Fixture key: the symbol for real mints, the profile key for risk and holder mints. */
  readonly key: string;
  readonly kind: WorldMintKind;
  readonly symbol: string;
  readonly address: string;
  readonly decimals: number;
  readonly programId: string;
  readonly mintAuthority: string | null;
  readonly freezeAuthority: string | null;
  /** Extensions on the mint, in TLV order (Token-2022 only). */
  readonly extensions: readonly ExtensionName[];
  /** Human description of the intended risk (risk mints) or holder shape. */
  readonly profile: string;
  readonly priceUsd: number | null;
  /** Sum of all token accounts written at build time (base units). */
  readonly supply: bigint;
  readonly holders: readonly TokenHolding[];
}

/** A transfer-hook program account and whether its upgrade authority is set. */
export interface HookProgram {
  readonly programId: string;
  readonly programData: string;
  readonly upgradeAuthority: string | null;
}

/** A mint planned into the ledger, with what the world reports about it. */
export interface PlannedMint {
  readonly key: string;
  readonly kind: WorldMintKind;
  readonly symbol: string;
  readonly plan: MintPlan;
  readonly profile: string;
  readonly priceUsd: number | null;
}

/** The planned mints, in planning order, and the keys and programs made for them. */
export interface WorldMintPlan {
  readonly planned: readonly PlannedMint[];
  readonly stablecoin: { readonly mint: string; readonly mintAuthority: WorldSigner };
  readonly riskAuthority: WorldSigner;
  readonly permanentDelegate: WorldSigner;
  readonly hookPrograms: { readonly upgradeable: HookProgram; readonly immutable: HookProgram };
  /** Risk profile by fixture key (its token accounts' state comes from it). */
  readonly riskStates: ReadonlyMap<string, RiskProfile>;
}

/** What mint planning works with. */
export interface WorldMintContext {
  readonly chain: LocalChain;
  readonly fixture: WorldFixture;
  readonly keys: WorldKeys;
  readonly ledger: WorldLedger;
  /** Unix seconds "now" in the world, for extension timestamps. */
  readonly nowUnix: number;
}

const STABLECOIN_LABEL = 'stablecoin';

type Plan = (mint: PlannedMint) => void;

function hookProgram(ctx: WorldMintContext, label: string, upgradeable: boolean): HookProgram {
  const { chain, keys, ledger } = ctx;
  const programId = keys.signer(`hook/${label}/program`).address;
  const programData = keys.address(`hook/${label}/programdata`);
  const upgradeAuthority = upgradeable ? keys.signer(`hook/${label}/upgrade-authority`).address : null;
  const pdData = programDataAccountData(0n, upgradeAuthority === null ? null : addressToBytes(upgradeAuthority));
  chain.setAccount(programData, { lamports: ledger.rent(pdData.length), data: pdData, owner: UPGRADEABLE_LOADER_ID });
  // Not marked executable: LiteSVM refuses executable loader accounts without a real ELF.
  const progData = programAccountData(addressToBytes(programData));
  chain.setAccount(programId, { lamports: ledger.rent(progData.length), data: progData, owner: UPGRADEABLE_LOADER_ID });
  return { programId, programData, upgradeAuthority };
}

function planRealAndStablecoin(ctx: WorldMintContext, plan: Plan): WorldMintPlan['stablecoin'] {
  const { fixture, keys } = ctx;
  for (const m of fixture.realMints) {
    plan({
      key: m.symbol,
      kind: 'real',
      symbol: m.symbol,
      plan: { address: m.mint, programId: TOKEN_PROGRAM_ID, decimals: m.decimals, mintAuthority: m.mintAuthority, freezeAuthority: m.freezeAuthority },
      profile: m.verified ? 'mainnet mint, real authorities' : 'mainnet mint, authorities unverified',
      priceUsd: m.priceUsd,
    });
  }
  const mintAuthority = keys.signer(`${STABLECOIN_LABEL}/mint-authority`);
  const mint = keys.signer(`${STABLECOIN_LABEL}/mint`).address;
  const { symbol, decimals, priceUsd } = fixture.stablecoin;
  plan({
    key: symbol,
    kind: 'stablecoin',
    symbol,
    plan: { address: mint, programId: TOKEN_PROGRAM_ID, decimals, mintAuthority: mintAuthority.address, freezeAuthority: null },
    profile: 'local x402 payment stablecoin',
    priceUsd,
  });
  return { mint, mintAuthority };
}

function planRiskMints(ctx: WorldMintContext, plan: Plan): Omit<WorldMintPlan, 'planned' | 'stablecoin'> {
  const { fixture, keys } = ctx;
  const riskAuthority = keys.signer('risk/authority');
  const permanentDelegate = keys.signer('risk/permanent-delegate');
  const hookPrograms = { upgradeable: hookProgram(ctx, 'upgradeable', true), immutable: hookProgram(ctx, 'immutable', false) };
  const riskStates = new Map<string, RiskProfile>();
  for (const r of fixture.riskMints) {
    const address = keys.signer(`risk/${r.key}/mint`).address;
    const profile = riskProfile(r.key, r.symbol, {
      authority: riskAuthority.address,
      delegate: permanentDelegate.address,
      mint: address,
      upgradeableHookProgram: hookPrograms.upgradeable.programId,
      immutableHookProgram: hookPrograms.immutable.programId,
      nowUnix: BigInt(ctx.nowUnix),
    });
    riskStates.set(r.key, profile);
    const mintAuthority = riskAuthority.address;
    const freezeAuthority = profile.freezeAuthority ? riskAuthority.address : null;
    const { extensions, accountExtensions } = profile;
    const mintPlan = { address, programId: TOKEN_2022_PROGRAM_ID, decimals: r.decimals, mintAuthority, freezeAuthority, extensions, accountExtensions };
    plan({ key: r.key, kind: 'risk', symbol: r.symbol, plan: mintPlan, profile: r.risk, priceUsd: null });
  }
  return { riskAuthority, permanentDelegate, hookPrograms, riskStates };
}

function planHolderMints(ctx: WorldMintContext, plan: Plan): void {
  const { keys } = ctx;
  for (const h of ctx.fixture.holderMints) {
    const authority = h.authorities === true ? keys.signer(`holders/${h.key}/authority`).address : null;
    const address = keys.signer(`holders/${h.key}/mint`).address;
    plan({
      key: h.key,
      kind: 'holders',
      symbol: h.symbol,
      plan: { address, programId: TOKEN_PROGRAM_ID, decimals: h.decimals, mintAuthority: authority, freezeAuthority: authority },
      profile: `${h.shape} over ${h.holders} holders`,
      priceUsd: null,
    });
  }
}

/** Plans every fixture mint into the ledger (and writes the hook programs to the chain). */
export function planWorldMints(ctx: WorldMintContext): WorldMintPlan {
  const planned: PlannedMint[] = [];
  const plan: Plan = (mint) => {
    ctx.ledger.planMint(mint.plan);
    planned.push(mint);
  };
  const stablecoin = planRealAndStablecoin(ctx, plan);
  const risk = planRiskMints(ctx, plan);
  planHolderMints(ctx, plan);
  return { planned, stablecoin, ...risk };
}

/** The ground truth of each planned mint by fixture key, once the ledger has committed them. */
export function worldMints(planned: readonly PlannedMint[], supplies: ReadonlyMap<string, bigint>, ledger: WorldLedger): Map<string, WorldMint> {
  const mints = new Map<string, WorldMint>();
  for (const p of planned) {
    mints.set(p.key, {
      key: p.key,
      kind: p.kind,
      symbol: p.symbol,
      address: p.plan.address,
      decimals: p.plan.decimals,
      programId: p.plan.programId,
      mintAuthority: p.plan.mintAuthority,
      freezeAuthority: p.plan.freezeAuthority,
      extensions: (p.plan.extensions ?? []).map((e) => ('extension' in e ? e.extension : 'unknown') as ExtensionName),
      profile: p.profile,
      priceUsd: p.priceUsd,
      supply: supplies.get(p.plan.address) ?? 0n,
      holders: ledger.holdings(p.plan.address),
    });
  }
  return mints;
}
