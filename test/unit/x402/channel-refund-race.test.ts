/**
 * A payer's cooperative refund on one instance racing its own vouchers on another (two channel
 * processors over one channel store, as instances share the database's): the real processors, the
 * real channel log and voucher recovery; the chain a stand-in whose refund is held while the other
 * instance is asked. A voucher answered while the refund is in flight is charged against escrow the
 * refund gives back: once it lands, that charge can never be claimed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signVoucher } from '@x402/evm/batch-settlement/client';
import { afterEach, describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/catalog/endpoints.ts';
import { channelIdOf, recoverVoucherSigner } from '../../../src/chain/evm/evm-channel-typed-data.ts';
import { createEd25519Signer } from '../../../src/chain/keys/ed25519.ts';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../../src/chain/keys/evm-key-file.ts';
import { createReceiptIssuer } from '../../../src/receipts/receipt-issuer.ts';
import { REFUND_MARK_MS } from '../../../src/x402/channels/channel-closed.ts';
import type { ChannelFacilitator, ChannelSnapshot } from '../../../src/x402/channels/channel-facilitator.ts';
import { createChannelMachine } from '../../../src/x402/channels/channel-machine.ts';
import { createChannelStore } from '../../../src/x402/channels/channel-store.ts';
import { createReceiptStamp } from '../../../src/x402/delivery/paid-delivery.ts';
import { createPaidTiming } from '../../../src/x402/delivery/paid-timing.ts';
import { createChallengeBuilder } from '../../../src/x402/delivery/payment-terms.ts';
import type { PaidCall } from '../../../src/x402/types/paid-call.ts';
import { manualClock } from '../../helpers/manual-clock.ts';
import { createMemoryLedger } from '../../helpers/memory-ledger.ts';
import { fakeSchemeChannel, fakeSchemeTerms } from '../../helpers/test-terms.ts';

const ENTRY = CATALOG.find((e) => e.path === '/v1/epoch')!;
const PRICE = BigInt(ENTRY.priceUnits);
const RECEIVER_AUTHORIZER = evmAddressOfKey(generateEvmKey());
const TERMS = fakeSchemeTerms(RECEIVER_AUTHORIZER);
const BUILDER = createChallengeBuilder(ENTRY, TERMS);
const REQUIREMENTS = BUILDER.accepts.find((a) => a.scheme === 'batch-settlement')!;
const T = 1_000_000;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** `refused`: the refund fails, with this transaction ('' when nothing was sent). */
function setUp(refused?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'channel-refund-race-'));
  dirs.push(dir);
  const clock = manualClock(T);
  const key = generateEvmKey();
  const payer = evmAddressOfKey(key);
  const config = fakeSchemeChannel(payer, RECEIVER_AUTHORIZER);
  const channelId = channelIdOf(config, 8453) as `0x${string}`;
  // The chain: a funded channel; a refund held until the test lets it land (claims what was charged, returns the rest).
  let chain: ChannelSnapshot = { balance: String(100n * PRICE), totalClaimed: '0', withdrawRequestedAt: 0, refundNonce: '0' };
  let land!: () => void;
  const refundHeld = new Promise<void>((r) => (land = r));
  let refundAsked!: () => void;
  const refundSent = new Promise<void>((r) => (refundAsked = r));
  const facilitator = {
    read: async () => chain,
    async refund(refund: { claims: Array<{ totalClaimed?: string }>; amount: string }) {
      refundAsked();
      if (refused !== undefined) return { ok: false, reason: 'invalid_batch_settlement_evm_refund_failed', message: 'refused', transaction: refused };
      await refundHeld;
      const claimed = refund.claims[0]!.totalClaimed!;
      chain = { balance: claimed, totalClaimed: claimed, withdrawRequestedAt: 0, refundNonce: '1' };
      return { ok: true, transaction: `0x${'ee'.repeat(32)}`, amount: refund.amount, snapshot: chain };
    },
  } as unknown as ChannelFacilitator;
  const store = createChannelStore({ dir, now: () => T });
  const receipts = createReceiptIssuer({
    ledger: createMemoryLedger(),
    service: 'refund-race-test',
    serviceVersion: '0',
    baseUrl: () => 'http://svc.test',
    publicKey: 'RefundRaceTestKey',
    sign: createEd25519Signer(new Uint8Array(32).fill(7)),
    now: () => new Date(T),
  });
  const stamp = createReceiptStamp({ receipts, fault: () => {} });
  const instance = () => {
    const machine = createChannelMachine({
      store,
      facilitator,
      recover: (input) => recoverVoucherSigner(input),
      stamp,
      challengeFor: () => BUILDER,
      chainId: 8453,
      fault: () => {},
      now: clock.now,
      shared: true,
    });
    return (c: PaidCall) => machine.chargeCall(c, createPaidTiming());
  };
  async function call(type: 'voucher' | 'refund', max: bigint): Promise<PaidCall> {
    const voucher = await signVoucher(evmAccountFromKey(key), channelId, max.toString(), 'eip155:8453');
    return {
      entry: ENTRY,
      payment: { x402Version: 2, accepted: REQUIREMENTS, payload: { type, channelConfig: config, voucher } },
      requirements: REQUIREMENTS,
      resourceUrl: `http://svc.test${ENTRY.path}`,
      request: { path: ENTRY.path, query: '', signal: new AbortController().signal },
      answer: async () => ({ status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"epoch":1}' }),
    } as unknown as PaidCall;
  }
  return { clock, call, instance, land, refundSent, chain: () => chain, record: async () => store.get(channelId) };
}

describe('a refund on one instance, vouchers on another', () => {
  it('no voucher is answered while the refund is in flight: every charge answered is claimed by the refund', async () => {
    const s = setUp();
    const [a, b] = [s.instance(), s.instance()];
    let charged = 0n;
    for (let i = 1n; i <= 2n; i++) {
      expect((await b(await s.call('voucher', i * PRICE))).status).toBe(200);
      charged = i * PRICE;
    }
    const refund = a(await s.call('refund', charged));
    await s.refundSent;
    // The payer's next vouchers, sent to the other instance while the refund is on its way.
    let answered = 0;
    for (let i = 3n; i <= 5n; i++) if ((await b(await s.call('voucher', i * PRICE))).status === 200) answered++;
    s.land();
    expect((await refund).status).toBe(200);
    // What the chain paid us is what we charged; nothing answered beyond it.
    expect(BigInt(s.chain().totalClaimed)).toBe(charged);
    expect(answered).toBe(0);
  });

  it('a mark left by an instance that stopped mid-refund lapses: the chain is read again, and vouchers go on when the refund never went out', async () => {
    const s = setUp();
    const [a, b] = [s.instance(), s.instance()];
    expect((await b(await s.call('voucher', PRICE))).status).toBe(200);
    // The refund is marked and sent, and its instance stops (the held refund never lands).
    void a(await s.call('refund', PRICE));
    await s.refundSent;
    expect((await b(await s.call('voucher', 2n * PRICE))).status).toBe(402);
    s.clock.advance(REFUND_MARK_MS);
    expect((await b(await s.call('voucher', 2n * PRICE))).status).toBe(200);
    expect((await s.record())?.refunding).toBeUndefined();
  });

  it('a refund refused before anything was sent clears its mark; one sent whose outcome is unknown keeps it until it lapses', async () => {
    const unsent = setUp('');
    const [a, b] = [unsent.instance(), unsent.instance()];
    expect((await b(await unsent.call('voucher', PRICE))).status).toBe(200);
    expect((await a(await unsent.call('refund', PRICE))).status).toBe(402);
    expect((await b(await unsent.call('voucher', 2n * PRICE))).status).toBe(200);
    const sent = setUp(`0x${'ab'.repeat(32)}`);
    const [c, d] = [sent.instance(), sent.instance()];
    expect((await d(await sent.call('voucher', PRICE))).status).toBe(200);
    expect((await c(await sent.call('refund', PRICE))).status).toBe(402);
    expect((await d(await sent.call('voucher', 2n * PRICE))).status).toBe(402);
    sent.clock.advance(REFUND_MARK_MS);
    expect((await d(await sent.call('voucher', 2n * PRICE))).status).toBe(200);
  });
});
