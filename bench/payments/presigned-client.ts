/**
 * The client of pre-signed paid calls, run as a process of its own: each list of payment headers
 * goes over one keep-alive connection, one request after another in the list's order (a channel's
 * vouchers must arrive in order), all lists at once. It reads its job as JSON on stdin and prints
 * one JSON line: statuses, latencies, each answer's Server-Timing, and its own CPU.
 *
 * Why not `fetch` in the bench's process: undici's fetch spent about 1.7 ms of CPU per call there,
 * as much as the service, on a 2-core machine where every client microsecond is taken from the
 * service. `node:http` (the `node-http` transport) still spent 435-644 µs a call, more than the
 * service's main thread per call at 32 in flight; the `raw` transport (the default: requests built
 * before the clock starts, answers framed by Content-Length, as wrk does) spends a few tens, so the
 * figure is the service's. docs/benchmarks.md has both, side by side in one run.
 */
import { Agent, request } from 'node:http';
import { createRawHttpConnection, rawGet } from './raw-http-connection.ts';

/** The job on stdin. */
export interface PresignedJob {
  readonly url: string;
  /** Per connection, the PAYMENT-SIGNATURE headers in the order they are sent. */
  readonly lists: readonly (readonly string[])[];
  /** `raw` (the default) or `node-http`: see the header. */
  readonly transport?: 'raw' | 'node-http';
}

/** The one line on stdout. */
export interface PresignedOutcome {
  readonly seconds: number;
  readonly statuses: Record<string, number>;
  readonly latenciesMs: number[];
  readonly serverTimings: string[];
  readonly clientCpuUs: number;
}

function send(agent: Agent, target: URL, header: string): Promise<{ status: number; timing: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, headers: { 'PAYMENT-SIGNATURE': header } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, timing: String(res.headers['server-timing'] ?? '') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

type Sender = (index: number) => Promise<{ status: number; timing: string }>;

/** Per list, a function sending its i-th request, and how to let go of the connections. */
async function sendersOf(job: PresignedJob, target: URL): Promise<{ senders: Sender[]; close(): void }> {
  if (job.transport === 'node-http') {
    const agent = new Agent({ keepAlive: true, maxSockets: job.lists.length });
    return { senders: job.lists.map((list) => (i: number) => send(agent, target, list[i]!)), close: () => agent.destroy() };
  }
  const connections = await Promise.all(job.lists.map(() => createRawHttpConnection(target)));
  const requests = job.lists.map((list) => list.map((header) => rawGet(target, header)));
  return {
    senders: connections.map((c, n) => (i: number) => c.send(requests[n]![i]!)),
    close: () => {
      for (const c of connections) c.close();
    },
  };
}

async function run(job: PresignedJob): Promise<PresignedOutcome> {
  const target = new URL(job.url);
  const { senders, close } = await sendersOf(job, target);
  const statuses: Record<string, number> = {};
  const latenciesMs: number[] = [];
  const serverTimings: string[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    job.lists.map(async (list, n) => {
      for (let i = 0; i < list.length; i++) {
        const t0 = performance.now();
        const { status, timing } = await senders[n]!(i).catch(() => ({ status: 0, timing: '' }));
        latenciesMs.push(performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
        serverTimings.push(timing);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  close();
  return { seconds, statuses, latenciesMs, serverTimings, clientCpuUs: used.user + used.system };
}

let input = '';
process.stdin.setEncoding('utf8').on('data', (d: string) => (input += d));
process.stdin.on('end', () => {
  run(JSON.parse(input) as PresignedJob).then(
    (out) => process.stdout.write(`${JSON.stringify(out)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
});
