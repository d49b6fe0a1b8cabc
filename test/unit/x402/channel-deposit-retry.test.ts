/**
 * A deposit answered (or charged and not answered) whose 200 never reached the payer: the payer
 * retries the identical deposit payload. Its money already moved on chain, so checking it again
 * as a new deposit can only fail: the retry must get the 200 of that charge (the kept one, or the
 * answer computed again), never a second charge or a second deposit sent, and only the channel's
 * own signer gets it. The fixture (test/helpers/channel-crash-fixture.ts) is the real processor,
 * channel log, signatures and receipt stamp, with a stand-in for the chain that refuses a deposit
 * authorization once it has sent it.
 */
import { describe, expect, it } from 'vitest';
import { evmAddressOfKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import type { PaidCall } from '../../../src/x402/types/paid-call.ts';
import { ANSWER_BODY, chargedOf, createChannelCrashFixture, DEPOSIT_TX, PRICE, textOf } from '../../helpers/channel-crash-fixture.ts';
import { reasonOf, settleResponseOf } from '../../helpers/payment-state-fixture.ts';

const DEPOSIT = 100n * PRICE;

/** The fixture and a deposit (with its first voucher) whose charge was stored, its process killed at its ledger append. */
async function depositKilledAfterTheCharge() {
  const f = createChannelCrashFixture();
  const deposit = await f.call(PRICE, { deposit: DEPOSIT });
  const held = f.faults.hold('ledger.append');
  void f.pay(deposit);
  await held.reached;
  await f.restart();
  expect((await f.record()).charged).toBe(String(PRICE));
  return { f, deposit };
}

/** The retry answers what the deposit moved: its transaction and amount, and the charge made. */
function expectTheDepositsAnswer(reply: Awaited<ReturnType<ReturnType<typeof createChannelCrashFixture>['pay']>>) {
  expect(reply.status, textOf(reply)).toBe(200);
  expect(textOf(reply)).toBe(ANSWER_BODY);
  const response = settleResponseOf(reply);
  expect(response?.transaction).toBe(DEPOSIT_TX);
  expect(response?.amount).toBe(String(DEPOSIT));
  expect(chargedOf(reply)).toBe(String(PRICE));
}

/** The same deposit payload with one field of its channel config changed. */
function withConfig(call: PaidCall, change: Record<string, unknown>): PaidCall {
  const payload = call.payment.payload as Record<string, unknown>;
  const config = payload.channelConfig as Record<string, unknown>;
  return { ...call, payment: { ...call.payment, payload: { ...payload, channelConfig: { ...config, ...change } } } };
}

describe('a channel deposit whose 200 was lost', () => {
  it('answered, its response lost: the identical deposit gets the kept 200, no second charge, no second deposit sent', async () => {
    const f = createChannelCrashFixture();
    const deposit = await f.call(PRICE, { deposit: DEPOSIT });
    const answered = await f.pay(deposit);
    expect(answered.status).toBe(200);
    const runs = f.handlerRuns();
    const retry = await f.pay(deposit);
    expectTheDepositsAnswer(retry);
    expect(retry.headers?.['PAYMENT-RESPONSE']).toBe(answered.headers?.['PAYMENT-RESPONSE']);
    expect(f.handlerRuns()).toBe(runs);
    expect(f.depositsSent()).toBe(1);
    expect((await f.record()).charged).toBe(String(PRICE));
    expect(f.ledger.entries.filter((e) => e.kind === 'payment')).toHaveLength(1);
  });

  it('killed after its charge was stored, before its answer was kept: the identical deposit after the restart gets the 200, charged once, deposited once', async () => {
    const { f, deposit } = await depositKilledAfterTheCharge();
    const retry = await f.pay(deposit);
    expectTheDepositsAnswer(retry);
    expect(f.depositsSent()).toBe(1);
    expect((await f.record()).charged).toBe(String(PRICE));
    // Kept now: the same deposit once more is that 200, the handler not run again.
    const runs = f.handlerRuns();
    expectTheDepositsAnswer(await f.pay(deposit));
    expect(f.handlerRuns()).toBe(runs);
    // The payer pays on by voucher from the charge it made.
    expect((await f.pay(await f.call(2n * PRICE))).status).toBe(200);
    expect((await f.record()).charged).toBe(String(2n * PRICE));
  });

  it("the answer's write fails after the deposit's charge was stored: the identical deposit again gets the 200, charged once", async () => {
    const f = createChannelCrashFixture();
    const deposit = await f.call(PRICE, { deposit: DEPOSIT });
    const held = f.faults.hold('ledger.append');
    const answering = f.pay(deposit);
    await held.reached;
    f.faults.fail('channel.put', new Error('disk full'));
    held.release();
    expect((await answering).status).toBe(200);
    expect((await f.record()).last?.answer ?? null).toBeNull();
    expectTheDepositsAnswer(await f.pay(deposit));
    expect(f.depositsSent()).toBe(1);
    expect((await f.record()).charged).toBe(String(PRICE));
  });

  it("a stranger replaying the deposit's payload under its own authorizer gets a plain 402 and no channel state, kept or pending", async () => {
    const stranger = evmAddressOfKey(generateEvmKey());
    const kept = createChannelCrashFixture();
    const deposit = await kept.call(PRICE, { deposit: DEPOSIT });
    expect((await kept.pay(deposit)).status).toBe(200);
    const { f, deposit: pendingDeposit } = await depositKilledAfterTheCharge();
    for (const [fixture, call] of [
      [kept, deposit],
      [f, pendingDeposit],
    ] as const) {
      const runs = fixture.handlerRuns();
      const replayed = await fixture.pay(withConfig(call, { payerAuthorizer: stranger }));
      expect(replayed.status).toBe(402);
      expect(reasonOf(replayed)).toBe('invalid_batch_settlement_evm_channel_id_mismatch');
      expect(textOf(replayed)).not.toContain('chargedCumulativeAmount');
      expect(textOf(replayed)).not.toContain(ANSWER_BODY);
      expect(settleResponseOf(replayed)).toBeNull();
      expect(fixture.handlerRuns()).toBe(runs);
      expect(fixture.depositsSent()).toBe(1);
      expect((await fixture.record()).charged).toBe(String(PRICE));
    }
  });
});
