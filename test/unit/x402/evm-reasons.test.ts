/** The revert reasons of LocalUsdc and Circle's FiatTokenV2, as x402 invalid reasons. */
import { describe, expect, it } from 'vitest';
import { reasonOfTransferError } from '../../../src/x402/exact-evm/evm-reasons.ts';

describe('reasonOfTransferError', () => {
  it('maps LocalUsdc and FiatTokenV2 revert reasons to x402 reasons', () => {
    expect(reasonOfTransferError('EIP3009: authorization is used or canceled')).toBe('invalid_exact_evm_nonce_already_used');
    expect(reasonOfTransferError('FiatTokenV2: authorization is used or canceled (validBefore: 1)')).toBe('invalid_exact_evm_nonce_already_used');
    expect(reasonOfTransferError('FiatTokenV2: authorization is expired')).toBe('invalid_exact_evm_payload_authorization_valid_before');
    expect(reasonOfTransferError('EIP3009: authorization is not yet valid')).toBe('invalid_exact_evm_payload_authorization_valid_after');
    expect(reasonOfTransferError('ERC20: transfer amount exceeds balance')).toBe('invalid_exact_evm_insufficient_balance');
    expect(reasonOfTransferError('FiatTokenV2: invalid signature')).toBe('invalid_exact_evm_signature');
    expect(reasonOfTransferError('out of gas')).toBe('invalid_exact_evm_transaction_failed');
  });
});
