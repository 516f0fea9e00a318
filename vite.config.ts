import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { siftPwa } from './vite-plugins/sift-pwa.ts';

// Relative base: the built app works from any static host and any sub-path.
// siftPwa: manifest/icons/CSP tags, dist/sw.js with the precache list, /models/generated/ in dev+preview.
export default defineConfig({
  base: './',
  plugins: [svelte(), siftPwa()],
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 4096 },
  test: {
    include: [
      'src/**/*.test.ts', 'workers/**/*.test.ts', 'test/unit/**/*.test.ts', 'test/cli/**/*.test.ts',
      'vite-plugins/**/*.test.ts', 'bench/**/*.test.ts', 'test/support/**/*.test.ts',
    ],
    exclude: ['bench/corpora/**', 'bench/tmp/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A test that fails is run once more before it counts; Vitest reports every retry. For the
    // CLI's rare hang in Node's own exit under CPU load (bin/sift; nodejs/node#54918), which
    // fails the test that spawned it by timeout without saying anything about Sift.
    retry: 1,
    pool: 'forks',
    // No warm server (docs/cli.md "Warm server") for the CLI tests: every `sift` they run answers
    // in-process and none starts a server that outlives them; test/cli/serve.test.ts starts its own.
    env: { SIFT_SERVER: '0' },
  },
});
