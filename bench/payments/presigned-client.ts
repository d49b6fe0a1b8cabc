/**
 * The client of pre-signed paid calls, run as a process of its own: each list of payment headers
 * goes over one keep-alive `node:http` connection, one request after another in the list's order
 * (a channel's vouchers must arrive in order), all lists at once. It reads its job as JSON on stdin
 * and prints one JSON line: statuses, latencies, each answer's Server-Timing, and its own CPU.
 *
 * Why not `fetch` in the bench's process: undici's fetch spent about 1.7 ms of CPU per call there,
 * as much as the service, on a 2-core machine where every client microsecond is taken from the
 * service. This client spends a small fraction of that, so the figure is the service's.
 */
import { Agent, request } from 'node:http';

/** The job on stdin. */
export interface PresignedJob {
  readonly url: string;
  /** Per connection, the PAYMENT-SIGNATURE headers in the order they are sent. */
  readonly lists: readonly (readonly string[])[];
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

async function run(job: PresignedJob): Promise<PresignedOutcome> {
  const target = new URL(job.url);
  const agent = new Agent({ keepAlive: true, maxSockets: job.lists.length });
  const statuses: Record<string, number> = {};
  const latenciesMs: number[] = [];
  const serverTimings: string[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    job.lists.map(async (list) => {
      for (const header of list) {
        const t0 = performance.now();
        const { status, timing } = await send(agent, target, header).catch(() => ({ status: 0, timing: '' }));
        latenciesMs.push(performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
        serverTimings.push(timing);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  agent.destroy();
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
