/**
 * What every localnet RPC method receives, and the `RpcResponse` envelope Agave wraps
 * context-bearing results in.
 */
import type { TransactionSigner } from '@solana/kit';
import type { LocalChain } from '../chain/local-chain.ts';
import { LOCALNET_CORE_VERSION } from '../chain/commitment-view.ts';
import { classifyTokenData, parseMintBase } from '../encoding/token-layout.ts';

/** The local x402 stablecoin and the key allowed to mint it (for `localnet_fundStablecoin`). */
export interface StablecoinFaucetConfig {
  readonly mint: string;
  readonly mintAuthority: TransactionSigner;
}

/** Shared state of the RPC methods. */
export interface RpcContext {
  readonly chain: LocalChain;
  readonly faucet: StablecoinFaucetConfig | null;
  /** Mints with more token accounts than this answer -32010 for getTokenLargestAccounts, as mainnet nodes do for huge mints. */
  readonly largestAccountsScanLimit: number;
  /** Mints a mainnet node excludes from its secondary indexes (e.g. USDC, USDT): -32010 as well. */
  readonly excludedFromSecondaryIndexes: ReadonlySet<string>;
}

/** A method: positional params in, JSON-able result out (bigints become JSON numbers). */
export type RpcMethod = (params: unknown[], ctx: RpcContext) => unknown;

/** Agave's `{ context: { slot, apiVersion }, value }`. */
export function rpcResponse(slot: bigint, value: unknown): { context: { slot: bigint; apiVersion: string }; value: unknown } {
  return { context: { slot, apiVersion: LOCALNET_CORE_VERSION }, value };
}

/** Decimals of a mint from chain state (null when the address is not a mint). */
export function mintDecimals(chain: LocalChain, mint: string): number | null {
  const account = chain.getAccount(mint);
  if (!account || classifyTokenData(account.owner, account.data) !== 'mint') return null;
  return parseMintBase(account.data).decimals;
}

/** A memoizing decimals reader for one request. */
export function decimalsReader(chain: LocalChain): (mint: string) => number | null {
  const cache = new Map<string, number | null>();
  return (mint) => {
    if (!cache.has(mint)) cache.set(mint, mintDecimals(chain, mint));
    return cache.get(mint) ?? null;
  };
}
