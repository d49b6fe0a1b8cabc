/**
 * A voucher charged and not answered: the process dies (or the answer's write fails) after the
 * channel's charge is durable and before its 200 is kept. The payer's retry of the identical
 * payment must get the answer, computed again, never a corrective 402 for a charge that stays
 * claimable, and never a second charge. Over the real processor, the real channel log (a new
 * store over the same directory is the restart), real voucher signatures and their recovery, and
 * the real receipt stamp over an in-memory ledger whose append a fault plan holds (a hold never
 * let go is the crash) or the channel log's write that a test makes fail. The on-chain half is a
 * stand-in that only reports a funded channel: nothing here moves money on chain.
 */
import { describe, expect, it } from 'vitest';
import { RECEIPT_HEADER } from '../../../src/receipts/receipt.ts';
import { CHANNEL_PENDING_HANDOVER_MS } from '../../../src/x402/channels/channel-machine.ts';
import { ANSWER_BODY, chargedOf, createChannelCrashFixture, MISMATCH, PRICE, textOf } from '../../helpers/channel-crash-fixture.ts';
import { reasonOf } from '../../helpers/payment-state-fixture.ts';

const setup = createChannelCrashFixture;

/** The fixture after a 200 for the first voucher and a second voucher killed at its ledger append, after its charge was stored. */
async function killedAfterTheCharge(o: { shared?: boolean } = {}) {
  const f = setup(o);
  expect((await f.pay(await f.call(PRICE))).status).toBe(200);
  const second = await f.call(2n * PRICE);
  const held = f.faults.hold('ledger.append');
  void f.pay(second);
  await held.reached;
  await f.restart();
  expect((await f.record()).charged).toBe(String(2n * PRICE));
  return { f, second };
}

describe('a channel voucher charged but not answered', () => {
  it('killed after its charge was stored, before its answer was kept: the identical voucher after the restart gets the 200, charged once', async () => {
    const { f, second } = await killedAfterTheCharge();
    const retry = await f.pay(second);
    expect(retry.status, textOf(retry)).toBe(200);
    expect(textOf(retry)).toBe(ANSWER_BODY);
    expect(chargedOf(retry)).toBe(String(2n * PRICE));
    expect(retry.headers?.[RECEIPT_HEADER]).toBeTruthy();
    expect((await f.record()).charged).toBe(String(2n * PRICE));
    // The held append never landed: the retry's entry is the one ledger entry of this charge.
    expect(f.ledger.entries.filter((e) => e.kind === 'payment')).toHaveLength(2);
    // Kept now: the same voucher once more is the stored 200, the handler not run again.
    const runs = f.handlerRuns();
    expect(textOf(await f.pay(second))).toBe(ANSWER_BODY);
    expect(f.handlerRuns()).toBe(runs);
    // The payer pays on from the charge it made.
    const third = await f.pay(await f.call(3n * PRICE));
    expect(third.status).toBe(200);
    expect((await f.record()).charged).toBe(String(3n * PRICE));
  });

  it("the answer's write fails after the charge was stored: 200 still, and the identical voucher again gets a 200, charged once", async () => {
    const f = setup();
    const first = await f.call(PRICE);
    // The charge's write lands (the call reaches its ledger append); then the answer's write fails.
    const held = f.faults.hold('ledger.append');
    const answering = f.pay(first);
    await held.reached;
    f.faults.fail('channel.put', new Error('disk full'));
    held.release();
    const answered = await answering;
    expect(answered.status).toBe(200);
    expect((await f.record()).last?.answer ?? null).toBeNull();
    const retry = await f.pay(first);
    expect(retry.status, textOf(retry)).toBe(200);
    expect(textOf(retry)).toBe(ANSWER_BODY);
    expect((await f.record()).charged).toBe(String(PRICE));
  });

  it('while its answer is pending, a failing handler is answered as it is, the charge stays, and a later retry gets the 200', async () => {
    const { f, second } = await killedAfterTheCharge();
    const failing = await f.call(2n * PRICE, {
      answer: () => ({ status: 503, headers: { 'Content-Type': 'application/json' }, body: '{"error":"upstream_unavailable"}' }),
    });
    const refused = await f.pay({ ...failing, payment: second.payment });
    expect(refused.status).toBe(503);
    expect((await f.record()).charged).toBe(String(2n * PRICE));
    const retry = await f.pay(second);
    expect(retry.status, textOf(retry)).toBe(200);
    expect(textOf(retry)).toBe(ANSWER_BODY);
    expect((await f.record()).charged).toBe(String(2n * PRICE));
  });

  it('a pending answer is never served for another resource or another voucher', async () => {
    const { f, second } = await killedAfterTheCharge();
    const runs = f.handlerRuns();
    const otherResource = await f.pay({ ...(await f.call(2n * PRICE, { query: 'other=1' })), payment: second.payment });
    expect(reasonOf(otherResource)).toBe(MISMATCH);
    expect(f.handlerRuns()).toBe(runs);
    // The next voucher raises by the price over the charge, pending or not.
    const next = await f.pay(await f.call(3n * PRICE));
    expect(next.status).toBe(200);
    expect((await f.record()).charged).toBe(String(3n * PRICE));
    // The payer moved past the pending voucher: its retry is now off by one price.
    expect(reasonOf(await f.pay(second))).toBe(MISMATCH);
    expect((await f.record()).charged).toBe(String(3n * PRICE));
  });

  it('on a store instances share, a pending answer is left to the request that charged it for the handover time, then answered', async () => {
    const { f, second } = await killedAfterTheCharge({ shared: true });
    const runs = f.handlerRuns();
    // It may be delivering on another instance now: told to come back, nothing run, nothing charged.
    expect(reasonOf(await f.pay(second))).toBe('invalid_batch_settlement_evm_channel_busy');
    expect(f.handlerRuns()).toBe(runs);
    f.clock.advance(CHANNEL_PENDING_HANDOVER_MS);
    const retry = await f.pay(second);
    expect(retry.status, textOf(retry)).toBe(200);
    expect(textOf(retry)).toBe(ANSWER_BODY);
    expect((await f.record()).charged).toBe(String(2n * PRICE));
  });
});
