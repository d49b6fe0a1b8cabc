#!/usr/bin/env node
/**
 * `npm start -- [options]`: the service from its build (dist/, plain Node, no TypeScript loader).
 *
 * - `--help` prints the options from the option table (src/config.ts, through tsx), builds
 *   nothing and loads nothing of the service.
 * - When the build is current (scripts/build-stamp.mjs: every file it was made from unchanged),
 *   the service starts from it at once, in this process.
 * - Otherwise the ports and the data directory are checked first (src/service/start-checks.ts:
 *   a second copy on a busy port says so before anything is built or written), then the storefront
 *   and the server are built, each step on a progress line with its time, then the service starts.
 * - The service runs with source maps off: stack traces name the bundle's lines, not TypeScript's.
 *
 * Plain JavaScript: it runs before anything is built.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBuildFresh } from './build-stamp.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILT_MAIN = join(ROOT, 'dist', 'server', 'main.js');
const argv = process.argv.slice(2);
const started = performance.now();
const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;

/** Whether both builds (the server, the page) are of the sources as they are now. */
const fresh = () => isBuildFresh(join(ROOT, 'dist', 'server'), ROOT) && isBuildFresh(join(ROOT, 'dist', 'web'), ROOT);

/** Runs `work` with the TypeScript loader registered, and unregisters it after. */
async function withTypeScript(work) {
  const { register } = await import('tsx/esm/api');
  const unregister = register({ tsconfig: false });
  try {
    return await work();
  } finally {
    await unregister();
  }
}

/** The same checks and the same sentences as the service's own start (src/main.ts), exit 2 on a refusal. */
async function checkBeforeBuilding() {
  await withTypeScript(async () => {
    const { loadConfig } = await import('../src/config.ts');
    const { ConfigError, InUseError } = await import('../src/errors.ts');
    const { checkStart } = await import('../src/service/start-checks.ts');
    try {
      await checkStart(loadConfig(process.env, argv));
    } catch (err) {
      if (!(err instanceof ConfigError || err instanceof InUseError)) throw err;
      console.error(err.message);
      if (err instanceof ConfigError) console.error('run with --help for the list of options');
      process.exit(2);
    }
  });
}

async function build() {
  console.log('building the service (dist/ is missing or older than the sources)');
  await withTypeScript(async () => {
    const [{ buildWeb }, { buildServer }] = await Promise.all([import('./build-web.ts'), import('./build-server.ts')]);
    await Promise.all([buildWeb(), buildServer()]);
  });
  console.log(`built dist/web/ and dist/server/ in ${seconds()}`);
}

if (argv.includes('--help') || argv.includes('-h')) {
  // The option table alone (src/config.ts), not the service: nothing is built, nothing else loads.
  await withTypeScript(async () => console.log((await import('../src/config.ts')).helpText()));
} else {
  if (!fresh()) {
    await checkBeforeBuilding();
    await build();
  }
  // Off, even when NODE_OPTIONS says --enable-source-maps: with maps on, the first read of an
  // error's stack through a bundle file parses that file's whole map on the event loop, and Node
  // reads stacks itself (a stream destroyed with an error), so a paid call could wait behind it
  // (docs/operations.md#stack-traces-and-source-maps). Set before the import: a module's map is
  // read when it loads only if maps are on then.
  process.setSourceMapsEnabled(false);
  await import(BUILT_MAIN);
}
