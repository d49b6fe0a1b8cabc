/**
 * The payer's transaction as the Solana scheme reads it: decoded once per payment (the replay key,
 * the shares' payer, verify and settle each read it), and the payer it names.
 */
import { createHash } from 'node:crypto';
import { decodeWireTransaction, type WireTransaction } from '../../chain/solana/svm-wire.ts';
import type { SettleResult } from '../types/scheme-facilitator.ts';
import { decodeOnce } from '../types/scheme-server.ts';
import type { PaymentPayload } from '../types/x402-types.ts';
import { tokenPayer } from './svm-rules.ts';
import { payloadWire } from './svm-settlement-status.ts';
import { SVM_REASON } from './svm-reasons.ts';
import type { SettlementOutcome } from '../stores/source-budget.ts';

/** The payment's transaction and its wire bytes, or null when it does not decode. */
export const decodePayload = decodeOnce((payment: PaymentPayload): { wire: Uint8Array; tx: WireTransaction } | null => {
  const wire = payloadWire(payment);
  if (!wire) return null;
  const decoded = decodeWireTransaction(wire);
  return decoded.ok ? { wire, tx: decoded.tx } : null;
});

/** The payer the payment names, unchecked: its transfer authority (what verification reports as `payer`), or null. */
export function svmPayerOf(payment: PaymentPayload): string | null {
  const decoded = decodePayload(payment);
  return decoded ? tokenPayer(decoded.tx) || null : null;
}

/** Each decoded transaction's key, hashed once: the replay guard, verification and settlement each ask for it. */
const keys = new WeakMap<WireTransaction, string>();

/** The message hash: one message is one payment however many valid signatures exist for it. */
export function keyOf(tx: WireTransaction): string {
  let key = keys.get(tx);
  if (key === undefined) {
    key = `svm:${createHash('sha256').update(tx.messageBytes).digest('hex')}`;
    keys.set(tx, key);
  }
  return key;
}

/** What a settlement did to the payer's tokens, for its reservation. */
export function outcomeOf(result: SettleResult): SettlementOutcome {
  if (result.success || result.errorReason === SVM_REASON.duplicateSettlement) return 'spent';
  return result.errorReason === SVM_REASON.settlementPending ? 'unknown' : 'unspent';
}
