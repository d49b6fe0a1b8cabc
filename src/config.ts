/**
 * Configuration: every option is a CLI flag and an environment variable (flag wins), validated
 * once at start with every problem reported together. The option table below is also what
 * `--help` prints and what docs/configuration.md#options is generated from.
 */
import { isAbsolute, resolve } from 'node:path';
import { isBase58OfLength } from './chain/base58.ts';
import { ConfigError } from './errors.ts';

type Kind = 'string' | 'port' | 'int' | 'url' | 'svm-address' | 'evm-address' | 'bool' | 'commitment';

interface OptionSpec {
  readonly flag: string;
  readonly env: string;
  readonly kind: Kind;
  readonly help: string;
  readonly default?: string;
}

/** Every option the service reads, in the order `--help` and docs/configuration.md#options list them. */
// biome-ignore format: a table, one option per line
export const OPTIONS: readonly OptionSpec[] = [
  { flag: 'host', env: 'HOST', kind: 'string', default: '127.0.0.1', help: 'Interface the public HTTP listener binds.' },
  { flag: 'port', env: 'PORT', kind: 'port', default: '8402', help: 'Public HTTP port; 0 picks a free one (the bound port is printed).' },
  { flag: 'public-url', env: 'PUBLIC_URL', kind: 'url', help: 'Base URL clients reach the service at (resource URLs, receipts). Default http://HOST:PORT.' },
  { flag: 'service-name', env: 'SERVICE_NAME', kind: 'string', default: 'solana-x402-intel', help: 'Provider name in discovery, receipts and the receipt schema.' },
  { flag: 'data-dir', env: 'DATA_DIR', kind: 'string', default: '.data', help: 'Directory for the ledger, replay guard and generated keys.' },
  { flag: 'keypair', env: 'KEYPAIR', kind: 'string', help: 'Solana CLI JSON keypair of the service identity (fee payer and receipt signer). Default DATA_DIR/identity.json, created with mode 0600 if absent.' },
  { flag: 'rpc-url', env: 'RPC_URL', kind: 'url', help: 'Solana JSON-RPC endpoint. With --geyser-url it selects mainnet mode; without both the embedded localnet runs.' },
  { flag: 'geyser-url', env: 'GEYSER_URL', kind: 'url', help: 'Yellowstone gRPC endpoint with scheme (http:// is plaintext h2c, https:// is TLS).' },
  { flag: 'geyser-token', env: 'GEYSER_TOKEN', kind: 'string', help: 'x-token for the Geyser endpoint (never logged).' },
  { flag: 'geyser-stale-ms', env: 'GEYSER_STALE_MS', kind: 'int', default: '5000', help: 'A Geyser stream that delivers no slot for this long is stale: it is re-opened and the timing endpoints answer from the RPC (labelled rpc-fallback) meanwhile.' },
  { flag: 'svm-pay-to', env: 'SVM_PAY_TO', kind: 'svm-address', help: 'Solana wallet that receives payments (its USDC associated token account is the destination). Embedded default: the service identity.' },
  { flag: 'svm-asset', env: 'SVM_ASSET', kind: 'svm-address', help: 'Stablecoin mint on Solana. Default mainnet USDC; embedded default: the localnet stablecoin.' },
  { flag: 'evm-pay-to', env: 'EVM_PAY_TO', kind: 'evm-address', help: 'Base (eip155:8453) address that receives payments. Required in mainnet mode.' },
  { flag: 'evm-asset', env: 'EVM_ASSET', kind: 'evm-address', help: 'EIP-3009 stablecoin on Base. Default Base USDC; embedded default: the local EVM\'s LocalUsdc.' },
  { flag: 'evm-asset-name', env: 'EVM_ASSET_NAME', kind: 'string', default: 'USD Coin', help: 'EIP-712 domain name of the Base stablecoin (challenge extra.name).' },
  { flag: 'evm-asset-version', env: 'EVM_ASSET_VERSION', kind: 'string', default: '2', help: 'EIP-712 domain version of the Base stablecoin (challenge extra.version).' },
  { flag: 'evm-rpc-url', env: 'EVM_RPC_URL', kind: 'url', help: 'Base JSON-RPC endpoint; with --evm-relayer-key the service settles Base payments itself. Embedded default: the local EVM.' },
  { flag: 'evm-relayer-key', env: 'EVM_RELAYER_KEY', kind: 'string', help: 'File holding the 0x hex key that submits transferWithAuthorization and pays gas (mode 0600, never logged). Embedded default: the local EVM\'s funded relayer.' },
  { flag: 'facilitator-url', env: 'FACILITATOR_URL', kind: 'url', help: 'Remote x402 facilitator for Base settlement (/verify, /settle, /supported), instead of --evm-rpc-url with --evm-relayer-key.' },
  { flag: 'jupiter-url', env: 'JUPITER_URL', kind: 'url', default: 'https://api.jup.ag', help: 'Jupiter Swap API base URL (GET /swap/v1/quote). Keyless access is rate limited (about 0.5 requests/s); set --jupiter-api-key for more.' },
  { flag: 'jupiter-api-key', env: 'JUPITER_API_KEY', kind: 'string', help: 'Jupiter API key from portal.jup.ag, sent as the x-api-key header (never logged).' },
  { flag: 'geckoterminal-url', env: 'GECKOTERMINAL_URL', kind: 'url', default: 'https://api.geckoterminal.com', help: 'GeckoTerminal API v2 base URL (trending and new pools; keyless public API).' },
  { flag: 'magiceden-url', env: 'MAGICEDEN_URL', kind: 'url', default: 'https://api-mainnet.magiceden.dev', help: 'Magic Eden Solana API base URL (/v2/collections/{symbol}/stats and /activities).' },
  { flag: 'magiceden-api-key', env: 'MAGICEDEN_API_KEY', kind: 'string', help: 'Magic Eden API key, sent as Authorization: Bearer (never logged); optional.' },
  { flag: 'lending-url', env: 'LENDING_URL', kind: 'url', default: 'https://api.kamino.finance', help: 'Kamino Lend API base URL (lending markets: /v2/kamino-market and reserve metrics; keyless).' },
  { flag: 'market-timeout-ms', env: 'MARKET_TIMEOUT_MS', kind: 'int', default: '5000', help: 'Per-request timeout of the market sources; 2 retries on faults, 5xx and 429 (Retry-After honoured up to 5 s).' },
  { flag: 'admin-port', env: 'ADMIN_PORT', kind: 'port', default: '8403', help: 'Admin listener port (kill switch), bound to 127.0.0.1 only; 0 picks a free one.' },
  { flag: 'admin-token', env: 'ADMIN_TOKEN', kind: 'string', help: 'Bearer token of the admin listener (>= 16 printable characters; prefer the env var, flags show in ps). Default: generated once into DATA_DIR/admin-token (mode 0600); only its path is printed.' },
  { flag: 'preview-clients-per-day', env: 'PREVIEW_CLIENTS_PER_DAY', kind: 'int', default: '1000000', help: 'Most distinct clients (IPv4 addresses, IPv6 /64s) given a free preview per UTC day; beyond it new clients get 429 until midnight. Bounds the quota\'s memory (about 60 bytes a client).' },
  { flag: 'pool-size', env: 'POOL_SIZE', kind: 'int', help: 'Worker threads in the CPU pool. Default: available cores.' },
  { flag: 'svm-commitment', env: 'SVM_COMMITMENT', kind: 'commitment', default: 'confirmed', help: 'Commitment a Solana settlement must reach before the paid answer is sent (confirmed or finalized).' },
  { flag: 'settle-timeout-ms', env: 'SETTLE_TIMEOUT_MS', kind: 'int', default: '30000', help: 'How long a Solana settlement may take to reach the commitment; beyond it the payment answers 402 settlement_pending.' },
  { flag: 'slot-ms', env: 'LOCALNET_SLOT_MS', kind: 'int', default: '400', help: 'Embedded localnet: milliseconds per slot.' },
  { flag: 'slots-per-epoch', env: 'LOCALNET_SLOTS_PER_EPOCH', kind: 'int', default: '432', help: 'Embedded localnet: slots per epoch (short, so epoch transitions are seen).' },
  { flag: 'seed', env: 'LOCALNET_SEED', kind: 'string', default: 'localnet-1', help: 'Embedded localnet: seed of the deterministic world.' },
];

/** Base USDC, the default Base asset outside the embedded localnet. */
export const BASE_USDC_ADDRESS = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
/** Mainnet USDC mint, the default Solana asset outside the embedded localnet. */
export const SOLANA_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

export interface Config {
  readonly mode: 'embedded' | 'mainnet';
  readonly host: string;
  readonly port: number;
  readonly publicUrl: string | null;
  readonly serviceName: string;
  readonly dataDir: string;
  readonly keypairPath: string;
  readonly rpcUrl: string | null;
  readonly geyserUrl: string | null;
  readonly geyserToken: string | null;
  /** No slot for this long: the Geyser stream is stale (reconnect, RPC fallback). */
  readonly geyserStaleMs: number;
  readonly svmPayTo: string | null;
  readonly svmAsset: string | null;
  readonly evmPayTo: string | null;
  /** Null in embedded mode until the local EVM provides its token. */
  readonly evmAsset: string | null;
  readonly evmRpcUrl: string | null;
  readonly evmRelayerKeyPath: string | null;
  readonly facilitatorUrl: string | null;
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
  /** Cap of distinct clients given a free preview per UTC day. */
  readonly previewClientsPerDay: number;
  readonly adminPort: number;
  readonly adminToken: string | null;
  readonly svmCommitment: 'confirmed' | 'finalized';
  readonly settleTimeoutMs: number;
  readonly localnet: { readonly slotMs: number; readonly slotsPerEpoch: number; readonly seed: string };
}

const EVM_ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

function checkValue(kind: Kind, name: string, value: string): string | null {
  switch (kind) {
    case 'port': {
      const n = Number(value);
      return /^\d+$/.test(value) && n <= 65535 ? null : `${name} must be an integer 0-65535, got "${value}"`;
    }
    case 'int':
      return /^[1-9]\d{0,8}$/.test(value) ? null : `${name} must be a positive integer, got "${value}"`;
    case 'url':
      return /^(https?):\/\/[^\s]+$/.test(value) && URL.canParse(value) ? null : `${name} must be an http:// or https:// URL, got "${value}"`;
    case 'svm-address':
      return isBase58OfLength(value, 32) ? null : `${name} must be a base58 Solana address (32 bytes), got "${value}"`;
    case 'evm-address':
      return EVM_ADDRESS_RE.test(value) ? null : `${name} must be a 0x-prefixed 20-byte hex address, got "${value}"`;
    case 'bool':
      return value === 'true' || value === 'false' ? null : `${name} must be true or false, got "${value}"`;
    case 'commitment':
      return value === 'confirmed' || value === 'finalized' ? null : `${name} must be confirmed or finalized, got "${value}"`;
    case 'string':
      return value.length > 0 ? null : `${name} must not be empty`;
  }
}

/** Splits argv into flag values; unknown flags and missing values are problems. */
function parseArgv(argv: readonly string[], problems: string[]): Map<string, string> {
  const known = new Set(OPTIONS.map((o) => o.flag));
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    if (!m) {
      problems.push(`unexpected argument "${arg}"`);
      continue;
    }
    const flag = m[1]!;
    if (!known.has(flag)) {
      problems.push(`unknown option --${flag}`);
      if (m[2] === undefined && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) i++;
      continue;
    }
    let value = m[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        problems.push(`--${flag} needs a value`);
        continue;
      }
      value = next;
      i++;
    }
    out.set(flag, value);
  }
  return out;
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
  if (problems.length > 0) throw new ConfigError(problems);

  const dataDir = resolve(get('data-dir')!);
  const keypair = get('keypair');
  const poolSize = get('pool-size');
  return Object.freeze({
    mode,
    host: get('host')!,
    port: Number(get('port')),
    publicUrl: get('public-url')?.replace(/\/+$/, '') ?? null,
    serviceName: get('service-name')!,
    dataDir,
    keypairPath: keypair ? (isAbsolute(keypair) ? keypair : resolve(keypair)) : resolve(dataDir, 'identity.json'),
    rpcUrl: get('rpc-url'),
    geyserUrl: get('geyser-url'),
    geyserToken: get('geyser-token'),
    geyserStaleMs: Number(get('geyser-stale-ms')),
    svmPayTo: get('svm-pay-to'),
    svmAsset: get('svm-asset') ?? (mode === 'mainnet' ? SOLANA_USDC_MINT : null),
    evmPayTo: get('evm-pay-to'),
    evmAsset: get('evm-asset') ?? (mode === 'mainnet' ? BASE_USDC_ADDRESS : null),
    evmRpcUrl: get('evm-rpc-url'),
    evmRelayerKeyPath: get('evm-relayer-key') ? resolve(get('evm-relayer-key')!) : null,
    facilitatorUrl: get('facilitator-url'),
    evmAssetName: get('evm-asset-name')!,
    evmAssetVersion: get('evm-asset-version')!,
    jupiterUrl: get('jupiter-url')!,
    geckoterminalUrl: get('geckoterminal-url')!,
    magicedenUrl: get('magiceden-url')!,
    lendingUrl: get('lending-url')!,
    jupiterApiKey: get('jupiter-api-key'),
    magicedenApiKey: get('magiceden-api-key'),
    marketTimeoutMs: Number(get('market-timeout-ms')),
    poolSize: poolSize ? Number(poolSize) : null,
    previewClientsPerDay: Number(get('preview-clients-per-day')),
    adminPort: Number(get('admin-port')),
    adminToken: get('admin-token'),
    svmCommitment: get('svm-commitment') as 'confirmed' | 'finalized',
    settleTimeoutMs: Number(get('settle-timeout-ms')),
    localnet: Object.freeze({
      slotMs: Number(get('slot-ms')),
      slotsPerEpoch: Number(get('slots-per-epoch')),
      seed: get('seed')!,
    }),
  });
}

/** The `--help` text, generated from OPTIONS. */
export function helpText(): string {
  const rows = OPTIONS.map((o) => `  --${o.flag.padEnd(20)} ${o.env.padEnd(26)} ${o.help}${o.default ? ` (default ${o.default})` : ''}`);
  return ['Usage: npm start -- [options]', '', '  flag                   env var                    meaning', ...rows].join('\n');
}
