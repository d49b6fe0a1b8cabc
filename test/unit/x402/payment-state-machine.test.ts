/**
 * The exact-scheme paid call as a state machine, driven through createPaymentProcessor over a
 * fake scheme and in-memory stores (test/helpers/payment-state-fixture.ts): no chain, no disk, no
 * clock. This file: a first payment from verify to delivery. Retries, restarts and concurrent
 * copies: payment-state-retries.test.ts; faults after verify: payment-state-faults.test.ts;
 * early answers: payment-state-early.test.ts.
 *
 * | from                      | event                                   | to (reply; what is left behind)                                      |
 * |---------------------------|-----------------------------------------|----------------------------------------------------------------------|
 * | new payment               | no replay key / unknown network         | 402 invalid_payload / invalid_network; nothing asked of the chain    |
 * | new payment               | refused a moment ago, same payload      | the same 402 from memory; verify not asked again                     |
 * | new payment               | claim taken (copy being settled)        | 402 duplicate_settlement                                             |
 * | new payment               | records at --payment-records-max        | 503 payments_full before verify; the records held still resolve      |
 * | claimed                   | verify refuses                          | 402 its reason; claim released; nothing sent or recorded             |
 * | claimed, verified         | handler answers non-200 or fails        | that answer / its fault; nothing sent; claim released                |
 * | verified, answer 200      | caller gone / record write fails        | 402 settlement_failed / 503 storage_unavailable; nothing sent        |
 * | recorded, sent            | settle landed                           | 200 + PAYMENT-RESPONSE + receipt; key settled; one ledger entry;     |
 * |                           |                                         | the 200 kept with the record                                         |
 * | recorded, sent            | not confirmed in time                   | 402 settlement_pending; record kept with the answer; claim released  |
 * | recorded, maybe sent      | settle fails (refused, failed on chain) | 402 its reason + PAYMENT-RESPONSE success false; record resolved     |
 * | recorded, maybe sent      | settle throws                           | 500; record kept, resolved by the retry                              |
 * | settled                   | ledger / replay / kept-answer write fails | 200 still (without receipt if the ledger failed); fault reported;  |
 * |                           |                                         | a 200 not kept: its retry is told to come back, never a 2nd receipt  |
 * | pending record            | retry: chain pending / failed / landed  | 402 settlement_pending / 402 reason, record resolved / the stored 200 once |
 * | pending record            | retry with another payload              | 402 duplicate_settlement                                             |
 * | pending record            | retry, the chain cannot be asked        | 500; record and claim left for the next retry                        |
 * | delivered record          | identical retry (also after a restart)  | the kept 200 byte for byte; nothing sent, no ledger entry            |
 * | delivered record          | other payload or other request          | 402 duplicate_settlement                                             |
 * | settled, answer not kept  | crash, then the retry                   | the stored 200 (was: 402 duplicate_settlement for the record's life) |
 * | payment-identifier id     | same id and payload / other payload     | the same 200 (memory, store after restart) / 409                     |
 * | early: admitted, accepted | node took the transaction               | 200 (settlement submitted) before confirmation; followed: confirmed  |
 * | early answer sent         | payment fails on chain                  | failure record, payer barred, ledger audit entry naming the receipt  |
 * | early: caps full / barred | -                                       | the confirmed path                                                   |
 * | early answer sent         | restart before its confirmation         | held against the caps again and followed to its end                  |
 */
import { describe, expect, it } from 'vitest';
import { RECEIPT_HEADER } from '../../../src/receipts/receipt.ts';
import { replyOf } from '../../../src/x402/stores/pending-settlements.ts';
import { fakeTransaction } from '../../helpers/fake-exact-scheme.ts';
import { ANSWER_BODY, createPaymentStateFixture, ENTRY, reasonOf, settleResponseOf } from '../../helpers/payment-state-fixture.ts';

describe('payment state machine: verify', () => {
  it.each([
    ['invalid_exact_svm_payload_transaction_amount_mismatch', false],
    ['invalid_exact_svm_payload_signature', false],
    ['transaction_simulation_failed', true],
  ])('verify refuses with %s: 402 naming it, nothing sent, nothing recorded, claim released', async (reason, transient) => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { verify: { isValid: false, invalidReason: reason, transient } });
    const reply = await f.pay('p');
    expect(reply.status).toBe(402);
    expect(reasonOf(reply)).toBe(reason);
    expect(f.handlerRuns()).toBe(0);
    expect(f.scheme.count('settle', 'p')).toBe(0);
    expect(f.process.pending.writes).toEqual([]);
    expect(f.payments()).toEqual([]);
    // Released: the claim is not held by a refused payment.
    expect(f.process.replayGuard.acquire('fake:p')).toBe('acquired');
  });

  it('a refused payment sent again gets the same refusal from memory; a transient refusal is asked again', async () => {
    const f = createPaymentStateFixture();
    f.scheme.script('bad', { verify: { isValid: false, invalidReason: 'invalid_exact_svm_payload_signature' } });
    f.scheme.script('flaky', { verify: { isValid: false, invalidReason: 'transaction_simulation_failed', transient: true } });
    for (let i = 0; i < 3; i++) {
      expect(reasonOf(await f.pay('bad'))).toBe('invalid_exact_svm_payload_signature');
      expect(reasonOf(await f.pay('flaky'))).toBe('transaction_simulation_failed');
    }
    expect(f.scheme.count('verify', 'bad')).toBe(1);
    expect(f.scheme.count('verify', 'flaky')).toBe(3);
    // Another payload under the same key is verified afresh.
    f.scheme.script('bad', {});
    expect((await f.pay('bad', { variant: 'funded' })).status).toBe(200);
  });

  it('a payload without a replay key, or for a network with no scheme: 402 before the chain is asked', async () => {
    const f = createPaymentStateFixture();
    const noKey = f.call('x');
    const reply = await f.process.processor.processPaidCall({ ...noKey, payment: { ...noKey.payment, payload: {} } });
    expect(reasonOf(reply)).toBe('invalid_payload');
    const base = f.call('y');
    const other = { ...base.requirements, network: 'eip155:8453' };
    expect(reasonOf(await f.process.processor.processPaidCall({ ...base, requirements: other }))).toBe('invalid_network');
    expect(f.scheme.calls).toEqual([]);
  });
});

describe('payment state machine: the answer before settlement', () => {
  it.each([
    ['a 404', async () => ({ status: 404, headers: {}, body: '{"error":"not_found"}' }), 404],
    ['a throw', async (): Promise<never> => Promise.reject(new Error('handler bug')), 500],
  ])('the handler answers %s: that answer goes out, nothing is sent, the payment stays usable', async (_what, answer, status) => {
    const f = createPaymentStateFixture();
    const reply = await f.pay('p', { answer });
    expect(reply.status).toBe(status);
    expect(reply.headers?.['PAYMENT-RESPONSE']).toBeUndefined();
    expect(f.scheme.count('settle', 'p')).toBe(0);
    expect(f.process.pending.writes).toEqual([]);
    expect((await f.pay('p')).status).toBe(200);
    expect(f.scheme.broadcasts).toEqual([fakeTransaction('p')]);
  });

  it('the caller disconnects while the answer is computed: 402 settlement_failed, nothing sent or recorded', async () => {
    const f = createPaymentStateFixture();
    const gone = new AbortController();
    const answer = async () => {
      gone.abort();
      return { status: 200, headers: {}, body: ANSWER_BODY };
    };
    const reply = await f.pay('p', { signal: gone.signal, answer });
    expect(reasonOf(reply)).toBe('settlement_failed');
    expect(f.scheme.broadcasts).toEqual([]);
    expect(f.process.pending.get('fake:p')).toBeUndefined();
    expect((await f.pay('p')).status).toBe(200);
  });
});

describe('payment state machine: settlement', () => {
  it('landed: 200 with PAYMENT-RESPONSE and a receipt; the key settled; one ledger entry; the 200 kept with its record', async () => {
    const f = createPaymentStateFixture();
    const reply = await f.pay('p');
    expect(reply.status).toBe(200);
    expect(String(reply.body)).toBe(ANSWER_BODY);
    expect(settleResponseOf(reply)).toMatchObject({ success: true, transaction: fakeTransaction('p'), network: f.scheme.network });
    expect(reply.headers?.[RECEIPT_HEADER]).toBeTypeOf('string');
    expect(f.process.replayGuard.marked).toEqual(['fake:p']);
    expect(f.payments()).toHaveLength(1);
    expect(f.payments()[0]).toMatchObject({ endpoint: ENTRY.path, priceUsdcUnits: ENTRY.priceUnits, network: f.scheme.network });
    // Recorded before the broadcast, then kept with the 200 as delivered.
    expect(f.process.pending.writes.map(([, r]) => r.delivered !== undefined)).toEqual([false, true]);
    expect(f.faults.passed.indexOf('pending.record')).toBeLessThan(f.faults.passed.indexOf('scheme.confirm'));
    expect(f.process.faultsReported).toEqual([]);
  });

  it('not confirmed in time: 402 settlement_pending naming the transaction, the answer recorded, the claim released', async () => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { settle: { kind: 'pending' } });
    const reply = await f.pay('p');
    expect(reasonOf(reply)).toBe('settlement_pending');
    expect(String(reply.body)).toContain(fakeTransaction('p'));
    const record = f.process.pending.get('fake:p');
    expect(record).toMatchObject({ transaction: fakeTransaction('p'), paid: { endpoint: ENTRY.path } });
    expect(String(replyOf(record!.answer).body)).toBe(ANSWER_BODY);
    expect(f.payments()).toEqual([]);
    expect(f.process.replayGuard.isSettled('fake:p')).toBe(false);
  });

  it('a Base-like hash known only after the broadcast: the pending record is rewritten with it', async () => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { settle: { kind: 'pending' }, hashAfterBroadcast: true });
    await f.pay('p');
    expect(f.process.pending.writes.map(([, r]) => r.transaction)).toEqual(['', fakeTransaction('p')]);
  });

  it.each([
    ['refused before anything was sent', false],
    ['sent and failed on chain', true],
  ])('settlement %s: 402 with its reason and PAYMENT-RESPONSE success false; no record left, nothing delivered', async (_what, broadcast) => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { settle: { kind: 'failed', reason: 'invalid_exact_svm_transaction_failed', broadcast } });
    const reply = await f.pay('p');
    expect(reply.status).toBe(402);
    expect(reasonOf(reply)).toBe('invalid_exact_svm_transaction_failed');
    expect(settleResponseOf(reply)).toMatchObject({ success: false, errorReason: 'invalid_exact_svm_transaction_failed' });
    expect(f.process.pending.get('fake:p')).toBeUndefined();
    expect(f.process.replayGuard.isSettled('fake:p')).toBe(false);
    expect(f.payments()).toEqual([]);
    expect(f.scheme.landed.size).toBe(0);
  });

  it('a scheme without settlementStatus: a pending settlement is final (no record kept), the claim released', async () => {
    const f = createPaymentStateFixture({ scheme: { settlementStatus: false } });
    f.scheme.script('p', { settle: { kind: 'pending' } });
    const reply = await f.pay('p');
    expect(reasonOf(reply)).toBe('settlement_pending');
    expect(f.process.pending.writes).toEqual([]);
  });
});
