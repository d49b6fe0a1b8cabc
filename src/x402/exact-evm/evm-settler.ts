/**
 * How an EVM `exact` payment reaches the chain. Two settlers implement one interface: our own
 * relayer (key + RPC, see evm-relayer-settler.ts) or a remote x402 facilitator
 * (evm-facilitator-settler.ts). Both check chain state at verify time and settle for real.
 */
import type { TransferReceipt } from '../../chain/evm/evm-transfer-receipt.ts';
import { EVM_REASONS } from './evm-reasons.ts';
import type { EvmExactPayload } from './evm-verify.ts';
import type { BeforeBroadcast, SettlementStatus, SettleResult, VerifyResult } from '../types/scheme-facilitator.ts';
import type { PaymentPayload, PaymentRequirements } from '../types/x402-types.ts';

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
  /**
   * Where a settlement reported `settlement_pending` stands now; `transaction` is the hash it
   * recorded ('' when none). Landed means that transaction's receipt shows the payment, never a used nonce alone.
   */
  settlementStatus(
    parsed: EvmExactPayload,
    requirements: PaymentRequirements,
    transaction: string,
    payment: PaymentPayload,
    signal: AbortSignal,
  ): Promise<SettlementStatus>;
}

/**
 * A block's timestamp may trail the wall clock; past validBefore by this much, no block can still
 * carry the authorization (the token refuses it at or after validBefore).
 */
export const EVM_EXPIRY_SKEW_SECONDS = 60;

/** Where a pending settlement stands, from our transaction's receipt and the nonce's state. */
export function pendingStatusOf(found: TransferReceipt, nonceUsed: boolean, expired: boolean): SettlementStatus {
  if (found.kind === 'unreadable') return { status: 'pending', message: `receipt unreadable: ${found.message}` };
  if (found.kind === 'found') {
    if (found.ok) return { status: 'landed' };
    const reason = found.status === 'reverted' ? EVM_REASONS.transactionFailed : EVM_REASONS.transferEventMismatch;
    return { status: 'failed', reason, message: found.message };
  }
  if (nonceUsed)
    return {
      status: 'failed',
      reason: EVM_REASONS.nonceAlreadyUsed,
      message: 'the authorization nonce was used by another transaction (cancelled or spent elsewhere); this payment did not reach payTo',
    };
  if (expired) return { status: 'failed', reason: EVM_REASONS.validBeforeExpired, message: 'the authorization expired before any transaction used it' };
  return { status: 'pending', message: 'our transaction has no receipt yet' };
}
