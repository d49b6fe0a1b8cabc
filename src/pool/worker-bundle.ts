/**
 * The pool's worker entry as one plain-JS module, built from the TypeScript sources when the
 * service runs from them. Registering tsx inside each worker (Node 20 workers do not inherit
 * `--import tsx`) cost every worker a loader-hooks thread and tsx's transform state: about 55 MB
 * of RSS per worker, measured (docs/benchmarks.md#idle-memory). Our own code is bundled; npm
 * packages stay imports that Node resolves as usual, so the worker runs exactly the same code.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, stop } from 'esbuild';

/**
 * Under the repository's dist/, so the bundle's package imports resolve from the repository's
 * node_modules exactly as the sources' do.
 */
const OUT_DIR = fileURLToPath(new URL('../../dist/workers/', import.meta.url));

/** One build per entry per process: pools created at once share it (and `stop` ends no other build). */
const built = new Map<string, Promise<URL>>();

/**
 * Bundles `entry` and returns the URL of the written module. The name carries the content's
 * hash and the file is renamed into place, so services starting at once never read a partial
 * file and an old bundle is never run for newer sources.
 */
export function bundleWorkerEntry(entry: URL): Promise<URL> {
  let url = built.get(entry.href);
  if (!url) {
    url = buildOnce(entry);
    built.set(entry.href, url);
    // A failed build may succeed later (a full disk freed): do not cache the failure.
    url.catch(() => built.delete(entry.href));
  }
  return url;
}

async function buildOnce(entry: URL): Promise<URL> {
  const result = await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    // The esbuild child process is only needed for this build.
  }).finally(() => stop());
  const code = result.outputFiles[0]!.contents;
  const name = `pool-worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`;
  mkdirSync(OUT_DIR, { recursive: true });
  const temp = `${OUT_DIR}${name}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, code);
  renameSync(temp, `${OUT_DIR}${name}`);
  return pathToFileURL(`${OUT_DIR}${name}`);
}
