/**
 * The sentence a client reads beside each x402 reason code (`invalidReason`, `errorReason`) when a
 * refusal's own text came from a library, an upstream or a facilitator (a viem error carries the RPC
 * URL and the request; a facilitator's text is whatever it wrote): the code says what went wrong,
 * the sentence is ours and fixed, and the text goes to the log. The codes are the schemes' own lists
 * (svm-reasons.ts, evm-reasons.ts, channel-payload.ts), spelled as the x402 reference packages do;
 * test/unit/x402/reason-messages.test.ts holds this table to them.
 */
import { oneLine } from '../../errors.ts';

const PLAIN_REASON_RE = /^[a-z][a-z0-9_]{0,99}$/;

export const PAYMENT_REASON_MESSAGE: Readonly<Record<string, string>> = {
  invalid_payload: 'The payment payload cannot be read.',
  unsupported_payload_type: 'The payment payload is of a type this scheme does not take.',
  invalid_exact_svm_unsupported_scheme: 'The payment is not for the exact scheme.',
  invalid_exact_svm_network_mismatch: 'The payment is for another network.',
  invalid_exact_svm_payload_missing_fee_payer: 'The payment transaction names no fee payer.',
  invalid_exact_svm_fee_payer_not_managed_by_facilitator: 'The fee payer is not ours.',
  invalid_exact_svm_fee_payer_mismatch: 'The fee payer is not the one our terms name.',
  invalid_exact_svm_payload_transaction_could_not_be_decoded: 'The payment transaction cannot be decoded.',
  invalid_exact_svm_payload_signature_invalid: 'A signature of the payment transaction is missing or invalid.',
  invalid_exact_svm_smart_wallet_alt_resolution_not_available: 'The payment transaction uses address lookup tables, which are not accepted.',
  invalid_exact_svm_payload_transaction_instructions_length: 'The payment transaction has the wrong number of instructions.',
  invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction: "The payment transaction's compute limit instruction is missing or invalid.",
  invalid_exact_svm_payload_transaction_instructions_compute_price_instruction: "The payment transaction's compute price instruction is missing or invalid.",
  invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high: 'The payment transaction asks too high a compute price.',
  invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high:
    'The payment transaction asks more compute units than a transfer needs.',
  invalid_exact_svm_payload_transaction_priority_fee_too_high: "The payment transaction's priority fee (compute limit times price) is above our ceiling.",
  invalid_exact_svm_payload_excessive_signers: 'The payment transaction needs more signatures than a transfer does.',
  payer_busy: "The payer's settlements in flight already use its balance; retry once they land.",
  invalid_exact_svm_payload_no_transfer_instruction: 'The payment transaction has no token transfer.',
  invalid_exact_svm_payload_transaction_fee_payer_transferring_funds: 'The payment transaction moves funds of the fee payer.',
  invalid_exact_svm_payload_mint_mismatch: 'The payment transfers another token than the one asked.',
  invalid_exact_svm_payload_recipient_mismatch: 'The payment transfers to another account than the one asked.',
  invalid_exact_svm_payload_amount_mismatch: 'The payment transfers another amount than the price.',
  invalid_exact_svm_payload_unknown_fourth_instruction: 'The payment transaction has an instruction that is not allowed.',
  invalid_exact_svm_payload_unknown_fifth_instruction: 'The payment transaction has an instruction that is not allowed.',
  invalid_exact_svm_payload_unknown_sixth_instruction: 'The payment transaction has an instruction that is not allowed.',
  invalid_exact_svm_payload_unknown_seventh_instruction: 'The payment transaction has an instruction that is not allowed.',
  invalid_exact_svm_transaction_simulation_failed: 'The payment transaction failed its simulation, or the simulation could not be run.',
  invalid_exact_svm_transaction_failed: 'The payment transaction failed on chain; nothing was charged.',
  invalid_exact_svm_transaction_expired: 'The payment transaction can no longer land (its blockhash expired); nothing was charged.',
  settlement_pending: 'The payment was sent and has not reached the commitment yet; retry this same payment.',
  duplicate_settlement: 'This payment was already settled or is being settled.',
  invalid_exact_evm_scheme: 'The payment is not for the exact scheme.',
  invalid_exact_evm_network_mismatch: 'The payment is for another network.',
  invalid_exact_evm_missing_eip712_domain: "The terms' EIP-712 domain is missing.",
  invalid_exact_evm_recipient_mismatch: 'The authorization pays another address than the one asked.',
  invalid_exact_evm_signature: 'The authorization signature is invalid.',
  invalid_exact_evm_failed_to_parse_signature: 'The authorization signature cannot be read.',
  invalid_exact_evm_payload_authorization_valid_before: 'The authorization has expired or expires too soon.',
  invalid_exact_evm_payload_authorization_valid_after: 'The authorization is not valid yet.',
  invalid_exact_evm_authorization_value: 'The authorization value is invalid.',
  invalid_exact_evm_payload_authorization_value_mismatch: 'The authorization value is not the price.',
  invalid_exact_evm_eip3009_not_supported: 'The token does not support transferWithAuthorization.',
  invalid_exact_evm_nonce_already_used: 'This authorization nonce is already used on chain.',
  invalid_exact_evm_insufficient_balance: "The payer's balance is below the price.",
  invalid_exact_evm_transaction_failed: 'The transfer failed on chain; nothing was charged.',
  invalid_exact_evm_transfer_event_mismatch: 'The transfer on chain is not the one authorized.',
  unexpected_verify_error: 'The payment could not be checked (the chain or the facilitator did not answer); nothing was charged; retry later.',
  unexpected_settle_error: 'The payment could not be settled (the chain or the facilitator did not answer); nothing was charged; retry later.',
  invalid_batch_settlement_evm_payload_type: 'The channel payload is of an unknown type.',
  invalid_batch_settlement_evm_voucher_payload: 'The voucher payload cannot be read.',
  invalid_batch_settlement_evm_deposit_payload: 'The deposit payload cannot be read.',
  invalid_batch_settlement_evm_refund_payload: 'The refund payload cannot be read.',
  invalid_batch_settlement_evm_channel_id_mismatch: "The channel id is not that of the channel's config.",
  invalid_batch_settlement_evm_voucher_signature: 'The voucher signature is invalid.',
  invalid_batch_settlement_evm_cumulative_amount_mismatch: 'The voucher amount is not our charge plus the price.',
  invalid_batch_settlement_evm_cumulative_exceeds_balance: "The voucher exceeds the channel's balance.",
  invalid_batch_settlement_evm_cumulative_below_claimed: 'The voucher is below what was already claimed.',
  invalid_batch_settlement_evm_channel_not_found: 'No funded channel has this id.',
  invalid_batch_settlement_evm_channel_busy: 'The channel is busy; retry shortly.',
  invalid_batch_settlement_evm_receiver_mismatch: 'The channel pays another receiver.',
  invalid_batch_settlement_evm_receiver_authorizer_mismatch: "The channel's receiver authorizer is not ours.",
  invalid_batch_settlement_evm_token_mismatch: 'The channel holds another token.',
  invalid_batch_settlement_evm_withdraw_delay_mismatch: "The channel's withdraw delay is not ours.",
  invalid_batch_settlement_evm_missing_channel: 'This server holds no such channel.',
  invalid_batch_settlement_evm_refund_no_balance: 'Nothing is left to refund.',
  invalid_batch_settlement_evm_refund_amount_invalid: 'The refund amount is invalid.',
  invalid_batch_settlement_evm_withdrawal_pending: 'A withdrawal of this channel is pending.',
  invalid_batch_settlement_evm_channel_quarantined: 'This channel takes no more calls: its claim reverts on chain.',
  invalid_batch_settlement_evm_rpc_read_failed: 'The channel could not be read on chain; retry later.',
  // The official batch-settlement facilitator's own codes, which our channel facilitator passes on.
  invalid_batch_settlement_evm_scheme: 'The payment is not for the batch-settlement scheme.',
  invalid_batch_settlement_evm_network_mismatch: 'The payment is for another network.',
  invalid_batch_settlement_evm_insufficient_balance: "The payer's token balance does not cover the deposit.",
  invalid_batch_settlement_evm_payload_authorization_valid_before: 'The deposit authorization has expired.',
  invalid_batch_settlement_evm_payload_authorization_valid_after: 'The deposit authorization is not valid yet.',
  invalid_batch_settlement_evm_receive_authorization_signature: 'The deposit authorization signature is invalid.',
  invalid_batch_settlement_evm_withdraw_delay_out_of_range: "The channel's withdraw delay is out of the allowed range.",
  invalid_batch_settlement_evm_channel_id_invalid: 'The channel id is not valid.',
  invalid_batch_settlement_evm_authorizer_address_mismatch: "The channel's receiver authorizer is not ours.",
  invalid_batch_settlement_evm_authorizer_not_configured: 'This server cannot authorize this channel.',
  invalid_batch_settlement_evm_deposit_below_min_deposit: 'The deposit is below the minimum deposit.',
  invalid_batch_settlement_evm_deposit_simulation_failed: 'The deposit would fail on chain; nothing was charged.',
  invalid_batch_settlement_evm_deposit_transaction_failed: 'The deposit transaction failed on chain; nothing was charged.',
  invalid_batch_settlement_evm_refund_simulation_failed: 'The refund would fail on chain; the channel keeps its balance.',
  invalid_batch_settlement_evm_refund_transaction_failed: 'The refund transaction failed on chain; the channel keeps its balance.',
  invalid_batch_settlement_evm_claim_simulation_failed: 'The claim would fail on chain.',
  invalid_batch_settlement_evm_claim_transaction_failed: 'The claim transaction failed on chain.',
  invalid_batch_settlement_evm_settle_simulation_failed: 'The settlement would fail on chain.',
  invalid_batch_settlement_evm_settle_transaction_failed: 'The settlement transaction failed on chain.',
  invalid_batch_settlement_evm_nothing_to_settle: 'There is nothing to settle.',
  invalid_batch_settlement_evm_eip6492_factory_not_allowed: "The smart wallet's deployment factory is not allowed.",
  invalid_batch_settlement_evm_smart_wallet_deployment_failed: 'The smart wallet could not be deployed.',
  invalid_batch_settlement_evm_verification_state_unavailable: "The channel's state could not be read; retry later.",
  invalid_batch_settlement_evm_charge_exceeds_signed_cumulative: 'The charge exceeds what the voucher signed.',
  invalid_batch_settlement_evm_missing_eip712_domain: "The token's EIP-712 domain (name and version) is missing from the terms.",
  invalid_batch_settlement_evm_erc3009_authorization_required: 'This token takes a deposit by ERC-3009 authorization.',
  invalid_batch_settlement_evm_permit2_authorization_required: 'This token takes a deposit by Permit2 authorization.',
  invalid_batch_settlement_evm_permit2_allowance_required: 'The payer has not approved Permit2 for this token.',
  invalid_batch_settlement_evm_permit2_amount_mismatch: 'The Permit2 authorization is not for the deposit amount.',
  invalid_batch_settlement_evm_permit2_deadline_expired: 'The Permit2 authorization has expired.',
  invalid_batch_settlement_evm_permit2_invalid_signature: 'The Permit2 authorization signature is invalid.',
  invalid_batch_settlement_evm_permit2_invalid_spender: 'The Permit2 authorization names another spender.',
  invalid_batch_settlement_evm_eip2612_amount_mismatch: 'The EIP-2612 permit is not for the deposit amount.',
  invalid_batch_settlement_evm_erc20_approval_unavailable: 'An ERC-20 approval cannot be made for this deposit.',
};

/** The fixed sentence beside an x402 reason code; a code we do not know (a remote facilitator's) gets a generic one. */
export function paymentReasonMessage(reason: string): string {
  return Object.hasOwn(PAYMENT_REASON_MESSAGE, reason) ? PAYMENT_REASON_MESSAGE[reason]! : 'The payment was refused.';
}

/** A reason code as a client may see it: a remote facilitator's reason that is not a plain code becomes `fallback`. */
export function plainReason(reason: unknown, fallback: string): string {
  return typeof reason === 'string' && PLAIN_REASON_RE.test(reason) ? reason : fallback;
}

/** Reasons that say the chain, an RPC or the facilitator failed rather than the payer: their text is worth a log line. */
const UPSTREAM_REASONS: ReadonlySet<string> = new Set([
  'unexpected_verify_error',
  'unexpected_settle_error',
  'settlement_pending',
  'invalid_exact_svm_transaction_simulation_failed',
  'invalid_exact_svm_transaction_failed',
  'invalid_exact_evm_transaction_failed',
  'invalid_batch_settlement_evm_rpc_read_failed',
  // A channel transaction our relayer sent (or tried to) that failed: the payer's deposit or
  // refund came back refused, and only the library's text says why (a revert, an RPC timeout).
  'invalid_batch_settlement_evm_deposit_transaction_failed',
  'invalid_batch_settlement_evm_refund_transaction_failed',
  'invalid_batch_settlement_evm_claim_transaction_failed',
  'invalid_batch_settlement_evm_settle_transaction_failed',
  'invalid_batch_settlement_evm_smart_wallet_deployment_failed',
  'invalid_batch_settlement_evm_verification_state_unavailable',
]);

/** Whether a refusal of `reason` logs its own text (an upstream, not the payer, failed). */
export const isUpstreamReason = (reason: string): boolean => UPSTREAM_REASONS.has(reason);

/**
 * The sentence a client reads for a refusal whose own text (`detail`) came from a scheme, a library
 * or a facilitator: the reason's fixed sentence. The text is logged when the reason says an
 * upstream failed (a payer's bad payment is not news for the operator).
 */
export function refusalSentence(reason: string, detail: string | undefined): string {
  logRefusal(reason, detail);
  return paymentReasonMessage(reason);
}

/** Logs a refusal's own text when its reason says an upstream failed. */
function logRefusal(reason: string, detail: string | undefined): void {
  if (detail && isUpstreamReason(reason)) console.error(`payments: refused ${reason}: ${oneLine(detail)}`);
}
