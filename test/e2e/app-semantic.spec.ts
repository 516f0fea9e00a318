/**
 * Semantic search with the generated tiny model (models/generated/tiny, `npm run models`),
 * imported through the app's own "Import model folder" flow (copied into OPFS), then used
 * to embed the fixture and answer a semantic query.
 */
import { test, expect } from '@playwright/test';
import { existsSync } from 'node:fs';
import { installPicker, readFixture } from './helpers/opfs-fixture.ts';
import { chooseMode, searchFor, waitIndexed, resetApp } from './helpers/app.ts';

const MODEL_DIR = 'models/generated/tiny';

test('import the tiny model, embed, and search semantically', async ({ page }) => {
  test.skip(!existsSync(`${MODEL_DIR}/onnx/model.onnx`), 'run `npm run models` first');
  test.setTimeout(240_000);
  await installPicker(page, { 'sift-codebase': readFixture('test/fixtures/repo-small'), 'sift-model': readFixture(MODEL_DIR, 'tiny') });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', 22);

  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'Import model folder…' }).click();
  await expect(page.getByTestId('model-status')).toContainText('Ready: tiny', { timeout: 60_000 });
  await page.screenshot({ path: 'test-results/screens/settings.png', fullPage: true });
  await page.getByRole('button', { name: 'Search' }).click();
  const row = page.getByRole('listitem', { name: 'Codebase repo-small' });
  await expect(row.getByTestId('codebase-stats')).toContainText('100% embedded', { timeout: 120_000 });

  await chooseMode(page, 'Semantic');
  await searchFor(page, 'checksum of attachment bytes');
  await expect(page.getByTestId('result-summary')).toContainText('semantic only');
  await expect(page.getByTestId('result').first()).toContainText('semantic');
  await chooseMode(page, 'Hybrid');
  await searchFor(page, 'compute_checksum');
  await expect(page.getByTestId('result-summary')).toContainText('hybrid');
  await expect(page.getByTestId('result').first().getByTestId('result-symbol')).toHaveText('compute_checksum');
  // Explain with both legs: the slider re-fuses the same hits without a new search.
  await page.getByTestId('result').first().getByRole('button', { name: 'Explain' }).click();
  await expect(page.getByTestId('explain-why')).toContainText('#1:');
  const before = await page.getByTestId('fused-score').textContent();
  const calls = await page.evaluate(() => performance.getEntriesByType('resource').length);
  await page.getByTestId('weight-slider').fill('0.9');
  await expect(page.getByTestId('fused-score')).not.toHaveText(before ?? '');
  expect(await page.evaluate(() => performance.getEntriesByType('resource').length)).toBe(calls);

  // The model choice survives a reload.
  await page.reload();
  await page.getByRole('button', { name: 'Stats' }).click();
  await expect(page.getByTestId('stats-page')).toContainText('tiny');
  // The index itself names its model and counts every chunk embedded (it once said 0%).
  await expect(page.getByTestId('stats-page')).toContainText(/Embedded\s*\S+ \(100%\) · \S*tiny/);
});
