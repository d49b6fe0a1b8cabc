/**
 * Solana x402 payments end to end against the real service and the embedded localnet, paid with
 * the official client (@x402/fetch + @x402/svm): settlement moves exactly the price, one payment
 * buys one answer (concurrently and across a restart), tampered payments are refused with the
 * x402 reason, a failed answer charges nothing, and payment-identifier retries are idempotent.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { wrapFetchWithPayment, type x402Client } from '@x402/fetch';
import { getTransferSolInstruction } from '@solana-program/system';
import { address } from '@solana/kit';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ServiceError } from '../../src/errors.ts';
import type { Localnet } from '@solana-x402-intel/localnet';
import { startService, type RunningService, type Upstreams } from '../../src/service/service.ts';
import { expectPaidTiming, SETTLED_PHASES } from '../helpers/check-response.ts';
import { readJson } from '../helpers/read-json.ts';
import { SOLANA, officialSvmClient } from '../helpers/official-svm-client.ts';
import { fundedPayer, handBuiltPaymentHeader, type PaymentTxOptions, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

const EPOCH_PRICE = 1000n;
let localnet: Localnet;
let upstreams: Upstreams;
let dataDir: string;
let service: RunningService;
let payer: TestPayer;

const failingHandlers = {
  '/v1/smri': async () => {
    throw new ServiceError('not_found', 'no such mint on chain');
  },
};

async function start(): Promise<RunningService> {
  const config = loadConfig({}, ['--port', '0', '--admin-port', '0', '--data-dir', dataDir]);
  return startService(config, { upstreams, handlers: failingHandlers });
}

function officialClient(p: TestPayer): x402Client {
  return officialSvmClient(p, { rpcUrl: localnet.urls.rpc, stablecoinMint: localnet.stablecoinMint });
}

async function challenge(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!);
}

/** A payment header made by the official client for `url`, not yet sent. */
async function officialPaymentHeader(url: string, p = payer, paymentId?: string): Promise<string> {
  const required = await challenge(url);
  if (paymentId)
    required.extensions = {
      ...required.extensions,
      'payment-identifier': { ...(required.extensions?.['payment-identifier'] as object), info: { required: false, id: paymentId } },
    };
  const payload = await officialClient(p).createPaymentPayload(required);
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

const payToBalance = () => tokenBalance(localnet.urls.rpc, service.terms.svm.payTo, localnet.stablecoinMint);
const paid = (url: string, header: string) => fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });

beforeAll(async () => {
  ({ localnet, upstreams } = await startTestLocalnet());
  dataDir = mkdtempSync(join(tmpdir(), 'x402-pay-'));
  service = await start();
  payer = await fundedPayer(localnet.urls.rpc, 10_000_000);
});
afterAll(async () => {
  await service.close();
  await localnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('official client pays /v1/epoch', () => {
  it('answers 200 with PAYMENT-RESPONSE and moves exactly the price', async () => {
    const before = await payToBalance();
    const payerBefore = await tokenBalance(localnet.urls.rpc, payer.signer.address, localnet.stablecoinMint);
    const res = await wrapFetchWithPayment(fetch, officialClient(payer))(`${service.url}/v1/epoch`);
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(['geyser', 'rpc-fallback']).toContain(body.source);
    for (const k of ['epoch', 'slotIndex', 'slotsInEpoch', 'etaSecondsToEnd']) expect(Number.isInteger(body[k])).toBe(true);
    expect(body.slotRates.primary.slotMs).toBeGreaterThan(0);
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settled).toMatchObject({ success: true, network: SOLANA, payer: payer.signer.address });
    expect(settled.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const timing = expectPaidTiming(res.headers.get('server-timing'), SETTLED_PHASES);
    // The settlement waits for the chain, so it cannot take less than the parts it contains.
    expect(timing.total).toBeGreaterThanOrEqual(timing.settle!);
    expect(await payToBalance()).toBe(before + EPOCH_PRICE);
    expect(await tokenBalance(localnet.urls.rpc, payer.signer.address, localnet.stablecoinMint)).toBe(payerBefore - EPOCH_PRICE);
  });

  it('reports the Solana kind and fee payer in /facilitator/supported', async () => {
    const body = await readJson(fetch(`${service.url}/facilitator/supported`));
    expect(body.kinds).toContainEqual({ x402Version: 2, scheme: 'exact', network: SOLANA, extra: { feePayer: service.identity.publicKey } });
    expect(body.signers[SOLANA]).toEqual([service.identity.publicKey]);
  });
});

describe('one payment buys one answer', () => {
  it('8 concurrent copies: exactly one 200, the rest 402 duplicate_settlement, one charge', async () => {
    const url = `${service.url}/v1/epoch?rate=both`;
    const header = await officialPaymentHeader(url);
    const before = await payToBalance();
    const answers = await Promise.all(Array.from({ length: 8 }, () => paid(url, header)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 402, 402, 402, 402, 402, 402, 402]);
    for (const r of answers.filter((a) => a.status === 402)) expect((await readJson(r)).error).toMatch(/^duplicate_settlement/);
    expect(await payToBalance()).toBe(before + EPOCH_PRICE);
  });

  it('after a restart over the same data dir, the same payment gets its first answer again and another request is refused', async () => {
    const url = `${service.url}/v1/epoch`;
    const header = await officialPaymentHeader(url);
    const first = await paid(url, header);
    expect(first.status).toBe(200);
    const receipt = first.headers.get('x-service-receipt');
    await service.close();
    service = await start();
    const before = await payToBalance();
    const entries = service.ledger.head().treeSize;
    const again = await paid(`${service.url}/v1/epoch`, header);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-service-receipt')).toBe(receipt);
    const other = await paid(`${service.url}/v1/epoch?rate=alt`, header);
    expect(other.status).toBe(402);
    expect((await readJson(other)).error).toMatch(/^duplicate_settlement/);
    expect(await payToBalance()).toBe(before);
    expect(service.ledger.head().treeSize).toBe(entries);
  });
});

describe('charged only for a 200', () => {
  it('a handler failing with not_found answers 404 and settles nothing', async () => {
    const url = `${service.url}/v1/smri?mint=DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263`;
    const header = await officialPaymentHeader(url);
    const before = await payToBalance();
    const res = await paid(url, header);
    expect(res.status).toBe(404);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(await readJson(res)).toMatchObject({ error: 'not_found' });
    expect(await payToBalance()).toBe(before);
  });
});

describe('tampered payments are refused with the x402 reason', () => {
  const cases: [string, string, (o: PaymentTxOptions) => PaymentTxOptions][] = [
    ['amount one unit short', 'invalid_exact_svm_payload_amount_mismatch', (o) => ({ ...o, amount: o.amount - 1n })],
    ['amount one unit over', 'invalid_exact_svm_payload_amount_mismatch', (o) => ({ ...o, amount: o.amount + 1n })],
    ['destination of another owner', 'invalid_exact_svm_payload_recipient_mismatch', (o) => ({ ...o, payTo: payer.signer.address })],
    [
      'an extra System transfer after the memo',
      'invalid_exact_svm_payload_unknown_fifth_instruction',
      (o) => ({ ...o, extra: [getTransferSolInstruction({ source: payer.signer, destination: address(localnet.stablecoinMint), amount: 1n })] }),
    ],
    [
      'the fee payer named in an extra instruction',
      'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
      (o) => ({ ...o, extra: [getTransferSolInstruction({ source: payer.signer, destination: address(service.identity.publicKey), amount: 1n })] }),
    ],
    [
      'the fee payer as transfer authority',
      'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
      (o) => ({ ...o, authority: service.identity.publicKey }),
    ],
    [
      'compute-unit price over the cap',
      'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high',
      (o) => ({ ...o, cuPrice: 5_000_001n }),
    ],
    [
      'no compute-budget instructions',
      'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction',
      (o) => ({
        ...o,
        noComputeBudget: true,
        extra: [
          { programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), data: new Uint8Array([49]) },
          { programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), data: new Uint8Array([50]) },
        ],
      }),
    ],
    ['a fee payer other than ours', 'invalid_exact_svm_fee_payer_mismatch', (o) => ({ ...o, feePayer: payer.signer.address })],
  ];

  it.each(cases)('%s', async (_why, reason, mutate) => {
    const url = `${service.url}/v1/epoch`;
    const required = await challenge(url);
    const accepted = required.accepts[0]!;
    const header = await handBuiltPaymentHeader(
      { accepted, resource: required.resource },
      { payer, feePayer: service.identity.publicKey, mint: localnet.stablecoinMint },
      mutate,
    );
    const before = await payToBalance();
    const res = await paid(url, header);
    expect(res.status).toBe(402);
    expect((await readJson(res)).error.split(':')[0]).toBe(reason);
    expect(await payToBalance()).toBe(before);
  });

  it('one flipped byte of the payer signature', async () => {
    const url = `${service.url}/v1/epoch`;
    const payload = JSON.parse(Buffer.from(await officialPaymentHeader(url), 'base64').toString());
    const wire = Buffer.from(payload.payload.transaction, 'base64');
    wire[1 + 64 + 10]! ^= 0x01;
    payload.payload.transaction = wire.toString('base64');
    const res = await paid(url, Buffer.from(JSON.stringify(payload)).toString('base64'));
    expect(res.status).toBe(402);
    expect(res.headers.get('server-timing'), 'timing is on paid 200s only').toBeNull();
    expect((await readJson(res)).error).toMatch(/^invalid_exact_svm_payload_signature_invalid/);
  });
});

describe('payment-identifier', () => {
  it('same id and payload: the cached answer, one charge; same id, other payload: 409', async () => {
    const url = `${service.url}/v1/epoch?rate=primary`;
    const id = 'pay_idempotent_abcdef0123456789';
    const header = await officialPaymentHeader(url, payer, id);
    const before = await payToBalance();
    const first = await paid(url, header);
    expect(first.status).toBe(200);
    const second = await paid(url, header);
    expect(second.status).toBe(200);
    expect(await second.text()).toBe(await first.text());
    expect(second.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
    // The replay did no work of its own, and never shows the first call's timing as its own.
    expectPaidTiming(first.headers.get('server-timing'), SETTLED_PHASES);
    expect(second.headers.get('server-timing')).toBeNull();
    expect(await payToBalance()).toBe(before + EPOCH_PRICE);
    const other = await officialPaymentHeader(url, payer, id);
    const conflict = await paid(url, other);
    expect(conflict.status).toBe(409);
    expect(await readJson(conflict)).toMatchObject({ error: 'payment_identifier_conflict' });
    expect(await payToBalance()).toBe(before + EPOCH_PRICE);
  });
});

describe('the challenge', () => {
  it('carries a live recentBlockhash the payer can use, and a payment against an older challenge still matches', async () => {
    const url = `${service.url}/v1/epoch`;
    const header = await officialPaymentHeader(url);
    const oldBlockhash = JSON.parse(Buffer.from(header, 'base64').toString()).accepted.extra.recentBlockhash;
    // The challenge follows the chain: a later one names a newer blockhash.
    await vi.waitUntil(async () => (await challenge(url)).accepts[0]!.extra!.recentBlockhash !== oldBlockhash, { timeout: 20_000, interval: 100 });
    expect((await paid(url, header)).status).toBe(200);
  });
});
