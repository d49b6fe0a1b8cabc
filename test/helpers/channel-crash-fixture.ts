/**
 * One payment channel served by the real channel processor over the real channel log (a new store
 * over the same directory is a restart), real voucher signatures and their recovery, and the real
 * receipt stamp over an in-memory ledger whose append a fault plan holds (a hold never let go is a
 * crash); the channel log's writes fail when the plan says so at `channel.put`. The on-chain half
 * is a stand-in: it reports a funded channel, accepts a deposit until it has sent it (then, as the
 * chain would, refuses its authorization as used) and counts the deposits sent. Nothing moves
 * money on chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signVoucher } from '@x402/evm/batch-settlement/client';
import { afterEach } from 'vitest';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { channelIdOf, recoverVoucherSigner } from '../../src/chain/evm/evm-channel-typed-data.ts';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import type { HttpReply } from '../../src/errors.ts';
import { type CommitJournal, openCommitJournal } from '../../src/durable/commit-journal.ts';
import { createEd25519Signer } from '../../src/chain/keys/ed25519.ts';
import { createLedger, type Ledger } from '../../src/ledger/ledger.ts';
import { createReceiptIssuer } from '../../src/receipts/receipt-issuer.ts';
import type { ChannelFacilitator } from '../../src/x402/channels/channel-facilitator.ts';
import { createChannelMachine } from '../../src/x402/channels/channel-machine.ts';
import { type ChannelRecord, type ChannelStore, createChannelStore } from '../../src/x402/channels/channel-store.ts';
import { createReceiptStamp } from '../../src/x402/delivery/paid-delivery.ts';
import { createPaidTiming } from '../../src/x402/delivery/paid-timing.ts';
import { createChallengeBuilder } from '../../src/x402/delivery/payment-terms.ts';
import type { PaidCall } from '../../src/x402/types/paid-call.ts';
import { createFaultPlan, type FaultPlan } from './fault-plan.ts';
import { manualClock } from './manual-clock.ts';
import { createMemoryLedger } from './memory-ledger.ts';
import { settleResponseOf } from './payment-state-fixture.ts';
import { fakeSchemeChannel, fakeSchemeTerms } from './test-terms.ts';

const BASE_CHAIN_ID = 8453;
const ENTRY = CATALOG.find((e) => e.path === '/v1/epoch')!;
export const PRICE = BigInt(ENTRY.priceUnits);
const RECEIVER_AUTHORIZER = evmAddressOfKey(generateEvmKey());
const TERMS = fakeSchemeTerms(RECEIVER_AUTHORIZER);
const BUILDER = createChallengeBuilder(ENTRY, TERMS);
const REQUIREMENTS = BUILDER.accepts.find((a) => a.scheme === 'batch-settlement')!;
export const ANSWER_BODY = '{"epoch":"the answer computed for the paid call"}';
export const MISMATCH = 'invalid_batch_settlement_evm_cumulative_amount_mismatch';
/** The stand-in's hash of the deposit transaction it sends. */
export const DEPOSIT_TX = `0x${'d0'.repeat(32)}`;
/** The stand-in's refusal of a deposit authorization it already sent. */
export const DEPOSIT_USED = 'invalid_batch_settlement_evm_deposit_authorization_used';
const T = 1_000_000;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * The channel log, whose writes fail when the plan says so at `channel.put`. It stages nothing, so
 * the processor commits in its two steps (the database store's path): the charge, then the answer.
 */
function channelLog(dir: string, faults: FaultPlan): ChannelStore {
  const { stage: _staged, ...log } = createChannelStore({ dir, now: () => T });
  const put: ChannelStore['put'] = async (id, record) => {
    await faults.at('channel.put');
    return log.put(id, record);
  };
  return { ...log, put };
}

/**
 * The on-chain stand-in: a funded channel; a deposit accepted until sent, then refused as used.
 * Its verification passes the plan's `facilitator.verify` point first (a hold there is a slow read).
 */
function chainStandIn(payer: string, faults: FaultPlan) {
  const snapshot = { balance: String(100n * PRICE), totalClaimed: '0', withdrawRequestedAt: 0, refundNonce: '0' };
  let depositsSent = 0;
  const facilitator = {
    read: async () => snapshot,
    verify: async () => {
      await faults.at('facilitator.verify');
      return depositsSent === 0
        ? { ok: true, payer, snapshot }
        : { ok: false, reason: DEPOSIT_USED, message: 'the deposit authorization was used', transaction: '' };
    },
    settleDeposit: async () => {
      depositsSent++;
      return { ok: true, transaction: DEPOSIT_TX, snapshot };
    },
  } as unknown as ChannelFacilitator;
  return { facilitator, depositsSent: () => depositsSent };
}

export interface ChannelCallOptions {
  readonly query?: string;
  readonly answer?: () => HttpReply;
  /** A deposit of this amount with the voucher (default: a voucher alone). */
  readonly deposit?: bigint;
  /** Another channel of the same payer: its config with this salt (default the fixture's channel). */
  readonly salt?: `0x${string}`;
}

/** The receipt stamp over `ledger`, as the service issues receipts. */
function stampOver(ledger: Pick<Ledger, 'append'>) {
  const receipts = createReceiptIssuer({
    ledger,
    service: 'channel-crash-test',
    serviceVersion: '0',
    baseUrl: () => 'http://svc.test',
    publicKey: 'ChannelCrashTestKey',
    sign: createEd25519Signer(new Uint8Array(32).fill(7)),
    now: () => new Date(T),
  });
  return createReceiptStamp({ receipts, fault: () => {} });
}

/**
 * One process of the journaled service: the data directory's commit journal (held or failed at
 * `journal.journal`, before its write, and `journal.files`, between its fdatasync and the files),
 * the file ledger and the channel log on it. Opening it again on the directory is the restart.
 */
export async function openJournaled(dir: string, faults: FaultPlan) {
  const journal: CommitJournal = openCommitJournal({ dir, seam: (point) => faults.at(`journal.${point}`) });
  const ledger = await createLedger({ dir: join(dir, 'ledger'), journal, nodeStore: 'memory' });
  const store = createChannelStore({ dir, now: () => T, journal });
  return { journal, ledger, store, stamp: stampOver(ledger) };
}

export function createChannelCrashFixture(o: { shared?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'channel-crash-'));
  dirs.push(dir);
  const faults = createFaultPlan();
  const ledger = createMemoryLedger(faults);
  const stamp = stampOver(ledger);
  const key = generateEvmKey();
  const payer = evmAddressOfKey(key);
  const chain = chainStandIn(payer, faults);
  const config = fakeSchemeChannel(payer, RECEIVER_AUTHORIZER);
  const channelId = channelIdOf(config, BASE_CHAIN_ID) as `0x${string}`;
  let handlerRuns = 0;
  const clock = manualClock(T);

  /** A processor over `store`, answering with `stamp`'s receipts. */
  const processorOver = (store: ChannelStore, withStamp: typeof stamp) =>
    createChannelMachine({
      store,
      facilitator: chain.facilitator,
      recover: (input) => recoverVoucherSigner(input),
      stamp: withStamp,
      challengeFor: () => BUILDER,
      chainId: BASE_CHAIN_ID,
      fault: () => {},
      now: clock.now,
      shared: o.shared ?? false,
    });
  /** One process: a processor over the channel log opened now. */
  const open = () => {
    const store = channelLog(dir, faults);
    return { store, processor: processorOver(store, stamp) };
  };
  let now = open();

  /** A voucher of ceiling `max` on the channel (with a deposit, when asked), for `/v1/epoch` with `query`, answered by `answer`. */
  async function call(max: bigint, o: ChannelCallOptions = {}): Promise<PaidCall> {
    const channelConfig = o.salt ? { ...config, salt: o.salt } : config;
    const id = o.salt ? (channelIdOf(channelConfig, BASE_CHAIN_ID) as `0x${string}`) : channelId;
    const voucher = await signVoucher(evmAccountFromKey(key), id, max.toString(), 'eip155:8453');
    const query = o.query ?? '';
    const deposit = o.deposit === undefined ? {} : { deposit: { amount: o.deposit.toString(), authorization: { from: payer, nonce: `0x${'01'.repeat(32)}` } } };
    return {
      entry: ENTRY,
      payment: {
        x402Version: 2,
        accepted: REQUIREMENTS,
        payload: { type: o.deposit === undefined ? 'voucher' : 'deposit', channelConfig, voucher, ...deposit },
      },
      requirements: REQUIREMENTS,
      resourceUrl: `http://svc.test${ENTRY.path}${query ? `?${query}` : ''}`,
      request: { path: ENTRY.path, query, signal: new AbortController().signal },
      answer: async () => {
        await faults.at('handler');
        handlerRuns++;
        return o.answer ? o.answer() : { status: 200, headers: { 'Content-Type': 'application/json' }, body: ANSWER_BODY };
      },
    };
  }

  return {
    dir,
    faults,
    ledger,
    clock,
    channelId,
    /** A processor of the journaled service opened on this fixture's directory (a restart when opened again). */
    async journaled() {
      const opened = await openJournaled(dir, faults);
      const processor = processorOver(opened.store, opened.stamp);
      return { ...opened, pay: (c: PaidCall) => processor.chargeCall(c, createPaidTiming()) };
    },
    call,
    /** One instance of the service over `store` and `ledger` (e.g. the database's), serving this fixture's channel. */
    instance(store: ChannelStore, ledger: Pick<Ledger, 'append'>) {
      const processor = processorOver(store, stampOver(ledger));
      return (c: PaidCall) => processor.chargeCall(c, createPaidTiming());
    },
    handlerRuns: () => handlerRuns,
    depositsSent: chain.depositsSent,
    pay: (c: PaidCall) => now.processor.chargeCall(c, createPaidTiming()),
    record: async () => (await now.store.get(channelId)) as ChannelRecord,
    /** This process stops where it is; the next opens the channel log as it is on disk. */
    async restart() {
      await now.store.flush();
      now = open();
    },
  };
}

/** A reply's body as text (a kept answer comes back as bytes). */
export const textOf = (reply: HttpReply): string => reply.body.toString();

export const chargedOf = (reply: HttpReply): unknown =>
  (settleResponseOf(reply)?.extra as { channelState?: { chargedCumulativeAmount: string } } | undefined)?.channelState?.chargedCumulativeAmount;
