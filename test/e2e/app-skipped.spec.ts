/**
 * What is indexed in the app: every text file (Elixir, Haskell, Zig, an extension-less
 * script), the Stats page's "Skipped files" section (reasons, extensions, examples), plain-text
 * languages marked, and Settings → Indexing's exclude pattern applied by "Save and rescan all".
 */
import { test, expect, type Page } from '@playwright/test';
import { installPicker, type FixtureFolder } from './helpers/opfs-fixture.ts';
import { resetApp, searchFor, waitIndexed } from './helpers/app.ts';

const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');
const fixture: FixtureFolder = {
  name: 'polyglot',
  files: {
    'lib/plug/conn.ex': b64('defmodule Plug.Conn do\n  def send_resp(conn, status, body), do: {conn, status, body}\nend\n'),
    'src/Parser.hs': b64('module Parser where\n\nparseHeader :: String -> Maybe Header\nparseHeader = undefined\n'),
    'src/alloc.zig': b64('pub fn arenaAlloc(size: usize) ![]u8 {\n    return error.OutOfMemory;\n}\n'),
    'bin/release': b64('#!/usr/bin/env bash\nrelease_the_kraken() { echo go; }\n'),
    'test/conn_test.exs': b64('defmodule ConnTest do\n  test "sends" do\n  end\nend\n'),
    'priv/logo.png': b64(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13)),
    'priv/blob.txt': b64(Uint8Array.of(0, 1, 2, 0, 0xff)),
    '.gitignore': b64('_build/\n'),
    '_build/dev/app.beam.txt': b64('compiled'),
  },
};

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name }).click();

test.beforeEach(async ({ page }) => {
  await installPicker(page, { default: fixture });
  await resetApp(page);
});

test('every text file is indexed; Stats lists what was skipped and why; an exclude pattern applies on rescan', async ({ page }) => {
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'polyglot', 6); // conn.ex, Parser.hs, alloc.zig, release, conn_test.exs, .gitignore
  await searchFor(page, 'arenaAlloc');
  await expect(page.getByTestId('result').first().getByTestId('result-path')).toHaveText('src/alloc.zig');

  await nav(page, 'Stats');
  const skipped = page.getByTestId('stat-skipped');
  await expect(skipped).toContainText('3 not indexed');
  await expect(skipped.getByRole('row', { name: /binary\s+2/ })).toBeVisible();
  await expect(skipped.getByRole('row', { name: /ignored.*\s1$/ })).toBeVisible();
  await expect(skipped).toContainText('.png');
  await skipped.getByText('Examples').click();
  await expect(skipped).toContainText('priv/logo.png — binary (.png file, not read)');
  await expect(skipped).toContainText('priv/blob.txt — binary (binary content)');
  await expect(page.getByRole('row', { name: /^text\s*plain text/ })).toBeVisible();
  // The charts: files and bytes by language and by kind, index bytes by structure, embeddings.
  await expect(page.getByTestId('stat-languages').getByRole('row', { name: /^elixir\s*2 files · \d+ B$/ })).toBeVisible();
  const kinds = page.getByTestId('stat-kinds');
  await expect(kinds.getByRole('row', { name: /^code\s+4 \d+%\s+\d+ B \d+%/ })).toBeVisible();
  await expect(kinds.getByRole('row', { name: /^tests\s+1 / })).toBeVisible();
  await expect(kinds.getByRole('row', { name: /^config\s+1 / })).toBeVisible();
  const structures = page.getByTestId('stat-structures');
  await expect(structures.getByRole('figure')).toContainText(/Index size by structure: \d/);
  for (const part of ['keyword index', 'file text (compressed)', 'trigram index (exact, regex)', 'chunk rows']) {
    await expect(structures.getByRole('rowheader', { name: part })).toBeVisible();
  }
  await expect(page.getByTestId('stat-embedded')).toContainText('not embedded');
  await page.screenshot({ path: 'test-results/screens/stats-skipped.png', fullPage: true });
  // Readable at 360 px, light and dark: nothing wider than the screen.
  await page.setViewportSize({ width: 360, height: 780 });
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    await page.screenshot({ path: `test-results/screens/stats-360-${colorScheme}.png`, fullPage: true });
  }
  await page.emulateMedia({ colorScheme: null });
  await page.setViewportSize({ width: 1280, height: 720 });

  await nav(page, 'Settings');
  const form = page.getByTestId('index-settings');
  await form.getByLabel('Exclude').fill('test/\n# fixtures\n');
  await form.getByRole('button', { name: 'Save and rescan all' }).click();
  await nav(page, 'Search');
  await waitIndexed(page, 'polyglot', 5);
  await nav(page, 'Stats');
  await expect(skipped.getByRole('row', { name: /ignored.*\s2$/ })).toBeVisible();
  // The setting persists.
  await page.reload();
  await nav(page, 'Settings');
  await expect(page.getByTestId('index-settings').getByLabel('Exclude')).toHaveValue('test/');
});

test("the last scan's warnings open into a list, and are still there after a reload", async ({ page }) => {
  // A folder with a secrets file (never read): the scan warns about it.
  await installPicker(page, { default: { name: 'with-secrets', files: { 'src/app.py': b64('def main():\n    pass\n'), 'config/.env': b64('API_KEY=x\n') } } });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'with-secrets', 1);
  const row = page.getByRole('listitem', { name: 'Codebase with-secrets' });
  const warnings = row.getByTestId('scan-warnings');
  await expect(warnings.locator('summary')).toHaveText(/^\d+ warnings?$/);
  await warnings.locator('summary').click();
  await expect(warnings.getByRole('listitem').filter({ hasText: 'config/.env' })).toHaveCount(1);
  const n = await warnings.getByRole('listitem').count();
  expect(await warnings.locator('summary').textContent()).toBe(`${n} warning${n === 1 ? '' : 's'}`);
  await page.screenshot({ path: 'test-results/screens/scan-warnings.png', fullPage: true });
  await page.reload();
  await expect(row.getByTestId('last-summary')).toBeVisible();
  await row.getByTestId('scan-warnings').locator('summary').click();
  await expect(row.getByTestId('scan-warnings').getByRole('listitem').filter({ hasText: 'config/.env' })).toHaveCount(1);
});
