/**
 * The trust endpoints (http/routes/trust-routes.ts) and the ledger as a transparency log others can read,
 * mirror and witness: `/checkpoint` and the
 * tiles (http/routes/tlog-routes.ts), the witnessing of each new checkpoint (witness-stack.ts) whose
 * cosigned checkpoint `/checkpoint` then serves, and `/trust/tlog-proof`. The witnessing starts
 * at once, beside the paid path, and stops with close(), before the ledger closes.
 */
import type { Config } from '../config.ts';
import { createTlogProofRoute } from '../http/routes/tlog-proof-route.ts';
import { createTlogRoutes, type TlogRoutes } from '../http/routes/tlog-routes.ts';
import { createTrustRoutes, type TrustRoutesConfig } from '../http/routes/trust-routes.ts';
import type { Route } from '../http/server/route.ts';
import type { WorkerPool } from '../pool/worker-pool.ts';
import type { CheckpointWitnessing } from '../tlog/checkpoint-witnessing.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';
import { createWitnessStack } from './witness-stack.ts';

export interface TlogStackConfig {
  readonly options: Pick<Config, 'logOrigin' | 'publicUrl' | 'serviceName' | 'witnesses' | 'witnessQuorum'>;
  readonly ledger: Ledger;
  readonly identity: { readonly publicKey: string; readonly publicKeyBytes: Uint8Array };
  readonly sign: (message: Uint8Array) => Promise<Uint8Array>;
  readonly pool: Pick<WorkerPool<PoolTasks>, 'runTask'>;
  /** What the trust endpoints publish besides the ledger and the key. */
  readonly trustDocs: Pick<TrustRoutesConfig, 'baseUrl' | 'serviceVersion' | 'methodology'>;
}

export interface TlogStack extends Pick<TlogRoutes, 'noteKey' | 'prefixRoutes'> {
  readonly routes: Route[];
  /** The `witnesses` field of /health (absent without witnesses). */
  readonly status: () => { witnesses?: ReturnType<CheckpointWitnessing['status']> };
  readonly witnessing: CheckpointWitnessing | null;
  close(): void;
}

/** The tlog routes and the witnessing of `config.ledger`. */
export function createTlogStack(config: Readonly<TlogStackConfig>): TlogStack {
  const { options, ledger } = config;
  let witnessing: CheckpointWitnessing | null = null;
  const tlog = createTlogRoutes({
    ledger,
    identity: config.identity,
    sign: config.sign,
    origin: options.logOrigin,
    publicUrl: options.publicUrl,
    serviceName: options.serviceName,
    witnessed: { servedNote: () => witnessing?.servedNote() ?? null },
  });
  witnessing = createWitnessStack({ options, ledger, pool: config.pool, signHead: () => tlog.checkpoints.current() });
  const proofRoute = createTlogProofRoute({ ledger, witnessed: witnessing, signHead: () => tlog.checkpoints.current() });
  const trust = createTrustRoutes({
    ...config.trustDocs,
    ledger,
    identity: config.identity,
    serviceName: options.serviceName,
    sign: config.sign,
    noteKey: tlog.noteKey,
  });
  witnessing?.start();
  return {
    noteKey: tlog.noteKey,
    prefixRoutes: tlog.prefixRoutes,
    routes: [...trust, ...tlog.routes, proofRoute],
    witnessing,
    status: () => (witnessing ? { witnesses: witnessing.status() } : {}),
    close: () => witnessing?.close(),
  };
}
