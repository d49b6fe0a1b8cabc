/**
 * The layers of the service, kept true: every file of src/ and workers/ imports only its own
 * layer and the layers below, no files import each other in a loop, and each outside library is
 * imported only by its owner. A failure names the file and the import that breaks the rule.
 */
import { posix } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { checkImports, readSources, repositoryRoot, type ImportRules } from '../helpers/import-layers.ts';

/**
 * Top layer first. Why each sits where it does:
 * - cli is a client of the service, not a part of it: nothing of the service imports it, so it
 *   sits above main, and the rule below narrows what it may reach (the client checks, the
 *   catalog, the key-file readers of chain, errors.ts), never the server, payments or HTTP side;
 * - witness is a program of its own beside the service (a transparency-log witness, and the
 *   offline check of a cosigned proof against a policy): it reads the trust layer's formats and
 *   proofs, nothing of the serving side, and only the CLI (`x402-intel witness`, verify-receipt
 *   --policy) runs it;
 * - main.ts starts everything (and alone starts the embedded localnet);
 * - service.ts composes the HTTP service from a Config (its trust and payment sides in service/);
 * - config.ts and workers/ are the composition's own leaves: the options only the composition
 *   reads (every lower layer gets a readonly slice of them, never Config), and the worker
 *   thread's entry, whose exports are the pool's task table;
 * - http turns requests into calls and replies into bytes; mcp serves the same calls as MCP
 *   tools (web Request in, Response out), below http, which drives it; preview serves a paid
 *   endpoint's answer, cut, once a day per client for free, beside the paid flow rather than in
 *   it (it imports nothing of x402); x402 takes and settles payments;
 *   intel computes the paid answers; caches hold the live chain figures intel reads;
 * - pool (threads for CPU work) and trust (receipts, ledger) serve the layers above and know
 *   neither; store speaks to PostgreSQL (the shared state past one instance: the client, the
 *   migrations), below the payment and trust stores built on it; catalog describes the endpoints and their prices; chain speaks to Solana, Base and
 *   the market sources; errors.ts is the fault taxonomy and the one path from a fault to a reply;
 * - client holds the checks a client runs by itself (receipts, proofs), for the storefront page and
 *   the CLI; it imports nothing of the service, so it cannot lean on the service's own verifier.
 */
const RULES: ImportRules = {
  layers: [
    { name: 'cli', paths: ['src/cli/'] },
    { name: 'witness', paths: ['src/witness/'] },
    { name: 'main', paths: ['src/main.ts'] },
    { name: 'service', paths: ['src/service.ts', 'src/service/'] },
    { name: 'config/workers', paths: ['src/config.ts', 'src/config-options.ts', 'src/config-parse.ts', 'src/log-redactor.ts', 'workers/'] },
    { name: 'http', paths: ['src/http/'] },
    { name: 'mcp', paths: ['src/mcp/'] },
    { name: 'preview', paths: ['src/preview/'] },
    { name: 'x402', paths: ['src/x402/'] },
    { name: 'intel', paths: ['src/intel/'] },
    { name: 'caches', paths: ['src/caches/'] },
    { name: 'pool/trust', paths: ['src/pool/', 'src/trust/'] },
    { name: 'store', paths: ['src/store/'] },
    { name: 'catalog', paths: ['src/catalog/'] },
    { name: 'chain', paths: ['src/chain/'] },
    { name: 'errors', paths: ['src/errors.ts'] },
    { name: 'client', paths: ['src/client/'] },
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
    '@triton-one/yellowstone-grpc': 'src/chain/geyser-client.ts',
    viem: 'src/chain/',
    secp256k1: 'src/chain/secp256k1-recover.ts',
    '@noble/curves': 'src/client/client-crypto.ts',
    '@noble/hashes': 'src/client/client-crypto.ts',
    '@scure/base': 'src/client/client-crypto.ts',
    pg: 'src/store/pg-client.ts',
    // The official x402 client pays from the CLI; @x402/core comes through @x402/fetch (which
    // re-exports the decoder the CLI needs), so the service's own sources import none of these.
    '@x402/fetch': 'src/cli/x402-payer.ts',
    '@x402/svm': 'src/cli/x402-payer.ts',
    // @x402/evm has two users in two programs: the CLI pays with its client, and the service runs
    // its batch-settlement facilitator (deposits, claims, refunds on chain) in process.
    '@x402/evm': ['src/cli/x402-payer.ts', 'src/x402/channel-facilitator.ts'],
  },
};

/** What the CLI may import besides its own files: what a client of the service needs (and the witness program it runs), nothing of the service's serving side. */
const CLI_REACH = ['src/cli/', 'src/client/', 'src/catalog/', 'src/chain/', 'src/errors.ts', 'src/witness/'];

/** Every import of a src/cli/ file that resolves into the repository outside CLI_REACH. */
function cliOverreach(files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [file, source] of files) {
    if (!file.startsWith('src/cli/')) continue;
    for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), fileName));
      if (target === 'package.json') continue;
      if (!CLI_REACH.some((place) => (place.endsWith('/') ? target.startsWith(place) : target === place)))
        problems.push(`${file} imports '${fileName}': the CLI reaches only ${CLI_REACH.join(', ')}`);
    }
  }
  return problems;
}

describe('import layers', () => {
  it('src/ and workers/ keep the layer map: no upward import, no circle, libraries only at their owners', () => {
    const files = readSources(repositoryRoot(import.meta.url), ['src', 'workers']);
    expect(files.size).toBeGreaterThan(100);
    expect(checkImports(files, RULES)).toEqual([]);
  });

  it('src/cli/ imports only what a client needs: src/client, src/catalog, src/chain, errors.ts', () => {
    const files = readSources(repositoryRoot(import.meta.url), ['src']);
    expect([...files.keys()].filter((f) => f.startsWith('src/cli/')).length).toBeGreaterThan(5);
    expect(cliOverreach(files)).toEqual([]);
    const synthetic = new Map([['src/cli/bad.ts', "import { x } from '../x402/paid-call.ts';\nimport { y } from '../client/receipt-check.ts';"]]);
    expect(cliOverreach(synthetic)).toEqual([`src/cli/bad.ts imports '../x402/paid-call.ts': the CLI reaches only ${CLI_REACH.join(', ')}`]);
  });

  it('the check finds what it forbids (a synthetic tree)', () => {
    const files = new Map([
      ['src/chain/low.ts', "import type { Up } from '../x402/up.ts';\nexport const v = () => import('../http/route.ts');"],
      ['src/x402/up.ts', "export { a } from './a.ts';\nimport uWS from 'uWebSockets.js';"],
      ['src/x402/a.ts', "import type { Up } from './up.ts';\ntype W = typeof import('./a.ts');"],
      ['src/http/route.ts', "import { leftPad } from 'left-pad';"],
      ['src/intel/x.ts', "import { startLocalnet } from '../localnet/start.ts';"],
      ['src/main.ts', "import { startLocalnet } from './localnet/start.ts';"],
      ['src/localnet/start.ts', "import { anything } from '../service.ts';"],
      ['src/stray.ts', ''],
    ]);
    expect(checkImports(files, RULES).sort()).toEqual([
      'import circle: src/x402/a.ts -> src/x402/up.ts',
      "src/chain/low.ts imports '../http/route.ts': chain may not import http (a higher layer)",
      "src/chain/low.ts imports '../x402/up.ts': chain may not import x402 (a higher layer)",
      "src/http/route.ts imports 'left-pad': the library has no owner in the library map",
      "src/intel/x.ts imports '../localnet/start.ts': only src/main.ts may import src/localnet/",
      'src/stray.ts is in no layer: place it in the layer map',
      "src/x402/up.ts imports 'uWebSockets.js': only src/http/ may import uWebSockets.js",
    ]);
  });
});
