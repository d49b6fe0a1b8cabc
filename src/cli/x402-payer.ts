/**
 * Paying from the terminal with the official x402 client: `@x402/fetch` answers the 402, the
 * `exact` scheme of `@x402/svm` (a kit signer) or `@x402/evm` (a viem account) signs. The only
 * module of the CLI that imports them. One network is registered, so the client can only choose
 * the option the user asked for, and a hook that runs before anything is signed refuses a price
 * above the cap: a refused call has signed nothing.
 */
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { MAINNET_RPC_URL } from '@x402/svm';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { evmAccountFromKey } from '../chain/evm-key-file.ts';
import type { KeyPairSigner } from '../chain/solana-keypair-file.ts';
import { withinMaxPrice } from './usd-amount.ts';

/** The public Solana mainnet RPC the official SVM client uses when given none. */
export const SOLANA_MAINNET_RPC_URL: string = MAINNET_RPC_URL;

/** Who pays: a Solana keypair, or an EVM account paying on Base. */
export type PayerKey =
  | { readonly network: 'solana'; readonly signer: KeyPairSigner }
  | { readonly network: 'base'; readonly account: ReturnType<typeof evmAccountFromKey> };

/** What the paying fetch is built from. */
export interface PayerConfig {
  readonly key: PayerKey;
  /** Solana RPC the SVM client reads the mint and blockhash from (the localnet's, or mainnet). */
  readonly svmRpcUrl: string;
  /** Highest amount paid, in base units of the 6-decimal stablecoin. */
  readonly maxUnits: bigint;
  /**
   * Accept any asset the 402 names (the embedded localnet's stablecoin is none the official client
   * knows). Only for a service on this machine: elsewhere only the client's known USDC is paid.
   */
  readonly anyAsset: boolean;
}

/** What the 402 asked for when the hook refused to pay. */
export interface PriceRefusal {
  readonly amount: string;
  readonly network: string;
  readonly asset: string;
}

/** The paying fetch and what it refused. */
export interface Payer {
  /** `fetch` that pays a 402 once, under the cap. */
  readonly fetch: typeof fetch;
  /** The refused terms, once the hook has refused (null until then). */
  refusal(): PriceRefusal | null;
}

/** The paying fetch for `config`. */
export function createPayer(config: PayerConfig): Payer {
  let refused: PriceRefusal | null = null;
  const client = new x402Client();
  // The cap is ours (maxUnits, checked below for every asset); the client's own USD cap would refuse first with another message.
  client.setSpendControls(config.anyAsset ? { maxAmountPerPayment: false, allowedAssets: true } : { maxAmountPerPayment: false });
  if (config.key.network === 'solana') client.register('solana:*', new ExactSvmScheme(config.key.signer, { rpcUrl: config.svmRpcUrl }));
  else client.register('eip155:*', new ExactEvmScheme(config.key.account));
  client.onBeforePaymentCreation(async ({ selectedRequirements: r }) => {
    if (withinMaxPrice(r.amount, config.maxUnits)) return;
    refused = { amount: String(r.amount), network: r.network, asset: r.asset };
    return { abort: true, reason: 'the price is above --max-price' };
  });
  return { fetch: wrapFetchWithPayment(fetch, client) as typeof fetch, refusal: () => refused };
}

/** The settlement a PAYMENT-RESPONSE header reports, or null when it is absent or unreadable. */
export interface Settlement {
  readonly success: boolean;
  readonly transaction: string;
  readonly network: string;
  readonly payer: string | null;
  readonly errorReason: string | null;
}

/** Decodes PAYMENT-RESPONSE with the official client's decoder. */
export function decodeSettlement(header: string | null): Settlement | null {
  if (!header) return null;
  try {
    const s = decodePaymentResponseHeader(header);
    return {
      success: s.success === true,
      transaction: String(s.transaction ?? ''),
      network: String(s.network ?? ''),
      payer: typeof s.payer === 'string' ? s.payer : null,
      errorReason: typeof s.errorReason === 'string' ? s.errorReason : null,
    };
  } catch {
    return null;
  }
}
