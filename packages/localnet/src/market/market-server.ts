/**
 * The localnet's market stand-ins: one loopback HTTP server answering with the public response
 * shapes of the market sources the service calls in production, so the service's clients only
 * change base URLs between localnet and mainnet.
 *
 * | path                                              | real service                 |
 * |---------------------------------------------------|------------------------------|
 * | GET /swap/v1/quote                                | Jupiter Swap API v1          |
 * | GET /api/v2/networks/{network}/trending_pools     | GeckoTerminal API v2         |
 * | GET /api/v2/networks/{network}/new_pools          | GeckoTerminal API v2         |
 * | GET /v2/collections/{symbol}/stats|listings|activities | Magic Eden Solana API v2 |
 * | GET /v2/kamino-market                             | Kamino Lend API              |
 * | GET /kamino-market/{market}/reserves/metrics      | Kamino Lend API              |
 *
 * Quotes and pool prices come from the pools' on-chain reserves (`PoolReader`); pool statistics
 * from the swaps seen on the chain's `transaction` events; NFT and lending data from the committed
 * market fixture (lending USD values priced by the pools). node:http is used on purpose:
 * uWebSockets.js belongs to the service's front end only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutedTransaction, LocalChainEvents } from '../chain/types.ts';
import type { MarketFixture } from './market-fixture.ts';
import { createPoolActivity, type PoolActivity } from './pool-activity.ts';
import { createPriceBook } from './market-prices.ts';
import { reply, writeJson, type JsonReply, type MarketRequest } from './market-http.ts';
import { handleJupiterQuote } from './market-jupiter.ts';
import { handleGeckoPools, type GeckoDeps } from './market-gecko.ts';
import { handleMagicEden, type MagicEdenDeps } from './market-magic-eden.ts';
import { handleKaminoMarkets, handleKaminoReserves } from './market-kamino.ts';
import type { MarketPoolReader } from './market-gecko-pool.ts';

export interface MarketServerConfig {
  /** Pools as on chain; a reader that also implements `mintSupply` gets `fdv_usd` filled in. */
  readonly pools: MarketPoolReader;
  readonly events: LocalChainEvents;
  readonly fixture: MarketFixture;
  readonly host: string;
  /** 0 picks an ephemeral port. */
  readonly port: number;
  /** Clock in unix seconds (optional, wall clock by default): pool windows and NFT sale ages. */
  readonly now?: () => number;
}

export interface MarketServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

interface Deps {
  readonly config: MarketServerConfig;
  readonly gecko: GeckoDeps;
  readonly magicEden: MagicEdenDeps;
}

function decodeSegments(pathname: string): string[] | null {
  try {
    return pathname
      .split('/')
      .filter((s) => s.length > 0)
      .map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
}

function route(deps: Deps, req: MarketRequest): JsonReply {
  const s = req.segments;
  const [a, b, c, d, e] = s;
  if (s.length === 3 && a === 'swap' && b === 'v1' && c === 'quote') return handleJupiterQuote(deps.config.pools, req);
  if (s.length === 5 && a === 'api' && b === 'v2' && c === 'networks' && d !== undefined && (e === 'trending_pools' || e === 'new_pools')) {
    return handleGeckoPools(deps.gecko, d, e, req);
  }
  if (s.length === 4 && a === 'v2' && b === 'collections' && c !== undefined && d !== undefined) {
    return handleMagicEden(deps.magicEden, c, d, req);
  }
  if (s.length === 2 && a === 'v2' && b === 'kamino-market') return handleKaminoMarkets(deps.config.fixture);
  if (s.length === 4 && a === 'kamino-market' && b !== undefined && c === 'reserves' && d === 'metrics') {
    const book = createPriceBook(deps.config.pools.pools());
    return handleKaminoReserves(deps.config.fixture, book, b, req);
  }
  return reply(404, { error: 'not_found', message: `No stand-in at /${s.join('/')}` });
}

function handle(deps: Deps, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET') {
    res.setHeader('allow', 'GET');
    writeJson(res, reply(405, { error: 'method_not_allowed', message: 'Only GET is served' }));
    return;
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  const segments = decodeSegments(url.pathname);
  if (segments === null) {
    writeJson(res, reply(400, { error: 'bad_path', message: 'Path is not valid percent-encoding' }));
    return;
  }
  const nowSec = deps.config.now?.() ?? Date.now() / 1000;
  try {
    writeJson(res, route(deps, { segments, query: url.searchParams, nowSec }));
  } catch (err) {
    // A fault in one answer must not take the stand-in down; the caller sees a 500 like any upstream's.
    writeJson(res, reply(500, { error: 'internal', message: err instanceof Error ? err.message : String(err) }));
  }
}

/**
 * Folds each landed transaction into the pools' activity. Reading the pools reads every vault's
 * balance (most of the block producer's CPU went there); a transaction that touches no vault moves
 * no pool, so it is skipped before that read. The vaults are the world's, fixed when it was built.
 */
function observer(activity: PoolActivity, config: MarketServerConfig): (tx: ExecutedTransaction) => void {
  let vaults: ReadonlySet<string> | null = null;
  return (tx) => {
    try {
      vaults ??= new Set(config.pools.pools().flatMap((pool) => [pool.vaultA, pool.vaultB]));
      const known = vaults;
      if (tx.err !== null || !tx.accountKeys.some((key) => known.has(key))) return;
      activity.observe(tx, config.pools.pools());
    } catch (err) {
      // The chain's emitter must keep delivering to the other surfaces whatever happens here.
      process.emitWarning(`market stand-in could not fold transaction ${tx.signature}: ${String(err)}`);
    }
  };
}

/**
 * Starts the market stand-ins on `host:port`, subscribed to the chain's transactions from now
 * on. `close()` unsubscribes and stops the server.
 */
export async function startMarketServer(config: MarketServerConfig): Promise<MarketServer> {
  const activity = createPoolActivity();
  const tokens = new Map(config.fixture.tokens.map((t) => [t.mint, t]));
  const startedAtSec = config.now?.() ?? Date.now() / 1000;
  const deps: Deps = {
    config,
    gecko: { ctx: { pools: config.pools, tokens }, activity },
    magicEden: { fixture: config.fixture, startedAtSec: Math.floor(startedAtSec) },
  };
  const onTransaction = observer(activity, config);
  config.events.on('transaction', onTransaction);
  const server = createServer((req, res) => handle(deps, req, res));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (err) {
    config.events.off('transaction', onTransaction);
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        config.events.off('transaction', onTransaction);
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
