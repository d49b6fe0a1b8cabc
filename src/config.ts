/**
 * Configuration: every option is a CLI flag and an environment variable (flag wins), validated
 * once at start with every problem reported together. The option table (config-options.ts) is
 * also what `--help` prints and what docs/configuration.md#options is generated from.
 */
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from './errors.ts';
import { checkValue, parseArgv, parseWitnessEntry } from './config-parse.ts';
import { BASE_USDC_ADDRESS, OPTIONS, SOLANA_USDC_MINT } from './config-options.ts';
import type { ShareLimits } from './x402/stores/record-shares.ts';

export { BASE_USDC_ADDRESS, helpText, OPTIONS, SOLANA_USDC_MINT } from './config-options.ts';

export interface Config {
  readonly mode: 'embedded' | 'mainnet';
  readonly host: string;
  readonly port: number;
  readonly publicUrl: string | null;
  readonly serviceName: string;
  /** Origin line and note key name of `/checkpoint`; null: derived (http/routes/tlog-routes.ts defaultLogOrigin). */
  readonly logOrigin: string | null;
  readonly dataDir: string;
  /** PostgreSQL for the shared payment state and kill switch (docs/scaling.md); null: files under dataDir. Secret: never log it. */
  readonly databaseUrl: string | null;
  /** Upstream waits, ms: a database connect or query, a Solana RPC call, a Base RPC request, a facilitator /verify. */
  readonly databaseTimeoutMs: number;
  readonly keypairPath: string;
  readonly rpcUrl: string | null;
  readonly rpcTimeoutMs: number;
  readonly geyserUrl: string | null;
  readonly geyserToken: string | null;
  /** No slot for this long: the Geyser stream is stale (reconnect, RPC fallback). */
  readonly geyserStaleMs: number;
  /** Ceiling of the wait between reconnects of the Geyser stream; how long start waits for its first slot. */
  readonly geyserBackoffMaxMs: number;
  readonly geyserStartWaitMs: number;
  readonly svmPayTo: string | null;
  readonly svmAsset: string | null;
  readonly evmPayTo: string | null;
  /** Null in embedded mode until the local EVM provides its token. */
  readonly evmAsset: string | null;
  readonly evmRpcUrl: string | null;
  readonly evmRpcTimeoutMs: number;
  readonly evmRelayerKeyPath: string | null;
  readonly facilitatorUrl: string | null;
  readonly facilitatorTimeoutMs: number;
  /** Payment channels (batch-settlement on Base); null when not offered. */
  readonly channels: {
    readonly authorizerKeyPath: string | null;
    readonly withdrawDelaySeconds: number;
    readonly minDepositCalls: number;
    readonly claimThresholdUnits: number;
    readonly claimAgeSeconds: number;
    readonly watchSeconds: number;
  } | null;
  readonly evmAssetName: string;
  readonly evmAssetVersion: string;
  readonly jupiterUrl: string;
  readonly geckoterminalUrl: string;
  readonly magicedenUrl: string;
  readonly lendingUrl: string;
  readonly jupiterApiKey: string | null;
  readonly magicedenApiKey: string | null;
  readonly marketTimeoutMs: number;
  readonly poolSize: number | null;
  readonly poolMinThreads: number;
  /** Pool tasks pending at most; beyond it new paid and free work answers 503 busy. */
  readonly poolMaxQueue: number;
  /** WebSocket feed sockets open at once: over all clients, and per client. */
  readonly feedSockets: { readonly max: number; readonly perClient: number };
  /** Cap of distinct clients given a free preview per UTC day. */
  readonly previewClientsPerDay: number;
  /** Token bucket per client on requests without a payment header: refill per second (0: off) and size. */
  readonly freeRatePerSecond: number;
  readonly freeBurst: number;
  readonly freeBytesPerSecond: number;
  readonly freeBytesBurst: number;
  /** Token bucket per client on payments refused for the payment or its request (off with the free limit). */
  readonly failedPaymentRatePerSecond: number;
  readonly failedPaymentBurst: number;
  /** Peers whose X-Forwarded-For names the client. */
  readonly trustedProxies: readonly string[];
  readonly adminPort: number;
  readonly adminToken: string | null;
  readonly svmCommitment: 'confirmed' | 'finalized';
  /** Ceiling of one Solana settlement's priority fee (limit x price), lamports. */
  readonly svmMaxPriorityFee: number;
  readonly settleTimeoutMs: number;
  /** Early answers of cheap Solana payments: the price ceiling, the caps and the day's loss budget (token units), and the bar after a failure. */
  readonly svmEarly: {
    readonly ceilingUnits: number;
    readonly payerCapUnits: number;
    readonly globalCapUnits: number;
    readonly lossBudgetUnits: number;
    readonly barMs: number;
  };
  /** SOL's price (USD) at which the fee payer's lamports count as a loss. */
  readonly solPriceUsd: number;
  /** Bound of the file payment records and of the file channel records: new paid calls get 503 beyond it, nothing evicted. */
  readonly paymentRecordsMax: number;
  /** Shares of the payment records per payer and per client address. */
  readonly paymentRecordShares: ShareLimits;
  readonly channelsMax: number;
  readonly channelShares: ShareLimits;
  /** Witnesses of the log's checkpoints (URL secret: may hold credentials) and the cosignatures a proof needs. */
  readonly witnesses: readonly { readonly url: string; readonly vkey: string }[];
  readonly witnessQuorum: number;
  readonly localnet: {
    readonly slotMs: number;
    readonly slotsPerEpoch: number;
    /** Most transactions of background traffic in a slot. */
    readonly txsPerSlot: number;
    readonly seed: string;
    readonly fresh: boolean;
    /** Where the world's snapshots are kept; null: with the localnet's state (DATA_DIR/localnet). */
    readonly worldDir: string | null;
  };
}

/** Reads, validates and freezes the configuration; throws ConfigError listing every problem. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>, argv: readonly string[]): Config {
  const problems: string[] = [];
  const flags = parseArgv(argv, problems);
  const raw = new Map<string, string | undefined>();
  for (const opt of OPTIONS) {
    const fromFlag = flags.get(opt.flag);
    const fromEnv = env[opt.env];
    const value = fromFlag ?? (fromEnv === '' ? undefined : fromEnv) ?? opt.default;
    const source = fromFlag !== undefined ? `--${opt.flag}` : fromEnv ? opt.env : `default of --${opt.flag}`;
    if (value !== undefined) {
      const problem = checkValue(opt.kind, source, value);
      if (problem) problems.push(problem);
    }
    raw.set(opt.flag, value);
  }
  const get = (flag: string): string | null => raw.get(flag) ?? null;
  const mode = get('rpc-url') || get('geyser-url') ? 'mainnet' : 'embedded';
  if (mode === 'mainnet') {
    if (!get('rpc-url')) problems.push('--rpc-url is required when --geyser-url is set');
    if (!get('geyser-url')) problems.push('--geyser-url is required when --rpc-url is set');
    if (!get('svm-pay-to')) problems.push('--svm-pay-to is required in mainnet mode');
    if (!get('evm-pay-to')) problems.push('--evm-pay-to is required in mainnet mode');
    const relayer = Boolean(get('evm-rpc-url')) && Boolean(get('evm-relayer-key'));
    if (relayer === Boolean(get('facilitator-url')))
      problems.push('mainnet mode settles Base payments through either --facilitator-url or --evm-rpc-url with --evm-relayer-key (exactly one)');
  }
  const delay = Number(get('channel-withdraw-delay'));
  if (delay < 900 || delay > 2_592_000) problems.push(`--channel-withdraw-delay must be 900-2592000 seconds (the scheme's bounds), got ${delay}`);
  else if (Number(get('channel-watch-seconds')) * 3 > delay)
    problems.push('--channel-watch-seconds must be at most a third of --channel-withdraw-delay (a withdrawal must be seen well before it can complete)');
  const witnesses = (get('witness') ?? '').split(/\s+/).flatMap((entry) => parseWitnessEntry(entry) ?? []);
  const quorum = get('witness-quorum') === null ? witnesses.length : Number(get('witness-quorum'));
  if (quorum > witnesses.length) problems.push(`--witness-quorum (${quorum}) is more than the ${witnesses.length} witness(es) configured`);
  const origin = get('log-origin');
  if (origin !== null && /[\s\u0085+]/u.test(origin)) problems.push('--log-origin must not contain spaces or + (it is a signed-note key name)');
  if (problems.length > 0) throw new ConfigError(problems);

  const dataDir = resolve(get('data-dir')!);
  const keypair = get('keypair');
  return Object.freeze({
    mode,
    host: get('host')!,
    port: Number(get('port')),
    publicUrl: get('public-url')?.replace(/\/+$/, '') ?? null,
    serviceName: get('service-name')!,
    logOrigin: origin,
    dataDir,
    databaseUrl: get('database-url'),
    databaseTimeoutMs: Number(get('database-timeout-ms')),
    keypairPath: keypair ? (isAbsolute(keypair) ? keypair : resolve(keypair)) : resolve(dataDir, 'identity.json'),
    rpcUrl: get('rpc-url'),
    rpcTimeoutMs: Number(get('rpc-timeout-ms')),
    geyserUrl: get('geyser-url'),
    geyserToken: get('geyser-token'),
    geyserStaleMs: Number(get('geyser-stale-ms')),
    geyserBackoffMaxMs: Number(get('geyser-backoff-max-ms')),
    geyserStartWaitMs: Number(get('geyser-start-wait-ms')),
    svmPayTo: get('svm-pay-to'),
    svmAsset: get('svm-asset') ?? (mode === 'mainnet' ? SOLANA_USDC_MINT : null),
    evmPayTo: get('evm-pay-to'),
    evmAsset: get('evm-asset') ?? (mode === 'mainnet' ? BASE_USDC_ADDRESS : null),
    evmRpcUrl: get('evm-rpc-url'),
    evmRpcTimeoutMs: Number(get('evm-rpc-timeout-ms')),
    evmRelayerKeyPath: get('evm-relayer-key') ? resolve(get('evm-relayer-key')!) : null,
    facilitatorUrl: get('facilitator-url'),
    facilitatorTimeoutMs: Number(get('facilitator-timeout-ms')),
    channels:
      get('channels') === 'true'
        ? Object.freeze({
            authorizerKeyPath: get('channel-authorizer-key') ? resolve(get('channel-authorizer-key')!) : null,
            withdrawDelaySeconds: delay,
            minDepositCalls: Number(get('channel-min-deposit-calls')),
            claimThresholdUnits: Number(get('channel-claim-threshold')),
            claimAgeSeconds: Number(get('channel-claim-age')),
            watchSeconds: Number(get('channel-watch-seconds')),
          })
        : null,
    evmAssetName: get('evm-asset-name')!,
    evmAssetVersion: get('evm-asset-version')!,
    jupiterUrl: get('jupiter-url')!,
    geckoterminalUrl: get('geckoterminal-url')!,
    magicedenUrl: get('magiceden-url')!,
    lendingUrl: get('lending-url')!,
    jupiterApiKey: get('jupiter-api-key'),
    magicedenApiKey: get('magiceden-api-key'),
    marketTimeoutMs: Number(get('market-timeout-ms')),
    poolSize: get('pool-size') === null ? null : Number(get('pool-size')),
    poolMinThreads: Number(get('pool-min-threads')),
    poolMaxQueue: Number(get('pool-max-queue')),
    feedSockets: Object.freeze({ max: Number(get('feed-max-sockets')), perClient: Number(get('feed-sockets-per-client')) }),
    previewClientsPerDay: Number(get('preview-clients-per-day')),
    freeRatePerSecond: Number(get('free-rate-per-second')),
    freeBurst: Number(get('free-burst')),
    freeBytesPerSecond: Number(get('free-bytes-per-second')),
    freeBytesBurst: Number(get('free-bytes-burst')),
    failedPaymentRatePerSecond: Number(get('failed-payment-rate-per-second')),
    failedPaymentBurst: Number(get('failed-payment-burst')),
    trustedProxies: (get('trusted-proxies') ?? '')
      .split(',')
      .map((ip) => ip.trim())
      .filter((ip) => ip !== ''),
    adminPort: Number(get('admin-port')),
    adminToken: get('admin-token'),
    svmCommitment: get('svm-commitment') as 'confirmed' | 'finalized',
    svmMaxPriorityFee: Number(get('svm-max-priority-fee')),
    settleTimeoutMs: Number(get('settle-timeout-ms')),
    svmEarly: Object.freeze({
      ceilingUnits: Number(get('svm-early-ceiling')),
      payerCapUnits: Number(get('svm-early-payer-cap')),
      globalCapUnits: Number(get('svm-early-global-cap')),
      lossBudgetUnits: Number(get('svm-early-loss-budget')),
      barMs: Number(get('svm-early-bar-seconds')) * 1000,
    }),
    solPriceUsd: Number(get('sol-price-usd')),
    paymentRecordsMax: Number(get('payment-records-max')),
    paymentRecordShares: { perPayer: Number(get('payment-records-per-payer')), perClient: Number(get('payment-records-per-client')) },
    channelsMax: Number(get('channels-max')),
    channelShares: { perPayer: Number(get('channels-per-payer')), perClient: Number(get('channels-per-client')) },
    witnesses: Object.freeze(witnesses),
    witnessQuorum: quorum,
    localnet: Object.freeze({
      slotMs: Number(get('slot-ms')),
      slotsPerEpoch: Number(get('slots-per-epoch')),
      txsPerSlot: Number(get('txs-per-slot')),
      seed: get('seed')!,
      fresh: get('fresh') === 'true',
      worldDir: get('localnet-world-dir') ?? null,
    }),
  });
}
