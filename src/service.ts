/**
 * Composition of the HTTP service from a validated Config and its upstreams: identity, payment
 * terms, catalog-driven routes, discovery documents, metrics. `startService` is what main.ts and
 * the integration tests call; it listens and returns the bound URL and a graceful close.
 */
import { join, resolve } from 'node:path';
import packageJson from '../package.json' with { type: 'json' };
import { CATALOG } from './catalog/endpoints.ts';
import { buildLlmsTxt, buildPricingHtml, buildWellKnown, type DiscoveryContext } from './catalog/discovery.ts';
import { buildOpenApi } from './catalog/openapi.ts';
import { createBlockhashCache } from './chain/blockhash-cache.ts';
import { evmAddressOfKey, loadOrCreateEvmKey, readEvmKeyFile } from './chain/evm-key-file.ts';
import { createRpcClient, createRpcTransport } from './chain/rpc-client.ts';
import type { Config } from './config.ts';
import { ConfigError } from './errors.ts';
import { createAdminServer } from './http/admin-server.ts';
import { createFreeRoutes, type Documents } from './http/free-routes.ts';
import { createMcpRoute } from './http/mcp-route.ts';
import { createTrustRoutes } from './http/trust-routes.ts';
import { createPaidRoutes } from './http/paid-routes.ts';
import { createRequestMetrics } from './http/request-metrics.ts';
import { createHttpServer } from './http/server.ts';
import { createForensicsGroup } from './intel/forensics/forensics-group.ts';
import type { HandlerDeps, HandlerGroup, HandlerSettings, MarketUrls, PaidHandlers } from './intel/handler-group.ts';
import { METHODOLOGY } from './intel/methodology.ts';
import { createMarketGroup } from './intel/market/market-group.ts';
import { createTimingGroup, type TimingGroup } from './intel/timing/timing-group.ts';
import { createTokenGroup } from './intel/token/token-group.ts';
import { createWorkerPool, type WorkerPool } from './pool/worker-pool.ts';
import { loadOrCreateIdentity, type Identity } from './trust/identity.ts';
import { createKillSwitch, type KillSwitch } from './trust/kill-switch.ts';
import { createLedger, type Ledger } from './trust/ledger.ts';
import { createReceiptIssuer } from './trust/receipt-issuer.ts';
import { createTrustStatus } from './trust/trust-status.ts';
import type { ExactScheme } from './x402/exact-scheme.ts';
import { createPaymentProcessor, type PaymentProcessor } from './x402/payment-processor.ts';
import { createChallengeBuilder, type PaymentTermsConfig } from './x402/payment-terms.ts';
import { createReplayGuard } from './x402/replay-guard.ts';
import { createSvmExactScheme } from './x402/svm-exact.ts';
import { startEvmExactScheme, type EvmSettlement } from './x402/evm-exact-setup.ts';
import { SOLANA_MAINNET_CAIP2 } from './x402/x402-types.ts';
import type { PoolTasks } from '../workers/pool-worker.ts';

/** The service version in /health, OpenAPI and receipts: the package's own (docs/contract.md#versioning). */
export const SERVICE_VERSION: string = packageJson.version;

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
  readonly evm?: { readonly rpcUrl: string; readonly asset: string; readonly name: string; readonly version: string; readonly relayerKey: `0x${string}` };
  /** Shown in /health in embedded mode only: loopback URLs, no secrets. */
  readonly localnet?: Readonly<Record<string, string>>;
  /**
   * Embedded mode: readies the fee payer (SOL for fees) and payTo (its stablecoin account) on the
   * localnet before the first payment. On mainnet both are the operator's job, so it is absent.
   */
  readonly prepareAccounts?: (accounts: { readonly feePayer: string; readonly payTo: string }) => Promise<void>;
}

export interface ServiceOptions {
  readonly upstreams: Upstreams;
  /** Handlers that replace or add to the built-in ones, by path. */
  readonly handlers?: PaidHandlers;
  /** Replaces the built-in payment processor (null: no payments accepted). */
  readonly processor?: PaymentProcessor | null;
  /** Exact schemes of other networks, registered beside Solana's. */
  readonly schemes?: readonly ExactScheme[];
}

export interface RunningService {
  readonly url: string;
  readonly port: number;
  readonly identity: Identity;
  readonly terms: PaymentTermsConfig;
  /** The one worker pool (receipt signing and other CPU work use it too). */
  readonly pool: WorkerPool<PoolTasks>;
  readonly ledger: Ledger;
  readonly killSwitch: KillSwitch;
  /** Admin listener (kill switch) on 127.0.0.1, and where its bearer token is stored (never the token). */
  readonly adminUrl: string;
  readonly adminTokenPath: string | null;
  close(): Promise<void>;
}

function paymentTerms(config: Config, identity: Identity, upstreams: Upstreams): PaymentTermsConfig {
  const svmAsset = config.svmAsset ?? upstreams.svmAsset;
  if (!svmAsset) throw new ConfigError(['no Solana stablecoin mint: set --svm-asset']);
  const evmPayTo = config.evmPayTo ?? evmAddressOfKey(loadOrCreateEvmKey(resolve(config.dataDir, 'evm-payto.key')));
  const evmAsset = config.evmAsset ?? upstreams.evm?.asset;
  if (!evmAsset) throw new ConfigError(['no Base stablecoin address: set --evm-asset']);
  return {
    svm: { payTo: config.svmPayTo ?? identity.publicKey, asset: svmAsset, feePayer: identity.publicKey },
    evm: { payTo: evmPayTo, asset: evmAsset, name: upstreams.evm?.name ?? config.evmAssetName, version: upstreams.evm?.version ?? config.evmAssetVersion },
  };
}

/** The Base settlement path: a remote facilitator, our own relayer, or the local EVM's relayer. */
function evmSettlement(config: Config, upstreams: Upstreams): EvmSettlement | null {
  if (config.facilitatorUrl) return { kind: 'facilitator', url: config.facilitatorUrl };
  if (config.evmRpcUrl && config.evmRelayerKeyPath) return { kind: 'relayer', rpcUrl: config.evmRpcUrl, relayerKey: readEvmKeyFile(config.evmRelayerKeyPath) };
  if (upstreams.evm) return { kind: 'relayer', rpcUrl: upstreams.evm.rpcUrl, relayerKey: upstreams.evm.relayerKey };
  return null;
}

/** The options the handler groups read, and no others. */
function handlerSettings(config: Config): HandlerSettings {
  return {
    geyserStaleMs: config.geyserStaleMs,
    marketTimeoutMs: config.marketTimeoutMs,
    jupiterApiKey: config.jupiterApiKey,
    magicedenApiKey: config.magicedenApiKey,
  };
}

function renderDocuments(ctx: DiscoveryContext): Documents {
  return {
    wellKnown: JSON.stringify(buildWellKnown(ctx)),
    openApi: JSON.stringify(buildOpenApi(ctx)),
    llmsTxt: buildLlmsTxt(ctx),
    pricingHtml: buildPricingHtml(ctx),
  };
}

/**
 * A paid 200 must leave with its ledger entry on disk: once the ledger cannot write (a failed
 * write or fsync), paid calls stop before anyone pays, as they do under the kill switch.
 */
export function paidCallsStopped(killSwitch: Pick<KillSwitch, 'isActive'>, ledger: Pick<Ledger, 'failure'>): string | null {
  if (killSwitch.isActive()) return 'paid calls are stopped by the operator';
  const failure = ledger.failure();
  return failure === null ? null : `paid calls are stopped: the ledger cannot record entries (${failure}); restart after fixing the disk`;
}

/** The paid handler groups; pretrade borrows token-intel and fee bands from its peers. */
function createHandlerGroups(deps: HandlerDeps): { groups: HandlerGroup[]; timing: TimingGroup } {
  const timing = createTimingGroup(deps);
  const token = createTokenGroup(deps);
  const forensics = createForensicsGroup(deps, { feeBands: (signal) => timing.feeBands(signal), tokenIntel: (mint, signal) => token.tokenIntel(mint, signal) });
  return { groups: [timing, token, forensics, createMarketGroup(deps)], timing };
}

/** Builds the service and listens on config.host:config.port (0 = ephemeral). */
export async function startService(config: Config, options: ServiceOptions): Promise<RunningService> {
  const startedAt = new Date();
  const identity = loadOrCreateIdentity(config.keypairPath);
  const terms = paymentTerms(config, identity, options.upstreams);
  const pool = createWorkerPool<PoolTasks>({ size: config.poolSize, identitySeed: identity.secretKey.subarray(0, 32) });
  const ledger = await createLedger({ dir: join(config.dataDir, 'ledger') });
  if (ledger.openReport.tornTail) console.warn(`ledger: cut a torn tail after a crash (${JSON.stringify(ledger.openReport.tornTail)})`);
  const killSwitch = createKillSwitch({ dataDir: config.dataDir, ledger });
  const sign = (message: Uint8Array) => pool.runTask('signEd25519', { message });
  const receipts = createReceiptIssuer({
    ledger,
    service: config.serviceName,
    serviceVersion: SERVICE_VERSION,
    baseUrl: () => baseUrl,
    publicKey: identity.publicKey,
    sign,
  });
  const trustStatus = createTrustStatus({ ledger, killSwitch });
  const rpcTransport = createRpcTransport({ url: options.upstreams.rpcUrl });
  const rpc = createRpcClient(rpcTransport);
  await options.upstreams.prepareAccounts?.({ feePayer: identity.publicKey, payTo: terms.svm.payTo });
  const blockhashes = createBlockhashCache({ rpc });
  const { groups, timing } = createHandlerGroups({
    settings: handlerSettings(config),
    rpc,
    rpcTransport,
    pool,
    geyser: { url: options.upstreams.geyserUrl, token: options.upstreams.geyserToken ?? null },
    market: options.upstreams.market,
  });
  await Promise.all([blockhashes.refresh(), ...groups.map((g) => g.start?.())]);
  const live = {
    svmExtra: () => {
      const b = blockhashes.current();
      return b ? { recentBlockhash: b.blockhash } : null;
    },
  };
  const challenges = new Map(CATALOG.map((e) => [e.path, createChallengeBuilder(e, terms, live)]));
  const metrics = createRequestMetrics();
  const replayGuard = createReplayGuard({ dir: resolve(config.dataDir, 'replay') });
  const svm = createSvmExactScheme({
    network: SOLANA_MAINNET_CAIP2,
    feePayer: identity.publicKey,
    rpc,
    pool,
    commitment: config.svmCommitment,
    confirmTimeoutMs: config.settleTimeoutMs,
  });
  const settlement = evmSettlement(config, options.upstreams);
  const evm = settlement
    ? [
        await startEvmExactScheme({
          asset: terms.evm.asset,
          name: terms.evm.name,
          version: terms.evm.version,
          settlement,
          settleTimeoutMs: config.settleTimeoutMs,
          // EIP-712 signer recovery is CPU work: it runs in the pool, never on the event loop.
          verifyOffchain: (input, signal) => pool.runTask('verifyEvmExact', input, signal),
        }),
      ]
    : [];
  const processor =
    options.processor !== undefined
      ? options.processor
      : createPaymentProcessor({ schemes: [svm, ...evm, ...(options.schemes ?? [])], replayGuard, receipts, challengeFor: (path) => challenges.get(path)! });
  const handlers: PaidHandlers = Object.assign({}, ...groups.map((g) => g.handlers), options.handlers);
  let baseUrl = '';
  let documents: Documents | null = null;

  const routes = [
    ...createFreeRoutes({
      serviceName: config.serviceName,
      version: SERVICE_VERSION,
      startedAt,
      metrics: () => metrics.snapshot(),
      documents: () => documents!,
      supported: () => processor?.supported() ?? { kinds: [], signers: {} },
      statusExtras: () => ({
        mode: config.mode,
        timing: timing.status(),
        ...(options.upstreams.localnet ? { localnet: options.upstreams.localnet } : {}),
        ...trustStatus(),
      }),
    }),
    ...createTrustRoutes({
      ledger,
      identity,
      baseUrl: () => baseUrl,
      serviceName: config.serviceName,
      serviceVersion: SERVICE_VERSION,
      sign,
      methodology: METHODOLOGY,
    }),
    ...createPaidRoutes({ baseUrl: () => baseUrl, challenges, handlers, processor, stopped: () => paidCallsStopped(killSwitch, ledger) }),
  ];
  // MCP tools at POST /mcp (docs/mcp.md): the paid ones through the same processor as the paid routes.
  const mcp = createMcpRoute({
    serviceName: config.serviceName,
    version: SERVICE_VERSION,
    baseUrl: () => baseUrl,
    paid: { challenges, handlers, processor, stopped: () => paidCallsStopped(killSwitch, ledger) },
    freeRoutes: routes,
  });
  const server = createHttpServer({ routes: [...routes, mcp.route], onResponse: (status, ms) => metrics.record(status, ms) });
  const port = await server.listen(config.host, config.port);
  const urlHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  baseUrl = config.publicUrl ?? `http://${urlHost}:${port}`;
  documents = renderDocuments({
    baseUrl,
    serviceName: config.serviceName,
    version: SERVICE_VERSION,
    updatedAt: startedAt.toISOString(),
    acceptsFor: (e) => challenges.get(e.path)!.accepts,
    methodology: METHODOLOGY,
  });
  const admin = createAdminServer({ port: config.adminPort, token: config.adminToken, dataDir: config.dataDir, killSwitch });
  const adminPort = await admin.listen();
  async function close(): Promise<void> {
    await Promise.all([server.close(), admin.close()]);
    await mcp.close();
    blockhashes.close();
    await Promise.all(groups.map((g) => g.close?.()));
    await replayGuard.close();
    await ledger.close();
    await pool.close();
  }
  return { url: baseUrl, port, identity, terms, pool, ledger, killSwitch, adminUrl: `http://127.0.0.1:${adminPort}`, adminTokenPath: admin.tokenPath, close };
}
