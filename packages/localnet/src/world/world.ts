/**
 * The deterministic local world: one seed plus `fixture/world.json` give the same accounts, keys
 * and transaction history every time. Real mainnet mints at their real addresses and authorities,
 * the local x402 stablecoin, Token-2022 risk-profile mints, holder distributions, wallets of every
 * band with history, constant-product pools and the funded Jito tip accounts. The returned `World`
 * is the ground truth tests compare the service against.
 */
import type { LocalChain } from '../chain/local-chain.ts';
import { loadWorldFixture, type WalletBand, type WorldFixture } from './world-fixture.ts';
import { distributeHolders, writeManyHolders } from './world-holders.ts';
import { createPrng, createWorldKeys, type Prng, type WorldKeys, type WorldSigner } from '../signing/world-keys.ts';
import { createWorldLedger, NATIVE_MINT, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, type WorldLedger } from './world-ledger.ts';
import { type HookProgram, type PlannedMint, planWorldMints, type WorldMint, type WorldMintPlan, worldMints } from './world-mints.ts';
import { planPools, type PoolMintInfo, type WorldPool } from './world-pools.ts';
import { planWallets, runWalletHistory, type WorldWallet } from './world-wallets.ts';
import { fundTraders, type WorldTrader } from './world-traders.ts';

export type { HookProgram, WorldMint, WorldMintKind } from './world-mints.ts';
export type { WorldPool } from './world-pools.ts';
export type { WorldWallet } from './world-wallets.ts';
export type { WorldTrader } from './world-traders.ts';

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

/** Writes the holder distributions of the holder and risk mints and the large holder mint's accounts. */
async function writeHolders(args: {
  readonly fixture: WorldFixture;
  readonly ledger: WorldLedger;
  readonly keys: WorldKeys;
  readonly prng: Prng;
  readonly mints: WorldMintPlan;
  readonly bySymbol: ReadonlyMap<string, PlannedMint>;
}): Promise<PlannedMint> {
  const { fixture, ledger, keys, bySymbol } = args;
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
    const state = args.mints.riskStates.get(r.key);
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
  await writeManyHolders({ ledger, keys, prng: args.prng, mint: large.plan.address, decimals: large.plan.decimals, count: fixture.largeHolderMint.accounts });
  return large;
}

/** Every address the world wrote or funded, each once, in write order. */
function worldAddresses(ledger: WorldLedger, hookPrograms: World['hookPrograms'], wallets: readonly WorldWallet[]): string[] {
  const { upgradeable, immutable } = hookPrograms;
  return [
    ...new Set([
      ...ledger.written,
      upgradeable.programId,
      upgradeable.programData,
      immutable.programId,
      immutable.programData,
      ...wallets.map((w) => w.address),
    ]),
  ];
}

/** Builds the world into `chain` (which should be fresh). Deterministic in `seed`. */
export async function buildWorld(chain: LocalChain, options: BuildWorldOptions): Promise<World> {
  const fixture = options.fixture ?? loadWorldFixture();
  const keys = createWorldKeys(options.seed);
  const prng = createPrng(`world/${keys.seed}`);
  const ledger = createWorldLedger(chain);
  const nowUnix = chain.blockTimeOf(chain.openSlot());
  const mintPlan = planWorldMints({ chain, fixture, keys, ledger, nowUnix });
  const { planned, hookPrograms } = mintPlan;

  const bySymbol = new Map(planned.map((p) => [p.symbol, p]));
  const poolMints = new Map<string, PoolMintInfo>(
    planned.map((p) => [p.symbol, { address: p.plan.address, decimals: p.plan.decimals, programId: p.plan.programId, priceUsd: p.priceUsd ?? 0 }]),
  );
  const pools = await planPools({ fixture: fixture.pools, mints: poolMints, keys, ledger, nowUnix });
  const traders = await fundTraders({ keys, ledger, pools, mints: poolMints });
  const large = await writeHolders({ fixture, ledger, keys, prng, mints: mintPlan, bySymbol });

  const usdc = bySymbol.get('USDC');
  if (usdc === undefined) throw new Error('world: USDC missing from fixture');
  const walletToken = { mint: usdc.plan.address, decimals: usdc.plan.decimals, programId: usdc.plan.programId };
  const wallets = await planWallets({ keys, ledger, counts: fixture.wallets, token: walletToken });
  const tipLamports = BigInt(fixture.tipAccountLamports);
  for (const tip of fixture.jitoTipAccounts) ledger.fundSystemAccount(tip, tipLamports);

  const supplies = ledger.commitMints();
  const historyTransactions = runWalletHistory({ chain, wallets, token: walletToken, tipAccounts: fixture.jitoTipAccounts, prng });

  const mints = worldMints(planned, supplies, ledger);
  const byBand = (band: WalletBand): WorldWallet[] => wallets.filter((w) => w.band === band);
  const { stablecoin } = fixture;
  return {
    seed: keys.seed,
    mints,
    mintsByAddress: new Map([...mints.values()].map((m) => [m.address, m])),
    stablecoin: { mint: mintPlan.stablecoin.mint, symbol: stablecoin.symbol, decimals: stablecoin.decimals, mintAuthority: mintPlan.stablecoin.mintAuthority },
    largeHolderMint: { mint: large.plan.address, accountCount: ledger.holdings(large.plan.address).length },
    hookPrograms,
    riskAuthority: mintPlan.riskAuthority,
    permanentDelegate: mintPlan.permanentDelegate,
    wallets: { fresh: byBand('fresh'), active: byBand('active'), heavy: byBand('heavy'), empty: byBand('empty') },
    traders,
    pools,
    tipAccounts: fixture.jitoTipAccounts,
    burnAddress: fixture.burnAddress,
    addresses: worldAddresses(ledger, hookPrograms, wallets),
    historyTransactions,
  };
}

/**
 * The world `world` (built at another time, played back from a snapshot) as if built at the chain's
 * start (`nowUnix`: the block time of the chain's first open slot, as `buildWorld` reads it, not
 * after the history played back): the mints carry the build's time (an interest-bearing mint's start, a scaled-UI mint's
 * next multiplier date) and the pools their age, so the mints are planned and written again at
 * this time, each with the supply the build gave it, and the pools' creation times move by as
 * much. Only time differs between two builds of one seed; everything else stays as played back.
 */
export function restampWorld(
  chain: LocalChain,
  world: World,
  options: { readonly builtAtUnix: number; readonly nowUnix: number; readonly fixture?: WorldFixture },
): World {
  const { nowUnix } = options;
  if (nowUnix === options.builtAtUnix) return world;
  const ledger = createWorldLedger(chain);
  planWorldMints({ chain, fixture: options.fixture ?? loadWorldFixture(), keys: createWorldKeys(world.seed), ledger, nowUnix });
  ledger.commitMints((mint) => world.mintsByAddress.get(mint)?.supply ?? 0n);
  const shift = nowUnix - options.builtAtUnix;
  return { ...world, pools: world.pools.map((p) => ({ ...p, createdAt: p.createdAt + shift })) };
}

export { NATIVE_MINT, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID };
