/**
 * CPU per warm paid call (issue 16): the service runs as a child process (the build, as `npm
 * start` runs it) in mainnet mode against a localnet in this process, so its CPU time is the
 * service's alone. Its CPU (all threads, /proc) is read around N paid calls at concurrency 1, and
 * again around N more with each endpoint's calls all in flight at once (Solana payments built
 * before each timed batch); the background rate of the same process at rest (Geyser stream,
 * timers) over an equal idle span is subtracted, and the rest is divided by N. The reference is
 * the signature work of one paid call done with the service's own functions
 * (signature-reference.ts); the split is the median of each `Server-Timing` phase over the calls.
 * `PAID_CPU_PROFILE_DIR=dir` runs the child with `--cpu-prof` (written when it stops).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Localnet, startLocalnet } from '@solana-x402-intel/localnet';
import { buildPaymentTx, fundedPayer, rpcCall, type TestPayer } from '../../test/helpers/svm-payer.ts';
import { countsBetween, type DelayProxy, type ProxyCounts, startDelayProxy } from '../harness/delay-proxy.ts';
import { cpuBetween, cpuPlus, type CpuReading, readProcessCpu } from '../harness/process-cpu.ts';
import { localnetMainnetArgs } from '../harness/mainnet-args.ts';
import { budgetMinus, combineBudgets, type CpuBudget, withCpuBudget } from '../harness/service-cpu.ts';
import { medianPhases } from './server-timing.ts';
import { measureSignatureWork } from './signature-reference.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Warm paid endpoints measured, each called WARM_CALLS times before its timed batch. */
const ENDPOINTS = ['/v1/epoch', '/v1/priority-fee', '/v1/tipfloor'] as const;
const WARM_CALLS = 3;
/** Timed paid calls per endpoint (PAID_CPU_CALLS overrides). */
const CALLS_PER_ENDPOINT = Number(process.env.PAID_CPU_CALLS ?? 25);
const round = (x: number, digits = 1): number => Number(x.toFixed(digits));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Child {
  readonly process: ChildProcess;
  readonly url: string;
}

/** Starts the built service in mainnet mode against `net`; resolves at its `listening` line. */
async function startChild(net: Localnet, dataDir: string, keyFile: string, payTo: string, rpcUrl: string): Promise<Child> {
  const profile = process.env.PAID_CPU_PROFILE_DIR;
  // No --enable-source-maps: `npm start` runs the service with maps off.
  const nodeFlags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const netArgs = localnetMainnetArgs(net, keyFile, payTo).map((a) => (a === net.urls.rpc ? rpcUrl : a));
  const args = [...['--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--free-rate-per-second', '0'], ...netArgs];
  const child = spawn(process.execPath, [...nodeFlags, 'dist/server/main.js', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const found = /^listening (http:\/\/\S+)/m.exec(out);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`service exited (${code}) before listening:\n${out}`)));
  });
  return { process: child, url };
}

/** Stops the child with SIGTERM (a CPU profile is written on a clean exit). */
async function stopChild(child: Child): Promise<void> {
  const p = child.process;
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  await exited;
}

interface Terms {
  readonly accepted: Record<string, unknown> & { payTo: string; amount: string; extra: Record<string, string> };
  readonly resource: unknown;
}

async function termsOf(url: string): Promise<Terms> {
  const res = await fetch(url);
  await res.arrayBuffer();
  const required = JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8'));
  return { accepted: required.accepts.find((a: { network: string }) => a.network.startsWith('solana:')), resource: required.resource };
}

/** `count` payment headers for `url`, each a fresh transaction on the localnet's newest blockhash. */
async function payments(net: Localnet, payer: TestPayer, url: string, count: number): Promise<string[]> {
  const { accepted, resource } = await termsOf(url);
  const { value } = await rpcCall<{ value: { blockhash: string } }>(net.urls.rpc, 'getLatestBlockhash', [{ commitment: 'confirmed' }]);
  const headers: string[] = [];
  for (let i = 0; i < count; i++) {
    const transaction = await buildPaymentTx({
      payer,
      feePayer: accepted.extra.feePayer!,
      mint: net.stablecoinMint,
      payTo: accepted.payTo,
      amount: BigInt(accepted.amount),
      blockhash: value.blockhash,
    });
    headers.push(Buffer.from(JSON.stringify({ x402Version: 2, accepted, resource, payload: { transaction } })).toString('base64'));
  }
  return headers;
}

/** Sends the paid calls, `concurrency` at a time; returns each answer's Server-Timing and receipt. */
async function paidCalls(url: string, headers: readonly string[], concurrency = 1): Promise<{ timings: string[]; receipts: string[] }> {
  const timings: string[] = [];
  const receipts: string[] = [];
  let next = 0;
  const caller = async () => {
    while (next < headers.length) {
      const header = headers[next++]!;
      const res = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`paid call ${url} answered ${res.status}: ${body}`);
      timings.push(res.headers.get('server-timing') ?? '');
      receipts.push(res.headers.get('x-service-receipt') ?? '');
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  return { timings, receipts };
}

/** Byte sizes of one real call's signed and hashed parts, for the reference. */
function realSizes(payment: string, receipt: string, dataDir: string) {
  const wire = Buffer.from(JSON.parse(Buffer.from(payment, 'base64').toString('utf8')).payload.transaction, 'base64');
  const { signature: _signature, ...unsigned } = JSON.parse(Buffer.from(receipt, 'base64').toString('utf8'));
  const ledgerFile = readdirSync(dataDir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dataDir, f))
    .find((f) => /ledger/.test(f) && statSync(f).isFile() && readFileSync(f, 'utf8').includes('"entrySha256"'));
  const lines = ledgerFile ? readFileSync(ledgerFile, 'utf8').trim().split('\n') : [];
  // A two-signature transaction: 1 length byte and 2 x 64 signature bytes precede the message.
  return {
    transactionMessage: wire.length - 1 - 2 * 64,
    receipt: JSON.stringify(unsigned).length,
    ledgerEntry: lines.length > 0 ? Math.round(lines.reduce((n, l) => n + l.length, 0) / lines.length) : 400,
  };
}

/** Warm-up, then the timed batches: the child's CPU and the wall time they took, and each answer. */
async function timedCalls(net: Localnet, payer: TestPayer, child: Child, pid: number, proxy: DelayProxy, concurrency: number) {
  let cpu: CpuReading = { schedUs: 0, statUs: 0, threadsUs: {} };
  const rpcCalls: Record<string, number> = {};
  let wallMs = 0;
  let budget: CpuBudget | null = null;
  const [timings, receipts, sent]: [string[], string[], string[]] = [[], [], []];
  for (const path of ENDPOINTS) {
    const url = `${child.url}${path}`;
    // Warmed at the measured concurrency: calls in flight together spread over every pool worker,
    // and a worker's start-up (~0.4 s of CPU) belongs to no call.
    const warm = Math.max(WARM_CALLS, concurrency);
    await paidCalls(url, await payments(net, payer, url, warm), concurrency);
    const headers = await payments(net, payer, url, CALLS_PER_ENDPOINT);
    // The readings of before the budget around the calls alone; the budget's classification is outside.
    const batch = async () => {
      const [before, counts, started] = [readProcessCpu(pid), proxy.counts(), performance.now()];
      const answers = await paidCalls(url, headers, concurrency);
      const ms = performance.now() - started;
      return { answers, ms, cpu: cpuBetween(before, readProcessCpu(pid)), calls: countsBetween(counts, proxy.counts()).calls };
    };
    const { result: t, cpuBudget } = await withCpuBudget(pid, batch, (r) => r.answers.timings.length);
    budget = budget ? combineBudgets(budget, cpuBudget) : cpuBudget;
    [wallMs, cpu] = [wallMs + t.ms, cpuPlus(cpu, t.cpu)];
    for (const [method, n] of Object.entries(t.calls)) rpcCalls[method] = (rpcCalls[method] ?? 0) + n;
    timings.push(...t.answers.timings);
    receipts.push(...t.answers.receipts);
    sent.push(...headers);
  }
  return { cpu, wallMs, timings, receipts, sent, rpcCalls, budget: budget! };
}

/** JSON-RPC calls per paid call by method: the paid window's minus the idle window's. */
function rpcCallsPerCall(paid: Readonly<Record<string, number>>, idle: ProxyCounts, calls: number): Record<string, number> {
  const methods = new Set([...Object.keys(paid), ...Object.keys(idle.calls)]);
  return Object.fromEntries([...methods].sort().map((m) => [m, round(((paid[m] ?? 0) - (idle.calls[m] ?? 0)) / calls, 2)]));
}

/**
 * The calls at `concurrency`, then the same process at rest for as long (what it spends anyway:
 * Geyser stream, timers), and the difference per call. At concurrency 1 the rest window is
 * about 20 times the calls' own CPU, so its noise dominates; calls in flight together share one
 * settlement wait, and the background per call shrinks by as much.
 */
async function cpuPerCall(net: Localnet, payer: TestPayer, child: Child, proxy: DelayProxy, concurrency: number) {
  const pid = child.process.pid!;
  const paid = await timedCalls(net, payer, child, pid, proxy, concurrency);
  const calls = paid.timings.length;
  const rest = async () => {
    const [cpu, counts] = [readProcessCpu(pid), proxy.counts()];
    await sleep(paid.wallMs);
    return { idle: cpuBetween(cpu, readProcessCpu(pid)), idleCounts: countsBetween(counts, proxy.counts()) };
  };
  const { result, cpuBudget: background } = await withCpuBudget(pid, rest, () => calls);
  const { idle, idleCounts } = result;
  const perCall = (used: number, background: number) => round((used - background) / calls);
  return {
    paid,
    figures: {
      calls,
      concurrency,
      paidWallMs: round(paid.wallMs),
      cpuUsPerCall: perCall(paid.cpu.schedUs, idle.schedUs),
      cpuUsPerCallFromStat: perCall(paid.cpu.statUs, idle.statUs),
      idleCpuUsPerSecond: round((idle.schedUs / paid.wallMs) * 1000),
      cpuUsPerCallByThread: Object.fromEntries(Object.entries(paid.cpu.threadsUs).map(([name, us]) => [name, perCall(us, idle.threadsUs[name] ?? 0)])),
      medianPhasesMs: medianPhases(paid.timings),
      // Split by thread kind (service-cpu.ts), less the same idle span's, as cpuUsPerCall.
      cpuBudget: budgetMinus(paid.budget, background),
      rpcCallsPerCall: rpcCallsPerCall(paid.rpcCalls, idleCounts, calls),
    },
  };
}

/** The figures of one concurrency with their ratio to the signature work. */
const withRatio = (figures: Awaited<ReturnType<typeof cpuPerCall>>['figures'], referenceUs: number) => ({
  ...figures,
  ratio: round(figures.cpuUsPerCall / referenceUs, 2),
});

/**
 * Runs the measurement and returns its report (the `cpu` part of the paid-calls report): the
 * calls one at a time (the top-level figures), then each endpoint's calls all in flight at once
 * (`concurrent`).
 */
export async function benchPaidCallCpu(): Promise<Record<string, unknown>> {
  if (!existsSync(join(ROOT, 'dist', 'server', 'main.js'))) throw new Error('dist/server/main.js is missing: run `npm run build` first');
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-paid-cpu' });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-paid-cpu-'));
  const keyFile = join(dataDir, 'relayer.key');
  let child: Child | null = null;
  const proxy = await startDelayProxy(net.urls.rpc, 0);
  try {
    // payTo holds a stablecoin account (funding creates it); the fee payer needs SOL for fees.
    const [payTo, payer] = [await fundedPayer(net.urls.rpc, 1), await fundedPayer(net.urls.rpc, 1_000_000_000)];
    child = await startChild(net, join(dataDir, 'service'), keyFile, payTo.signer.address, proxy.url);
    const feePayer = (await termsOf(`${child.url}${ENDPOINTS[0]}`)).accepted.extra.feePayer!;
    await rpcCall(net.urls.rpc, 'requestAirdrop', [feePayer, 10_000_000_000]);
    const serial = await cpuPerCall(net, payer, child, proxy, 1);
    const concurrent = await cpuPerCall(net, payer, child, proxy, CALLS_PER_ENDPOINT);
    const reference = measureSignatureWork(realSizes(serial.paid.sent[0]!, serial.paid.receipts[0]!, dataDir));
    return {
      endpoints: ENDPOINTS,
      child: 'node dist/server/main.js (mainnet mode, localnet in the bench process)',
      ...withRatio(serial.figures, reference.totalUs!),
      referenceUs: Object.fromEntries(Object.entries(reference).map(([k, v]) => [k, round(v)])),
      concurrent: withRatio(concurrent.figures, reference.totalUs!),
    };
  } finally {
    if (child) await stopChild(child);
    await proxy.close();
    await net.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
