/**
 * The page stays responsive while a larger folder is indexed: long tasks (> 50 ms) on the
 * main thread are recorded with a PerformanceObserver and reported. Also small-screen and
 * dark-theme screenshots.
 */
import { test, expect } from '@playwright/test';
import { installPicker, syntheticFixture } from './helpers/opfs-fixture.ts';
import { searchFor, waitIndexed, resetApp } from './helpers/app.ts';

const FILES = 1500;
/**
 * What the test asserts is structural, not a timing budget (budgets live in `npm run bench`):
 * the indexing work runs off the main thread, so long tasks add up to a small share of the
 * run. Were parsing or SQLite on the page, this share would be near 100%. The count and
 * durations are reported (target 0; measured 0 on a quiet machine, up to 4 tasks of
 * ≤ 344 ms while other jobs starved the 2 cores).
 */
const MAX_LONG_TASK_SHARE = 0.1;
const big = syntheticFixture('synthetic', FILES);

test('indexing a larger folder runs off the main thread (long tasks measured and reported)', async ({ page }) => {
  test.setTimeout(300_000);
  await installPicker(page, { default: big });
  await page.addInitScript(() => {
    const w = window as unknown as { __longtasks: number[] };
    w.__longtasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longtasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await resetApp(page);
  // Write the fixture into OPFS now (test-side main-thread work), so only indexing is measured.
  await page.evaluate(() => (window as unknown as { showDirectoryPicker(o: object): Promise<unknown> }).showDirectoryPicker({ id: 'warm' }));
  await page.waitForTimeout(1500); // let startup settle
  await page.evaluate(() => ((window as unknown as { __longtasks: number[] }).__longtasks = []));
  const t0 = Date.now();
  await page.getByRole('button', { name: 'Open folder…' }).click();
  // Searchable before the run ends: results appear while the progress bar is still up.
  await expect(page.getByTestId('progress')).toBeVisible();
  await page.screenshot({ path: 'test-results/screens/indexing-progress.png' });
  await waitIndexed(page, 'synthetic', FILES);
  const ms = Date.now() - t0;
  const tasks = await page.evaluate(() => (window as unknown as { __longtasks: number[] }).__longtasks);
  const max = tasks.length ? Math.max(...tasks) : 0;
  console.log(`indexed ${FILES} files in ${ms} ms; long tasks: ${tasks.length}, max ${max.toFixed(0)} ms, all: ${tasks.map((t) => t.toFixed(0)).join(',')}`);
  test.info().annotations.push({ type: 'longtasks', description: JSON.stringify({ files: FILES, ms, count: tasks.length, max }) });
  const busy = tasks.reduce((a, t) => a + t, 0);
  expect(busy / ms).toBeLessThan(MAX_LONG_TASK_SHARE);

  await searchFor(page, 'compute_700_3');
  await expect(page.getByTestId('result').first().getByTestId('result-symbol')).toHaveText('compute_700_3');
});

const hundred = syntheticFixture('hundred', 100);

test('a query typed before a 100-file folder is picked shows its results once the folder is indexed', async ({ page }) => {
  // The user-visible flow the pick-to-results time in `npm run bench` is measured on
  // (bench/app-pick.ts): query first, then the folder; no other action brings the results.
  await installPicker(page, { default: hundred });
  await resetApp(page);
  const box = page.getByTestId('search-input');
  await box.fill('compute_42_3');
  await expect(page.getByTestId('result')).toHaveCount(0);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await expect(page.getByTestId('result').first().getByTestId('result-symbol')).toHaveText('compute_42_3');
  await expect(page.getByTestId('result').first().getByTestId('result-path')).toHaveText('pkg2/mod2/file_42.ts');
  await waitIndexed(page, 'hundred', 100);
  await expect(page.getByTestId('result-summary')).toHaveAttribute('data-query', 'compute_42_3');
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.screenshot({ path: 'test-results/screens/pick-results-1400.png' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'test-results/screens/pick-results-390.png' });
});

test('small screen and dark theme', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 780 });
  await installPicker(page, { default: big });
  await page.goto('./');
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await page.screenshot({ path: 'test-results/screens/mobile-dark-empty.png', fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
