/**
 * The x402 extensions judged by the official `@x402/extensions` code itself: the bazaar
 * declarations of every route pass its validators (and a catalog they fail does not start), and
 * the offers and receipts we sign pass its client-side JWS verification under our key, while a
 * tampered offer and a receipt signed by another key are refused.
 */
import { generateKeyPairSync, sign as edSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extractDiscoveryInfoFromExtension, validateDiscoveryExtension, validateDiscoveryExtensionSpec } from '@x402/extensions/bazaar';
import {
  decodeSignedOffers,
  extractJWSHeader,
  findAcceptsObjectFromSignedOffer,
  type JWSSignedOffer,
  type JWSSignedReceipt,
  verifyOfferSignatureJWS,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureJWS,
} from '@x402/extensions/offer-receipt';
import { describe, expect, it } from 'vitest';
import { CATALOG, type EndpointEntry } from '../../../src/catalog/endpoints.ts';
import { ConfigError } from '../../../src/errors.ts';
import { publishedSchema } from '../../../src/mcp/tool-arguments.ts';
import { BAZAAR_ACCEPTED_DIGEST } from '../../../src/service/bazaar-accepted.ts';
import { challengeExtensionsOf, declareCatalogDiscovery, discoveryDigest, discoveryOf } from '../../../src/service/route-extensions.ts';
import { didDocument, didWebOf, keyIdOf } from '../../../src/receipts/did-web.ts';
import { createOfferReceipts, OFFER_VALIDITY_SECONDS } from '../../../src/x402/delivery/offer-receipts.ts';
import { paymentRequirementsFor } from '../../../src/x402/delivery/payment-terms.ts';
import { createOfferReceiptSigner } from '../../../src/x402/delivery/x402-extensions.ts';
import { BAZAAR_ACCEPTED_FILE, renderBazaarAccepted } from '../../../scripts/bazaar-accepted.ts';
import { manualClock } from '../../helpers/manual-clock.ts';
import { MAINNET_TERMS } from '../../helpers/test-terms.ts';

const TERMS = MAINNET_TERMS;
const BASE = 'http://127.0.0.1:8402';
const PAYER = '96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5';

/** An ed25519 key as the service holds it (raw public key) and a signer over it. */
function edKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
  return {
    raw,
    jwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') },
    sign: async (m: Uint8Array) => new Uint8Array(edSign(null, m, privateKey)),
  };
}

describe('bazaar declarations (official validators)', () => {
  const declared = declareCatalogDiscovery('solana-x402-intel');

  it.each(CATALOG.map((e) => [e.path, e] as const))(
    '%s: HTTP (402 and discovery document) and MCP declarations pass, with the query rules, an example and, but in the 402, the answer schema',
    (_path, entry) => {
      const { http, catalog, mcp } = declared.get(entry.path)!;
      for (const d of [http, catalog, mcp]) {
        expect(validateDiscoveryExtension(d as never)).toEqual({ valid: true });
        expect(validateDiscoveryExtensionSpec(d as never)).toEqual({ valid: true });
      }
      const info = extractDiscoveryInfoFromExtension(http as never) as { input: Record<string, unknown> };
      expect(info.input).toMatchObject({ type: 'http', method: 'GET' });
      expect(Object.keys(info.input.queryParams as object)).toEqual(Object.keys(entry.example));
      const schema = catalog.schema as { properties: { input: { properties: { queryParams: unknown } }; output: { properties: { example: unknown } } } };
      expect(schema.properties.input.properties.queryParams).toEqual(publishedSchema(entry.query));
      expect(schema.properties.output.properties.example).toEqual({ type: 'object', ...JSON.parse(JSON.stringify(entry.response)) });
      // The 402's is the same declaration without the answer: every byte of it is in every 402 and every payment.
      const lean = http.schema as { properties: Record<string, unknown> };
      expect(lean.properties.input).toEqual(schema.properties.input);
      expect(lean.properties.output).toBeUndefined();
      expect(http.info).toEqual({ input: (catalog.info as { input: unknown }).input });
      expect((mcp.info as { input: Record<string, unknown> }).input).toMatchObject({
        type: 'mcp',
        transport: 'streamable-http',
        inputSchema: publishedSchema(entry.query),
      });
    },
  );

  it('names the service and tags, and the icon only under a public host a catalog may fetch', () => {
    const entry = CATALOG[0]!;
    const fields = (baseUrl: string) =>
      challengeExtensionsOf(entry, { serviceName: 'solana-x402-intel', discovery: declared, baseUrl: () => baseUrl, offers: null }).resourceFields();
    const tags = JSON.stringify(entry.tags);
    expect(fields('https://intel.example')).toBe(`,"serviceName":"solana-x402-intel","tags":${tags},"iconUrl":"https://intel.example/icon.svg"`);
    for (const local of ['http://127.0.0.1:8402', 'http://localhost:8402', 'http://[::1]:8402'])
      expect(fields(local)).toBe(`,"serviceName":"solana-x402-intel","tags":${tags}`);
  });

  it('a catalog the validators refuse does not start: ConfigError naming the route', () => {
    const smri = CATALOG.find((e) => e.path === '/v1/smri')!;
    const badExample: EndpointEntry = { ...smri, example: { mint: 'not-a-mint' } };
    const badTags: EndpointEntry = { ...smri, path: '/v1/x', tags: ['a', 'b', 'c', 'd', 'e', 'f'] };
    // A response schema that is no JSON Schema: the official schema validator cannot compile it.
    const badSchema: EndpointEntry = { ...smri, path: '/v1/y', response: { type: 'object', properties: { a: { type: 'no-such-type' } } } as never };
    expect(discoveryOf(badSchema).ok).toBe(false);
    expect(() => declareCatalogDiscovery('solana-x402-intel', [badExample, badTags, badSchema])).toThrow(ConfigError);
    try {
      declareCatalogDiscovery('solana-x402-intel', [badExample, badTags, badSchema]);
    } catch (err) {
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toMatch(/\/v1\/smri: the catalog example fails/);
      expect(problems).toMatch(/\/v1\/x: tags/);
      expect(problems).toMatch(/\/v1\/y \(bazaar, discovery document\)/);
    }
    expect(() => declareCatalogDiscovery('a service name longer than thirty-two characters', [])).toThrow(/--service-name/);
  });

  // The tests above judge each of these declarations with the official validators: the record is of a catalog they accept.
  it('the recorded digest is of the catalog as it is now (scripts/bazaar-accepted.ts rewrites it)', () => {
    expect(readFileSync(BAZAAR_ACCEPTED_FILE, 'utf8')).toBe(renderBazaarAccepted(discoveryDigest(declared)));
    expect(discoveryDigest(declared)).toBe(BAZAAR_ACCEPTED_DIGEST);
  });

  it('a catalog that is not the recorded one is judged: one answer schema the validators refuse stops the start', () => {
    const refused = CATALOG.map((e) =>
      e.path === '/v1/smri' ? { ...e, response: { type: 'object', properties: { a: { type: 'no-such-type' } } } as never } : e,
    );
    expect(() => declareCatalogDiscovery('solana-x402-intel', refused)).toThrow(/\/v1\/smri \(bazaar, discovery document\)/);
    // Only that route's declarations differ: the others are still judged as they were (and pass).
    const changed = CATALOG.map((e) => (e.path === '/v1/smri' ? { ...e, summary: `${e.summary} ` } : e));
    expect(discoveryDigest(declareCatalogDiscovery('solana-x402-intel', changed))).not.toBe(BAZAAR_ACCEPTED_DIGEST);
  });
});

describe('did:web identity', () => {
  it('names the public URL and publishes the key for assertions', () => {
    expect(didWebOf('https://api.example.com')).toBe('did:web:api.example.com');
    expect(didWebOf('http://127.0.0.1:8402')).toBe('did:web:127.0.0.1%3A8402');
    expect(didWebOf('https://example.com/intel/')).toBe('did:web:example.com:intel');
    const key = edKey();
    const doc = didDocument(BASE, key.raw) as { verificationMethod: { id: string; publicKeyJwk: unknown }[]; assertionMethod: string[] };
    expect(doc.verificationMethod[0]).toMatchObject({ id: keyIdOf(BASE), publicKeyJwk: key.jwk });
    expect(doc.assertionMethod).toEqual([keyIdOf(BASE)]);
  });
});

describe('signed offers and receipts (official client-side verification)', () => {
  const entry = CATALOG.find((e) => e.path === '/v1/smri')!;
  const accepts = paymentRequirementsFor(entry, TERMS);
  const key = edKey();
  const clock = manualClock(1_800_000_000_000);
  const book = createOfferReceipts({
    signer: createOfferReceiptSigner({ kid: () => keyIdOf(BASE), sign: key.sign }),
    routes: () => [{ path: entry.path, accepts }],
    resourceUrl: (path, transport) => (transport === 'mcp' ? 'mcp://tool/smri' : `${BASE}${path}`),
    now: clock.now,
  });
  const offersOf = (transport: 'http' | 'mcp') => {
    const member = book.member(entry.path, transport);
    return (JSON.parse(`{${member.slice(1)}}`)['offer-receipt'] as { info: { offers: JWSSignedOffer[] } }).info.offers;
  };

  it('offers: one per accepts option, EdDSA under the did:web key id, valid for the offer window', async () => {
    await book.start();
    book.close();
    for (const transport of ['http', 'mcp'] as const) {
      const offers = offersOf(transport);
      expect(offers).toHaveLength(accepts.length);
      for (const [i, offer] of offers.entries()) {
        expect(extractJWSHeader(offer.signature)).toEqual({ alg: 'EdDSA', kid: keyIdOf(BASE) });
        const payload = await verifyOfferSignatureJWS(offer, key.jwk as never);
        expect(payload).toMatchObject({
          version: 1,
          resourceUrl: transport === 'mcp' ? 'mcp://tool/smri' : `${BASE}/v1/smri`,
          amount: String(entry.priceUnits),
        });
        expect(payload.validUntil).toBe(1_800_000_000 + OFFER_VALIDITY_SECONDS);
        expect(findAcceptsObjectFromSignedOffer(offer, [...accepts] as never)).toBe(accepts[i]);
      }
    }
    clock.advance(OFFER_VALIDITY_SECONDS * 1000);
    expect(book.member(entry.path, 'http')).toBe('');
  });

  it('a tampered offer and a receipt from another key are refused; ours verify and match the offer', async () => {
    clock.advance(-OFFER_VALIDITY_SECONDS * 1000);
    const [offer] = offersOf('http');
    const [header, payload, signature] = offer!.signature.split('.');
    const cheaper = Buffer.from(Buffer.from(payload!, 'base64url').toString().replace(`"amount":"${entry.priceUnits}"`, '"amount":"1"')).toString('base64url');
    await expect(verifyOfferSignatureJWS({ format: 'jws', signature: `${header}.${cheaper}.${signature}` }, key.jwk as never)).rejects.toThrow();

    const ext = await book.receipt(`${BASE}/v1/smri?mint=${PAYER}`, PAYER, accepts[0]!.network);
    const receipt = (ext!['offer-receipt'] as { info: { receipt: JWSSignedReceipt } }).info.receipt;
    const paid = await verifyReceiptSignatureJWS(receipt, key.jwk as never);
    expect(paid).toEqual({ version: 1, network: accepts[0]!.network, resourceUrl: `${BASE}/v1/smri`, payer: PAYER, issuedAt: 1_800_000_000 });
    const [decoded] = decodeSignedOffers([offer!]);
    // The official check reads the wall clock for the receipt's age; the receipt's time is our manual clock's, so any age passes.
    expect(verifyReceiptMatchesOffer(receipt, decoded!, [PAYER], Number.MAX_SAFE_INTEGER)).toBe(true);

    const stranger = edKey();
    const forged = createOfferReceipts({
      signer: createOfferReceiptSigner({ kid: () => keyIdOf(BASE), sign: stranger.sign }),
      routes: () => [],
      resourceUrl: () => BASE,
      now: clock.now,
    });
    const other = ((await forged.receipt(`${BASE}/v1/smri`, PAYER, accepts[0]!.network))!['offer-receipt'] as { info: { receipt: JWSSignedReceipt } }).info
      .receipt;
    await expect(verifyReceiptSignatureJWS(other, key.jwk as never)).rejects.toThrow();
  });
  it('receipts of one payer, endpoint and network within a second are signed once, the same bytes; a new second or a failure signs again', async () => {
    let signatures = 0;
    let failNext = false;
    const counting = createOfferReceipts({
      signer: createOfferReceiptSigner({
        kid: () => keyIdOf(BASE),
        sign: async (bytes) => {
          signatures++;
          if (failNext) {
            failNext = false;
            throw new Error('signer down');
          }
          return key.sign(bytes);
        },
      }),
      routes: () => [],
      resourceUrl: () => BASE,
      now: clock.now,
      fault: () => undefined,
    });
    const jws = async (url: string, payer = PAYER) =>
      ((await counting.receipt(url, payer, accepts[0]!.network))?.['offer-receipt'] as { info: { receipt: JWSSignedReceipt } } | undefined)?.info.receipt
        .signature;
    const first = await jws(`${BASE}/v1/smri?mint=a`);
    // Another query of the same endpoint: the receipt names the endpoint, so it is the same receipt.
    expect(await jws(`${BASE}/v1/smri?mint=b`)).toBe(first);
    expect(signatures).toBe(1);
    // Another payer is another receipt.
    expect(await jws(`${BASE}/v1/smri`, 'another-payer')).not.toBe(first);
    expect(signatures).toBe(2);
    clock.advance(1000);
    const next = await jws(`${BASE}/v1/smri`);
    expect(next).not.toBe(first);
    expect(signatures).toBe(3);
    clock.advance(1000);
    failNext = true;
    expect(await jws(`${BASE}/v1/smri`)).toBeUndefined();
    expect(await jws(`${BASE}/v1/smri`)).toBeDefined();
    expect(signatures).toBe(5);
  });
});
