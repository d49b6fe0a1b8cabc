/**
 * A payment header is parsed only where a paid call reads it (`x402Version`, `accepted`, `payload`,
 * the `payment-identifier` extension): the `resource` and `extensions` the official client echoes
 * from the 402 are scanned, not parsed, yet still there for whatever reads them, and a header whose
 * structure is broken anywhere is refused as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createChallengeBuilder } from '../../../src/x402/delivery/payment-terms.ts';
import { decodePayment } from '../../../src/x402/flow/decode-payment.ts';
import { scanObject } from '../../../src/x402/flow/payment-scan.ts';
import { extractPaymentId } from '../../../src/x402/types/payment-identifier.ts';
import { ENTRY } from '../../helpers/payment-state-fixture.ts';
import { PLACEHOLDER_TERMS } from '../../helpers/test-terms.ts';

const TERMS = PLACEHOLDER_TERMS;
const ACCEPTS = createChallengeBuilder(ENTRY, TERMS).accepts;
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const ID = 'abcdefghijklmnop-1234';

/** The official client's payment: the 402's resource and extensions echoed, with its payment id. */
const echoed = (extensionsTail: string) =>
  `{"x402Version":2,"payload":{"transaction":"AQID"},"extensions":{"payment-identifier":{"info":{"required":false,"id":"${ID}"}}${extensionsTail}},` +
  `"resource":{"url":"http://127.0.0.1:8402/v1/smri?mint=x"},"accepted":${JSON.stringify(ACCEPTS[0])}}`;

describe('payment header: what a call reads is parsed, the echo is not', () => {
  it('decodes the terms, payload and payment id; the echoed members are there when read', () => {
    const r = decodePayment(b64(echoed(',"bazaar":{"info":{"input":{"type":"http"}}}')), ACCEPTS);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.requirements).toBe(ACCEPTS[0]);
    expect(r.payment.payload).toEqual({ transaction: 'AQID' });
    expect(extractPaymentId(r.payment)).toEqual({ ok: true, id: ID });
    expect(r.payment.extensions?.bazaar).toEqual({ info: { input: { type: 'http' } } });
    expect((r.payment.resource as { url: string }).url).toBe('http://127.0.0.1:8402/v1/smri?mint=x');
    // Serialized whole (a remote facilitator's request), it is the payment that was sent.
    expect(JSON.parse(JSON.stringify(r.payment))).toEqual(JSON.parse(echoed(',"bazaar":{"info":{"input":{"type":"http"}}}')));
  });

  it('an echoed member is never parsed: one no JSON parser would take still decodes, and reads as nothing', () => {
    // Balanced, strings closed, but not JSON inside: a full parse refused this header.
    const r = decodePayment(b64(echoed(',"bazaar":{"info" {1 2 ["x"]}}')), ACCEPTS);
    expect(r.ok).toBe(true);
    expect(r.ok && r.payment.extensions?.bazaar).toBeUndefined();
  });

  it.each([
    ['an unclosed string in the echo', echoed(',"bazaar":{"a":"b}}')],
    ['brackets that do not pair', echoed(',"bazaar":{"a":[1}}')],
    ['a member without a colon', echoed(',"bazaar" {}')],
    ['something after the object', `${echoed('')} x`],
    ['a malformed payment id', echoed('').replace(`"id":"${ID}"`, `"id":"${ID}`)],
    ['a malformed accepted object', echoed('').replace('"accepted":{', '"accepted":{,')],
    ['nesting past the bound', echoed(`,"bazaar":${'['.repeat(80)}${']'.repeat(80)}`)],
  ])('%s: invalid_payload, "payment header is not base64 JSON"', (_what, text) => {
    expect(decodePayment(b64(text), ACCEPTS)).toEqual({ ok: false, reason: 'invalid_payload', message: 'payment header is not base64 JSON' });
  });

  it('a payment that echoes nothing is parsed whole, and reads as the lean path read it', () => {
    // A pre-signed channel voucher: only the members a call reads.
    const plain = { x402Version: 2, accepted: ACCEPTS[0], payload: { type: 'voucher', voucher: { channelId: '0x01', maxClaimableAmount: '5' } } };
    const r = decodePayment(b64(JSON.stringify(plain)), ACCEPTS);
    expect(r.ok && r.payment).toEqual(plain);
    // The same with an echoed member beside it takes the lean path and reads the same.
    const echo = decodePayment(b64(JSON.stringify({ ...plain, resource: { url: 'u' } })), ACCEPTS);
    expect(echo.ok && { ...echo.payment, resource: undefined }).toEqual({ ...plain, resource: undefined });
  });

  it('a member outside what a call reads, or nesting past the plain bound, still takes the scan and its rules', () => {
    // Broken inside an unread member: the scan accepts what no parser would, as before (a whole parse refused it).
    const odd = `{"x402Version":2,"payload":{"transaction":"AQID"},"accepted":${JSON.stringify(ACCEPTS[0])},"other":{"a" {1}}}`;
    expect(decodePayment(b64(odd), ACCEPTS).ok).toBe(true);
    // Nesting past the scan's bound in the payload is refused, whole parse or not.
    const deep = `{"x402Version":2,"accepted":${JSON.stringify(ACCEPTS[0])},"payload":{"x":${'['.repeat(80)}${']'.repeat(80)}}}`;
    expect(decodePayment(b64(deep), ACCEPTS)).toEqual({ ok: false, reason: 'invalid_payload', message: 'payment header is not base64 JSON' });
  });

  it('finds every member of any JSON object where JSON.parse does, the last of a repeated key winning', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 })), fc.constantFrom('', ' ', '\n\t'), (object, space) => {
        const text = JSON.stringify(object, null, space);
        const members = scanObject(text);
        expect(members).not.toBeNull();
        const found = Object.fromEntries([...members!].map(([k, [from, to]]) => [k, JSON.parse(text.slice(from, to))]));
        expect(found).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
    expect(scanObject('{"a":1,"a":2}')?.get('a')).toEqual([11, 12]);
  });
});
