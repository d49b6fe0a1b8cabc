/**
 * Loopback load benchmark of the unpaid paths of a paid route, as ratios measured in the same run:
 * the 402 challenge (`/v1/smri?mint=<USDC>`) and the 400 of a bad mint, against a bare uWS
 * hello-world (the ceiling) and the official `@x402/express` middleware guarding the same route
 * with the same terms (the reference). Every server runs in its own process; the service runs as a
 * user starts it, in mainnet mode against a localnet in another process, which is frozen (SIGSTOP)
 * while a load runs so that its block production stays out of the figures on a small machine.
 * Before each service run the challenge must carry a blockhash refreshed since the previous run
 * that the chain reports valid; /health's counters tell which statuses each run really got.
 *
 * Each round sweeps the connection counts (`--connections 1,8,32,128`) target by target; the
 * ratios are those at 32 connections (or the largest count when 32 is not swept).
 *
 *   npm run bench -- http-challenge [--seconds 5] [--connections 32] [--rounds 3]
 *     [--only challenge402,invalid400] [--profile DIR]   (DIR: a --cpu-prof of the service, summarized in the report)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CATALOG } from '../../src/catalog/endpoints.ts';
import { SOLANA_USDC_MINT } from '../../src/config.ts';
import { loadOrCreateIdentity } from '../../src/receipts/identity.ts';
import { MAX_TIMEOUT_SECONDS } from '../../src/x402/delivery/payment-terms.ts';
import { BASE_MAINNET_CAIP2, SOLANA_MAINNET_CAIP2 } from '../../src/x402/types/x402-types.ts';
import { type BenchProcess, cpuMs, spawnLocalnet, spawnMainnetService, spawnNode, whileFrozen } from '../harness/bench-processes.ts';
import {
  blockhashValid,
  captureReply,
  type ChallengeBytes,
  challengeBytes,
  countsDelta,
  fetchChallenge,
  statusCounts,
  termDifferences,
} from './challenge-checks.ts';
import { type Measured, ratioSummary, roundRatios, type RoundRatios, type SweepPoint, TARGETS, type Target } from './challenge-ratios.ts';
import { drive, hasWrk } from '../harness/load-driver.ts';
import { type CpuReading, cpuBetween, readProcessCpu } from '../harness/process-cpu.ts';
import { PROFILE_WINDOWS_FILE, summarizeProfileDir } from '../harness/profile-summary.ts';
import { PEER_PATH_SUFFIX } from './hello-server.ts';
import type { ReferenceTerms } from './reference-server.ts';

/** The benchmarked route and the query of each path. */
const ROUTE = '/v1/smri';
const GOOD_QUERY = `mint=${SOLANA_USDC_MINT}`;
const BAD_QUERY = 'mint=bad';
/** The connection count the ratios are taken at, when the sweep includes it. */
const RATIO_CONNECTIONS = 32;
/** Functions listed in the report's profile summary. */
const PROFILE_TOP = 15;
/** How long a fresh blockhash may take to reach the challenge after the localnet thaws, ms. */
const BLOCKHASH_WAIT_MS = 30_000;
const SVM_PAY_TO = 'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe';
const EVM_PAY_TO = '0x1111111111111111111111111111111111111111';

export { TARGETS, type Target };

export interface HttpChallengeOptions {
  readonly seconds: number;
  /** Connection counts swept in each round, in order. */
  readonly connections: readonly number[];
  readonly rounds: number;
  readonly only?: readonly Target[];
  /** Directory for a CPU profile of the service process (`node --cpu-prof`), written when it stops. */
  readonly profileDir?: string;
}

interface Servers {
  readonly processes: BenchProcess[];
  readonly localnet: Awaited<ReturnType<typeof spawnLocalnet>>;
  readonly serviceUrl: string;
  readonly service: BenchProcess;
  /** The process serving each target. */
  readonly owners: Readonly<Record<Target, BenchProcess>>;
  readonly urls: Readonly<Record<Target, string>>;
  /** Sizes of our 402 as sent, with what the x402 extensions add to it. */
  readonly bytes402: ChallengeBytes;
}

/** Starts every server; each process joins `processes` as it starts, so the caller stops them all even when a later one fails. */
async function startServers(dataDir: string, options: HttpChallengeOptions, processes: BenchProcess[]): Promise<Servers> {
  const feePayer = loadOrCreateIdentity(join(dataDir, 'identity.json')).publicKey;
  const localnet = await spawnLocalnet();
  processes.push(localnet.process);
  const entry = CATALOG.find((e) => e.path === ROUTE)!;
  const terms: ReferenceTerms = {
    path: ROUTE,
    description: entry.description,
    amount: String(entry.priceUnits),
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    svm: { network: SOLANA_MAINNET_CAIP2, asset: localnet.lines.stablecoin, payTo: SVM_PAY_TO, feePayer },
    evm: { network: BASE_MAINNET_CAIP2, asset: localnet.lines.usdc, payTo: EVM_PAY_TO, name: 'USD Coin', version: '2' },
  };
  const reference = await spawnNode('bench/http/reference-server.ts', [JSON.stringify(terms)], [/^facilitator (\S+)/m, /^listening (\d+)/m]);
  processes.push(reference.process);
  const service = await spawnMainnetService({
    dataDir,
    localnet: localnet.lines,
    facilitatorUrl: reference.found[0]!,
    svmPayTo: SVM_PAY_TO,
    evmPayTo: EVM_PAY_TO,
    // The free limit stays on, its byte bound too (their per-request work is part of the path), but
    // never refuses one client at wrk's rate; the Geyser stream is not judged stale while the localnet is frozen.
    extra: [
      ...['--free-rate-per-second', '999999999', '--free-burst', '999999999', '--geyser-stale-ms', '600000'],
      ...['--free-bytes-per-second', '999999999', '--free-bytes-burst', '999999999'],
      ...['--evm-asset-name', terms.evm.name, '--evm-asset-version', terms.evm.version],
    ],
    nodeArgs: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [],
  });
  processes.push(service.process);
  const hello = await spawnNode('bench/http/hello-server.ts', [], [/^listening (\d+)/m]);
  processes.push(hello.process);
  const bytes = await startSameBytesServer(service.url, dataDir);
  processes.push(bytes.process);
  const urls: Record<Target, string> = {
    hello: `http://127.0.0.1:${hello.found[0]}/`,
    bytes402: `http://127.0.0.1:${bytes.port}/402`,
    bytes400: `http://127.0.0.1:${bytes.port}/400`,
    peer402: `http://127.0.0.1:${bytes.port}/402${PEER_PATH_SUFFIX}`,
    peer400: `http://127.0.0.1:${bytes.port}/400${PEER_PATH_SUFFIX}`,
    challenge402: `${service.url}${ROUTE}?${GOOD_QUERY}`,
    invalid400: `${service.url}${ROUTE}?${BAD_QUERY}`,
    reference402: `http://127.0.0.1:${reference.found[1]}${ROUTE}?${GOOD_QUERY}`,
    health: `${service.url}/health`,
  };
  const owners = {
    hello: hello.process,
    bytes402: bytes.process,
    bytes400: bytes.process,
    peer402: bytes.process,
    peer400: bytes.process,
    challenge402: service.process,
    invalid400: service.process,
    reference402: reference.process,
    health: service.process,
  };
  return { processes, localnet, serviceUrl: service.url, service: service.process, owners, urls, bytes402: bytes.bytes402 };
}

/** Captures our 402 and 400 as sent and starts a bare uWS server writing exactly those bytes. */
async function startSameBytesServer(serviceUrl: string, dataDir: string): Promise<{ process: BenchProcess; port: string; bytes402: ChallengeBytes }> {
  const replies = { '/402': await captureReply(`${serviceUrl}${ROUTE}?${GOOD_QUERY}`), '/400': await captureReply(`${serviceUrl}${ROUTE}?${BAD_QUERY}`) };
  const file = join(dataDir, 'same-bytes.json');
  writeFileSync(file, JSON.stringify(replies));
  const started = await spawnNode('bench/http/hello-server.ts', [file], [/^listening (\d+)/m]);
  return { process: started.process, port: started.found[0]!, bytes402: challengeBytes(replies['/402']) };
}

/** Fails unless both servers answer the same terms and ours carries what a payer needs. */
async function checkChallenges(servers: Servers): Promise<void> {
  const ours = await fetchChallenge(servers.urls.challenge402);
  const reference = await fetchChallenge(servers.urls.reference402);
  const problems = termDifferences(ours.accepts, reference.accepts);
  if (ours.resourceUrl !== servers.urls.challenge402) problems.push(`our resource URL ${ours.resourceUrl}`);
  if (!ours.bodyIsShortError) problems.push('our body is not the short error of a lean 402 (it must not repeat the challenge)');
  if (ours.recentBlockhash === null) problems.push('our challenge has no recent blockhash');
  const bad = await fetch(servers.urls.invalid400);
  await bad.text();
  if (bad.status !== 400) problems.push(`the bad mint answered ${bad.status}`);
  if (problems.length > 0) throw new Error(`the servers do not answer alike: ${problems.join('; ')}`);
}

/** Waits until the challenge carries a blockhash other than `previous` that the chain reports valid. */
async function freshBlockhash(servers: Servers, previous: string | null): Promise<string> {
  const deadline = performance.now() + BLOCKHASH_WAIT_MS;
  while (performance.now() < deadline) {
    const hash = (await fetchChallenge(servers.urls.challenge402)).recentBlockhash;
    if (hash !== null && hash !== previous && (await blockhashValid(servers.localnet.lines.rpc, hash))) return hash;
    await sleep(200);
  }
  throw new Error(`no fresh blockhash reached the challenge within ${BLOCKHASH_WAIT_MS} ms`);
}

/** Where each load run on the service falls on its process's clock, for profile-summary.ts. */
type ProfileWindow = { readonly target: Target; readonly fromMs: number; readonly toMs: number };

interface RunState {
  blockhash: string | null;
  readonly windows: ProfileWindow[];
}

async function measure(servers: Servers, target: Target, seconds: number, connections: number, state: RunState): Promise<Measured> {
  const ours = target === 'challenge402' || target === 'invalid400' || target === 'health';
  if (ours) state.blockhash = await freshBlockhash(servers, state.blockhash);
  const before = ours ? await statusCounts(servers.serviceUrl) : null;
  const fromMs = performance.now() - servers.service.spawnedAt;
  const pid = servers.owners[target].child.pid!;
  const cpuBefore = cpuMs(servers.owners[target]);
  const threadsBefore = readProcessCpu(pid);
  const load = await whileFrozen(servers.localnet.process, () => drive(servers.urls[target], seconds, connections));
  const cpuAfter = cpuMs(servers.owners[target]);
  const cpuUs = cpuBefore === null || cpuAfter === null || load.requests === 0 ? null : Math.round(((cpuAfter - cpuBefore) * 10_000) / load.requests) / 10;
  const result = {
    ...load,
    cpuUsPerRequest: cpuUs,
    cpuUsPerRequestByThread: perRequestByThread(cpuBetween(threadsBefore, readProcessCpu(pid)), load.requests),
  };
  if (!before) return result;
  state.windows.push({ target, fromMs, toMs: performance.now() - servers.service.spawnedAt });
  return { ...result, statuses: countsDelta(before, await statusCounts(servers.serviceUrl)), ...(target === 'health' ? {} : { blockhash: state.blockhash! }) };
}

/** CPU µs per request of each thread (by name) that spent at least a tenth of a µs per request. */
function perRequestByThread(used: CpuReading, requests: number): Record<string, number> {
  if (requests === 0) return {};
  const perRequest = Object.entries(used.threadsUs).map(([name, us]) => [name, Math.round((us / requests) * 10) / 10] as const);
  return Object.fromEntries(perRequest.filter(([, us]) => us >= 0.1));
}

type Round = { results: Partial<Record<Target, Measured>>; ratios: RoundRatios; sweep: SweepPoint[] };

/** One round: every target at every connection count; /health only at the ratio count. */
async function runRound(servers: Servers, targets: readonly Target[], options: HttpChallengeOptions, state: RunState, label: string): Promise<Round> {
  const ratioAt = ratioConnections(options.connections);
  const sweep: SweepPoint[] = [];
  let results: Partial<Record<Target, Measured>> = {};
  for (const connections of options.connections) {
    const point: Partial<Record<Target, Measured>> = {};
    for (const t of targets) {
      if (t === 'health' && connections !== ratioAt) continue;
      point[t] = await measure(servers, t, options.seconds, connections, state);
      process.stderr.write(`http-challenge ${label} ${t} at ${connections} connections: ${point[t].rps} req/s\n`);
    }
    const pick = <V>(f: (m: Measured) => V) => Object.fromEntries(Object.entries(point).map(([t, m]) => [t, f(m)]));
    sweep.push({ connections, rps: pick((m) => m.rps), cpuUsPerRequest: pick((m) => m.cpuUsPerRequest) });
    if (connections === ratioAt) results = point;
  }
  return { results, ratios: roundRatios(results), sweep };
}

/** The count the ratios are read at: 32 when swept, else the largest. */
export const ratioConnections = (counts: readonly number[]): number => (counts.includes(RATIO_CONNECTIONS) ? RATIO_CONNECTIONS : Math.max(...counts));

/** Runs the benchmark and returns its report. */
export async function benchHttpChallenge(options: HttpChallengeOptions): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-'));
  if (options.profileDir) mkdirSync(options.profileDir, { recursive: true });
  const processes: BenchProcess[] = [];
  try {
    const servers = await startServers(dataDir, options, processes);
    await checkChallenges(servers);
    const targets = TARGETS.filter((t) => !options.only || options.only.includes(t));
    // Without wrk the load comes from a Node process that is itself the bottleneck (about 10k req/s
    // here, every target alike) and makes the server wake per request: neither ratio means what it does under wrk.
    if (!hasWrk())
      process.stderr.write(
        'http-challenge: wrk is not installed (apt-get install wrk): the Node load generator caps every target, the ratios are not comparable\n',
      );
    const rounds: Round[] = [];
    const state: RunState = { blockhash: null, windows: [] };
    for (let i = 0; i < options.rounds; i++) rounds.push(await runRound(servers, targets, options, state, `round ${i + 1}/${options.rounds}`));
    if (options.profileDir) writeFileSync(join(options.profileDir, PROFILE_WINDOWS_FILE), `${JSON.stringify(state.windows)}\n`);
    return {
      name: 'http-challenge',
      tool: rounds[0]?.results.hello?.tool ?? rounds[0]?.results.challenge402?.tool,
      seconds: options.seconds,
      connections: ratioConnections(options.connections),
      sweptConnections: options.connections,
      challenge402Bytes: servers.bytes402,
      rounds,
      ...ratioSummary(rounds),
    };
  } finally {
    // The service last but one: with --profile it writes its CPU profile as it exits.
    for (const p of processes.reverse()) await p.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The benchmark, then (with a profile directory) the summary of the service's CPU profile under load. */
export async function benchHttpChallengeProfiled(options: HttpChallengeOptions): Promise<Record<string, unknown>> {
  const report = await benchHttpChallenge(options);
  // The profile is written as the service exits, so it is read once every process has stopped.
  return options.profileDir ? { ...report, profile: summarizeProfileDir(options.profileDir, PROFILE_TOP) } : report;
}
