/**
 * Iteration config: the same as playwright.config.ts but on its own port (4190, so it never
 * collides with a full run on 4179) and reusing a running preview server:
 *   npx vite build && npx vite preview --port 4190 --strictPort --host 127.0.0.1 &
 *   npx playwright test -c test/e2e/helpers/reuse.config.ts <spec>
 */
import base from '../../../playwright.config.ts';
import { defineConfig } from '@playwright/test';

const PORT = 4190;

export default defineConfig({
  ...base,
  testDir: '..',
  use: { ...base.use, baseURL: `http://127.0.0.1:${PORT}/` },
  webServer: {
    command: `npx vite preview --port ${PORT} --strictPort --host 127.0.0.1`,
    url: `http://127.0.0.1:${PORT}/`,
    reuseExistingServer: true,
    timeout: 60_000,
  },
});
