/**
 * The figures of the HTTP challenge benchmark (http-challenge.ts) as ratios measured in the same
 * run: each unpaid path against the bare uWS hello-world (the ceiling) and against the official
 * `@x402/express` middleware (the reference), per round and as a spread over the rounds, with the
 * goals of issue 40 (issue 16's were 0.7x and 10x, before the 402 carried Bazaar and offers). Pure: the suite's report reads the same shapes.
 */
import type { LoadResult } from '../harness/load-driver.ts';

/**
 * The targets of one round, in the order they run. `bytes402` and `bytes400` are bare uWS writing
 * exactly our 402 and 400 (hello-server.ts): the ceiling of a path that sends those bytes.
 * `peer402` and `peer400` write the same after reading the peer's address, which every unpaid
 * request of ours must (the free rate limit keys on it): the ceiling of our unpaid paths.
 * The hello-world runs right before our 402 and 400, the pair the goal compares: first in the
 * round, four runs (15-20 s) lay between them, and on a shared machine the load moves in that time.
 */
export const TARGETS = ['bytes402', 'bytes400', 'peer402', 'peer400', 'hello', 'challenge402', 'invalid400', 'reference402', 'health'] as const;
export type Target = (typeof TARGETS)[number];

/** Goals of issue 40: each unpaid path at least this fraction of hello-world... */
export const GOAL_VS_HELLO = 0.6;
/** ...and at least this many times the reference middleware. */
export const GOAL_VS_REFERENCE = 20;

export type Measured = LoadResult & {
  /** CPU time of the serving process per request (all its threads), µs: robust to a loaded machine. */
  readonly cpuUsPerRequest: number | null;
  /** The same by thread name (`main`, the pool's workers, libuv's, V8's), from their scheduler times. */
  readonly cpuUsPerRequestByThread?: Readonly<Record<string, number>>;
  readonly statuses?: Record<string, number>;
  readonly blockhash?: string;
};

/** One connection count of a round: requests per second and CPU per request of each target run. */
export interface SweepPoint {
  readonly connections: number;
  readonly rps: Partial<Record<Target, number>>;
  readonly cpuUsPerRequest: Partial<Record<Target, number | null>>;
}

/** The ratios against the ceilings: what the replies' bytes allow, and what ours reach of it. */
export const CEILING_KEYS = [
  'bytes402VsHello',
  'bytes400VsHello',
  'challenge402VsBytes',
  'invalid400VsBytes',
  'peer402VsHello',
  'peer400VsHello',
  'challenge402VsPeer',
  'invalid400VsPeer',
] as const;
export const RATIO_KEYS = ['challenge402VsHello', 'invalid400VsHello', 'challenge402VsReference', 'invalid400VsReference', ...CEILING_KEYS] as const;
export type RatioKey = (typeof RATIO_KEYS)[number];

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Smallest, median (lower middle) and largest of `xs`. */
export function spread(xs: readonly number[]): { min: number; median: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor((s.length - 1) / 2)]!, max: s[s.length - 1]! };
}

/** Ratios of one round: each unpaid path to hello-world and to the reference. */
export function roundRatios(r: Partial<Record<Target, Measured>>) {
  const of = (a: Target, b: Target) => (r[a] && r[b] ? round3(r[a].rps / r[b].rps) : null);
  // Requests per CPU second, ours over theirs: the same comparison, independent of other load.
  const cpu = (a: Target, b: Target) => (r[a]?.cpuUsPerRequest && r[b]?.cpuUsPerRequest ? round3(r[b].cpuUsPerRequest / r[a].cpuUsPerRequest) : null);
  return {
    challenge402VsHello: of('challenge402', 'hello'),
    invalid400VsHello: of('invalid400', 'hello'),
    challenge402VsReference: of('challenge402', 'reference402'),
    invalid400VsReference: of('invalid400', 'reference402'),
    // The same-bytes ceiling against hello-world: what the reply's size alone costs; ours against
    // it: what our work costs on top.
    bytes402VsHello: of('bytes402', 'hello'),
    bytes400VsHello: of('bytes400', 'hello'),
    challenge402VsBytes: of('challenge402', 'bytes402'),
    invalid400VsBytes: of('invalid400', 'bytes400'),
    // The same bytes after reading the peer's address: the most a rate-limited path can reach.
    peer402VsHello: of('peer402', 'hello'),
    peer400VsHello: of('peer400', 'hello'),
    challenge402VsPeer: of('challenge402', 'peer402'),
    invalid400VsPeer: of('invalid400', 'peer400'),
    cpu: {
      challenge402VsHello: cpu('challenge402', 'hello'),
      invalid400VsHello: cpu('invalid400', 'hello'),
      challenge402VsReference: cpu('challenge402', 'reference402'),
      invalid400VsReference: cpu('invalid400', 'reference402'),
      bytes402VsHello: cpu('bytes402', 'hello'),
      bytes400VsHello: cpu('bytes400', 'hello'),
      challenge402VsBytes: cpu('challenge402', 'bytes402'),
      invalid400VsBytes: cpu('invalid400', 'bytes400'),
      peer402VsHello: cpu('peer402', 'hello'),
      peer400VsHello: cpu('peer400', 'hello'),
      challenge402VsPeer: cpu('challenge402', 'peer402'),
      invalid400VsPeer: cpu('invalid400', 'peer400'),
    },
  };
}

export type RoundRatios = ReturnType<typeof roundRatios>;

/** The spread of each ratio over the rounds, and whether each goal held in every round. */
export function ratioSummary(rounds: ReadonlyArray<{ readonly ratios: RoundRatios }>) {
  const spreads = Object.fromEntries(
    RATIO_KEYS.flatMap((k) => {
      const xs = rounds.map((r) => r.ratios[k]).filter((x): x is number => x !== null);
      return xs.length > 0 ? [[k, spread(xs)]] : [];
    }),
  );
  const met = (k: RatioKey, goal: number) => rounds.length > 0 && rounds.every((r) => r.ratios[k] !== null && r.ratios[k] >= goal);
  return {
    spreads,
    goals: {
      vsHello: GOAL_VS_HELLO,
      vsReference: GOAL_VS_REFERENCE,
      metInEveryRound: {
        challenge402VsHello: met('challenge402VsHello', GOAL_VS_HELLO),
        invalid400VsHello: met('invalid400VsHello', GOAL_VS_HELLO),
        challenge402VsReference: met('challenge402VsReference', GOAL_VS_REFERENCE),
        invalid400VsReference: met('invalid400VsReference', GOAL_VS_REFERENCE),
      },
    },
  };
}
