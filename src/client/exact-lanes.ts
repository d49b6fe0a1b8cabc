/**
 * The `exact` lanes: one payment per call, built by the official x402 schemes. On Solana
 * (`@x402/svm`) a transfer transaction the payer signs and our service co-signs as fee payer; its
 * blockhash comes from the payer's RPC (the official scheme asks it for each payment, and the mint
 * once). On Base (`@x402/evm`) an EIP-3009 `transferWithAuthorization` the payer signs. Calls at
 * or below the service's early ceiling are answered once the Solana transaction is accepted by
 * the RPC, before its confirmation (the answer's PAYMENT-RESPONSE then says `settlement:
 * "submitted"`): that is the service's choice, nothing to ask for here.
 */
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { MAINNET_RPC_URL } from '@x402/svm';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { evmAccountFromKey } from '../chain/keys/evm-key-file.ts';
import type { KeyPairSigner } from '../chain/keys/solana-keypair-file.ts';
import { assetAllowed, assetRefused, type PaymentLane, STATELESS_FINISH } from './payment-lane.ts';
import type { Terms } from './x402-wire.ts';

/** The public Solana mainnet RPC the official Solana scheme uses when given none. */
export const SOLANA_MAINNET_RPC_URL: string = MAINNET_RPC_URL;

/** The official scheme's signing call, typed as this module hands it terms. */
type CreatePayload = (version: number, terms: never) => Promise<{ readonly payload: Record<string, unknown> }>;

/** A lane over one official `exact` scheme. */
function exactLane(name: PaymentLane['name'], prefix: string, scheme: ExactSvmScheme | ExactEvmScheme, anyAsset: boolean): PaymentLane {
  const create = scheme.createPaymentPayload.bind(scheme) as unknown as CreatePayload;
  const find = scheme.findDefaultAsset as ((asset: string, network: `${string}:${string}`) => unknown) | undefined;
  return {
    name,
    pick: (accepts) => accepts.find((t) => t.scheme === 'exact' && t.network.startsWith(prefix)) ?? null,
    async prepare(terms: Terms) {
      if (!assetAllowed(terms, anyAsset, find)) return assetRefused(terms);
      const { payload } = await create(2, terms as never);
      return { ok: true, payment: { payload, depositUnits: 0n, finish: STATELESS_FINISH } };
    },
  };
}

/** `exact` on Solana with a kit signer; `rpcUrl` is the chain the payer's blockhash and mint come from. */
export function createSolanaExactLane(signer: KeyPairSigner, rpcUrl: string, anyAsset: boolean): PaymentLane {
  return exactLane('solana-exact', 'solana:', new ExactSvmScheme(signer, { rpcUrl }), anyAsset);
}

/** `exact` on Base with a viem account. */
export function createBaseExactLane(account: ReturnType<typeof evmAccountFromKey>, anyAsset: boolean): PaymentLane {
  return exactLane('base-exact', 'eip155:', new ExactEvmScheme(account), anyAsset);
}
