/**
 * Waits for a sent Solana transaction to reach a commitment by polling getSignatureStatuses.
 * Three outcomes: confirmed, failed on chain (definite), or pending (unknown when time ran out).
 */
import type { RpcClient, RpcCommitment } from '../chain/rpc-client.ts';

/** Poll interval: about half a 400 ms slot. */
export const CONFIRM_POLL_MS = 200;
const RANK: Readonly<Record<RpcCommitment, number>> = { processed: 0, confirmed: 1, finalized: 2 };

export type ConfirmOutcome =
  | { readonly status: 'confirmed'; readonly slot: number }
  | { readonly status: 'failed'; readonly message: string }
  | { readonly status: 'pending'; readonly message: string };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `commitment` is reached, the transaction fails, or `timeoutMs` passes. */
export async function confirmSignature(
  rpc: Pick<RpcClient, 'getSignatureStatus'>,
  signature: string,
  commitment: RpcCommitment,
  timeoutMs: number,
): Promise<ConfirmOutcome> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'not seen yet';
  while (Date.now() < deadline) {
    try {
      const status = await rpc.getSignatureStatus(signature);
      if (status?.err) return { status: 'failed', message: JSON.stringify(status.err) };
      if (status?.confirmationStatus && RANK[status.confirmationStatus] >= RANK[commitment]) return { status: 'confirmed', slot: status.slot };
      lastProblem = status ? `at ${status.confirmationStatus ?? 'unknown'}` : 'not seen yet';
    } catch (err) {
      // An RPC hiccup while waiting says nothing about the transaction; keep polling.
      lastProblem = err instanceof Error ? err.message : 'status query failed';
    }
    await sleep(CONFIRM_POLL_MS);
  }
  return { status: 'pending', message: `not ${commitment} within ${timeoutMs} ms (${lastProblem})` };
}
