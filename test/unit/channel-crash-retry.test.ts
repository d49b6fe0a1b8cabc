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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signVoucher } from '@x402/evm/batch-settlement/client';
import { afterEach, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { channelIdOf, recoverVoucherSigner } from '../../src/chain/evm-channel-typed-data.ts';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/evm-key-file.ts';
import type { HttpReply } from '../../src/errors.ts';
import { createEd25519Signer } from '../../src/trust/ed25519.ts';
import { RECEIPT_HEADER } from '../../src/trust/receipt.ts';
import { createReceiptIssuer } from '../../src/trust/receipt-issuer.ts';
import type { ChannelFacilitator } from '../../src/x402/channels/channel-facilitator.ts';
import { CHANNEL_PENDING_HANDOVER_MS, createChannelProcessor } from '../../src/x402/channels/channel-processor.ts';
import { type ChannelRecord, type ChannelStore, createChannelStore } from '../../src/x402/channels/channel-store.ts';
import { createReceiptStamp } from '../../src/x402/delivery/paid-delivery.ts';
import { createPaidTiming } from '../../src/x402/delivery/paid-timing.ts';
import { createChallengeBuilder } from '../../src/x402/delivery/payment-terms.ts';
import type { PaidCall } from '../../src/x402/types/paid-call.ts';
import { createFaultPlan, type FaultPlan } from '../helpers/fault-plan.ts';
import { manualClock } from '../helpers/manual-clock.ts';
import { createMemoryLedger } from '../helpers/memory-ledger.ts';
import { reasonOf, settleResponseOf } from '../helpers/payment-state-fixture.ts';

const BASE_CHAIN_ID = 8453;
const ENTRY = CATALOG.find((e) => e.path === '/v1/epoch')!;
const PRICE = BigInt(ENTRY.priceUnits);
const RECEIVER_AUTHORIZER = evmAddressOfKey(generateEvmKey());
const TERMS = {
  svm: { payTo: 'PayTo11111111111111111111111111111111111111', asset: 'Mint111111111111111111111111111111111111111', feePayer: 'FakeFeePayer' },
  evm: { payTo: `0x${'11'.repeat(20)}`, asset: `0x${'22'.repeat(20)}`, name: 'USD Coin', version: '2' },
  channel: { receiverAuthorizer: RECEIVER_AUTHORIZER, withdrawDelay: 86_400, minDepositCalls: 100 },
};
const BUILDER = createChallengeBuilder(ENTRY, TERMS);
const REQUIREMENTS = BUILDER.accepts.find((a) => a.scheme === 'batch-settlement')!;
const ANSWER_BODY = '{"epoch":"the answer computed for the paid call"}';
const MISMATCH = 'invalid_batch_settlement_evm_cumulative_amount_mismatch';
const T = 1_000_000;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The channel log, whose writes fail when the plan says so at `channel.put`. */
function channelLog(dir: string, faults: FaultPlan): ChannelStore {
  const log = createChannelStore({ dir, now: () => T });
  const put: ChannelStore['put'] = async (id, record) => {
    await faults.at('channel.put');
    return log.put(id, record);
  };
  return { ...log, put };
}

function setup(o: { shared?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'channel-crash-'));
  dirs.push(dir);
  const faults = createFaultPlan();
  const ledger = createMemoryLedger(faults);
  const receipts = createReceiptIssuer({
    ledger,
    service: 'channel-crash-test',
    serviceVersion: '0',
    baseUrl: () => 'http://svc.test',
    publicKey: 'ChannelCrashTestKey',
    sign: createEd25519Signer(new Uint8Array(32).fill(7)),
    now: () => new Date(T),
  });
  const stamp = createReceiptStamp({ receipts, fault: () => {} });
  const snapshot = { balance: String(100n * PRICE), totalClaimed: '0', withdrawRequestedAt: 0, refundNonce: '0' };
  const facilitator = { read: async () => snapshot, verify: async () => ({ ok: false, reason: 'unused' }) } as unknown as ChannelFacilitator;
  const key = generateEvmKey();
  const payer = evmAddressOfKey(key);
  const config = {
    payer,
    payerAuthorizer: payer,
    receiver: TERMS.evm.payTo,
    receiverAuthorizer: RECEIVER_AUTHORIZER,
    token: TERMS.evm.asset,
    withdrawDelay: 86_400,
    salt: `0x${'00'.repeat(32)}`,
  };
  const channelId = channelIdOf(config, BASE_CHAIN_ID) as `0x${string}`;
  let handlerRuns = 0;
  const clock = manualClock(T);

  /** One process: a processor over the channel log opened now. */
  const open = () => {
    const store = channelLog(dir, faults);
    const processor = createChannelProcessor({
      store,
      facilitator,
      recover: (input) => recoverVoucherSigner(input),
      stamp,
      challengeFor: () => BUILDER,
      chainId: BASE_CHAIN_ID,
      fault: () => {},
      now: clock.now,
      shared: o.shared ?? false,
    });
    return { store, processor };
  };
  let now = open();

  /** A voucher of ceiling `max` on the channel, for `/v1/epoch` with `query`, answered by `answer`. */
  async function call(max: bigint, o: { query?: string; answer?: () => HttpReply } = {}): Promise<PaidCall> {
    const voucher = await signVoucher(evmAccountFromKey(key), channelId, max.toString(), 'eip155:8453');
    const query = o.query ?? '';
    return {
      entry: ENTRY,
      payment: { x402Version: 2, accepted: REQUIREMENTS, payload: { type: 'voucher', channelConfig: config, voucher } },
      requirements: REQUIREMENTS,
      resourceUrl: `http://svc.test${ENTRY.path}${query ? `?${query}` : ''}`,
      request: { path: ENTRY.path, query, signal: new AbortController().signal },
      answer: async () => {
        handlerRuns++;
        return o.answer ? o.answer() : { status: 200, headers: { 'Content-Type': 'application/json' }, body: ANSWER_BODY };
      },
    };
  }

  return {
    faults,
    ledger,
    clock,
    call,
    handlerRuns: () => handlerRuns,
    pay: (c: PaidCall) => now.processor.process(c, createPaidTiming()),
    record: async () => (await now.store.get(channelId)) as ChannelRecord,
    /** This process stops where it is; the next opens the channel log as it is on disk. */
    async restart() {
      await now.store.flush();
      now = open();
    },
  };
}

/** A reply's body as text (a kept answer comes back as bytes). */
const textOf = (reply: HttpReply): string => reply.body.toString();

const chargedOf = (reply: HttpReply): unknown =>
  (settleResponseOf(reply)?.extra as { channelState?: { chargedCumulativeAmount: string } } | undefined)?.channelState?.chargedCumulativeAmount;

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
