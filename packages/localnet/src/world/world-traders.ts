/**
 * The block producer's traders: world keypairs funded with SOL and a token account in every pooled
 * mint (about TRADER_USD_PER_MINT worth each), so swaps, tips and transfers can run for hours.
 */
import type { WorldKeys, WorldSigner } from '../signing/world-keys.ts';
import type { WorldLedger } from './world-ledger.ts';
import type { PoolMintInfo, WorldPool } from './world-pools.ts';

/** Traders the producer rotates through. */
export const TRADER_COUNT = 8;
const TRADER_SOL_LAMPORTS = 10_000n * 1_000_000_000n;
const TRADER_USD_PER_MINT = 250_000;

/** A trader and its token account per mint address. */
export interface WorldTrader {
  readonly signer: WorldSigner;
  readonly tokenAccounts: ReadonlyMap<string, string>;
}

/** Writes the traders' SOL and token accounts. */
export async function fundTraders(args: {
  readonly keys: WorldKeys;
  readonly ledger: WorldLedger;
  readonly pools: readonly WorldPool[];
  readonly mints: ReadonlyMap<string, PoolMintInfo>;
}): Promise<WorldTrader[]> {
  const pooled = new Set(args.pools.flatMap((p) => [p.mintA, p.mintB]));
  const infos = [...args.mints.values()].filter((m) => pooled.has(m.address));
  const traders: WorldTrader[] = [];
  for (let i = 0; i < TRADER_COUNT; i += 1) {
    const signer = args.keys.signer(`trader/${i}`);
    args.ledger.fundSystemAccount(signer.address, TRADER_SOL_LAMPORTS);
    const tokenAccounts = new Map<string, string>();
    for (const m of infos) {
      // Unpriced mints (the local rug token) get a fixed whole-token balance instead.
      const whole = m.priceUsd > 0 ? Math.max(1, Math.floor(TRADER_USD_PER_MINT / m.priceUsd)) : 10_000_000;
      const holding = await args.ledger.addTokenAccount({ mint: m.address, owner: signer.address, amount: BigInt(whole) * 10n ** BigInt(m.decimals) });
      tokenAccounts.set(m.address, holding.address);
    }
    traders.push({ signer, tokenAccounts });
  }
  return traders;
}
