import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The workspace packages' own tests run with the service's, under the same settings.
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The storefront's assets, built once per run (the service will not start without them).
    globalSetup: ['test/helpers/build-web-setup.ts'],
    // Node 20 has its WebSocket client behind this flag (Node 22 has it on): the live ledger
    // feed is tested with the platform's own client.
    execArgv: ['--experimental-websocket'],
  },
});
