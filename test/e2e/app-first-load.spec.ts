/**
 * A first index of a big folder (≥ BULK_LOAD_FILES files) commits unjournaled in the store
 * worker (workers/store: beginFirstLoad, Store.setUnjournaled): a marker file beside the
 * database and a Web Lock say so while it runs. These tests hold the promises that make that
 * safe: the load ends journaled with its marker gone; a tab closed mid-load leaves a database
 * that the next visit deletes and indexes again from the start, never one reported damaged;
 * a full quota mid-load is "storage is full", never "corrupt", and a rescan completes.
 */
import { test, expect, type Page } from '@playwright/test';
import { installPicker, syntheticFixture } from './helpers/opfs-fixture.ts';
import { openFolderWithRoom, resetApp, searchFor, resultPaths, waitIndexed } from './helpers/app.ts';

/** Over BULK_LOAD_FILES (1,000): the run is a bulk load. */
const FILES = 1200;

/** Names of the files in the store's OPFS folder. */
async function storeFiles(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('sift', { create: true });
    const out: string[] = [];
    for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) out.push(name);
    return out;
  });
}

/** Polls the store's folder until a load marker shows (or `ms` pass); true when seen. */
async function sawMarker(page: Page, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if ((await storeFiles(page)).some((n) => n.endsWith('.sqlite-bulk'))) return true;
    await page.waitForTimeout(25);
  }
  return false;
}

test('a big first index loads unjournaled and ends journaled: marker gone, index whole after a reload', async ({ page }) => {
  await installPicker(page, { default: syntheticFixture('first-load', FILES) });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  expect(await sawMarker(page, 60_000)).toBe(true);
  await waitIndexed(page, 'first-load', FILES);
  await expect.poll(async () => (await storeFiles(page)).filter((n) => n.endsWith('-bulk')), { timeout: 10_000 }).toEqual([]);
  await page.reload();
  await waitIndexed(page, 'first-load', FILES);
  await searchFor(page, 'compute_1199_5');
  expect((await resultPaths(page))[0]).toBe('pkg19/mod9/file_1199.ts');
});

test('a tab closed mid-load: the next visit starts the first index over and completes it, nothing reported damaged', async ({ page, context }) => {
  await installPicker(page, { default: syntheticFixture('cut-load', FILES) });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  expect(await sawMarker(page, 60_000)).toBe(true);
  await page.close(); // the workers die with the tab: the load's lock is released, its marker stays
  const again = await context.newPage();
  const warnings: string[] = [];
  again.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
  await installPicker(again, { default: syntheticFixture('cut-load', FILES) });
  await again.goto('./');
  const row = again.getByRole('listitem', { name: 'Codebase cut-load' });
  await expect(row).toBeVisible();
  await expect(again.getByRole('alert').filter({ hasText: /damaged|corrupt/i })).toHaveCount(0);
  // The app resumes or is asked to rescan; either way the codebase ends whole.
  const rescan = row.getByRole('button', { name: 'Rescan' });
  if (await rescan.isVisible().catch(() => false)) await rescan.click().catch(() => undefined);
  await waitIndexed(again, 'cut-load', FILES);
  // The store worker found the marker with its lock free and deleted the half-loaded database.
  expect(warnings.filter((w) => w.includes('was cut short while loading'))).toHaveLength(1);
  expect((await storeFiles(again)).filter((n) => n.endsWith('-bulk'))).toEqual([]);
  await searchFor(again, 'compute_1199_5');
  expect((await resultPaths(again))[0]).toBe('pkg19/mod9/file_1199.ts');
  await expect(again.getByRole('alert').filter({ hasText: /damaged|corrupt/i })).toHaveCount(0);
});

test('a second tab opened during the load leaves it alone: the first tab finishes, nothing is deleted or reported damaged', async ({ page, context }) => {
  await installPicker(page, { default: syntheticFixture('two-tabs', FILES) });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  expect(await sawMarker(page, 60_000)).toBe(true);
  const other = await context.newPage();
  const warnings: string[] = [];
  other.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
  await installPicker(other, { default: syntheticFixture('two-tabs', FILES) });
  await other.goto('./');
  await expect(other.getByRole('listitem', { name: 'Codebase two-tabs' })).toBeVisible();
  // The first tab's load goes on to the end, with its marker removed when it is synced.
  await waitIndexed(page, 'two-tabs', FILES);
  await expect.poll(async () => (await storeFiles(page)).filter((n) => n.endsWith('-bulk')), { timeout: 10_000 }).toEqual([]);
  // The second tab saw a live load, so it deleted nothing. (Two things refuse that deletion: the
  // load's Web Lock, and the first tab's open access handle on the database; with the lock check
  // taken out this still passes, so the test holds the outcome, not which of the two gave it.)
  expect(warnings.filter((w) => w.includes('was cut short while loading'))).toHaveLength(0);
  await expect(other.getByRole('alert').filter({ hasText: /damaged|corrupt/i })).toHaveCount(0);
  await expect(page.getByRole('alert').filter({ hasText: /damaged|corrupt/i })).toHaveCount(0);
  // Both tabs find the last file.
  await other.reload();
  await waitIndexed(other, 'two-tabs', FILES);
  for (const p of [page, other]) {
    await searchFor(p, 'compute_1199_5');
    expect((await resultPaths(p))[0]).toBe('pkg19/mod9/file_1199.ts');
  }
});

test('storage quota exceeded during an unjournaled first load: "storage is full", never "corrupt", and a rescan completes', async ({ page }) => {
  await installPicker(page, { default: syntheticFixture('quota-first', FILES) });
  await resetApp(page);
  // Room for the first batches, not for the whole index (~3 MB here).
  await openFolderWithRoom(page, 1_500_000);
  const row = page.getByRole('listitem', { name: 'Codebase quota-first' });
  await row.getByRole('button', { name: 'Rescan' }).click();
  await waitIndexed(page, 'quota-first', FILES);
  await searchFor(page, 'compute_1199_5');
  expect((await resultPaths(page))[0]).toBe('pkg19/mod9/file_1199.ts');
  await expect(page.getByRole('alert').filter({ hasText: /damaged|corrupt|rebuild/i })).toHaveCount(0);
});

test('a query typed before picking a big folder (a bulk load) shows its results while the index runs, and the list grows as batches land', async ({ page }) => {
  // The query's words are in one file far down the walk: the run reads the folder, writes that
  // file first (indexer.ts firstFor, which a run past BULK_LOAD_FILES once dropped), and each
  // committed batch makes the search run again (a bulk load's first batches were 4 s apart, and
  // the page searched again only once per run).
  await installPicker(page, { default: syntheticFixture('live-load', FILES) });
  await resetApp(page);
  await page.getByTestId('search-input').fill('compute_1187_3');
  await page.getByRole('button', { name: 'Open folder…' }).click();
  const row = page.getByRole('listitem', { name: 'Codebase live-load' });
  await expect(page.getByTestId('result').first().getByTestId('result-path')).toHaveText('pkg7/mod9/file_1187.ts', { timeout: 60_000 });
  // Still indexing when the first result shows.
  await expect(row.getByTestId('progress')).toHaveCount(1);
  // A query of words every file holds: its list grows while the run goes on, without a new search typed.
  await page.getByTestId('search-input').fill('computes value module');
  await expect(page.getByTestId('result-summary')).toHaveAttribute('data-query', 'computes value module');
  await waitIndexed(page, 'live-load', FILES);
  await expect(page.getByTestId('result').first()).toBeVisible();
});
