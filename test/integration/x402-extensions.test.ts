/**
 * The x402 extensions as a standard client and catalog see them, judged by the official
 * `@x402/extensions` code against the running service: every route's 402 (HTTP and MCP) carries a
 * bazaar declaration its validators accept, and offers its client-side verification accepts (an
 * HTTP route's in the discovery document its lean 402 points at, at most 4 kB; an MCP tool's in its
 * PaymentRequired), the key resolved from the `did:web` key id through the service's own DID
 * document; every paid answer
 * (Solana and Base exact over HTTP, and over MCP Solana, Base and a payment channel) carries a
 * receipt that verifies the same way, beside our unchanged X-Service-Receipt.
 */
import type { Client } from '@modelcontextprotocol/client';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { BatchSettlementEvmScheme, computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { validateDiscoveryExtension, validateDiscoveryExtensionSpec } from '@x402/extensions/bazaar';
import {
  decodeSignedOffers,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  findAcceptsObjectFromSignedOffer,
  type JWSSignedOffer,
  type JWSSignedReceipt,
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
} from '@x402/extensions/offer-receipt';
import { wrapFetchWithPayment } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { callTool, mcpClient } from '../helpers/mcp-client.ts';
import { officialSvmClient } from '../helpers/official-svm-client.ts';
import { usePaidService } from '../helpers/paid-fixture.ts';

const BASE = 'eip155:8453' as const;
const paid = usePaidService();
let client: Client;

beforeAll(async () => {
  client = await mcpClient(paid.url, 'modern');
});
afterAll(async () => {
  await client?.close();
});

const toolOf = (path: string) => path.replace(/^\/v1\//, '').replace(/[/-]/g, '_');
type Required = Parameters<typeof extractOffersFromPaymentRequired>[0];

/** What a catalog and a verifying client check of one PaymentRequired: the declaration, the metadata, each offer against its option. */
async function expectExtensions(required: Required, resourceUrl: string, type: 'http' | 'mcp'): Promise<void> {
  expectDeclaration(required, type);
  await expectOffers(required, resourceUrl);
}

/** The bazaar declaration the validators accept, and the service metadata. */
function expectDeclaration(required: Required, type: 'http' | 'mcp'): void {
  const bazaar = required.extensions!.bazaar as never;
  expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
  expect(validateDiscoveryExtensionSpec(bazaar)).toEqual({ valid: true });
  expect((bazaar as { info: { input: { type: string } } }).info.input.type).toBe(type);
  expect(required.resource).toMatchObject({ serviceName: 'solana-x402-intel' });
  // A loopback service names no icon: a catalog must not be sent to fetch from its own host.
  expect(required.resource).not.toHaveProperty('iconUrl');
}

/** One verified offer per option, each matched to its option by the library. */
async function expectOffers(required: Required, resourceUrl: string): Promise<void> {
  const offers = extractOffersFromPaymentRequired(required);
  expect(offers).toHaveLength(required.accepts.length);
  for (const offer of offers) {
    // No key given: the library resolves the did:web key id through GET /.well-known/did.json.
    const payload = await verifyOfferSignatureJWS(offer as JWSSignedOffer);
    expect(payload.resourceUrl).toBe(resourceUrl);
    expect(findAcceptsObjectFromSignedOffer(offer, required.accepts)).toBeDefined();
  }
  expect(decodeSignedOffers(offers).map((o) => o.network)).toEqual(required.accepts.map((a) => a.network));
}

/** The settlement's extension receipt verifies under the DID document's key and names the endpoint, payer and network. */
async function expectReceipt(receipt: unknown, resourceUrl: string, payer: string, network: string): Promise<void> {
  expect(receipt).toBeDefined();
  const payload = await verifyReceiptSignatureJWS(receipt as JWSSignedReceipt);
  expect(payload).toMatchObject({ version: 1, resourceUrl, network });
  expect(payload.payer.toLowerCase()).toBe(payer.toLowerCase());
}

const mcpReceipt = (settled: unknown) =>
  (settled as { extensions: { 'offer-receipt': { info: { receipt: unknown } } } }).extensions['offer-receipt'].info.receipt;

describe('402 challenges', () => {
  it('every route over HTTP: a lean 402 (at most 4 kB, a valid bazaar declaration) pointing at the verified offers of each option', async () => {
    const doc = (await (await fetch(`${paid.url}/.well-known/x402`)).json()) as { items: (Required & { resource: string })[] };
    for (const entry of CATALOG) {
      const res = await fetch(`${paid.url}${entry.path}?${new URLSearchParams(entry.example)}`);
      expect(res.status).toBe(402);
      const header = res.headers.get('payment-required')!;
      const body = await res.text();
      if (entry.path === '/v1/smri') expect(header.length + Buffer.byteLength(body)).toBeLessThanOrEqual(4096);
      const required = decodePaymentRequiredHeader(header);
      expectDeclaration(required, 'http');
      // The challenge travels once: the body is a short error naming where the offers are.
      expect(JSON.parse(body)).toEqual({ error: 'payment_required', message: expect.any(String), discovery: `${paid.url}/.well-known/x402` });
      expect(extractOffersFromPaymentRequired(required)).toEqual([]);
      const item = doc.items.find((i) => i.resource === `${paid.url}${entry.path}`)!;
      expect(item.accepts.map((a) => `${a.scheme} ${a.network} ${a.amount}`)).toEqual(required.accepts.map((a) => `${a.scheme} ${a.network} ${a.amount}`));
      expect(validateDiscoveryExtension(item.extensions!.bazaar as never)).toEqual({ valid: true });
      await expectOffers(item, `${paid.url}${entry.path}`);
    }
  });

  it('every paid tool over MCP: the tool declaration and offers for mcp://tool/<name>', async () => {
    for (const entry of CATALOG) {
      const name = toolOf(entry.path);
      const example = Object.fromEntries(Object.entries(entry.example).map(([k, v]) => [k, /^\d+$/.test(v) && k !== 'mint' ? Number(v) : v]));
      const r = await callTool(client, name, example);
      expect(r.isError).toBe(true);
      await expectExtensions(r.structuredContent as never, `mcp://tool/${name}`, 'mcp');
    }
  });

  it('the DID document binds the key id to the identity that signs our own receipts', async () => {
    const doc = (await (await fetch(`${paid.url}/.well-known/did.json`)).json()) as { verificationMethod: { publicKeyJwk: { x: string } }[] };
    expect(Buffer.from(doc.verificationMethod[0]!.publicKeyJwk.x, 'base64url')).toEqual(Buffer.from(paid.service.identity.publicKeyBytes));
  });
});

describe('receipts of paid answers', () => {
  it('HTTP on Solana: the extension receipt verifies; X-Service-Receipt is still ours', async () => {
    const res = await paid.pay('/v1/epoch?rate=both');
    expect(res.status).toBe(200);
    await expectReceipt(extractReceiptFromResponse(res), `${paid.url}/v1/epoch`, paid.payer.signer.address, 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
    const ours = JSON.parse(Buffer.from(res.headers.get('x-service-receipt')!, 'base64').toString());
    expect(ours).toMatchObject({ resource: '/v1/epoch?rate=both', signature: { signedBy: paid.service.identity.publicKey } });
  });

  it('HTTP on Base exact', async () => {
    const evm = paid.localnet.evm;
    const key = generateEvmKey();
    await evm.fundUsdc(evmAddressOfKey(key), 1_000_000n);
    const payer = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE && a.scheme === 'exact')!);
    payer.setSpendControls({ allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
    payer.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
    const res = await (wrapFetchWithPayment(fetch, payer) as typeof fetch)(`${paid.url}/v1/lending/markets?limit=2`);
    expect(res.status).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({ success: true, network: BASE });
    await expectReceipt(extractReceiptFromResponse(res), `${paid.url}/v1/lending/markets`, evmAddressOfKey(key), BASE);
  });

  it('MCP on Solana, Base exact and a Base channel (deposit, then voucher)', async () => {
    const svm = officialSvmClient(paid.payer, { rpcUrl: paid.localnet.urls.rpc, stablecoinMint: paid.localnet.stablecoinMint });
    const onSolana = await callTool(
      client,
      'epoch',
      {},
      { 'x402/payment': await svm.createPaymentPayload((await callTool(client, 'epoch', {})).structuredContent as never) },
    );
    expect(onSolana.isError, onSolana.content[0]!.text).toBeFalsy();
    await expectReceipt(
      mcpReceipt(onSolana._meta!['x402/payment-response']),
      'mcp://tool/epoch',
      paid.payer.signer.address,
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    );

    const evm = paid.localnet.evm;
    const key = generateEvmKey();
    await evm.fundUsdc(evmAddressOfKey(key), 1_000_000n);
    const spend = { allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] };
    const exact = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE && a.scheme === 'exact')!);
    exact.setSpendControls(spend);
    exact.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
    const terms = (await callTool(client, 'lending_markets', { limit: 3 })).structuredContent as never;
    const onBase = await callTool(client, 'lending_markets', { limit: 3 }, { 'x402/payment': await exact.createPaymentPayload(terms) });
    expect(onBase.isError, onBase.content[0]!.text).toBeFalsy();
    await expectReceipt(mcpReceipt(onBase._meta!['x402/payment-response']), 'mcp://tool/lending_markets', evmAddressOfKey(key), BASE);

    const channel = new x402Client((_version, accepts) => accepts.find((a) => a.scheme === 'batch-settlement')!);
    channel.setSpendControls(spend);
    const scheme = new BatchSettlementEvmScheme(evmAccountFromKey(key));
    channel.register('eip155:*', scheme);
    const deposit = await channel.createPaymentPayload(terms);
    const first = await callTool(client, 'lending_markets', { limit: 3 }, { 'x402/payment': deposit });
    expect(first.isError, first.content[0]!.text).toBeFalsy();
    await expectReceipt(mcpReceipt(first._meta!['x402/payment-response']), 'mcp://tool/lending_markets', evmAddressOfKey(key), BASE);
    const config = scheme.buildChannelConfig(deposit.accepted);
    const voucher = await signVoucher(evmAccountFromKey(key), computeChannelId(config, BASE), '2000', BASE);
    const next = { x402Version: 2, accepted: deposit.accepted, payload: { type: 'voucher', channelConfig: config, voucher } };
    const second = await callTool(client, 'lending_markets', { limit: 2 }, { 'x402/payment': next });
    expect(second.isError, second.content[0]!.text).toBeFalsy();
    await expectReceipt(mcpReceipt(second._meta!['x402/payment-response']), 'mcp://tool/lending_markets', evmAddressOfKey(key), BASE);
  });
});
