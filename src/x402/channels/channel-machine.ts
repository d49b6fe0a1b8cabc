/**
 * The channel scheme's state machine: paid calls over a payment channel (x402 `batch-settlement`
 * on Base), the per-request half of the scheme. One call's payment, in the order `chargeCall` asks
 * (requests of one channel are serialized), and where each state goes:
 *
 *   not this route's terms, malformed     -> 402 naming the reason; nothing read, nothing charged
 *   voucher not the channel signer's      -> plain 402 (channel-signer-proof.ts): a stranger learns nothing
 *   charged, answer kept or never kept    -> answered again on its identical retry, no new charge
 *   ceiling not raised by exactly the price -> corrective 402 with our state and the payer's last voucher
 *   over the mirrored balance (re-read when older than its bound), withdrawal pending, quarantined -> 402
 *   deposit                               -> verified and sent on chain by the facilitator, then a voucher (one per payer at a time)
 *   voucher in order                      -> the handler runs; only a 200 commits the charge (channel-commit.ts)
 *
 * Claims are channel-claimer.ts, refunds channel-refund.ts.
 */
import { claimableVoucherForm, type VoucherCheck, type VoucherToRecover } from '../../chain/evm/evm-channel-typed-data.ts';
import { type HttpReply, replyForError } from '../../errors.ts';
import { closedBy, withoutLapsedMark } from './channel-closed.ts';
import { createChannelCommit, isRetryOf, NOTHING_MOVED } from './channel-commit.ts';
import type { ChannelFacilitator, ChannelSnapshot } from './channel-facilitator.ts';
import { createFreshMirror, freshRecord } from './channel-mirror.ts';
import { CHANNEL_REASONS, parseChannelPayload, termsMismatch, type ChannelPayload } from './channel-payload.ts';
import { createChannelRefund } from './channel-refund.ts';
import { correctiveReply, failedOnChain } from './channel-replies.ts';
import { createSignerProof, isPublished } from './channel-signer-proof.ts';
import { type ChannelRecord, type ChannelStore, updateChannel } from './channel-store.ts';
import { createFailedPayments, type FailedPayments } from '../stores/failed-payments.ts';
import { createKeyedQueue, createOneAtATime, type KeyedQueue } from './keyed-queue.ts';
import { payloadSha256, type PaidCall } from '../types/paid-call.ts';
import { refusalSentence } from '../delivery/reason-messages.ts';
import type { ReceiptStamp } from '../delivery/paid-delivery.ts';
import { type PaidTiming, timedAnswer } from '../delivery/paid-timing.ts';
import type { ChallengeBuilder } from '../delivery/payment-terms.ts';
import { replyOf } from '../stores/pending-settlements.ts';
import { noRoomFor, recordsRefused } from '../stores/record-shares.ts';

/** Requests that may wait behind the running one on a channel before it answers "busy". */
export const CHANNEL_MAX_WAITING = 32;
/**
 * The mirror's freshness bound, ms: a voucher is never checked against on-chain state read longer
 * ago than this (nor than the watch interval, when shorter); an older mirror is read again first.
 * Well inside the 15-minute minimum withdrawal delay, so a withdrawal is seen before it can finish.
 */
export const CHANNEL_SYNC_MAX_AGE_MS = 60_000;

/**
 * On a store other instances share (the database), how long a voucher's pending answer is left to
 * the request that charged it, ms: it may be delivering it on another instance right now (receipt
 * and ledger entry take far less). After that it is taken for lost and answered again. With the
 * charge and its kept answer in one transaction a pending answer is seen only when the keeping
 * failed (or another instance is answering that pending answer again, through `deliver`), so
 * the wait costs nothing on the usual path and still keeps two re-deliveries apart.
 */
export const CHANNEL_PENDING_HANDOVER_MS = 30_000;

export interface ChannelMachineConfig {
  readonly store: ChannelStore;
  readonly facilitator: ChannelFacilitator;
  /** Recovers a voucher's signer: the pool's task (ECDSA recovery is CPU work). */
  readonly recover: (input: VoucherToRecover, signal: AbortSignal) => Promise<VoucherCheck>;
  readonly stamp: ReceiptStamp;
  readonly challengeFor: (path: string) => ChallengeBuilder;
  readonly chainId: number;
  readonly fault: (what: string, err: unknown) => void;
  readonly now?: () => number;
  /** The mirror's freshness bound, ms (default CHANNEL_SYNC_MAX_AGE_MS). */
  readonly mirrorMaxAgeMs?: number;
  /** Vouchers on a channel found unfunded a moment ago (default: a fresh memory): their repeats cost no chain read. */
  readonly failed?: FailedPayments;
  /** Whether other instances serve these channels too (the database's store); default false. */
  readonly shared?: boolean;
}

export interface ChannelMachine {
  chargeCall(call: PaidCall, timing: PaidTiming): Promise<HttpReply>;
  /** The per-channel queue: the claimer updates records inside it too. */
  readonly queue: KeyedQueue;
}

/** Whether the voucher's ceiling is exactly what we charged plus the price (the scheme's cumulative rule). */
const raisesByThePrice = (p: ChannelPayload, rec: ChannelRecord, call: PaidCall): boolean =>
  BigInt(p.voucher.maxClaimableAmount) === BigInt(rec.charged) + BigInt(call.requirements.amount);

/** Creates the processor of channel payments. */
export function createChannelMachine(config: ChannelMachineConfig): ChannelMachine {
  const { store, facilitator } = config;
  const now = config.now ?? Date.now;
  const queue = createKeyedQueue(CHANNEL_MAX_WAITING);
  const depositing = createOneAtATime();
  const failed = config.failed ?? createFailedPayments();
  const refuse = (call: PaidCall, reason: string, message?: string) =>
    config.challengeFor(call.entry.path).reply(call.resourceUrl, message ? `${reason}: ${message}` : reason);
  const corrective = (call: PaidCall, id: string, rec: ChannelRecord) =>
    correctiveReply(config.challengeFor(call.entry.path), call.resourceUrl, CHANNEL_REASONS.cumulativeMismatch, id, rec);
  const signerProof = createSignerProof(config);
  const mirrorMaxAgeMs = config.mirrorMaxAgeMs ?? CHANNEL_SYNC_MAX_AGE_MS;
  const withFreshMirror = createFreshMirror({ store, facilitator, maxAgeMs: mirrorMaxAgeMs, now, fault: config.fault });

  /** Null when the channel takes paid calls, else the refusal. */
  const closedTo = (call: PaidCall, rec: ChannelRecord): HttpReply | null => {
    const closed = closedBy(rec, now());
    return closed ? refuse(call, closed.reason, closed.message) : null;
  };

  /** Re-reads a mirror synced before `syncedAt` is stale, after the call, inside the channel's queue, without holding the caller. */
  function syncLater(id: string, syncedAt: number): void {
    // Half the bound: a busy channel's mirror is renewed in the background before a call has to wait for it.
    if (now() - syncedAt < mirrorMaxAgeMs / 2) return;
    void queue
      .run(id, async () => {
        const onchain = await facilitator.read(id);
        await updateChannel(store, id, (current) => ({ ...current, onchain, syncedAt: now() }));
      })
      ?.catch((err: unknown) => config.fault(`channel ${id} state not refreshed`, err));
  }

  const { commit, deliver } = createChannelCommit({
    store,
    stamp: config.stamp,
    now,
    fault: config.fault,
    refuse,
    delivered: syncLater,
    busyReason: CHANNEL_REASONS.channelBusy,
  });

  /**
   * The identical retry of a voucher whose charge is stored and whose answer is not kept (the
   * process stopped, or the write failed, between the two): the answer computed again, delivered
   * without charging again. Not a 200: answered as it is, the answer still pending for a later retry.
   */
  async function answerPending(call: PaidCall, id: string, known: ChannelRecord, timing: PaidTiming): Promise<HttpReply> {
    // Requests of a channel are queued on this instance, so only another instance can be delivering it now.
    if (config.shared && now() - known.lastRequestAt < CHANNEL_PENDING_HANDOVER_MS)
      return refuse(call, CHANNEL_REASONS.channelBusy, "this voucher's answer is being delivered by another request; retry shortly");
    const answer = await timedAnswer(call, timing);
    if (answer.status !== 200) return answer;
    return deliver(call, id, { ...known, lastRequestAt: now() }, answer, known.last?.moved ?? NOTHING_MOVED, timing);
  }

  const answerRetry = (call: PaidCall, id: string, known: ChannelRecord, timing: PaidTiming): Promise<HttpReply> =>
    known.last?.answer ? Promise.resolve(replyOf(known.last.answer)) : answerPending(call, id, known, timing);

  /**
   * The identical retry of a deposit charged (its 200 lost; verified again it fails, its money moved): answered
   * from the record once proven the signer's; null otherwise, and for a published voucher (it proves nothing).
   */
  async function depositRetry(call: PaidCall, p: ChannelPayload, id: string, timing: PaidTiming): Promise<HttpReply | null> {
    const known = await store.get(id);
    if (!known || isPublished(known, p.voucher.maxClaimableAmount) || !isRetryOf(call, p, known)) return null;
    const bad = await signerProof(call, p, id);
    if (bad) return refuse(call, bad);
    return known.quarantined ? closedTo(call, known)! : answerRetry(call, id, known, timing);
  }

  /** The stored record of the channel, or one from its on-chain state; a refusal when there is no funded channel. */
  async function recordOf(call: PaidCall, id: string, p: ChannelPayload): Promise<ChannelRecord | HttpReply> {
    const rec = await store.get(id);
    if (rec) return rec;
    const full = noRoomFor(store, { payer: p.channelConfig.payer, client: call.request.client ?? '' });
    if (full) return replyForError(recordsRefused(full));
    const known = failed.recall(id, () => payloadSha256(call));
    if (known) return refuse(call, known.reason, known.message);
    const onchain = await facilitator.read(id).catch(() => null);
    if (!onchain) return refuse(call, CHANNEL_REASONS.rpcReadFailed, 'the channel could not be read on chain');
    if (onchain.balance === '0') {
      // Remembered: a repeat of this voucher on an unfunded channel costs no chain read.
      const unfunded = { reason: CHANNEL_REASONS.channelNotFound, message: `no funded channel ${id}` };
      failed.remember(id, payloadSha256(call), unfunded);
      return refuse(call, unfunded.reason, unfunded.message);
    }
    return freshRecord(p, onchain, now());
  }

  async function voucher(call: PaidCall, p: ChannelPayload, id: string, timing: PaidTiming): Promise<HttpReply> {
    const started = performance.now();
    const bad = await signerProof(call, p, id);
    timing.add('verify', performance.now() - started);
    // Nothing of the channel's state goes to a request not proven to come from its signer.
    if (bad) return refuse(call, bad);
    const known = await recordOf(call, id, p);
    if (!('config' in known)) return known;
    const v = p.voucher;
    // A voucher anyone may have read off the chain proves nothing: no stored answer, no corrective state.
    if (isPublished(known, v.maxClaimableAmount)) return refuse(call, CHANNEL_REASONS.belowClaimed, 'the voucher is at or below what was claimed on chain');
    if (known.quarantined) return closedTo(call, known)!;
    if (isRetryOf(call, p, known)) return answerRetry(call, id, known, timing);
    if (!raisesByThePrice(p, known, call)) return corrective(call, id, known);
    const rec = await withFreshMirror(id, withoutLapsedMark(known, now()));
    if (!rec) return refuse(call, CHANNEL_REASONS.rpcReadFailed, 'the channel could not be read on chain');
    const closed = closedTo(call, rec);
    if (closed) return closed;
    if (BigInt(v.maxClaimableAmount) > BigInt(rec.onchain.balance))
      return refuse(call, CHANNEL_REASONS.exceedsBalance, `the channel holds ${rec.onchain.balance}`);
    const answer = await timedAnswer(call, timing);
    if (answer.status !== 200) return answer;
    return commit(call, id, rec, p, answer, NOTHING_MOVED, timing);
  }

  // Verified first: only a deposit its payer signed reaches the payer's one-at-a-time gate (keyed-queue.ts),
  // so a stranger's payload naming a payer cannot hold it; that payer's others are refused there, unsent.
  async function deposit(call: PaidCall, p: ChannelPayload & { type: 'deposit' }, id: string, timing: PaidTiming): Promise<HttpReply> {
    const retried = await depositRetry(call, p, id, timing);
    if (retried) return retried;
    if (!claimableVoucherForm(p.channelConfig.payerAuthorizer, p.voucher.signature)) return refuse(call, CHANNEL_REASONS.voucherSignature);
    const started = performance.now();
    const verified = await facilitator.verify(call.payment, call.requirements);
    timing.add('simulate', performance.now() - started);
    if (!verified.ok) return refuse(call, verified.reason, refusalSentence(verified.reason, verified.message));
    const run = depositing.run(p.channelConfig.payer.toLowerCase(), () => depositVerified(call, p, id, timing, verified.snapshot));
    return run ?? refuse(call, CHANNEL_REASONS.payerBusy, "this payer's last deposit is in flight; nothing was sent; retry once it lands");
  }

  async function depositVerified(call: PaidCall, p: ChannelPayload & { type: 'deposit' }, id: string, timing: PaidTiming, snapshot: ChannelSnapshot) {
    const known = await store.get(id);
    const full = known ? null : noRoomFor(store, { payer: p.channelConfig.payer, client: call.request.client ?? '' });
    if (full) return replyForError(recordsRefused(full));
    const rec = known ? { ...known, onchain: snapshot, syncedAt: now() } : freshRecord(p, snapshot, now());
    const closed = closedTo(call, rec);
    if (closed) return closed;
    if (!raisesByThePrice(p, rec, call)) return corrective(call, id, rec);
    const answer = await timedAnswer(call, timing);
    if (answer.status !== 200) return answer;
    const settling = performance.now();
    const settled = await facilitator.settleDeposit(call.payment, call.requirements);
    timing.add('settle', performance.now() - settling);
    if (!settled.ok)
      return failedOnChain(refuse(call, settled.reason, refusalSentence(settled.reason, settled.message)), settled, call.requirements.network, rec.payer);
    const moved = { transaction: settled.transaction, amount: p.depositAmount };
    return commit(call, id, { ...rec, onchain: settled.snapshot, syncedAt: now() }, p, answer, moved, timing);
  }

  const refund = createChannelRefund({ store, facilitator, refuse, corrective, signerProof, now, fault: config.fault });

  return {
    queue,
    async chargeCall(call, timing) {
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
