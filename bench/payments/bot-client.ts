/**
 * The bots' client against the official wrapper, same route, same service, same run, one call in
 * flight: the client library (`solana-x402-intel/client`, the built bundle: terms learned once, the
 * payment with the request, vouchers signed natively) and the official `@x402/fetch` wrapper with
 * the official batch-settlement scheme (each call asked unpaid, its 402 read, the payment built and
 * signed, the call asked again). Both pay through a Base channel of their own, each from a process
 * of its own (bot-client-runner.ts), opened and warmed before the timed calls. The rounds alternate
 * library and official, so a change in the machine's load lands on both; the load average is read
 * around each round (the machine is shared).
 *
 *   npm run build && npm run bench -- bot-client
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startLocalnet } from '@solana-x402-intel/localnet';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { runJsonChild } from '../harness/json-child.ts';
import { startMainnetService } from '../harness/mainnet-service.ts';
import type { BotClientJob, BotClientKind, BotClientOutcome } from './bot-client-runner.ts';
import { round, runOf } from './paid-calls.ts';

const RUNNER = fileURLToPath(new URL('./bot-client-runner.ts', import.meta.url));
const PATH = '/v1/epoch';
const ROUNDS = 3;
/** Per round: untimed calls (the JIT, the channel, the connection warm), then timed ones; about 1-2 s of timed calls each. */
const PLAN: Record<BotClientKind, { readonly warm: number; readonly calls: number }> = {
  library: { warm: 150, calls: 400 },
  official: { warm: 40, calls: 120 },
};
/** What each bot's key holds: far above its deposit. */
const FUNDS = 100_000_000n;
/** The goals of issue 42, on this 2-core machine, same run. */
const GOALS = { libraryP50Ms: 2.5, callsPerSecondRatio: 3 } as const;

const load = (): number[] => loadavg().map((x) => round(x, 2));

function runClient(job: BotClientJob): Promise<BotClientOutcome> {
  return runJsonChild<BotClientJob, BotClientOutcome>(RUNNER, job, `${job.kind} client`);
}

/** The figures of every round of one kind together. */
function summary(outcomes: readonly BotClientOutcome[]) {
  const latencies = outcomes.flatMap((o) => o.latenciesMs);
  const ok = outcomes.reduce((n, o) => n + (o.statuses['200'] ?? 0), 0);
  const seconds = outcomes.reduce((s, o) => s + o.seconds, 0);
  const cpuUs = outcomes.reduce((s, o) => s + o.cpuUs, 0);
  const run = runOf([...latencies], ok, seconds);
  return { ...run, failures: run.requests - ok, clientCpuUsPerCall: round(cpuUs / Math.max(1, run.requests)) };
}

export async function benchBotClient(): Promise<Record<string, unknown>> {
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, slotMs: 400, slotsPerEpoch: 432, seed: 'bench-bot-client' });
  const service = await startMainnetService(net);
  try {
    const outcomes: Record<BotClientKind, BotClientOutcome[]> = { library: [], official: [] };
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round_: Record<string, unknown> = { round: r + 1, loadAverageBefore: load() };
      for (const kind of ['library', 'official'] as const) {
        const key = generateEvmKey();
        await net.evm.fundUsdc(evmAddressOfKey(key), FUNDS);
        const outcome = await runClient({ kind, url: service.url, path: PATH, key, asset: net.evm.usdcAddress, ...PLAN[kind] });
        outcomes[kind].push(outcome);
        round_[kind] = { ...runOf([...outcome.latenciesMs], outcome.statuses['200'] ?? 0, outcome.seconds), statuses: outcome.statuses };
      }
      rounds.push({ ...round_, loadAverageAfter: load() });
    }
    const library = summary(outcomes.library);
    const official = summary(outcomes.official);
    const ratios = { callsPerSecond: round(library.perSecond / official.perSecond, 2), p50: round(official.p50Ms / library.p50Ms, 2) };
    return {
      name: 'bot-client',
      endpoint: PATH,
      service:
        'child process, node dist/server/main.js in mainnet mode; localnet (Solana LiteSVM, 400 ms slots; local EVM, automine) in the bench process; each client a process of its own',
      oneInFlight: true,
      library,
      official,
      ratios,
      rounds,
      goals: { ...GOALS, met: { libraryP50: library.p50Ms <= GOALS.libraryP50Ms, callsPerSecondRatio: ratios.callsPerSecond >= GOALS.callsPerSecondRatio } },
    };
  } finally {
    await service.close();
    await net.close();
  }
}
