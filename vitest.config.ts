import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import SlowestFirstSequencer from './test/helpers/slowest-first-sequencer.ts';

// --- The shared group: files that run one after another in one process, without isolation ------
// A fresh process per file pays Node's start, module loading (about 2 s of CPU for a file that
// starts the service) and every first-call cost again; files that leave the process as they found
// it share one instead (docs/development.md, "Test layout and parallelism"). Every test file is in
// it unless a rule or the list below keeps it isolated; test/helpers/shared-process-check.ts fails
// a shared file that leaves a handle, a timer, a process listener, a console patch or an env change.

/** Mocks, spies, stubbed globals and fake timers change modules or globals every later file would see. */
const CHANGES_THE_PROCESS = /\bvi\.(mock|doMock|unmock|stubGlobal|stubEnv|spyOn|useFakeTimers|resetModules)\b/;

/** Files kept isolated for a reason the rule above does not see, each with the reason. */
const ISOLATED: readonly string[] = [];

const TEST_FILE = /\.test\.ts$/;
const ROOT = fileURLToPath(new URL('.', import.meta.url));
const testFiles = ['test', ...readdirSync(`${ROOT}packages`).map((p) => `packages/${p}/test`)].flatMap((dir) => {
  let names: string[];
  try {
    names = readdirSync(`${ROOT}${dir}`, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return names.filter((n) => TEST_FILE.test(n)).map((n) => `${dir}/${n}`);
});
/** The shared group's files: all but those the rule finds and the ISOLATED list. */
const SHARED = testFiles
  .filter((f) => !ISOLATED.includes(f))
  .filter((f) => !CHANGES_THE_PROCESS.test(readFileSync(`${ROOT}${f}`, 'utf8')))
  .sort();
// ------------------------------------------------------------------------------------------------

/** What every file runs under, whichever group it is in. */
const COMMON = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  // Node 20 has its WebSocket client behind this flag (Node 22 has it on): the live ledger
  // feed is tested with the platform's own client.
  execArgv: ['--experimental-websocket'],
};

export default defineConfig({
  test: {
    // The storefront's assets (the service will not start without them) and the server bundle that
    // spawned services run, built once per run; the root's global setup serves every group.
    globalSetup: ['test/helpers/build-setup.ts'],
    // Longest files first, from the last run's durations or test/file-durations.json in a clean clone:
    // a long file handed out last ran on alone at the end (docs/development.md, "Test layout and parallelism").
    sequence: { sequencer: SlowestFirstSequencer },
    // Files at once; --maxWorkers=<n> on the command line overrides it. Every file owns its ports (0),
    // data dirs and database, and half of a file's time is waiting on slots and confirmations, so three
    // keep two cores busy where one left them half idle (docs/development.md, "Test layout and parallelism").
    maxWorkers: 3,
    projects: [
      {
        test: {
          ...COMMON,
          name: 'parallel',
          // The workspace packages' own tests run with the service's, under the same settings.
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SHARED],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...COMMON,
          name: 'shared',
          include: SHARED,
          isolate: false,
          setupFiles: ['test/helpers/shared-process-check.ts'],
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
