/** Page-level helpers for the Sift e2e tests: wait for indexing, search, read results. */
import { expect, type Page } from '@playwright/test';
import { clearOpfs } from './opfs-fixture.ts';

/**
 * Waits until the named codebase has finished its current job and shows `files` files
 * (the count is what proves the run happened: the row appears before its job starts).
 */
export async function waitIndexed(page: Page, name: string, files: number): Promise<void> {
  const row = page.getByRole('listitem', { name: `Codebase ${name}` });
  await expect(row).toBeVisible();
  await expect(row.getByTestId('progress')).toHaveCount(0, { timeout: 90_000 });
  await expect(row.getByTestId('codebase-stats')).toHaveAttribute('data-files', String(files), { timeout: 90_000 });
  await expect(row.getByTestId('progress')).toHaveCount(0, { timeout: 90_000 });
  // The run ended as a run should: no "Indexing stopped before it finished" (a run that failed
  // at its end once showed every file and passed here).
  await expect(row.getByTestId('interrupted')).toHaveCount(0);
}

export async function searchFor(page: Page, query: string): Promise<void> {
  const box = page.getByTestId('search-input');
  // Clearing first removes the old summary, so repeating a query waits for a fresh answer.
  await box.fill('');
  await expect(page.getByTestId('result-summary')).toHaveCount(0);
  await box.fill(query);
  // The summary carries the query it answers, so an older response cannot satisfy this.
  await expect(page.getByTestId('result-summary')).toHaveAttribute('data-query', query.trim());
  await expect(page.getByText('Searching…')).toHaveCount(0);
  // A new list paints its first cards, then the rest a frame later (ResultList.svelte).
  await expect(page.locator('#results[aria-busy="true"]')).toHaveCount(0);
}

/**
 * Chooses a search mode as a person does: a click on the mode once it stands still (no `force`:
 * Playwright waits for a stable box and checks the click lands on it), retried when the row moved
 * under the click (results painting, a scrollbar appearing) so it landed on the neighbour.
 */
export async function chooseMode(page: Page, name: 'Hybrid' | 'Keyword' | 'Semantic' | 'Exact' | 'Regex'): Promise<void> {
  const radio = page.getByRole('radio', { name, exact: true });
  await expect(async () => {
    await radio.check({ timeout: 5_000 });
  }).toPass({ timeout: 30_000 });
}

export async function resultPaths(page: Page): Promise<string[]> {
  return page.getByTestId('result-path').allTextContents();
}

/** A fresh app: opens it, then forgets every codebase (OPFS), saved handle and setting, and reloads. */
export async function resetApp(page: Page): Promise<void> {
  await page.goto('./');
  await clearOpfs(page);
  await page.evaluate(() => {
    indexedDB.deleteDatabase('keyval-store');
    localStorage.clear();
  });
  await page.reload();
}

/**
 * Opens the picker's folder (installPicker's `default`) with only `room` bytes of the origin's
 * storage quota left (a real quota, set through Chromium's DevTools protocol: OPFS writes then
 * fail with QuotaExceededError), and waits for the "storage is full" notice with no
 * "damaged / corrupt / rebuild" one. `during` runs while the quota is low; it is then given back.
 */
export async function openFolderWithRoom(page: Page, room: number, during?: () => Promise<void>): Promise<void> {
  // Write the fixture folder first (the picker fills it), so `room` counts from there.
  await page.evaluate(async () => {
    await (window as unknown as { showDirectoryPicker(): Promise<unknown> }).showDirectoryPicker();
  });
  const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
  const cdp = await page.context().newCDPSession(page);
  const origin = new URL(page.url()).origin;
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: usage + room });
  try {
    await page.getByRole('button', { name: 'Open folder…' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Browser storage is full' });
    await expect(alert.first()).toBeVisible({ timeout: 90_000 });
    await expect(page.getByRole('alert').filter({ hasText: /damaged|corrupt|rebuild/i })).toHaveCount(0);
    await during?.();
  } finally {
    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  }
}

/**
 * Waits until the step back that closing the file viewer (✕, Esc) takes off the viewer's history
 * entry has landed: a navigation started before then would race it (a person cannot be that quick).
 */
export async function viewerStepLanded(page: Page): Promise<void> {
  await page.waitForFunction(() => !(history.state as { siftViewer?: boolean } | null)?.siftViewer);
}
