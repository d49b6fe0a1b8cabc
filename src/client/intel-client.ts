/**
 * `createIntelClient`: the bots' own client of the service. It learns each route's terms once
 * (the discovery document, or a route's first 402) and sends the payment with the request, so a
 * paid call is one round trip. With an EVM key it pays through a Base payment channel by default
 * (one deposit, then a voucher signed in native code per call); with a Solana keypair, `exact` on
 * Solana; `prefer` picks and orders the lanes. Spend limits are checked before anything is signed.
 */
import type { PaidPath } from '../catalog/endpoints.ts';
import { evmAccountFromKey, type EvmHexKey } from '../chain/keys/evm-key-file.ts';
import type { KeyPairSigner } from '../chain/keys/solana-keypair-file.ts';
import type { CallResult } from './call-result.ts';
import { type ClientChannelStorage, createChannelLane } from './channel-lane.ts';
import { createClientHttp } from './client-http.ts';
import { createBaseExactLane, createSolanaExactLane, SOLANA_MAINNET_RPC_URL } from './exact-lanes.ts';
import { type CallOptions, createPaidCaller } from './paid-call.ts';
import { createStreamer, type StreamOptions, type StreamResult } from './stream-reconnect.ts';
import { LANES, type LaneName, type PaymentLane } from './payment-lane.ts';
import { createReceiptKeeper, type ReceiptOptions } from './receipt-keeper.ts';
import { createTermsBook } from './route-terms.ts';
import { createSpendLedger, type SpendLimit, type SpendTotals } from './spend-limits.ts';

/** Deadline of one request, ms: a Solana payment the service waits to confirm takes a second or so; an unlucky one up to its settle timeout. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Sends of the identical payment after the first, when its answer was lost or the service said "not yet". */
export const DEFAULT_RETRIES = 3;

export interface IntelClientConfig {
  /** The service's base URL: `https://intel.example`, `http://127.0.0.1:8402`, or one with a path prefix. */
  readonly url: string;
  /** A 0x hex secp256k1 key: pays on Base (through a channel by default, or `exact`). */
  readonly evmKey?: EvmHexKey;
  /** A Solana signer (`@solana/kit` KeyPairSigner; `readSolanaKeypairFile` reads a solana-keygen file): pays `exact` on Solana. */
  readonly svmKeypair?: KeyPairSigner;
  /** The lanes to pay on, in order (default: base-channel with an EVM key, then solana-exact, then base-exact). */
  readonly prefer?: LaneName | readonly LaneName[];
  readonly spendLimit?: SpendLimit;
  /** Solana RPC the payer's blockhash and the mint are read from (default: public mainnet). */
  readonly svmRpcUrl?: string;
  /** Base RPC the channel is read from when the client's state is lost or corrected (default: none). */
  readonly evmRpcUrl?: string;
  /** Where channel state is kept (default: memory). */
  readonly channelStorage?: ClientChannelStorage;
  /** A channel deposit's size in calls of the route it is made on (default: what the service asks, 100 calls), within `spendLimit.depositUnits`. */
  readonly depositCalls?: number;
  /** Pay in any asset the service names, not only the USDC the x402 schemes know (a local chain's stablecoin). */
  readonly anyAsset?: boolean;
  readonly receipts?: ReceiptOptions;
  readonly timeoutMs?: number;
  readonly retries?: number;
  /** Which lanes send the payment-identifier extension by default (default: the `exact` lanes; a channel voucher is its own idempotency key). */
  readonly paymentIds?: 'exact' | 'always' | 'never';
}

/** The query of a call: parameter names to values (sent in this order). */
export type Query = Readonly<Record<string, string | number | boolean>>;

export interface IntelClient {
  /** One paid call of `path` with `query`; resolves to the typed answer, the service's refusal, or a refusal here. */
  call<P extends PaidPath>(path: P, query?: Query, options?: CallOptions): Promise<CallResult<P>>;
  /** A paid live stream of `topic` (docs/streams.md): pays each period, answers every renew, resolves when it ends. */
  stream(topic: string, options?: StreamOptions): Promise<StreamResult>;
  /** The lanes this client pays on, in order. */
  readonly lanes: readonly LaneName[];
  /** What it has been charged, deposited and holds in flight, units. */
  totals(): SpendTotals;
  /** Closes its kept connections. */
  close(): void;
}

function laneOrder(config: IntelClientConfig): LaneName[] {
  const given = config.prefer === undefined ? LANES : typeof config.prefer === 'string' ? [config.prefer] : config.prefer;
  for (const name of given)
    if (!(LANES as readonly string[]).includes(name)) throw new TypeError(`prefer: unknown lane "${String(name).slice(0, 32)}"; lanes: ${LANES.join(', ')}`);
  return [...new Set(given)].filter((name) => (name === 'solana-exact' ? config.svmKeypair !== undefined : config.evmKey !== undefined));
}

function baseUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError('url must be an http:// or https:// URL');
  if (parsed.username || parsed.password || parsed.search || parsed.hash) throw new TypeError('url is a base URL: no credentials, query or fragment');
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

export function createIntelClient(config: IntelClientConfig): IntelClient {
  const base = baseUrl(config.url);
  const order = laneOrder(config);
  if (order.length === 0) throw new TypeError('give evmKey (Base) or svmKeypair (Solana) for a lane the client may pay on');
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ledger = createSpendLedger(config.spendLimit);
  const anyAsset = config.anyAsset ?? false;
  const http = createClientHttp(base);
  const build: Record<LaneName, () => PaymentLane> = {
    'base-channel': () =>
      createChannelLane({
        key: config.evmKey!,
        ledger,
        anyAsset,
        ...(config.evmRpcUrl ? { evmRpcUrl: config.evmRpcUrl } : {}),
        ...(config.channelStorage ? { storage: config.channelStorage } : {}),
        ...(config.depositCalls === undefined ? {} : { depositCalls: config.depositCalls }),
      }),
    'base-exact': () => createBaseExactLane(evmAccountFromKey(config.evmKey!), anyAsset),
    'solana-exact': () => createSolanaExactLane(config.svmKeypair!, config.svmRpcUrl ?? SOLANA_MAINNET_RPC_URL, anyAsset),
  };
  const lanes = order.map((name) => build[name]());
  const ids = config.paymentIds ?? 'exact';
  const idLanes = new Set<LaneName>(ids === 'never' ? [] : ids === 'always' ? LANES : ['base-exact', 'solana-exact']);
  const call = createPaidCaller({
    http,
    base,
    book: createTermsBook(http, timeoutMs),
    lanes,
    ledger,
    timeoutMs,
    retries: config.retries ?? DEFAULT_RETRIES,
    idLanes,
    receipts: createReceiptKeeper(config.receipts ?? {}, http, timeoutMs),
  });
  const stream = createStreamer({ base, lanes, ledger });
  return { call, stream, lanes: order, totals: () => ledger.totals(), close: () => http.close() };
}
