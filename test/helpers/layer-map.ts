/**
 * The layer map of the service: the one statement of which layer may import which, read by
 * test/unit/import-layers.test.ts (which enforces it) and by scripts/generate-docs.ts (which
 * writes the order into the docs). Change the order here and run `npm run docs`.
 */
import type { ImportRules } from './import-layers.ts';

const folder = (name: string): { name: string; paths: string[] } => ({ name, paths: [`src/x402/${name}/`] });

/**
 * The folders of src/x402, top row first; the folders of one row know nothing of each other:
 * - flow is one paid call, from the parsed request to the answer, and alone chooses the scheme;
 * - exact is the exact scheme's state machine (claim, verify, settle, deliver, retry), written
 *   against the exact scheme's server and facilitator roles (types/), so it knows neither network;
 *   channels are the batch-settlement scheme's machine; exact-svm and exact-evm implement the roles;
 * - delivery is what every scheme uses to challenge and to answer (402 terms, extensions,
 *   receipts with PAYMENT-RESPONSE, Server-Timing, refusal sentences);
 * - stores are what a payment leaves behind, file and PostgreSQL stores side by side;
 * - types are the x402 wire types and the contracts every folder above speaks.
 */
const X402_FOLDERS = [
  [folder('flow')],
  [folder('exact'), folder('channels'), folder('exact-svm'), folder('exact-evm')],
  [folder('delivery')],
  [folder('stores')],
  [folder('types')],
];

/**
 * Top layer first. Why each sits where it does:
 * - cli is a client of the service, not a part of it: nothing of the service imports it, so it
 *   sits above main, and the rule below narrows what it may reach (the client library, the
 *   receipt checks, the catalog, the key-file readers of chain, errors.ts), never the server,
 *   payments or HTTP side;
 * - client is the library a bot pays with (`solana-x402-intel/client`), which the CLI's `call`
 *   goes through: a client of the service like the CLI, so it sits right below it, and its own
 *   reach rule keeps it from everything of the serving side (what it may import ships to bots:
 *   the catalog's routes and response schemas, chain's key files and native signing, the
 *   receipt checks);
 * - witness is a program of its own beside the service (a transparency-log witness, and the
 *   offline check of a cosigned proof against a policy): it reads the formats and proofs of
 *   tlog, ledger and receipts, and of the serving side only the front end's per-client token
 *   bucket and client key (its listener limits its clients as the service does); only the CLI
 *   (`x402-intel witness`, verify-receipt --policy) runs it;
 * - main.ts starts everything (and alone starts the embedded localnet);
 * - service composes the HTTP service from a Config (service/service.ts, its trust, payment and
 *   handler sides beside it);
 * - config.ts and workers/ are the composition's own leaves: the options only the composition
 *   reads (every lower layer gets a readonly slice of them, never Config), and the worker
 *   thread's entry, whose exports are the pool's task table;
 * - operations is what an operator drives and reads: the admin listener and its token, the kill
 *   switch (a file, or shared in PostgreSQL), the trust side's health; it sits on http (the
 *   admin listener is a second uWS server) and nothing below reads it;
 * - storefront serves the page (its HTML, the bundled web/ assets, their compressed bodies) on
 *   http's routes; its files sit two levels below the root, as the server bundle's do
 *   (scripts/build-server.ts), so `../../dist/web/` resolves from both;
 * - http turns requests into calls and replies into bytes (server/: the uWS server, the wire,
 *   the WebSocket doors; admission/: client addresses and rate limits; streams/: paid streams;
 *   routes/: paid, free, trust, tlog, MCP, preview routes); mcp serves the same calls as MCP
 *   tools (web Request in, Response out), below http, which drives it; preview serves a paid
 *   endpoint's answer, cut, once a day per client for free, beside the paid flow rather than in
 *   it (it imports nothing of x402); x402 takes and settles payments;
 *   intel computes the paid answers; caches hold what the handlers read warm: the live chain
 *   figures the Geyser stream feeds (priority fees, tips, the slot clock) and the single-flight
 *   TTL cache the handlers load upstream answers through;
 * - pool (threads for CPU work) and receipts (the service's identity and did:web, the signed
 *   receipt of every paid answer, the backlog of entries waiting for the ledger) serve the
 *   layers above and know neither; tlog is the transparency log over the ledger (checkpoints,
 *   C2SP signed notes, cosignatures, the witnesses we ask), below the receipts that quote its
 *   checkpoints; ledger is the append-only record (WAL, hash chain, Merkle trees, proofs, tiles;
 *   a file, or PostgreSQL); postgres speaks to PostgreSQL (the shared state past one instance:
 *   the client, the migrations), below the payment and ledger stores built on it; catalog
 *   describes the endpoints and their prices; market-apis are the HTTP clients of the market
 *   sources (Jupiter, GeckoTerminal, Magic Eden, Kamino), which only intel's market handlers
 *   read; chain speaks to Solana (solana/: RPC and the wire; geyser/: the stream and the
 *   signature watch it feeds; tokens/: token account codecs) and Base (evm/), and holds the key
 *   files and signature primitives (keys/); durable is how every file store writes (group
 *   commit, atomic replace, line logs), knowing no store; errors.ts is the fault taxonomy and
 *   the one path from a fault to a reply;
 * - receipt-checks holds the checks a client runs by itself on what it bought (a receipt, its
 *   ledger entry's proofs), for the storefront page and the CLI; it imports nothing of the
 *   service, so it cannot lean on the service's own verifier.
 */
export const LAYER_RULES: ImportRules = {
  layers: [
    { name: 'cli', paths: ['src/cli/'] },
    { name: 'client', paths: ['src/client/'] },
    { name: 'witness', paths: ['src/witness/'] },
    { name: 'main', paths: ['src/main.ts'] },
    { name: 'service', paths: ['src/service/'] },
    { name: 'config/workers', paths: ['src/config.ts', 'src/config-options.ts', 'src/config-parse.ts', 'src/log-redactor.ts', 'workers/'] },
    { name: 'operations', paths: ['src/operations/'] },
    { name: 'storefront', paths: ['src/storefront/'] },
    { name: 'http', paths: ['src/http/'] },
    { name: 'mcp', paths: ['src/mcp/'] },
    { name: 'preview', paths: ['src/preview/'] },
    { name: 'x402', paths: ['src/x402/'], inner: X402_FOLDERS },
    { name: 'intel', paths: ['src/intel/'] },
    { name: 'caches', paths: ['src/caches/'] },
    { name: 'pool/receipts', paths: ['src/pool/', 'src/receipts/'] },
    { name: 'tlog', paths: ['src/tlog/'] },
    { name: 'ledger', paths: ['src/ledger/'] },
    { name: 'postgres', paths: ['src/postgres/'] },
    { name: 'catalog', paths: ['src/catalog/'] },
    { name: 'market-apis', paths: ['src/market-apis/'] },
    { name: 'chain', paths: ['src/chain/'] },
    { name: 'durable', paths: ['src/durable/'] },
    { name: 'errors', paths: ['src/errors.ts'] },
    { name: 'receipt-checks', paths: ['src/receipt-checks/'] },
  ],
  // The embedded localnet is its own workspace package beside the product: only main.ts starts it.
  apart: [{ place: 'src/localnet/', packageName: /^@solana-x402-intel\/localnet$/, importers: ['src/main.ts'] }],
  libraries: {
    'uWebSockets.js': 'src/http/',
    '@modelcontextprotocol/server': 'src/mcp/mcp-server.ts',
    piscina: 'src/pool/worker-pool.ts',
    'lru-cache': 'src/caches/single-flight-cache.ts',
    typebox: 'src/catalog/',
    '@solana/kit': 'src/chain/',
    '@solana-program/token': 'src/chain/',
    '@triton-one/yellowstone-grpc': 'src/chain/geyser/geyser-client.ts',
    viem: 'src/chain/',
    secp256k1: 'src/chain/evm/secp256k1-recover.ts',
    // The native Keccak addon, loaded (with the package's own loader, node-gyp-build) by this one file.
    keccak: 'src/chain/evm/keccak-256.ts',
    '@noble/curves': 'src/receipt-checks/client-crypto.ts',
    '@noble/hashes': 'src/receipt-checks/client-crypto.ts',
    '@scure/base': 'src/receipt-checks/client-crypto.ts',
    pg: 'src/postgres/pg-client.ts',
    // A WebSocket client on Node 20, which has none without a flag: the client library's streams and the CLI's live ledger.
    ws: 'src/client/client-socket.ts',
    // The official x402 client pays from the CLI; @x402/core comes through @x402/fetch (which
    // re-exports the decoder the CLI needs), so the service's own sources import none of these.
    '@x402/fetch': 'src/cli/x402-payer.ts',
    // The client library pays with the official schemes: exact on both networks, and the channel
    // scheme that keeps a channel's state, deposits and resyncs (its vouchers are signed natively).
    '@x402/svm': ['src/cli/x402-payer.ts', 'src/client/exact-lanes.ts'],
    // @x402/evm has users in two programs: the CLI and the client library pay with its client
    // schemes, and the service runs its batch-settlement facilitator (deposits, claims, refunds on
    // chain) in process.
    '@x402/evm': ['src/cli/x402-payer.ts', 'src/client/exact-lanes.ts', 'src/client/channel-lane.ts', 'src/x402/channels/channel-facilitator.ts'],
    // The bazaar and offer-receipt extensions: the service declares, signs and validates with them;
    // the CLI checks the receipts it is given with the same library's client-side verification.
    '@x402/extensions': ['src/x402/delivery/x402-extensions.ts', 'src/cli/offer-receipt-check.ts'],
  },
};

/** What the CLI may import besides its own files: what a client of the service needs (and the witness program it runs), nothing of the service's serving side. */
export const CLI_REACH = ['src/cli/', 'src/client/', 'src/receipt-checks/', 'src/catalog/', 'src/chain/', 'src/errors.ts', 'src/witness/'];
/** What the client library may import besides its own files: what ships to a bot, nothing of the serving side (not even the witness). */
export const CLIENT_REACH = ['src/client/', 'src/receipt-checks/', 'src/catalog/', 'src/chain/', 'src/errors.ts'];

/** The layer order as the docs state it, top first: `cli` > `main` > ... (a shared layer as `pool`, `trust`). */
export function layerOrderLine(rules: ImportRules = LAYER_RULES): string {
  return rules.layers
    .map((l) =>
      l.name
        .split('/')
        .map((part) => `\`${part}\``)
        .join(', '),
    )
    .join(' > ');
}

/** The folder order inside a layer that has one, as the docs state it: `flow` > `exact`, `channels` > ... (a row of siblings joined by commas). */
export function innerOrderLine(layerName: string, rules: ImportRules = LAYER_RULES): string {
  const rows = rules.layers.find((l) => l.name === layerName)?.inner;
  if (!rows) throw new Error(`layer ${layerName} has no order of its own`);
  return rows.map((row) => row.map((part) => `\`${part.name}\``).join(', ')).join(' > ');
}
