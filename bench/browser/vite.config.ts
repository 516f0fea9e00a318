/**
 * Vite config for the in-browser bench page only (the app's vite.config.ts is untouched).
 * Root is the repo root, so the app's workers and their `/node_modules/…` grammar glob
 * resolve exactly as in the app; the page is bench/browser/index.html. The preview server
 * sends COOP/COEP (cross-origin isolation: ORT threads, measureUserAgentSpecificMemory)
 * and serves models/generated/ at /models/generated/ and bench/corpora/ at CORPORA_URL.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { serveFolder } from '../../vite-plugins/sift-pwa.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** SIFT_BENCH_DIST: another folder, so parallel bench runs (several engineers) do not share one build. */
export const BENCH_OUT_DIR = process.env.SIFT_BENCH_DIST ?? `${REPO_ROOT}bench/tmp/browser-dist`;
/** SIFT_BENCH_MINIFY=0: keep function names in the build, for a readable `--trace`. */
const MINIFY = process.env.SIFT_BENCH_MINIFY !== '0';
export const BENCH_PAGE = 'bench/browser/index.html';
export const CORPORA_URL = '/__bench/corpora/';
export const ISOLATION_HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

function benchServe(): Plugin {
  return {
    name: 'sift-bench-serve',
    configurePreviewServer(server) {
      server.middlewares.use((_req, res, next) => {
        for (const [k, v] of Object.entries(ISOLATION_HEADERS)) res.setHeader(k, v);
        next();
      });
      server.middlewares.use(serveFolder('/models/generated/', `${REPO_ROOT}models/generated`));
      server.middlewares.use(serveFolder(CORPORA_URL, `${REPO_ROOT}bench/corpora`));
    },
  };
}

export default defineConfig({
  root: REPO_ROOT,
  base: '/',
  plugins: [benchServe()],
  worker: { format: 'es' },
  logLevel: 'warn',
  publicDir: false,
  build: {
    target: 'es2022',
    outDir: BENCH_OUT_DIR,
    emptyOutDir: true,
    sourcemap: false,
    minify: MINIFY,
    chunkSizeWarningLimit: 1 << 20,
    rolldownOptions: { input: { bench: `${REPO_ROOT}${BENCH_PAGE}` } },
  },
  preview: { host: '127.0.0.1', port: 4188, strictPort: false, headers: ISOLATION_HEADERS },
});
