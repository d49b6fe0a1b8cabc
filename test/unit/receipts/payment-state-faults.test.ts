/**
 * The paid call's state machine (transition table: payment-state-machine.test.ts) when a store
 * fails. Before the payment can reach the chain a failed write stops it: nothing is sent, 503.
 * Once money moved nothing withholds the 200: the fault is reported and the payer still gets the
 * answer, once, with no second settlement.
 */
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/errors.ts';
import { RECEIPT_HEADER } from '../../../src/receipts/receipt.ts';
import { fakeTransaction } from '../../helpers/fake-exact-scheme.ts';
import { ANSWER_BODY, createPaymentStateFixture, reasonOf } from '../../helpers/payment-state-fixture.ts';

const errorOf = (body: unknown): string => (JSON.parse(String(body)) as { error: string }).error;

describe('payment state machine: a write before the broadcast fails', () => {
  it('the pending record cannot be written: 503 storage_unavailable, nothing sent, the claim released', async () => {
    const f = createPaymentStateFixture();
    f.faults.fail('pending.record', new Error('ENOSPC'));
    const reply = await f.pay('p');
    expect(reply.status).toBe(503);
    expect(errorOf(reply.body)).toBe('storage_unavailable');
    expect(String(reply.body)).not.toContain('ENOSPC');
    expect(f.scheme.broadcasts).toEqual([]);
    expect(f.process.pending.get('fake:p')).toBeUndefined();
    expect(f.process.faultsReported).toEqual([expect.stringMatching(/^a pending settlement could not be recorded/)]);
    expect((await f.pay('p')).status).toBe(200);
  });

  it('the database refuses the record: its own 503, nothing sent', async () => {
    const f = createPaymentStateFixture();
    f.faults.fail('pending.record', new ServiceError('database_unavailable', 'the database did not answer'));
    const reply = await f.pay('p');
    expect(errorOf(reply.body)).toBe('database_unavailable');
    expect(f.scheme.broadcasts).toEqual([]);
  });

  it('the replay guard cannot be asked (its database down): 503 database_unavailable, nothing verified or sent', async () => {
    const f = createPaymentStateFixture();
    f.faults.fail('replay.acquire', new ServiceError('database_unavailable', 'the database did not answer'));
    const reply = await f.pay('p');
    expect(reply.status).toBe(503);
    expect(errorOf(reply.body)).toBe('database_unavailable');
    expect(f.scheme.calls).toEqual([]);
    expect((await f.pay('p')).status).toBe(200);
  });

  it('the records are at their bound: 503 payments_full before verify; the records held are kept', async () => {
    const f = createPaymentStateFixture({ recordsMax: 1 });
    f.scheme.script('a', { settle: { kind: 'pending' } });
    expect(reasonOf(await f.pay('a'))).toBe('settlement_pending');
    const reply = await f.pay('b');
    expect(errorOf(reply.body)).toBe('payments_full');
    expect(f.scheme.count('verify', 'b')).toBe(0);
    // The held record still resolves: its retry is no new payment.
    expect((await f.pay('a')).status).toBe(200);
  });
});

describe('payment state machine: a write after the money moved fails', () => {
  it('the ledger refuses the entry: 200 without a receipt, fault reported; the retry gets that 200, nothing settled again', async () => {
    const f = createPaymentStateFixture();
    f.faults.fail('ledger.append', new Error('ledger closed'));
    const reply = await f.pay('p');
    expect(reply.status).toBe(200);
    expect(String(reply.body)).toBe(ANSWER_BODY);
    expect(reply.headers?.[RECEIPT_HEADER]).toBeUndefined();
    expect(reply.headers?.['PAYMENT-RESPONSE']).toBeTypeOf('string');
    expect(f.process.faultsReported).toEqual([expect.stringMatching(/^receipt or ledger entry failed after settlement/)]);
    expect(f.payments()).toEqual([]);
    const again = await f.pay('p');
    expect(again.status).toBe(200);
    expect(again.headers?.[RECEIPT_HEADER]).toBeUndefined();
    expect(f.scheme.broadcasts).toEqual([fakeTransaction('p')]);
    expect(f.payments()).toEqual([]);
  });

  it('the replay record cannot be written: 200, fault reported; after a restart the kept 200 still answers the retry', async () => {
    const f = createPaymentStateFixture();
    f.faults.fail('replay.markSettled', new Error('EIO'));
    const reply = await f.pay('p');
    expect(reply.status).toBe(200);
    expect(f.process.faultsReported).toEqual([expect.stringMatching(/^replay record write failed after settlement/)]);
    f.restart();
    expect(f.process.replayGuard.isSettled('fake:p')).toBe(false);
    const again = await f.pay('p');
    expect(again.status).toBe(200);
    expect(again.headers?.[RECEIPT_HEADER]).toBe(reply.headers?.[RECEIPT_HEADER]);
    expect(f.scheme.broadcasts).toHaveLength(1);
    expect(f.payments()).toHaveLength(1);
  });

  it('the 200 cannot be kept with its record: 200 still, fault reported; the retry comes back, never a second receipt', async () => {
    const f = createPaymentStateFixture();
    f.faults.fail('pending.keepDelivered', new Error('EIO'));
    expect((await f.pay('p')).status).toBe(200);
    expect(f.process.faultsReported).toEqual([expect.stringMatching(/^a settled answer could not be kept/)]);
    expect(reasonOf(await f.pay('p'))).toBe('duplicate_settlement');
    expect(f.scheme.count('status', 'p')).toBe(0);
    expect(f.payments()).toHaveLength(1);
  });

  it('settle throws after the broadcast: 500, the record kept; the retry asks the chain and gets the 200', async () => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { settle: { kind: 'throws' } });
    const reply = await f.pay('p');
    expect(reply.status).toBe(500);
    expect(String(reply.body)).not.toContain('socket hang up');
    expect(f.process.pending.get('fake:p')?.transaction).toBe(fakeTransaction('p'));
    const retry = await f.pay('p');
    expect(retry.status).toBe(200);
    expect(f.scheme.count('settle', 'p')).toBe(1);
    expect(f.payments()).toHaveLength(1);
  });

  it('the chain cannot be asked on the retry: 500, the record and the claim left for the next retry', async () => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { settle: { kind: 'pending' } });
    await f.pay('p');
    f.faults.fail('scheme.status', new Error('rpc down'));
    expect((await f.pay('p')).status).toBe(500);
    expect(f.process.pending.get('fake:p')).toBeDefined();
    expect((await f.pay('p')).status).toBe(200);
    expect(f.payments()).toHaveLength(1);
  });

  it('the payment-identifier answer cannot be stored: 200, fault reported; the same id and payload still get it (kept with the record)', async () => {
    const f = createPaymentStateFixture();
    const id = 'payment-id-0123456789';
    f.faults.fail('answers.put', new Error('EIO'));
    const reply = await f.pay('p', { paymentId: id });
    expect(reply.status).toBe(200);
    expect(f.process.faultsReported).toEqual([expect.stringMatching(/^payment-identifier answer not stored durably/)]);
    f.restart();
    const again = await f.pay('p', { paymentId: id });
    expect(again.status).toBe(200);
    expect(f.scheme.broadcasts).toHaveLength(1);
  });
});
