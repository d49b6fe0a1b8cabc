/**
 * The deterministic local world: one seed plus `fixture/world.json` give the same accounts, keys
 * and transaction history every time. Real mainnet mints at their real addresses and authorities,
 * the local x402 stablecoin, Token-2022 risk-profile mints, holder distributions, wallets of every
 * band with history, constant-product pools and the funded Jito tip accounts. The returned `World`
 * is the ground truth tests compare the service against.
 */
import { addressToBytes } from './base58.ts';
import type { ExtensionName } from './token-extension-codecs.ts';
import type { LocalChain } from './local-chain.ts';
import { loadWorldFixture, type WalletBand, type WorldFixture } from './world-fixture.ts';
import { distributeHolders, writeManyHolders } from './world-holders.ts';
import { createPrng, createWorldKeys, type WorldKeys, type WorldSigner } from './world-keys.ts';
import { createWorldLedger, NATIVE_MINT, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, type MintPlan, type TokenHolding, type WorldLedger } from './world-ledger.ts';
import { planPools, type PoolMintInfo, type WorldPool } from './world-pools.ts';
import { programAccountData, programDataAccountData, riskProfile, UPGRADEABLE_LOADER_ID } from './world-risk-mints.ts';
import { planWallets, runWalletHistory, type WorldWallet } from './world-wallets.ts';
import { fundTraders, type WorldTrader } from './world-traders.ts';

export type { WorldPool } from './world-pools.ts';
export type { WorldWallet } from './world-wallets.ts';
export type { WorldTrader } from './world-traders.ts';

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

/** Everything the world contains. */
export interface World {
  readonly seed: string;
  readonly mints: ReadonlyMap<string, WorldMint>;
  /** Mints by address. */
  readonly mintsByAddress: ReadonlyMap<string, WorldMint>;
  readonly stablecoin: { readonly mint: string; readonly symbol: string; readonly decimals: number; readonly mintAuthority: WorldSigner };
  readonly largeHolderMint: { readonly mint: string; readonly accountCount: number };
  readonly hookPrograms: { readonly upgradeable: HookProgram; readonly immutable: HookProgram };
  readonly riskAuthority: WorldSigner;
  readonly permanentDelegate: WorldSigner;
  readonly wallets: Readonly<Record<WalletBand, readonly WorldWallet[]>>;
  readonly traders: readonly WorldTrader[];
  readonly pools: readonly WorldPool[];
  readonly tipAccounts: readonly string[];
  readonly burnAddress: string;
  /** Every address the world wrote or funded, for state hashing. */
  readonly addresses: readonly string[];
  /** Transactions executed while building. */
  readonly historyTransactions: number;
}

/** Options of `buildWorld`. */
export interface BuildWorldOptions {
  readonly seed: string | number;
  /** Override the committed fixture (tests). */
  readonly fixture?: WorldFixture;
}

const HOLDER_MINT_SUPPLY_WHOLE = 1_000_000_000n;
const RISK_MINT_SUPPLY_WHOLE = 100_000_000n;
const RISK_MINT_HOLDERS = 8;
const STABLECOIN_LABEL = 'stablecoin';

function hookProgram(chain: LocalChain, keys: WorldKeys, ledger: WorldLedger, label: string, upgradeable: boolean): HookProgram {
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

/** Builds the world into `chain` (which should be fresh). Deterministic in `seed`. */
export async function buildWorld(chain: LocalChain, options: BuildWorldOptions): Promise<World> {
  const fixture = options.fixture ?? loadWorldFixture();
  const keys = createWorldKeys(options.seed);
  const prng = createPrng(`world/${keys.seed}`);
  const ledger = createWorldLedger(chain);
  const nowUnix = chain.blockTimeOf(chain.openSlot());
  const planned: { key: string; kind: WorldMintKind; symbol: string; plan: MintPlan; profile: string; priceUsd: number | null }[] = [];
  const plan = (key: string, kind: WorldMintKind, symbol: string, p: MintPlan, profile: string, priceUsd: number | null): void => {
    ledger.planMint(p);
    planned.push({ key, kind, symbol, plan: p, profile, priceUsd });
  };

  for (const m of fixture.realMints) {
    plan(
      m.symbol,
      'real',
      m.symbol,
      { address: m.mint, programId: TOKEN_PROGRAM_ID, decimals: m.decimals, mintAuthority: m.mintAuthority, freezeAuthority: m.freezeAuthority },
      m.verified ? 'mainnet mint, real authorities' : 'mainnet mint, authorities unverified',
      m.priceUsd,
    );
  }
  const stableAuthority = keys.signer(`${STABLECOIN_LABEL}/mint-authority`);
  const stableMint = keys.signer(`${STABLECOIN_LABEL}/mint`).address;
  plan(
    fixture.stablecoin.symbol,
    'stablecoin',
    fixture.stablecoin.symbol,
    { address: stableMint, programId: TOKEN_PROGRAM_ID, decimals: fixture.stablecoin.decimals, mintAuthority: stableAuthority.address, freezeAuthority: null },
    'local x402 payment stablecoin',
    fixture.stablecoin.priceUsd,
  );

  const riskAuthority = keys.signer('risk/authority');
  const permanentDelegate = keys.signer('risk/permanent-delegate');
  const hookPrograms = {
    upgradeable: hookProgram(chain, keys, ledger, 'upgradeable', true),
    immutable: hookProgram(chain, keys, ledger, 'immutable', false),
  };
  const riskStates = new Map<string, ReturnType<typeof riskProfile>>();
  for (const r of fixture.riskMints) {
    const address = keys.signer(`risk/${r.key}/mint`).address;
    const profile = riskProfile(r.key, r.symbol, {
      authority: riskAuthority.address,
      delegate: permanentDelegate.address,
      mint: address,
      upgradeableHookProgram: hookPrograms.upgradeable.programId,
      immutableHookProgram: hookPrograms.immutable.programId,
      nowUnix: BigInt(nowUnix),
    });
    riskStates.set(r.key, profile);
    plan(
      r.key,
      'risk',
      r.symbol,
      {
        address,
        programId: TOKEN_2022_PROGRAM_ID,
        decimals: r.decimals,
        mintAuthority: riskAuthority.address,
        freezeAuthority: profile.freezeAuthority ? riskAuthority.address : null,
        extensions: profile.extensions,
        accountExtensions: profile.accountExtensions,
      },
      r.risk,
      null,
    );
  }
  for (const h of fixture.holderMints) {
    const authority = h.authorities === true ? keys.signer(`holders/${h.key}/authority`).address : null;
    plan(
      h.key,
      'holders',
      h.symbol,
      {
        address: keys.signer(`holders/${h.key}/mint`).address,
        programId: TOKEN_PROGRAM_ID,
        decimals: h.decimals,
        mintAuthority: authority,
        freezeAuthority: authority,
      },
      `${h.shape} over ${h.holders} holders`,
      null,
    );
  }

  const bySymbol = new Map(planned.map((p) => [p.symbol, p]));
  const poolMints = new Map<string, PoolMintInfo>();
  for (const p of planned) {
    poolMints.set(p.symbol, { address: p.plan.address, decimals: p.plan.decimals, programId: p.plan.programId, priceUsd: p.priceUsd ?? 0 });
  }
  const pools = await planPools({ fixture: fixture.pools, mints: poolMints, keys, ledger, nowUnix });
  const traders = await fundTraders({ keys, ledger, pools, mints: poolMints });

  for (const h of fixture.holderMints) {
    const p = bySymbol.get(h.symbol);
    if (p === undefined) continue;
    await distributeHolders({
      ledger,
      keys,
      mint: p.plan.address,
      label: h.key,
      shape: h.shape,
      holders: h.holders,
      total: HOLDER_MINT_SUPPLY_WHOLE * 10n ** BigInt(h.decimals),
      burnAddress: fixture.burnAddress,
    });
  }
  for (const r of fixture.riskMints) {
    const p = bySymbol.get(r.symbol);
    const state = riskStates.get(r.key);
    if (p === undefined || state === undefined) continue;
    await distributeHolders({
      ledger,
      keys,
      mint: p.plan.address,
      label: r.key,
      shape: 'top1-60pct',
      holders: RISK_MINT_HOLDERS,
      total: RISK_MINT_SUPPLY_WHOLE * 10n ** BigInt(r.decimals),
      burnAddress: fixture.burnAddress,
      state: state.accountState,
    });
  }
  const large = bySymbol.get(fixture.largeHolderMint.symbol);
  if (large === undefined) throw new Error('world: large holder mint missing');
  await writeManyHolders({ ledger, keys, prng, mint: large.plan.address, decimals: large.plan.decimals, count: fixture.largeHolderMint.accounts });

  const usdc = bySymbol.get('USDC');
  if (usdc === undefined) throw new Error('world: USDC missing from fixture');
  const walletToken = { mint: usdc.plan.address, decimals: usdc.plan.decimals, programId: usdc.plan.programId };
  const wallets = await planWallets({ keys, ledger, counts: fixture.wallets, token: walletToken });
  const tipLamports = BigInt(fixture.tipAccountLamports);
  for (const tip of fixture.jitoTipAccounts) ledger.fundSystemAccount(tip, tipLamports);

  const supplies = ledger.commitMints();
  const historyTransactions = runWalletHistory({ chain, wallets, token: walletToken, tipAccounts: fixture.jitoTipAccounts, prng });

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
  const byBand = (band: WalletBand): WorldWallet[] => wallets.filter((w) => w.band === band);
  const addresses = [
    ...new Set([
      ...ledger.written,
      hookPrograms.upgradeable.programId,
      hookPrograms.upgradeable.programData,
      hookPrograms.immutable.programId,
      hookPrograms.immutable.programData,
      ...wallets.map((w) => w.address),
    ]),
  ];
  return {
    seed: keys.seed,
    mints,
    mintsByAddress: new Map([...mints.values()].map((m) => [m.address, m])),
    stablecoin: { mint: stableMint, symbol: fixture.stablecoin.symbol, decimals: fixture.stablecoin.decimals, mintAuthority: stableAuthority },
    largeHolderMint: { mint: large.plan.address, accountCount: ledger.holdings(large.plan.address).length },
    hookPrograms,
    riskAuthority,
    permanentDelegate,
    wallets: { fresh: byBand('fresh'), active: byBand('active'), heavy: byBand('heavy'), empty: byBand('empty') },
    traders,
    pools,
    tipAccounts: fixture.jitoTipAccounts,
    burnAddress: fixture.burnAddress,
    addresses,
    historyTransactions,
  };
}

export { NATIVE_MINT, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID };
