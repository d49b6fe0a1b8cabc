/**
 * Holder distributions of the world's mints: flat, one dominant holder, a single holder, the burn
 * address holding a large share, and a stablecoin with more token accounts than anyone should
 * snapshot. Amounts are exact integers so shares computed from chain data are the intended ones.
 */
import type { AccountStateName } from '../encoding/token-layout.ts';
import type { HolderShape } from './world-fixture.ts';
import type { Prng, WorldKeys } from '../signing/world-keys.ts';
import type { TokenHolding, WorldLedger } from './world-ledger.ts';

/** Shares in basis points of the total for each holder of `shape` (sums to 10000). */
export function holderSharesBps(shape: HolderShape, holders: number): number[] {
  if (holders < 1) throw new RangeError('at least one holder');
  if (shape === 'single' || holders === 1) return [10_000];
  const even = (total: number, n: number): number[] => {
    const base = Math.floor(total / n);
    return Array.from({ length: n }, (_, i) => base + (i < total - base * n ? 1 : 0));
  };
  if (shape === 'flat') return even(10_000, holders);
  const lead = shape === 'top1-60pct' ? 6000 : 4000;
  return [lead, ...even(10_000 - lead, holders - 1)];
}

/** Writes one distribution of `total` base units; the burn address leads `burn-40pct`. */
export async function distributeHolders(args: {
  readonly ledger: WorldLedger;
  readonly keys: WorldKeys;
  readonly mint: string;
  readonly label: string;
  readonly shape: HolderShape;
  readonly holders: number;
  readonly total: bigint;
  readonly burnAddress: string;
  readonly state?: AccountStateName;
}): Promise<TokenHolding[]> {
  const shares = holderSharesBps(args.shape, args.holders);
  const out: TokenHolding[] = [];
  let assigned = 0n;
  for (const [i, bps] of shares.entries()) {
    const last = i === shares.length - 1;
    // The last holder takes the rounding remainder so the accounts sum to `total` exactly.
    const amount = last ? args.total - assigned : (args.total * BigInt(bps)) / 10_000n;
    assigned += amount;
    const owner = args.shape === 'burn-40pct' && i === 0 ? args.burnAddress : args.keys.address(`holders/${args.label}/${i}`);
    out.push(await args.ledger.addTokenAccount({ mint: args.mint, owner, amount, ...(args.state ? { state: args.state } : {}) }));
  }
  return out;
}

/**
 * Writes `count` token accounts of `mint` with log-uniform balances (1 to 1e6 whole tokens) at
 * synthetic addresses; no ATA derivation, so thousands take milliseconds.
 */
export async function writeManyHolders(args: {
  readonly ledger: WorldLedger;
  readonly keys: WorldKeys;
  readonly prng: Prng;
  readonly mint: string;
  readonly decimals: number;
  readonly count: number;
}): Promise<number> {
  const unit = 10n ** BigInt(args.decimals);
  for (let i = 0; i < args.count; i += 1) {
    const whole = BigInt(Math.floor(args.prng.logUniform(1, 1_000_000)));
    await args.ledger.addTokenAccount({
      mint: args.mint,
      owner: args.keys.address(`large/${i}/owner`),
      address: args.keys.address(`large/${i}/account`),
      amount: whole * unit,
    });
  }
  return args.count;
}
