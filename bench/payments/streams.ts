/**
 * Paid streams (docs/streams.md): the latency from the Geyser event to a paying subscriber, with one
 * subscriber and with many, same run, and billed against streamed time.
 * - One: the client library's `stream('slot')` on a Base channel of its own (a deposit, then a
 *   voucher a period, each renew answered by the library).
 * - Many (STREAMS_SUBSCRIBERS, default 1,000): `ws` sockets from loopback aliases (20 a client
 *   address, the service's per-client cap), each paying one Solana `exact` window
 *   (STREAMS_WINDOW_PERIODS periods, default 6; a new one at each renew while others still join) and then letting it lapse (stream-fanout.ts).
 * An update's `at` is when the service's router took the slot from its Geyser stream, and its
 * latency is the subscriber's receipt time minus `at` (one machine, one clock). The service is the
 * built one in a child process; the localnet and the subscribers share the bench process, so their
 * turns add to the figure (it errs high).
 *
 *   npm run build && npm run bench -- streams
 *   STREAMS_SUBSCRIBERS=40 STREAMS_WINDOW_PERIODS=3 npm run bench -- streams     (a quick proof)
 */
import { setMaxListeners } from 'node:events';
import { loadavg } from 'node:os';
import { startLocalnet } from '@solana-x402-intel/localnet';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { createIntelClient } from '../../src/client/intel-client.ts';
import { startMainnetService } from '../harness/mainnet-service.ts';
import { round } from './paid-calls.ts';
import { fanoutPhase } from './stream-fanout.ts';

/** How long each phase streams, ms (two periods and more: renewals happen inside it). */
const PHASE_MS = 25_000;
const MANY = Number(process.env.STREAMS_SUBSCRIBERS ?? 1000);
const WINDOW_PERIODS = Number(process.env.STREAMS_WINDOW_PERIODS ?? 6);
const MEASURE_MS = 15_000;
const GOALS = { oneP50Ms: 5, manyP99Ms: 50, streamedWithinBilledMs: 1000 } as const;

const load = (): number[] => loadavg().map((x) => round(x, 2));
const pct = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

async function phase(url: string, fund: (address: string) => Promise<void>, subscribers: number) {
  const latencies: number[] = [];
  const stop = new AbortController();
  // One signal ends every subscriber of the phase.
  setMaxListeners(subscribers + 1, stop.signal);
  const streams = [];
  for (let i = 0; i < subscribers; i++) {
    const evmKey = generateEvmKey();
    await fund(evmAddressOfKey(evmKey));
    const client = createIntelClient({ url, evmKey, anyAsset: true, depositCalls: 20 });
    streams.push(client.stream('slot', { signal: stop.signal, onUpdate: (u) => latencies.push(Date.now() - u.at) }).finally(() => client.close()));
  }
  const before = load();
  await new Promise((r) => setTimeout(r, PHASE_MS));
  stop.abort();
  const results = await Promise.all(streams);
  latencies.sort((a, b) => a - b);
  return {
    subscribers,
    updates: latencies.length,
    p50Ms: round(pct(latencies, 50)),
    p99Ms: round(pct(latencies, 99)),
    maxMs: round(latencies.at(-1) ?? Number.NaN),
    periodsPaid: results.reduce((n, r) => n + r.periods, 0),
    ended: [...new Set(results.map((r) => r.reason))],
    loadAverage: { before, after: load() },
  };
}

export async function benchStreams() {
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-streams' });
  const service = await startMainnetService(net);
  const fund = async (address: string): Promise<void> => void (await net.evm.fundUsdc(address, 10_000_000n));
  try {
    const one = await phase(service.url, fund, 1);
    const before = load();
    const many = await fanoutPhase({ url: service.url, rpcUrl: net.urls.rpc, subscribers: MANY, periods: WINDOW_PERIODS, measureMs: MEASURE_MS });
    const overrun = many.billedVsStreamed.streamedMinusBilledMs;
    return {
      name: 'streams',
      topic: '/v1/stream/slot',
      service: 'child process, node dist/server/main.js in mainnet mode; localnet (400 ms slots) and the subscribers in the bench process',
      phaseSeconds: PHASE_MS / 1000,
      one,
      many: { ...many, loadAverage: { before, after: load() } },
      goals: {
        ...GOALS,
        manyAt: 1000,
        met: {
          oneP50: one.p50Ms <= GOALS.oneP50Ms,
          [`manyP99At${MANY}`]: many.latencyMs.p99 <= GOALS.manyP99Ms,
          streamedWithinBilled: Math.max(Math.abs(overrun.min), Math.abs(overrun.max)) <= GOALS.streamedWithinBilledMs,
        },
      },
    };
  } finally {
    await service.close();
    await net.close();
  }
}
