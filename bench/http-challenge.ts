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
 *   npm run bench -- http-challenge [--seconds 5] [--connections 32] [--rounds 3]
 *     [--only challenge402,invalid400] [--profile DIR]   (DIR: a --cpu-prof of the service)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CATALOG } from '../src/catalog/endpoints.ts';
import { SOLANA_USDC_MINT } from '../src/config.ts';
import { loadOrCreateIdentity } from '../src/trust/identity.ts';
import { MAX_TIMEOUT_SECONDS } from '../src/x402/payment-terms.ts';
import { BASE_MAINNET_CAIP2, SOLANA_MAINNET_CAIP2 } from '../src/x402/x402-types.ts';
import { type BenchProcess, cpuMs, spawnLocalnet, spawnMainnetService, spawnNode, whileFrozen } from './bench-processes.ts';
import { blockhashValid, countsDelta, fetchChallenge, statusCounts, termDifferences } from './challenge-checks.ts';
import { drive, type LoadResult } from './load-driver.ts';
import { PROFILE_WINDOWS_FILE } from './profile-summary.ts';
import type { ReferenceTerms } from './reference-server.ts';

/** The benchmarked route and the query of each path. */
const ROUTE = '/v1/smri';
const GOOD_QUERY = `mint=${SOLANA_USDC_MINT}`;
const BAD_QUERY = 'mint=bad';
/** Goals of issue 16: each unpaid path at least this fraction of hello-world... */
const GOAL_VS_HELLO = 0.7;
/** ...and at least this many times the reference middleware. */
const GOAL_VS_REFERENCE = 10;
/** How long a fresh blockhash may take to reach the challenge after the localnet thaws, ms. */
const BLOCKHASH_WAIT_MS = 30_000;
const SVM_PAY_TO = 'HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe';
const EVM_PAY_TO = '0x1111111111111111111111111111111111111111';

/** The targets of one round, in the order they run. */
export const TARGETS = ['hello', 'challenge402', 'invalid400', 'reference402', 'health'] as const;
export type Target = (typeof TARGETS)[number];

export interface HttpChallengeOptions {
  readonly seconds: number;
  readonly connections: number;
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
}

async function startServers(dataDir: string, options: HttpChallengeOptions): Promise<Servers> {
  const feePayer = loadOrCreateIdentity(join(dataDir, 'identity.json')).publicKey;
  const localnet = await spawnLocalnet();
  const processes: BenchProcess[] = [localnet.process];
  const entry = CATALOG.find((e) => e.path === ROUTE)!;
  const terms: ReferenceTerms = {
    path: ROUTE,
    description: entry.description,
    amount: String(entry.priceUnits),
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    svm: { network: SOLANA_MAINNET_CAIP2, asset: localnet.lines.stablecoin, payTo: SVM_PAY_TO, feePayer },
    evm: { network: BASE_MAINNET_CAIP2, asset: localnet.lines.usdc, payTo: EVM_PAY_TO, name: 'USD Coin', version: '2' },
  };
  const reference = await spawnNode('bench/reference-server.ts', [JSON.stringify(terms)], [/^facilitator (\S+)/m, /^listening (\d+)/m]);
  processes.push(reference.process);
  const service = await spawnMainnetService({
    dataDir,
    localnet: localnet.lines,
    facilitatorUrl: reference.found[0]!,
    svmPayTo: SVM_PAY_TO,
    evmPayTo: EVM_PAY_TO,
    // The free limit stays on (its per-request work is part of the path) but never refuses one
    // client at wrk's rate; the Geyser stream is not judged stale while the localnet is frozen.
    extra: [
      ...['--free-rate-per-second', '999999999', '--free-burst', '999999999', '--geyser-stale-ms', '600000'],
      ...['--evm-asset-name', terms.evm.name, '--evm-asset-version', terms.evm.version],
    ],
    nodeArgs: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [],
  });
  processes.push(service.process);
  const hello = await spawnNode('bench/hello-server.ts', [], [/^listening (\d+)/m]);
  processes.push(hello.process);
  const urls: Record<Target, string> = {
    hello: `http://127.0.0.1:${hello.found[0]}/`,
    challenge402: `${service.url}${ROUTE}?${GOOD_QUERY}`,
    invalid400: `${service.url}${ROUTE}?${BAD_QUERY}`,
    reference402: `http://127.0.0.1:${reference.found[1]}${ROUTE}?${GOOD_QUERY}`,
    health: `${service.url}/health`,
  };
  const owners = { hello: hello.process, challenge402: service.process, invalid400: service.process, reference402: reference.process, health: service.process };
  return { processes, localnet, serviceUrl: service.url, service: service.process, owners, urls };
}

/** Fails unless both servers answer the same terms and ours carries what a payer needs. */
async function checkChallenges(servers: Servers): Promise<void> {
  const ours = await fetchChallenge(servers.urls.challenge402);
  const reference = await fetchChallenge(servers.urls.reference402);
  const problems = termDifferences(ours.accepts, reference.accepts);
  if (ours.resourceUrl !== servers.urls.challenge402) problems.push(`our resource URL ${ours.resourceUrl}`);
  if (!ours.bodyIsHeader) problems.push('our body is not the JSON of our PAYMENT-REQUIRED header');
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

type Measured = LoadResult & {
  /** CPU time of the serving process per request (all its threads), µs: robust to a loaded machine. */
  readonly cpuUsPerRequest: number | null;
  readonly statuses?: Record<string, number>;
  readonly blockhash?: string;
};

/** Where each load run on the service falls on its process's clock, for profile-summary.ts. */
type ProfileWindow = { readonly target: Target; readonly fromMs: number; readonly toMs: number };

interface RunState {
  blockhash: string | null;
  readonly windows: ProfileWindow[];
}

async function measure(servers: Servers, target: Target, options: HttpChallengeOptions, state: RunState): Promise<Measured> {
  const ours = target !== 'hello' && target !== 'reference402';
  if (ours) state.blockhash = await freshBlockhash(servers, state.blockhash);
  const before = ours ? await statusCounts(servers.serviceUrl) : null;
  const fromMs = performance.now() - servers.service.spawnedAt;
  const cpuBefore = cpuMs(servers.owners[target]);
  const load = await whileFrozen(servers.localnet.process, () => drive(servers.urls[target], options.seconds, options.connections));
  const cpuAfter = cpuMs(servers.owners[target]);
  const cpuUs = cpuBefore === null || cpuAfter === null || load.requests === 0 ? null : Math.round(((cpuAfter - cpuBefore) * 1000) / load.requests);
  const result = { ...load, cpuUsPerRequest: cpuUs };
  if (!before) return result;
  state.windows.push({ target, fromMs, toMs: performance.now() - servers.service.spawnedAt });
  return { ...result, statuses: countsDelta(before, await statusCounts(servers.serviceUrl)), ...(target === 'health' ? {} : { blockhash: state.blockhash! }) };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const spread = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor((s.length - 1) / 2)]!, max: s[s.length - 1]! };
};

/** Ratios of one round: each unpaid path to hello-world and to the reference. */
function roundRatios(r: Partial<Record<Target, Measured>>) {
  const of = (a: Target, b: Target) => (r[a] && r[b] ? round3(r[a].rps / r[b].rps) : null);
  // Requests per CPU second, ours over theirs: the same comparison, independent of other load.
  const cpu = (a: Target, b: Target) => (r[a]?.cpuUsPerRequest && r[b]?.cpuUsPerRequest ? round3(r[b].cpuUsPerRequest / r[a].cpuUsPerRequest) : null);
  return {
    challenge402VsHello: of('challenge402', 'hello'),
    invalid400VsHello: of('invalid400', 'hello'),
    challenge402VsReference: of('challenge402', 'reference402'),
    invalid400VsReference: of('invalid400', 'reference402'),
    cpu: {
      challenge402VsHello: cpu('challenge402', 'hello'),
      invalid400VsHello: cpu('invalid400', 'hello'),
      challenge402VsReference: cpu('challenge402', 'reference402'),
      invalid400VsReference: cpu('invalid400', 'reference402'),
    },
  };
}

/** Runs the benchmark and returns its report. */
export async function benchHttpChallenge(options: HttpChallengeOptions): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-'));
  if (options.profileDir) mkdirSync(options.profileDir, { recursive: true });
  const servers = await startServers(dataDir, options);
  try {
    await checkChallenges(servers);
    const targets = TARGETS.filter((t) => !options.only || options.only.includes(t));
    const rounds: Array<{ results: Partial<Record<Target, Measured>>; ratios: ReturnType<typeof roundRatios> }> = [];
    const state: RunState = { blockhash: null, windows: [] };
    for (let i = 0; i < options.rounds; i++) {
      const results: Partial<Record<Target, Measured>> = {};
      for (const t of targets) {
        results[t] = await measure(servers, t, options, state);
        process.stderr.write(`http-challenge round ${i + 1}/${options.rounds} ${t}: ${results[t].rps} req/s\n`);
      }
      rounds.push({ results, ratios: roundRatios(results) });
    }
    if (options.profileDir) writeFileSync(join(options.profileDir, PROFILE_WINDOWS_FILE), `${JSON.stringify(state.windows)}\n`);
    const ratioKeys = ['challenge402VsHello', 'invalid400VsHello', 'challenge402VsReference', 'invalid400VsReference'] as const;
    const spreads = Object.fromEntries(
      ratioKeys.flatMap((k) => {
        const xs = rounds.map((r) => r.ratios[k]).filter((x): x is number => x !== null);
        return xs.length > 0 ? [[k, spread(xs)]] : [];
      }),
    );
    const met = (k: (typeof ratioKeys)[number], goal: number) => rounds.every((r) => r.ratios[k] !== null && r.ratios[k] >= goal);
    return {
      name: 'http-challenge',
      tool: rounds[0]?.results.hello?.tool ?? rounds[0]?.results.challenge402?.tool,
      seconds: options.seconds,
      connections: options.connections,
      rounds,
      spreads,
      goals: {
        vsHello: GOAL_VS_HELLO,
        vsReference: GOAL_VS_REFERENCE,
        metInEveryRound: {
          challenge402VsHello: met('challenge402VsHello', GOAL_VS_HELLO),
          invalid400VsHello: met('invalid400VsHello', GOAL_VS_HELLO),
          challenge402VsReference: met('challenge402VsReference', GOAL_VS_REFERENCE),
          invalid400VsReference: met('invalid400VsReference', GOAL_VS_REFERENCE),
        },
      },
    };
  } finally {
    // The service last but one: with --profile it writes its CPU profile as it exits.
    for (const p of servers.processes.reverse()) await p.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
