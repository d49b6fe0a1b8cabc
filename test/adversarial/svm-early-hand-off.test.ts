/**
 * Payers who empty their token account between the service's read of it and the transaction
 * reaching the node (docs/security.md, "Emptied between the read and the send"). An early answer of
 * a payer with confirmed history is handed off: sent without the node's preflight and answered once
 * the transaction is handed to the RPC (docs/payments.md#the-hand-off), so nothing checks the
 * balance again before the payment lands and fails. The real service, paid by the official x402 SVM
 * client, behind an RPC (test/helpers/held-send-rpc.ts) that drains the payer's account the moment
 * the service's send arrives. Then: a payer without history, or whose confirmed value does not
 * cover the loss, keeps the node's preflight (refused, nothing lost); a payer whose confirmed value
 * covers it gets its early answer at the hand-off, the failed payment is counted as a
 * loss with its fee and in the ledger, and the day's losses never pass the loss budget: once the
 * next loss would not fit, the drained payment waits for the chain again and the preflight refuses it.
 */
import type { Localnet } from '@solana-x402-intel/localnet';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/service.ts';
import { answeredEarly, drain } from '../helpers/early-attack.ts';
import type { HeldSendRpc } from '../helpers/held-send-rpc.ts';
import { type EarlyService, startEarlyService } from '../helpers/early-service.ts';
import { officialSvmFetch } from '../helpers/official-svm-client.ts';
import { readJson } from '../helpers/read-json.ts';
import { readUntil } from '../helpers/read-until.ts';
import { fundedPayer, handBuiltPaymentHeader, type TestPayer } from '../helpers/svm-payer.ts';
import { SOLANA } from '../helpers/official-svm-client.ts';

const PRICE = 1_000;
/** The official client's transaction costs our fee payer 10,001 lamports: 5,001 units at the default $500 a SOL. */
const LOSS_EACH = PRICE + 5_001;
/** Room for two failed answers (12,002), not a third (18,003). */
const LOSS_BUDGET = 15_000;
/** Confirmed calls whose value (7,000) covers one failed answer with its fee: its early answer is handed off. */
const WARM_CALLS = 7;
/** Confirmed calls that earn one early answer in flight (half of 2,000) but do not cover its loss: no hand-off. */
const THIN_HISTORY = 2;

let early: EarlyService;
let localnet: Localnet;
let rpc: HeldSendRpc;
let service: RunningService;
let sink: TestPayer;

beforeAll(async () => {
  early = await startEarlyService('early-hand-off', ['--svm-early-loss-budget', String(LOSS_BUDGET)]);
  ({ localnet, rpc, service, sink } = early);
}, 120_000);

afterAll(() => early?.close());

const health = () => early.health();
const chain = () => early.chain;
const url = () => early.url;
const settledOf = (res: Response) => decodePaymentResponseHeader(res.headers.get('payment-response')!);

/**
 * A payer with confirmed history: `calls` paid at once and confirmed. Its history is their
 * confirmed value (early-bounds.ts, trustOf), however they were spread: the first is answered
 * early, the others after their confirmation, with no need to wait for each other.
 */
async function established(calls = WARM_CALLS): Promise<TestPayer> {
  const payer = await fundedPayer(localnet.urls.rpc, 20 * PRICE);
  const pay = officialSvmFetch(payer, chain());
  const warm = await Promise.all(Array.from({ length: calls }, () => pay(url())));
  expect(warm.map((r) => r.status)).toEqual(Array<number>(calls).fill(200));
  await readUntil(health, (h) => h.exposureUnits === 0);
  return payer;
}

/** One call whose send finds the payer's account already emptied; its answer, once every early answer is resolved. */
async function drainedCall(payer: TestPayer): Promise<Response> {
  rpc.only.clear();
  rpc.only.add(payer.signer.address);
  rpc.beforeSend = async () => {
    rpc.beforeSend = null;
    await drain(chain(), payer, sink.signer.address);
  };
  const res = await officialSvmFetch(payer, chain())(url());
  // A handed-off answer leaves as its send is handed to the RPC: the send may reach the RPC after it.
  await expect.poll(() => rpc.beforeSend, { timeout: 30_000 }).toBeNull();
  await readUntil(health, (h) => h.exposureUnits === 0);
  return res;
}

async function failedAfterAnswer(): Promise<number> {
  const log = await readJson(fetch(`${service.url}/ledger?limit=1000`));
  return log.entries.filter((e: { event?: string }) => e.event === 'payment.failed-after-answer').length;
}

describe('a payer whose transfer the token program will fail', () => {
  it("a transfer that does not name the mint's decimals is refused before anything is sent, though its payer's history would hand it off", async () => {
    // Found by payment-properties once answers were handed off: TransferChecked with decimals
    // other than the mint's passed every rule, the node's preflight no longer ran, and the answer
    // went out for a payment the token program then failed.
    const payer = await established();
    const before = await health();
    const unsimulated = rpc.unsimulated.length;
    const required = decodePaymentRequiredHeader((await fetch(url())).headers.get('payment-required')!);
    const accepted = required.accepts.find((a) => a.network === SOLANA)!;
    for (const decimals of [0, 7]) {
      const header = await handBuiltPaymentHeader({ accepted }, { payer, feePayer: service.identity.publicKey, mint: localnet.stablecoinMint }, (base) => ({
        ...base,
        decimals,
      }));
      const res = await fetch(url(), { headers: { 'PAYMENT-SIGNATURE': header } });
      expect(res.status).toBe(402);
      expect(((await res.json()) as { error?: string }).error).toBe('invalid_exact_svm_transaction_simulation_failed');
    }
    await readUntil(health, (h) => h.exposureUnits === 0);
    const after = await health();
    expect([after.answered, after.failed, after.lossUnits]).toEqual([before.answered, before.failed, before.lossUnits]);
    expect(rpc.unsimulated).toHaveLength(unsimulated);
  }, 120_000);
});

describe('a payer that empties its account between our read and the send', () => {
  it('a payer whose history does not cover the loss keeps the preflight; one whose history does is handed off; the losses stay within the budget', async () => {
    // Without history: sent with the node's preflight, which refuses the emptied account. Nothing lost.
    const fresh = await fundedPayer(localnet.urls.rpc, 20 * PRICE);
    const refused = await drainedCall(fresh);
    expect(refused.status).toBe(402);
    expect(rpc.unsimulated).toHaveLength(0);
    expect((await health()).lossUnits).toBe(0);

    // History that earns an early answer but does not cover its loss: admitted, still preflighted.
    const thin = await established(THIN_HISTORY);
    const answeredBefore = (await health()).answered;
    expect((await drainedCall(thin)).status).toBe(402);
    expect((await health()).answered).toBe(answeredBefore + 1);
    expect(rpc.unsimulated).toHaveLength(0);
    expect((await health()).lossUnits).toBe(0);

    // With history, twice: answered early at the hand-off, the payment fails on chain, each loss counted.
    for (const round of [1, 2]) {
      const payer = await established();
      const before = await health();
      const res = await drainedCall(payer);
      expect(res.status).toBe(200);
      expect(answeredEarly(res)).toBe(true);
      // Handed off: the service's send asked for no preflight.
      expect(rpc.unsimulated).toContain(settledOf(res).transaction);
      const after = await health();
      expect(after.failed - before.failed).toBe(1);
      expect(after.lossUnits).toBe(round * LOSS_EACH);
      expect(await failedAfterAnswer()).toBe(round);
    }

    // A third would pass the budget: not admitted, so the send keeps its preflight and is refused.
    const third = await established();
    const res = await drainedCall(third);
    expect(res.status).toBe(402);
    const end = await health();
    expect(end.lossUnits).toBe(2 * LOSS_EACH);
    expect(end.lossUnits).toBeLessThanOrEqual(LOSS_BUDGET);
    expect(end.budgetReached).toBe(true);
    expect(rpc.unsimulated).toHaveLength(2);
  }, 300_000);
});
