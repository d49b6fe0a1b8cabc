/**
 * Reading the payment of a paid call (the first step of the paid call's state machine, before any
 * claim): the header it comes in, its size, its base64 JSON, and its accepted terms matched exactly
 * against the route's. Each refusal names the x402 reason the 402 carries.
 */
import { describe, expect, it } from 'vitest';
import { decodePayment, MAX_PAYMENT_HEADER_CHARS, matchPayment, paymentHeader } from '../../../src/x402/flow/decode-payment.ts';
import { createChallengeBuilder } from '../../../src/x402/delivery/payment-terms.ts';
import { BASE_MAINNET_CAIP2, SOLANA_MAINNET_CAIP2, type PaymentRequirements } from '../../../src/x402/types/x402-types.ts';
import { ENTRY } from '../../helpers/payment-state-fixture.ts';
import { PLACEHOLDER_TERMS } from '../../helpers/test-terms.ts';

const TERMS = PLACEHOLDER_TERMS;
const ACCEPTS = createChallengeBuilder(ENTRY, TERMS).accepts;
const SVM = ACCEPTS.find((a) => a.network === SOLANA_MAINNET_CAIP2)!;
const encode = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64');
const payment = (accepted: Record<string, unknown> = { ...SVM }, rest: Record<string, unknown> = {}) => ({
  x402Version: 2,
  accepted,
  payload: { transaction: 'AAAA' },
  ...rest,
});
const reasonOf = (header: string, accepts: readonly PaymentRequirements[] = ACCEPTS) => {
  const r = decodePayment(header, accepts);
  return r.ok ? 'ok' : r.reason;
};

describe('decode payment: the header', () => {
  it('PAYMENT-SIGNATURE first, X-PAYMENT as older clients send it, else none', () => {
    expect(paymentHeader({ 'payment-signature': 'a', 'x-payment': 'b' })).toBe('a');
    expect(paymentHeader({ 'x-payment': 'b' })).toBe('b');
    expect(paymentHeader({})).toBeNull();
  });

  it('a header past the bound, not base64 JSON, or not an object: invalid_payload', () => {
    expect(reasonOf('A'.repeat(MAX_PAYMENT_HEADER_CHARS + 1))).toBe('invalid_payload');
    expect(reasonOf('%%%not base64%%%')).toBe('invalid_payload');
    expect(reasonOf(encode('a string'))).toBe('invalid_payload');
    expect(reasonOf(encode(null))).toBe('invalid_payload');
  });

  it('the route terms exactly: decoded, with the requirements it matched (whitespace around the header is ignored)', () => {
    const r = decodePayment(` ${encode(payment())}\n`, ACCEPTS);
    expect(r.ok && r.requirements).toBe(SVM);
  });
});

describe('decode payment: the terms it accepted', () => {
  it.each([
    ['x402Version 1', { ...payment(), x402Version: 1 }, 'invalid_x402_version'],
    ['no accepted terms', { ...payment(), accepted: undefined }, 'invalid_payload'],
    ['no payload object', { ...payment(), payload: 'tx' }, 'invalid_payload'],
    ['a scheme not offered', payment({ ...SVM, scheme: 'upto' }), 'unsupported_scheme'],
    ['a network not offered', payment({ ...SVM, network: 'solana:devnet' }), 'invalid_network'],
    ['a lower amount', payment({ ...SVM, amount: '1' }), 'invalid_payment_requirements'],
    ['another payTo', payment({ ...SVM, payTo: TERMS.evm.payTo }), 'invalid_payment_requirements'],
    ['another asset', payment({ ...SVM, asset: TERMS.evm.asset }), 'invalid_payment_requirements'],
    ['a longer timeout', payment({ ...SVM, maxTimeoutSeconds: 3600 }), 'invalid_payment_requirements'],
    ['an altered extra field', payment({ ...SVM, extra: { feePayer: TERMS.evm.payTo } }), 'invalid_payment_requirements'],
    ['Solana terms under the Base network', payment({ ...SVM, network: BASE_MAINNET_CAIP2 }), 'invalid_payment_requirements'],
  ])('%s: %s', (_what, parsed, reason) => {
    const r = matchPayment(parsed, ACCEPTS);
    expect(r.ok ? 'ok' : r.reason).toBe(reason);
    expect(reasonOf(encode(parsed))).toBe(reason);
  });

  it('a field the client added beside our extra changes nothing verified: the route requirements are what it matched', () => {
    const r = matchPayment(payment({ ...SVM, extra: { ...SVM.extra, memo: 'x' } }), ACCEPTS);
    expect(r.ok && r.requirements).toBe(SVM);
  });
});
