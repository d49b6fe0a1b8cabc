/**
 * The paid call's state machine (transition table: payment-state-machine.test.ts) on the second
 * request of one payment: the retry of a pending settlement, the identical retry of a delivered
 * one, concurrent copies, the payment-identifier extension, and restarts (a new processor over what
 * the stopped one left durable). One payment buys one answer: never two broadcasts, never two
 * ledger entries, never a charge without its answer.
 */
import { describe, expect, it } from 'vitest';
import type { HttpReply } from '../../../src/errors.ts';
import { SERVER_TIMING_HEADER } from '../../../src/x402/delivery/paid-timing.ts';
import { fakeTransaction } from '../../helpers/fake-exact-scheme.ts';
import { ANSWER_BODY, createPaymentStateFixture, reasonOf } from '../../helpers/payment-state-fixture.ts';

/** A reply as its payer keeps it: `Server-Timing` is each response's own (a replayed answer carries the replay's). */
function bytes(r: HttpReply) {
  const { [SERVER_TIMING_HEADER]: _timing, ...headers } = r.headers ?? {};
  return { status: r.status, headers, body: Buffer.from(r.body as string | Uint8Array).toString('base64') };
}
const ID = 'payment-id-0123456789';

/** A fixture whose process died while its first payment was held at `step`, restarted over what it left durable. */
async function restartedAfterCrashAt(step: string) {
  const f = createPaymentStateFixture();
  const dies = f.faults.hold(step);
  void f.pay('p');
  await dies.reached;
  f.restart();
  return f;
}

describe('payment state machine: the retry of a pending settlement', () => {
  it('chain still pending: settlement_pending again, nothing sent again; then landed: the stored 200 exactly once', async () => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { settle: { kind: 'pending' }, statuses: [{ status: 'pending', message: 'not seen' }, { status: 'landed' }] });
    expect(reasonOf(await f.pay('p'))).toBe('settlement_pending');
    expect(reasonOf(await f.pay('p'))).toBe('settlement_pending');
    const landed = await f.pay('p');
    expect(landed.status).toBe(200);
    expect(String(landed.body)).toBe(ANSWER_BODY);
    const again = await f.pay('p');
    expect(bytes(again)).toEqual(bytes(landed));
    expect(f.scheme.broadcasts).toEqual([fakeTransaction('p')]);
    expect(f.scheme.count('status', 'p')).toBe(2);
    expect(f.handlerRuns()).toBe(1);
    expect(f.payments()).toHaveLength(1);
  });

  it('chain says it can no longer land: 402 with that reason, the record resolved, nothing charged', async () => {
    const f = createPaymentStateFixture();
    const failed = { status: 'failed' as const, reason: 'invalid_exact_svm_blockhash_expired', message: 'expired' };
    f.scheme.script('p', { settle: { kind: 'pending' }, statuses: [failed] });
    await f.pay('p');
    expect(reasonOf(await f.pay('p'))).toBe('invalid_exact_svm_blockhash_expired');
    expect(f.process.pending.get('fake:p')).toBeUndefined();
    expect(f.process.replayGuard.isSettled('fake:p')).toBe(false);
    expect(f.payments()).toEqual([]);
  });

  it('another payload under the pending key is refused (duplicate_settlement) without asking the chain', async () => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { settle: { kind: 'pending' } });
    await f.pay('p');
    expect(reasonOf(await f.pay('p', { variant: 'other' }))).toBe('duplicate_settlement');
    expect(f.scheme.count('status', 'p')).toBe(0);
  });

  it('after a restart the retry resolves the record against the chain and gets the 200 once', async () => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { settle: { kind: 'pending' } });
    await f.pay('p');
    f.restart();
    expect((await f.pay('p')).status).toBe(200);
    expect((await f.pay('p')).status).toBe(200);
    expect(f.scheme.broadcasts).toHaveLength(1);
    expect(f.payments()).toHaveLength(1);
  });

  it('a crash after the broadcast, before its outcome: the record was durable first, the retry after restart gets the 200', async () => {
    const f = await restartedAfterCrashAt('scheme.confirm');
    const reply = await f.pay('p');
    expect(reply.status).toBe(200);
    expect(String(reply.body)).toBe(ANSWER_BODY);
    expect(f.scheme.broadcasts).toHaveLength(1);
    expect(f.payments()).toHaveLength(1);
  });
});

describe('payment state machine: a delivered payment sent again', () => {
  it('the identical retry gets the kept 200 byte for byte: nothing sent, no ledger entry, the handler not run', async () => {
    const f = createPaymentStateFixture();
    const first = await f.pay('p');
    const again = await f.pay('p');
    expect(bytes(again)).toEqual(bytes(first));
    f.restart();
    expect(bytes(await f.pay('p'))).toEqual(bytes(first));
    expect(f.scheme.broadcasts).toHaveLength(1);
    expect(f.scheme.count('verify', 'p')).toBe(1);
    expect(f.handlerRuns()).toBe(1);
    expect(f.payments()).toHaveLength(1);
  });

  it('the same payment for another request, or the same transaction in another payload: duplicate_settlement', async () => {
    const f = createPaymentStateFixture();
    await f.pay('p', { query: 'epoch=1' });
    expect(reasonOf(await f.pay('p', { query: 'epoch=2' }))).toBe('duplicate_settlement');
    expect(reasonOf(await f.pay('p', { query: 'epoch=1', variant: 'other' }))).toBe('duplicate_settlement');
    expect(f.scheme.broadcasts).toHaveLength(1);
    expect(f.handlerRuns()).toBe(1);
  });

  it('answer lost: the caller went while the settlement confirmed; it was charged, and its retry gets the 200 it paid for', async () => {
    const f = createPaymentStateFixture();
    const gone = new AbortController();
    const sent = f.faults.hold('scheme.confirm');
    const first = f.pay('p', { signal: gone.signal });
    await sent.reached;
    gone.abort();
    sent.release();
    const lost = await first;
    expect(lost.status).toBe(200);
    const retry = await f.pay('p');
    expect(bytes(retry)).toEqual(bytes(lost));
    expect(f.scheme.broadcasts).toHaveLength(1);
    expect(f.payments()).toHaveLength(1);
  });

  it('a crash after the payment was marked settled, before its 200 was kept: the retry after restart still gets the 200', async () => {
    // The receipt's ledger append is where the process dies: settled on chain and in the replay record, no answer sent.
    const f = await restartedAfterCrashAt('ledger.append');
    const reply = await f.pay('p');
    expect(reply.status).toBe(200);
    expect(String(reply.body)).toBe(ANSWER_BODY);
    expect(f.scheme.broadcasts).toHaveLength(1);
    expect(f.payments()).toHaveLength(1);
    expect(bytes(await f.pay('p'))).toEqual(bytes(reply));
  });

  it('after that crash, two retries at once: one asks the chain and delivers, the other is told to come back', async () => {
    const f = await restartedAfterCrashAt('ledger.append');
    const asking = f.faults.hold('scheme.status');
    const first = f.pay('p');
    await asking.reached;
    expect(reasonOf(await f.pay('p'))).toBe('duplicate_settlement');
    asking.release();
    expect((await first).status).toBe(200);
    expect(f.payments()).toHaveLength(1);
  });

  it('after that crash, retries on two instances at once: the later one to hear the chain sends the 200 the other kept, not a second receipt', async () => {
    const f = await restartedAfterCrashAt('ledger.append');
    const other = f.another();
    const asking = f.faults.hold('scheme.status');
    const first = f.pay('p');
    await asking.reached;
    const second = await other.processor.processPaidCall(f.call('p'));
    expect(second.status).toBe(200);
    asking.release();
    expect(bytes(await first)).toEqual(bytes(second));
    expect(f.payments()).toHaveLength(1);
    expect(f.scheme.broadcasts).toHaveLength(1);
  });
});

describe('payment state machine: concurrent copies', () => {
  it('copies while the first settles: duplicate_settlement; one broadcast; afterwards the identical copy gets the 200', async () => {
    const f = createPaymentStateFixture();
    const settling = f.faults.hold('scheme.confirm');
    const first = f.pay('p');
    await settling.reached;
    const copies = await Promise.all([f.pay('p'), f.pay('p'), f.pay('p')]);
    expect(copies.map(reasonOf)).toEqual(['duplicate_settlement', 'duplicate_settlement', 'duplicate_settlement']);
    settling.release();
    expect((await first).status).toBe(200);
    expect((await f.pay('p')).status).toBe(200);
    expect(f.scheme.broadcasts).toHaveLength(1);
    expect(f.payments()).toHaveLength(1);
  });

  it('copies while the first is verified (no record yet): duplicate_settlement, one verify, one broadcast', async () => {
    const f = createPaymentStateFixture();
    const verifying = f.faults.hold('scheme.verify');
    const first = f.pay('p');
    await verifying.reached;
    expect((await Promise.all([f.pay('p'), f.pay('p')])).map(reasonOf)).toEqual(['duplicate_settlement', 'duplicate_settlement']);
    verifying.release();
    expect((await first).status).toBe(200);
    expect(f.scheme.count('verify', 'p')).toBe(1);
    expect(f.scheme.broadcasts).toHaveLength(1);
  });

  it('a copy while the receipt is issued (settled, 200 not kept yet) is told to come back, then gets that 200', async () => {
    const f = createPaymentStateFixture();
    const issuing = f.faults.hold('ledger.append');
    const first = f.pay('p');
    await issuing.reached;
    const early = await f.pay('p');
    expect(reasonOf(early)).toBe('duplicate_settlement');
    issuing.release();
    const delivered = await first;
    expect(bytes(await f.pay('p'))).toEqual(bytes(delivered));
    expect(f.payments()).toHaveLength(1);
  });

  it('copies of a pending settlement retried at once: one chain check, one delivery', async () => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { settle: { kind: 'pending' } });
    await f.pay('p');
    const asking = f.faults.hold('scheme.status');
    const retry = f.pay('p');
    await asking.reached;
    expect(reasonOf(await f.pay('p'))).toBe('duplicate_settlement');
    asking.release();
    expect((await retry).status).toBe(200);
    expect(f.scheme.count('status', 'p')).toBe(1);
    expect(f.payments()).toHaveLength(1);
  });
});

describe('payment state machine: payment-identifier', () => {
  it('same id and payload: the same 200 (shared while in flight, from the store after a restart); other payload: 409', async () => {
    const f = createPaymentStateFixture();
    const [a, b] = await Promise.all([f.pay('p', { paymentId: ID }), f.pay('p', { paymentId: ID })]);
    expect(a.status).toBe(200);
    expect(bytes(b)).toEqual(bytes(a));
    expect((await f.pay('q', { paymentId: ID })).status).toBe(409);
    f.restart();
    expect(bytes(await f.pay('p', { paymentId: ID }))).toEqual(bytes(a));
    expect((await f.pay('q', { paymentId: ID })).status).toBe(409);
    expect(f.scheme.broadcasts).toHaveLength(1);
    expect(f.handlerRuns()).toBe(1);
    expect(f.payments()).toHaveLength(1);
  });

  it('an answer that is not a 200 is not kept under the id: the same id pays later', async () => {
    const f = createPaymentStateFixture();
    f.scheme.script('p', { verify: { isValid: false, invalidReason: 'transaction_simulation_failed', transient: true } });
    expect((await f.pay('p', { paymentId: ID })).status).toBe(402);
    f.scheme.script('p', {});
    expect((await f.pay('p', { paymentId: ID })).status).toBe(200);
    expect(f.process.paidAnswers.size()).toBe(1);
  });

  it('a shared store: the same payment under one id on two instances is charged once', async () => {
    const f = createPaymentStateFixture({ answers: { shared: true } });
    const settling = f.faults.hold('scheme.confirm');
    const first = f.pay('p', { paymentId: ID });
    await settling.reached;
    // Another instance (its memory empty, the stores shared): the id is busy, the shared replay guard refuses the copy.
    const other = f.another();
    expect(reasonOf(await other.processor.processPaidCall(f.call('p', { paymentId: ID })))).toBe('duplicate_settlement');
    settling.release();
    expect((await first).status).toBe(200);
    expect(f.scheme.broadcasts).toHaveLength(1);
  });
});
