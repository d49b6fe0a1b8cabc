/**
 * x402 exact-SVM reason codes, spelled as the reference facilitator (@x402/svm) reports them, so
 * clients that branch on `invalidReason` / `errorReason` see the same codes from us.
 */
export const SVM_REASON = {
  unsupportedScheme: 'invalid_exact_svm_unsupported_scheme',
  networkMismatch: 'invalid_exact_svm_network_mismatch',
  missingFeePayer: 'invalid_exact_svm_payload_missing_fee_payer',
  feePayerNotManaged: 'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
  feePayerMismatch: 'invalid_exact_svm_fee_payer_mismatch',
  couldNotBeDecoded: 'invalid_exact_svm_payload_transaction_could_not_be_decoded',
  signatureInvalid: 'invalid_exact_svm_payload_signature_invalid',
  excessiveSigners: 'invalid_exact_svm_payload_excessive_signers',
  altUnavailable: 'invalid_exact_svm_smart_wallet_alt_resolution_not_available',
  instructionsLength: 'invalid_exact_svm_payload_transaction_instructions_length',
  computeLimit: 'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction',
  computeLimitTooHigh: 'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high',
  computePrice: 'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction',
  computePriceTooHigh: 'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high',
  /** Ours: compute-unit limit x price over the per-settlement priority-fee ceiling (the reference caps the price alone). */
  priorityFeeTooHigh: 'invalid_exact_svm_payload_transaction_priority_fee_too_high',
  noTransfer: 'invalid_exact_svm_payload_no_transfer_instruction',
  feePayerTransferringFunds: 'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
  mintMismatch: 'invalid_exact_svm_payload_mint_mismatch',
  recipientMismatch: 'invalid_exact_svm_payload_recipient_mismatch',
  amountMismatch: 'invalid_exact_svm_payload_amount_mismatch',
  unknownFourth: 'invalid_exact_svm_payload_unknown_fourth_instruction',
  unknownFifth: 'invalid_exact_svm_payload_unknown_fifth_instruction',
  unknownSixth: 'invalid_exact_svm_payload_unknown_sixth_instruction',
  unknownSeventh: 'invalid_exact_svm_payload_unknown_seventh_instruction',
  simulationFailed: 'invalid_exact_svm_transaction_simulation_failed',
  transactionFailed: 'invalid_exact_svm_transaction_failed',
  /** Ours: a pending settlement that can no longer land (no reference code exists for it). */
  blockhashExpired: 'invalid_exact_svm_transaction_expired',
  /**
   * Ours: this payer's token account is already committed, by settlements of ours in flight, up to
   * the balance read when the payment was verified; nothing was signed or sent.
   */
  payerBusy: 'payer_busy',
  settlementPending: 'settlement_pending',
  duplicateSettlement: 'duplicate_settlement',
} as const;

export type SvmReason = (typeof SVM_REASON)[keyof typeof SVM_REASON];

/** Agave's codes of a send refused before broadcast: its preflight simulation failed, or a signature did not verify. */
const PREFLIGHT_FAILED = -32002;
const SIGNATURE_VERIFICATION_FAILED = -32003;

/**
 * The x402 reason of a send the node refused: with the simulation gone from verification, a failed
 * preflight is what a failed simulation was (the same reason as before), a bad signature the same
 * as verification's; a transaction already processed is a duplicate; anything else failed.
 */
export function refusalReason(sent: { readonly code: number; readonly message: string }): string {
  if (/AlreadyProcessed|already been processed/i.test(sent.message)) return SVM_REASON.duplicateSettlement;
  if (sent.code === PREFLIGHT_FAILED || /^Transaction simulation failed/i.test(sent.message)) return SVM_REASON.simulationFailed;
  if (sent.code === SIGNATURE_VERIFICATION_FAILED) return SVM_REASON.signatureInvalid;
  return SVM_REASON.transactionFailed;
}
