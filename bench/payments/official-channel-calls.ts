/**
 * The official batch-settlement client end to end for `channel-calls`: `wrapFetchWithPayment` over
 * `@x402/evm`'s scheme, each client on a channel of its own opened beforehand, every call the full
 * flow (the unpaid request and its 402, building and signing the voucher, the paid request). Its
 * fetch marks each request (client-marks.ts), so the report splits a call as the client sees it:
 * the 402 round trip, the client's building and signing, the paid request, and of that the
 * service's `Server-Timing` total and the rest. Once more against a second service with the
 * per-client free limit at its defaults, where every call from the one address must be a 200.
 */
import type { Localnet } from '@solana-x402-intel/localnet';
import { channelTermsOf, openChannel } from './channel-vouchers.ts';
import { clientMedians, markingFetch, serviceTotalMs } from './client-marks.ts';
import { startMainnetService } from '../harness/mainnet-service.ts';
import { drive, round, type Run } from './paid-calls.ts';

/** The official client's full flow from one address under the default free limit (20 a second, 60 at once): calls per client. */
const LIMITED_LEVELS = [
  { concurrency: 1, calls: 200 },
  { concurrency: 8, calls: 40 },
  { concurrency: 32, calls: 15 },
] as const;
const DEFAULT_FREE_LIMIT = ['--free-rate-per-second', '20', '--free-burst', '60'];
const median = (xs: readonly number[]): number => round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN, 2);

const summary = (run: Run) => ({ requests: run.requests, failures: run.requests - run.ok, perSecond: run.perSecond, p50Ms: run.p50Ms, p99Ms: run.p99Ms });

/**
 * The official client end to end, each client on a channel of its own opened beforehand; how many
 * answers were 429; the medians of each call's parts as the client saw them (ms): `challenge` (the
 * 402 round trip), `buildAndSign`, `paidRequest`, `paidRequestService` (its answer's Server-Timing
 * total) and `paidRequestLessService`, and `afterPaid` (from the paid answer's headers to the call's
 * end: the client's reading of PAYMENT-RESPONSE, its channel bookkeeping, the body).
 */
export async function officialLevel(net: Localnet, url: string, clients: number, count: number) {
  const terms = await channelTermsOf(url);
  const marks: number[][][] = Array.from({ length: clients }, () => []);
  const marking = marks.map((calls) => markingFetch(calls));
  const payers = await Promise.all(marking.map((m) => openChannel(net.evm, url, terms, count, { presign: false, fetch: m.base })));
  for (const m of marks) m.length = 0;
  const timings: string[][] = payers.map(() => []);
  const ends: number[][] = payers.map(() => []);
  let rateLimited = 0;
  const request = (i: number) => ({
    send: () => {
      marking[i]!.start();
      return payers[i]!.payer.pay(url);
    },
    ok: (res: Response) => {
      ends[i]!.push(performance.now());
      timings[i]!.push(res.headers.get('server-timing') ?? '');
      if (res.status === 429) rateLimited++;
      return res.status === 200;
    },
  });
  const run = await drive(payers.map((_, i) => Array.from({ length: count }, () => request(i))));
  // A call's paid answer is its second request's end; `ends` is read after its body.
  const after = marks.flatMap((calls, i) => calls.map((m, k) => (m.length === 4 ? ends[i]![k]! - m[3]! : Number.NaN)).filter(Number.isFinite));
  const flat = timings.flat();
  const parts = clientMedians(marks.flat(), flat);
  return {
    ...summary(run),
    rateLimited,
    clientMs: { ...parts, paidRequestService: median(flat.map(serviceTotalMs).filter(Number.isFinite)), afterPaid: median(after) },
  };
}

/** The official client's full flow at each concurrency, against a service with the default free limit. */
export async function officialUnderFreeLimit(net: Localnet, path: string) {
  const service = await startMainnetService(net, { extraArgs: DEFAULT_FREE_LIMIT });
  try {
    const url = `${service.url}${path}`;
    const levels = [];
    for (const level of LIMITED_LEVELS) levels.push({ concurrency: level.concurrency, ...(await officialLevel(net, url, level.concurrency, level.calls)) });
    return { freeLimit: DEFAULT_FREE_LIMIT.join(' '), levels };
  } finally {
    await service.close();
  }
}
