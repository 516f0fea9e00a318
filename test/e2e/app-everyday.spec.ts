/**
 * Everyday faults a person met: a first index's row read "0 files · 0 chunks · updated never"
 * until the run ended; its progress read "331/1.0k files" while the folder's walk was still
 * finding files, as if 1.0k were the total; the file viewer's outline cut definition names at
 * 1400 px with room to spare. Screens are written to SIFT_SHOTS (default test-results/everyday).
 */
import { test, expect, type Page } from '@playwright/test';
import { installPicker, syntheticFixture, type FixtureFolder } from './helpers/opfs-fixture.ts';
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
  // Before its first files are done the row says it is indexing, not "0 files · 0 chunks".
  expect.soft(stats.filter((s) => s.includes('|0 files')), JSON.stringify(seen)).toEqual([]);
  expect.soft(stats.some((s) => s === '0|indexing…'), JSON.stringify(seen)).toBe(true);
  expect.soft(during.some(([s]) => !s.startsWith('0|') && / · indexing…$/.test(s)), JSON.stringify(seen)).toBe(true);
  expect.soft(stats.at(-1)).toMatch(/^2500\|2\.5k files · 15k chunks · index .+ · updated just now$/);

  // 2. "N / M files" only with M the folder's total; before the walk's end, a count found so far.
  const totals = during.flatMap(([, p]) => [...p!.matchAll(/(\S+) \/ (\S+) files?/g)].map((m) => m[2]));
  expect(totals.filter((t) => t !== '2.5k'), JSON.stringify(during)).toEqual([]);
  expect(during.some(([, p]) => /found so far|finding files/.test(p!)), JSON.stringify(during)).toBe(true);
  // No "0 chunks · — files/s" before anything is chunked.
  expect(during.filter(([, p]) => /· 0 chunks/.test(p!)), JSON.stringify(during)).toEqual([]);
});

/** Go functions with names as long as the standard library's (net/http's tests). */
const LONG_NAMES = [
  'TestServeFileRejectsInvalidSuffixLengths',
  'TestTransportDiscardsUnneededConns',
  'testClientRedirectsByDefaultWithNoEscaping',
  'TestServerKeepAlivesEnabledResultClose',
];

function longNames(): FixtureFolder {
  const body = LONG_NAMES.map((n, i) => `// ${n} checks case ${i} of the outline.\nfunc ${n}(t *testing.T) {\n\tif ${i} > 9 {\n\t\tt.Fatal("outline")\n\t}\n}\n`).join('\n');
  const files = { 'net/http/serve_test.go': `package http\n\nimport "testing"\n\n${body}`, 'README.md': '# names\n' };
  return { name: 'long-names', files: Object.fromEntries(Object.entries(files).map(([p, t]) => [p, Buffer.from(t).toString('base64')])) };
}

/** Names in the outline cut short (their box narrower than their text). */
async function cutNames(page: Page): Promise<string[]> {
  return page.getByTestId('viewer-outline').locator('.name').evaluateAll((els) =>
    els.filter((e) => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > e.closest('nav')!.getBoundingClientRect().right + 1).map((e) => e.textContent ?? ''),
  );
}

test('the file viewer\'s outline shows whole definition names at 1400 px and fits a phone', async ({ page }) => {
  await installPicker(page, { default: longNames() });
  await page.setViewportSize(WIDE);
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'long-names', 2);
  await searchFor(page, 'outline');
  await page.getByTestId('result').first().getByRole('button', { name: 'Open file' }).click();
  const viewer = page.getByTestId('file-viewer');
  const outline = viewer.getByTestId('viewer-outline');
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.setViewportSize(WIDE);
    await expect(outline.locator('.name')).toHaveText(LONG_NAMES);
    expect(await cutNames(page)).toEqual([]);
    // The full name on hover too.
    await expect(outline.getByRole('button', { name: LONG_NAMES[0] })).toHaveAttribute('title', new RegExp(LONG_NAMES[0]));
    await page.screenshot({ path: `${SHOTS}/outline-${theme}-wide.png` });

    await page.setViewportSize(PHONE);
    if (!(await outline.isVisible())) await viewer.getByRole('button', { name: 'Outline' }).click();
    await expect(outline.locator('.name')).toHaveText(LONG_NAMES);
    expect(await cutNames(page)).toEqual([]);
    // Nothing wider than the phone.
    expect(await viewer.evaluate((d) => d.scrollWidth <= d.clientWidth + 1 && d.getBoundingClientRect().right <= window.innerWidth + 1)).toBe(true);
    await page.screenshot({ path: `${SHOTS}/outline-${theme}-phone.png` });
  }
});

/** A Go file whose matching lines are long (a table row, a long call): wider than a phone. */
function longLines(): FixtureFolder {
  const wide = `\tconn.SetReadDeadline(time.Now().Add(time.Duration(retries) * defaultReadTimeoutForSlowClients + extraGraceForHandshakes)) // keep the reader alive`;
  const go = `package http\n\nimport "time"\n\nfunc keepReading(conn Conn, retries int) {\n${wide}\n}\n\nfunc table() []string {\n\treturn []string{"SetReadDeadline", "${'x'.repeat(180)}"}\n}\n`;
  const files = { 'net/http/deadline.go': go, 'README.md': '# lines\n' };
  return { name: 'long-lines', files: Object.fromEntries(Object.entries(files).map(([p, t]) => [p, Buffer.from(t).toString('base64')])) };
}

test('exact and regex results stay within the screen: a long matching line does not widen the page (390 and 1400 px)', async ({ page }) => {
  await installPicker(page, { default: longLines() });
  await page.setViewportSize(PHONE);
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'long-lines', 2);
  for (const [mode, query, theme] of [['Exact', 'SetReadDeadline', 'light'], ['Regex', 'Set\\w+Deadline', 'dark']] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.getByRole('radio', { name: mode, exact: true }).check();
    const box = page.getByTestId('search-input');
    await box.fill(query);
    await expect(page.getByTestId('grep-summary')).toHaveAttribute('data-query', query);
    await expect(page.getByTestId('grep-line')).toHaveCount(2);
    for (const [size, tag] of [[PHONE, 'phone'], [WIDE, 'wide']] as const) {
      await page.setViewportSize(size);
      // What sticks out past the screen's right edge (the page scrolled sideways at 390 px).
      const wider = await page.evaluate(() =>
        [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('code'))
          .map((e) => `${e.tagName.toLowerCase()}.${e.className}`).slice(0, 8));
      expect(wider, tag).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), tag).toBeLessThanOrEqual(size.width);
      await page.screenshot({ path: `${SHOTS}/grep-${mode.toLowerCase()}-${theme}-${tag}.png` });
    }
    await page.setViewportSize(PHONE);
  }
});
