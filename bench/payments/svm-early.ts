/**
 * Early answers on Solana (docs/payments.md#early-answers) against today's confirmed path and the
 * Base payment channel, in one run: `/v1/tipfloor` ($0.001) paid by the official x402 clients end
 * to end (the 402 round trip, signing, the paid request: `wrapFetchWithPayment` makes all three per
 * call, on either network), at 1, 8 and 32 clients, each client a payer of its own. Two built
 * services run as child processes in mainnet mode over one localnet (400 ms slots) in this process:
 * one with the defaults (early answers on, and the channels), one with `--svm-early-ceiling 0`
 * (every Solana call waits for `confirmed`, as before). Early answers are earned: two Solana rows
 * on the first service, an established payer (its warm-up calls paid and confirmed first, so its
 * history allows it the payer cap in flight) and a new payer (no history: one early answer in
 * flight, its other calls wait for confirmation). `earlyShare` counts the answers that were early.
 *
 * Where the time goes: each Solana row has the service's median phases (Server-Timing: `simulate`
 * is verification's balance read, over the answers that made one, `readShare` of them: the rest
 * reused a read of the same slot; `record` the pending record's durable write, `send` the
 * broadcast until the node accepted it), the client's side of a call (`clientMs`: the 402 round
 * trip, building and signing the payment, the paid request, and that request less the service's
 * own total), how long an early answer's share was held (`heldMsP50`, from /health), and the load:
 * the machine's load average at the row's start, the event loops of this process (the localnet)
 * and of the clients' process (bench/payments/svm-early-client.ts) and the service's CPU in cores;
 * and its CPU per paid call (`cpuBudget`, service-cpu.ts: the warm-up calls counted, each call's
 * 402 included, and for early answers their settlement until confirmed). The Solana clients run in
 * a process of their own: sharing the localnet's event loop, they starved it.
 *
 *   npm run build && npm run bench -- svm-early
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type Localnet, startLocalnet } from '@solana-x402-intel/localnet';
import { clientMedians } from './client-marks.ts';
import { medianPhases } from './server-timing.ts';
import { channelTermsOf, openChannel } from './channel-vouchers.ts';
import { type MainnetService, startMainnetService } from '../harness/mainnet-service.ts';
import { drive, round, type Run } from './paid-calls.ts';
import { statUs } from '../harness/process-cpu.ts';
import { withCpuBudget } from '../harness/service-cpu.ts';
import type { SvmClientsJob, SvmClientsOutcome } from './svm-early-client.ts';

const PATH = '/v1/tipfloor';
const CLIENTS = fileURLToPath(new URL('./svm-early-client.ts', import.meta.url));
/**
 * Calls per client at each level; the confirmed path takes about a second a call, so it makes fewer.
 * `established`: the warm-up calls of the established payer, enough confirmed value to earn it as
 * many early answers in flight as its calls back to back keep (half of 100 x $0.001 is the payer
 * cap), and to have them handed off (docs/payments.md#the-hand-off): its confirmed value covers
 * what they would lose, price and fee (6,001 units each at the defaults). At 1 client, calls back
 * to back keep the payer cap's 50 answers in flight: 300,050 units, so 320 calls; at 8 and 32
 * clients each keeps fewer than 20 and 5 (its calls/s times the 0.7 s an answer is held).
 */
const LEVELS = [
  { concurrency: 1, early: 60, established: 320, confirmed: 8, channel: 60 },
  { concurrency: 8, early: 30, established: 120, confirmed: 4, channel: 20 },
  { concurrency: 32, early: 10, established: 30, confirmed: 2, channel: 8 },
] as const;
/** Untimed calls per client first (the JIT, the pool and the payers' first reads warm); the new payer has none. */
const WARM_CALLS = 2;
/** The idle span read after each measured run (service-cpu.ts): a few of the Geyser stream's 400 ms slots. */
const IDLE = { idleMs: 2000 } as const;
/** How long a level's early answers may take to be confirmed before the next level starts. */
const SETTLE_WAIT_MS = 30_000;

const cpuUs = (used: NodeJS.CpuUsage): number => used.user + used.system;
const summary = (run: Run) => ({ requests: run.requests, failures: run.requests - run.ok, perSecond: run.perSecond, p50Ms: run.p50Ms, p99Ms: run.p99Ms });

/** The service's CPU while `work` runs, in cores. */
async function withServiceCpu<T>(service: MainnetService, work: () => Promise<T>): Promise<{ result: T; serviceCores: number }> {
  const [cpu, started] = [statUs(service.pid), performance.now()];
  const result = await work();
  return { result, serviceCores: round((statUs(service.pid) - cpu) / 1000 / (performance.now() - started), 2) };
}

/** Runs the clients' process on `job`; its one line of outcome. */
function runClients(job: SvmClientsJob): Promise<SvmClientsOutcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLIENTS], { stdio: ['pipe', 'pipe', 'pipe'] });
  let [out, err] = ['', ''];
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.end(JSON.stringify(job));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim()) as SvmClientsOutcome) : reject(new Error(`svm clients exited ${code}: ${err}`))));
  });
}

/** The official SVM client's calls, `calls` per client after `warm` each, from the clients' process; how many answers were early, where the time went. */
async function solanaLevel(net: Localnet, service: MainnetService, clients: number, calls: number, warm: number) {
  const loadAverage1m = round(loadavg()[0]!, 2);
  const job = { url: `${service.url}${PATH}`, rpcUrl: net.urls.rpc, stablecoinMint: net.stablecoinMint, clients, calls, warm };
  const elu = performance.eventLoopUtilization();
  const benchCpu = process.cpuUsage();
  // The budget's window runs until the early answers are confirmed: their settlement is theirs too.
  const measured = async () => ({ ...(await withServiceCpu(service, () => runClients(job))), held: await settled(service) });
  const warmCalls = clients * warm;
  const { result, cpuBudget } = await withCpuBudget(service.pid, measured, (r) => r.result.run.requests + warmCalls, IDLE);
  const { result: o, serviceCores, held } = result;
  const load = {
    loadAverage1m,
    // This process runs the localnet (and, while the clients fund and warm up, their faucet calls).
    localnetEventLoop: round(performance.eventLoopUtilization(elu).utilization, 2),
    clientsEventLoop: round(o.eventLoop, 2),
    serviceCores,
    // CPU per timed call of the official clients' process (their warm-up not counted) and of this
    // process (the localnet, and the clients' funding and warm-up calls to it).
    clientsCpuUsPerCall: Math.round(o.cpuUs / o.run.requests),
    localnetCpuUsPerCall: Math.round(cpuUs(process.cpuUsage(benchCpu)) / (o.run.requests + warmCalls)),
  };
  const run = o.run;
  return {
    ...summary(run),
    earlyShare: round(o.early / run.requests, 2),
    // The answers whose verification read the payer's account (the rest reused a read of its slot).
    readShare: round(o.serverTimings.filter((t) => /(^|, *)simulate;/.test(t)).length / run.requests, 2),
    medianPhasesMs: medianPhases(o.serverTimings),
    clientMs: clientMedians(o.marks, o.serverTimings),
    load,
    ...held,
    cpuBudget,
  };
}

/** Waits until no early answer of the service is unconfirmed (the next level starts with empty caps); the median time one held its share. */
async function settled(service: MainnetService): Promise<{ heldMsP50?: number | null }> {
  const deadline = performance.now() + SETTLE_WAIT_MS;
  for (;;) {
    const early = ((await (await fetch(`${service.url}/health`)).json()) as { earlyAnswers?: { exposureUnits: number; heldMsP50: number | null } })
      .earlyAnswers;
    if (!early || early.heldMsP50 === undefined) return {};
    if (early.exposureUnits === 0 || performance.now() > deadline) return { heldMsP50: early.heldMsP50 };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The official channel client's calls, each client on a channel of its own opened beforehand. */
async function channelLevel(net: Localnet, service: MainnetService, clients: number, count: number) {
  const loadAverage1m = round(loadavg()[0]!, 2);
  const url = `${service.url}${PATH}`;
  const terms = await channelTermsOf(url);
  const payers = await Promise.all(Array.from({ length: clients }, () => openChannel(net.evm, url, terms, WARM_CALLS + count, { presign: false })));
  const ok = (res: Response) => res.status === 200;
  await drive(payers.map(({ payer }) => Array.from({ length: WARM_CALLS }, () => ({ send: () => payer.pay(url), ok }))));
  const elu = performance.eventLoopUtilization();
  const calls = () => drive(payers.map(({ payer }) => Array.from({ length: count }, () => ({ send: () => payer.pay(url), ok }))));
  const { result, cpuBudget } = await withCpuBudget(
    service.pid,
    () => withServiceCpu(service, calls),
    (r) => r.result.requests,
    IDLE,
  );
  const { result: run, serviceCores } = result;
  // The channel clients run in this process, beside the localnet (their calls do not touch it).
  const load = { loadAverage1m, benchEventLoop: round(performance.eventLoopUtilization(elu).utilization, 2), serviceCores };
  return { ...summary(run), load, cpuBudget };
}

type SolanaRow = Awaited<ReturnType<typeof solanaLevel>>;
interface Level {
  readonly concurrency: number;
  /** Early answers on, an established payer per client. */
  readonly solanaEarly: SolanaRow;
  /** Early answers on, a new payer per client (no confirmed history). */
  readonly solanaNewPayer: SolanaRow;
  readonly solanaConfirmed: SolanaRow;
  readonly baseChannel: Awaited<ReturnType<typeof channelLevel>>;
}

/** Runs the four paths at each level; ratios from the same run. */
export async function benchSvmEarly(): Promise<Record<string, unknown>> {
  const loadBefore = loadavg()[0]!;
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-svm-early' });
  const early = await startMainnetService(net);
  const confirmed = await startMainnetService(net, { extraArgs: ['--svm-early-ceiling', '0'] });
  try {
    const levels: Level[] = [];
    for (const level of LEVELS) {
      const n = level.concurrency;
      levels.push({
        concurrency: n,
        solanaEarly: await solanaLevel(net, early, n, level.early, level.established),
        solanaNewPayer: await solanaLevel(net, early, n, level.early, 0),
        solanaConfirmed: await solanaLevel(net, confirmed, n, level.confirmed, WARM_CALLS),
        baseChannel: await channelLevel(net, early, n, level.channel),
      });
    }
    const at = (n: number) => levels.find((l) => l.concurrency === n)!;
    return {
      name: 'svm-early',
      path: PATH,
      slotMs: 400,
      levels,
      ratios: {
        earlyP50MsAt1: at(1).solanaEarly.p50Ms,
        earlyP50VsChannelP50At1: round(at(1).solanaEarly.p50Ms / at(1).baseChannel.p50Ms, 2),
        earlyP50VsConfirmedP50At1: round(at(1).solanaEarly.p50Ms / at(1).solanaConfirmed.p50Ms, 3),
        earlyCallsPerSecondVsConfirmedAt8: round(at(8).solanaEarly.perSecond / at(8).solanaConfirmed.perSecond, 1),
        newPayerCallsPerSecondVsConfirmedAt8: round(at(8).solanaNewPayer.perSecond / at(8).solanaConfirmed.perSecond, 1),
      },
      loadAverage: { start: round(loadBefore, 2), end: round(loadavg()[0]!, 2) },
    };
  } finally {
    await Promise.all([early.close(), confirmed.close()]);
    await net.close();
  }
}
