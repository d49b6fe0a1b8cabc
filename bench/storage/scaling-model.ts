/**
 * A small model of the shared ledger and replay guard past one machine (docs/scaling.md), fitted
 * to what pg-ledger and pg-drivers measure here and extrapolated to database round trips of other
 * distances. No I/O: arithmetic only, so anyone can re-run it with their own constants.
 *
 * Ledger (group commit under the head row lock): a transaction holds the lock from its
 * `select ... for update` to the end of its commit: about two round trips (the INSERT and the
 * COMMIT; half of the SELECT's and half of the COMMIT's), the commit's WAL flush, and the CPU of
 * the batch's rows. One lock means the whole deployment appends at most
 * `batch / (2 * rtt + flush + batch * rowCost)` entries a second, however many instances.
 *
 * Replay guard and payment-identifier: one statement per claim on a row keyed by the payment, so
 * instances contend only on the same payment (the race the guard exists for); their throughput is
 * the database's statements per second divided by the statements of a paid call.
 *
 *   npm run bench -- scaling-model
 */

/** Round trips to the database from the instances, ms: same host, same zone, nearby region, another continent. */
export const MODEL_RTT_MS = [0.1, 1, 10, 70] as const;
/** Entries per transaction. */
export const MODEL_BATCHES = [1, 16, 128, 512] as const;
/** WAL flush of one commit on a local SSD, ms (pg-drivers: one-row commits at ~400/s on this disk). */
export const MODEL_FLUSH_MS = 2;
/** Database and driver CPU per appended row, ms (pg-drivers: ~10 µs per row at 128 rows a commit). */
export const MODEL_ROW_MS = 0.01;
/**
 * The whole append path per row on this project's 2-core machine, ms, fitted to pg-ledger's
 * batch-256 point (sealing, the unnest insert, re-verifying the line into the view, both trees):
 * CPU-bound there, so it, not the round trip, sets the ceiling on such a machine.
 */
export const MEASURED_PATH_ROW_MS = 0.3;
/** Statements a paid call sends: claim, pending record, delivered answer, settled mark, plus its share of a ledger batch. */
export const STATEMENTS_PER_PAID_CALL = 5;
/** Simple single-row statements one primary of a few cores answers per second (an order of magnitude, not a measurement). */
export const MODEL_STATEMENTS_PER_SECOND = 20_000;

const round = (n: number): number => Math.round(n);

/** Entries per second through the one head-row lock at `rttMs` and `batch`. */
export function ledgerAppendsPerSecond(rttMs: number, batch: number, flushMs = MODEL_FLUSH_MS, rowMs = MODEL_ROW_MS): number {
  return (batch * 1000) / (2 * rttMs + flushMs + batch * rowMs);
}

/** The latency one append adds to a paid call: waiting for the batch in flight, then its own. */
export function ledgerAppendLatencyMs(rttMs: number, batch: number, flushMs = MODEL_FLUSH_MS, rowMs = MODEL_ROW_MS): number {
  const hold = 2 * rttMs + flushMs + batch * rowMs;
  return round(10 * (hold + hold / 2 + rttMs)) / 10;
}

/** The model's tables. */
export function benchScalingModel(): Record<string, unknown> {
  const row = (rtt: number, rowMs: number) => ({
    rttMs: rtt,
    rowMs,
    ...Object.fromEntries(MODEL_BATCHES.map((b) => [`batch${b}`, round(ledgerAppendsPerSecond(rtt, b, MODEL_FLUSH_MS, rowMs))])),
    latencyMsAtBatch128: ledgerAppendLatencyMs(rtt, 128, MODEL_FLUSH_MS, rowMs),
  });
  const ledger = [...MODEL_RTT_MS.map((rtt) => row(rtt, MODEL_ROW_MS)), row(0.1, MEASURED_PATH_ROW_MS)];
  // Instances do not change the ledger's ceiling (one lock); they change how full the batches are.
  const replayGuard = [1, 3, 10, 30].map((instances) => ({
    instances,
    paidCallsPerSecondOnePrimary: round(MODEL_STATEMENTS_PER_SECOND / STATEMENTS_PER_PAID_CALL),
    paidCallsPerSecondFourShards: round((4 * MODEL_STATEMENTS_PER_SECOND) / STATEMENTS_PER_PAID_CALL),
    sameKeyConflictsPerMillionCalls: 0,
  }));
  return { name: 'scaling-model', flushMs: MODEL_FLUSH_MS, rowMs: MODEL_ROW_MS, ledger, replayGuard };
}
