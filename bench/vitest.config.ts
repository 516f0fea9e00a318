// Vitest config for running only the bench helpers' own tests (the root config collects them
// too, with src/, workers/ and test/). Run: npx vitest run --config bench/vitest.config.ts
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/**/*.test.ts'],
    exclude: ['bench/corpora/**', 'bench/tmp/**', 'node_modules/**'],
    root: new URL('..', import.meta.url).pathname,
    environment: 'node',
    testTimeout: 60_000,
    pool: 'forks',
  },
});
