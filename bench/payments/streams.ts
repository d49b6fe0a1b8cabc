/**
 * Paid streams (docs/streams.md): the latency from the Geyser event to a paying subscriber, with one
 * subscriber and with many, same run. Each subscriber is the client library's `stream('slot')` with
 * a Base channel of its own (a deposit, then a voucher a period, each renew answered by the
 * library); an update's `at` is when the service's router took the slot from its Geyser stream,
 * and its latency is the subscriber's receipt time minus `at` (one machine, one clock).
 * The service is the built one in a child process; the localnet and the subscribers share the
 * bench process, so their turns add to the figure (it errs high). Many is 20: the per-client
 * socket cap of one address (the 1,000 needs subscribers from many addresses, not built).
 *
 *   npm run build && npm run bench -- streams
 */
import { setMaxListeners } from 'node:events';
import { loadavg } from 'node:os';
import { startLocalnet } from '@solana-x402-intel/localnet';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/evm-key-file.ts';
import { createIntelClient } from '../../src/client/intel-client.ts';
import { startMainnetService } from '../harness/mainnet-service.ts';
import { round } from './paid-calls.ts';

/** How long each phase streams, ms (two periods and more: renewals happen inside it). */
const PHASE_MS = 25_000;
const MANY = 20;
const GOALS = { oneP50Ms: 5, manyP99Ms: 50 } as const;

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
    const many = await phase(service.url, fund, MANY);
    return {
      name: 'streams',
      topic: '/v1/stream/slot',
      service: 'child process, node dist/server/main.js in mainnet mode; localnet (400 ms slots) and the subscribers in the bench process',
      phaseSeconds: PHASE_MS / 1000,
      one,
      many,
      goals: { ...GOALS, manyAt: 1000, met: { oneP50: one.p50Ms <= GOALS.oneP50Ms, manyP99At20: many.p99Ms <= GOALS.manyP99Ms } },
    };
  } finally {
    await service.close();
    await net.close();
  }
}
