/**
 * Builds the client library as JavaScript (`npm run build:client`, part of `npm run build`): esbuild
 * bundles src/client/index.ts into dist/client/index.js, which the package exports as
 * `solana-x402-intel/client` (package.json `exports`; its types are the TypeScript sources). npm
 * packages stay outside the bundle, as in the server's build (they load from node_modules); our own
 * code is bundled, and the library reaches none of the service's (test/unit/import-layers.test.ts).
 */
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the built library goes (gitignored). */
export const CLIENT_OUT_DIR = join(ROOT, 'dist', 'client');

/** Every bare import (an npm package) stays external. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
  },
};

/** Bundles the library into `outDir` (replaced as a whole); returns the files written. */
export async function buildClient(outDir: string = CLIENT_OUT_DIR): Promise<string[]> {
  rmSync(outDir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { index: 'src/client/index.ts' },
    outdir: outDir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    plugins: [externalPackages],
    metafile: true,
    logLevel: 'warning',
  });
  return Object.keys(result.metafile.outputs).map((p) => relative(ROOT, join(ROOT, p)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const files = await buildClient();
  console.log(`build-client: ${files.filter((f) => f.endsWith('.js')).join(', ')} in ${Math.round(performance.now() - started)} ms`);
}
