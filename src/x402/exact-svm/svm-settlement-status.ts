/**
 * Where a Solana settlement reported `settlement_pending` stands now (the retry of the same
 * payment asks): landed at the configured commitment, failed on chain, never landing (its
 * blockhash expired), or still pending. Also the strict base64 reading of the payment's
 * transaction both this and the scheme use.
 */
import type { RpcClient, RpcCommitment } from '../../chain/solana/rpc-client.ts';
import type { SettlementStatus } from '../types/scheme-facilitator.ts';
import { SVM_REASON } from './svm-reasons.ts';
import type { PaymentPayload, PaymentRequirements } from '../types/x402-types.ts';

const BASE64_RE = /^[A-Za-z0-9+/]+={0,2}$/;
const COMMITMENT_RANK: Readonly<Record<RpcCommitment, number>> = { processed: 0, confirmed: 1, finalized: 2 };

/** The wire bytes of `payload.transaction`, or null when it is not strict base64. */
export function payloadWire(payment: PaymentPayload): Uint8Array | null {
  const text = payment.payload.transaction;
  if (typeof text !== 'string' || text.length % 4 !== 0 || !BASE64_RE.test(text)) return null;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** The scheme's `settlementStatus` over this RPC and commitment. */
export function createSvmSettlementStatus(rpc: Pick<RpcClient, 'simulateTransaction' | 'getSignatureStatus'>, commitment: RpcCommitment) {
  /**
   * Blockhash first, then status: once the blockhash is no longer valid the transaction can never
   * land, so a status read after that is final (read the other way round, it could land between).
   */
  return async function settlementStatus(
    payment: PaymentPayload,
    _requirements: PaymentRequirements,
    transaction: string,
    signal: AbortSignal,
  ): Promise<SettlementStatus> {
    const wire = payloadWire(payment);
    if (!wire) return { status: 'failed', reason: SVM_REASON.couldNotBeDecoded, message: 'the payment transaction cannot be decoded' };
    const sim = await rpc.simulateTransaction(Buffer.from(wire).toString('base64'), signal);
    const expired = sim.ok ? JSON.stringify(sim.err ?? null).includes('BlockhashNotFound') : /BlockhashNotFound|blockhash not found/i.test(sim.message);
    // The node's recent status cache holds about two minutes of slots; a transaction's blockhash
    // lives about one. Past the blockhash, a status the cache no longer holds is asked of the
    // ledger before "never landed" is concluded: that answer frees the payment to be made again
    // (refused, its record dropped), and a payment that landed would then be charged without its
    // answer; one that failed on chain would read as our loss and bar nobody.
    const cached = await rpc.getSignatureStatus(transaction, signal);
    const status = cached === null && expired ? await rpc.getSignatureStatus(transaction, signal, { searchHistory: true }) : cached;
    if (status?.err) return { status: 'failed', reason: SVM_REASON.transactionFailed, message: `failed on chain: ${JSON.stringify(status.err)}` };
    if (status?.confirmationStatus && COMMITMENT_RANK[status.confirmationStatus] >= COMMITMENT_RANK[commitment]) return { status: 'landed' };
    if (status === null && expired)
      return {
        status: 'failed',
        reason: SVM_REASON.blockhashExpired,
        message: 'the transaction never landed and its blockhash has expired',
        neverLanded: true,
      };
    return { status: 'pending', message: status ? `at ${status.confirmationStatus ?? 'unknown'}, waiting for ${commitment}` : 'not seen yet' };
  };
}
