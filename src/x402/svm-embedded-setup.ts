/**
 * Embedded mode only: the localnet starts empty for the service, so before the first payment the
 * fee payer gets SOL (it pays every settlement's fee) and payTo gets its stablecoin account (the
 * x402 client transfers to it but never creates it). On mainnet both are the operator's job.
 */
import type { RpcClient } from '../chain/rpc-client.ts';

/** 10 SOL: fees of ~2 million settlements at 5000 lamports each. */
export const EMBEDDED_FEE_PAYER_LAMPORTS = 10_000_000_000n;

/** Funds the fee payer and creates payTo's stablecoin account through the localnet faucets. */
export async function prepareEmbeddedSvmAccounts(rpc: Pick<RpcClient, 'requestAirdrop' | 'localnetFundStablecoin'>, accounts: { readonly feePayer: string; readonly payTo: string }): Promise<void> {
  await rpc.requestAirdrop(accounts.feePayer, EMBEDDED_FEE_PAYER_LAMPORTS);
  // Minting zero units is how the faucet creates the associated token account alone.
  await rpc.localnetFundStablecoin(accounts.payTo, 0n);
}
