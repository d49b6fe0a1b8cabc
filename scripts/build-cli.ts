/**
 * Builds the x402-intel CLI's own code as one JavaScript file, dist/cli/x402-intel.js, for the test
 * run: the tests run the CLI as a child process a few dozen times, and through its launcher
 * (bin/x402-intel.mjs: tsx compiling our TypeScript sources as they load) a start cost about 5 s of
 * CPU; from this file, under 2 s. Every npm package stays outside, loaded by Node from node_modules
 * exactly as the launcher loads it: bundling the x402 packages too, as the server's build does
 * (scripts/build-server.ts), cut a start to 0.7 s but made verify-receipt fail the x402 receipt's
 * JWS signature, so the CLI's libraries are left as users get them. Users run the launcher; one test
 * still does (test/integration/cli.test.ts).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** Every bare import (an npm package) stays external but our own workspace package (its exports are TypeScript). */
const npmPackagesOutside: Plugin = {
  name: 'npm-packages-outside',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@solana-x402-intel/') ? undefined : { path: args.path, external: true }));
  },
};

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the bundled CLI goes (gitignored). */
export const CLI_OUT_DIR = join(ROOT, 'dist', 'cli');
/** The bundle's file name in its directory. */
export const CLI_BUNDLE_NAME = 'x402-intel.js';

/** Bundles the CLI's code into `outDir`: what bin/x402-intel.mjs runs, without the TypeScript loader. */
export async function buildCli(outDir: string = CLI_OUT_DIR): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    // The launcher's two lines, minus tsx.
    stdin: { contents: "import { main } from './src/cli/main.ts';\nawait main();\n", resolveDir: ROOT, sourcefile: 'x402-intel-entry.ts', loader: 'ts' },
    outfile: join(outDir, CLI_BUNDLE_NAME),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    plugins: [npmPackagesOutside],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}
