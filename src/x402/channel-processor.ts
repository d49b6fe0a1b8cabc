/**
 * Paid calls over a payment channel (x402 `batch-settlement` on Base), the per-request half of
 * the scheme: requests of one channel are serialized; a voucher must raise the payer's
 * cumulative ceiling by exactly the price over what we charged (else the corrective 402); its
 * signature is recovered in the pool, against the channel's mirrored on-chain balance, with no
 * chain round trip; the handler runs; only a 200 commits the charge, durably, before it leaves.
 * A deposit is verified and sent on chain by the facilitator around the same steps. Claiming the
 * vouchers on chain is channel-claimer.ts; refunds are channel-refund.ts.
 */
import type { VoucherCheck, VoucherToRecover } from '../chain/evm-channel-typed-data.ts';
import { sameEvmAddress } from '../chain/evm-typed-data.ts';
import { errorReply, type HttpReply, replyForError, ServiceError } from '../errors.ts';
import type { ChannelFacilitator, ChannelSnapshot } from './channel-facilitator.ts';
import { CHANNEL_REASONS, parseChannelPayload, type ChannelPayload } from './channel-payload.ts';
import { createChannelRefund } from './channel-refund.ts';
import { channelStateOf, correctiveReply, failedOnChain, withChannelResponse } from './channel-replies.ts';
import { ChannelConflictError, type ChannelRecord, type ChannelStore, updateChannel } from './channel-store.ts';
import { createKeyedQueue, type KeyedQueue } from './keyed-queue.ts';
import { paidOf, type PaidCall } from './paid-call.ts';
import type { ReceiptStamp } from './paid-delivery.ts';
import type { PaidTiming } from './paid-timing.ts';
import type { ChallengeBuilder } from './payment-terms.ts';
import { paymentsFull, replyOf, storableAnswer } from './pending-settlements.ts';
import type { PaymentRequirements } from './x402-types.ts';

/** Requests that may wait behind the running one on a channel before it answers "busy". */
export const CHANNEL_MAX_WAITING = 32;
/** Mirrored on-chain state older than this is re-read after a call, ms (well inside the 15-minute minimum withdrawal delay). */
export const CHANNEL_SYNC_MAX_AGE_MS = 60_000;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export interface ChannelProcessorConfig {
  readonly store: ChannelStore;
  readonly facilitator: ChannelFacilitator;
  /** Recovers a voucher's signer: the pool's task (ECDSA recovery is CPU work). */
  readonly recover: (input: VoucherToRecover, signal: AbortSignal) => Promise<VoucherCheck>;
  readonly stamp: ReceiptStamp;
  readonly challengeFor: (path: string) => ChallengeBuilder;
  readonly chainId: number;
  readonly fault: (what: string, err: unknown) => void;
  readonly now?: () => number;
}

export interface ChannelProcessor {
  process(call: PaidCall, timing: PaidTiming): Promise<HttpReply>;
  /** The per-channel queue: the claimer updates records inside it too. */
  readonly queue: KeyedQueue;
}

const same = (a: string, b: unknown) => typeof b === 'string' && sameEvmAddress(a, b);

/** Why the channel's config is not for our terms, or null. */
function termsMismatch(p: ChannelPayload, r: PaymentRequirements): string | null {
  const c = p.channelConfig;
  if (!same(c.receiver, r.payTo)) return CHANNEL_REASONS.receiverMismatch;
  if (!same(c.receiverAuthorizer, r.extra.receiverAuthorizer)) return CHANNEL_REASONS.receiverAuthorizerMismatch;
  if (!same(c.token, r.asset)) return CHANNEL_REASONS.tokenMismatch;
  if (c.withdrawDelay !== Number(r.extra.withdrawDelay)) return CHANNEL_REASONS.withdrawDelayMismatch;
  return null;
}

/** Whether the voucher's ceiling is exactly what we charged plus the price (the scheme's cumulative rule). */
const raisesByThePrice = (p: ChannelPayload, rec: ChannelRecord, call: PaidCall): boolean =>
  BigInt(p.voucher.maxClaimableAmount) === BigInt(rec.charged) + BigInt(call.requirements.amount);

/** Runs the paid handler, timed as the `handler` phase. */
async function answerTimed(call: PaidCall, timing: PaidTiming): Promise<HttpReply> {
  const started = performance.now();
  const answer = await call.answer();
  timing.add('handler', performance.now() - started);
  return answer;
}

/** A channel we hold no record of, from its on-chain state: what is claimed is our baseline charge. */
function freshRecord(p: ChannelPayload, onchain: ChannelSnapshot, now: number): ChannelRecord {
  const c = onchain.totalClaimed;
  return {
    config: p.channelConfig,
    payer: p.channelConfig.payer,
    charged: c,
    signedMax: c,
    signature: '',
    onchain,
    syncedAt: now,
    lastRequestAt: 0,
    unclaimedSince: 0,
    last: null,
    rev: 0,
  };
}

/** Creates the processor of channel payments. */
export function createChannelProcessor(config: ChannelProcessorConfig): ChannelProcessor {
  const { store, facilitator } = config;
  const now = config.now ?? Date.now;
  const queue = createKeyedQueue(CHANNEL_MAX_WAITING);
  const refuse = (call: PaidCall, reason: string, message?: string) =>
    config.challengeFor(call.entry.path).reply(call.resourceUrl, message ? `${reason}: ${message}` : reason);
  const corrective = (call: PaidCall, id: string, rec: ChannelRecord) =>
    correctiveReply(config.challengeFor(call.entry.path), call.resourceUrl, CHANNEL_REASONS.cumulativeMismatch, id, rec);

  /** The voucher's signer is the channel's payer authorizer (an EIP-1271 payer is asked on chain). */
  async function voucherHolds(call: PaidCall, p: ChannelPayload, id: string): Promise<string | null> {
    if (same(ZERO_ADDRESS, p.channelConfig.payerAuthorizer)) {
      const v = await facilitator.verify(call.payment, call.requirements);
      return v.ok ? null : v.reason;
    }
    const input = {
      config: p.channelConfig,
      chainId: config.chainId,
      channelId: id,
      maxClaimableAmount: p.voucher.maxClaimableAmount,
      signature: p.voucher.signature,
    };
    const check = await config.recover(input, call.request.signal);
    if (!check.ok) return check.reason === 'channel_id_mismatch' ? CHANNEL_REASONS.channelIdMismatch : CHANNEL_REASONS.voucherSignature;
    return same(check.signer, p.channelConfig.payerAuthorizer) ? null : CHANNEL_REASONS.voucherSignature;
  }

  /** Re-reads a mirror synced before `syncedAt` is stale, after the call, inside the channel's queue, without holding the caller. */
  function syncLater(id: string, syncedAt: number): void {
    if (now() - syncedAt < CHANNEL_SYNC_MAX_AGE_MS) return;
    void queue
      .run(id, async () => {
        const onchain = await facilitator.read(id);
        await updateChannel(store, id, (current) => ({ ...current, onchain, syncedAt: now() }));
      })
      ?.catch((err: unknown) => config.fault(`channel ${id} state not refreshed`, err));
  }

  /** A 200: the charge durable first (the channel's next revision), then receipt and ledger entry, then the answer kept for its retry. */
  async function commit(
    call: PaidCall,
    id: string,
    rec: ChannelRecord,
    p: ChannelPayload,
    answer: HttpReply,
    moved: { transaction: string; amount: string },
    timing: PaidTiming,
  ) {
    const [t, max] = [now(), p.voucher.maxClaimableAmount];
    const next: ChannelRecord = {
      ...rec,
      charged: max,
      signedMax: max,
      signature: p.voucher.signature,
      lastRequestAt: t,
      unclaimedSince: rec.unclaimedSince || t,
    };
    // No kept answer until this one is: the previous answer must not pass for this voucher's.
    const unstored = await storeCharge(call, id, { ...next, last: null }, moved.transaction);
    if (unstored) return unstored;
    const extra = { chargedAmount: call.requirements.amount, channelState: channelStateOf(id, next) };
    const response = { success: true, transaction: moved.transaction, network: call.requirements.network, payer: rec.payer, amount: moved.amount, extra };
    const paid = paidOf(call);
    const receipt = await config.stamp(paid, call.requirements.network, answer, timing);
    const reply = withChannelResponse(answer, response, receipt);
    await store
      .put(id, { ...next, rev: next.rev + 1, last: { resource: paid.originalUrl, answer: storableAnswer(reply) } })
      .catch((err: unknown) => config.fault(`channel ${id} answer not kept for its retry`, err));
    syncLater(id, next.syncedAt);
    return reply;
  }

  /** The charge made durable; a refusal when a voucher's charge could not be stored (no ledger entry, nothing charged). */
  async function storeCharge(call: PaidCall, id: string, next: ChannelRecord, transaction: string): Promise<HttpReply | null> {
    try {
      await store.put(id, next);
      return null;
    } catch (err) {
      // Another request (on another instance) charged this channel first: this voucher is refused, not charged.
      if (err instanceof ChannelConflictError && transaction === '') return refuse(call, CHANNEL_REASONS.channelBusy, err.message);
      config.fault(`channel ${id} charge not stored`, err);
      // A deposit moved money on chain: its answer goes out. A voucher's charge exists only in our record: no record, no charge, no 200.
      if (transaction !== '') return null;
      if (err instanceof ServiceError) return replyForError(err);
      return errorReply({ error: 'storage_unavailable', message: 'the channel charge could not be stored; nothing was charged' });
    }
  }

  async function voucher(call: PaidCall, p: ChannelPayload, id: string, timing: PaidTiming): Promise<HttpReply> {
    let rec = await store.get(id);
    if (!rec) {
      // A channel we do not hold yet only while there is room: the channels held are never dropped for it.
      if (store.full?.()) return replyForError(paymentsFull());
      const onchain = await facilitator.read(id).catch(() => null);
      if (!onchain) return refuse(call, CHANNEL_REASONS.rpcReadFailed, 'the channel could not be read on chain');
      if (onchain.balance === '0') return refuse(call, CHANNEL_REASONS.channelNotFound, `no funded channel ${id}`);
      rec = freshRecord(p, onchain, now());
    }
    const v = p.voucher;
    if (rec.last && v.signature === rec.signature && v.maxClaimableAmount === rec.signedMax && rec.last.resource === paidOf(call).originalUrl)
      return replyOf(rec.last.answer);
    if (!raisesByThePrice(p, rec, call)) return corrective(call, id, rec);
    if (BigInt(v.maxClaimableAmount) > BigInt(rec.onchain.balance))
      return refuse(call, CHANNEL_REASONS.exceedsBalance, `the channel holds ${rec.onchain.balance}`);
    const started = performance.now();
    const bad = await voucherHolds(call, p, id);
    timing.add('verify', performance.now() - started);
    if (bad) return refuse(call, bad);
    const answer = await answerTimed(call, timing);
    if (answer.status !== 200) return answer;
    return commit(call, id, rec, p, answer, { transaction: '', amount: '' }, timing);
  }

  async function deposit(call: PaidCall, p: ChannelPayload & { type: 'deposit' }, id: string, timing: PaidTiming): Promise<HttpReply> {
    const started = performance.now();
    const verified = await facilitator.verify(call.payment, call.requirements);
    timing.add('simulate', performance.now() - started);
    if (!verified.ok) return refuse(call, verified.reason, verified.message);
    const known = await store.get(id);
    if (!known && store.full?.()) return replyForError(paymentsFull());
    const rec = known ? { ...known, onchain: verified.snapshot, syncedAt: now() } : freshRecord(p, verified.snapshot, now());
    if (!raisesByThePrice(p, rec, call)) return corrective(call, id, rec);
    const answer = await answerTimed(call, timing);
    if (answer.status !== 200) return answer;
    const settling = performance.now();
    const settled = await facilitator.settleDeposit(call.payment, call.requirements);
    timing.add('settle', performance.now() - settling);
    if (!settled.ok) return failedOnChain(refuse(call, settled.reason, settled.message), settled, call.requirements.network, rec.payer);
    return commit(
      call,
      id,
      { ...rec, onchain: settled.snapshot, syncedAt: now() },
      p,
      answer,
      { transaction: settled.transaction, amount: p.depositAmount },
      timing,
    );
  }

  const refund = createChannelRefund({ store, facilitator, refuse, corrective, voucherHolds, now, fault: config.fault });

  return {
    queue,
    async process(call, timing) {
      const parsed = parseChannelPayload(call.payment.payload);
      if (!parsed.ok) return refuse(call, parsed.reason, parsed.message);
      const p = parsed.payload;
      const mismatch = termsMismatch(p, call.requirements);
      if (mismatch) return refuse(call, mismatch, "the channel's config is not for these terms");
      const id = p.voucher.channelId;
      const run = queue.run(id, () =>
        p.type === 'voucher' ? voucher(call, p, id, timing) : p.type === 'deposit' ? deposit(call, p, id, timing) : refund(call, p, id),
      );
      return run ?? refuse(call, CHANNEL_REASONS.channelBusy, 'too many requests wait on this channel; retry shortly');
    },
  };
}
