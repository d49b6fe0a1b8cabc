/**
 * What a payment echoes from its route's 402 (payment-echoes.ts): the official client copies the
 * option it chose and the 402's `extensions` into every payment; a member whose text is the route's
 * own, character for character, decodes to the route's value (parsed once, frozen, shared), and any
 * other text, however close, is decoded as before.
 */
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client, x402HTTPClient } from '@x402/fetch';
import { describe, expect, it } from 'vitest';
import { evmAccountFromKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import { createChallengeBuilder } from '../../../src/x402/delivery/payment-terms.ts';
import { decodePayment } from '../../../src/x402/flow/decode-payment.ts';
import { MAX_EXTENSION_ECHOES, routeEchoes } from '../../../src/x402/flow/payment-echoes.ts';
import { scanObject } from '../../../src/x402/flow/payment-scan.ts';
import { extractPaymentId } from '../../../src/x402/types/payment-identifier.ts';
import { BASE_MAINNET_CAIP2 } from '../../../src/x402/types/x402-types.ts';
import { ENTRY } from '../../helpers/payment-state-fixture.ts';
import { PLACEHOLDER_TERMS } from '../../helpers/test-terms.ts';

const TERMS = PLACEHOLDER_TERMS;
const URL = 'http://127.0.0.1:8402/v1/epoch';
const BAZAAR = ',"bazaar":{"info":{"input":{"type":"http","method":"GET"}},"schema":{"type":"object","required":["input"]}}';
const newBuilder = () => createChallengeBuilder(ENTRY, TERMS, undefined, { resourceFields: () => ',"serviceName":"s"', members: () => BAZAAR });
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const text = (header: string): string => Buffer.from(header, 'base64').toString('utf8');

/** A PAYMENT-SIGNATURE the official x402 client makes from the builder's 402 (`exact` on Base, signed offline). */
async function officialPayment(builder: ReturnType<typeof newBuilder>): Promise<string> {
  const reply = builder.reply(URL);
  const client = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE_MAINNET_CAIP2 && a.scheme === 'exact')!);
  client.setSpendControls({ allowedAssets: [{ network: BASE_MAINNET_CAIP2, asset: TERMS.evm.asset, maxAmountPerPayment: '1000000' }] });
  client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(generateEvmKey())));
  const http = new x402HTTPClient(client);
  const required = http.getPaymentRequiredResponse((name) => (reply.headers as Record<string, string>)[name.toUpperCase()] ?? null, undefined);
  return http.encodePaymentSignatureHeader(await client.createPaymentPayload(required))['PAYMENT-SIGNATURE']!;
}

/** The header's `extensions` member text replaced by `value`. */
function withExtensions(header: string, value: string): string {
  const json = text(header);
  const [from, to] = scanObject(json)!.get('extensions')!;
  return b64(json.slice(0, from) + value + json.slice(to));
}

describe("a payment's echo of its 402", () => {
  it("the official client's payment: its echoed option and extensions are the route's values, frozen and shared; the payment is what was sent", async () => {
    const builder = newBuilder();
    const [first, second] = [await officialPayment(builder), await officialPayment(builder)];
    const a = decodePayment(first, builder.accepts, builder.echoedExtensions!());
    const b = decodePayment(second, builder.accepts, builder.echoedExtensions!());
    if (!a.ok || !b.ok) throw new Error('the official payment was refused');
    expect(a.requirements.scheme).toBe('exact');
    expect(a.payment.extensions).toBe(b.payment.extensions);
    expect(a.payment.accepted).toBe(b.payment.accepted);
    expect(Object.isFrozen(a.payment.extensions) && Object.isFrozen((a.payment.extensions as Record<string, object>).bazaar)).toBe(true);
    expect(() => {
      (a.payment.extensions as Record<string, unknown>).bazaar = 'poisoned';
    }).toThrow(TypeError);
    expect(a.payment.payload).not.toEqual(b.payment.payload);
    expect(JSON.parse(JSON.stringify(a.payment))).toEqual(JSON.parse(text(first)));
  });

  it('one character off the 402 (a payment id added) is decoded as before: its id is read', async () => {
    const builder = newBuilder();
    const header = await officialPayment(builder);
    const ext = text(header).slice(...scanObject(text(header))!.get('extensions')!);
    const id = 'abcdefghijklmnop-1234';
    const changed = withExtensions(header, ext.replace('"required":false', `"required":false,"id":"${id}"`));
    const r = decodePayment(changed, builder.accepts, builder.echoedExtensions!());
    if (!r.ok) throw new Error('refused');
    expect(extractPaymentId(r.payment)).toEqual({ ok: true, id });
    expect(Object.isFrozen(r.payment.extensions)).toBe(false);
  });

  it('a repeated member: the last wins, echo or not; the echo inside another member is only text', async () => {
    const builder = newBuilder();
    const header = await officialPayment(builder);
    const json = text(header);
    const ext = json.slice(...scanObject(json)!.get('extensions')!);
    const last = decodePayment(b64(json.replace(/}$/, `,"extensions":{"x":1}}`)), builder.accepts, builder.echoedExtensions!());
    expect(last.ok && last.payment.extensions).toEqual({ x: 1 });
    const echoLast = decodePayment(b64(json.replace('"extensions":', '"extensions":{"x":1},"extensions":')), builder.accepts, builder.echoedExtensions!());
    expect(echoLast.ok && echoLast.payment.extensions).toBe(routeEchoes(builder.accepts, builder.echoedExtensions!()).extensions[0]![1]);
    const nested = decodePayment(b64(json.replace('"payload":{', `"payload":{"extensions":${ext},`)), builder.accepts, builder.echoedExtensions!());
    expect(nested.ok && Object.isFrozen((nested.payment.payload as { extensions: object }).extensions)).toBe(false);
  });

  it('the echo followed by anything but the end of its member is refused as before', async () => {
    const builder = newBuilder();
    const header = await officialPayment(builder);
    const ext = text(header).slice(...scanObject(text(header))!.get('extensions')!);
    for (const value of [`${ext}}`, `${ext} 1`, `${ext}"`])
      expect(decodePayment(withExtensions(header, value), builder.accepts, builder.echoedExtensions!())).toEqual({
        ok: false,
        reason: 'invalid_payload',
        message: 'payment header is not base64 JSON',
      });
  });

  it(`keeps the route's latest ${MAX_EXTENSION_ECHOES} extensions texts, ours only; an older one is decoded as any other`, () => {
    const accepts = newBuilder().accepts;
    const texts = Array.from({ length: MAX_EXTENSION_ECHOES + 1 }, (_, i) => `{"n":${i}}`);
    for (const t of texts) routeEchoes(accepts, [t]);
    expect(routeEchoes(accepts, []).extensions.map(([t]) => t)).toEqual(texts.slice(1));
    const payment = (ext: string) => b64(`{"x402Version":2,"accepted":${JSON.stringify(accepts[1])},"payload":{"a":1},"extensions":${ext}}`);
    const oldest = decodePayment(payment(texts[0]!), accepts);
    const newest = decodePayment(payment(texts.at(-1)!), accepts);
    expect(oldest.ok && Object.isFrozen(oldest.payment.extensions)).toBe(false);
    expect(newest.ok && Object.isFrozen(newest.payment.extensions)).toBe(true);
  });
});
