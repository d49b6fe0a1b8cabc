/**
 * Replay guard benchmark: settled keys recorded per second (each `markSettled` resolves once its
 * line is written and fdatasynced; concurrent ones share a write) at a given count in flight.
 * Part of the ledger benchmark's report (bench/storage/ledger.ts), as the other durable append on the
 * paid path.
 */
import { join } from 'node:path';
import { createReplayGuard } from '../../src/x402/stores/replay-guard.ts';

/** Counts of `markSettled` calls in flight measured. */
export const REPLAY_GUARD_IN_FLIGHT = [1, 64] as const;

async function settleRate(dir: string, seconds: number, inFlight: number): Promise<Record<string, number>> {
  const guard = createReplayGuard({ dir });
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await guard.markSettled(`svm:bench-${done}-${inFlight}`);
      done += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await guard.close();
  return { inFlight, settled: done, settledPerSecond: Math.round(done / elapsed) };
}

/** The settle rate at each count of REPLAY_GUARD_IN_FLIGHT, each in its own directory under `root`. */
export async function benchReplayGuard(root: string, seconds: number): Promise<Array<Record<string, number>>> {
  const points: Array<Record<string, number>> = [];
  for (const inFlight of REPLAY_GUARD_IN_FLIGHT) points.push(await settleRate(join(root, `replay-${inFlight}`), seconds, inFlight));
  return points;
}
