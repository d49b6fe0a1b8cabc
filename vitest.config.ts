import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The workspace packages' own tests run with the service's, under the same settings.
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
