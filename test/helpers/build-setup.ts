/**
 * Vitest global setup: builds what the service runs from before any test file runs, so a test run
 * (even `npx vitest run <file>`, without `npm test`) runs the sources as they are now: the
 * storefront's assets (the service refuses to start without them) and the server bundle
 * (dist/server/, what `npm start` runs). Tests that start the service as a child process run that
 * bundle by default (test/helpers/service-process.ts): a start from it costs about two thirds of
 * the CPU of a start through the TypeScript loader. Likewise the CLI's bundle (dist/cli/), which
 * the tests that run the CLI as a child process run (test/helpers/cli-process.ts): about a third
 * of a start through its launcher's TypeScript loader.
 *
 * Each bundle is built beside its directory and moved in only when it differs, so a run begun
 * while another run in the same tree is starting services does not pull the files from under them.
 *
 * It also makes the run's world snapshots (docs/localnet.md): a directory of its own, named to every
 * test process and every service they spawn by LOCALNET_WORLD_DIR (the service's option of that name
 * reads it; the test helpers that start a localnet in-process pass it on), holding the worlds of the
 * seeds most starts use, built once here: each of the run's many localnet starts on those seeds
 * plays its world back instead of building it. A start on another seed builds it and keeps it there.
 *
 * And it names the server bundle's pool worker in POOL_WORKER_BUNDLE: the worker threads of the
 * services a test starts in its own process load it (workers/pool-worker-tsx.mjs) instead of
 * compiling the sources in every thread (0.06 s of CPU against 0.35 s a thread).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLocalChain } from '../../packages/localnet/src/chain/local-chain.ts';
import { openWorld } from '../../packages/localnet/src/snapshot/world-snapshot.ts';
import { buildCli, CLI_OUT_DIR } from '../../scripts/build-cli.ts';
import { buildServer, SERVER_OUT_DIR } from '../../scripts/build-server.ts';
import { buildWeb } from '../../scripts/build-web.ts';
import { COMMON_TEST_SEED } from './world-snapshots.ts';

/** Whether `b` holds exactly the files of `a`, byte for byte. */
function sameTree(a: string, b: string): boolean {
  if (!existsSync(b)) return false;
  const list = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
  const files = list(a);
  if (files.join('\n') !== list(b).join('\n')) return false;
  return files.every((f) => statSync(join(a, f)).isDirectory() || readFileSync(join(a, f)).equals(readFileSync(join(b, f))));
}

/** Builds a bundle with `build` and puts it in place at `outDir` unless the same bundle is there. */
async function buildIfChanged(build: (dir: string) => Promise<unknown>, outDir: string): Promise<void> {
  const next = `${outDir}.next-${process.pid}`;
  const old = `${outDir}.old-${process.pid}`;
  try {
    // Same depth as the final directory: the bundle's relative paths (source maps, ../../dist/web/) hold.
    await build(next);
    if (sameTree(next, outDir)) return;
    if (existsSync(outDir)) renameSync(outDir, old);
    renameSync(next, outDir);
  } finally {
    rmSync(next, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
}

/** The seeds of most localnet starts: the test helpers' default and the service's own default. */
const COMMON_SEEDS = [COMMON_TEST_SEED, 'localnet-1'];

/** Builds the common seeds' worlds into a new directory; returns it. */
async function keepWorldSnapshots(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'x402-intel-worlds-'));
  for (const seed of COMMON_SEEDS) {
    const createChain = () => createLocalChain({ slotsPerEpoch: 64n, startUnixSeconds: Math.floor(Date.now() / 1000) });
    (await openWorld({ seed, createChain, snapshotDir: dir })).save();
  }
  return dir;
}

export default async function setup(): Promise<() => void> {
  const [worlds] = await Promise.all([keepWorldSnapshots(), buildWeb(), buildIfChanged(buildServer, SERVER_OUT_DIR), buildIfChanged(buildCli, CLI_OUT_DIR)]);
  process.env.LOCALNET_WORLD_DIR = worlds;
  // The in-process services' pool threads start from the worker bundle just built, not by
  // compiling the TypeScript sources in each thread (workers/pool-worker-tsx.mjs).
  process.env.POOL_WORKER_BUNDLE = pathToFileURL(join(SERVER_OUT_DIR, 'pool-worker.js')).href;
  return () => rmSync(worlds, { recursive: true, force: true });
}
