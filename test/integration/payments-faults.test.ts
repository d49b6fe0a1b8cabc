/**
 * Faults after the money moved must not withhold the answer: the payment processor over a real
 * Solana exact scheme and localnet, with a ledger that refuses the append (closed) and a replay
 * record whose file is closed. The payer is charged once and still gets the 200 with
 * PAYMENT-RESPONSE; the fault is reported; the same payment is still refused afterwards.
 */
import { commitEachAlone } from '../../src/durable/staged-write.ts';
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { encodeBase58 } from '../../src/chain/solana/base58.ts';
import { createRpcClient } from '../../src/chain/solana/rpc-client.ts';
import type { Localnet } from '@solana-x402-intel/localnet';
import { createWorkerPool, type WorkerPool } from '../../src/pool/worker-pool.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';
import { createLedger } from '../../src/ledger/ledger.ts';
import { RECEIPT_HEADER } from '../../src/receipts/receipt.ts';
import { createReceiptIssuer } from '../../src/receipts/receipt-issuer.ts';
import type { ExactScheme } from '../../src/x402/types/exact-scheme.ts';
import type { PaidCall } from '../../src/x402/types/paid-call.ts';
import { createPaymentProcessor } from '../../src/x402/flow/payment-processor.ts';
import { createChallengeBuilder, type ChallengeBuilder, type PaymentTermsConfig } from '../../src/x402/delivery/payment-terms.ts';
import { createReplayGuard } from '../../src/x402/stores/replay-guard.ts';
import { createSvmExactScheme } from '../../src/x402/exact-svm/svm-exact.ts';
import type { PaymentPayload } from '../../src/x402/types/x402-types.ts';
import { buildPaymentTx, fundedPayer, rpcCall, tokenBalance, type TestPayer } from '../helpers/svm-payer.ts';
import { startTestLocalnet } from '../helpers/test-service.ts';

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const entry = CATALOG.find((e) => e.path === '/v1/epoch')!;
const BODY = '{"answer":"computed before settlement"}';
let localnet: Localnet;
let pool: WorkerPool<PoolTasks>;
let scheme: ExactScheme;
let payer: TestPayer;
let feePayer: string;
let builder: ChallengeBuilder;
const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'x402-faults-'));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  ({ localnet } = await startTestLocalnet());
  const seed = new Uint8Array(randomBytes(32));
  feePayer = (await createKeyPairSignerFromPrivateKeyBytes(seed)).address;
  const payTo = encodeBase58(new Uint8Array(randomBytes(32)));
  await rpcCall(localnet.urls.rpc, 'requestAirdrop', [feePayer, 10_000_000_000]);
  await rpcCall(localnet.urls.rpc, 'localnet_fundStablecoin', [payTo, 0]);
  pool = createWorkerPool({ size: 1, identitySeed: seed });
  scheme = createSvmExactScheme({ network: SOLANA, feePayer, rpc: createRpcClient({ url: localnet.urls.rpc }), pool });
  const terms: PaymentTermsConfig = {
    svm: { payTo, asset: localnet.stablecoinMint, feePayer },
    evm: { payTo: `0x${'11'.repeat(20)}`, asset: `0x${'22'.repeat(20)}`, name: 'USD Coin', version: '2' },
  };
  builder = createChallengeBuilder(entry, terms);
  payer = await fundedPayer(localnet.urls.rpc, 1_000_000);
});
afterAll(async () => {
  await pool.close();
  await localnet.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function paidCall(onAnswer?: () => void, signal = new AbortController().signal): Promise<PaidCall> {
  const requirements = builder.accepts.find((a) => a.network === SOLANA)!;
  const { value } = await rpcCall<{ value: { blockhash: string } }>(localnet.urls.rpc, 'getLatestBlockhash', [{ commitment: 'confirmed' }]);
  const transaction = await buildPaymentTx({
    payer,
    feePayer,
    mint: requirements.asset,
    payTo: requirements.payTo,
    amount: BigInt(requirements.amount),
    blockhash: value.blockhash,
  });
  const payment: PaymentPayload = { x402Version: 2, accepted: requirements, payload: { transaction } };
  return {
    entry,
    payment,
    requirements,
    resourceUrl: 'http://127.0.0.1/v1/epoch',
    request: { path: '/v1/epoch', query: '', signal },
    answer: async () => {
      onAnswer?.();
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: BODY };
    },
  };
}

const payToBalance = () => tokenBalance(localnet.urls.rpc, builder.accepts[0]!.payTo, localnet.stablecoinMint);

describe('faults after settlement never withhold the answer', () => {
  it('the ledger refuses the entry: 200 with PAYMENT-RESPONSE, no receipt, fault reported, charged once', async () => {
    const dir = freshDir();
    const ledger = await createLedger({ dir: join(dir, 'ledger') });
    const receipts = createReceiptIssuer({
      ledger,
      service: 'faults',
      serviceVersion: '0',
      baseUrl: () => 'http://127.0.0.1',
      publicKey: feePayer,
      sign: (message) => pool.runTask('signEd25519', { message }),
    });
    await ledger.close();
    const replayGuard = createReplayGuard({ dir: join(dir, 'replay') });
    const faults: string[] = [];
    const processor = createPaymentProcessor({ schemes: [scheme], replayGuard, receipts, challengeFor: () => builder, onFault: (what) => faults.push(what) });
    const call = await paidCall();
    const before = await payToBalance();
    const reply = await processor.processPaidCall(call);
    expect(reply.status).toBe(200);
    expect(String(reply.body)).toBe(BODY);
    expect(decodePaymentResponseHeader(reply.headers!['PAYMENT-RESPONSE']!)).toMatchObject({ success: true, network: SOLANA, payer: payer.signer.address });
    expect(reply.headers![RECEIPT_HEADER]).toBeUndefined();
    expect(faults).toEqual([expect.stringMatching(/^receipt or ledger entry failed after settlement/)]);
    expect(await payToBalance()).toBe(before + BigInt(entry.priceUnits));
    // Sent again: that same answer (still without a receipt), not a second charge.
    const again = await processor.processPaidCall(call);
    expect(again.status).toBe(200);
    expect(String(again.body)).toBe(BODY);
    expect(await payToBalance()).toBe(before + BigInt(entry.priceUnits));
    await replayGuard.close();
  });

  it('the replay record cannot be written: 200 still; sent again it gets its kept answer here and the chain refuses it elsewhere', async () => {
    const dir = freshDir();
    const replayGuard = createReplayGuard({ dir });
    await replayGuard.close();
    const faults: string[] = [];
    const processor = createPaymentProcessor({ schemes: [scheme], replayGuard, challengeFor: () => builder, onFault: (what) => faults.push(what) });
    const call = await paidCall();
    const before = await payToBalance();
    const reply = await processor.processPaidCall(call);
    expect(reply.status).toBe(200);
    expect(faults).toEqual([expect.stringMatching(/^replay record write failed after settlement/)]);
    // Sent again in this process: its kept answer, not a second charge.
    expect((await processor.processPaidCall(call)).status).toBe(200);
    // A fresh process without the record: the chain refuses the same transaction (simulation), no second charge.
    const fresh = createPaymentProcessor({ schemes: [scheme], replayGuard: createReplayGuard({ dir: freshDir() }), challengeFor: () => builder });
    const replayed = await fresh.processPaidCall(call);
    expect(replayed.status).toBe(402);
    expect(await payToBalance()).toBe(before + BigInt(entry.priceUnits));
  });

  it('the caller disconnects while the answer is computed (the handler still returns 200): nothing is settled', async () => {
    const dir = freshDir();
    const replayGuard = createReplayGuard({ dir });
    const processor = createPaymentProcessor({ schemes: [scheme], replayGuard, challengeFor: () => builder });
    const gone = new AbortController();
    const call = await paidCall(() => gone.abort(), gone.signal);
    const before = await payToBalance();
    const reply = await processor.processPaidCall(call);
    expect(reply.status).not.toBe(200);
    expect(await payToBalance()).toBe(before);
    // Released, not recorded: the same payment can still buy its answer from a caller who stays.
    const stays = await processor.processPaidCall({
      ...call,
      request: { ...call.request, signal: new AbortController().signal },
      answer: async () => ({ status: 200, headers: {}, body: BODY }),
    });
    expect(stays.status).toBe(200);
    expect(await payToBalance()).toBe(before + BigInt(entry.priceUnits));
    await replayGuard.close();
  });
});

describe('the durable writes after settlement', () => {
  it("the replay record rides in the receipt's one commit (no write of its own), and the 200 waits for that commit", async () => {
    const order: string[] = [];
    const guard = createReplayGuard({ dir: freshDir() });
    const replayGuard: typeof guard = Object.assign(Object.create(guard) as typeof guard, {
      markSettled(key: string) {
        order.push('replay written alone');
        return guard.markSettled(key);
      },
      stageSettled(key: string) {
        order.push('replay staged');
        return guard.stageSettled!(key);
      },
    });
    type Issue = ReturnType<typeof createReceiptIssuer>['issue'];
    const receipts = {
      issue: async (...[, also]: Parameters<Issue>) => {
        order.push('receipt issued');
        // The ledger's commit, for this test: the staged writes made durable with the entry.
        await commitEachAlone(also ? await also.keep('receipt') : []);
        // One turn of the event loop, as an fsync takes at the least.
        await new Promise<void>((resolve) => setImmediate(resolve));
        order.push('commit durable');
        return { headerValue: 'receipt', kept: true } as Awaited<ReturnType<Issue>>;
      },
    };
    const processor = createPaymentProcessor({ schemes: [scheme], replayGuard, receipts, challengeFor: () => builder });
    const reply = await processor.processPaidCall(await paidCall());
    order.push('answered');
    expect(reply.status).toBe(200);
    expect(order).toEqual(['receipt issued', 'replay staged', 'commit durable', 'answered']);
    await guard.close();
  });
});

describe('a retry while the settled answer is being recorded', () => {
  it('is told to come back, keeps the settlement record, and then gets that same answer', async () => {
    const replayGuard = createReplayGuard({ dir: freshDir() });
    let release: () => void = () => undefined;
    let issuing: () => void = () => undefined;
    const issueStarted = new Promise<void>((resolve) => {
      issuing = resolve;
    });
    // The receipt (and its ledger entry) is issued after the payment is marked settled: held here,
    // a retry of the same payment arrives in exactly that window.
    const receipts = {
      issue: async () => {
        issuing();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return { receipt: {} as never, headerValue: 'held-receipt', ledger: {} as never };
      },
    };
    const processor = createPaymentProcessor({ schemes: [scheme], replayGuard, receipts, challengeFor: () => builder });
    const call = await paidCall();
    const before = await payToBalance();
    const first = processor.processPaidCall(call);
    await issueStarted;
    const early = await processor.processPaidCall(call);
    expect(early.status).toBe(402);
    expect(String(early.body)).toMatch(/being settled by another request/);
    release();
    expect((await first).headers![RECEIPT_HEADER]).toBe('held-receipt');
    const again = await processor.processPaidCall(call);
    expect(again.status).toBe(200);
    expect(again.headers![RECEIPT_HEADER]).toBe('held-receipt');
    expect(String(again.body)).toBe(BODY);
    expect(await payToBalance()).toBe(before + BigInt(entry.priceUnits));
    await replayGuard.close();
  });
});
