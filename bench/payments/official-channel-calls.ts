/**
 * The official batch-settlement client end to end for `channel-calls`: `wrapFetchWithPayment` over
 * `@x402/evm`'s scheme, each client on a channel of its own opened beforehand, every call the full
 * flow (the unpaid request and its 402, building and signing the voucher, the paid request). Its
 * fetch marks each request (client-marks.ts), so the report splits a call as the client sees it:
 * the 402 round trip, the client's building and signing, the paid request, and of that the
 * service's `Server-Timing` total and the rest. With the service's pid, the service's CPU per
 * official call (its 402 and its paid request together) and the paid requests' median phases are
 * read as for the pre-signed calls (`cpuBudget`, `medianPhasesMs`), and the clients' own CPU per
 * call beside them (`clientCpuUsPerCall`: this process, which also runs the localnet, idle here
 * but for its slots; `clientIdleUsPerCall` is what this process spends idle over as long): whether
 * a lone official call costs the service more than a pre-signed one, and how much of the call is
 * the client's own work (docs/benchmarks.md, issue 40's second look at the lone official call). Once more against a second service with the per-client free limit at
 * its defaults, where every call from the one address must be a 200.
 */
import type { Localnet } from '@solana-x402-intel/localnet';
import { channelTermsOf, openChannel } from './channel-vouchers.ts';
import { clientMedians, markingFetch, serviceTotalMs } from './client-marks.ts';
import { startMainnetService } from '../harness/mainnet-service.ts';
import { type BenchRequest, drive, round, type Run } from './paid-calls.ts';
import { medianPhases } from './server-timing.ts';
import { withCpuBudget } from '../harness/service-cpu.ts';

/** The official client's full flow from one address under the default free limit (20 a second, 60 at once): calls per client. */
const LIMITED_LEVELS = [
  { concurrency: 1, calls: 200 },
  { concurrency: 8, calls: 40 },
  { concurrency: 32, calls: 15 },
] as const;
const DEFAULT_FREE_LIMIT = ['--free-rate-per-second', '20', '--free-burst', '60'];
const median = (xs: readonly number[]): number => round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN, 2);

/** The idle span read after a measured run, as the pre-signed levels read it (channel-calls.ts). */
const IDLE = { idleMs: 2000 } as const;

/** This process's CPU while idle (the localnet's slots and timers), µs per ms, over `CLIENT_IDLE_MS`. */
const CLIENT_IDLE_MS = 1000;
async function idleCpuUsPerMs(): Promise<number> {
  const from = process.cpuUsage();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, CLIENT_IDLE_MS));
  const used = process.cpuUsage(from);
  return (used.user + used.system) / (performance.now() - started);
}

/**
 * Drives `calls` (drive()), with the service's CPU budget when `pid` is given, and the clients'
 * CPU per call read around the calls alone (the budget's idle span comes after them) with what
 * this process spends idle over as long.
 */
async function measuredDrive(calls: readonly (readonly BenchRequest[])[], pid: number | null) {
  let used = { user: 0, system: 0 };
  let wallMs = 0;
  const work = async () => {
    const from = process.cpuUsage();
    const started = performance.now();
    const result = await drive(calls);
    wallMs = performance.now() - started;
    used = process.cpuUsage(from);
    return result;
  };
  const measured = pid === null ? { result: await work(), cpuBudget: null } : await withCpuBudget(pid, work, (r) => r.requests, IDLE);
  const idleUsPerMs = await idleCpuUsPerMs();
  const perCall = (us: number) => round(us / Math.max(1, measured.result.requests));
  return {
    run: measured.result,
    cpuBudget: measured.cpuBudget,
    clientCpu: { clientCpuUsPerCall: perCall(used.user + used.system), clientIdleUsPerCall: perCall(idleUsPerMs * wallMs) },
  };
}

const summary = (run: Run) => ({ requests: run.requests, failures: run.requests - run.ok, perSecond: run.perSecond, p50Ms: run.p50Ms, p99Ms: run.p99Ms });

/**
 * The official client end to end, each client on a channel of its own opened beforehand; how many
 * answers were 429; the medians of each call's parts as the client saw them (ms): `challenge` (the
 * 402 round trip), `buildAndSign`, `paidRequest`, `paidRequestService` (its answer's Server-Timing
 * total) and `paidRequestLessService`, and `afterPaid` (from the paid answer's headers to the call's
 * end: the client's reading of PAYMENT-RESPONSE, its channel bookkeeping, the body). With `pid`
 * (the service's), its CPU budget per official call and the paid requests' median phases.
 */
export async function officialLevel(net: Localnet, url: string, clients: number, count: number, pid: number | null = null) {
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
  const { run, cpuBudget, clientCpu } = await measuredDrive(
    payers.map((_, i) => Array.from({ length: count }, () => request(i))),
    pid,
  );
  // A call's paid answer is its second request's end; `ends` is read after its body.
  const after = marks.flatMap((calls, i) => calls.map((m, k) => (m.length === 4 ? ends[i]![k]! - m[3]! : Number.NaN)).filter(Number.isFinite));
  const flat = timings.flat();
  const parts = clientMedians(marks.flat(), flat);
  return {
    ...summary(run),
    rateLimited,
    clientMs: { ...parts, paidRequestService: median(flat.map(serviceTotalMs).filter(Number.isFinite)), afterPaid: median(after) },
    ...clientCpu,
    medianPhasesMs: medianPhases(flat),
    ...(cpuBudget ? { cpuBudget } : {}),
  };
}

/** The official client's full flow at each concurrency, against a service with the default free limit. */
export async function officialUnderFreeLimit(net: Localnet, path: string) {
  const service = await startMainnetService(net, { extraArgs: DEFAULT_FREE_LIMIT });
  try {
    const url = `${service.url}${path}`;
    const levels = [];
    for (const level of LIMITED_LEVELS)
      levels.push({ concurrency: level.concurrency, ...(await officialLevel(net, url, level.concurrency, level.calls, service.pid)) });
    return { freeLimit: DEFAULT_FREE_LIMIT.join(' '), levels };
  } finally {
    await service.close();
  }
}
