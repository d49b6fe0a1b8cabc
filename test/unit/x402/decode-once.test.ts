/**
 * A scheme decodes its payload once per paid call: replayKey, verify and settle receive the same
 * PaymentPayload object, and decodeOnce keys the decoded form on it (the SVM transaction, the
 * EVM authorization), so the second and third reads cost nothing.
 */
import { describe, expect, it } from 'vitest';
import { decodeOnce } from '../../../src/x402/types/scheme-server.ts';
import type { PaymentPayload } from '../../../src/x402/types/x402-types.ts';

const payment = (transaction: string): PaymentPayload => ({
  x402Version: 2,
  accepted: { scheme: 'exact', network: 'solana:test', amount: '1', asset: 'mint', payTo: 'payee', maxTimeoutSeconds: 60, extra: {} },
  payload: { transaction },
});

describe('decodeOnce', () => {
  it('decodes a payment the first time it is read and hands back that result for the same payment after', () => {
    const seen: string[] = [];
    const decode = decodeOnce((p) => {
      seen.push(String(p.payload.transaction));
      return p.payload.transaction === 'bad' ? null : { tx: p.payload.transaction };
    });
    const one = payment('abc');
    const first = decode(one);
    expect(decode(one)).toBe(first);
    expect(decode(one)).toBe(first);
    const bad = payment('bad');
    expect(decode(bad)).toBeNull();
    expect(decode(bad)).toBeNull();
    // Another payment object, even with the same content, is another call: decoded afresh.
    expect(decode(payment('abc'))).not.toBe(first);
    expect(seen).toEqual(['abc', 'bad', 'abc']);
  });
});
