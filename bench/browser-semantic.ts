/**
 * Time until a folder of ~2,000 chunks is searchable by meaning, measured through the real
 * app as a new user meets it: a plain build (no bundled model) served by `vite preview`,
 * the folder opened through the app (an OPFS copy of real Go std-lib files stands in for
 * the picker), then the one-click Download — the Hub routed to the MiniLM-shaped generated
 * model (same architecture and q8 size as all-MiniLM-L6-v2, seeded weights) — and the
 * embedding pass at the app's default settings (q8, threads = min(cores − 1, 4) when
 * isolated; the first visit is not isolated, so 1 thread).
 *
 * Reports: keyword-searchable time, model download + load, first semantic answer, all
 * chunks embedded, chunks/s, and a query's latency while the pass runs (queries jump the
 * queue). Usage: npx tsx bench/browser-semantic.ts [--chunks 2000] [--json FILE]
 * Nothing is written outside bench/tmp/.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { build, preview } from 'vite';
import { chromium, expect } from '@playwright/test';
import { CHROMIUM_ARGS } from '../playwright.config.ts';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import { NodeFileSource } from '../src/core/source/node-source-node.ts';
import { walk } from '../src/core/walk/walker.ts';
import { decodeText } from '../src/core/index/indexer.ts';
import { installPicker } from '../test/e2e/helpers/opfs-fixture.ts';
import { CORPORA_DIR, REPO_DIR, TMP_DIR } from './util.ts';

const OUT_DIR = join(TMP_DIR, 'semantic-dist');
const MODEL_DIR = join(REPO_DIR, 'models/generated/minilm-shape');
const HUB_PREFIX = 'https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/';
const CORPUS = join(CORPORA_DIR, 'medium/go');
const QUERY = 'parse a duration string into seconds';
const EMBED_TIMEOUT_MS = 60 * 60_000;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Files of the corpus (sorted walk) until their chunks reach `target`. */
async function pickFiles(target: number): Promise<{ files: Record<string, string>; chunks: number; bytes: number }> {
  const source = new NodeFileSource(CORPUS);
  const paths: string[] = [];
  for await (const f of walk(source)) paths.push(f.path);
  paths.sort();
  const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  const files: Record<string, string> = {};
  let chunks = 0;
  let bytes = 0;
  for (const p of paths) {
    if (chunks >= target) break;
    const raw = await source.readFile(p);
    const r = await chunker.chunkFile(p, decodeText(raw));
    chunks += r.chunks.length;
    bytes += raw.byteLength;
    files[p] = Buffer.from(raw).toString('base64');
  }
  return { files, chunks, bytes };
}

export async function benchSemantic(target: number, log: (l: string) => void = (l) => console.error(`[semantic] ${l}`)) {
  if (!existsSync(join(MODEL_DIR, 'onnx/model_quantized.onnx'))) throw new Error('run: npx tsx scripts/gen-models.ts --only minilm-shape');
  if (!existsSync(CORPUS)) throw new Error('run: npx tsx bench/corpora.ts medium');
  const pick = await pickFiles(target);
  log(`${Object.keys(pick.files).length} files, ${pick.chunks} chunks (Node chunker), ${(pick.bytes / 1e6).toFixed(1)} MB`);
  rmSync(OUT_DIR, { recursive: true, force: true });
  delete process.env.SIFT_BUNDLE_MODEL;
  await build({ configFile: join(REPO_DIR, 'vite.config.ts'), root: REPO_DIR, logLevel: 'error', build: { outDir: OUT_DIR, emptyOutDir: true, sourcemap: false } });
  const server = await preview({ configFile: join(REPO_DIR, 'vite.config.ts'), root: REPO_DIR, logLevel: 'error', build: { outDir: OUT_DIR }, preview: { port: 0, host: '127.0.0.1' } });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('vite preview did not report a URL');
  const browser = await chromium.launch({ executablePath: process.env.SIFT_CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext();
    let hubBytes = 0;
    const hubLog: string[] = [];
    await context.route(/^https:\/\/huggingface\.co\//, async (route) => {
      const u = route.request().url();
      const file = u.startsWith(HUB_PREFIX) ? u.slice(HUB_PREFIX.length).split('?')[0]! : '';
      const path = join(MODEL_DIR, file);
      if (!file || file.includes('..') || !existsSync(path)) return route.fulfill({ status: 404, headers: { 'access-control-allow-origin': '*' }, body: '' });
      const full = readFileSync(path);
      // As the Hub does: a Range request gets 206 and the slice (Transformers.js probes sizes so).
      const range = /^bytes=(\d+)-(\d*)$/.exec(route.request().headers()['range'] ?? '');
      const body = range ? full.subarray(Number(range[1]), range[2] ? Number(range[2]) + 1 : full.length) : full;
      hubLog.push(`${route.request().method()} ${file} ${route.request().headers()['range'] ?? ''}`.trim());
      if (route.request().method() === 'GET') hubBytes += body.byteLength;
      const headers: Record<string, string> = {
        'access-control-allow-origin': '*', 'access-control-expose-headers': 'content-length, content-range',
        'content-type': 'application/octet-stream', 'content-length': String(body.byteLength),
      };
      if (range) headers['content-range'] = `bytes ${range[1]}-${Number(range[1]) + body.byteLength - 1}/${full.length}`;
      return route.fulfill({ status: range ? 206 : 200, headers, body });
    });
    const page = await context.newPage();
    page.on('pageerror', (e) => log(`page error: ${e.message}`));
    // tsx (esbuild keepNames) wraps functions in __name(); the picker's init script runs in the page.
    await page.addInitScript('globalThis.__name = (f) => f;');
    await installPicker(page, { 'sift-codebase': { name: 'go-std', files: pick.files } });
    await page.goto(url);
    const info = await page.evaluate(() => ({ cores: navigator.hardwareConcurrency, isolated: crossOriginIsolated }));
    const row = page.getByRole('listitem', { name: 'Codebase go-std' });
    log(`app open at ${url} (cores ${info.cores}, isolated ${info.isolated})`);
    const t0 = performance.now();
    await page.getByRole('button', { name: 'Open folder…' }).click();
    await expect(row.getByTestId('codebase-stats')).toHaveAttribute('data-files', String(Object.keys(pick.files).length), { timeout: 600_000 });
    await expect(row.getByTestId('progress')).toHaveCount(0, { timeout: 600_000 });
    const indexedMs = performance.now() - t0;
    const chunks = Number(await row.getByTestId('codebase-stats').getAttribute('data-chunks'));
    log(`keyword-searchable after ${(indexedMs / 1000).toFixed(1)} s (${chunks} chunks in the app)`);

    const t1 = performance.now();
    await page.getByTestId('model-offer').getByRole('button', { name: 'Download' }).click();
    await expect(page.getByTestId('embed-eta')).toBeVisible({ timeout: 600_000 });
    const modelMs = performance.now() - t1;
    log(`model downloaded (${(hubBytes / 1e6).toFixed(1)} MB routed: ${hubLog.join(', ')}) and loaded after ${(modelMs / 1000).toFixed(1)} s`);

    await page.getByRole('radio', { name: 'Semantic' }).check({ force: true });
    const box = page.getByTestId('search-input');
    await box.fill(QUERY);
    const tq = performance.now();
    await expect(page.getByTestId('result-summary')).toHaveAttribute('data-query', QUERY, { timeout: 600_000 });
    const queryDuringPassMs = performance.now() - tq;
    // Results appear once the first page of vectors is written (the app re-runs live queries).
    await expect(page.getByTestId('result').first()).toBeVisible({ timeout: 600_000 });
    const firstSemanticMs = performance.now() - t1;
    log(`a semantic query answered in ${queryDuringPassMs.toFixed(0)} ms while the pass ran; first semantic results ${(firstSemanticMs / 1000).toFixed(1)} s after Download`);

    await expect(row.getByTestId('codebase-stats')).toContainText('100% embedded', { timeout: EMBED_TIMEOUT_MS });
    const allMs = performance.now() - t1;
    const embedMs = allMs - modelMs;
    const result = {
      date: new Date().toISOString(), loadavg: loadavg(), cores: info.cores, isolatedFirstVisit: info.isolated,
      files: Object.keys(pick.files).length, chunks, mb: pick.bytes / 1e6, hubMB: hubBytes / 1e6,
      keywordSearchableS: indexedMs / 1000, modelS: modelMs / 1000, firstSemanticS: firstSemanticMs / 1000,
      queryDuringPassMs, allEmbeddedS: allMs / 1000, chunksPerSec: chunks / (embedMs / 1000),
      folderToMeaningS: (indexedMs + allMs) / 1000,
    };
    log(`all ${chunks} chunks embedded ${(allMs / 1000).toFixed(1)} s after Download (${result.chunksPerSec.toFixed(2)} chunks/s); folder → searchable by meaning ${(result.folderToMeaningS / 60).toFixed(1)} min`);
    return result;
  } catch (e) {
    const page = browser.contexts()[0]?.pages()[0];
    await page?.screenshot({ path: join(TMP_DIR, 'semantic-failure.png'), fullPage: true }).catch(() => undefined);
    throw e;
  } finally {
    await browser.close().catch(() => undefined);
    await server.close().catch(() => undefined);
    rmSync(OUT_DIR, { recursive: true, force: true });
  }
}

if (process.argv[1] && /bench\/browser-semantic\.ts$/.test(process.argv[1])) {
  const r = await benchSemantic(Number(arg('--chunks') ?? 2000));
  console.log(JSON.stringify(r, null, 1));
  const out = arg('--json');
  if (out) writeFileSync(out, JSON.stringify(r, null, 1) + '\n');
}
