/**
 * Every x402 reason code our schemes can answer with has its fixed sentence, so a refusal whose
 * own text came from a library reads as one of ours; a facilitator's reason reaches a client only
 * when it is a plain code.
 */
import { describe, expect, it } from 'vitest';
import { CHANNEL_REASONS } from '../../../src/x402/channels/channel-payload.ts';
import { EVM_REASONS } from '../../../src/x402/exact-evm/evm-reasons.ts';
import { PAYMENT_REASON_MESSAGE, paymentReasonMessage, plainReason } from '../../../src/x402/delivery/reason-messages.ts';
import { SVM_REASON } from '../../../src/x402/exact-svm/svm-reasons.ts';

describe('x402 reason sentences', () => {
  it.each([...Object.values(SVM_REASON), ...Object.values(EVM_REASONS), ...Object.values(CHANNEL_REASONS)])('%s has a sentence', (reason) => {
    expect(Object.hasOwn(PAYMENT_REASON_MESSAGE, reason)).toBe(true);
    expect(paymentReasonMessage(reason)).toMatch(/^[A-Z].*\.$/);
  });

  it('an unknown reason gets the generic sentence, never its own text', () => {
    expect(paymentReasonMessage('HTTP request failed. URL: https://x.example/KEY')).toBe('The payment was refused.');
  });

  it('a facilitator reason that is not a plain code is replaced', () => {
    expect(plainReason('invalid_exact_evm_signature', 'unexpected_verify_error')).toBe('invalid_exact_evm_signature');
    expect(plainReason('failed: see https://x.example/KEY', 'unexpected_verify_error')).toBe('unexpected_verify_error');
    expect(plainReason(42, 'unexpected_settle_error')).toBe('unexpected_settle_error');
  });
});
