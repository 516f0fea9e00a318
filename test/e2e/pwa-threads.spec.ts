/**
 * Measurement, not a gate: does cross-origin isolation (SW-provided COOP/COEP) let ONNX
 * Runtime use 2 threads, and do they pay for embedding? Runs only with SIFT_BENCH_THREADS=1
 * against the PWA build (pwa.playwright.config.ts, which exports Embedder from
 * fixtures/pwa-wasm-entry.ts) and prints chunks/s for 1 vs 2 threads.
 */
import { test, expect } from '@playwright/test';
import { readdirSync } from 'node:fs';
import { serveStatic } from './fixtures/static-server.ts';

const DIST = process.env.SIFT_DIST ?? 'dist';
const MODEL = process.env.SIFT_BENCH_MODEL ?? 'minilm-shape';
const TEXTS = 64;

test.skip(process.env.SIFT_BENCH_THREADS !== '1', 'measurement: set SIFT_BENCH_THREADS=1');

test('embedding throughput, 1 vs 2 threads, under SW cross-origin isolation', async ({ page }) => {
  test.setTimeout(600_000);
  const entry = readdirSync(`${DIST}/assets`).find((f) => /^pwa-wasm-.*\.js$/.test(f));
  expect(entry, 'build with pwa.vite.config.ts').toBeTruthy();
  const server = await serveStatic(DIST, '/app/', { 'models/generated/': 'models/generated' });
  try {
    await page.goto(server.url);
    await page.evaluate(async () => {
      await navigator.serviceWorker.register('./sw.js');
      await navigator.serviceWorker.ready;
      const cache = await caches.open('sift-settings');
      await cache.put(new URL('__sift/coi', document.baseURI).href, new Response('1'));
    });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await page.reload();
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    const results: Record<string, number> = {};
    for (const threads of [1, 2, 1, 2]) {
      const cps = await page.evaluate(
        async ({ entry, threads, model, n }) => {
          const mod = await import(`./assets/${entry}`);
          const { Embedder, shipped, env } = mod;
          // Otherwise Transformers.js imports ORT's .mjs from a blob: URL, which the CSP refuses.
          env.useWasmCache = false;
          const e = await Embedder.load({
            modelId: `generated/${model}`, localModelPath: new URL('models/', document.baseURI).pathname,
            allowRemote: false, device: 'wasm', dtype: 'q8', numThreads: threads, wasmPaths: shipped.ort,
          });
          const texts = Array.from({ length: n }, (_, i) =>
            `function handler${i}(req, res) { const cfg = parseConfig(req.body); return res.json(cfg.items.map(x => x * ${i})); } `.repeat(6));
          await e.embed(texts.slice(0, 4));
          const t0 = performance.now();
          await e.embed(texts);
          const cps = n / ((performance.now() - t0) / 1000);
          await e.dispose();
          return cps;
        },
        { entry: entry!, threads, model: MODEL, n: TEXTS },
      );
      results[threads] = Math.max(results[threads] ?? 0, cps);
    }
    console.log(`threads bench (${MODEL}, q8, ${TEXTS} texts): 1 thread ${results[1]!.toFixed(1)}/s, 2 threads ${results[2]!.toFixed(1)}/s, ×${(results[2]! / results[1]!).toFixed(2)}`);
    expect(results[2]).toBeGreaterThan(0);
  } finally {
    await server.close();
  }
});
