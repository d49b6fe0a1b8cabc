/**
 * The Solana clients of bench/payments/svm-early.ts, run as a process of their own: each client a funded
 * payer of its own calling one URL through the official x402 client (`wrapFetchWithPayment`: the 402
 * round trip, building and signing the payment, the paid request), one call after another, all
 * clients at once. It reads its job as JSON on stdin and prints one JSON line.
 *
 * Why a process of its own: in the bench's process the clients' signing and HTTP shared one event
 * loop with the localnet, which then answered the service's simulations and sends late, and the
 * bench measured its own saturation (its event loop busy the whole run at 8 clients, the service at
 * a sixth of a core). A bot and its RPC node are not one thread either.
 */
import { officialSvmFetch } from '../../test/helpers/official-svm-client.ts';
import { fundedPayer } from '../../test/helpers/svm-payer.ts';
import { markingFetch } from './client-marks.ts';
import { drive, type Run } from './paid-calls.ts';

/** The job on stdin. */
export interface SvmClientsJob {
  readonly url: string;
  readonly rpcUrl: string;
  readonly stablecoinMint: string;
  readonly clients: number;
  readonly calls: number;
  /**
   * Untimed calls per client first: the JIT, the pool and the payer's first reads warm, and each
   * call confirmed adds to the payer's history (its early answers' allowance grows with it).
   */
  readonly warm: number;
}

/** How long the warm-up's early answers may take to be confirmed (credited) before the timed calls. */
const SETTLE_WAIT_MS = 30_000;

/** Waits until the service holds no early answer unconfirmed: every warm-up call is in its payer's history. */
async function settled(url: string): Promise<void> {
  const deadline = performance.now() + SETTLE_WAIT_MS;
  while (performance.now() < deadline) {
    const health = (await (await fetch(new URL('/health', url))).json()) as { earlyAnswers?: { exposureUnits: number } };
    if (!health.earlyAnswers || health.earlyAnswers.exposureUnits === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The one line on stdout: the run, each answer's headers that matter, each call's request marks, this process's load. */
export interface SvmClientsOutcome {
  readonly run: Run;
  /** Per answer: `PAYMENT-RESPONSE` said the settlement was only submitted (an early answer). */
  readonly early: number;
  readonly serverTimings: string[];
  /** Per call, the `performance.now()` at the start and end of each of its requests, in order. */
  readonly marks: number[][];
  readonly eventLoop: number;
  readonly cpuUs: number;
}

async function main(job: SvmClientsJob): Promise<SvmClientsOutcome> {
  const target = { rpcUrl: job.rpcUrl, stablecoinMint: job.stablecoinMint };
  const payers = await Promise.all(Array.from({ length: job.clients }, () => fundedPayer(job.rpcUrl, 10_000_000)));
  const marks: number[][][] = payers.map(() => []);
  const marking = payers.map((_, i) => markingFetch(marks[i]!));
  const fetchers = payers.map((p, i) => officialSvmFetch(p, target, marking[i]!.base));
  const ok200 = (r: Response) => r.status === 200;
  if (job.warm > 0) {
    await drive(fetchers.map((pay) => Array.from({ length: job.warm }, () => ({ send: () => pay(job.url), ok: ok200 }))));
    await settled(job.url);
  }
  for (const m of marks) m.length = 0;
  const timings: string[][] = payers.map(() => []);
  let early = 0;
  const request = (i: number) => ({
    send: () => {
      marking[i]!.start();
      return fetchers[i]!(job.url);
    },
    ok: (res: Response) => {
      const settled = JSON.parse(Buffer.from(res.headers.get('payment-response') ?? '', 'base64').toString('utf8') || '{}');
      if (settled.extra?.settlement === 'submitted') early++;
      timings[i]!.push(res.headers.get('server-timing') ?? '');
      return res.status === 200;
    },
  });
  const elu = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const run = await drive(fetchers.map((_, i) => Array.from({ length: job.calls }, () => request(i))));
  const used = process.cpuUsage(cpu);
  // Per client in call order, so each call's marks and its answer's timing stay side by side.
  return {
    run,
    early,
    serverTimings: timings.flat(),
    marks: marks.flat(),
    eventLoop: performance.eventLoopUtilization(elu).utilization,
    cpuUs: used.user + used.system,
  };
}

let input = '';
process.stdin.setEncoding('utf8').on('data', (d: string) => (input += d));
process.stdin.on('end', () => {
  main(JSON.parse(input) as SvmClientsJob).then(
    (outcome) => process.stdout.write(`${JSON.stringify(outcome)}\n`),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
});
