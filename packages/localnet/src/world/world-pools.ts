/**
 * Constant-product pools of the world: two vault token accounts owned by a pool authority (a world
 * keypair that co-signs the vault-to-user leg of each swap), reserves sized from fixture prices,
 * and the `PoolReader` the market stand-ins quote from, reading the vault balances from chain.
 */
import { parseTokenAccount } from '../encoding/token-accounts.ts';
import type { PoolReader, PoolState } from '../chain/types.ts';
import type { LocalChain } from '../chain/local-chain.ts';
import type { FixturePool } from './world-fixture.ts';
import type { WorldKeys, WorldSigner } from '../signing/world-keys.ts';
import type { WorldLedger } from './world-ledger.ts';

/** A mint as the pool planner needs it. */
export interface PoolMintInfo {
  readonly address: string;
  readonly decimals: number;
  readonly programId: string;
  readonly priceUsd: number;
}

/** A pool with its secrets (the authority signs swaps in the block producer). */
export interface WorldPool extends Omit<PoolState, 'reserveA' | 'reserveB'> {
  readonly programIdA: string;
  readonly programIdB: string;
  readonly authority: WorldSigner;
  /** Reserves written at build time (base units). */
  readonly initialReserveA: bigint;
  readonly initialReserveB: bigint;
}

function toRaw(ui: number, decimals: number): bigint {
  // Whole part exactly, fraction to the mint's precision (fixture reserves are plain decimals).
  const whole = Math.floor(ui);
  const frac = Math.round((ui - whole) * 10 ** Math.min(decimals, 9));
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac) * 10n ** BigInt(Math.max(0, decimals - 9));
}

/** Writes the vaults of every fixture pool and returns the pools. */
export async function planPools(args: {
  readonly fixture: readonly FixturePool[];
  readonly mints: ReadonlyMap<string, PoolMintInfo>;
  readonly keys: WorldKeys;
  readonly ledger: WorldLedger;
  readonly nowUnix: number;
}): Promise<WorldPool[]> {
  const pools: WorldPool[] = [];
  for (const p of args.fixture) {
    const a = args.mints.get(p.base);
    const b = args.mints.get(p.quote);
    if (a === undefined || b === undefined) throw new Error(`world: pool ${p.label} mints missing`);
    const authority = args.keys.signer(`pool/${p.label}/authority`);
    const basePrice = p.basePriceUsd ?? a.priceUsd;
    const reserveA = toRaw(p.baseReserveUi, a.decimals);
    const reserveB = toRaw((p.baseReserveUi * basePrice) / b.priceUsd, b.decimals);
    const vaultA = await args.ledger.addTokenAccount({ mint: a.address, owner: authority.address, amount: reserveA });
    const vaultB = await args.ledger.addTokenAccount({ mint: b.address, owner: authority.address, amount: reserveB });
    args.ledger.fundSystemAccount(authority.address, 1_000_000_000n);
    pools.push({
      address: args.keys.address(`pool/${p.label}`),
      label: p.label,
      mintA: a.address,
      mintB: b.address,
      vaultA: vaultA.address,
      vaultB: vaultB.address,
      decimalsA: a.decimals,
      decimalsB: b.decimals,
      programIdA: a.programId,
      programIdB: b.programId,
      feeBps: p.feeBps,
      createdAt: args.nowUnix - Math.round(p.ageHours * 3600),
      authority,
      initialReserveA: reserveA,
      initialReserveB: reserveB,
    });
  }
  return pools;
}

/** Current vault balance, 0 when the vault is missing or unreadable. */
export function vaultBalance(chain: Pick<LocalChain, 'getAccount'>, vault: string): bigint {
  const account = chain.getAccount(vault);
  if (account === null) return 0n;
  const parsed = parseTokenAccount(account.data);
  return parsed.ok ? parsed.state.amount : 0n;
}

/** A `PoolReader` over live chain state; `pools` is read at each call (launches add pools as the chain runs). */
export function createWorldPoolReader(chain: Pick<LocalChain, 'getAccount' | 'slot'>, pools: () => readonly WorldPool[]): PoolReader {
  return {
    pools: (): readonly PoolState[] =>
      pools().map((p) => ({
        address: p.address,
        label: p.label,
        mintA: p.mintA,
        mintB: p.mintB,
        vaultA: p.vaultA,
        vaultB: p.vaultB,
        decimalsA: p.decimalsA,
        decimalsB: p.decimalsB,
        reserveA: vaultBalance(chain, p.vaultA),
        reserveB: vaultBalance(chain, p.vaultB),
        feeBps: p.feeBps,
        createdAt: p.createdAt,
      })),
    slot: () => chain.slot('processed'),
  };
}
