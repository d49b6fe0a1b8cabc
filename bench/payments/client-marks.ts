/**
 * Where an official x402 client's call goes, as the client sees it. The client (`wrapFetchWithPayment`)
 * is given a fetch that notes when each of its requests starts and ends: a call of the full flow
 * makes two, the unpaid request answered 402 and the paid one, so its marks split the call into the
 * 402 round trip, the client's building and signing of the payment between them, and the paid
 * request; with the paid answer's `Server-Timing` total, the paid request splits again into the
 * service's part and the rest (the client's HTTP stack, the loopback, the scheduler).
 */
import { round } from './paid-calls.ts';

const median = (xs: readonly number[]): number => round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN, 2);

/** The client's own fetch, noting when each request starts and ends; `start()` begins a call's marks. */
export function markingFetch(calls: number[][], base: typeof fetch = fetch): { base: typeof fetch; start(): void } {
  let marks: number[] = [];
  return {
    base: async (input, init) => {
      marks.push(performance.now());
      const res = await base(input, init);
      marks.push(performance.now());
      return res;
    },
    start() {
      marks = [];
      calls.push(marks);
    },
  };
}

/** The service's `total` of a `Server-Timing` value, ms (NaN without one). */
export const serviceTotalMs = (timing: string): number => Number(/total;dur=([\d.]+)/.exec(timing)?.[1] ?? Number.NaN);

/** Medians of a client's calls: the 402 round trip, building and signing, the paid request, and that request less the service's total. */
export function clientMedians(calls: readonly number[][], timings: readonly string[]) {
  // Calls of exactly one 402 and one paid request, each with the service's total of its answer.
  const paid = calls.map((m, i) => ({ m, total: serviceTotalMs(timings[i] ?? '') })).filter(({ m }) => m.length === 4);
  return {
    challenge: median(paid.map(({ m }) => m[1]! - m[0]!)),
    buildAndSign: median(paid.map(({ m }) => m[2]! - m[1]!)),
    paidRequest: median(paid.map(({ m }) => m[3]! - m[2]!)),
    paidRequestLessService: median(paid.map(({ m, total }) => m[3]! - m[2]! - total)),
  };
}
