/**
 * Money properties over hostile payments on the real service and its localnet (fast-check, seeded:
 * FUZZ_SEED). Solana `exact`: a payment's transaction rebuilt by hand with any part changed; Base
 * `exact`: the official client's authorization changed anywhere. Each run sends one payment and
 * reads the chain before and after: never a 5xx; a 200 carries a receipt and moves exactly the
 * price from the payer to us (a replayed 200, same receipt, moves nothing); anything else moves
 * nothing; our Solana fee payer spends, per settled call, at most the base fee of the signatures
 * plus the priority-fee ceiling, exactly what /health counts, and nothing for a refused payment.
 * The channel scheme's property is in test/integration/fuzz.test.ts ("fuzz: channel payments").
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createEvmTokenReader, type EvmTokenReader } from '../../src/chain/evm/evm-token-reader.ts';
import { DEFAULT_MAX_PRIORITY_FEE_LAMPORTS, LAMPORTS_PER_SIGNATURE, MAX_REQUIRED_SIGNATURES } from '../../src/x402/exact-svm/svm-rules.ts';
import { FUZZ_SEED } from '../helpers/fuzz-arbitraries.ts';
import { SOLANA } from '../helpers/official-svm-client.ts';
import { type EvmContext, type EvmPayment, evmMutation, resign } from '../helpers/evm-payment-mutations.ts';
import { flipWireByte, oneIn, svmMutation, svmOptions, svmSignatures } from '../helpers/svm-payment-mutations.ts';
import { buildPaymentTx, fundedPayer, rpcCall, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';
import { readUntil } from '../helpers/read-until.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const BASE = 'eip155:8453';
const PATH = '/v1/epoch';
/**
 * Each property checks its 60 cases whatever runs beside it: the time limit only stops a hung run
 * with fast-check's report (seed, cases done) before vitest's limit would, and a run it stops fails
 * (markInterruptAsFailure), never passes on fewer cases. Each took 83 s at load 20 beside fuzz.test.ts
 * (60 runs done), seconds when quiet; the limit leaves the test its 300 s.
 */
const RUN = { seed: FUZZ_SEED, numRuns: 60, interruptAfterTimeLimit: 270_000, markInterruptAsFailure: true } as const;
/** The service runs with the default ceiling, so the property holds the default. */
const CEILING_LAMPORTS = BigInt(DEFAULT_MAX_PRIORITY_FEE_LAMPORTS);
let t: TestService;

beforeAll(async () => {
  t = await startTestService();
}, 120_000);
afterAll(async () => {
  expect((await fetch(`${t.url}/health`)).status).toBe(200);
  await t?.close();
});

const encode = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64');
const paid = (header: string) => fetch(`${t.url}${PATH}`, { headers: { 'PAYMENT-SIGNATURE': header } });

async function challenge() {
  const res = await fetch(`${t.url}${PATH}`);
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!);
}

/** The status, receipt and PAYMENT-RESPONSE of one paid call; never a 5xx, and a 200 always carries both. */
async function send(header: string, label: string): Promise<{ status: number; receipt: string | null; transaction: string | null }> {
  const res = await paid(header);
  const body = await res.text();
  expect(res.status, `${label}: ${body.slice(0, 300)}`).toBeLessThan(500);
  if (res.status !== 200) return { status: res.status, receipt: null, transaction: null };
  expect(res.headers.get('payment-response'), label).toBeTruthy();
  expect(res.headers.get('x-service-receipt'), label).toBeTruthy();
  const { transaction } = decodePaymentResponseHeader(res.headers.get('payment-response')!);
  return { status: 200, receipt: res.headers.get('x-service-receipt'), transaction };
}

describe('Solana exact: a transaction rebuilt with any part changed', () => {
  let payer: TestPayer;
  beforeAll(async () => {
    payer = await fundedPayer(t.localnet!.urls.rpc, 1_000_000);
    // The bound below is the ceiling the service runs with, as it reports it.
    const limits = ((await (await fetch(`${t.url}/health`)).json()) as { feePayer: { limits: { maxPriorityFeeLamports: number } } }).feePayer.limits;
    expect(BigInt(limits.maxPriorityFeeLamports)).toBe(CEILING_LAMPORTS);
  });

  const rpc = () => t.localnet!.urls.rpc;
  const feePayerLamports = async () =>
    BigInt((await rpcCall<{ value: number }>(rpc(), 'getBalance', [t.service.identity.publicKey, { commitment: 'processed' }])).value);
  const healthSpent = async () =>
    BigInt(((await (await fetch(`${t.url}/health`)).json()) as { feePayer: { spentLamports: { total: number } } }).feePayer.spentLamports.total);
  const payerTokens = () => tokenBalance(rpc(), payer.signer.address, t.localnet!.stablecoinMint);
  const signatureSeen = async (signature: string) => (await rpcCall<{ value: unknown[] }>(rpc(), 'getSignatureStatuses', [[signature]])).value[0] !== null;

  it('never 5xx; a 200 charges exactly the price and costs the fee payer at most its signatures plus the ceiling; a refusal costs nothing', async () => {
    let settled = 0;
    const receipts = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(svmMutation, async (m) => {
        const required = await challenge();
        const accepted = required.accepts.find((a) => a.network === SOLANA)!;
        const price = BigInt(accepted.amount);
        const options = await svmOptions(m, {
          payer,
          feePayer: t.service.identity.publicKey,
          mint: t.localnet!.stablecoinMint,
          payTo: accepted.payTo,
          amount: price,
          blockhash: String(accepted.extra!.recentBlockhash),
        });
        const signed = await buildPaymentTx(options);
        const transaction = m.flipByte === null ? signed : flipWireByte(signed, m.flipByte);
        const [lamports, spent, tokens] = [await feePayerLamports(), await healthSpent(), await payerTokens()];
        const label = JSON.stringify(m, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
        const {
          status,
          receipt,
          transaction: signature,
        } = await send(encode({ x402Version: 2, accepted, resource: required.resource, payload: { transaction } }), label);
        // An early answer may come before its transaction is processed (a payer with history is
        // handed off: answered once the send is on its way): the balances are read once it is.
        if (signature) await readUntil(() => signatureSeen(signature), Boolean);
        const [feePaid, counted, charged] = [lamports - (await feePayerLamports()), (await healthSpent()) - spent, tokens - (await payerTokens())];
        // The same transaction sent again (a draw without a memo repeats its bytes) gets its first answer again, uncharged.
        const replayed = status === 200 && receipts.has(receipt!);
        if (replayed) expect(receipts.get(receipt!), label).toBe(transaction);
        if (status === 200 && !replayed) {
          settled++;
          receipts.set(receipt!, transaction);
          expect(charged, label).toBe(price);
          expect(feePaid, label).toBeGreaterThan(0n);
          // Signatures the payer adds are ours to pay too: no more of them than the cap.
          const signatures = Math.min(svmSignatures(m), MAX_REQUIRED_SIGNATURES);
          expect(feePaid, label).toBeLessThanOrEqual(LAMPORTS_PER_SIGNATURE * BigInt(signatures) + CEILING_LAMPORTS);
          expect(counted, label).toBe(feePaid);
        } else {
          expect([charged, feePaid, counted], label).toEqual([0n, 0n, 0n]);
        }
      }),
      RUN,
    );
    // The draws include the honest payment and harmless changes: a property that never settles proves nothing.
    expect(settled).toBeGreaterThan(0);
  }, 300_000);
});

describe('Base exact: the official authorization changed anywhere', () => {
  let reader: EvmTokenReader;
  const key = generateEvmKey();
  const from = evmAddressOfKey(key);
  const client = new x402Client((_version, accepts) => accepts.find((a) => a.network === BASE && a.scheme === 'exact')!);
  client.register('eip155:*', new ExactEvmScheme(evmAccountFromKey(key)));

  beforeAll(async () => {
    const evm = t.localnet!.evm;
    client.setSpendControls({ allowedAssets: [{ network: BASE, asset: evm.usdcAddress, maxAmountPerPayment: '1000000' }] });
    await evm.fundUsdc(from, 1_000_000n);
    reader = createEvmTokenReader({ rpcUrl: evm.url, asset: evm.usdcAddress });
  });

  const balanceOf = async (owner: string): Promise<bigint> => {
    const state = await reader.payerState(owner, `0x${'00'.repeat(32)}`);
    if (!state.ok) throw new Error(state.message);
    return state.balance;
  };

  it('never 5xx; payTo gains and the payer loses exactly the price per distinct 200, and nothing otherwise', async () => {
    const payTo = t.service.terms.evm.payTo;
    const receipts = new Set<string>();
    const settledNonces: string[] = [];
    const sentBefore: string[] = [];
    let fresh = 0;
    await fc.assert(
      fc.asyncProperty(
        evmMutation,
        oneIn(8),
        oneIn(4).map((x) => !x),
        async (mutation, replay, signAgain) => {
          const required = await challenge();
          const accepted = required.accepts.find((a) => a.network === BASE && a.scheme === 'exact') as PaymentRequirements;
          const honest = (await client.createPaymentPayload(required)) as unknown as EvmPayment;
          const ctx: EvmContext = { nowSeconds: Math.floor(Date.now() / 1000), stranger: evmAddressOfKey(generateEvmKey()), settledNonces };
          // A replay sends a payment sent before again, as it was: its 200 (if it had one) may come back, never a second charge.
          const changed = mutation ? mutation.change(honest, ctx) : honest;
          const resigned = signAgain && mutation?.field.startsWith('authorization.');
          const header = replay && sentBefore.length ? sentBefore[sentBefore.length - 1]! : encode(resigned ? await resign(changed, key) : changed);
          const [received, spentFrom] = [await balanceOf(payTo), await balanceOf(from)];
          const label = replay ? 'replay' : `${mutation?.field ?? 'unchanged'}${resigned ? ' (signed again)' : ''}`;
          const { status, receipt } = await send(header, label);
          const [gained, lost] = [(await balanceOf(payTo)) - received, spentFrom - (await balanceOf(from))];
          const charged = status === 200 && !receipts.has(receipt!);
          expect([gained, lost], label).toEqual(charged ? [BigInt(accepted.amount), BigInt(accepted.amount)] : [0n, 0n]);
          if (charged) {
            fresh++;
            receipts.add(receipt!);
            settledNonces.unshift((JSON.parse(Buffer.from(header, 'base64').toString()) as EvmPayment).payload.authorization.nonce);
          }
          sentBefore.push(header);
        },
      ),
      RUN,
    );
    expect(fresh).toBeGreaterThan(0);
  }, 300_000);
});
