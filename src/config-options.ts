/**
 * The option table: every option is a CLI flag and an environment variable. It is what `--help`
 * prints and what docs/configuration.md#options is generated from; config.ts reads and checks it.
 */

export type Kind =
  | 'string'
  | 'port'
  | 'int'
  | 'url'
  | 'svm-address'
  | 'evm-address'
  | 'bool'
  | 'commitment'
  | 'count'
  | 'ip-list'
  | 'database-url'
  | 'witness-list';

export interface OptionSpec {
  readonly flag: string;
  readonly env: string;
  readonly kind: Kind;
  readonly help: string;
  readonly default?: string;
  /** The flag may be given more than once; its values are joined with spaces (as the env var lists them). */
  readonly repeatable?: true;
}

/** Every option the service reads, in the order `--help` and docs/configuration.md#options list them. */
// biome-ignore format: a table, one option per line
export const OPTIONS: readonly OptionSpec[] = [
  { flag: 'host', env: 'HOST', kind: 'string', default: '127.0.0.1', help: 'Interface the public HTTP listener binds.' },
  { flag: 'port', env: 'PORT', kind: 'port', default: '8402', help: 'Public HTTP port; 0 picks a free one (the bound port is printed).' },
  { flag: 'public-url', env: 'PUBLIC_URL', kind: 'url', help: 'Base URL clients reach the service at (resource URLs, receipts). Default http://HOST:PORT.' },
  { flag: 'service-name', env: 'SERVICE_NAME', kind: 'string', default: 'solana-x402-intel', help: 'Provider name in discovery, receipts and the receipt schema.' },
  { flag: 'log-origin', env: 'LOG_ORIGIN', kind: 'string', help: 'Name of the transparency log: the origin line of /checkpoint and the note key name of its signature (docs/trust-and-proofs.md#checkpoints-and-tiles). No spaces or +. Default: --public-url without its scheme, else SERVICE_NAME/<base58 identity key>. Keep it stable: witnesses and mirrors know the log by it.' },
  { flag: 'data-dir', env: 'DATA_DIR', kind: 'string', default: '.data', help: 'Directory for the ledger, replay guard and generated keys.' },
  { flag: 'database-url', env: 'DATABASE_URL', kind: 'database-url', help: 'PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DB). With it the replay guard, pending settlements, payment-identifier answers, the kill switch, the ledger, the free preview quota and the payment channels live in that database, shared by every instance on it (schema migrated at start); without it they stay in files under DATA_DIR. The password is never printed.' },
  { flag: 'database-timeout-ms', env: 'DATABASE_TIMEOUT_MS', kind: 'int', default: '5000', help: 'How long opening a connection to --database-url, or one query on it, may take; past it the connection is dropped and the call answers 503 database_unavailable, nothing charged.' },
  { flag: 'keypair', env: 'KEYPAIR', kind: 'string', help: 'Solana CLI JSON keypair of the service identity (fee payer and receipt signer). Default DATA_DIR/identity.json, created with mode 0600 if absent.' },
  { flag: 'rpc-url', env: 'RPC_URL', kind: 'url', help: 'Solana JSON-RPC endpoint. With --geyser-url it selects mainnet mode; without both the embedded localnet runs.' },
  { flag: 'geyser-url', env: 'GEYSER_URL', kind: 'url', help: 'Yellowstone gRPC endpoint with scheme (http:// is plaintext h2c, https:// is TLS).' },
  { flag: 'geyser-token', env: 'GEYSER_TOKEN', kind: 'string', help: 'x-token for the Geyser endpoint (never logged).' },
  { flag: 'rpc-timeout-ms', env: 'RPC_TIMEOUT_MS', kind: 'int', default: '10000', help: 'How long one Solana RPC call may wait for its answer; past it the call is given up as an upstream fault, as if the RPC had failed.' },
  { flag: 'geyser-stale-ms', env: 'GEYSER_STALE_MS', kind: 'int', default: '5000', help: 'A Geyser stream that delivers no slot for this long is stale: it is re-opened and the timing endpoints answer from the RPC (labelled rpc-fallback) meanwhile.' },
  { flag: 'geyser-start-wait-ms', env: 'GEYSER_START_WAIT_MS', kind: 'count', default: '5000', help: 'How long start-up waits for the Geyser stream\'s first slot before listening; the timing endpoints answer from the RPC until it comes. 0: listen at once.' },
  { flag: 'geyser-backoff-max-ms', env: 'GEYSER_BACKOFF_MAX_MS', kind: 'int', default: '10000', help: 'Longest wait between two attempts to reopen a dropped or stale Geyser stream; the wait starts at 250 ms and doubles up to this.' },
  { flag: 'svm-pay-to', env: 'SVM_PAY_TO', kind: 'svm-address', help: 'Solana wallet that receives payments (its USDC associated token account is the destination). Embedded default: the service identity.' },
  { flag: 'svm-asset', env: 'SVM_ASSET', kind: 'svm-address', help: 'Stablecoin mint on Solana. Default mainnet USDC; embedded default: the localnet stablecoin.' },
  { flag: 'evm-pay-to', env: 'EVM_PAY_TO', kind: 'evm-address', help: 'Base (eip155:8453) address that receives payments. Required in mainnet mode.' },
  { flag: 'evm-asset', env: 'EVM_ASSET', kind: 'evm-address', help: 'EIP-3009 stablecoin on Base. Default Base USDC; embedded default: the local EVM\'s LocalUsdc.' },
  { flag: 'evm-asset-name', env: 'EVM_ASSET_NAME', kind: 'string', default: 'USD Coin', help: 'EIP-712 domain name of the Base stablecoin (challenge extra.name).' },
  { flag: 'evm-asset-version', env: 'EVM_ASSET_VERSION', kind: 'string', default: '2', help: 'EIP-712 domain version of the Base stablecoin (challenge extra.version).' },
  { flag: 'evm-rpc-url', env: 'EVM_RPC_URL', kind: 'url', help: 'Base JSON-RPC endpoint; with --evm-relayer-key the service settles Base payments itself; with --facilitator-url the facilitator\'s transactions are checked on it (paid only once the receipt shows the transfer to us). Embedded default: the local EVM.' },
  { flag: 'evm-rpc-timeout-ms', env: 'EVM_RPC_TIMEOUT_MS', kind: 'int', default: '10000', help: 'How long one Base JSON-RPC request may wait for its answer; a request that fails or times out is sent once more, then counts as an upstream fault.' },
  { flag: 'evm-relayer-key', env: 'EVM_RELAYER_KEY', kind: 'string', help: 'File holding the 0x hex key that submits transferWithAuthorization and pays gas (mode 0600, never logged). Embedded default: the local EVM\'s funded relayer.' },
  { flag: 'facilitator-url', env: 'FACILITATOR_URL', kind: 'url', help: 'Remote x402 facilitator for Base settlement (/verify, /settle, /supported), instead of --evm-rpc-url with --evm-relayer-key.' },
  { flag: 'facilitator-timeout-ms', env: 'FACILITATOR_TIMEOUT_MS', kind: 'int', default: '10000', help: 'How long the facilitator\'s /verify (and /supported, read once at start) may take; past it the payment is refused unverified, nothing charged. /settle waits up to --settle-timeout-ms.' },
  { flag: 'channels', env: 'CHANNELS', kind: 'bool', default: 'true', help: 'Offer x402 batch-settlement payment channels on Base beside exact (docs/payments.md#payment-channels): one deposit, then a signed voucher per call answered without waiting for the chain. Needs the Base relayer (--evm-rpc-url with --evm-relayer-key, or the embedded local EVM); not offered with --facilitator-url.' },
  { flag: 'channel-authorizer-key', env: 'CHANNEL_AUTHORIZER_KEY', kind: 'string', help: 'File holding the 0x hex key that signs our channel claims and refunds (receiverAuthorizer; mode 0600, never logged). Default DATA_DIR/evm-channel-authorizer.key, created if absent.' },
  { flag: 'channel-withdraw-delay', env: 'CHANNEL_WITHDRAW_DELAY', kind: 'int', default: '86400', help: 'Seconds a payer\'s timed withdrawal from a channel waits (900-2592000): the window in which we claim what we earned. Cooperative refunds are immediate.' },
  { flag: 'channel-min-deposit-calls', env: 'CHANNEL_MIN_DEPOSIT_CALLS', kind: 'int', default: '100', help: 'The deposit a channel is asked for, in calls of the route (minDeposit = price x this).' },
  { flag: 'channel-claim-threshold', env: 'CHANNEL_CLAIM_THRESHOLD', kind: 'int', default: '1000000', help: 'Claim vouchers on chain once all channels together owe this many token units (1000000 = 1 USDC).' },
  { flag: 'channel-watch-seconds', env: 'CHANNEL_WATCH_SECONDS', kind: 'int', default: '60', help: 'How often the on-chain state of a channel that owes us is read again (one RPC round of three reads per channel); that is how a payer\'s timed withdrawal is noticed and claimed against. At most a third of --channel-withdraw-delay.' },
  { flag: 'channel-claim-age', env: 'CHANNEL_CLAIM_AGE', kind: 'int', default: '3600', help: 'Claim vouchers on chain once the oldest unclaimed charge is this many seconds old. A payer\'s withdrawal is always claimed against at once.' },
  { flag: 'jupiter-url', env: 'JUPITER_URL', kind: 'url', default: 'https://api.jup.ag', help: 'Jupiter Swap API base URL (GET /swap/v1/quote). Keyless access is rate limited (about 0.5 requests/s); set --jupiter-api-key for more.' },
  { flag: 'jupiter-api-key', env: 'JUPITER_API_KEY', kind: 'string', help: 'Jupiter API key from portal.jup.ag, sent as the x-api-key header (never logged).' },
  { flag: 'geckoterminal-url', env: 'GECKOTERMINAL_URL', kind: 'url', default: 'https://api.geckoterminal.com', help: 'GeckoTerminal API v2 base URL (trending and new pools; keyless public API).' },
  { flag: 'magiceden-url', env: 'MAGICEDEN_URL', kind: 'url', default: 'https://api-mainnet.magiceden.dev', help: 'Magic Eden Solana API base URL (/v2/collections/{symbol}/stats and /activities).' },
  { flag: 'magiceden-api-key', env: 'MAGICEDEN_API_KEY', kind: 'string', help: 'Magic Eden API key, sent as Authorization: Bearer (never logged); optional.' },
  { flag: 'lending-url', env: 'LENDING_URL', kind: 'url', default: 'https://api.kamino.finance', help: 'Kamino Lend API base URL (lending markets: /v2/kamino-market and reserve metrics; keyless).' },
  { flag: 'market-timeout-ms', env: 'MARKET_TIMEOUT_MS', kind: 'int', default: '5000', help: 'Per-request timeout of the market sources; 2 retries on faults, 5xx and 429 (Retry-After honoured up to 5 s).' },
  { flag: 'admin-port', env: 'ADMIN_PORT', kind: 'port', default: '8403', help: 'Admin listener port (kill switch), bound to 127.0.0.1 only; 0 picks a free one.' },
  { flag: 'admin-token', env: 'ADMIN_TOKEN', kind: 'string', help: 'Bearer token of the admin listener (>= 16 printable characters; prefer the env var, flags show in ps). Default: generated once into DATA_DIR/admin-token (mode 0600); only its path is printed.' },
  { flag: 'preview-clients-per-day', env: 'PREVIEW_CLIENTS_PER_DAY', kind: 'int', default: '1000000', help: 'Most distinct clients (IPv4 addresses, IPv6 /64s) given a free preview per UTC day; beyond it new clients get 429 until midnight. Shared by every instance with --database-url. Bounds the file quota\'s memory (about 60 bytes a client).' },
  { flag: 'free-rate-per-second', env: 'FREE_RATE_PER_SECOND', kind: 'count', default: '20', help: 'Calls per second each client (IPv4 address, IPv6 /64) may make without a payment that matches the route (402 challenges, ledger, proofs, previews, documents, each element of an MCP batch); beyond it 429 with Retry-After. A paid call that succeeds gives one back (the one its 402 took). 0 turns every per-client limit off.' },
  { flag: 'free-burst', env: 'FREE_BURST', kind: 'int', default: '60', help: 'Calls a client may make at once before --free-rate-per-second applies (the token bucket\'s size).' },
  { flag: 'free-bytes-per-second', env: 'FREE_BYTES_PER_SECOND', kind: 'count', default: '131072', help: 'Bytes per second each client may be sent without a payment, whatever carries them (answers to GET and HEAD with their heads, the unpaid share of an MCP batch, live-feed messages); each answer is counted once written, and while a client owes bytes its free calls get 429 with Retry-After and its feed sockets are closed. A paid call that succeeds gives back what one free answer cost (its 402). 0 turns the byte bound off.' },
  { flag: 'free-bytes-burst', env: 'FREE_BYTES_BURST', kind: 'int', default: '1048576', help: 'Bytes a client may be sent at once before --free-bytes-per-second applies (the byte bucket\'s size).' },
  { flag: 'failed-payment-rate-per-second', env: 'FAILED_PAYMENT_RATE_PER_SECOND', kind: 'count', default: '2', help: 'Refused payments per second each client may send (a payment that matches the route but fails its check, or whose request is refused); beyond it 429 with Retry-After. A payment being checked holds one of the burst until it is answered. 0 turns this limit off.' },
  { flag: 'failed-payment-burst', env: 'FAILED_PAYMENT_BURST', kind: 'int', default: '60', help: 'Payments a client may have in checking or refused at once before --failed-payment-rate-per-second applies.' },
  { flag: 'trusted-proxies', env: 'TRUSTED_PROXIES', kind: 'ip-list', help: 'Comma-separated addresses (IPv4 or IPv6, in any textual form) or CIDR ranges (10.0.0.0/8) of reverse proxies whose X-Forwarded-For names the client (rate limits and previews then count that client). An IPv4 proxy seen by a dual-stack listener as ::ffff:a.b.c.d matches too. Default: none; the peer address is the client.' },
  { flag: 'feed-max-sockets', env: 'FEED_MAX_SOCKETS', kind: 'int', default: '1000', help: 'WebSocket feed sockets (/ledger/live) open at once over all clients; beyond it an upgrade answers 503 feed_full.' },
  { flag: 'feed-sockets-per-client', env: 'FEED_SOCKETS_PER_CLIENT', kind: 'int', default: '20', help: 'WebSocket feed sockets one client (IPv4 address, IPv6 /64) may hold open at once; beyond it an upgrade answers 429 rate_limited. Each upgrade also takes a token of the client\'s free rate limit.' },
  { flag: 'witness', env: 'WITNESSES', kind: 'witness-list', repeatable: true, help: 'A transparency-log witness that cosigns our checkpoints (c2sp.org/tlog-witness), as URL=VKEY: its submission URL and its cosigner vkey. Repeat the flag for each witness (the env var lists them separated by spaces). After each group of ledger entries the checkpoint is submitted to every witness with a consistency proof; /checkpoint carries the cosignatures it got (docs/trust-and-proofs.md#mirroring-and-witnessing-this-log). The URL may hold credentials: it is never printed.' },
  { flag: 'witness-quorum', env: 'WITNESS_QUORUM', kind: 'count', help: 'Cosignatures a checkpoint needs before /trust/tlog-proof serves proofs under it (and /checkpoint prefers it). Default: every configured witness.' },
  { flag: 'pool-size', env: 'POOL_SIZE', kind: 'int', help: 'Worker threads in the CPU pool. Default: available cores.' },
  { flag: 'pool-min-threads', env: 'POOL_MIN_THREADS', kind: 'count', default: '1', help: 'Worker threads the CPU pool starts with and keeps while idle (at most --pool-size); more start as work needs them, up to --pool-size. 0 starts none until the first task that leaves the event loop (the test suite\'s in-process services, most of which never send one), which then waits for a thread to start.' },
  { flag: 'pool-max-queue', env: 'POOL_MAX_QUEUE', kind: 'int', default: '1000', help: 'CPU pool tasks waiting or running at most; while it is full a new paid call or preview answers 503 busy with Retry-After, before any payment is verified or charged.' },
  { flag: 'svm-commitment', env: 'SVM_COMMITMENT', kind: 'commitment', default: 'confirmed', help: 'Commitment a Solana settlement must reach before the paid answer is sent (confirmed or finalized).' },
  { flag: 'svm-max-priority-fee', env: 'SVM_MAX_PRIORITY_FEE', kind: 'int', default: '5000', help: 'Most lamports of priority fee (compute-unit limit x price) one Solana settlement may cost the fee payer, on top of the base fee of 5000 per signature; a payment asking for more is refused (402 invalid_exact_svm_payload_transaction_priority_fee_too_high) before anything is signed. The official client asks for 1.' },
  { flag: 'settle-timeout-ms', env: 'SETTLE_TIMEOUT_MS', kind: 'int', default: '30000', help: 'How long a Solana settlement may take to reach the commitment; beyond it the payment answers 402 settlement_pending.' },
  { flag: 'svm-early-ceiling', env: 'SVM_EARLY_CEILING', kind: 'count', default: '5000', help: 'Highest price, in token units (6 decimals: 5000 = $0.005), of a Solana exact payment answered early: once it is verified and the RPC accepted its transaction, before confirmation (docs/payments.md#early-answers). 0 turns early answers off.' },
  { flag: 'svm-early-payer-cap', env: 'SVM_EARLY_PAYER_CAP', kind: 'int', default: '50000', help: 'Most value (token units) of one payer\'s early answers whose payment is not confirmed yet, however much it paid before. Below it a payer earns its share: one early answer in flight with no confirmed payment, then half of what it paid and saw confirmed in the last 30 days. Past it that payer\'s calls wait for confirmation.' },
  { flag: 'svm-early-global-cap', env: 'SVM_EARLY_GLOBAL_CAP', kind: 'int', default: '1000000', help: 'Most value (token units) of all payers\' early answers whose payment is not confirmed yet: this instance\'s, or every instance\'s on one --database-url. Past it calls wait for confirmation.' },
  { flag: 'svm-early-loss-budget', env: 'SVM_EARLY_LOSS_BUDGET', kind: 'count', default: '2000000', help: 'Most the early answers may lose in any rolling day (token units: 2000000 = $2): payments that failed after their early answer, plus what our fee payer paid for their failed transactions (counted at --sol-price-usd). Answers in flight count as lost until confirmed, so the day\'s losses can never pass it; once they reach it early answers stop (log line, /health, ledger audit entry) until the window rolls. Shared by every instance on one --database-url. 0 turns early answers off.' },
  { flag: 'sol-price-usd', env: 'SOL_PRICE_USD', kind: 'int', default: '500', help: 'SOL\'s price in whole US dollars, at which the fee payer\'s lamports spent on failed transactions count against --svm-early-loss-budget. The default is above any price SOL has traded at, so losses are counted high.' },
  { flag: 'svm-early-bar-seconds', env: 'SVM_EARLY_BAR_SECONDS', kind: 'int', default: '86400', help: 'How long a payer whose payment failed after its early answer gets no early answer (kept across restarts).' },
  { flag: 'payment-records-max', env: 'PAYMENT_RECORDS_MAX', kind: 'int', default: '20000', help: 'Most settlement records (pending settlements and the 200s kept for a retry) and, apart, payment-identifier answers held at once in the data dir (each store in memory too: about 6.6 and 4.6 kB a record). None is dropped before its retry window ends: at the bound new paid calls get 503 payments_full before anything is charged. Not used with --database-url.' },
  { flag: 'payment-records-per-payer', env: 'PAYMENT_RECORDS_PER_PAYER', kind: 'int', default: '2000', help: 'Most of those records one payer may hold (its share of each store): a payer past it gets 503 payments_full before anything is charged, other payers pay on. 2000 records last 10 minutes: one payer sustaining more than 3 exact calls a second should pay through a channel.' },
  { flag: 'payment-records-per-client', env: 'PAYMENT_RECORDS_PER_CLIENT', kind: 'int', default: '5000', help: 'Most of those records the payers of one client address (IPv4 address, IPv6 /64) may hold together; past it 503 payments_full before anything is charged. Counted in memory only (addresses are never written): after a restart the records held count toward their payers alone.' },
  { flag: 'channels-max', env: 'CHANNELS_MAX', kind: 'int', default: '100000', help: 'Most payment channels held at once in the data dir (in memory too: about 1.1 kB a channel, 5.3 kB while its last answer is kept). A channel that owes us is never dropped; at the bound a new channel takes the place of one fully claimed and idle past its answer\'s retry window, or gets 503 payments_full. Not used with --database-url.' },
  { flag: 'channels-per-payer', env: 'CHANNELS_PER_PAYER', kind: 'int', default: '100', help: 'Most channels one payer may hold in the data dir; past it a new channel of that payer takes the place of one of its own that owes nothing and is idle, or gets 503 payments_full.' },
  { flag: 'channels-per-client', env: 'CHANNELS_PER_CLIENT', kind: 'int', default: '1000', help: 'Most channels opened from one client address (IPv4 address, IPv6 /64) held at once, counted in memory only; past it as for --channels-per-payer.' },
  { flag: 'slot-ms', env: 'LOCALNET_SLOT_MS', kind: 'int', default: '400', help: 'Embedded localnet: milliseconds per slot.' },
  { flag: 'slots-per-epoch', env: 'LOCALNET_SLOTS_PER_EPOCH', kind: 'int', default: '432', help: 'Embedded localnet: slots per epoch (short, so epoch transitions are seen).' },
  { flag: 'txs-per-slot', env: 'LOCALNET_TXS_PER_SLOT', kind: 'count', default: '20', help: 'Embedded localnet: most transactions of background traffic (swaps, tips, transfers) in a slot; each slot holds between a quarter of it and it; 0: none (the slots still advance). The block producer\'s CPU goes with it for the localnet\'s whole life.' },
  { flag: 'seed', env: 'LOCALNET_SEED', kind: 'string', default: 'localnet-1', help: 'Embedded localnet: seed of the deterministic world.' },
  { flag: 'fresh', env: 'LOCALNET_FRESH', kind: 'bool', default: 'false', help: 'Embedded localnet: start its chains over from the seed instead of from the state kept in DATA_DIR/localnet/ (funded wallets, balances, channels); `--fresh` alone means true. The service\'s own state (identity, ledger) is kept.' },
  { flag: 'localnet-world-dir', env: 'LOCALNET_WORLD_DIR', kind: 'string', help: 'Embedded localnet: directory of its world snapshots. The world of --seed is deterministic and takes seconds to build, so once built it is kept there (checksummed, keyed by the seed, the world fixture and the localnet\'s code) and a later start plays it back instead; a snapshot that does not fit or fails its checksum is built again. Default DATA_DIR/localnet/; several data directories (tests) may share one.' },
];

/** Base USDC, the default Base asset outside the embedded localnet. */
export const BASE_USDC_ADDRESS = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
/** Mainnet USDC mint, the default Solana asset outside the embedded localnet. */
export const SOLANA_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** The `--help` text, generated from OPTIONS. */
export function helpText(): string {
  const rows = OPTIONS.map((o) => `  --${o.flag.padEnd(20)} ${o.env.padEnd(26)} ${o.help}${o.default ? ` (default ${o.default})` : ''}`);
  return ['Usage: npm start -- [options]', '', '  flag                   env var                    meaning', ...rows].join('\n');
}
