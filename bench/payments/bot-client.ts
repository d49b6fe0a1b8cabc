/**
 * The bots' client against the official wrapper, same route, same service, same run, one call in
 * flight: the client library (`solana-x402-intel/client`, the built bundle: terms learned once, the
 * payment with the request, vouchers signed natively) and the official `@x402/fetch` wrapper with
 * the official batch-settlement scheme (each call asked unpaid, its 402 read, the payment built and
 * signed, the call asked again). Both pay through a Base channel of their own, each from a process
 * of its own (bot-client-runner.ts), opened and warmed before the timed calls. The rounds alternate
 * which client goes first, so a change in the machine's load lands on both; the load average is
 * read around each round (the machine is shared). One line a round goes to stderr as it ends.
 *
 * Besides the end-to-end figures, each round says where a call's time went: the service's own time
 * (the paid answer's Server-Timing `total`, and its durable `ledger` write), what lies outside it
 * (the client, the wire, the service's HTTP front; for the official client also its 402 trip and its
 * signing), and the CPU per call of the client, the service and the bench's own process (the
 * localnet) over the timed calls. The spread of the round medians shows how far one round is from
 * the next.
 *
 * The localnet makes no background traffic by default: both clients pay `/v1/epoch`, which reads
 * slots alone, and the traffic's producer (in the bench's process) and its Geyser stream (in the
 * service) would otherwise take a share of the machine's two cores from the clients and the paid
 * path that neither client causes. `BOT_CLIENT_TXS_PER_SLOT=20` runs with the localnet's default.
 *
 *   npm run build && npm run bench -- bot-client
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startLocalnet } from '@solana-x402-intel/localnet';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { runJsonChild } from '../harness/json-child.ts';
import { startMainnetService } from '../harness/mainnet-service.ts';
import type { BotClientJob, BotClientKind, BotClientOutcome } from './bot-client-runner.ts';
import { round, runOf } from './paid-calls.ts';

const RUNNER = fileURLToPath(new URL('./bot-client-runner.ts', import.meta.url));
const PATH = '/v1/epoch';
const ROUNDS = 5;
/** Per round: untimed calls (the JIT, the channel, the connection warm), then timed ones; about 1-2 s of timed calls each. */
const PLAN: Record<BotClientKind, { readonly warm: number; readonly calls: number }> = {
  library: { warm: 150, calls: 400 },
  official: { warm: 40, calls: 120 },
};
/** What each bot's key holds: far above its deposit. */
const FUNDS = 100_000_000n;
/** The goals of issue 42, on this 2-core machine, same run. */
const GOALS = { libraryP50Ms: 2.5, callsPerSecondRatio: 3 } as const;
/** The localnet's background traffic, transactions a slot at most (0: none; the slots still advance). */
const TXS_PER_SLOT = Number(process.env.BOT_CLIENT_TXS_PER_SLOT ?? 0);

const load = (): number[] => loadavg().map((x) => round(x, 2));
const KINDS = ['library', 'official'] as const;

function runClient(job: BotClientJob): Promise<BotClientOutcome> {
  return runJsonChild<BotClientJob, BotClientOutcome>(RUNNER, job, `${job.kind} client`);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Median, least and most of per-round figures. */
const spread = (xs: readonly number[]) => ({ median: round(median(xs), 2), min: round(Math.min(...xs), 2), max: round(Math.max(...xs), 2) });

const present = (xs: readonly (number | null)[]): number[] => xs.filter((x): x is number => x !== null);
const perCall = (us: number | null, calls: number): number | null => (us === null ? null : round(us / Math.max(1, calls)));
const sumOrNull = (xs: readonly (number | null)[]): number | null => (xs.some((x) => x === null) ? null : xs.reduce<number>((a, x) => a + x!, 0));

/** The figures of some rounds of one kind together: end to end, the service's own time, and CPU per call. */
function figures(outcomes: readonly BotClientOutcome[]) {
  const latencies = outcomes.flatMap((o) => o.latenciesMs);
  const ok = outcomes.reduce((n, o) => n + (o.statuses['200'] ?? 0), 0);
  const run = runOf(
    [...latencies],
    ok,
    outcomes.reduce((s, o) => s + o.seconds, 0),
  );
  const totals = outcomes.flatMap((o) => o.serviceTotalMs);
  // Per call: the end to end less the service's own time (the client, the wire, the HTTP front).
  const outside = present(latencies.map((ms, i) => (totals[i] === null || totals[i] === undefined ? null : ms - totals[i]!)));
  return {
    ...run,
    failures: run.requests - ok,
    serviceTotalP50Ms: round(median(present(totals)), 2),
    serviceLedgerP50Ms: round(median(present(outcomes.flatMap((o) => o.serviceLedgerMs))), 2),
    outsideServiceP50Ms: round(median(outside), 2),
    clientCpuUsPerCall: perCall(
      outcomes.reduce((s, o) => s + o.cpuUs, 0),
      run.requests,
    ),
    serviceCpuUsPerCall: perCall(sumOrNull(outcomes.map((o) => o.serviceCpuUs)), run.requests),
    benchCpuUsPerCall: perCall(sumOrNull(outcomes.map((o) => o.benchCpuUs)), run.requests),
  };
}

type Figures = ReturnType<typeof figures>;

/** All rounds of one kind pooled, and the spread of the round medians. */
function summary(outcomes: readonly BotClientOutcome[], rounds: readonly Figures[]) {
  return { ...figures(outcomes), roundMedians: { p50Ms: spread(rounds.map((r) => r.p50Ms)), perSecond: spread(rounds.map((r) => r.perSecond)) } };
}

function roundLine(r: number, before: number[], after: number[], f: Record<BotClientKind, Figures>): string {
  const side = (x: Figures) =>
    `${x.perSecond} calls/s, p50 ${x.p50Ms} ms (service ${x.serviceTotalP50Ms}, outside it ${x.outsideServiceP50Ms}), client ${x.clientCpuUsPerCall} µs/call`;
  return `bot-client round ${r} (load ${before[0]} -> ${after[0]}): library ${side(f.library)}; official ${side(f.official)}; ${round(f.library.perSecond / f.official.perSecond, 2)}x\n`;
}

export async function benchBotClient(): Promise<Record<string, unknown>> {
  const net = await startLocalnet({
    host: '127.0.0.1',
    rpcPort: 0,
    geyserPort: 0,
    marketPort: 0,
    slotMs: 400,
    slotsPerEpoch: 432,
    seed: 'bench-bot-client',
    txsPerSlot: TXS_PER_SLOT,
  });
  const service = await startMainnetService(net);
  try {
    const outcomes: Record<BotClientKind, BotClientOutcome[]> = { library: [], official: [] };
    const perRound: Record<BotClientKind, Figures[]> = { library: [], official: [] };
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      const before = load();
      const order = r % 2 === 0 ? KINDS : ([...KINDS].reverse() as BotClientKind[]);
      for (const kind of order) {
        const key = generateEvmKey();
        await net.evm.fundUsdc(evmAddressOfKey(key), FUNDS);
        const job: BotClientJob = { kind, url: service.url, path: PATH, key, asset: net.evm.usdcAddress, servicePid: service.pid, ...PLAN[kind] };
        const outcome = await runClient(job);
        outcomes[kind].push(outcome);
        perRound[kind].push(figures([outcome]));
      }
      const f = { library: perRound.library[r]!, official: perRound.official[r]! };
      const after = load();
      process.stderr.write(roundLine(r + 1, before, after, f));
      const speedup = { callsPerSecond: round(f.library.perSecond / f.official.perSecond, 2), p50: round(f.official.p50Ms / f.library.p50Ms, 2) };
      rounds.push({ round: r + 1, first: order[0], loadAverageBefore: before, loadAverageAfter: after, ...f, speedup });
    }
    const library = summary(outcomes.library, perRound.library);
    const official = summary(outcomes.official, perRound.official);
    const roundRatios = spread(rounds.map((r) => r.speedup.callsPerSecond));
    const ratios = {
      callsPerSecond: round(library.perSecond / official.perSecond, 2),
      p50: round(official.p50Ms / library.p50Ms, 2),
      callsPerSecondRoundMedian: roundRatios.median,
      callsPerSecondRoundMin: roundRatios.min,
      callsPerSecondRoundMax: roundRatios.max,
    };
    return {
      name: 'bot-client',
      endpoint: PATH,
      service:
        'child process, node dist/server/main.js in mainnet mode; localnet (Solana LiteSVM, 400 ms slots; local EVM, automine) in the bench process; each client a process of its own',
      localnetTxsPerSlot: TXS_PER_SLOT,
      oneInFlight: true,
      library,
      official,
      ratios,
      rounds,
      goals: {
        ...GOALS,
        libraryP50: { value: library.p50Ms, goalMet: library.p50Ms <= GOALS.libraryP50Ms },
        libraryP50RoundMedian: { value: library.roundMedians.p50Ms.median, goalMet: library.roundMedians.p50Ms.median <= GOALS.libraryP50Ms },
        callsPerSecond: { value: ratios.callsPerSecond, goalMet: ratios.callsPerSecond >= GOALS.callsPerSecondRatio },
      },
    };
  } finally {
    await service.close();
    await net.close();
  }
}
