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

test('small screen and dark theme', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 780 });
  await installPicker(page, { default: big });
  await page.goto('./');
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await page.screenshot({ path: 'test-results/screens/mobile-dark-empty.png', fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
