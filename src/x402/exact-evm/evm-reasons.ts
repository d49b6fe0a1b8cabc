/**
 * x402 reason codes of the `exact` scheme on EVM, spelled as `@x402/evm`'s facilitator spells
 * them (src/exact/facilitator/errors.ts of that package), so clients and the reference
 * facilitator read our answers the same way. Plus the mapping of a token revert to a reason.
 */

export const EVM_REASONS = {
  invalidPayload: 'invalid_payload',
  unsupportedPayloadType: 'unsupported_payload_type',
  invalidScheme: 'invalid_exact_evm_scheme',
  networkMismatch: 'invalid_exact_evm_network_mismatch',
  missingEip712Domain: 'invalid_exact_evm_missing_eip712_domain',
  recipientMismatch: 'invalid_exact_evm_recipient_mismatch',
  invalidSignature: 'invalid_exact_evm_signature',
  failedToParseSignature: 'invalid_exact_evm_failed_to_parse_signature',
  validBeforeExpired: 'invalid_exact_evm_payload_authorization_valid_before',
  validAfterInFuture: 'invalid_exact_evm_payload_authorization_valid_after',
  invalidAuthorizationValue: 'invalid_exact_evm_authorization_value',
  authorizationValueMismatch: 'invalid_exact_evm_payload_authorization_value_mismatch',
  eip3009NotSupported: 'invalid_exact_evm_eip3009_not_supported',
  nonceAlreadyUsed: 'invalid_exact_evm_nonce_already_used',
  insufficientBalance: 'invalid_exact_evm_insufficient_balance',
  transactionFailed: 'invalid_exact_evm_transaction_failed',
  transferEventMismatch: 'invalid_exact_evm_transfer_event_mismatch',
  settlementPending: 'settlement_pending',
  /** Ours, as on Solana: the payer's settlements in flight already use the balance its verification read. */
  payerBusy: 'payer_busy',
  /** Not the payer's fault: the chain RPC or facilitator could not be asked. */
  unexpectedVerifyError: 'unexpected_verify_error',
  unexpectedSettleError: 'unexpected_settle_error',
} as const;

/**
 * The reason behind a reverted or refused `transferWithAuthorization`, from the node's error
 * text. Matches both LocalUsdc's revert strings and Base USDC's (FiatTokenV2) ones.
 */
export function reasonOfTransferError(message: string): string {
  // Nonce first: node error texts may echo the call's arguments (validBefore ...) after the reason.
  if (/authorization is used|AuthorizationUsed|AuthorizationAlreadyUsed/i.test(message)) return EVM_REASONS.nonceAlreadyUsed;
  if (/authorization is expired|AuthorizationExpired/i.test(message)) return EVM_REASONS.validBeforeExpired;
  if (/authorization is not yet valid|AuthorizationNotYetValid/i.test(message)) return EVM_REASONS.validAfterInFuture;
  if (/exceeds balance|insufficient balance|InsufficientBalance/i.test(message)) return EVM_REASONS.insufficientBalance;
  if (/invalid signature|SignerMismatch|InvalidSignature/i.test(message)) return EVM_REASONS.invalidSignature;
  return EVM_REASONS.transactionFailed;
}
