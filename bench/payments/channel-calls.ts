/**
 * Paid calls through a payment channel (x402 `batch-settlement` on Base) beside `exact` on Solana
 * and on Base, in the same run, at the same concurrencies, against the same service: the built
 * service as a child process in mainnet mode (a core of its own) over a localnet in this process.
 *
 * Each concurrent client pays through a channel of its own (one channel's calls are serialized by
 * design). Its channel is opened by the official client (one deposit call), then its vouchers are
 * signed before the timed phase: the channel figure is the service's (parse, recovery of the
 * voucher signature in the pool, handler, receipt, the charge fsync'd). `exact` payments are
 * built before their timed phase too (paid-calls.ts). Pre-signed calls of both kinds are sent by a
 * client process of its own over keep-alive connections with requests built ahead (presigned-calls.ts,
 * the `raw` transport: a few tens of µs a call); at 1 and 32 in flight the same calls over
 * `node:http` are measured beside it (`channelNodeHttp`), for the figures of earlier rounds. The official client's end-to-end figure
 * (wrapFetchWithPayment: the 402 round trip, signing, the paid request, each part's median as the
 * client saw it: official-channel-calls.ts) is reported apart, and once
 * more against a second service with the per-client free limit at its defaults: the official
 * client asks unpaid first, so its 402s count against the limit, and every call from this one
 * address must still be a 200 (a paid call gives back the token its 402 took).
 *
 *   npm run build && npm run bench -- channel-calls
 *   CHANNEL_CPU_PROFILE_DIR=dir npm run bench -- channel-calls   (the child under --cpu-prof)
 */
import { loadavg } from 'node:os';
import { type Localnet, startLocalnet } from '@solana-x402-intel/localnet';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { recoverVoucherSigner } from '../../src/chain/evm/evm-channel-typed-data.ts';
import { fundedPayer } from '../../test/helpers/svm-payer.ts';
import { channelTermsOf, openChannel } from './channel-vouchers.ts';
import { startMainnetService, type MainnetService } from '../harness/mainnet-service.ts';
import { cpuBetween, readProcessCpu } from '../harness/process-cpu.ts';
import { withCpuBudget } from '../harness/service-cpu.ts';
import { countSyncs } from '../harness/sync-count.ts';
import { evmPaymentHeaders, paymentHeaders, type Run, round } from './paid-calls.ts';
import { drivePresigned, type PresignedRun } from './presigned-calls.ts';
import { medianPhases } from './server-timing.ts';
import { channelGoalsOf } from './channel-goals.ts';
import { officialLevel, officialUnderFreeLimit } from './official-channel-calls.ts';

const PATH = '/v1/epoch';
/**
 * Per level: calls per client through a channel, by the official client end to end, and by `exact`.
 * Each channel level runs for about 5 s: at 50 calls per client, concurrency 32 lasted under 2 s
 * and measured the clients' start and the queues' drain more than the steady rate (920-960 calls/s
 * against 1,400 with 200 per client, same code).
 */
const LEVELS = [
  { concurrency: 1, channel: 400, official: 60, exact: 10, nodeHttp: 400 },
  { concurrency: 8, channel: 300, official: 20, exact: 5, nodeHttp: 0 },
  { concurrency: 32, channel: 200, official: 8, exact: 3, nodeHttp: 100 },
] as const;
/**
 * Untimed voucher calls first, over the level's channels (at least 5 each): the JIT's optimized code,
 * the pool workers and the channel records warm. Five per channel left concurrency 1 timing code
 * V8 had not optimized yet (profiles showed baseline code and inline-cache misses on top).
 */
const WARM_CALLS_PER_LEVEL = 200;
/**
 * Untimed calls before the first level (concurrency 1), which warms the service for every level
 * after it. With 200, V8 was still compiling the paid path through the timed calls (82 functions
 * optimized during the first timed 400 at 1 in flight, `--trace-opt`), and in one repeat on the
 * same service and channel the next 400 calls cost 24% less CPU, the fourth 35% less (a second
 * repeat at load 18 was within its noise): docs/benchmarks.md, issue 40 seventh pass.
 */
const FIRST_LEVEL_WARM_CALLS = 1_200;
const warmCalls = (clients: number, first: boolean): number => Math.max(5, Math.ceil((first ? FIRST_LEVEL_WARM_CALLS : WARM_CALLS_PER_LEVEL) / clients));

const calls = (run: Run) => run.requests;
/** The idle span read after each measured run: the Geyser stream's slots (400 ms) and timers, a few times over. */
const IDLE = { idleMs: 2000 } as const;
/** Calls per level made under strace to count the fsyncs per call, spread over the level's channels. */
const SYNC_COUNT_CALLS = 40;
const summary = (run: Run) => ({ requests: run.requests, failures: run.requests - run.ok, perSecond: run.perSecond, p50Ms: run.p50Ms, p99Ms: run.p99Ms });
const lightSummary = (run: PresignedRun) => ({ ...summary(run), clientCpuUsPerCall: run.clientCpuUsPerCall });

/** The service's commit-journal writes so far (`/health` storage.journal.durableWrites; 0 without a journal). */
async function journalWrites(url: string): Promise<number> {
  const health = (await (await fetch(`${new URL(url).origin}/health`)).json()) as { storage?: { journal?: { durableWrites?: number } } };
  return health.storage?.journal?.durableWrites ?? 0;
}

/** Pre-signed voucher calls, `count` per client, each client on a channel of its own; the child's CPU per call (all threads). */
export async function channelLevel(net: Localnet, url: string, pid: number, clients: number, count: number, first = false) {
  const terms = await channelTermsOf(url);
  const warm = warmCalls(clients, first);
  const traced = Math.max(2, Math.ceil(SYNC_COUNT_CALLS / clients));
  const channels = await Promise.all(Array.from({ length: clients }, () => openChannel(net.evm, url, terms, warm + count + traced)));
  await drivePresigned({ url, lists: channels.map((c) => c.headers.slice(0, warm)) });
  const lists = channels.map((c) => c.headers.slice(warm, warm + count));
  // The all-threads reading around the calls alone, as before the budget (its idle span comes after).
  const timed = async () => {
    const before = readProcessCpu(pid);
    const run = await drivePresigned({ url, lists });
    return { run, cpu: cpuBetween(before, readProcessCpu(pid)) };
  };
  const { result, cpuBudget } = await withCpuBudget(pid, timed, (r) => r.run.requests, IDLE);
  const { run, cpu } = result;
  // Then a batch under strace for the durable writes per call: the fsyncs (sync-count.ts) and the
  // commit journal's writes (opened O_DSYNC, so no fsync of their own: /health counts them). Its
  // time and CPU are not read.
  const journalBefore = await journalWrites(url);
  const counted = await countSyncs(pid, () => drivePresigned({ url, lists: channels.map((c) => c.headers.slice(warm + count)) }));
  const journal = (await journalWrites(url)) - journalBefore;
  const durableSyncsPerCall = counted.syncs === null ? null : round((counted.syncs + journal) / counted.result.requests, 2);
  const perCall = (us: number) => round(us / run.requests);
  const byThread = Object.fromEntries(Object.entries(cpu.threadsUs).map(([name, us]) => [name, perCall(us)]));
  return {
    ...lightSummary(run),
    medianPhasesMs: medianPhases(run.serverTimings),
    serviceCpuUsPerCall: perCall(cpu.schedUs),
    serviceCpuUsPerCallByThread: byThread,
    cpuBudget: { ...cpuBudget, durableSyncsPerCall },
  };
}

/** The channel's calls sent over `node:http` instead (fresh channels, warmed as the level's): the earlier rounds' client. */
async function nodeHttpLevel(net: Localnet, url: string, clients: number, count: number) {
  const terms = await channelTermsOf(url);
  const warm = warmCalls(clients, false);
  const channels = await Promise.all(Array.from({ length: clients }, () => openChannel(net.evm, url, terms, warm + count)));
  await drivePresigned({ url, lists: channels.map((c) => c.headers.slice(0, warm)) });
  const run = await drivePresigned({ url, lists: channels.map((c) => c.headers.slice(warm)), transport: 'node-http' });
  return { ...lightSummary(run), medianPhasesMs: medianPhases(run.serverTimings) };
}

/** Pre-signed calls of `lists` with the service's CPU budget and median phases. */
async function budgeted(service: MainnetService, url: string, lists: readonly (readonly string[])[]) {
  const { result: run, cpuBudget } = await withCpuBudget(service.pid, () => drivePresigned({ url, lists }), calls, IDLE);
  return { ...lightSummary(run), medianPhasesMs: medianPhases(run.serverTimings), cpuBudget };
}

/** `exact` on Solana and on Base, payments built before the timed phase (paid-calls.ts). */
async function exactLevels(net: Localnet, service: MainnetService, url: string, clients: number, count: number) {
  const svmPayers = await Promise.all(Array.from({ length: clients }, () => fundedPayer(net.urls.rpc, 100_000_000)));
  const svmHeaders = await Promise.all(svmPayers.map((p) => paymentHeaders(service, net, p, count, PATH)));
  const header = (h: Record<string, string>) => h['PAYMENT-SIGNATURE']!;
  const solana = await budgeted(
    service,
    url,
    svmHeaders.map((list) => list.map(header)),
  );
  const keys = Array.from({ length: clients }, () => generateEvmKey());
  for (const key of keys) await net.evm.fundUsdc(evmAddressOfKey(key), 100_000_000n);
  const evmHeaders = await Promise.all(keys.map((k) => evmPaymentHeaders(service, k, count, PATH)));
  const base = await budgeted(
    service,
    url,
    evmHeaders.map((list) => list.map(header)),
  );
  return { solana, base };
}

/** CPU of one voucher's check alone (channel id and signer recovery, no pool hop), µs: the pool task's own work. */
async function recoveryUs(net: Localnet, url: string): Promise<number> {
  const terms = await channelTermsOf(url);
  const { payer, headers } = await openChannel(net.evm, url, terms, 1);
  const { payload } = JSON.parse(Buffer.from(headers[0]!, 'base64').toString('utf8'));
  const input = {
    config: payload.channelConfig,
    chainId: 8453,
    channelId: payload.voucher.channelId,
    maxClaimableAmount: payload.voucher.maxClaimableAmount,
    signature: payload.voucher.signature,
  };
  for (let i = 0; i < 20; i++) await recoverVoucherSigner(input);
  const started = process.cpuUsage();
  const n = 200;
  for (let i = 0; i < n; i++) if (!(await recoverVoucherSigner(input)).ok) throw new Error(`voucher of ${payer.address} does not recover`);
  const used = process.cpuUsage(started);
  return round((used.user + used.system) / n);
}

/** Every level: channel, official client, exact on both networks, and the ratios of the level. */
export async function benchChannelCalls(): Promise<Record<string, unknown>> {
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-channel' });
  const profile = process.env.CHANNEL_CPU_PROFILE_DIR;
  const service = await startMainnetService(net, profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profile}`] } : {});
  try {
    const url = `${service.url}${PATH}`;
    const levels = [];
    for (const level of LEVELS) {
      const loadAverage = loadavg().map((x) => round(x, 2));
      const channel = await channelLevel(net, url, service.pid, level.concurrency, level.channel, levels.length === 0);
      const channelNodeHttp = level.nodeHttp > 0 ? await nodeHttpLevel(net, url, level.concurrency, level.nodeHttp) : null;
      const official = await officialLevel(net, url, level.concurrency, level.official, service.pid);
      const exact = await exactLevels(net, service, url, level.concurrency, level.exact);
      levels.push({
        concurrency: level.concurrency,
        loadAverage,
        channel,
        channelNodeHttp,
        officialClient: official,
        exactSolana: exact.solana,
        exactBase: exact.base,
        ratios: {
          channelVsExactBase: round(channel.perSecond / exact.base.perSecond, 1),
          channelVsExactSolana: round(channel.perSecond / exact.solana.perSecond, 1),
          officialVsExactBase: round(official.perSecond / exact.base.perSecond, 1),
        },
      });
    }
    const channelPeak = Math.max(...levels.map((l) => l.channel.perSecond));
    const exactBasePeak = Math.max(...levels.map((l) => l.exactBase.perSecond));
    const peak = { channelPerSecond: channelPeak, exactBasePerSecond: exactBasePeak, ratio: round(channelPeak / exactBasePeak, 1) };
    const voucherCheckUs = await recoveryUs(net, url);
    const officialClientFreeLimitOn = await officialUnderFreeLimit(net, PATH);
    return {
      name: 'channel-calls',
      endpoint: PATH,
      service: 'child process, node dist/server/main.js in mainnet mode; localnet (Solana LiteSVM, 400 ms slots; local EVM, automine) in the bench process',
      levels,
      voucherCheckCpuUs: voucherCheckUs,
      officialClientFreeLimitOn,
      goals: channelGoalsOf(levels, peak),
    };
  } finally {
    await service.close();
    await net.close();
  }
}
