import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that must have the machine to themselves: their fast-check properties stop after a time
 * limit (`interruptAfterTimeLimit`), so beside other files they would check fewer cases. They run
 * one at a time after the rest (docs/development.md, "Test layout and parallelism").
 */
const ALONE = ['test/integration/fuzz.test.ts', 'test/adversarial/payment-properties.test.ts'];

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
    // The storefront's assets, built once per run (the service will not start without them); the
    // root's global setup runs once for both groups.
    globalSetup: ['test/helpers/build-web-setup.ts'],
    // Files at once in the parallel group (the alone group sets its own 1); --maxWorkers=<n> on the
    // command line overrides it. Every file owns its ports (0), data dirs and database, and half of a
    // file's time is waiting on slots and confirmations, so three keep two cores busy where one left
    // them half idle (docs/development.md, "Test layout and parallelism").
    maxWorkers: 3,
    projects: [
      {
        test: {
          ...COMMON,
          name: 'parallel',
          // The workspace packages' own tests run with the service's, under the same settings.
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE],
          sequence: { groupOrder: 0 },
        },
      },
      { test: { ...COMMON, name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
