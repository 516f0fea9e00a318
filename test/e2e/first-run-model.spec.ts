/**
 * A new user on a plain static deploy without a bundled model (dist/ served under a
 * sub-path by a dumb static server), the Hugging Face Hub simulated by routing
 * https://huggingface.co/** to the generated tiny model, so the real Transformers.js
 * download, cache and loading code runs. Checks: the one-click offer at the point of need,
 * nothing requested from the Hub before consent, no failed request, semantic results after
 * the click, and search by meaning still working offline after a reload. Also "Not now"
 * (remembered, still one click away) and a context without service workers.
 */
import { test, expect, type BrowserContext, type Page } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic, type StaticServer } from './fixtures/static-server.ts';
import { installPicker, readFixture } from './helpers/opfs-fixture.ts';
import { chooseMode, searchFor, waitIndexed } from './helpers/app.ts';

const DIST = process.env.SIFT_DIST ?? 'dist';
const MOUNT = '/some/sub/path/';
const TINY = 'models/generated/tiny';
const HUB_PREFIX = 'https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/';

interface Hub {
  /** Every Hub URL asked for, in order. */
  requests: string[];
  /** When true the Hub is unreachable (requests fail). */
  down: boolean;
}

/** Serves the tiny model as if it were Xenova/all-MiniLM-L6-v2 on the Hub (404 for anything else, as the Hub does). */
async function simulateHub(context: BrowserContext): Promise<Hub> {
  const hub: Hub = { requests: [], down: false };
  await context.route(/^https:\/\/([\w-]+\.)*(huggingface\.co|hf\.co)\//, async (route) => {
    const url = route.request().url();
    hub.requests.push(url);
    if (hub.down) return route.abort('internetdisconnected');
    const file = url.startsWith(HUB_PREFIX) ? url.slice(HUB_PREFIX.length).split('?')[0]! : '';
    const path = join(TINY, file);
    const headers = { 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=3600' };
    if (!file || file.includes('..') || !existsSync(path)) return route.fulfill({ status: 404, headers, body: 'Entry not found' });
    const body = readFileSync(path);
    return route.fulfill({
      status: 200,
      headers: { ...headers, 'content-type': file.endsWith('.json') ? 'application/json' : 'application/octet-stream' },
      body,
    });
  });
  return hub;
}

/** Requests that failed or answered ≥ 400, from the page, its workers and the service worker. */
function watchFailures(context: BrowserContext): string[] {
  const failed: string[] = [];
  // A request the page itself cancelled (net::ERR_ABORTED: the test's reload while the app still
  // loads SQLite at startup) is no failure a person sees; refused, blocked or 4xx/5xx ones are.
  context.on('requestfailed', (r) => {
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') failed.push(`${r.failure()?.errorText ?? 'failed'} ${r.url()}`);
  });
  context.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  return failed;
}

/** Records every text the given test ids ever show (progress lines can be brief). */
async function recordTexts(page: Page, ids: string[]): Promise<void> {
  await page.addInitScript((ids) => {
    const seen: Record<string, string[]> = {};
    (window as unknown as { __texts: typeof seen }).__texts = seen;
    new MutationObserver(() => {
      for (const id of ids) {
        const t = document.querySelector(`[data-testid="${id}"]`)?.textContent?.replace(/\s+/g, ' ').trim();
        if (t && !(seen[id] ??= []).includes(t)) seen[id]!.push(t);
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  }, ids);
}

const textsSeen = (page: Page) => page.evaluate(() => (window as unknown as { __texts: Record<string, string[]> }).__texts);

async function swControls(page: Page): Promise<void> {
  await page.evaluate(async () => navigator.serviceWorker.ready);
  await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated');
}

let server: StaticServer;

test.beforeAll(() => {
  test.skip(!existsSync(`${TINY}/onnx/model_quantized.onnx`), 'run `npm run models` first');
  const manifest = JSON.parse(readFileSync(join(DIST, 'sift-models.json'), 'utf8')) as { models: unknown[] };
  expect(manifest.models, 'this spec needs a build without a bundled model').toEqual([]);
});

test.beforeEach(async () => {
  server = await serveStatic(DIST, MOUNT);
});

test.afterEach(async () => {
  await server.close();
});

test('new user: one-click download, nothing from the Hub before it, semantic search online and offline', async ({ page, context }) => {
  test.setTimeout(300_000);
  const hub = await simulateHub(context);
  const failed = watchFailures(context);
  await installPicker(page, { 'sift-codebase': readFixture('test/fixtures/repo-small') });
  await recordTexts(page, ['model-download', 'embed-eta']);

  await page.goto(server.url);
  const offer = page.getByTestId('model-offer');
  // A small folder: MiniLM is suggested (it embeds these 48 chunks in seconds); the code model is offered beside it.
  await expect(offer.getByTestId('model-choice-item').first()).toContainText('MiniLM');
  await expect(offer.getByTestId('model-choice-item').first()).toContainText('23 MB');
  await expect(offer).toContainText('Nothing is requested from Hugging Face until you click');
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', 22);
  await searchFor(page, 'compute_checksum');
  await expect(page.getByTestId('result').first().getByTestId('result-symbol')).toHaveText('compute_checksum');
  await expect(offer).toBeVisible();
  await page.screenshot({ path: 'test-results/screens/first-run-offer.png', fullPage: true });
  expect(hub.requests, 'nothing may be requested from the Hub before consent').toEqual([]);
  expect(failed, 'a new user sees no failed request').toEqual([]);
  expect(server.requests.filter((p) => p.includes('/models/')), 'no probing of models/').toEqual([]);

  await offer.getByRole('button', { name: /^Download MiniLM/ }).click();
  await expect(offer).toHaveCount(0);
  const row = page.getByRole('listitem', { name: 'Codebase repo-small' });
  await expect(row.getByTestId('codebase-stats')).toContainText('100% embedded', { timeout: 120_000 });
  expect(hub.requests.length).toBeGreaterThan(0);
  expect(hub.requests.every((u) => u.startsWith(HUB_PREFIX))).toBe(true);
  expect(hub.requests.some((u) => u.endsWith('onnx/model_quantized.onnx'))).toBe(true);
  // What the user saw meanwhile: MB downloaded, then embedding progress with an ETA.
  const seen = await textsSeen(page);
  expect(seen['model-download']?.some((t) => /^Downloading all-MiniLM-L6-v2: \d+\.\d \/ \d+\.\d MB$/.test(t)), JSON.stringify(seen)).toBe(true);
  expect(seen['embed-eta']?.some((t) => /embedding \d+ \/ 48 chunks of repo-small · about .+ left/.test(t)), JSON.stringify(seen)).toBe(true);

  await chooseMode(page, 'Semantic');
  await searchFor(page, 'checksum of attachment bytes');
  await expect(page.getByTestId('result-summary')).toContainText('semantic only');
  await expect(page.getByTestId('result').first()).toContainText('semantic');
  await chooseMode(page, 'Hybrid');
  await searchFor(page, 'compute_checksum');
  await expect(page.getByTestId('result-summary')).toContainText('hybrid');
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByTestId('model-status')).toContainText('Ready: Xenova/all-MiniLM-L6-v2');
  await page.screenshot({ path: 'test-results/screens/first-run-settings.png', fullPage: true });
  await page.getByRole('button', { name: 'Search' }).click();

  // Offline: the app, the model (browser cache) and the index all load without a network.
  await swControls(page);
  const seenBeforeOffline = hub.requests.length;
  hub.down = true;
  await context.setOffline(true);
  await server.close();
  await page.reload();
  await expect(page.getByRole('listitem', { name: 'Codebase repo-small' })).toBeVisible();
  await chooseMode(page, 'Semantic');
  await searchFor(page, 'checksum of attachment bytes');
  await expect(page.getByTestId('result-summary')).toContainText('semantic only');
  await expect(page.getByTestId('result').first()).toContainText('semantic');
  expect(hub.requests.length, 'the cached model needs no Hub request').toBe(seenBeforeOffline);
  expect(await page.evaluate(() => crossOriginIsolated), 'the SW makes a controlled load cross-origin isolated').toBe(true);
  await context.setOffline(false);
  server = await serveStatic(DIST, MOUNT); // afterEach closes it
});

test('"Not now" is remembered and the download stays one click away', async ({ page, context }) => {
  const hub = await simulateHub(context);
  const failed = watchFailures(context);
  await page.goto(server.url);
  await page.getByTestId('model-offer').getByRole('button', { name: 'Not now' }).click();
  await expect(page.getByTestId('model-offer')).toHaveCount(0);
  const hint = page.getByTestId('keyword-only-note');
  await expect(hint.getByRole('button', { name: /Search by meaning: download MiniLM \(23 MB\)/ })).toBeVisible();
  await page.reload();
  await expect(hint).toBeVisible();
  await expect(page.getByTestId('model-offer')).toHaveCount(0);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('button', { name: /Use MiniLM \(23 MB\)/ })).toBeVisible();
  expect(hub.requests).toEqual([]);
  expect(failed).toEqual([]);
  // One click from the hint: the download starts and the model becomes ready.
  await page.getByRole('button', { name: 'Search' }).click();
  await hint.getByRole('button', { name: /Search by meaning/ }).click();
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByTestId('model-status')).toContainText('Ready: Xenova/all-MiniLM-L6-v2', { timeout: 60_000 });
  expect(hub.requests.length).toBeGreaterThan(0);
});

test('no folder, or no model: the results say so and offer the next step', async ({ page, context }) => {
  const hub = await simulateHub(context);
  await installPicker(page, { 'sift-codebase': readFixture('test/fixtures/repo-small') });
  await page.goto(server.url);
  await page.getByTestId('model-offer').getByRole('button', { name: 'Not now' }).click();
  // Typing before any folder is open.
  await page.getByTestId('search-input').fill('checksum');
  await expect(page.getByTestId('no-folder')).toContainText('Open a folder first');
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', 22);
  await expect(page.getByTestId('no-folder')).toHaveCount(0);
  // Hybrid without a model says why it is keyword only.
  await searchFor(page, 'compute_checksum');
  await expect(page.getByTestId('result-summary')).toContainText('keyword only (search by meaning needs the embedding model)');
  // Semantic without a model: not "No results", but why, and the two ways on.
  await chooseMode(page, 'Semantic');
  const why = page.getByTestId('meaning-needs-model');
  // The model the button downloads: the recommended one (MiniLM for a folder this small).
  await expect(why).toContainText('Semantic search needs the embedding model.');
  await expect(why).toContainText('MiniLM (Xenova/all-MiniLM-L6-v2, 23 MB) is downloaded once');
  // The message offers the download itself: the offer (here its one-line hint) steps aside.
  await expect(page.getByTestId('keyword-only-note')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /download/i })).toHaveCount(1);
  await expect(page.getByTestId('result-summary')).toHaveCount(0);
  await expect(page.getByText(/^No results for/)).toHaveCount(0);
  await page.screenshot({ path: 'test-results/screens/semantic-needs-model.png', fullPage: true });
  await why.getByRole('button', { name: 'Search by keyword instead' }).click();
  await expect(page.getByRole('radio', { name: 'Keyword' })).toBeChecked();
  await expect(page.getByTestId('result').first().getByTestId('result-symbol')).toHaveText('compute_checksum');
  expect(hub.requests).toEqual([]);
  // The download is one click from there too.
  await chooseMode(page, 'Semantic');
  await why.getByRole('button', { name: 'Download the model' }).click();
  await expect(page.getByTestId('result').first()).toBeVisible({ timeout: 120_000 });
  await expect(why).toHaveCount(0);
  expect(hub.requests.length).toBeGreaterThan(0);
});

test.describe('without service workers', () => {
  test.use({ serviceWorkers: 'block' });

  test('says offline use is unavailable and keeps working', async ({ page }) => {
    await installPicker(page, { 'sift-codebase': readFixture('test/fixtures/repo-small') });
    await page.goto(server.url);
    await expect(page.getByRole('status').filter({ hasText: 'Offline use is unavailable' })).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);
    await page.getByRole('button', { name: 'Open folder…' }).click();
    await waitIndexed(page, 'repo-small', 22);
    await searchFor(page, 'compute_checksum');
    await expect(page.getByTestId('result').first().getByTestId('result-symbol')).toHaveText('compute_checksum');
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByTestId('capabilities')).toContainText('Offline use (service worker): Unavailable');
    await expect(page.getByRole('alert')).toHaveCount(0);
  });
});
