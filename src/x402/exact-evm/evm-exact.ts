/**
 * The `exact` scheme on Base (`eip155:8453`): EIP-3009 TransferWithAuthorization payments,
 * verified off chain (evm-verify.ts) and on chain (the settler), settled by the configured
 * settler. Implements the network-agnostic ExactScheme the payment processor calls.
 */
import type { EvmSettler } from './evm-settler.ts';
import { parseEvmExactPayload, verifyEvmExactOffchain, type EvmVerifyInput } from './evm-verify.ts';
import type { ExactScheme } from '../types/exact-scheme.ts';
import { decodeOnce } from '../types/scheme-server.ts';
import type { BeforeBroadcast, VerifyResult } from '../types/scheme-facilitator.ts';
import { BASE_MAINNET_CAIP2, type PaymentPayload, type PaymentRequirements } from '../types/x402-types.ts';

export interface EvmExactSchemeConfig {
  readonly settler: EvmSettler;
  /** CAIP-2 network served; default `eip155:8453`. */
  readonly network?: string;
  /** Unix seconds; injectable so tests can move the clock. */
  readonly nowSeconds?: () => number;
  /**
   * Runs the off-chain verification. Default: in-process. The payment processor is expected to
   * pass a function that runs `verifyEvmExactOffchain` as a worker-pool task (ECDSA recovery is
   * CPU work and must stay off the event loop); the input is plain, cloneable data.
   */
  readonly verifyOffchain?: (input: EvmVerifyInput, signal: AbortSignal) => Promise<VerifyResult>;
}

/** The payment's EIP-3009 authorization, read once per payment (replayKey, verify and settle each need it). */
const parsePayload = decodeOnce((payment: PaymentPayload) => parseEvmExactPayload(payment.payload));

/** The x402 replay key of an EIP-3009 payment: token, authorizer and nonce, lowercased. */
export function evmReplayKey(payment: PaymentPayload): string | null {
  const parsed = parsePayload(payment);
  if (!parsed.ok || typeof payment.accepted?.asset !== 'string') return null;
  const { from, nonce } = parsed.payload.authorization;
  return `${payment.accepted.asset}:${from}:${nonce}`.toLowerCase();
}

/** Creates the Base exact scheme. */
export function createEvmExactScheme(config: EvmExactSchemeConfig): ExactScheme {
  const network = config.network ?? BASE_MAINNET_CAIP2;
  const now = config.nowSeconds ?? (() => Date.now() / 1000);
  // The service passes the pool's verifyEvmExact task; in-process only for standalone use (tests).
  const verifyOffchain = config.verifyOffchain ?? ((input: EvmVerifyInput) => verifyEvmExactOffchain(input));
  const { settler } = config;
  return {
    network,
    getExtra: () => ({}),
    getSigners: () => settler.signers,
    replayKey: evmReplayKey,
    payerOf(payment) {
      const parsed = parsePayload(payment);
      return parsed.ok ? parsed.payload.authorization.from : null;
    },
    async verify(payment, requirements, signal) {
      const input: EvmVerifyInput = {
        payload: payment.payload,
        acceptedScheme: payment.accepted.scheme,
        acceptedNetwork: payment.accepted.network,
        requirements: {
          scheme: requirements.scheme,
          network: requirements.network,
          amount: requirements.amount,
          asset: requirements.asset,
          payTo: requirements.payTo,
          extra: { ...requirements.extra },
        },
        nowSeconds: now(),
      };
      const offchain = await verifyOffchain(input, signal);
      if (!offchain.isValid) return offchain;
      const parsed = parsePayload(payment);
      if (!parsed.ok) return { isValid: false, invalidReason: parsed.reason, invalidMessage: parsed.message };
      const reading = performance.now();
      const onChain = await settler.verifyOnChain(parsed.payload, payment, requirements, signal);
      return { ...onChain, simulateMs: performance.now() - reading };
    },
    async settle(payment: PaymentPayload, requirements: PaymentRequirements, signal: AbortSignal, beforeBroadcast?: BeforeBroadcast) {
      const parsed = parsePayload(payment);
      if (!parsed.ok) return { success: false, errorReason: parsed.reason, errorMessage: parsed.message, transaction: '', network };
      // No second off-chain pass here: the token contract itself re-checks signature, window and
      // nonce in the transaction, and a refusal comes back as the matching x402 reason.
      return settler.settle(parsed.payload, payment, requirements, signal, beforeBroadcast);
    },
    async settlementStatus(payment, requirements, transaction, signal) {
      const parsed = parsePayload(payment);
      if (!parsed.ok) return { status: 'failed', reason: parsed.reason, message: parsed.message };
      return settler.settlementStatus(parsed.payload, requirements, transaction, payment, signal);
    },
  };
}
