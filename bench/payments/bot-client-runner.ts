/**
 * One bot's client in a process of its own, for `bot-client`: either the client library as it
 * ships (`solana-x402-intel/client`, the built bundle) or the official wrapper (`@x402/fetch` with
 * the official batch-settlement scheme: each call asked unpaid, its 402 read, the payment signed
 * and the call asked again). Both pay one route through a Base channel from a funded key: the
 * channel's deposit and `warm` calls first, untimed, then `calls` calls one after another, each
 * timed end to end as the bot sees it (the answer's body read whole). Reads its job as JSON on
 * stdin; prints one JSON line: latencies, statuses, seconds, and the process's own CPU (all its
 * threads) over the timed calls.
 */
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { createIntelClient } from 'solana-x402-intel/client';
import { evmAccountFromKey, type EvmHexKey } from '../../src/chain/keys/evm-key-file.ts';

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
}

export interface BotClientOutcome {
  readonly latenciesMs: number[];
  readonly statuses: Record<string, number>;
  readonly seconds: number;
  readonly cpuUs: number;
}

/** Both deposit once for every call of the run, so no top-up lands in the timed calls. */
const depositCalls = (job: BotClientJob): number => job.warm + job.calls + 1;

/** One paid call: resolves to its status once the body is read. */
type Call = () => Promise<number>;

function libraryCall(job: BotClientJob): { call: Call; close: () => void } {
  const client = createIntelClient({ url: job.url, evmKey: job.key, anyAsset: true, prefer: 'base-channel', depositCalls: depositCalls(job) });
  return { call: async () => (await client.call(job.path as '/v1/epoch')).status ?? 0, close: () => client.close() };
}

function officialCall(job: BotClientJob): { call: Call; close: () => void } {
  const client = new x402Client((_version, accepts) => accepts.find((a) => a.scheme === 'batch-settlement')!);
  client.setSpendControls({ allowedAssets: [{ network: 'eip155:8453', asset: job.asset, maxAmountPerPayment: '1000000' }] });
  const depositStrategy = ({ requestAmount }: { requestAmount: string }) => (BigInt(requestAmount) * BigInt(depositCalls(job))).toString();
  client.register('eip155:*', new BatchSettlementEvmScheme(evmAccountFromKey(job.key), { depositStrategy }));
  const pay = wrapFetchWithPayment(fetch, client);
  const url = `${job.url}${job.path}`;
  return {
    call: async () => {
      const res = await pay(url);
      await res.arrayBuffer();
      return res.status;
    },
    close: () => undefined,
  };
}

async function run(job: BotClientJob): Promise<BotClientOutcome> {
  const { call, close } = job.kind === 'library' ? libraryCall(job) : officialCall(job);
  for (let i = 0; i < job.warm; i++) {
    const status = await call();
    if (status !== 200) throw new Error(`${job.kind}: warm-up call ${i} answered ${status}`);
  }
  const latenciesMs: number[] = [];
  const statuses: Record<string, number> = {};
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < job.calls; i++) {
    const t0 = performance.now();
    const status = await call().catch(() => 0);
    latenciesMs.push(performance.now() - t0);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  close();
  return { latenciesMs, statuses, seconds, cpuUs: used.user + used.system };
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
