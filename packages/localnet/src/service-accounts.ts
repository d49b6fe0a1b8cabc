/**
 * The service's own Solana accounts on a fresh localnet: before the first payment the fee payer
 * gets SOL (it pays every settlement's fee) and payTo gets its stablecoin account (the x402
 * client transfers to it but never creates it). On mainnet both are the operator's job.
 */
import type { LocalChain } from './chain/local-chain.ts';
import type { StablecoinFaucetConfig } from './rpc/rpc-context.ts';
import { fundStablecoin } from './rpc/stablecoin-faucet.ts';

/** 10 SOL: fees of ~2 million settlements at 5000 lamports each. */
export const SERVICE_FEE_PAYER_LAMPORTS = 10_000_000_000n;

/** The two addresses the service settles with. */
export interface ServiceAccounts {
  readonly feePayer: string;
  readonly payTo: string;
}

/** Funds the fee payer, then creates payTo's stablecoin account, through the localnet faucets. */
export async function prepareServiceAccounts(chain: LocalChain, faucet: StablecoinFaucetConfig, accounts: ServiceAccounts): Promise<void> {
  const drop = chain.airdrop(accounts.feePayer, SERVICE_FEE_PAYER_LAMPORTS);
  if (!drop.ok) throw new Error(`fee payer airdrop failed: ${drop.message}`);
  // Minting zero units is how the faucet creates the associated token account alone.
  await fundStablecoin(chain, faucet, accounts.payTo, 0n);
}
