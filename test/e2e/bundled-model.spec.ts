/**
 * A deploy that bundles its model (`SIFT_BUNDLE_MODEL=models/generated/tiny npm run build`):
 * the build copies the model to dist/models/generated/tiny/ and lists it in
 * dist/sift-models.json; the app loads it from its own origin without an offer, asks the
 * Hub for nothing, makes no failing request, and embeds and answers semantic queries.
 * Builds into its own folder; served under a sub-path by the dumb static server.
 */
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { serveStatic, type StaticServer } from './fixtures/static-server.ts';
import { installPicker, readFixture } from './helpers/opfs-fixture.ts';
import { chooseMode, searchFor, waitIndexed } from './helpers/app.ts';

const DIST = process.env.SIFT_BUNDLED_DIST ?? '/tmp/sift-bundled-dist';

let server: StaticServer;

test.beforeAll(() => {
  test.setTimeout(300_000);
  test.skip(!existsSync('models/generated/tiny/onnx/model_quantized.onnx'), 'run `npm run models` first');
  execFileSync('npx', ['vite', 'build', '--outDir', DIST, '--emptyOutDir', '--logLevel', 'error'], {
    stdio: 'inherit',
    env: { ...process.env, SIFT_BUNDLE_MODEL: 'models/generated/tiny' },
  });
});

test.beforeEach(async () => {
  server = await serveStatic(DIST, '/deploy/');
});

test.afterEach(async () => {
  await server.close();
});

test('a bundled model loads from the deploy itself: no offer, no Hub, no failed request', async ({ page, context }) => {
  test.setTimeout(180_000);
  const manifest = JSON.parse(readFileSync(`${DIST}/sift-models.json`, 'utf8')) as { models: Array<{ id: string; files: string[] }> };
  expect(manifest.models.map((m) => m.id)).toEqual(['generated/tiny']);
  expect(manifest.models[0]!.files).toContain('onnx/model_quantized.onnx');

  const outside: string[] = [];
  const failed: string[] = [];
  context.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !/^(data|blob):/.test(r.url())) outside.push(r.url());
  });
  context.on('requestfailed', (r) => failed.push(`${r.failure()?.errorText} ${r.url()}`));
  context.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  await installPicker(page, { 'sift-codebase': readFixture('test/fixtures/repo-small') });
  await page.goto(server.url);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', 22);
  const row = page.getByRole('listitem', { name: 'Codebase repo-small' });
  await expect(row.getByTestId('codebase-stats')).toContainText('100% embedded', { timeout: 120_000 });
  await expect(page.getByTestId('model-offer')).toHaveCount(0);
  await chooseMode(page, 'Semantic');
  await searchFor(page, 'checksum of attachment bytes');
  await expect(page.getByTestId('result-summary')).toContainText('semantic only');
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByTestId('model-status')).toContainText('Ready: generated/tiny');
  expect(server.requests.some((p) => p === '/deploy/models/generated/tiny/onnx/model_quantized.onnx')).toBe(true);
  expect(outside).toEqual([]);
  expect(failed).toEqual([]);
});
