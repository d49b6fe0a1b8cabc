/**
 * How the paid handlers join the service: each domain (timing, token, forensics, market) builds
 * one group from the shared dependencies, and a handler that needs nothing of a group's shared
 * state is a module of its own (`definePaidHandler`, gathered by `npm run docs` into
 * paid-handler-modules.ts). The service merges them into one map that must serve every catalog
 * path (`PaidHandlers` has no optional member: a forgotten handler is a type error) and refuses to
 * start when it does not (src/service/handler-groups.ts, for code run without the type checker).
 */
import type { PaidPath, ResponseOf } from '../catalog/endpoints.ts';
import type { RpcClient, RpcTransport } from '../chain/solana/rpc-client.ts';
import type { LiveCaches } from '../caches/live-caches.ts';
import type { TaskRunner } from '../pool/worker-pool.ts';
import type { SlippagePoolTasks } from './market/slippage-map.ts';
import type { TimingPoolTasks } from './timing/timing-source.ts';
import type { TokenPoolTasks } from './token/token-analysis.ts';

/** Computes the JSON answer of a paid endpoint from its validated query. */
export type PaidHandler<Answer = unknown> = (query: Readonly<Record<string, unknown>>, signal: AbortSignal) => Promise<Answer>;

/** Handlers of the paths `P`, each answering in its path's response schema. */
export type HandlerMap<P extends PaidPath> = { readonly [K in P]: PaidHandler<ResponseOf<K>> };

/** Every paid path's handler: what the service serves (no path may be missing). */
export type PaidHandlers = HandlerMap<PaidPath>;

/** Handlers by path as the callers read them (a test may give a few): the service gives them its PaidHandlers. */
export type PaidHandlerLookup = Partial<PaidHandlers>;

/** A group's handlers as written: the paths are the object's keys, each handler checked against its path's schema. */
export const handlerMap = <P extends PaidPath>(handlers: HandlerMap<P>): HandlerMap<P> => handlers;

/** A paid handler in a file of its own: its path and how it is built from the shared dependencies. */
export interface PaidHandlerModule<P extends PaidPath> {
  readonly path: P;
  readonly create: (deps: HandlerDeps) => PaidHandler<ResponseOf<P>>;
}

/** Declares a handler module: `export const slotHandler = definePaidHandler('/v1/slot', (deps) => async (query, signal) => ...)`. */
export function definePaidHandler<P extends PaidPath>(path: P, create: (deps: HandlerDeps) => PaidHandler<ResponseOf<P>>): PaidHandlerModule<P> {
  return { path, create };
}

/** Base URLs of the market sources (configured, or the embedded localnet's stand-ins). */
export interface MarketUrls {
  readonly jupiter: string;
  readonly geckoterminal: string;
  readonly magiceden: string;
  readonly lending: string;
}

/** The pool tasks of every handler group. */
export type IntelPoolTasks = TokenPoolTasks & SlippagePoolTasks & TimingPoolTasks;

/** The options of the service configuration that the handler groups read. */
export interface HandlerSettings {
  /** Per-request timeout of the market sources. */
  readonly marketTimeoutMs: number;
  readonly jupiterApiKey: string | null;
  readonly magicedenApiKey: string | null;
}

/** What every handler group may use. */
export interface HandlerDeps {
  readonly settings: HandlerSettings;
  readonly rpc: RpcClient;
  /** For groups that add their own RPC methods (`src/chain/rpc-*-methods.ts`). */
  readonly rpcTransport: RpcTransport;
  /** Runs the pool tasks the groups need (workers/pool-worker.ts serves them). */
  readonly pool: TaskRunner<IntelPoolTasks>;
  readonly market: MarketUrls;
}

/** The suggested priority-fee bands pretrade reports, from the timing group. */
export interface FeeBands {
  readonly unit: 'microLamportsPerComputeUnit';
  readonly suggestedBands: { readonly economy: number; readonly normal: number; readonly fast: number; readonly aggressive: number };
  /** Where the figures came from (e.g. `geyser` or `rpc-fallback`) and how fresh they are. */
  readonly source: string;
  readonly slot: number | null;
}

/**
 * What the service has opened when the groups start: the caches the one Geyser subscription keeps
 * warm. The groups are built before it (their handler map is checked against the catalog before
 * any upstream is asked) and only read it.
 */
export interface GroupStart {
  readonly live: LiveCaches;
}

/** A domain's paid handlers (paths `P`) and their lifecycle. */
export interface HandlerGroup<P extends PaidPath = PaidPath> {
  readonly handlers: HandlerMap<P>;
  /** Warms caches or opens streams before the service listens. */
  start?(opened: GroupStart): Promise<void>;
  close?(): Promise<void> | void;
}
