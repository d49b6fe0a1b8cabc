/**
 * Builds the x402-intel CLI as one JavaScript file, dist/cli/x402-intel.js, for the test run: the
 * tests run the CLI as a child process some fifty times, and through its launcher
 * (bin/x402-intel.mjs: tsx, then the TypeScript sources and some 1,600 ES modules of the x402,
 * viem and kit packages) each start cost about 5 s of CPU. Bundled as the server is
 * (scripts/build-server.ts: the same packages bundled, the same ones left outside), a start is a
 * fraction of that. Users run the launcher; one test still does (test/integration/cli.test.ts).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { externalPackages } from './build-server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the bundled CLI goes (gitignored). */
export const CLI_OUT_DIR = join(ROOT, 'dist', 'cli');
/** The bundle's file name in its directory. */
export const CLI_BUNDLE_NAME = 'x402-intel.js';

/** Bundles the CLI into `outDir`; what bin/x402-intel.mjs runs, without the TypeScript loader. */
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
    plugins: [externalPackages],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}
