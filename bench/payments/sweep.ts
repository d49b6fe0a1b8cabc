/**
 * A batch sweep: 1000 mints through `/v1/batch/token-risk` (10 mints a call, 100 paid calls) by 8
 * concurrent clients, paid with `exact` on Solana, `exact` on Base and through payment channels,
 * in the same run. The service runs in mainnet mode (a child process) with a proxy that holds
 * every Solana RPC request 25 ms in front of the localnet's RPC, as far as a hosted RPC is. Each
 * scheme sweeps 1000 mints of its own (copies of the world's, sweep-mints.ts), so none is answered
 * from the snapshot cache another one filled. Payments are made before the timed phase (channels
 * opened on /v1/epoch, their vouchers signed ahead). The proxy counts the RPC round trips.
 *
 *   npm run build && npm run bench -- sweep
 *   SWEEP_CPU_PROFILE_DIR=dir npm run bench -- sweep   (the child under --cpu-prof)
 */
import { loadavg } from 'node:os';
import { type Localnet, startLocalnet } from '@solana-x402-intel/localnet';
import { evmAddressOfKey, type EvmHexKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { fundedPayer, rpcCall } from '../../test/helpers/svm-payer.ts';
import { medianPhases } from './server-timing.ts';
import { channelTermsOf, openChannel } from './channel-vouchers.ts';
import { countsBetween, type DelayProxy, startDelayProxy } from '../harness/delay-proxy.ts';
import { startMainnetService, type MainnetService } from '../harness/mainnet-service.ts';
import { type BenchRequest, challengeOf, drive, evmPaymentHeaders, paymentHeaders, round } from './paid-calls.ts';
import { cpuBetween, readProcessCpu } from '../harness/process-cpu.ts';
import { cloneWorldMints } from './sweep-mints.ts';

const PATH = '/v1/batch/token-risk';
const MINTS = 1000;
const PER_CALL = 10;
const CONCURRENCY = 8;
/** Added to every Solana RPC request, ms: a hosted mainnet RPC's round trip. */
export const RPC_DELAY_MS = 25;
/**
 * `exactSolanaEarly` is the Solana sweep against a second service with early answers at their
 * defaults (docs/payments.md#early-answers); the first runs with them off, as before they existed.
 * The batch route ($0.10) is above the early-answer ceiling ($0.005), so both wait for confirmation:
 * `earlyAnswered` counts the answers that did not (expected 0).
 */
const SCHEMES = ['exactSolana', 'exactSolanaEarly', 'exactBase', 'channel'] as const;
type Scheme = (typeof SCHEMES)[number];

/** The calls of a sweep (10 mints each), dealt to the clients in turn. */
function dealCalls(mints: readonly string[]): string[][] {
  const clients: string[][] = Array.from({ length: CONCURRENCY }, () => []);
  for (let i = 0; i * PER_CALL < mints.length; i++) clients[i % CONCURRENCY]!.push(`${PATH}?mints=${mints.slice(i * PER_CALL, (i + 1) * PER_CALL).join(',')}`);
  return clients;
}

/** Payment headers for each client's calls, made before the timed phase. */
async function paymentsFor(scheme: Scheme, net: Localnet, service: MainnetService, calls: string[][]): Promise<string[][]> {
  const probe = calls[0]![0]!;
  if (scheme === 'exactSolana' || scheme === 'exactSolanaEarly') {
    const payers = await Promise.all(calls.map(() => fundedPayer(net.urls.rpc, 100_000_000)));
    const lists = await Promise.all(payers.map((p, i) => paymentHeaders(service, net, p, calls[i]!.length, probe)));
    return lists.map((l) => l.map((h) => h['PAYMENT-SIGNATURE']!));
  }
  if (scheme === 'exactBase') {
    const keys: EvmHexKey[] = calls.map(() => generateEvmKey());
    for (const key of keys) await net.evm.fundUsdc(evmAddressOfKey(key), 100_000_000n);
    const lists = await Promise.all(keys.map((k, i) => evmPaymentHeaders(service, k, calls[i]!.length, probe)));
    return lists.map((l) => l.map((h) => h['PAYMENT-SIGNATURE']!));
  }
  // Channels open on a cheap route, so that no batch call runs before the timed phase.
  const epoch = `${service.url}/v1/epoch`;
  const [openTerms, batchTerms] = [await channelTermsOf(epoch), await channelTermsOf(`${service.url}${probe}`)];
  const channels = await Promise.all(calls.map((list) => openChannel(net.evm, epoch, openTerms, list.length, { next: batchTerms })));
  return channels.map((c) => [...c.headers]);
}

interface Sweep {
  readonly answered: number;
  readonly mintsAnswered: number;
  readonly wallMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers sent before their Solana payment was confirmed (PAYMENT-RESPONSE extra.settlement `submitted`). */
  readonly earlyAnswered: number;
  /** Median ms of each Server-Timing phase (`handler` holds the RPC reads and the analysis). */
  readonly phases: Record<string, number>;
}

/** The timed sweep: each client's calls one after another; counts the mints that came back with a risk. */
async function timedSweep(baseUrl: string, calls: string[][], headers: string[][]): Promise<Sweep> {
  let mintsAnswered = 0;
  let earlyAnswered = 0;
  const timings: string[] = [];
  const requests = calls.map((list, c) =>
    list.map(
      (path, i): BenchRequest => ({
        send: () => fetch(`${baseUrl}${path}`, { headers: { 'PAYMENT-SIGNATURE': headers[c]![i]! } }),
        ok: (res, body) => {
          timings.push(res.headers.get('server-timing') ?? '');
          if (res.status !== 200) return false;
          if (
            Buffer.from(res.headers.get('payment-response') ?? '', 'base64')
              .toString('utf8')
              .includes('"submitted"')
          )
            earlyAnswered++;
          mintsAnswered += (JSON.parse(body) as { results: { risk?: unknown }[] }).results.filter((r) => r.risk).length;
          return true;
        },
      }),
    ),
  );
  const started = performance.now();
  const run = await drive(requests);
  return {
    answered: run.ok,
    mintsAnswered,
    earlyAnswered,
    wallMs: performance.now() - started,
    p50Ms: run.p50Ms,
    p99Ms: run.p99Ms,
    phases: medianPhases(timings),
  };
}

async function lamportsOf(net: Localnet, address: string): Promise<number> {
  return (await rpcCall<{ value: number }>(net.urls.rpc, 'getBalance', [address, { commitment: 'confirmed' }])).value;
}

async function weiOf(net: Localnet, address: string): Promise<bigint> {
  const res = await fetch(net.urls.evm, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [address, 'latest'] }),
  });
  return BigInt(((await res.json()) as { result: string }).result);
}

/** One scheme's sweep, with its RPC round trips, the child's CPU and what the service paid in fees. */
async function sweepWith(scheme: Scheme, net: Localnet, service: MainnetService, proxy: DelayProxy) {
  const calls = dealCalls(cloneWorldMints(net, MINTS));
  const headers = await paymentsFor(scheme, net, service, calls);
  const feePayer = (await challengeOf(service)).accepts.find((a) => a.network.startsWith('solana:'))!.extra.feePayer!;
  const relayer = evmAddressOfKey(net.evm.relayerKey as EvmHexKey);
  const [lamports, wei, counts, cpu, loadAverage] = [
    await lamportsOf(net, feePayer),
    await weiOf(net, relayer),
    proxy.counts(),
    readProcessCpu(service.pid),
    loadavg(),
  ];
  const ownCpu = process.cpuUsage();
  const sweep = await timedSweep(service.url, calls, headers);
  const used = cpuBetween(cpu, readProcessCpu(service.pid));
  const own = process.cpuUsage(ownCpu);
  const rpc = countsBetween(counts, proxy.counts());
  const callCount = calls.flat().length;
  const price = Number((await challengeOf(service, calls[0]![0]!)).accepts[0]!.amount);
  return {
    loadAverage: loadAverage.map((x) => round(x, 2)),
    calls: callCount,
    answered: sweep.answered,
    earlyAnswered: sweep.earlyAnswered,
    mintsAnswered: sweep.mintsAnswered,
    mintsPerSecond: round(sweep.mintsAnswered / (sweep.wallMs / 1000)),
    seconds: round(sweep.wallMs / 1000, 2),
    callP50Ms: sweep.p50Ms,
    callP99Ms: sweep.p99Ms,
    medianPhasesMs: sweep.phases,
    cost: {
      paidUsdc: (sweep.answered * price) / 1e6,
      serviceSolanaFeesLamports: lamports - (await lamportsOf(net, feePayer)),
      serviceBaseGasWei: String(wei - (await weiOf(net, relayer))),
    },
    rpcRequestsPerCall: round(rpc.requests / callCount, 2),
    rpcCallsByMethod: rpc.calls,
    serviceCpuMsPerCall: round(used.schedUs / callCount / 1000, 2),
    serviceCpuUsPerMint: round(used.schedUs / MINTS),
    // The bench process: the localnet answering the RPC, the proxy and the clients.
    benchProcessCpuMsPerCall: round((own.user + own.system) / callCount / 1000, 2),
  };
}

/** The three sweeps against one service behind the delaying proxy, with their ratios. */
export async function benchSweep(): Promise<Record<string, unknown>> {
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-sweep' });
  const proxy = await startDelayProxy(net.urls.rpc, RPC_DELAY_MS);
  const profile = process.env.SWEEP_CPU_PROFILE_DIR;
  const profiled = profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profile}`] } : {};
  const service = await startMainnetService(net, { rpcUrl: proxy.url, extraArgs: ['--svm-early-ceiling', '0'], ...profiled });
  const early = await startMainnetService(net, { rpcUrl: proxy.url });
  try {
    const results: Record<string, Awaited<ReturnType<typeof sweepWith>>> = {};
    for (const scheme of SCHEMES) results[scheme] = await sweepWith(scheme, net, scheme === 'exactSolanaEarly' ? early : service, proxy);
    const channel = results.channel!;
    return {
      name: 'sweep',
      endpoint: PATH,
      mints: MINTS,
      mintsPerCall: PER_CALL,
      concurrency: CONCURRENCY,
      rpcDelayMs: RPC_DELAY_MS,
      service: 'child process, node dist/server/main.js in mainnet mode; Solana RPC through a 25 ms delaying proxy; localnet in the bench process',
      ...results,
      ratios: {
        channelVsExactBase: round(channel.mintsPerSecond / results.exactBase!.mintsPerSecond, 2),
        channelVsExactSolana: round(channel.mintsPerSecond / results.exactSolana!.mintsPerSecond, 2),
        exactSolanaEarlyVsExactSolana: round(results.exactSolanaEarly!.mintsPerSecond / results.exactSolana!.mintsPerSecond, 2),
      },
      goals: { channelMintsPerSecond: 200, met: channel.mintsPerSecond >= 200 },
    };
  } finally {
    await service.close();
    await early.close();
    await proxy.close();
    await net.close();
  }
}
