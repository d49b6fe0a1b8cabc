/**
 * The 402 challenge built from kept parts: its PAYMENT-REQUIRED header is byte for byte the base64
 * of the PaymentRequired JSON of the request (its own resource URL, the current blockhash), whatever
 * the URL's length modulo 3 or its non-ASCII characters; its body is a short error, not the challenge.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/catalog/endpoints.ts';
import { PAYMENT_IDENTIFIER, PAYMENT_IDENTIFIER_DECLARATION } from '../../../src/x402/types/payment-identifier.ts';
import type { HttpReply } from '../../../src/errors.ts';
import { challengeBody } from '../../../src/x402/delivery/challenge-body.ts';
import { createChallengeBuilder, createSplicedBase64, MAX_KEPT_CHALLENGES, paymentRequirementsFor } from '../../../src/x402/delivery/payment-terms.ts';
import { MAINNET_TERMS } from '../../helpers/test-terms.ts';

const TERMS = MAINNET_TERMS;
const ENTRY = CATALOG.find((e) => e.path === '/v1/smri')!;

/** The challenge as the contract describes it, serialized in one go. */
function expectedBody(url: string, error: string, blockhash: string | null): string {
  const [svm, evm] = paymentRequirementsFor(ENTRY, TERMS);
  const accepts = [blockhash === null ? svm : { ...svm, extra: { ...svm!.extra, recentBlockhash: blockhash } }, evm];
  return JSON.stringify({
    x402Version: 2,
    error,
    resource: { url, description: ENTRY.description, mimeType: 'application/json' },
    accepts,
    extensions: { [PAYMENT_IDENTIFIER]: PAYMENT_IDENTIFIER_DECLARATION },
  });
}

/** The challenge a reply carries: its PAYMENT-REQUIRED header, decoded. */
const challengeOf = (reply: HttpReply): string => Buffer.from(reply.headers!['PAYMENT-REQUIRED']!, 'base64').toString();

const urls = fc
  .tuple(fc.string({ maxLength: 80 }), fc.constantFrom('', 'é', '\u{1F600}', '"\\', '\u2028'))
  .map(([a, b]) => `http://127.0.0.1:8080/v1/smri?mint=${a}${b}`);

describe('402 challenge from kept parts', () => {
  it('the header is the base64 of the exact JSON of the request; the body is a short error, not the challenge', () => {
    let blockhash: string | null = 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi';
    const builder = createChallengeBuilder(ENTRY, TERMS, { svmExtra: () => (blockhash === null ? null : { recentBlockhash: blockhash }) });
    fc.assert(
      fc.property(urls, fc.constantFrom('Payment required', 'invalid_payload: bad "base64"'), fc.constantFrom('A', 'B', null), (url, error, hash) => {
        blockhash = hash === null ? null : hash.repeat(44);
        const reply = builder.reply(url, error);
        expect(reply.status).toBe(402);
        expect(challengeOf(reply)).toBe(expectedBody(url, error, blockhash));
        expect(reply.headers?.['PAYMENT-REQUIRED']).toBe(Buffer.from(expectedBody(url, error, blockhash)).toString('base64'));
        expect(reply.body).toBe(challengeBody(url, ENTRY.path, error));
        // The plain challenge (no error given) comes from the kept replies once built.
        for (const plain of [builder.reply(url), builder.reply(url)]) {
          expect(challengeOf(plain)).toBe(expectedBody(url, 'Payment required', blockhash));
          expect(plain.body).toBe(challengeBody(url, ENTRY.path, 'Payment required'));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('carries a new blockhash as soon as the live terms change', () => {
    let blockhash = '1'.repeat(44);
    const builder = createChallengeBuilder(ENTRY, TERMS, { svmExtra: () => ({ recentBlockhash: blockhash }) });
    const url = 'http://x/v1/smri?mint=a';
    expect(challengeOf(builder.reply(url))).toContain(blockhash);
    blockhash = '2'.repeat(44);
    const reply = builder.reply(url);
    expect(challengeOf(reply)).toBe(expectedBody(url, 'Payment required', blockhash));
  });

  it('keeps the plain challenge of a URL while the live terms stand, and only then', () => {
    // Live terms as the service hands them out: one object per blockhash.
    const extras = new Map<string, { recentBlockhash: string }>();
    let blockhash = '1'.repeat(44);
    const svmExtra = () => extras.get(blockhash) ?? extras.set(blockhash, { recentBlockhash: blockhash }).get(blockhash)!;
    const builder = createChallengeBuilder(ENTRY, TERMS, { svmExtra });
    const url = (i: number) => `http://x/v1/smri?mint=${i}`;
    const first = builder.reply(url(0));
    expect(builder.reply(url(0))).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.headers)).toBe(true);
    expect(challengeOf(builder.reply(url(1)))).toBe(expectedBody(url(1), 'Payment required', blockhash));
    // A reason is never served from, nor stored in, the kept plain challenges.
    expect(challengeOf(builder.reply(url(0), 'invalid_payload: x'))).toBe(expectedBody(url(0), 'invalid_payload: x', blockhash));
    expect(builder.reply(url(0))).toBe(first);
    // Past the bound the oldest go; every reply stays exact.
    for (let i = 0; i <= MAX_KEPT_CHALLENGES + 5; i++) expect(challengeOf(builder.reply(url(i)))).toBe(expectedBody(url(i), 'Payment required', blockhash));
    expect(builder.reply(url(0))).not.toBe(first);
    const long = `http://x/v1/smri?mint=${'z'.repeat(600)}`;
    expect(builder.reply(long)).not.toBe(builder.reply(long));
    expect(challengeOf(builder.reply(long))).toBe(expectedBody(long, 'Payment required', blockhash));
    blockhash = '2'.repeat(44);
    const renewed = builder.reply(url(0));
    expect(challengeOf(renewed)).toBe(expectedBody(url(0), 'Payment required', blockhash));
    expect(builder.reply(url(0))).toBe(renewed);
  });

  it('carries each transport its own extensions and service metadata, kept until they change', () => {
    const members = { http: ',"bazaar":{"info":{"input":{"type":"http"}}}', mcp: ',"bazaar":{"info":{"input":{"type":"mcp"}}}' };
    let offers = ',"offer-receipt":{"info":{"offers":[1]}}';
    const builder = createChallengeBuilder(ENTRY, TERMS, undefined, {
      resourceFields: () => ',"serviceName":"s","tags":["a"]',
      members: (transport) => members[transport] + offers,
    });
    const web = 'http://x/v1/smri?mint=a';
    const tool = 'mcp://tool/smri';
    const parsed = (url: string) => JSON.parse(challengeOf(builder.reply(url)));
    expect(parsed(web).resource).toEqual({ url: web, description: ENTRY.description, mimeType: 'application/json', serviceName: 's', tags: ['a'] });
    expect(parsed(web).extensions).toEqual({
      [PAYMENT_IDENTIFIER]: PAYMENT_IDENTIFIER_DECLARATION,
      bazaar: { info: { input: { type: 'http' } } },
      'offer-receipt': { info: { offers: [1] } },
    });
    expect(parsed(tool).extensions.bazaar).toEqual({ info: { input: { type: 'mcp' } } });
    // Kept per transport while the extensions stand: asking one transport does not drop the other's.
    const kept = builder.reply(web);
    expect(builder.reply(tool)).toBe(builder.reply(tool));
    expect(builder.reply(web)).toBe(kept);
    expect(JSON.parse(kept.body as string)).toMatchObject({ error: 'payment_required', discovery: 'http://x/.well-known/x402' });
    // Re-signed offers: a new challenge; the body (no challenge in it) stays the short error.
    offers = ',"offer-receipt":{"info":{"offers":[2]}}';
    const renewed = builder.reply(web);
    expect(renewed).not.toBe(kept);
    expect(JSON.parse(challengeOf(renewed)).extensions['offer-receipt']).toEqual({ info: { offers: [2] } });
    expect(renewed.body).toBe(kept.body);
    // A corrective 402 carries the same extensions.
    const correctiveReply = builder.replyWithExtra(web, 'x', 'exact', { k: 1 });
    expect(JSON.parse(correctiveReply.body as string)).toEqual({ error: 'x', message: expect.any(String), discovery: 'http://x/.well-known/x402' });
    const corrective = JSON.parse(challengeOf(correctiveReply));
    expect(corrective.extensions['offer-receipt']).toEqual({ info: { offers: [2] } });
    expect(corrective.resource.serviceName).toBe('s');
  });

  it('splices base64 of any head onto a kept tail exactly as encoding the whole', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.string({ minLength: 2, maxLength: 40 }).filter((t) => t.charCodeAt(0) < 128 && t.charCodeAt(1) < 128),
        (head, tail) => {
          expect(createSplicedBase64(tail)(head)).toBe(Buffer.from(head + tail).toString('base64'));
        },
      ),
      { numRuns: 3000 },
    );
    expect(() => createSplicedBase64('é,')).toThrow(/ASCII/);
  });
});
