/**
 * Every x402 reason code our schemes can answer with has its fixed sentence, so a refusal whose
 * own text came from a library reads as one of ours; a facilitator's reason reaches a client only
 * when it is a plain code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHANNEL_REASONS } from '../../../src/x402/channels/channel-payload.ts';
import { EVM_REASONS } from '../../../src/x402/exact-evm/evm-reasons.ts';
import { isUpstreamReason, PAYMENT_REASON_MESSAGE, paymentReasonMessage, plainReason } from '../../../src/x402/delivery/reason-messages.ts';
import { SVM_REASON } from '../../../src/x402/exact-svm/svm-reasons.ts';

describe('x402 reason sentences', () => {
  it.each([...Object.values(SVM_REASON), ...Object.values(EVM_REASONS), ...Object.values(CHANNEL_REASONS)])('%s has a sentence', (reason) => {
    expect(Object.hasOwn(PAYMENT_REASON_MESSAGE, reason)).toBe(true);
    expect(paymentReasonMessage(reason)).toMatch(/^[A-Z].*\.$/);
  });

  // Found in a loaded bench: a deposit refused on chain reached the payer as "The payment was
  // refused." and its cause reached no log. The official facilitator's codes are read from the
  // installed package itself, so an upgrade that adds one fails here until it has its sentence.
  const official = (() => {
    const entry = fileURLToPath(import.meta.resolve('@x402/evm/batch-settlement/facilitator'));
    // The package's build directory (dist/esm or dist/cjs): the codes live in its shared chunks.
    const root = entry.slice(0, entry.indexOf('/', entry.lastIndexOf('/dist/') + '/dist/'.length));
    const codes = new Set<string>();
    for (const name of readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(m|c)?js$/.test(f))) {
      for (const m of readFileSync(`${root}/${name}`, 'utf8').matchAll(/"(invalid_batch_settlement_evm_[a-z0-9_]+)"/g)) codes.add(m[1]!);
    }
    return [...codes].sort();
  })();
  it('the official batch-settlement facilitator has codes to check', () => {
    expect(official).toContain('invalid_batch_settlement_evm_deposit_transaction_failed');
  });
  it.each(official)('the official facilitator code %s has a sentence', (reason) => {
    expect(paymentReasonMessage(reason)).not.toBe('The payment was refused.');
    expect(paymentReasonMessage(reason)).toMatch(/^[A-Z].*\.$/);
  });
  it('a channel transaction that failed on chain logs its own text; a payer mistake does not', () => {
    for (const step of ['deposit', 'refund', 'claim', 'settle']) expect(isUpstreamReason(`invalid_batch_settlement_evm_${step}_transaction_failed`)).toBe(true);
    expect(isUpstreamReason('invalid_batch_settlement_evm_voucher_signature')).toBe(false);
    expect(isUpstreamReason('invalid_batch_settlement_evm_deposit_below_min_deposit')).toBe(false);
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
