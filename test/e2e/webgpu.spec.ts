/**
 * The WebGPU embedding path, proved on Chromium's software adapter (SwiftShader): headless
 * Debian Chromium launched with --enable-unsafe-webgpu --use-webgpu-adapter=swiftshader on
 * an http://127.0.0.1 page (a secure context) gets an adapter and a device. The real
 * Embedder (src/core/embed/embedder.ts) runs the generated tiny model once on WebGPU and
 * once on WASM over the same chunks; the vectors must agree within tolerance.
 *
 * Builds the app with the PWA fixture entry (which exports Embedder and the shipped ORT
 * paths) into its own folder, and launches its own browser (the default CHROMIUM_ARGS
 * include --disable-gpu).
 */
import { test, expect, chromium, type Browser } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { CHROMIUM_ARGS } from '../../playwright.config.ts';
import { serveStatic, type StaticServer } from './fixtures/static-server.ts';
import { installPicker, readFixture } from './helpers/opfs-fixture.ts';
import { chooseMode, searchFor, waitIndexed } from './helpers/app.ts';

const DIST = process.env.SIFT_WEBGPU_DIST ?? '/tmp/sift-webgpu-dist';
const WEBGPU_ARGS = [...CHROMIUM_ARGS.filter((a) => a !== '--disable-gpu'), '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'];
const TEXTS = [
  'function getUserName(user) { return user.name; }',
  'def parse_config(path):\n    with open(path) as f:\n        return json.load(f)',
  'SELECT count(*) FROM orders WHERE total > 100',
  'class HttpClient { async fetch(url: string): Promise<Response> { return await request(url, { timeout: 30 }); } }',
  'fn compute_checksum(data: &[u8]) -> u16 { let mut a = 0u16; for b in data { a = a.wrapping_add(*b as u16); } a }',
  'x',
];

let browser: Browser;
let server: StaticServer;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  test.skip(!existsSync('models/generated/tiny/onnx/model.onnx'), 'run `npm run models` first');
  if (process.env.SIFT_WEBGPU_REUSE !== '1' || !existsSync(`${DIST}/assets`)) {
    execFileSync('npx', ['vite', 'build', '-c', 'test/e2e/fixtures/pwa.vite.config.ts', '--outDir', DIST, '--emptyOutDir', '--logLevel', 'error'], { stdio: 'inherit' });
  }
  server = await serveStatic(DIST, '/app/', { 'models/generated/': 'models/generated' });
  browser = await chromium.launch({ executablePath: process.env.SIFT_CHROMIUM ?? '/usr/bin/chromium', args: WEBGPU_ARGS });
});

test.afterAll(async () => {
  await browser?.close();
  await server?.close();
});

for (const dtype of ['fp32', 'q8'] as const) {
  test(`WebGPU (SwiftShader) embeds the same chunks as WASM, ${dtype}`, async () => {
    test.setTimeout(240_000);
    const page = await browser.newPage();
    const entry = readdirSync(`${DIST}/assets`).find((f) => /^pwa-wasm-.*\.js$/.test(f))!;
    await page.goto(server.url);
    const adapter = await page.evaluate(async () => {
      const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<{ info?: { vendor?: string; architecture?: string } } | null> } }).gpu;
      const a = await gpu?.requestAdapter();
      return a ? `${a.info?.vendor ?? '?'} ${a.info?.architecture ?? ''}`.trim() : null;
    });
    expect(adapter, 'Chromium should expose the SwiftShader adapter').not.toBeNull();

    const out = await page.evaluate(
      async ({ entry, texts, dtype }) => {
        const mod = await import(`./assets/${entry}`);
        const { Embedder, shipped } = mod as {
          Embedder: { load(o: object): Promise<{ info: { device: string; dim: number }; embed(t: string[]): Promise<Float32Array>; dispose(): Promise<void> }> };
          shipped: { ort: { mjs: string; wasm: string }; ortWebgpu: { mjs: string; wasm: string } };
        };
        const run = async (device: 'wasm' | 'webgpu') => {
          const e = await Embedder.load({
            modelId: 'generated/tiny', localModelPath: new URL('models/', document.baseURI).pathname, allowRemote: false,
            device, dtype, numThreads: 1, wasmPaths: device === 'webgpu' ? shipped.ortWebgpu : shipped.ort,
          });
          try {
            await e.embed(texts.slice(0, 2));
            const t0 = performance.now();
            const v = await e.embed(texts);
            return { device: e.info.device, dim: e.info.dim, vectors: Array.from(v), ms: performance.now() - t0 };
          } finally {
            await e.dispose();
          }
        };
        const gpu = await run('webgpu');
        const cpu = await run('wasm');
        return { gpu, cpu };
      },
      { entry, texts: TEXTS, dtype },
    );
    expect(out.gpu.device).toBe('webgpu');
    expect(out.cpu.device).toBe('wasm');
    expect(out.gpu.vectors).toHaveLength(TEXTS.length * out.cpu.dim);
    const dim = out.cpu.dim;
    let maxAbs = 0;
    for (let i = 0; i < TEXTS.length; i++) {
      let dot = 0;
      for (let d = 0; d < dim; d++) {
        const a = out.gpu.vectors[i * dim + d]!;
        const b = out.cpu.vectors[i * dim + d]!;
        dot += a * b;
        maxAbs = Math.max(maxAbs, Math.abs(a - b));
      }
      expect(dot, `cosine of text ${i}`).toBeGreaterThan(dtype === 'fp32' ? 0.9999 : 0.99);
    }
    expect(maxAbs).toBeLessThan(dtype === 'fp32' ? 1e-3 : 2e-2);
    console.log(`webgpu ${dtype} on ${adapter}: ${TEXTS.length} texts in ${out.gpu.ms.toFixed(0)} ms (wasm ${out.cpu.ms.toFixed(0)} ms); max |Δ| ${maxAbs.toExponential(2)}`);
    await page.close();
  });
}

test('the app picks WebGPU by itself when an adapter exists, and searches by meaning with it', async () => {
  test.setTimeout(240_000);
  const context = await browser.newContext({ baseURL: server.url });
  const page = await context.newPage();
  await installPicker(page, { 'sift-codebase': readFixture('test/fixtures/repo-small'), 'sift-model': readFixture('models/generated/tiny', 'tiny') });
  await page.goto(server.url);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', 22);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'Import model folder…' }).click();
  await expect(page.getByTestId('model-status')).toContainText('Ready: tiny (q8, webgpu', { timeout: 120_000 });
  await expect(page.getByTestId('capabilities')).toContainText('WebGPU: Embedding runs on the GPU.');
  await page.getByRole('button', { name: 'Search' }).click();
  const row = page.getByRole('listitem', { name: 'Codebase repo-small' });
  await expect(row.getByTestId('codebase-stats')).toContainText('100% embedded', { timeout: 180_000 });
  await chooseMode(page, 'Semantic');
  await searchFor(page, 'checksum of attachment bytes');
  await expect(page.getByTestId('result-summary')).toContainText('semantic only');
  await context.close();
});
