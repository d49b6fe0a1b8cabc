/**
 * Paying MCP tools with the official clients: the official x402 client builds the payment from the
 * tool's PaymentRequired result (`createPaymentPayload`), the official MCP client sends it in
 * `_meta["x402/payment"]`; the result carries the settlement and a receipt that an independent
 * verifier (tweetnacl) accepts. One processor serves both transports: a replay over MCP or over HTTP
 * is refused, a failed answer charges nothing, and a client that goes away is not charged.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { x402Client } from '@x402/core/client';
import { BatchSettlementEvmScheme, computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createEvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import type { PaidHandler } from '../../src/intel/handler-group.ts';
import { expectPaidTiming, SETTLED_PHASES } from '../helpers/check-response.ts';
import { callTool, mcpClient, rawToolCall } from '../helpers/mcp-client.ts';
import { officialSvmClient, SOLANA } from '../helpers/official-svm-client.ts';
import { usePaidService } from '../helpers/paid-fixture.ts';

const BASE = 'eip155:8453';
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** nft-collection is held open until its caller goes away, to watch an abort reach a paid call. */
let handlerStarted: () => void = () => undefined;
let handlerAborted: () => void = () => undefined;
const heldOpen: PaidHandler = (_query, signal) =>
  new Promise((_resolve, reject) => {
    handlerStarted();
    signal.addEventListener('abort', () => {
      handlerAborted();
      reject(signal.reason);
    });
  });

const paid = usePaidService({ service: { handlers: { '/v1/nft-collection': heldOpen as never } } });
let client: Client;

beforeAll(async () => {
  client = await mcpClient(paid.url, 'modern');
});
afterAll(async () => {
  await client?.close();
});

/** The PaymentRequired of a tool call, and a payment for it from `payer`. */
async function paymentFor(payer: x402Client, tool: string, args: Record<string, unknown>) {
  const required = await callTool(client, tool, args);
  expect(required.isError).toBe(true);
  return payer.createPaymentPayload(required.structuredContent as never);
}

function svmPayer(): x402Client {
  return officialSvmClient(paid.payer, { rpcUrl: paid.localnet.urls.rpc, stablecoinMint: paid.localnet.stablecoinMint });
}

describe('paying a tool on Solana', () => {
  let payment: Awaited<ReturnType<x402Client['createPaymentPayload']>>;
  let receiptHeader = '';

  it('settles exactly the price and answers with the settle response and a receipt tweetnacl verifies', async () => {
    payment = await paymentFor(svmPayer(), 'epoch', { rate: 'both' });
    const before = await paid.payToBalance();
    const r = await callTool(client, 'epoch', { rate: 'both' }, { 'x402/payment': payment });
    expect(r.isError, r.content[0]!.text).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ epoch: expect.any(Number) });
    expect(await paid.payToBalance()).toBe(before + 1000n);
    expect(r._meta!['x402/payment-response']).toMatchObject({ success: true, network: SOLANA, payer: paid.payer.signer.address });

    expectPaidTiming(r._meta!['x402/server-timing'], SETTLED_PHASES);
    const header: string = r._meta!['x402/receipt'];
    receiptHeader = header;
    const { signature, ...unsigned } = JSON.parse(Buffer.from(header, 'base64').toString());
    expect(unsigned).toMatchObject({ endpoint: '/v1/epoch', resource: '/v1/epoch?rate=both', priceUsdcUnits: 1000, network: SOLANA });
    expect(unsigned.requestSha256).toBe(sha256('GET /v1/epoch?rate=both'));
    expect(unsigned.responseSha256).toBe(sha256(r.content[0]!.text));
    const canonical = new TextEncoder().encode(JSON.stringify(unsigned));
    expect(signature.signedBy).toBe(paid.service.identity.publicKey);
    expect(nacl.sign.detached.verify(canonical, bs58.decode(signature.signatureBase58), bs58.decode(signature.signedBy))).toBe(true);

    const verdict = await callTool(client, 'verify_receipt', { receipt: header, bodySha256: unsigned.responseSha256 });
    expect(verdict.structuredContent).toMatchObject({ valid: true });
    const proof = await callTool(client, 'trust_proof', { index: unsigned.ledgerIndex });
    expect(proof.structuredContent!.entry).toMatchObject({ kind: 'payment', endpoint: '/v1/epoch', receiptSha256: sha256(Buffer.from(canonical)) });
  });

  it('the same payment sent again gets its first answer again, over MCP and over HTTP, charging nothing more', async () => {
    const before = await paid.payToBalance();
    const entries = paid.service.ledger.head().treeSize;
    const again = await callTool(client, 'epoch', { rate: 'both' }, { 'x402/payment': payment });
    expect(again.isError).toBeFalsy();
    expect(again._meta?.['x402/receipt']).toBe(receiptHeader);
    const http = await fetch(`${paid.url}/v1/epoch?rate=both`, { headers: { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(payment)).toString('base64') } });
    expect(http.status).toBe(200);
    expect(http.headers.get('x-service-receipt')).toBe(receiptHeader);
    // The same payment for another request is not a retry: refused.
    const other = await callTool(client, 'epoch', { rate: 'alt' }, { 'x402/payment': payment });
    expect(other.isError).toBe(true);
    expect(other.structuredContent!.error).toMatch(/^duplicate_settlement/);
    expect(await paid.payToBalance()).toBe(before);
    expect(paid.service.ledger.head().treeSize).toBe(entries);
  });

  it('charges nothing for a failed answer: an unknown mint is not_found, and no ledger entry is written', async () => {
    const unknownMint = bs58.encode(createHash('sha256').update('no such mint').digest());
    const p = await paymentFor(svmPayer(), 'smri', { mint: unknownMint });
    const before = await paid.payToBalance();
    const size = paid.service.ledger.head().treeSize;
    const r = await callTool(client, 'smri', { mint: unknownMint }, { 'x402/payment': p });
    expect(r).toMatchObject({ isError: true, structuredContent: { error: 'not_found' } });
    expect(r._meta?.['x402/payment-response']).toBeUndefined();
    expect(await paid.payToBalance()).toBe(before);
    expect(paid.service.ledger.head().treeSize).toBe(size);
  });

  it('stops a paid call whose client goes away, before anything is settled', async () => {
    const p = await paymentFor(svmPayer(), 'nft_collection', { symbol: 'local_apes' });
    const started = new Promise<void>((resolve) => (handlerStarted = resolve));
    const aborted = new Promise<void>((resolve) => (handlerAborted = resolve));
    const before = await paid.payToBalance();
    const controller = new AbortController();
    const call = rawToolCall(paid.url, 'nft_collection', { symbol: 'local_apes' }, { meta: { 'x402/payment': p }, signal: controller.signal });
    // The response may already be an open event stream: read it so the abort cuts a live exchange.
    const read = call.then((res) => res.text()).catch(() => 'aborted');
    await started;
    controller.abort();
    await aborted;
    expect(await read).toBe('aborted');
    expect(await paid.payToBalance()).toBe(before);
  });
});

describe('paying a tool on Base', () => {
  it('settles the price on the Base option and the receipt names Base', async () => {
    const evm = paid.localnet.evm;
    const key = generateEvmKey();
    await evm.fundUsdc(evmAddressOfKey(key), 1_000_000n);
    const payer = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE)!);
    payer.setSpendControls({ allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
    payer.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));
    const reader = createEvmTokenReader({ rpcUrl: evm.url, asset: evm.usdcAddress });
    const balance = async () => {
      const state = await reader.payerState(paid.service.terms.evm.payTo, `0x${'00'.repeat(32)}`);
      if (!state.ok) throw new Error(state.message);
      return state.balance;
    };
    const before = await balance();
    const p = await paymentFor(payer, 'lending_markets', { limit: 3 });
    const r = await callTool(client, 'lending_markets', { limit: 3 }, { 'x402/payment': p });
    expect(r.isError, r.content[0]!.text).toBeFalsy();
    expect(r._meta!['x402/payment-response']).toMatchObject({ success: true, network: BASE });
    const receipt = JSON.parse(Buffer.from(r._meta!['x402/receipt'], 'base64').toString());
    expect(receipt).toMatchObject({ network: BASE, resource: '/v1/lending/markets?limit=3', endpoint: '/v1/lending/markets' });
    expect((await balance()) - before).toBe(1000n);
  });
});

describe('paying tools through a payment channel', () => {
  it('takes the deposit with the first call and a voucher with the next, each answered with its charge and a receipt', async () => {
    const evm = paid.localnet.evm;
    const key = generateEvmKey();
    await evm.fundUsdc(evmAddressOfKey(key), 1_000_000n);
    const payer = new x402Client((_version, accepts) => accepts.find((a) => a.scheme === 'batch-settlement')!);
    payer.setSpendControls({ allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
    const scheme = new BatchSettlementEvmScheme(evmAccountFromKey(key));
    payer.register('eip155:*', scheme);
    const deposit = await paymentFor(payer, 'lending_markets', { limit: 3 });
    expect((deposit.payload as { type: string }).type).toBe('deposit');
    const first = await callTool(client, 'lending_markets', { limit: 3 }, { 'x402/payment': deposit });
    expect(first.isError, first.content[0]!.text).toBeFalsy();
    const settled = first._meta!['x402/payment-response'];
    expect(settled).toMatchObject({ success: true, network: BASE, extra: { chargedAmount: '1000', channelState: { chargedCumulativeAmount: '1000' } } });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    const terms = deposit.accepted;
    const config = scheme.buildChannelConfig(terms);
    const voucher = await signVoucher(evmAccountFromKey(key), computeChannelId(config, BASE), '2000', BASE);
    const next = { x402Version: 2, accepted: terms, payload: { type: 'voucher', channelConfig: config, voucher } };
    const second = await callTool(client, 'lending_markets', { limit: 2 }, { 'x402/payment': next });
    expect(second.isError, second.content[0]!.text).toBeFalsy();
    expect(second._meta!['x402/payment-response']).toMatchObject({
      success: true,
      transaction: '',
      extra: { channelState: { chargedCumulativeAmount: '2000' } },
    });
    const receipt = JSON.parse(Buffer.from(second._meta!['x402/receipt'], 'base64').toString());
    expect(receipt).toMatchObject({ network: BASE, resource: '/v1/lending/markets?limit=2' });
  });
});
