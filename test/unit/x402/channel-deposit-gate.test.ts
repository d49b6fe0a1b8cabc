/**
 * A payer has one deposit in flight at a time (docs/security.md, one payer's deposits racing on
 * several channels), and only a deposit its payer signed may take that place: the gate is entered
 * after the facilitator's verification. Entered before it, a stranger's deposit payload naming the
 * payer held the gate for as long as its verification took, and the payer's own deposit meanwhile
 * was refused `payer_busy`: a stranger could keep a payer from opening a channel by sending junk.
 * The fixture (test/helpers/channel-crash-fixture.ts) is the real processor over a chain stand-in
 * whose verification can be held.
 */
import { describe, expect, it } from 'vitest';
import { createChannelCrashFixture, PRICE, textOf } from '../../helpers/channel-crash-fixture.ts';
import { reasonOf } from '../../helpers/payment-state-fixture.ts';

const DEPOSIT = 100n * PRICE;
const salt = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;

describe("a payer's one deposit at a time", () => {
  it("a deposit still in verification (a stranger's, say) does not keep the payer's own deposit out", async () => {
    const f = createChannelCrashFixture();
    const slow = await f.call(PRICE, { deposit: DEPOSIT, salt: salt(1) });
    const own = await f.call(PRICE, { deposit: DEPOSIT, salt: salt(2) });
    const held = f.faults.hold('facilitator.verify');
    const slowAnswer = f.pay(slow);
    await held.reached;
    const ownAnswer = await f.pay(own);
    expect(ownAnswer.status, textOf(ownAnswer)).toBe(200);
    held.release();
    // Verified after the payer's deposit was sent, the held one is refused by the chain's stand-in (used).
    expect((await slowAnswer).status).toBe(402);
    expect(f.depositsSent()).toBe(1);
  });

  it('two verified deposits of one payer on two channels: the second is refused while the first is in flight, nothing sent for it', async () => {
    const f = createChannelCrashFixture();
    const first = await f.call(PRICE, { deposit: DEPOSIT, salt: salt(1) });
    const second = await f.call(PRICE, { deposit: DEPOSIT, salt: salt(2) });
    // The first's handler held: it is past its verification and inside the gate, its deposit not sent yet.
    const held = f.faults.hold('handler');
    const firstAnswer = f.pay(first);
    await held.reached;
    const refused = await f.pay(second);
    expect(refused.status).toBe(402);
    expect(reasonOf(refused)).toMatch(/^payer_busy/);
    expect(f.depositsSent()).toBe(0);
    held.release();
    expect((await firstAnswer).status).toBe(200);
    expect(f.depositsSent()).toBe(1);
  });
});
