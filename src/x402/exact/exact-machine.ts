/**
 * The exact scheme's state machine (docs/contract.md#paid-call-flow steps 4-7). A payment is known
 * by its scheme's replay key; what is stored under that key is its state, and `settleCall` takes
 * the step its state calls for:
 *
 *   state of the key               | step (file)                          | to
 *   -------------------------------|--------------------------------------|------------------------------
 *   refused a moment ago           | the same refusal (here)              | refused; no verify, no chain
 *   delivered (200 kept)           | redeliver (exact-run.ts)             | delivered; nothing charged
 *   pending (sent, unconfirmed)    | resolvePending (exact-pending.ts)    | landed: delivered;
 *                                  |                                      | failed: new (key freed); else pending
 *   settled, 200 not kept          | being delivered here: come back later; else the process that
 *                                  | settled it stopped: resolvePending, as if pending
 *   new                            | claim the key, settleClaimed         | verify refused: refused;
 *                                  | (exact-new-payment.ts)               | not a 200: new (claim given back);
 *                                  |                                      | settled: delivered; early: delivered
 *                                  |                                      | (followed to its end); sent, not
 *                                  |                                      | confirmed: pending; failed: new
 *   claimed by another request     | duplicate_settlement (here)          | unchanged
 *
 * Every settlement is on disk (stores/pending-settlements.ts) before its payment can reach the
 * chain, and once money moved nothing withholds the answer: bookkeeping faults after settlement
 * are reported and the 200 still goes out. The claim on the key is given back unless the payment
 * settled. The steps share one ExactRun (exact-run.ts): its stores and the keys being delivered.
 */
import { replyForError, type HttpReply } from '../../errors.ts';
import type { PaidTiming } from '../delivery/paid-timing.ts';
import { noRoomFor, recordsRefused } from '../stores/record-shares.ts';
import type { ExactScheme } from '../types/exact-scheme.ts';
import { payloadSha256, type PaidCall } from '../types/paid-call.ts';
import { settleClaimed } from './exact-new-payment.ts';
import { resolvePending } from './exact-pending.ts';
import { createExactRun, type ExactMachineConfig, type ExactRun, redeliver } from './exact-run.ts';

export { type ExactMachineConfig, refusal } from './exact-run.ts';

/** Settles one exact payment on its scheme, from whatever state its replay key is in. */
export interface ExactMachine {
  settleCall(call: PaidCall, scheme: ExactScheme, timing: PaidTiming): Promise<HttpReply>;
}

/** Creates the state machine over one replay guard and one pending store. */
export function createExactMachine(config: ExactMachineConfig): ExactMachine {
  const run = createExactRun(config);
  return { settleCall: (call, scheme, timing) => settleCall(run, call, scheme, timing) };
}

/** The state of the payment's key decides the step. */
async function settleCall(run: ExactRun, call: PaidCall, scheme: ExactScheme, timing: PaidTiming): Promise<HttpReply> {
  const { pending, failed, replayGuard } = run.config;
  const key = scheme.replayKey(call.payment);
  if (key === null) return run.refuse(call, 'invalid_payload', 'the payment payload has no transaction this network can read');
  // Refused a moment ago: the same refusal, with no signature check or chain round trip.
  const refused = failed.recall(key, () => payloadSha256(call));
  if (refused) return run.refuse(call, refused.reason, refused.message);
  const record = await pending.get(key);
  if (record?.delivered) return redeliver(run, call, { ...record, delivered: record.delivered });
  if (record && scheme.settlementStatus) return resolvePending(run, call, scheme, key, record, timing);
  // A new payment only while its record has room, within its (named, unchecked) payer's and address's shares; nothing held is dropped for it.
  const noRoom = noRoomFor(pending, { payer: scheme.payerOf?.(call.payment) ?? '', client: call.request.client ?? '' });
  if (noRoom) return replyForError(recordsRefused(noRoom));
  const claim = await replayGuard.acquire(key);
  if (claim === 'acquired') return settleClaimed(run, call, scheme, key, timing);
  if (claim === 'settled') {
    // Settled since the record was read (another request, or another instance, just delivered
    // it): the identical retry still gets its 200.
    const now = await pending.get(key);
    if (now?.delivered) return redeliver(run, call, { ...now, delivered: now.delivered });
  }
  return run.refuse(
    call,
    'duplicate_settlement',
    claim === 'settled' ? 'this payment was already settled' : 'this payment is being settled by another request',
  );
}
