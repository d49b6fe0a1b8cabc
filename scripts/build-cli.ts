/**
 * Builds the x402-intel CLI as one JavaScript file, dist/cli/x402-intel.js, for the test run: the
 * tests run the CLI as a child process a few dozen times, and through its launcher
 * (bin/x402-intel.mjs: tsx compiling our TypeScript sources as they load) a start cost about 5 s of
 * CPU. Like the server's build (scripts/build-server.ts), the pure-JavaScript libraries with large
 * module graphs are bundled too, the x402 client included, so one copy of @x402/core is loaded:
 * a start is about 0.6 s of CPU, against 1.6 s with every npm package loaded from node_modules.
 * A library's dependency is bundled from the copy that library would load when the top-level copy
 * is another version (scripts/package-externals.ts): @x402/extensions verifies x402 receipts with
 * its own jose 5, and with the tree's jose 6 every receipt failed. Users run the launcher; one test
 * still does (test/integration/cli.test.ts).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLED_PACKAGES } from './build-server.ts';
import { packageExternals } from './package-externals.ts';

/** Our own workspace package: bundled (its exports are TypeScript). */
const OWN_PACKAGES: ReadonlySet<string> = new Set(['@solana-x402-intel/localnet']);
/** The server's bundled libraries, and the x402 client the CLI pays with (it imports @x402/core: one copy of it). */
const CLI_BUNDLED_PACKAGES: ReadonlySet<string> = new Set([...BUNDLED_PACKAGES, '@x402/fetch']);

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
    plugins: [packageExternals({ own: OWN_PACKAGES, bundled: CLI_BUNDLED_PACKAGES, outDir })],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}
