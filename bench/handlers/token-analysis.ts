/**
 * Token analysis benchmark (issue 6), against an embedded localnet (producer stopped):
 * - batch/token-risk of 10 distinct mints vs 10 sequential token-risk calls, each with a cold
 *   cache (a fresh group per run), with the RPC round trips each costs; the ratio is the figure;
 * - holder bucketing of 20 largest accounts, called directly vs through the worker pool (the
 *   pool's hand-off cost against the work it keeps off the event loop).
 * Register in bench/run.ts as `'token-analysis': () => benchTokenAnalysis()`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bench } from 'tinybench';
import { createRpcClient, createRpcTransport } from '../../src/chain/solana/rpc-client.ts';
import { loadConfig } from '../../src/config.ts';
import type { HandlerDeps } from '../../src/intel/handler-group.ts';
import { bucketHolders, type BucketHoldersInput } from '../../src/intel/token/holder-buckets.ts';
import { createTokenGroup } from '../../src/intel/token/token-group.ts';
import { startLocalnet } from '@solana-x402-intel/localnet';
import { createWorkerPool } from '../../src/pool/worker-pool.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';

const BENCH_MINTS = ['USDC', 'BONK', 'JUP', 'WIF', 'flat', 'concentrated', 'burnHolder', 'transferFeeHigh', 'transferHookUpgradeable', 'multiRisk'];
/** Simulated one-way network delay of a remote RPC (the localnet answers over loopback). */
const REMOTE_RPC_DELAY_MS = 25;
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

function summary(bench: Bench, name: string): { meanMs: number; p99Ms: number; opsPerSecond: number; samples: number } {
  const task = bench.getTask(name);
  const r = task?.result;
  if (!r || !('latency' in r)) throw new Error(`bench task ${name} has no result`);
  return { meanMs: round(r.latency.mean, 3), p99Ms: round(r.latency.p99, 3), opsPerSecond: round(r.throughput.mean, 0), samples: r.latency.samplesCount };
}

/** A loopback proxy that holds each request `delayMs` before forwarding: a remote RPC's round trip. */
async function startDelayProxy(target: string, delayMs: number): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: Buffer.concat(chunks) })
          .then(async (r) => {
            res.writeHead(r.status, { 'content-type': 'application/json' });
            res.end(Buffer.from(await r.arrayBuffer()));
          })
          .catch(() => {
            res.writeHead(502);
            res.end();
          });
      }, delayMs);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Counts POSTs to `url` made through global fetch while `run` executes. */
async function countRoundTrips(url: string, run: () => Promise<unknown>): Promise<number> {
  const original = globalThis.fetch;
  let n = 0;
  globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    if (String(input).startsWith(url)) n += 1;
    return original(input, init);
  }) as typeof fetch;
  try {
    await run();
  } finally {
    globalThis.fetch = original;
  }
  return n;
}

export async function benchTokenAnalysis(): Promise<Record<string, unknown>> {
  const net = await startLocalnet({
    host: '127.0.0.1',
    rpcPort: 0,
    geyserPort: 0,
    marketPort: 0,
    slotMs: 400,
    slotsPerEpoch: 64,
    seed: 'bench-token',
    produce: false,
  });
  const pool = createWorkerPool<PoolTasks>({ size: 1 });
  try {
    const depsAt = (url: string): HandlerDeps => {
      const transport = createRpcTransport({ url });
      return {
        settings: loadConfig({}, []),
        rpc: createRpcClient(transport),
        rpcTransport: transport,
        pool,
        market: { jupiter: '', geckoterminal: '', magiceden: '', lending: '' },
      };
    };
    const deps = depsAt(net.urls.rpc);
    const mints = BENCH_MINTS.map((k) => net.world.mints.get(k)!.address);
    const signal = new AbortController().signal;
    const batchAt = (d: HandlerDeps) => () => createTokenGroup(d).handlers['/v1/batch/token-risk']!({ mints }, signal);
    const singlesAt = (d: HandlerDeps) => async () => {
      const g = createTokenGroup(d);
      for (const mint of mints) await g.handlers['/v1/token-risk']!({ mint }, signal);
    };
    const batch = batchAt(deps);
    const singles = singlesAt(deps);
    const proxy = await startDelayProxy(net.urls.rpc, REMOTE_RPC_DELAY_MS);
    const remote = depsAt(proxy.url);
    const rpcBench = new Bench({ time: 3000, warmupTime: 500 });
    rpcBench.add('batch-10', batch).add('10x-single', singles).add('batch-10-remote', batchAt(remote)).add('10x-single-remote', singlesAt(remote));
    await rpcBench.run();
    proxy.close();
    const b = summary(rpcBench, 'batch-10');
    const s = summary(rpcBench, '10x-single');
    const br = summary(rpcBench, 'batch-10-remote');
    const sr = summary(rpcBench, '10x-single-remote');

    const sample = createTokenGroup(deps);
    const flat = net.world.mints.get('flat')!;
    const holders = flat.holders.slice(0, 20).map((h) => ({ address: h.address, amount: h.amount, owner: h.owner, state: h.state }));
    const input: BucketHoldersInput = { supply: flat.supply, decimals: flat.decimals, accounts: holders, mint: flat.address };
    await pool.runTask('bucketHolders', input);
    const bucketBench = new Bench({ time: 2000, warmupTime: 300 });
    bucketBench
      .add('bucket-direct', () => {
        bucketHolders(input);
      })
      .add('bucket-pool', async () => {
        await pool.runTask('bucketHolders', input);
      });
    await bucketBench.run();
    const direct = summary(bucketBench, 'bucket-direct');
    const pooled = summary(bucketBench, 'bucket-pool');
    return {
      mints: BENCH_MINTS,
      batch10: { ...b, rpcRoundTrips: await countRoundTrips(net.urls.rpc, batch) },
      singles10: { ...s, rpcRoundTrips: await countRoundTrips(net.urls.rpc, singles) },
      singlesOverBatchTimeRatio: round(s.meanMs / b.meanMs, 2),
      remoteRpc: { delayMsPerRequest: REMOTE_RPC_DELAY_MS, batch10: br, singles10: sr, singlesOverBatchTimeRatio: round(sr.meanMs / br.meanMs, 2) },
      bucketing20Accounts: { direct, pool: pooled, poolOverDirectRatio: round(pooled.meanMs / direct.meanMs, 1) },
      warmCacheTokenRiskMs: await (async () => {
        await sample.handlers['/v1/token-risk']!({ mint: mints[0] }, signal);
        const t0 = performance.now();
        await sample.handlers['/v1/token-risk']!({ mint: mints[0] }, signal);
        return round(performance.now() - t0, 3);
      })(),
    };
  } finally {
    await pool.close();
    await net.close();
  }
}
