/**
 * Where the in-memory payment stores and the fake scheme fail or stop, as a test scripts it: a
 * point (`pending.record`, `ledger.append`, ...) can be made to reject its next calls, or to hold
 * its next call until the test lets it go. A held call that is never let go is a crash at that
 * point: what is durable is what the stores hold, and a new processor over them is the restart.
 */

/** One held call: `reached` resolves once a call waits at the point; `release` lets it go on. */
export interface Hold {
  readonly reached: Promise<void>;
  release(): void;
}

export interface FaultPlan {
  /** The next `times` calls at `point` reject with `err`. */
  fail(point: string, err?: unknown, times?: number): void;
  /** The next call at `point` waits until released. */
  hold(point: string): Hold;
  /** Throws when a failure is scheduled at `point` (for the stores' synchronous methods). */
  check(point: string): void;
  /** `check`, then waits while the point is held (for the asynchronous methods). */
  at(point: string): Promise<void>;
  /** Every point reached, in order, failed or not. */
  readonly passed: string[];
}

interface Failure {
  readonly err: unknown;
  left: number;
}

/** Creates an empty plan: nothing fails, nothing waits. */
export function createFaultPlan(): FaultPlan {
  const failures = new Map<string, Failure>();
  const holds = new Map<string, { arrive: () => void; gate: Promise<void> }>();
  const passed: string[] = [];

  function check(point: string): void {
    passed.push(point);
    const f = failures.get(point);
    if (!f) return;
    f.left--;
    if (f.left <= 0) failures.delete(point);
    throw f.err;
  }

  return {
    fail(point, err = new Error(`${point} failed (scripted)`), times = 1) {
      failures.set(point, { err, left: times });
    },
    hold(point) {
      let arrive = (): void => undefined;
      let release = (): void => undefined;
      const reached = new Promise<void>((r) => {
        arrive = r;
      });
      const gate = new Promise<void>((r) => {
        release = r;
      });
      holds.set(point, { arrive, gate });
      return { reached, release };
    },
    check,
    async at(point) {
      check(point);
      const h = holds.get(point);
      if (!h) return;
      holds.delete(point);
      h.arrive();
      await h.gate;
    },
    passed,
  };
}
