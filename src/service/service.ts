/**
 * Composition of the HTTP service from a validated Config and its upstreams: identity, the trust
 * side (service/trust-stack.ts), payment terms and the processor (service/payment-stack.ts), the
 * paid handler groups (service/handler-groups.ts), catalog-driven routes, the free daily preview,
 * discovery documents, metrics. `startService` is what main.ts and the integration tests call; it
 * listens and returns the bound URL and a graceful close.
 */
import packageJson from '../../package.json' with { type: 'json' };
import { openLiveCaches } from '../caches/live-caches.ts';
import { createBlockhashCache } from '../chain/solana/blockhash-cache.ts';
import { createRpcClient, createRpcTransport } from '../chain/solana/rpc-client.ts';
import type { Config } from '../config.ts';
import { createAdminServer } from '../operations/admin-server.ts';
import { createFreeRoutes, type Documents } from '../http/routes/free-routes.ts';
import { documentsOf, publicBaseUrl } from './documents.ts';
import { createMcpRoute } from '../http/routes/mcp-route.ts';
import { createPaidRoutes } from '../http/routes/paid-routes.ts';
import { createPreviewRoute } from '../http/routes/preview-route.ts';
import { createProcessMetrics } from '../http/routes/process-metrics.ts';
import { createRequestMetrics } from '../http/routes/request-metrics.ts';
import { createHttpServer } from '../http/server/server.ts';
import { loadWebAssets } from '../storefront/web-assets.ts';
import type { PaidHandlerLookup, PaidHandlers } from '../intel/handler-group.ts';
import type { Upstreams } from './upstreams.ts';
import { METHODOLOGY } from '../intel/methodology.ts';
import type { WorkerPool } from '../pool/worker-pool.ts';
import { createPreviewCaller } from '../preview/preview-caller.ts';
import { createHandlerGroups, handlerSettings } from './handler-groups.ts';
import { startPaymentStack } from './payment-stack.ts';
import { paymentTerms } from './payment-terms-setup.ts';
import { closeWithin, type CloseReport } from './close-within.ts';
import { createServiceAdmission } from './client-limits.ts';
import { openPreviewQuotaOf, openStorage, storageStatus, type Storage } from './storage.ts';
import { createLoopRule } from '../pool/loop-load.ts';
import { createServicePool } from './service-pool.ts';
import { createExtensionStack } from './extension-stack.ts';
import { createStorefrontStack } from './storefront-stack.ts';
import { openTrustStack, paidCallsStopped } from './trust-stack.ts';
import { createTlogStack } from './tlog-stack.ts';
import { createStreamStack, type StreamClock } from './stream-stack.ts';
import { loadOrCreateIdentity, type Identity } from '../receipts/identity.ts';
import type { KillSwitch } from '../operations/kill-switch.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { ExactScheme } from '../x402/types/exact-scheme.ts';
import type { PaymentProcessor } from '../x402/flow/payment-processor.ts';
import type { PaymentTermsConfig } from '../x402/delivery/payment-terms.ts';
import type { PoolTasks } from '../../workers/pool-worker.ts';

/** The service version in /health, OpenAPI and receipts: the package's own (docs/contract.md#versioning). */
export const SERVICE_VERSION: string = packageJson.version;

export type { Upstreams };

/** The upstreams (a function is called once the data dir's state opened: a bad dir is refused before they start), and what a caller replaces or adds. */
export interface ServiceOptions {
  readonly upstreams: Upstreams | (() => Promise<Upstreams>);
  /** Handlers that replace built-in ones, by path. */
  readonly handlers?: PaidHandlerLookup;
  /** Replaces the built-in payment processor (null: no payments accepted). */
  readonly processor?: PaymentProcessor | null;
  /** Exact schemes of other networks, registered beside Solana's. */
  readonly schemes?: readonly ExactScheme[];
  /** The clock of the free preview's daily quota (tests pin it to a time of day); default the wall clock. */
  readonly now?: () => Date;
  /** The paid streams' clock and wheel interval (tests move it; default the wall clock), and the new-pairs source's poll interval (default 10 s). */
  readonly streamClock?: StreamClock;
  readonly newPairsPollMs?: number;
}

/** The listening service, what it was built with, and its graceful close. */
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
  /** Where the payment state and kill switch live (files, or the shared database). */
  readonly storage: Pick<Storage, 'kind' | 'where'>;
  /** Requests of the public listener in flight now (answered asynchronously and not finished). */
  inFlight(): number;
  /** Graceful and bounded: see CloseReport. */
  close(): Promise<CloseReport>;
}

/** Builds the service and listens on config.host:config.port (0 = ephemeral). */
export async function startService(config: Config, options: ServiceOptions): Promise<RunningService> {
  const startedAt = new Date();
  const webAssets = loadWebAssets();
  const identity = loadOrCreateIdentity(config.keypairPath);
  // One rule for what leaves the event loop: the pool's short tasks and the journal's write.
  const loop = createLoopRule();
  const { pool, sign } = createServicePool(config, identity.secretKey.subarray(0, 32), loop.busy);
  let baseUrl = '';
  const extensions = createExtensionStack({ serviceName: config.serviceName, publicKeyBytes: identity.publicKeyBytes, sign, baseUrl: () => baseUrl });
  // Files, or the database shared with other instances: chosen here, once.
  const storage = await openStorage(config, loop.busy);
  const trust = await openTrustStack({
    dataDir: config.dataDir,
    storage,
    serviceName: config.serviceName,
    serviceVersion: SERVICE_VERSION,
    baseUrl: () => baseUrl,
    publicKey: identity.publicKey,
    sign,
  });
  const upstreams = typeof options.upstreams === 'function' ? await options.upstreams() : options.upstreams;
  const terms = paymentTerms(config, identity.publicKey, upstreams);
  const { ledger, killSwitch } = trust;
  const rpcTransport = createRpcTransport({ url: upstreams.rpcUrl, timeoutMs: config.rpcTimeoutMs });
  const rpc = createRpcClient(rpcTransport);
  await upstreams.prepareAccounts?.({ feePayer: identity.publicKey, payTo: terms.svm.payTo });
  const blockhashes = createBlockhashCache({ rpc });
  // Built first: a handler map that does not serve the catalog is refused before any upstream is asked.
  const { groups, handlers: builtIn } = createHandlerGroups({ settings: handlerSettings(config), rpc, rpcTransport, pool, market: upstreams.market });
  // One Geyser subscription keeps the timing caches warm and tells the payments of confirmations.
  const [live] = await Promise.all([
    openLiveCaches({
      rpcTransport,
      geyser: { url: upstreams.geyserUrl, token: upstreams.geyserToken ?? null },
      staleMs: config.geyserStaleMs,
      backoffMaxMs: config.geyserBackoffMaxMs,
      startWaitMs: config.geyserStartWaitMs,
    }),
    blockhashes.refresh(),
  ]);
  await Promise.all(groups.map((g) => g.start?.({ live })));
  const payments = await startPaymentStack({
    options: config,
    upstreams,
    terms,
    rpc,
    signatures: live.signatures,
    pool,
    blockhashes,
    receipts: trust.receipts,
    ledger,
    storage,
    processor: options.processor,
    schemes: options.schemes,
    extensions: extensions.payments,
  });
  const { challenges, processor, channels, feePayer, early } = payments;
  const metrics = createRequestMetrics();
  const processMetrics = createProcessMetrics();
  const handlers: PaidHandlers = { ...builtIn, ...options.handlers };
  let documents: (() => Documents) | null = null;
  const stopped = () => paidCallsStopped(killSwitch, ledger, trust.backlog);
  // The free daily preview (docs/preview.md); its quota survives restarts (<dataDir>/preview, or the shared database).
  const previewQuota = await openPreviewQuotaOf(storage, config, options.now ?? (() => new Date()));
  const preview = createPreviewRoute(createPreviewCaller({ handlers, stopped, busy: pool.busy, quota: previewQuota }));
  const admission = createServiceAdmission(config, options.now);
  const paid = { challenges, handlers, processor, stopped, busy: pool.busy, admission: admission.paid };
  const trustDocs = { baseUrl: () => baseUrl, serviceVersion: SERVICE_VERSION, methodology: METHODOLOGY };
  const tlog = createTlogStack({ options: config, ledger, identity, sign, pool, trustDocs });
  const newPairs = { geckoterminalUrl: upstreams.market.geckoterminal, timeoutMs: config.marketTimeoutMs, pollMs: options.newPairsPollMs };
  const streams = createStreamStack({ ...paid, clock: options.streamClock, baseUrl: () => baseUrl, caches: () => live.caches, newPairs });
  const routes = [
    ...createFreeRoutes({
      serviceName: config.serviceName,
      version: SERVICE_VERSION,
      startedAt,
      metrics: () => metrics.snapshot(),
      process: () => processMetrics.snapshot(),
      documents: () => documents!(),
      supported: () => processor?.supported() ?? { kinds: [], signers: {} },
      statusExtras: () => ({
        mode: config.mode,
        timing: live.status(),
        ...(upstreams.localnet ? { localnet: upstreams.localnet } : {}),
        ...trust.status(),
        ...tlog.status(),
        preview: previewQuota.status(),
        ...(channels ? { channels: channels.claimer.status() } : {}),
        feePayer: feePayer.status(),
        earlyAnswers: early.status(),
        storage: storageStatus(storage),
        streams: streams.status(),
      }),
    }),
    ...tlog.routes,
    ...createPaidRoutes({ baseUrl: () => baseUrl, ...paid }),
    ...extensions.routes,
  ];
  // MCP tools at POST /mcp (docs/mcp.md): the paid ones through the same processor as the paid routes.
  const mcp = createMcpRoute({
    serviceName: config.serviceName,
    version: SERVICE_VERSION,
    baseUrl: () => baseUrl,
    paid,
    freeRoutes: routes,
    admitCalls: admission.calls,
    sentBytes: admission.sent,
  });
  const storefront = createStorefrontStack({ serviceName: config.serviceName, version: SERVICE_VERSION, assets: webAssets }, ledger);
  const server = createHttpServer({
    ...storefront.serve([...routes, mcp.route], [preview, ...tlog.prefixRoutes]),
    trustedProxies: config.trustedProxies,
    feedSockets: config.feedSockets,
    streams: streams.server,
    admit: admission.door,
    meter: admission,
    onResponse: (status, ms) => metrics.record(status, ms),
  });
  storefront.start(server);
  streams.attach(server);
  loop.countRequests(() => server.inFlight());
  const port = await server.listen(config.host, config.port);
  baseUrl = publicBaseUrl(config, port);
  await extensions.start(challenges);
  const acceptsFor = (e: { readonly path: string }) => challenges.get(e.path)!.accepts;
  const about = { baseUrl, serviceName: config.serviceName, version: SERVICE_VERSION, updatedAt: startedAt.toISOString(), methodology: METHODOLOGY };
  documents = documentsOf({ ...about, acceptsFor, extensionsFor: extensions.catalogFor }, extensions.offersGeneration);
  const admin = createAdminServer({ port: config.adminPort, token: config.adminToken, dataDir: config.dataDir, killSwitch, channels: channels?.claimer });
  const adminUrl = `http://127.0.0.1:${await admin.listen()}`;
  /** Bounded: the front ends drain (DRAIN_TIMEOUT_MS, then abort), the state files close (nothing appends then), and last the upstreams and the pool (UPSTREAM_CLOSE_MS each). */
  async function close(): Promise<CloseReport> {
    for (const part of [storefront, streams, tlog, processMetrics, extensions]) part.close();
    await Promise.all([server.close(), admin.close()]);
    await Promise.all([previewQuota.close(), mcp.close()]);
    for (const part of [blockhashes, feePayer, early]) part.close();
    await Promise.all([payments.replayGuard.close(), killSwitch.close(), channels?.close()]);
    await trust.backlog.close();
    await ledger.close();
    await storage.close();
    const late = await Promise.all([
      closeWithin('upstream streams', Promise.all([...groups.map((g) => g.close?.()), live.close()])),
      closeWithin('worker pool', pool.close()),
    ]);
    return { unclosed: late.filter((what): what is string => what !== null) };
  }
  const inFlight = () => server.inFlight();
  return { url: baseUrl, port, identity, terms, pool, ledger, killSwitch, adminUrl, adminTokenPath: admin.tokenPath, storage, inFlight, close };
}
