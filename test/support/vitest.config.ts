// Vitest config for the shared test helpers' own tests (test/support/). The root config
// (vite.config.ts `test.include`) does not collect test/support/ yet.
// Run: npx vitest run --config test/support/vitest.config.ts
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/support/**/*.test.ts'],
    root: new URL('../..', import.meta.url).pathname,
    environment: 'node',
    testTimeout: 30_000,
    pool: 'forks',
  },
});
