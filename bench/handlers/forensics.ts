/**
 * Forensics benchmark: the cost of a wallet-scan and a tx-inspect through the group's handlers
 * against the embedded localnet's JSON-RPC (cold: a different wallet or signature each call, so
 * the single-flight cache is bypassed), against the cached answer, and 16 concurrent identical
 * cold wallet-scans against one (single-flight: ratio near 1 means one upstream read is shared).
 * Register in bench/run.ts as `forensics: () => benchForensics()`.
 */
import { createRpcClient, createRpcTransport } from '../../src/chain/solana/rpc-client.ts';
import type { HandlerDeps } from '../../src/intel/handler-group.ts';
import { createForensicsGroup } from '../../src/intel/forensics/forensics-group.ts';
import { startLocalnet } from '@solana-x402-intel/localnet';

const round = (n: number, digits = 2): number => Number(n.toFixed(digits));
const CONCURRENT = 16;

function stats(samples: number[]): { meanMs: number; p50Ms: number; p95Ms: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { meanMs: round(s.reduce((a, b) => a + b, 0) / s.length, 3), p50Ms: round(at(0.5), 3), p95Ms: round(at(0.95), 3) };
}

async function timeEach(items: readonly string[], fn: (item: string) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (const item of items) {
    const t0 = performance.now();
    await fn(item);
    out.push(performance.now() - t0);
  }
  return out;
}

/** Runs on a fresh localnet with the block producer stopped (a quiet chain; the RPC is the cost). */
export async function benchForensics(): Promise<Record<string, unknown>> {
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-forensics' });
  try {
    for (let i = 0; i < 30; i += 1) net.producer.step();
    net.producer.stop();
    const last = net.chain.openSlot();
    while (net.chain.slot('finalized') < last) net.chain.advanceSlot();
    const transport = createRpcTransport({ url: net.urls.rpc });
    const deps = { rpc: createRpcClient(transport), rpcTransport: transport } as unknown as HandlerDeps;
    const fail = () => Promise.reject(new Error('not used'));
    const newGroup = () => createForensicsGroup(deps, { feeBands: fail, tokenIntel: fail }).handlers;
    const signal = new AbortController().signal;
    const wallets = Object.values(net.world.wallets)
      .flat()
      .map((w) => w.address);
    const traders = net.world.traders.map((t) => t.signer.address);
    const addresses = [...wallets, ...traders];
    const sigs = net.producer
      .history()
      .flatMap((s) => s.transactions)
      .filter((t) => t.landed && t.signature)
      .map((t) => t.signature!)
      .slice(0, 200);

    const cold = newGroup();
    await timeEach(addresses.slice(0, 3), (a) => cold['/v1/wallet-scan']!({ address: a }, signal)); // warm-up: JIT, keep-alive
    const walletCold = stats(await timeEach(addresses, (a) => newGroup()['/v1/wallet-scan']!({ address: a }, signal)));
    const walletCached = stats(
      await timeEach(
        Array.from({ length: 200 }, () => addresses[0]!),
        (a) => cold['/v1/wallet-scan']!({ address: a }, signal),
      ),
    );
    const txCold = stats(await timeEach(sigs, (s) => cold['/v1/tx-inspect']!({ sig: s }, signal)));
    const txCached = stats(await timeEach(sigs, (s) => cold['/v1/tx-inspect']!({ sig: s }, signal)));

    const burst = async (shared: boolean) => {
      const samples: number[] = [];
      for (const a of addresses) {
        const g = newGroup();
        const t0 = performance.now();
        await Promise.all(Array.from({ length: shared ? CONCURRENT : 1 }, () => g['/v1/wallet-scan']!({ address: a }, new AbortController().signal)));
        samples.push(performance.now() - t0);
      }
      return stats(samples);
    };
    const one = await burst(false);
    const sixteen = await burst(true);
    return {
      name: 'forensics',
      walletScan: { coldCalls: addresses.length, cold: walletCold, cached: walletCached, coldOverCached: round(walletCold.meanMs / walletCached.meanMs) },
      txInspect: { calls: sigs.length, cold: txCold, cached: txCached, coldOverCached: round(txCold.meanMs / txCached.meanMs) },
      singleFlight: { concurrent: CONCURRENT, one, burst: sixteen, burstOverOne: round(sixteen.meanMs / one.meanMs) },
    };
  } finally {
    await net.close();
  }
}
