/**
 * The main flow on a real folder handle (OPFS-backed fixture): open → index → search,
 * filters, URL state, keyboard, open file at line, explain/re-fuse, stats.
 */
import { test, expect } from '@playwright/test';
import { installPicker, readFixture } from './helpers/opfs-fixture.ts';
import { searchFor, resultPaths, waitIndexed, resetApp, viewerStepLanded } from './helpers/app.ts';

const fixture = readFixture('test/fixtures/repo-small');
const FILES = Object.keys(fixture.files).length;

test.beforeEach(async ({ page }) => {
  await installPicker(page, { default: fixture });
  await resetApp(page);
});

test('open a folder, index it, search, filter, open the file at the line', async ({ page }) => {
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', FILES);
  await page.screenshot({ path: 'test-results/screens/indexed.png', fullPage: true });

  await searchFor(page, 'ParseDuration');
  const first = page.getByTestId('result').first();
  await expect(first.getByTestId('result-path')).toHaveText('pkg/queue/queue.go');
  await expect(first.getByTestId('result-symbol')).toHaveText('ParseDuration');
  await expect(first.getByTestId('result-language')).toHaveText('go');
  await expect(first.locator('mark.hit').first()).toBeVisible();
  expect(page.url()).toContain('#q=ParseDuration');
  await page.screenshot({ path: 'test-results/screens/results.png', fullPage: true });

  // Language filter: only python results.
  await searchFor(page, 'task');
  await page.getByTestId('filter-language').locator('summary').click();
  await page.getByTestId('filter-language').getByLabel('python').check();
  await expect.poll(async () => (await page.getByTestId('result-language').allTextContents()).filter((l) => l !== 'python'), { timeout: 15_000 }).toEqual([]);
  await expect(page.getByTestId('result').first()).toBeVisible();
  expect(page.url()).toContain('lang=python');

  // Path glob + chunk type.
  await page.getByTestId('filter-language').getByLabel('python').uncheck();
  await page.getByTestId('filter-language').locator('summary').click();
  await page.getByTestId('filter-glob').fill('src/**');
  await page.getByTestId('filter-glob').press('Enter');
  // The filtered search replaces the previous list when it lands: wait for it, then check every path.
  await expect.poll(async () => (await resultPaths(page)).filter((p) => !p.startsWith('src/')), { timeout: 15_000 }).toEqual([]);
  await expect(page.getByTestId('result').first()).toBeVisible();
  await page.getByTestId('filter-glob').fill('');
  await page.getByTestId('filter-glob').press('Enter');

  // Keyboard: `/` focuses search, arrows move, Enter opens the file at the line, Esc closes.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('/');
  await expect(page.getByTestId('search-input')).toBeFocused();
  await page.keyboard.type('compute_checksum');
  await expect(page.getByTestId('result').first().getByTestId('result-path')).toHaveText('crates/hasher/src/lib.rs');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('file-viewer');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading')).toContainText('crates/hasher/src/lib.rs:');
  await expect(dialog.locator('.line.focus', { hasText: 'pub fn compute_checksum' })).toHaveCount(1);
  await expect(dialog.getByTestId('viewer-note')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/screens/file-viewer.png' });
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  // Enter right after a keystroke runs the new query at once, instead of opening a result of the
  // old one (one character deleted and Enter pressed in one task, so the typing debounce cannot
  // have run first; a query that arrives whole runs at once anyway).
  await page.evaluate(() => {
    const box = document.querySelector<HTMLInputElement>('[data-testid=search-input]')!;
    box.value = box.value.slice(0, -1);
    box.dispatchEvent(new Event('input', { bubbles: true }));
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
  });
  await expect(page.getByTestId('result-summary')).toHaveAttribute('data-query', 'compute_checksu');
  await expect(dialog).toBeHidden();

  // Explain and re-fuse: the slider changes scores without a new search.
  await page.getByTestId('result').first().getByRole('button', { name: 'Explain' }).click();
  await expect(page.getByTestId('explain')).toBeVisible();
  await expect(page.getByTestId('bm25-signals')).toContainText(/name \d\.\d\d/);
  // Why, in words; a legend for exactly the signals shown; no semantic weight without a model.
  await expect(page.getByTestId('explain-why')).toHaveText(/^#1: .+\.$/);
  const shown = (await page.getByTestId('bm25-signals').textContent())!.replace(/^.*inside: /, '').split(' · ').map((x) => x.split(' ')[0]);
  expect(await page.getByTestId('bm25-legend').locator('li strong').allTextContents()).toEqual(shown);
  await expect(page.getByTestId('weight-slider')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/screens/explain.png' });

  // Stats page.
  await page.getByRole('button', { name: 'Stats' }).click();
  await expect(page.getByTestId('stat-files')).toHaveText(String(FILES));
  await page.screenshot({ path: 'test-results/screens/stats.png', fullPage: true });
});

test('the URL restores a search', async ({ page }) => {
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', FILES);
  await page.goto('.#q=slugify&mode=keyword&lang=typescript');
  await page.reload();
  await expect(page.getByTestId('search-input')).toHaveValue('slugify');
  await expect(page.getByRole('radio', { name: 'Keyword' })).toBeChecked();
  await expect(page.getByTestId('result').first().getByTestId('result-path')).toHaveText('src/utils/strings.ts');
});

test('Stats and Settings are pages of the URL: Back returns to the search, a link opens the page', async ({ page }) => {
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', FILES);
  await searchFor(page, 'slugify');
  const firstPath = page.getByTestId('result').first().getByTestId('result-path');
  await expect(firstPath).toHaveText('src/utils/strings.ts');
  await page.getByRole('button', { name: 'Stats' }).click();
  await expect(page.getByTestId('stat-files')).toHaveText(String(FILES));
  expect(page.url()).toContain('view=stats');
  expect(page.url()).toContain('q=slugify');
  await page.getByRole('button', { name: 'Settings' }).click();
  expect(page.url()).toContain('view=settings');
  await page.goBack();
  await expect(page.getByTestId('stat-files')).toHaveText(String(FILES));
  await page.goBack();
  // Back on the search, with its query and results, still in the app.
  expect(page.url()).not.toContain('view=');
  await expect(page.getByTestId('search-input')).toHaveValue('slugify');
  await expect(firstPath).toHaveText('src/utils/strings.ts');
  await page.goForward();
  await expect(page.getByTestId('stat-files')).toHaveText(String(FILES));
  // A link (or a reload) to the page opens it.
  await page.reload();
  await expect(page.getByTestId('stat-files')).toHaveText(String(FILES));
});

test('Back closes the file viewer and keeps the search; after ✕ or Esc, Back goes to the page before; what is typed after Esc stays', async ({ page }) => {
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', FILES);
  await searchFor(page, 'slugify');
  const dialog = page.getByTestId('file-viewer');
  const firstPath = page.getByTestId('result').first().getByTestId('result-path');
  await expect(firstPath).toHaveText('src/utils/strings.ts');
  // Stats, then the search again: Back from the search now goes to Stats.
  await page.getByRole('button', { name: 'Stats' }).click();
  await expect(page.getByTestId('stat-files')).toHaveText(String(FILES));
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(firstPath).toHaveText('src/utils/strings.ts');
  const searchUrl = page.url();

  // Back with the viewer open closes it: the same search, with its results, still in the app.
  await firstPath.click();
  await expect(dialog).toBeVisible();
  await page.goBack();
  await expect(dialog).toBeHidden();
  expect(page.url()).toBe(searchUrl);
  await expect(page.getByTestId('search-input')).toHaveValue('slugify');
  await expect(firstPath).toHaveText('src/utils/strings.ts');

  // Closed by ✕, opened again, closed by Esc, then Back: the page before the search (Stats), as
  // had the viewer never opened — not a Back that changes nothing.
  await firstPath.click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Close file (Esc)' }).click();
  await expect(dialog).toBeHidden();
  await firstPath.click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  expect(page.url()).toBe(searchUrl);
  // Esc stepped back off the viewer's entry (it lands asynchronously; a person's Back comes later).
  await viewerStepLanded(page);
  await page.goBack();
  await expect(page.getByTestId('stat-files')).toHaveText(String(FILES));
  await expect(dialog).toBeHidden();

  // Forward to the search; open a file, Esc, and a query typed and run at once: it stays (the step
  // back Esc took lands on the entry the viewer was opened from, which takes the query shown).
  await page.goForward();
  await expect(firstPath).toHaveText('src/utils/strings.ts');
  await firstPath.click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await page.evaluate(() => {
    const box = document.querySelector<HTMLInputElement>('[data-testid=search-input]')!;
    box.value = 'ParseDuration';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
  });
  await expect(page.getByTestId('result-summary')).toHaveAttribute('data-query', 'ParseDuration');
  await page.waitForTimeout(500);
  await expect(page.getByTestId('search-input')).toHaveValue('ParseDuration');
  expect(page.url()).toContain('q=ParseDuration');
  await expect(firstPath).toHaveText('pkg/queue/queue.go');
  // A query typed replaces the search in place, viewer or not: Back goes to the page before it.
  await viewerStepLanded(page);
  await page.goBack();
  await expect(page.getByTestId('stat-files')).toHaveText(String(FILES));
  await expect(dialog).toBeHidden();
  // Forward: the typed search, not the one the viewer was opened from.
  await page.goForward();
  await expect(page.getByTestId('search-input')).toHaveValue('ParseDuration');
  await expect(firstPath).toHaveText('pkg/queue/queue.go');
  await expect(dialog).toBeHidden();
});

test('on a phone (390 px) the search box and the first result are on the first screen once a folder is open', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // Before a folder is open, opening one comes first.
  const open = page.getByRole('button', { name: 'Open folder…' });
  expect((await open.boundingBox())!.y).toBeLessThan(844);
  await open.click();
  await waitIndexed(page, 'repo-small', FILES);
  await searchFor(page, 'slugify');
  const input = await page.getByTestId('search-input').boundingBox();
  expect(input!.y).toBeLessThan(200);
  const first = await page.getByTestId('result').first().boundingBox();
  expect(first!.y).toBeLessThan(844);
  await page.screenshot({ path: 'test-results/screens/phone-search.png' });
  // The codebases are still there, below.
  await expect(page.getByRole('listitem', { name: 'Codebase repo-small' })).toBeAttached();
});
