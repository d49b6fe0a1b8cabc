/**
 * Market benchmark (issue 8): one `/v1/slippage-map` of 8 sizes against one `/v1/dex-quote`, both
 * through the market group's handlers against the embedded localnet's Jupiter stand-in over HTTP.
 * Every call uses a fresh amount so no answer comes from the quote cache (the sweep's cost is
 * measured, not the cache's). The ratio map/quote shows what the bounded-parallel sweep costs
 * against 8 sequential quotes (ratio 8) and one quote (ratio 1).
 * Register in bench/run.ts as `market: () => benchMarket()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createRpcClient, createRpcTransport } from '../../src/chain/solana/rpc-client.ts';
import { createMarketGroup } from '../../src/intel/market/market-group.ts';
import { localnetUpstreams, startLocalnet } from '@solana-x402-intel/localnet';
import { createWorkerPool } from '../../src/pool/worker-pool.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';

export interface MarketBenchOptions {
  readonly iterations?: number;
}

const WSOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const MULTS = [0.1, 0.5, 1, 2, 5, 10, 50, 100];
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

function stats(samples: number[]): { meanMs: number; p50Ms: number; p95Ms: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { meanMs: round(s.reduce((a, b) => a + b, 0) / s.length), p50Ms: round(at(0.5)), p95Ms: round(at(0.95)) };
}

async function timeEach(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

/** Runs the benchmark on a fresh localnet (block producer on, as in embedded mode). */
export async function benchMarket(options: MarketBenchOptions = {}): Promise<Record<string, unknown>> {
  const iterations = options.iterations ?? 60;
  const dataDir = mkdtempSync(join(tmpdir(), 'market-bench-'));
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-market' });
  const pool = createWorkerPool<PoolTasks>({});
  try {
    const up = localnetUpstreams(net);
    const config = loadConfig({}, ['--data-dir', dataDir]);
    const rpcTransport = createRpcTransport({ url: up.rpcUrl });
    const group = createMarketGroup({
      settings: config,
      rpc: createRpcClient(rpcTransport),
      rpcTransport,
      pool,
      market: up.market,
    });
    const signal = new AbortController().signal;
    const quote = group.handlers['/v1/dex-quote']!;
    const map = group.handlers['/v1/slippage-map']!;
    let amount = 1_000_000_000;
    const sweep = () => map({ inputMint: WSOL, outputMint: USDC, amount: String(amount++), mults: MULTS }, signal);
    // Reference: the same 8 sizes as 8 dex-quotes one after another (what a client without the sweep does).
    const sequential = async () => {
      const base = amount++;
      for (const m of MULTS) await quote({ inputMint: WSOL, outputMint: USDC, amount: String(Math.round(base * m)) }, signal);
    };
    // The three measurements are interleaved per iteration so they share the machine's conditions.
    const phase = async (): Promise<Record<string, unknown>> => {
      const quoteMs: number[] = [];
      const mapMs: number[] = [];
      const seqMs: number[] = [];
      for (let i = 0; i < iterations; i++) {
        quoteMs.push(...(await timeEach(1, () => quote({ inputMint: WSOL, outputMint: USDC, amount: String(amount++) }, signal))));
        mapMs.push(...(await timeEach(1, sweep)));
        seqMs.push(...(await timeEach(1, sequential)));
      }
      const q = stats(quoteMs);
      const m = stats(mapMs);
      const seq = stats(seqMs);
      return {
        dexQuote: q,
        slippageMap: m,
        eightSequentialQuotes: seq,
        ratioMeanMapOverQuote: round(m.meanMs / q.meanMs),
        ratioP50MapOverQuote: round(m.p50Ms / q.p50Ms),
        ratioP50MapOverEightSequential: round(m.p50Ms / seq.p50Ms),
      };
    };
    // Warm-up: worker threads, HTTP keep-alive, JIT.
    await timeEach(10, sweep);
    const producing = await phase();
    // The localnet runs in this process: its block producer shares the event loop with the stand-in
    // and the client. The second phase holds the chain still to show the sweep's own cost.
    net.producer.stop();
    const still = await phase();
    return {
      name: 'market',
      what: 'slippage-map (8 sizes, at most 4 quotes in flight, curve task in the pool) vs one dex-quote, uncached, against the in-process localnet Jupiter stand-in',
      iterations,
      sizes: MULTS.length,
      withBlockProducer: producing,
      chainStill: still,
      poolSize: pool.size,
    };
  } finally {
    await pool.close();
    await net.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
