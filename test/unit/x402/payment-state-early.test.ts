/**
 * The early-answer transitions of the paid call's state machine (table: payment-state-machine.test.ts;
 * docs/payments.md#early-answers) through createPaymentProcessor: a cheap call answered once the node
 * took its transaction, its confirmation followed in the background to `confirmed` or to a failure
 * record (payer barred, ledger audit entry naming the receipt), the caps sending calls to the
 * confirmed path, and a restart taking up early answers left unresolved. Background work is awaited
 * on its outcome (vi.waitUntil), never on time.
 */
import { describe, expect, it, vi } from 'vitest';
import { decodeReceiptHeader, RECEIPT_HEADER, receiptSha256 } from '../../../src/receipts/receipt.ts';
import { EARLY_FAILED_EVENT, type EarlyLimits } from '../../../src/x402/exact/early-answers.ts';
import type { HttpReply } from '../../../src/errors.ts';
import { FAKE_PAYER, fakeTransaction } from '../../helpers/fake-exact-scheme.ts';
import { createPaymentStateFixture, ENTRY, reasonOf, settleResponseOf } from '../../helpers/payment-state-fixture.ts';

const LIMITS: EarlyLimits = {
  ceilingUnits: 5 * ENTRY.priceUnits,
  payerCapUnits: ENTRY.priceUnits,
  globalCapUnits: 100 * ENTRY.priceUnits,
  lossBudgetUnits: 1_000 * ENTRY.priceUnits,
  barMs: 60_000,
};
const FAILED = { kind: 'failed', reason: 'invalid_exact_svm_transaction_failed', broadcast: true } as const;
/** Background work settles in a few event-loop turns: polled often, given the test's own budget before it fails with what it saw. */
const until = (done: () => boolean | Promise<boolean>) => vi.waitUntil(done, { timeout: 20_000, interval: 5 });
const submitted = (r: HttpReply): boolean => (settleResponseOf(r)?.extra as { settlement?: string } | undefined)?.settlement === 'submitted';

function receiptShaOf(reply: HttpReply): string {
  const decoded = decodeReceiptHeader(reply.headers![RECEIPT_HEADER]!);
  if (!decoded.ok) throw new Error('the early answer carries no readable receipt');
  return receiptSha256(decoded.receipt);
}

describe('payment state machine: early answers', () => {
  it('answered once the node accepted, before confirmation; confirmed later: outcome recorded, exposure given back', async () => {
    const f = createPaymentStateFixture({ early: LIMITS });
    const confirming = f.faults.hold('scheme.confirm');
    const reply = await f.pay('p');
    expect(reply.status).toBe(200);
    expect(submitted(reply)).toBe(true);
    expect(reply.headers?.[RECEIPT_HEADER]).toBeTypeOf('string');
    expect(f.payments()).toHaveLength(1);
    const early = f.process.early!;
    expect(early.status()).toMatchObject({ answered: 1, exposureUnits: ENTRY.priceUnits });
    confirming.release();
    await until(() => early.status().confirmed === 1);
    expect(await f.process.earlyStore.outcome('fake:p')).toEqual({ status: 'confirmed' });
    expect(early.status().exposureUnits).toBe(0);
    // The identical retry: the early 200 again, nothing sent again.
    expect((await f.pay('p')).headers?.[RECEIPT_HEADER]).toBe(reply.headers?.[RECEIPT_HEADER]);
    expect(f.scheme.broadcasts).toEqual([fakeTransaction('p')]);
  });

  it('the payment fails after its early answer: failure recorded with the receipt, payer barred, a ledger audit entry', async () => {
    const f = createPaymentStateFixture({ early: LIMITS });
    f.scheme.script('p', { settle: FAILED });
    const confirming = f.faults.hold('scheme.confirm');
    const reply = await f.pay('p');
    expect(submitted(reply)).toBe(true);
    confirming.release();
    const early = f.process.early!;
    await until(() => early.status().failed === 1 && early.status().exposureUnits === 0);
    expect(await f.process.earlyStore.outcome('fake:p')).toMatchObject({
      status: 'failed',
      payer: FAKE_PAYER,
      transaction: fakeTransaction('p'),
      receiptSha256: receiptShaOf(reply),
      reason: FAILED.reason,
    });
    expect(await f.process.earlyStore.barredUntil(FAKE_PAYER)).toBe(f.clock.now() + LIMITS.barMs);
    const audit = f.ledger.entries.filter((e) => e.kind === 'audit');
    expect(audit).toEqual([expect.objectContaining({ event: EARLY_FAILED_EVENT, reason: expect.stringContaining(receiptShaOf(reply)) })]);
    // Barred: the payer's next call waits for its confirmation.
    const next = await f.pay('q');
    expect(next.status).toBe(200);
    expect(submitted(next)).toBe(false);
  });

  it('early answer, then settlement_pending: the background asks the chain until it landed', async () => {
    const f = createPaymentStateFixture({ early: LIMITS });
    f.scheme.script('p', { settle: { kind: 'pending' }, statuses: [{ status: 'landed' }] });
    expect(submitted(await f.pay('p'))).toBe(true);
    await until(() => f.process.early!.status().confirmed === 1);
    expect(f.scheme.count('status', 'p')).toBe(1);
  });

  it("the payer's cap is full: the next call takes the confirmed path", async () => {
    const f = createPaymentStateFixture({ early: LIMITS });
    const confirming = f.faults.hold('scheme.confirm');
    expect(submitted(await f.pay('a'))).toBe(true);
    const second = await f.pay('b');
    expect(second.status).toBe(200);
    expect(submitted(second)).toBe(false);
    expect(f.process.early!.status()).toMatchObject({ answered: 1, exposureUnits: ENTRY.priceUnits });
    confirming.release();
    await until(() => f.process.early!.status().exposureUnits === 0);
  });

  it('refused before the node took it: no early answer, the refusal as on the confirmed path, exposure given back', async () => {
    const f = createPaymentStateFixture({ early: LIMITS });
    f.scheme.script('p', { settle: { kind: 'failed', reason: 'invalid_exact_svm_payload_transaction', broadcast: false } });
    const reply = await f.pay('p');
    expect(reasonOf(reply)).toBe('invalid_exact_svm_payload_transaction');
    expect(f.process.early!.status().exposureUnits).toBe(0);
    expect(f.process.pending.get('fake:p')).toBeUndefined();
    expect(f.payments()).toEqual([]);
  });

  it.each([
    ['landed', { status: 'landed' } as const, 'confirmed'],
    ['failed', { status: 'failed', reason: 'invalid_exact_svm_blockhash_expired', message: 'expired' } as const, 'failed'],
  ])('a restart before the confirmation: the early answer counts against the caps again and is followed (%s)', async (_what, status, outcome) => {
    const f = createPaymentStateFixture({ early: LIMITS });
    f.scheme.script('p', { statuses: [status] });
    f.faults.hold('scheme.confirm');
    expect(submitted(await f.pay('p'))).toBe(true);
    const asking = f.faults.hold('scheme.status');
    const after = f.restart();
    await asking.reached;
    expect(after.early!.status().exposureUnits).toBe(ENTRY.priceUnits);
    asking.release();
    await until(async () => (await after.earlyStore.outcome('fake:p'))?.status === outcome);
    await until(() => after.early!.status().exposureUnits === 0);
    expect(f.payments()).toHaveLength(1);
    expect(f.ledger.entries.filter((e) => e.kind === 'audit')).toHaveLength(outcome === 'failed' ? 1 : 0);
  });
});
