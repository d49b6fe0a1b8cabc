/**
 * Builds the service as JavaScript (`npm run build:server`, part of `npm run build`, run before
 * `npm start`): esbuild bundles src/main.ts and the worker pool's entry into dist/server/, so
 * production runs plain Node with no TypeScript loader. Our own code, the embedded localnet's
 * included, is bundled, and so are the pure-JavaScript libraries whose module graphs are large
 * (BUNDLED_PACKAGES): loaded from node_modules as they are, typebox, viem, the x402 and MCP
 * packages alone are some 1,600 ES modules, and resolving, reading and compiling them was about
 * half of the service's start; bundled, only what the service uses is compiled. The others stay
 * outside (native addons, packages that find files beside themselves, and the rest).
 * The localnet sits in its own chunk, reached only through main's dynamic import, so mainnet mode
 * never loads it. Source maps go beside the files, for whoever maps a stack on purpose: `npm start`
 * runs with them off (docs/operations.md#stack-traces-and-source-maps).
 *
 * Layout rules the code relies on: the files sit two levels below the repository root (like
 * src/<layer>/<file>.ts), so paths such as `../../dist/web/` resolve the same from both; the pool
 * worker's bundle is `pool-worker.js` beside them (src/pool/worker-pool.ts); the SQL migrations are
 * copied to `migrations/` beside them (src/postgres/migrate.ts).
 */
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeBuildStamp } from './build-stamp.mjs';
import { packageExternals } from './package-externals.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the built service goes (gitignored). */
export const SERVER_OUT_DIR = join(ROOT, 'dist', 'server');
/** What is bundled: output name (`<name>.js` in SERVER_OUT_DIR) -> its source. */
export const SERVER_ENTRY_POINTS: Readonly<Record<string, string>> = {
  main: 'src/main.ts',
  'pool-worker': 'workers/pool-worker.ts',
  // The embedded localnet's process, which the service starts beside itself (its spawner names this file).
  'localnet-process': 'packages/localnet/src/process/localnet-process.ts',
};
/** Our own workspace package: bundled, not loaded from node_modules (its exports are TypeScript). */
const OWN_PACKAGES: ReadonlySet<string> = new Set(['@solana-x402-intel/localnet']);
/**
 * npm packages bundled too: pure JavaScript, no native addon, no file read beside themselves, and
 * many modules each. A package imported both by one of these and by an external package would load
 * twice (two copies of its classes); none is today: the external ones (kit, gRPC, pg, uWS, Piscina)
 * import none of these. A dependency of these that the bundle's directory would find in another
 * version than they do is bundled too (scripts/package-externals.ts: jose 5 of @x402/extensions).
 */
export const BUNDLED_PACKAGES: ReadonlySet<string> = new Set([
  'typebox',
  'viem',
  'ox',
  'abitype',
  '@x402/core',
  '@x402/evm',
  '@x402/svm',
  '@x402/extensions',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/core',
  'zod',
  '@noble/curves',
  '@noble/hashes',
  '@scure/base',
  '@scure/bip32',
  '@scure/bip39',
]);

/** Bundles the service into `outDir` (replaced as a whole); returns the files written. */
export async function buildServer(outDir: string = SERVER_OUT_DIR): Promise<string[]> {
  rmSync(outDir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { ...SERVER_ENTRY_POINTS },
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    // Stack traces need only the mappings; in a process run with --enable-source-maps a map's
    // embedded sources would sit in the heap for its whole life.
    sourcesContent: false,
    // Chunks beside the entries: every file keeps the depth the relative paths assume.
    chunkNames: '[name]-[hash]',
    plugins: [packageExternals({ own: OWN_PACKAGES, bundled: BUNDLED_PACKAGES, outDir })],
    // A bundled CommonJS module's require() of a Node built-in or an external package: ES modules
    // have no require, so each output file makes one (esbuild otherwise throws "Dynamic require").
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    metafile: true,
    logLevel: 'warning',
  });
  // The database migrations are read at start from `migrations/` beside the code (src/postgres/migrate.ts).
  cpSync(join(ROOT, 'src', 'postgres', 'migrations'), join(outDir, 'migrations'), { recursive: true });
  const migrations = readdirSync(join(ROOT, 'src', 'postgres', 'migrations')).map((f) => `src/postgres/migrations/${f}`);
  // What `npm start` compares to decide whether to build again (scripts/start.mjs).
  writeBuildStamp(outDir, ROOT, [...Object.keys(result.metafile.inputs), ...migrations]);
  return Object.keys(result.metafile.outputs).map((p) => relative(ROOT, join(ROOT, p)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const files = await buildServer();
  console.log(`build-server: ${files.filter((f) => f.endsWith('.js')).length} files in dist/server/ in ${Math.round(performance.now() - started)} ms`);
}
