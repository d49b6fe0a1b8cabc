/**
 * The exact scheme's machine (exact-machine.ts) for a payment whose settlement was sent and not
 * seen confirmed, or settled by a process that stopped before keeping its 200: the chain decides.
 * Landed: the 200 delivered (once); failed: the key freed, nothing charged; still pending: the
 * 402 `settlement_pending` again.
 */
import { replyForError, type HttpReply } from '../../errors.ts';
import type { PaidTiming } from '../delivery/paid-timing.ts';
import { refusalSentence } from '../delivery/reason-messages.ts';
import { replyOf, type PendingSettlement } from '../stores/pending-settlements.ts';
import type { ExactScheme } from '../types/exact-scheme.ts';
import type { SettleResult } from '../types/scheme-facilitator.ts';
import { payloadSha256, type PaidCall } from '../types/paid-call.ts';
import { type ExactRun, redeliver } from './exact-run.ts';

/** Whether the claim on the key is kept: set once the chain says the payment landed (it settled), before anything after can fail. */
interface ClaimHold {
  keepClaim: boolean;
}

/** A retry of a payment whose settlement was pending: ask the chain where it stands. */
export async function resolvePending(
  run: ExactRun,
  call: PaidCall,
  scheme: ExactScheme,
  key: string,
  record: PendingSettlement,
  timing: PaidTiming,
): Promise<HttpReply> {
  if (record.payloadSha256 !== payloadSha256(call)) return run.refuse(call, 'duplicate_settlement', 'another payment with this key is being settled');
  const claim = await run.config.replayGuard.acquire(key);
  // Settled, its 200 not kept: while a request here is delivering it (receipt, ledger entry) the
  // retry comes back later; when none is, the process that settled it stopped between marking it
  // settled and keeping its 200 (a crash), and the chain decides, as for a pending record.
  const takeover = claim === 'settled';
  if (claim === 'in_flight' || (takeover && (run.delivering.has(key) || run.unkept.has(key))))
    return run.refuse(call, 'duplicate_settlement', 'this payment is being settled by another request');
  if (takeover) run.delivering.add(key);
  const hold: ClaimHold = { keepClaim: false };
  try {
    return await askChain(run, call, scheme, key, record, timing, takeover, hold);
  } catch (err) {
    return replyForError(err);
  } finally {
    if (takeover) run.delivering.delete(key);
    if (!hold.keepClaim) await run.releaseClaim(key);
  }
}

/** The chain's word on the recorded transaction, and the step it calls for. */
async function askChain(
  run: ExactRun,
  call: PaidCall,
  scheme: ExactScheme,
  key: string,
  record: PendingSettlement,
  timing: PaidTiming,
  takeover: boolean,
  hold: ClaimHold,
): Promise<HttpReply> {
  const asked = performance.now();
  const status = await scheme.settlementStatus!(call.payment, call.requirements, record.transaction, call.request.signal);
  timing.lap('settle', asked);
  // What the chain said of it (not seen yet, or an RPC's failure to say) is not the payer's to read.
  if (status.status === 'pending') return run.notConfirmed(call, `${record.transaction} is`);
  if (status.status === 'failed') {
    // Nothing was charged: the payment is free to be made again (with a fresh transaction).
    await run.config.pending.resolve(key);
    return run.refuse(call, status.reason, refusalSentence(status.reason, status.message));
  }
  hold.keepClaim = true;
  // Kept meanwhile by another instance (a shared database): that 200, not a second receipt.
  const kept = takeover ? await run.config.pending.get(key) : undefined;
  if (kept?.delivered) return redeliver(run, call, { ...kept, delivered: kept.delivered });
  const settled: SettleResult = { success: true, transaction: record.transaction, network: record.network, payer: record.payer };
  if (!record.early) run.credit(scheme, record.payer, call);
  return await run.deliver(call, key, settled, replyOf(record.answer), record.paid, timing, true);
}
