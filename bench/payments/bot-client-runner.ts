/**
 * One bot's client in a process of its own, for `bot-client`: either the client library as it
 * ships (`solana-x402-intel/client`, the built bundle) or the official wrapper (`@x402/fetch` with
 * the official batch-settlement scheme: each call asked unpaid, its 402 read, the payment signed
 * and the call asked again). Both pay one route through a Base channel from a funded key: the
 * channel's deposit and `warm` calls first, untimed, then `calls` calls one after another, each
 * timed end to end as the bot sees it (the answer's body read whole). Reads its job as JSON on
 * stdin; prints one JSON line: latencies, the service's own time of each paid answer (its
 * Server-Timing `total` and `ledger`), statuses, seconds, and the CPU over the timed calls of this
 * process (all its threads), of the service and of the bench's process (the localnet), the last two
 * read from /proc by pid (null where there is none).
 */
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { createIntelClient } from 'solana-x402-intel/client';
import { evmAccountFromKey, type EvmHexKey } from '../../src/chain/keys/evm-key-file.ts';
import { cpuBetween, type CpuReading, readProcessCpu } from '../harness/process-cpu.ts';

export type BotClientKind = 'library' | 'official';

export interface BotClientJob {
  readonly kind: BotClientKind;
  readonly url: string;
  readonly path: string;
  readonly key: EvmHexKey;
  /** The local stablecoin's address (neither client knows it: allowed explicitly). */
  readonly asset: string;
  readonly warm: number;
  readonly calls: number;
  /** The service's process, whose CPU over the timed calls is read from /proc. */
  readonly servicePid: number;
}

export interface BotClientOutcome {
  readonly latenciesMs: number[];
  /** Each paid answer's Server-Timing `total` and `ledger` (ms; null when absent), in call order. */
  readonly serviceTotalMs: (number | null)[];
  readonly serviceLedgerMs: (number | null)[];
  readonly statuses: Record<string, number>;
  readonly seconds: number;
  /** This process's CPU over the timed calls, µs (process.cpuUsage: all its threads). */
  readonly cpuUs: number;
  /** The service's and the bench process's (localnet's) CPU over the same span, µs (all threads), or null. */
  readonly serviceCpuUs: number | null;
  readonly benchCpuUs: number | null;
}

/** Both deposit once for every call of the run, so no top-up lands in the timed calls. */
const depositCalls = (job: BotClientJob): number => job.warm + job.calls + 1;

/** One paid call: resolves to its status and its Server-Timing header once the body is read. */
type Call = () => Promise<{ status: number; timing: string | null }>;

function libraryCall(job: BotClientJob): { call: Call; close: () => void } {
  const client = createIntelClient({ url: job.url, evmKey: job.key, anyAsset: true, prefer: 'base-channel', depositCalls: depositCalls(job) });
  return {
    call: async () => {
      const r = await client.call(job.path as '/v1/epoch');
      return { status: r.status ?? 0, timing: r.headers['server-timing'] ?? null };
    },
    close: () => client.close(),
  };
}

function officialCall(job: BotClientJob): { call: Call; close: () => void } {
  const client = new x402Client((_version, accepts) => accepts.find((a) => a.scheme === 'batch-settlement')!);
  client.setSpendControls({ allowedAssets: [{ network: 'eip155:8453', asset: job.asset, maxAmountPerPayment: '1000000' }] });
  const depositStrategy = ({ requestAmount }: { requestAmount: string }) => (BigInt(requestAmount) * BigInt(depositCalls(job))).toString();
  client.register('eip155:*', new BatchSettlementEvmScheme(evmAccountFromKey(job.key), { depositStrategy }));
  // Node's global fetch: undici's global agent keeps the connection alive between requests, so the
  // 402 trip and the paid trip of every call reuse one connection, as the library's calls do.
  const pay = wrapFetchWithPayment(fetch, client);
  const url = `${job.url}${job.path}`;
  return {
    call: async () => {
      const res = await pay(url);
      await res.arrayBuffer();
      return { status: res.status, timing: res.headers.get('server-timing') };
    },
    close: () => undefined,
  };
}

/** A phase's milliseconds in a Server-Timing value, null when it is absent. */
function phaseMs(timing: string | null, phase: string): number | null {
  const m = timing === null ? null : new RegExp(`(?:^|,\\s*)${phase};dur=([\\d.]+)`).exec(timing);
  return m ? Number(m[1]) : null;
}

function cpuOf(pid: number): CpuReading | null {
  try {
    return readProcessCpu(pid);
  } catch {
    return null;
  }
}

const spent = (before: CpuReading | null, after: CpuReading | null): number | null => (before && after ? cpuBetween(before, after).schedUs : null);

async function run(job: BotClientJob): Promise<BotClientOutcome> {
  const { call, close } = job.kind === 'library' ? libraryCall(job) : officialCall(job);
  for (let i = 0; i < job.warm; i++) {
    const { status } = await call();
    if (status !== 200) throw new Error(`${job.kind}: warm-up call ${i} answered ${status}`);
  }
  const latenciesMs: number[] = [];
  const timings: (string | null)[] = [];
  const statuses: Record<string, number> = {};
  const service = cpuOf(job.servicePid);
  const bench = cpuOf(process.ppid);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < job.calls; i++) {
    const t0 = performance.now();
    const { status, timing } = await call().catch(() => ({ status: 0, timing: null }));
    latenciesMs.push(performance.now() - t0);
    timings.push(timing);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const serviceCpuUs = spent(service, cpuOf(job.servicePid));
  const benchCpuUs = spent(bench, cpuOf(process.ppid));
  close();
  return {
    latenciesMs,
    serviceTotalMs: timings.map((t) => phaseMs(t, 'total')),
    serviceLedgerMs: timings.map((t) => phaseMs(t, 'ledger')),
    statuses,
    seconds,
    cpuUs: used.user + used.system,
    serviceCpuUs,
    benchCpuUs,
  };
}

let input = '';
process.stdin.setEncoding('utf8').on('data', (d: string) => (input += d));
process.stdin.on('end', () => {
  run(JSON.parse(input) as BotClientJob).then(
    (out) => process.stdout.write(`${JSON.stringify(out)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
});
