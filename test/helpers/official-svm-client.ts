/**
 * The official x402 client (`@x402/fetch` + `@x402/svm`) paying from a test payer against the
 * localnet. The localnet stablecoin is not one of the SDK's default assets, so it is allowed
 * explicitly; the RPC URL is given so the SDK never reaches for public mainnet.
 */
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { TestPayer } from './svm-payer.ts';

/** Where the payer pays: the localnet RPC and its stablecoin mint. */
export interface SvmPayTarget {
  readonly rpcUrl: string;
  readonly stablecoinMint: string;
}

/** CAIP-2 id of Solana mainnet, the network the service's challenges name. */
export const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

/** An x402 client that signs exact-SVM payments of up to 1 USDC from `payer`. */
export function officialSvmClient(payer: TestPayer, target: SvmPayTarget): x402Client {
  const client = new x402Client();
  client.setSpendControls({ allowedAssets: [{ network: SOLANA, asset: target.stablecoinMint, maxAmountPerPayment: '1000000' }] });
  client.register('solana:*', new ExactSvmScheme(payer.signer, { rpcUrl: target.rpcUrl }));
  return client;
}

/** `fetch` that answers 402 challenges by paying from `payer`; `base` makes its requests (default the global fetch). */
export function officialSvmFetch(payer: TestPayer, target: SvmPayTarget, base: typeof fetch = fetch): typeof fetch {
  return wrapFetchWithPayment(base, officialSvmClient(payer, target)) as typeof fetch;
}
