/**
 * Everyday faults a person met: a first index's row read "0 files · 0 chunks · updated never"
 * until the run ended; its progress read "331/1.0k files" while the folder's walk was still
 * finding files, as if 1.0k were the total; the file viewer's outline cut definition names at
 * 1400 px with room to spare. Screens are written to SIFT_SHOTS (default test-results/everyday).
 */
import { test, expect, type Page } from '@playwright/test';
import { installPicker, syntheticFixture } from './helpers/opfs-fixture.ts';
import { resetApp, searchFor, waitIndexed } from './helpers/app.ts';

const SHOTS = process.env.SIFT_SHOTS ?? 'test-results/everyday';
const WIDE = { width: 1400, height: 900 };
const PHONE = { width: 390, height: 844 };

/** Over the walk's report step (500 files, indexer.ts onWalked) several times over. */
const FILES = 2500;

/**
 * Records every text the codebase row's stats and progress show, as the DOM changes (a poll
 * would miss the short-lived ones): `[stats, progress | null]` pairs, each once in a row.
 */
async function recordRow(page: Page, name: string): Promise<void> {
  await page.evaluate((name) => {
    const seen: Array<[string, string | null]> = [];
    (window as unknown as { __rowSeen: typeof seen }).__rowSeen = seen;
    const take = () => {
      const row = document.querySelector(`[aria-label="Codebase ${name}"]`);
      const stats = row?.querySelector('[data-testid="codebase-stats"]');
      if (!stats) return;
      const s = `${stats.getAttribute('data-files')}|${stats.textContent!.replace(/\s+/g, ' ').trim()}`;
      const p = row!.querySelector('[data-testid="progress-text"]')?.textContent?.replace(/\s+/g, ' ').trim() ?? null;
      const last = seen.at(-1);
      if (!last || last[0] !== s || last[1] !== p) seen.push([s, p]);
    };
    new MutationObserver(take).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  }, name);
}

test('a first index shows what is known as it runs, and no total before the walk has ended', async ({ page }) => {
  await page.setViewportSize(WIDE);
  await installPicker(page, { default: syntheticFixture('walking', FILES) });
  await resetApp(page);
  await recordRow(page, 'walking');
  await page.getByRole('button', { name: 'Open folder…' }).click();
  const row = page.getByRole('listitem', { name: 'Codebase walking' });
  await expect(row.getByTestId('progress')).toBeVisible();
  // A picture of the row mid-run, once some files are done.
  await expect(row.getByTestId('codebase-stats')).not.toHaveAttribute('data-files', '0', { timeout: 60_000 }).catch(() => undefined);
  for (const [theme, size, tag] of [['light', WIDE, 'wide'], ['dark', PHONE, 'phone']] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.setViewportSize(size);
    await page.screenshot({ path: `${SHOTS}/indexing-${theme}-${tag}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(WIDE);
  await waitIndexed(page, 'walking', FILES);
  const seen = await page.evaluate(() => (window as unknown as { __rowSeen: Array<[string, string | null]> }).__rowSeen);
  const during = seen.filter(([, p]) => p !== null);
  expect(during.length, JSON.stringify(seen)).toBeGreaterThan(2);

  // 1. The row counts while the first index runs: files and chunks so far, "indexing…", never "updated never".
  const stats = seen.map(([s]) => s);
  expect.soft(stats.filter((s) => s.includes('updated never')), JSON.stringify(seen)).toEqual([]);
  expect.soft(during.some(([s]) => !s.startsWith('0|') && / · indexing…$/.test(s)), JSON.stringify(seen)).toBe(true);
  expect.soft(stats.at(-1)).toMatch(/^2500\|2\.5k files · 15k chunks · index .+ · updated just now$/);

  // 2. "N / M files" only with M the folder's total; before the walk's end, a count found so far.
  const totals = during.flatMap(([, p]) => [...p!.matchAll(/(\S+) \/ (\S+) files?/g)].map((m) => m[2]));
  expect(totals.filter((t) => t !== '2.5k'), JSON.stringify(during)).toEqual([]);
  expect(during.some(([, p]) => /found so far|still finding files/.test(p!)), JSON.stringify(during)).toBe(true);
});
