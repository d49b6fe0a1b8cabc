/**
 * The broadcast of a co-signed Solana payment and the wait for its commitment (svm-exact.ts
 * settle). Two ways to send: with the node's preflight (the default: "accepted" means the node
 * simulated it and took it), or handed off (an early answer of a payer with confirmed history,
 * docs/payments.md#the-hand-off): no preflight, and acceptance is reported once the transaction
 * is handed to the RPC, so the answer does not wait for the node's reply. Either way the
 * settlement's result comes from the chain; a handed-off payment that fails is an early answer's
 * loss, which its admission already counted.
 */
import type { RpcClient, RpcCommitment, SendOutcome } from '../../chain/solana/rpc-client.ts';
import type { OnAccepted, SettleResult } from '../types/scheme-facilitator.ts';
import type { SettlementFee } from './svm-fee-payer.ts';
import { refusalReason, SVM_REASON } from './svm-reasons.ts';
import { confirmSignature, type ConfirmStream } from './svm-confirm.ts';

/** What the send needs from the scheme's config. */
export interface SvmSendConfig {
  readonly network: string;
  readonly rpc: RpcClient;
  readonly commitment: RpcCommitment;
  readonly confirmTimeoutMs: number;
  readonly onFee?: (fee: SettlementFee) => void;
  readonly stopping?: AbortSignal;
}

/** One settlement's broadcast: its id, payer, confirmation stream, fee, and whether it is handed off. */
export interface Sending {
  readonly transaction: string;
  readonly payer: string;
  readonly stream: ConfirmStream | null;
  readonly fee: SettlementFee;
  readonly handOff: boolean;
}

function isSendOutcome(value: unknown): value is SendOutcome {
  return typeof value === 'object' && value !== null && 'ok' in value;
}

/** Sends the signed wire and waits for the commitment; `onAccepted` as the node (or, handed off, the RPC) took it. */
export async function sendAndConfirm(config: SvmSendConfig, signed: Uint8Array, sending: Sending, onAccepted?: OnAccepted): Promise<SettleResult> {
  const { network } = config;
  const { transaction, payer, stream, handOff } = sending;
  // From here on the payment may land: the caller's disconnect no longer stops anything.
  const sending_ = config.rpc
    .sendTransaction(Buffer.from(signed).toString('base64'), undefined, handOff ? { skipPreflight: true } : undefined)
    .catch((err: unknown) => err);
  // Handed off: the request is on its way; the early answer need not wait for the node's reply.
  if (handOff) onAccepted?.(transaction);
  const sent = await sending_;
  // Accepted (or maybe accepted: a fault): from here the fee payer may be billed.
  if (!isSendOutcome(sent) || sent.ok) config.onFee?.(sending.fee);
  // A fault (time-out, connection lost) says nothing about whether the node took the transaction:
  // it may still land, so it is pending under the signature we already know, never "failed".
  if (!isSendOutcome(sent)) {
    const message = `send: ${sent instanceof Error ? sent.message : String(sent)}`;
    return { success: false, errorReason: SVM_REASON.settlementPending, errorMessage: message, transaction, network, payer };
  }
  if (!sent.ok) {
    const reason = refusalReason(sent);
    // Refused by the node for what the payment is (its preflight failed): the same payload is refused again from memory.
    const refused = reason === SVM_REASON.simulationFailed || reason === SVM_REASON.signatureInvalid;
    return { success: false, errorReason: reason, errorMessage: sent.message, transaction: '', network, payer, ...(refused ? { refused } : {}) };
  }
  if (!handOff) onAccepted?.(transaction);
  const outcome = await confirmSignature(config.rpc, transaction, config.commitment, config.confirmTimeoutMs, stream, config.stopping);
  if (outcome.status === 'failed')
    return { success: false, errorReason: SVM_REASON.transactionFailed, errorMessage: outcome.message, transaction, network, payer };
  if (outcome.status === 'pending')
    return { success: false, errorReason: SVM_REASON.settlementPending, errorMessage: outcome.message, transaction, network, payer };
  return { success: true, transaction, network, payer };
}
