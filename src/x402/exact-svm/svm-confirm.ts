/**
 * Waits for a sent Solana transaction to reach a commitment. Three outcomes: confirmed, failed on
 * chain (definite), or pending (unknown when time ran out). With a live Geyser stream the
 * confirmation comes from the stream (chain/geyser/signature-watch.ts) and the RPC is asked only at a slow
 * safety cadence (a missed update must never hang a payment); without one, or while it is stale,
 * getSignatureStatuses is polled every CONFIRM_POLL_MS as the only source.
 */
import type { RpcClient, RpcCommitment, SignatureStatus } from '../../chain/solana/rpc-client.ts';
import type { Sighting, WatchedSignature } from '../../chain/geyser/signature-watch.ts';

/** Poll interval without a live stream: about half a 400 ms slot. */
export const CONFIRM_POLL_MS = 200;
/** With a live stream, the first RPC check (or at half the time limit, if sooner): past the usual ~1 s the stream takes to confirm. */
export const STREAM_FIRST_CHECK_MS = 2_000;
/** With a live stream, the RPC checks after the first. */
export const STREAM_CHECK_EVERY_MS = 1_000;
const RANK: Readonly<Record<RpcCommitment, number>> = { processed: 0, confirmed: 1, finalized: 2 };

export type ConfirmOutcome =
  | { readonly status: 'confirmed'; readonly slot: number }
  | { readonly status: 'failed'; readonly message: string }
  | { readonly status: 'pending'; readonly message: string };

/** The transaction's watch on the stream, registered before it was sent, and whether the stream is live now. */
export interface ConfirmStream {
  readonly watched: WatchedSignature;
  readonly live: () => boolean;
}

/** Resolves after `ms`, or at once when `stop` aborts (its timer cleared). */
const sleep = (ms: number, stop: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    stop?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      stop?.removeEventListener('abort', done);
      resolve();
    }
  });

/** `wait`, cut short when `stop` aborts. */
const untilStopped = (wait: Promise<void>, stop: AbortSignal | undefined): Promise<void> =>
  new Promise<void>((resolve) => {
    const done = (): void => {
      stop?.removeEventListener('abort', done);
      resolve();
    };
    stop?.addEventListener('abort', done, { once: true });
    void wait.then(done);
  });

/** What one getSignatureStatuses answer decides: an outcome, or why it is not one yet. */
function judge(status: SignatureStatus | null, commitment: RpcCommitment): ConfirmOutcome | string {
  if (status?.err) return { status: 'failed', message: JSON.stringify(status.err) };
  if (status?.confirmationStatus && RANK[status.confirmationStatus] >= RANK[commitment]) return { status: 'confirmed', slot: status.slot };
  return status ? `at ${status.confirmationStatus ?? 'unknown'}` : 'not seen yet';
}

async function poll(rpc: Pick<RpcClient, 'getSignatureStatus'>, signature: string, commitment: RpcCommitment): Promise<ConfirmOutcome | string> {
  try {
    return judge(await rpc.getSignatureStatus(signature), commitment);
  } catch (err) {
    // An RPC hiccup while waiting says nothing about the transaction; keep polling.
    return err instanceof Error ? err.message : 'status query failed';
  }
}

/**
 * The stream's failure is definite; the RPC's error object is the message a caller knows (the
 * stream carries it bincode-encoded), so it is asked once, and the stream's word stands without it.
 */
async function failedOnStream(
  rpc: Pick<RpcClient, 'getSignatureStatus'>,
  signature: string,
  commitment: RpcCommitment,
  seen: Sighting,
): Promise<ConfirmOutcome> {
  const asked = await poll(rpc, signature, commitment);
  if (typeof asked !== 'string' && asked.status === 'failed') return asked;
  return { status: 'failed', message: `failed on chain at slot ${seen.slot} (the Geyser stream's transaction status)` };
}

/**
 * What the stream decides now: a failure or (for `confirmed`) the confirmation, or for `finalized`
 * whether a finalized slot reached the transaction's (news worth an immediate RPC check).
 */
function streamVerdict(watched: WatchedSignature, commitment: RpcCommitment): { seen: Sighting; outcome: ConfirmOutcome | null; finalNews: boolean } | null {
  const seen = watched.sighting();
  if (seen === null) return null;
  if (seen.failed) return { seen, outcome: null, finalNews: false };
  // The stream delivers transactions at `confirmed`: that is the commitment, or a step short of `finalized`.
  if (RANK[commitment] <= RANK.confirmed) return { seen, outcome: { status: 'confirmed', slot: seen.slot }, finalNews: false };
  return { seen, outcome: null, finalNews: (watched.finalizedSlot() ?? -1) >= seen.slot };
}

/**
 * Waits until `commitment` is reached, the transaction fails, or `timeoutMs` passes; or until
 * `stop` aborts (the service closing): then it is `pending` at once, as when time runs out, and no
 * timer or query of it outlives the close.
 */
export async function confirmSignature(
  rpc: Pick<RpcClient, 'getSignatureStatus'>,
  signature: string,
  commitment: RpcCommitment,
  timeoutMs: number,
  stream: ConfirmStream | null = null,
  stop?: AbortSignal,
): Promise<ConfirmOutcome> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let lastProblem = 'not seen yet';
  let lastPollAt: number | null = null;
  // A short time limit still gets an RPC answer before it runs out.
  const firstCheckMs = Math.min(STREAM_FIRST_CHECK_MS, timeoutMs / 2);
  let finalNewsChecked = false;
  for (let now = started; now < deadline && !stop?.aborted; now = Date.now()) {
    const verdict = stream ? streamVerdict(stream.watched, commitment) : null;
    if (verdict?.seen.failed) return failedOnStream(rpc, signature, commitment, verdict.seen);
    if (verdict?.outcome) return verdict.outcome;
    const live = stream !== null && stream.live();
    const dueAt = lastPollAt === null ? started + (live ? firstCheckMs : 0) : lastPollAt + (live ? STREAM_CHECK_EVERY_MS : CONFIRM_POLL_MS);
    const finalNews: boolean = verdict?.finalNews === true && !finalNewsChecked;
    if (finalNews || now >= dueAt) {
      finalNewsChecked ||= finalNews;
      const polled = await poll(rpc, signature, commitment);
      if (typeof polled !== 'string') return polled;
      lastProblem = polled;
      lastPollAt = Date.now();
      continue;
    }
    // While live, wake at least every CONFIRM_POLL_MS: a stream that goes stale hands back to polling.
    const wait = Math.min(dueAt, deadline) - now;
    await (stream ? untilStopped(stream.watched.changed(live ? Math.min(wait, CONFIRM_POLL_MS) : wait), stop) : sleep(wait, stop));
  }
  if (stop?.aborted) return { status: 'pending', message: `not ${commitment} when the service stopped waiting (${lastProblem})` };
  return { status: 'pending', message: `not ${commitment} within ${timeoutMs} ms (${lastProblem})` };
}
