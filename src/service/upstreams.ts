/**
 * What the service reads from outside: the Solana RPC and Geyser stream, the market sources and,
 * in embedded mode, the local EVM. main.ts gives the embedded localnet's or the configured ones.
 */
import type { MarketUrls } from '../intel/handler-group.ts';
import type { EmbeddedEvm } from './payment-terms-setup.ts';

/** What the embedded localnet (or the operator, in mainnet mode) provides. */
export interface Upstreams {
  readonly rpcUrl: string;
  readonly geyserUrl: string;
  readonly geyserToken?: string | null;
  /** Market sources; in mainnet mode the configured URLs. */
  readonly market: MarketUrls;
  /** Stablecoin mint on the Solana side when not configured (the localnet's own). */
  readonly svmAsset?: string;
  /** The embedded local EVM: its RPC, token terms and a funded relayer key (local only). */
  readonly evm?: EmbeddedEvm;
  /** Shown in /health in embedded mode only: loopback URLs, no secrets. */
  readonly localnet?: Readonly<Record<string, string>>;
  /**
   * Embedded mode: readies the fee payer (SOL for fees) and payTo (its stablecoin account) on the
   * localnet before the first payment. On mainnet both are the operator's job, so it is absent.
   */
  readonly prepareAccounts?: (accounts: { readonly feePayer: string; readonly payTo: string }) => Promise<void>;
}
