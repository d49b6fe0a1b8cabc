/**
 * Who pays from the terminal, and what a PAYMENT-RESPONSE said. `call` pays through the client
 * library (src/client: the payment goes with the first request, built by the official x402
 * schemes), so this module holds only the payer's key as the CLI reads it and the settlement's
 * reading with the official client's decoder.
 */
import { decodePaymentResponseHeader } from '@x402/fetch';
import type { evmAccountFromKey, EvmHexKey } from '../chain/keys/evm-key-file.ts';
import type { KeyPairSigner } from '../chain/keys/solana-keypair-file.ts';
export { SOLANA_MAINNET_RPC_URL } from '../client/exact-lanes.ts';

/** Who pays: a Solana keypair, or an EVM key paying on Base. */
export type PayerKey =
  | { readonly network: 'solana'; readonly signer: KeyPairSigner }
  | { readonly network: 'base'; readonly key: EvmHexKey; readonly account: ReturnType<typeof evmAccountFromKey> };

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
