/**
 * A deposit's voucher in a form the channel contract cannot claim (its signature's recovery byte
 * written 0 or 1 instead of 27 or 28; docs/security.md, "a voucher the contract will never
 * honour"): the official facilitator's check recovers the payer from it (viem takes both forms),
 * as the fixture's stand-in accepts it, so the deposit was sent, its call answered and charged on a
 * voucher whose claim reverts. The fixture (test/helpers/channel-crash-fixture.ts) is the real
 * processor over a chain stand-in.
 */
import { describe, expect, it } from 'vitest';
import type { PaidCall } from '../../../src/x402/types/paid-call.ts';
import { createChannelCrashFixture, PRICE, textOf } from '../../helpers/channel-crash-fixture.ts';
import { reasonOf } from '../../helpers/payment-state-fixture.ts';

/** `call` with its voucher's v (27 or 28) written as the bare recovery id. */
function withBareV(call: PaidCall): PaidCall {
  const payload = call.payment.payload as { voucher: { signature: string } };
  const v = Number.parseInt(payload.voucher.signature.slice(130), 16);
  const signature = `${payload.voucher.signature.slice(0, 130)}0${v - 27}`;
  return { ...call, payment: { ...call.payment, payload: { ...payload, voucher: { ...payload.voucher, signature } } } } as PaidCall;
}

describe("a deposit whose voucher's recovery byte is 0 or 1", () => {
  it('is refused before anything is sent or answered; the same deposit with v 27/28 goes through', async () => {
    const f = createChannelCrashFixture();
    const deposit = await f.call(PRICE, { deposit: 100n * PRICE });
    const refused = await f.pay(withBareV(deposit));
    expect(refused.status, textOf(refused)).toBe(402);
    expect(reasonOf(refused)).toBe('invalid_batch_settlement_evm_voucher_signature');
    expect([f.depositsSent(), f.handlerRuns()]).toEqual([0, 0]);
    expect((await f.pay(deposit)).status).toBe(200);
  });
});
