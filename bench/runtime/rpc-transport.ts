/**
 * CPU per Solana JSON-RPC request of the service's client (issue 16), four ways in one run
 * against a localnet in its own process (its CPU stays out of this process's):
 * - `fetch+any`: kit's default transport (fetch, request coalescing) with an AbortSignal.timeout
 *   and AbortSignal.any per request, as the client was before;
 * - `fetch+timer`: kit's default transport through the client's `call` (one timer per request);
 * - `http+any`: the keep-alive `node:http` transport (rpc-http-transport.ts) under AbortSignal.any;
 * - `http+timer`: the client as it is, both changes.
 * Each is read with process.cpuUsage around N requests one after another and N at concurrency 8,
 * for getSignatureStatuses (a distinct signature per request, as the settlement's polls) and
 * getLatestBlockhash (identical requests, which kit's coalescing merges when they are concurrent).
 * Variants alternate over ROUNDS rounds; the median round is reported. `RPC_BENCH_REQUESTS=N`.
 */
import { randomBytes } from 'node:crypto';
import { createSolanaRpc, type Rpc, type Signature, type SolanaRpcApi } from '@solana/kit';
import { encodeBase58 } from '../../src/chain/solana/base58.ts';
import { createRpcClient, createRpcTransport, RPC_TIMEOUT_MS, type RpcClient } from '../../src/chain/solana/rpc-client.ts';
import { spawnLocalnet } from '../harness/bench-processes.ts';

const REQUESTS = Number(process.env.RPC_BENCH_REQUESTS ?? 1000);
const WARM_REQUESTS = 200;
const ROUNDS = 5;
const CONCURRENCY = [1, 8] as const;
const SIGNATURES = Array.from({ length: 256 }, () => encodeBase58(randomBytes(64)));
const round = (x: number, digits = 0): number => Number(x.toFixed(digits));
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Method = 'getSignatureStatuses' | 'getLatestBlockhash';
type Request = (method: Method, i: number) => Promise<unknown>;

/** `rpc` as the client called it before: each request under AbortSignal.any([caller, timeout]). */
function withAny(rpc: Rpc<SolanaRpcApi>): Request {
  const caller = new AbortController().signal;
  return (method, i) => {
    const abortSignal = AbortSignal.any([caller, AbortSignal.timeout(RPC_TIMEOUT_MS)]);
    return method === 'getLatestBlockhash'
      ? rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal })
      : rpc.getSignatureStatuses([SIGNATURES[i % SIGNATURES.length] as Signature]).send({ abortSignal });
  };
}

/** The service's client (its `call`: one timer per request) over the given transport. */
function through(client: RpcClient): Request {
  const caller = new AbortController().signal;
  return (method, i) =>
    method === 'getLatestBlockhash' ? client.getLatestBlockhash(caller) : client.getSignatureStatus(SIGNATURES[i % SIGNATURES.length]!, caller);
}

/** CPU µs per request of `count` requests at `concurrency`, and the wall µs per request. */
async function measure(request: Request, method: Method, count: number, concurrency: number): Promise<{ cpuUs: number; wallUs: number }> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await request(method, next++);
    }),
  );
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / count, wallUs: ((performance.now() - started) * 1000) / count };
}

/** Runs the measurement and returns its report. */
export async function benchRpcTransport(): Promise<Record<string, unknown>> {
  const { process: localnet, lines } = await spawnLocalnet();
  try {
    const variants: Record<string, Request> = {
      'fetch+any': withAny(createSolanaRpc(lines.rpc)),
      'fetch+timer': through(createRpcClient(createRpcTransport({ url: lines.rpc }, createSolanaRpc(lines.rpc)))),
      'http+any': withAny(createRpcTransport({ url: lines.rpc }).rpc),
      'http+timer': through(createRpcClient(createRpcTransport({ url: lines.rpc }))),
    };
    for (const request of Object.values(variants)) await measure(request, 'getSignatureStatuses', WARM_REQUESTS, 1);
    const cases = (['getSignatureStatuses', 'getLatestBlockhash'] as const).flatMap((method) => CONCURRENCY.map((concurrency) => ({ method, concurrency })));
    const samples: Record<string, { cpuUs: number[]; wallUs: number[] }> = {};
    for (let r = 0; r < ROUNDS; r++)
      for (const { method, concurrency } of cases)
        for (const [name, request] of Object.entries(variants)) {
          const { cpuUs, wallUs } = await measure(request, method, REQUESTS, concurrency);
          const key = `${method} c${concurrency} ${name}`;
          samples[key] ??= { cpuUs: [], wallUs: [] };
          samples[key].cpuUs.push(cpuUs);
          samples[key].wallUs.push(wallUs);
        }
    const results = Object.entries(samples).map(([key, s]) => ({
      case: key,
      cpuUsPerRequest: round(median(s.cpuUs)),
      wallUsPerRequest: round(median(s.wallUs)),
    }));
    return { name: 'rpc-transport', requests: REQUESTS, rounds: ROUNDS, results };
  } finally {
    await localnet.stop();
  }
}
