/**
 * Early answers on Solana (docs/payments.md#early-answers) against today's confirmed path and the
 * Base payment channel, in one run: `/v1/tipfloor` ($0.001) paid by the official x402 clients end
 * to end (the 402 round trip, signing, the paid request), at 1, 8 and 32 clients, each client a
 * payer of its own. Two built services run as child processes in mainnet mode over one localnet
 * (400 ms slots) in this process: one with the defaults (early answers on, and the channels), one
 * with `--svm-early-ceiling 0` (every Solana call waits for `confirmed`, as before). A client calling
 * back to back outruns the per-payer cap ($0.01, ten calls not yet confirmed): its calls past the cap
 * wait for confirmation, and the figures include them; `earlyShare` counts the answers that were early.
 *
 *   npm run build && npm run bench -- svm-early
 */
import { loadavg } from 'node:os';
import { type Localnet, startLocalnet } from '@solana-x402-intel/localnet';
import { officialSvmFetch } from '../../test/helpers/official-svm-client.ts';
import { fundedPayer } from '../../test/helpers/svm-payer.ts';
import { medianPhases } from './channel-calls.ts';
import { channelTermsOf, openChannel } from './channel-vouchers.ts';
import { startMainnetService } from '../harness/mainnet-service.ts';
import { drive, round, type Run } from './paid-calls.ts';

const PATH = '/v1/tipfloor';
/** Calls per client at each level; the confirmed path takes about a second a call, so it makes fewer. */
const LEVELS = [
  { concurrency: 1, early: 60, confirmed: 8, channel: 60 },
  { concurrency: 8, early: 20, confirmed: 4, channel: 20 },
  { concurrency: 32, early: 8, confirmed: 2, channel: 8 },
] as const;
/** Untimed calls per client first: the JIT, the pool and the payers' first reads warm. */
const WARM_CALLS = 2;

const summary = (run: Run) => ({ requests: run.requests, failures: run.requests - run.ok, perSecond: run.perSecond, p50Ms: run.p50Ms, p99Ms: run.p99Ms });

/** The official SVM client's calls, `count` per client, each client a funded payer of its own; how many answers were early. */
async function solanaLevel(net: Localnet, url: string, clients: number, count: number) {
  const target = { rpcUrl: net.urls.rpc, stablecoinMint: net.stablecoinMint };
  const payers = await Promise.all(Array.from({ length: clients }, () => fundedPayer(net.urls.rpc, 10_000_000)));
  const fetchers = payers.map((p) => officialSvmFetch(p, target));
  await drive(fetchers.map((pay) => Array.from({ length: WARM_CALLS }, () => ({ send: () => pay(url), ok: (r: Response) => r.status === 200 }))));
  let early = 0;
  const timings: string[] = [];
  const ok = (res: Response) => {
    const settled = JSON.parse(Buffer.from(res.headers.get('payment-response') ?? '', 'base64').toString('utf8') || '{}');
    if (settled.extra?.settlement === 'submitted') early++;
    timings.push(res.headers.get('server-timing') ?? '');
    return res.status === 200;
  };
  const run = await drive(fetchers.map((pay) => Array.from({ length: count }, () => ({ send: () => pay(url), ok }))));
  return { ...summary(run), earlyShare: round(early / run.requests, 2), medianPhasesMs: medianPhases(timings) };
}

/** The official channel client's calls, each client on a channel of its own opened beforehand. */
async function channelLevel(net: Localnet, url: string, clients: number, count: number) {
  const terms = await channelTermsOf(url);
  const payers = await Promise.all(Array.from({ length: clients }, () => openChannel(net.evm, url, terms, WARM_CALLS + count, { presign: false })));
  const ok = (res: Response) => res.status === 200;
  await drive(payers.map(({ payer }) => Array.from({ length: WARM_CALLS }, () => ({ send: () => payer.pay(url), ok }))));
  return summary(await drive(payers.map(({ payer }) => Array.from({ length: count }, () => ({ send: () => payer.pay(url), ok })))));
}

interface Level {
  readonly concurrency: number;
  readonly solanaEarly: Awaited<ReturnType<typeof solanaLevel>>;
  readonly solanaConfirmed: Awaited<ReturnType<typeof solanaLevel>>;
  readonly baseChannel: Awaited<ReturnType<typeof channelLevel>>;
}

/** Runs the three paths at each level; ratios from the same run. */
export async function benchSvmEarly(): Promise<Record<string, unknown>> {
  const loadBefore = loadavg()[0]!;
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-svm-early' });
  const early = await startMainnetService(net);
  const confirmed = await startMainnetService(net, { extraArgs: ['--svm-early-ceiling', '0'] });
  try {
    const levels: Level[] = [];
    for (const level of LEVELS) {
      const n = level.concurrency;
      levels.push({
        concurrency: n,
        solanaEarly: await solanaLevel(net, `${early.url}${PATH}`, n, level.early),
        solanaConfirmed: await solanaLevel(net, `${confirmed.url}${PATH}`, n, level.confirmed),
        baseChannel: await channelLevel(net, `${early.url}${PATH}`, n, level.channel),
      });
    }
    const at = (n: number) => levels.find((l) => l.concurrency === n)!;
    return {
      name: 'svm-early',
      path: PATH,
      slotMs: 400,
      levels,
      ratios: {
        earlyP50VsChannelP50At1: round(at(1).solanaEarly.p50Ms / at(1).baseChannel.p50Ms, 2),
        earlyP50VsConfirmedP50At1: round(at(1).solanaEarly.p50Ms / at(1).solanaConfirmed.p50Ms, 3),
        earlyCallsPerSecondVsConfirmedAt8: round(at(8).solanaEarly.perSecond / at(8).solanaConfirmed.perSecond, 1),
      },
      loadAverage: { start: round(loadBefore, 2), end: round(loadavg()[0]!, 2) },
    };
  } finally {
    await early.close();
    await confirmed.close();
    await net.close();
  }
}
