/**
 * Paid-call benchmark (issue 4): real x402 payments on the embedded localnet against the real
 * service: paid calls per second and p50/p99 latency at several concurrencies, each call a fresh
 * exact-SVM payment (verified in the pool, simulated, answered, co-signed, sent, confirmed at the
 * configured commitment, receipt signed, ledger entry fsync'd). The reference, measured in the
 * same run at the same concurrency, is the unpaid 402 challenge path of the same endpoint.
 *
 * Payments are built before the timed phase (one payer per concurrent client; Solana with the
 * payer builder of the tests, Base with the official @x402/evm client) so the figures are the
 * service's, not the client's signing. Base runs on the local EVM, which mines each transaction
 * at once: its figures are the service's cost without Base's 2 s blocks.
 *
 * The report ends with the CPU per warm paid call of the service alone (`cpu`, paid-call-cpu.ts).
 *
 *   npm run build && npm run bench -- paid-calls
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { type Localnet, localnetUpstreams, startLocalnet } from '@solana-x402-intel/localnet';
import { startService, type RunningService } from '../../src/service/service.ts';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { evmAccountFromKey, evmAddressOfKey, generateEvmKey, type EvmHexKey } from '../../src/chain/keys/evm-key-file.ts';
import { buildPaymentTx, fundedPayer, type TestPayer } from '../../test/helpers/svm-payer.ts';
import { benchPaidCallCpu } from './paid-call-cpu.ts';

/** Concurrent clients per level, and paid calls each client makes. */
const LEVELS: ReadonlyArray<{ readonly concurrency: number; readonly callsPerClient: number }> = [
  { concurrency: 1, callsPerClient: 12 },
  { concurrency: 8, callsPerClient: 6 },
  { concurrency: 20, callsPerClient: 5 },
];
/** Unpaid 402 requests per client for the reference. */
const CHALLENGES_PER_CLIENT = 200;
const PATH = '/v1/epoch';
/**
 * The free limit off: one client's unpaid 402s (the reference, and the challenges the payments are
 * built from) would otherwise meet its default 20/s and be answered 429.
 */
export const FREE_LIMIT_OFF = ['--free-rate-per-second', '0'] as const;
export const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface Run {
  readonly requests: number;
  readonly ok: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Every request's latency in ms, in completion order (kept for the paid calls' distribution plot). */
  readonly latenciesMs?: number[];
}

/** One request of a client, and whether its answer is the expected one. */
export interface BenchRequest {
  readonly send: () => Promise<Response>;
  readonly ok: (res: Response, body: string) => boolean;
}

/** Each client sends its requests one after another; all clients run at once. */
export async function drive(perClient: readonly (readonly BenchRequest[])[], keepLatencies = false): Promise<Run> {
  const latencies: number[] = [];
  let ok = 0;
  const started = performance.now();
  await Promise.all(
    perClient.map(async (requests) => {
      for (const request of requests) {
        const t0 = performance.now();
        const res = await request.send();
        const body = await res.text();
        latencies.push(performance.now() - t0);
        if (request.ok(res, body)) ok += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const inOrder = keepLatencies ? latencies.map((ms) => round(ms)) : null;
  return { ...(inOrder ? { latenciesMs: inOrder } : {}), ...runOf(latencies, ok, seconds) };
}

/** The figures of a run from its latencies (ms, any order; sorted in place), its expected answers and its length. */
export function runOf(latencies: number[], ok: number, seconds: number): Run {
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    ok,
    perSecond: round(latencies.length / seconds),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
  };
}

/** A GET of `url` with `headers` that should answer `status`. */
export const httpGet = (url: string, headers: Record<string, string> | null, status: number): BenchRequest => ({
  send: () => fetch(url, headers ? { headers } : {}),
  ok: (res) => res.status === status,
});

export interface Required {
  readonly accepts: Array<{ network: string; amount: string; payTo: string; extra: Record<string, string> }>;
  readonly resource: unknown;
}

/** A service to pay: the in-process one, or a child process at its base URL. */
export type PaidTarget = Pick<RunningService, 'url'>;

export async function challengeOf(service: PaidTarget, path = PATH): Promise<Required> {
  const challenge = await fetch(`${service.url}${path}`);
  return JSON.parse(Buffer.from(challenge.headers.get('payment-required')!, 'base64').toString('utf8')) as Required;
}

/** Base payment headers (EIP-3009 authorizations signed by the official client), one nonce each. */
export async function evmPaymentHeaders(service: PaidTarget, key: EvmHexKey, count: number, path = PATH): Promise<Record<string, string>[]> {
  const required = await challengeOf(service, path);
  const accepted = required.accepts.find((a) => a.network.startsWith('eip155:'))!;
  const client = new ExactEvmScheme(evmAccountFromKey(key));
  const headers: Record<string, string>[] = [];
  for (let i = 0; i < count; i++) {
    const created = await client.createPaymentPayload(2, accepted as Parameters<typeof client.createPaymentPayload>[1]);
    const payload = { x402Version: 2, accepted, resource: required.resource, payload: created.payload };
    headers.push({ 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(payload)).toString('base64') });
  }
  return headers;
}

/** Payment headers for `count` calls by `payer`, against the route's current terms. */
export async function paymentHeaders(service: PaidTarget, localnet: Localnet, payer: TestPayer, count: number, path = PATH): Promise<Record<string, string>[]> {
  const required = await challengeOf(service, path);
  const accepted = required.accepts.find((a) => a.network.startsWith('solana:'))!;
  const headers: Record<string, string>[] = [];
  for (let i = 0; i < count; i++) {
    const transaction = await buildPaymentTx({
      payer,
      // The service's fee payer, as its challenge names it.
      feePayer: accepted.extra.feePayer!,
      mint: localnet.stablecoinMint,
      payTo: accepted.payTo,
      amount: BigInt(accepted.amount),
      blockhash: accepted.extra.recentBlockhash!,
    });
    const payload = { x402Version: 2, accepted, resource: required.resource, payload: { transaction } };
    headers.push({ 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(payload)).toString('base64') });
  }
  return headers;
}

/** Throughput and latency of paid calls at several concurrencies, against the 402 path. */
async function benchPaidThroughput(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-paid-'));
  const localnet = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-paid' });
  const config = loadConfig({}, ['--port', '0', '--admin-port', '0', '--data-dir', dataDir, ...FREE_LIMIT_OFF]);
  const service = await startService(config, { upstreams: localnetUpstreams(localnet) });
  try {
    const url = `${service.url}${PATH}`;
    const maxClients = Math.max(...LEVELS.map((l) => l.concurrency));
    const payers = await Promise.all(Array.from({ length: maxClients }, () => fundedPayer(localnet.urls.rpc, 100_000_000)));
    const levels = [];
    for (const level of LEVELS) {
      const clients = payers.slice(0, level.concurrency);
      const headers = await Promise.all(clients.map((p) => paymentHeaders(service, localnet, p, level.callsPerClient)));
      const paid = await drive(
        headers.map((list) => list.map((h) => httpGet(url, h, 200))),
        true,
      );
      const challenge402 = await drive(clients.map(() => Array.from({ length: CHALLENGES_PER_CLIENT }, () => httpGet(url, null, 402))));
      levels.push({
        concurrency: level.concurrency,
        paid: { ...paid, failures: paid.requests - paid.ok },
        challenge402,
        paidOverChallengeThroughput: round(paid.perSecond / challenge402.perSecond, 4),
      });
    }
    const evmKeys = Array.from({ length: maxClients }, () => generateEvmKey());
    for (const key of evmKeys) await localnet.evm.fundUsdc(evmAddressOfKey(key), 100_000_000n);
    const baseLevels = [];
    for (const level of LEVELS) {
      const headers = await Promise.all(evmKeys.slice(0, level.concurrency).map((k) => evmPaymentHeaders(service, k, level.callsPerClient)));
      const paid = await drive(
        headers.map((list) => list.map((h) => httpGet(url, h, 200))),
        true,
      );
      baseLevels.push({ concurrency: level.concurrency, paid: { ...paid, failures: paid.requests - paid.ok } });
    }
    return {
      name: 'paid-calls',
      endpoint: PATH,
      poolSize: service.pool.size,
      solana: { network: 'localnet (LiteSVM)', commitment: config.svmCommitment, slotMs: 400, levels },
      base: { network: 'local EVM (EDR, automine: a receipt in one round trip)', settlement: 'own relayer', levels: baseLevels },
    };
  } finally {
    await service.close();
    await localnet.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The paid-call figures, then the CPU per warm paid call of the service alone (paid-call-cpu.ts),
 * measured after the in-process service and localnet above are gone. The suite measures that CPU
 * as a step of its own, so it passes `cpu: false`.
 */
export async function benchPaidCalls(options: { readonly cpu?: boolean } = {}): Promise<Record<string, unknown>> {
  const throughput = await benchPaidThroughput();
  return options.cpu === false ? throughput : { ...throughput, cpu: await benchPaidCallCpu() };
}
