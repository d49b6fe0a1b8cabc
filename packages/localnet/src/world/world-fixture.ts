/**
 * The committed facts of the local world (`fixture/world.json`): real mainnet mints with their
 * authorities, the Jito tip accounts, and the shapes of the synthetic parts (risk mints, holder
 * distributions, wallet bands, pools). Read once and checked so a bad edit fails loudly at start.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { localnetPath } from '../package-dir.ts';

/** Path of the committed fixture (src/fixture/ of the package). */
export const WORLD_FIXTURE_URL = pathToFileURL(localnetPath('src', 'fixture', 'world.json'));

/** A mainnet mint at its real address. */
export interface FixtureRealMint {
  readonly symbol: string;
  readonly name: string;
  readonly mint: string;
  readonly decimals: number;
  readonly mintAuthority: string | null;
  readonly freezeAuthority: string | null;
  readonly priceUsd: number;
  /** False when the authorities could not be confirmed from a public source. */
  readonly verified: boolean;
  readonly source: string;
}

export interface FixtureRiskMint {
  readonly key: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly risk: string;
}

/** Holder shapes: equal shares; one holder with 60%; one holder only; the burn address with 40%. */
export type HolderShape = 'flat' | 'top1-60pct' | 'single' | 'burn-40pct';

export interface FixtureHolderMint {
  readonly key: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly holders: number;
  readonly shape: HolderShape;
  /** Mint and freeze authorities kept (a still-mintable token). */
  readonly authorities?: boolean;
}

export interface FixturePool {
  readonly label: string;
  readonly base: string;
  readonly quote: string;
  readonly baseReserveUi: number;
  readonly feeBps: number;
  readonly ageHours: number;
  /** Price of the base token when it is not a real mint with a price. */
  readonly basePriceUsd?: number;
}

/** Wallet profile bands as wallet-scan names them. */
export type WalletBand = 'fresh' | 'active' | 'heavy' | 'empty';

export interface WorldFixture {
  readonly burnAddress: string;
  readonly jitoTipAccounts: readonly string[];
  readonly tipAccountLamports: string;
  readonly realMints: readonly FixtureRealMint[];
  readonly stablecoin: { readonly symbol: string; readonly name: string; readonly decimals: number; readonly priceUsd: number };
  readonly largeHolderMint: { readonly symbol: string; readonly accounts: number };
  readonly riskMints: readonly FixtureRiskMint[];
  readonly holderMints: readonly FixtureHolderMint[];
  readonly wallets: Readonly<Record<WalletBand, number>>;
  readonly pools: readonly FixturePool[];
}

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`world fixture: ${what}`);
}

/** Validates the parts that would otherwise fail far from their cause. */
export function validateWorldFixture(f: WorldFixture): WorldFixture {
  check(f.jitoTipAccounts.length === 8 && f.jitoTipAccounts.every((a) => BASE58.test(a)), 'eight base58 Jito tip accounts');
  check(BASE58.test(f.burnAddress), 'burnAddress is base58');
  for (const m of f.realMints) {
    check(BASE58.test(m.mint), `${m.symbol} mint is base58`);
    check(
      [m.mintAuthority, m.freezeAuthority].every((a) => a === null || BASE58.test(a)),
      `${m.symbol} authorities`,
    );
    check(Number.isInteger(m.decimals) && m.decimals >= 0 && m.decimals <= 18, `${m.symbol} decimals`);
  }
  const symbols = new Set([...f.realMints.map((m) => m.symbol), f.stablecoin.symbol, ...f.holderMints.map((h) => h.symbol)]);
  check(symbols.has(f.largeHolderMint.symbol), 'largeHolderMint names a known symbol');
  for (const p of f.pools) {
    check(symbols.has(p.base) && symbols.has(p.quote), `pool ${p.label} names known symbols`);
    check(p.baseReserveUi > 0 && p.feeBps >= 0 && p.feeBps < 10_000, `pool ${p.label} reserves and fee`);
  }
  return f;
}

/** Reads and validates the committed fixture. */
export function loadWorldFixture(): WorldFixture {
  return validateWorldFixture(JSON.parse(readFileSync(WORLD_FIXTURE_URL, 'utf8')) as WorldFixture);
}
