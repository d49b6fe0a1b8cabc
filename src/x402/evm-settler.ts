/**
 * How an EVM `exact` payment reaches the chain. Two settlers implement one interface: our own
 * relayer (key + RPC, see evm-relayer-settler.ts) or a remote x402 facilitator
 * (evm-facilitator-settler.ts). Both check chain state at verify time and settle for real.
 */
import type { EvmExactPayload } from './evm-verify.ts';
import type { BeforeBroadcast, SettlementStatus, SettleResult, VerifyResult } from './exact-scheme.ts';
import type { PaymentPayload, PaymentRequirements } from './x402-types.ts';

/** Default wait for a settlement receipt, ms (Base makes a block every 2 s). */
export const EVM_SETTLE_TIMEOUT_MS = 30_000;

export interface EvmSettler {
  readonly kind: 'relayer' | 'facilitator';
  /** Addresses that submit settlements (for `/facilitator/supported`). */
  readonly signers: readonly string[];
  /**
   * The chain-state half of verification, after the off-chain half passed: the nonce is unused
   * and the payer holds the amount (a remote facilitator re-verifies everything itself).
   */
  verifyOnChain(parsed: EvmExactPayload, payment: PaymentPayload, requirements: PaymentRequirements, signal: AbortSignal): Promise<VerifyResult>;
  /** Moves the money; resolves once the transfer is mined (or definitively failed). */
  settle(
    parsed: EvmExactPayload,
    payment: PaymentPayload,
    requirements: PaymentRequirements,
    signal: AbortSignal,
    beforeBroadcast?: BeforeBroadcast,
  ): Promise<SettleResult>;
  /** Where a settlement reported `settlement_pending` stands now. */
  settlementStatus(parsed: EvmExactPayload, payment: PaymentPayload, requirements: PaymentRequirements, signal: AbortSignal): Promise<SettlementStatus>;
}

/**
 * A block's timestamp may trail the wall clock; past validBefore by this much, no block can still
 * carry the authorization (the token refuses it at or after validBefore).
 */
export const EVM_EXPIRY_SKEW_SECONDS = 60;
