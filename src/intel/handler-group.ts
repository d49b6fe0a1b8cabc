/**
 * How the paid handlers join the service: each domain (timing, token, forensics, market) builds
 * one group from the shared dependencies; the service merges their handlers by path and starts
 * and closes them with itself. A path no group serves answers 502 with no charge.
 */
import type { RpcClient, RpcTransport } from '../chain/rpc-client.ts';
import type { Config } from '../config.ts';
import type { PaidHandler } from '../http/paid-routes.ts';
import type { WorkerPool } from '../pool/worker-pool.ts';

/** Base URLs of the market sources (configured, or the embedded localnet's stand-ins). */
export interface MarketUrls {
  readonly jupiter: string;
  readonly geckoterminal: string;
  readonly magiceden: string;
  readonly lending: string;
}

/** What every handler group may use. */
export interface HandlerDeps {
  readonly config: Config;
  readonly rpc: RpcClient;
  /** For groups that add their own RPC methods (`src/chain/rpc-*-methods.ts`). */
  readonly rpcTransport: RpcTransport;
  readonly pool: WorkerPool;
  readonly geyser: { readonly url: string; readonly token: string | null };
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

/** A domain's paid handlers and their lifecycle. */
export interface HandlerGroup {
  readonly handlers: Readonly<Partial<Record<string, PaidHandler>>>;
  /** Warms caches or opens streams before the service listens. */
  start?(): Promise<void>;
  close?(): Promise<void> | void;
}
