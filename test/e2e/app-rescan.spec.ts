/**
 * Keeping up with the folder: incremental rescan after edit/add/delete/rename, reload and
 * restore (the index persists in OPFS, the handle in IndexedDB), offline reload (service
 * worker), and two tabs (one writer).
 */
import { test, expect } from '@playwright/test';
import { installPicker, readFixture, editFixture } from './helpers/opfs-fixture.ts';
import { searchFor, resultPaths, waitIndexed, resetApp } from './helpers/app.ts';

const fixture = readFixture('test/fixtures/repo-small');
const FILES = Object.keys(fixture.files).length;

test.beforeEach(async ({ page }) => {
  await installPicker(page, { default: fixture });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', FILES);
});

test('rescan picks up an edit, an added, a deleted and a renamed file', async ({ page }) => {
  await editFixture(page, 'repo-small', [
    { op: 'write', path: 'src/utils/strings.ts', text: 'export function zanzibarize(s: string): string {\n  return s.split("").reverse().join("");\n}\n' },
    { op: 'write', path: 'src/new/quokka.py', text: 'def quokka_counter(n):\n    """Counts quokkas."""\n    return n * 2\n' },
    { op: 'delete', path: 'db/schema.sql' },
    { op: 'rename', from: 'crates/hasher/src/lib.rs', to: 'crates/hasher/src/checksum.rs' },
  ]);
  const row = page.getByRole('listitem', { name: 'Codebase repo-small' });
  // Chromium has FileSystemObserver: the app may already be rescanning on its own. Either
  // way, after an explicit Rescan the index must reflect all four changes.
  await expect(async () => {
    await row.getByRole('button', { name: 'Rescan' }).click({ timeout: 2000 });
    await expect(row.getByTestId('codebase-stats')).toContainText(`${FILES} files`, { timeout: 2000 });
    await searchFor(page, 'zanzibarize');
    expect((await resultPaths(page))[0]).toBe('src/utils/strings.ts');
  }).toPass({ timeout: 60_000 });
  await waitIndexed(page, 'repo-small', FILES);

  await searchFor(page, 'zanzibarize');
  expect((await resultPaths(page))[0]).toBe('src/utils/strings.ts');
  await searchFor(page, 'slugify');
  expect(await resultPaths(page)).not.toContain('src/utils/strings.ts');
  await searchFor(page, 'quokka_counter');
  expect((await resultPaths(page))[0]).toBe('src/new/quokka.py');
  await searchFor(page, 'tasks_due_date');
  expect(await resultPaths(page)).not.toContain('db/schema.sql');
  await searchFor(page, 'compute_checksum');
  const paths = await resultPaths(page);
  expect(paths).toContain('crates/hasher/src/checksum.rs');
  expect(paths).not.toContain('crates/hasher/src/lib.rs');

  // An edit after indexing: the viewer says the file changed.
  await editFixture(page, 'repo-small', [{ op: 'write', path: 'src/new/quokka.py', text: '# moved\n\ndef quokka_counter(n):\n    return n * 3\n' }]);
  await searchFor(page, 'quokka_counter');
  await page.getByTestId('result').first().getByRole('button', { name: 'Open file' }).click();
  await expect(page.getByTestId('viewer-note')).toContainText('changed since it was indexed');
});

test('reload keeps the codebase and its index; access is restored', async ({ page }) => {
  await page.reload();
  const row = page.getByRole('listitem', { name: 'Codebase repo-small' });
  await expect(row.getByTestId('codebase-stats')).toContainText(`${FILES} files`);
  await searchFor(page, 'RateLimiter');
  expect((await resultPaths(page))[0]).toBe('api/handlers.py');
  // OPFS handles keep permission, so no restore prompt; the rescan button works at once.
  await expect(row.getByRole('button', { name: 'Rescan' })).toBeEnabled();
  await row.getByRole('button', { name: 'Rescan' }).click();
  await expect(row.getByTestId('last-summary')).toContainText('no changes');
});

test('offline: after the first visit the app reloads and searches with the network off', async ({ page, context }) => {
  // The service worker must control the page before the network goes away.
  await expect
    .poll(() => page.evaluate(async () => (await navigator.serviceWorker.ready) && !!navigator.serviceWorker.controller), { timeout: 30_000 })
    .toBe(true);
  await context.setOffline(true);
  try {
    await page.reload();
    const row = page.getByRole('listitem', { name: 'Codebase repo-small' });
    await expect(row.getByTestId('codebase-stats')).toContainText(`${FILES} files`);
    await searchFor(page, 'RateLimiter');
    expect((await resultPaths(page))[0]).toBe('api/handlers.py');
  } finally {
    await context.setOffline(false);
  }
});

test('two tabs: the second is read-only but searches', async ({ page, context }) => {
  const second = await context.newPage();
  await second.goto('./');
  await expect(second.getByTestId('reader-badge')).toBeVisible();
  await expect(page.getByTestId('reader-badge')).toHaveCount(0);
  await expect(second.getByRole('button', { name: 'Open folder…' })).toBeDisabled();
  await searchFor(second, 'TodoRepository');
  expect((await resultPaths(second))[0]).toBe('src/db.ts');
  await second.screenshot({ path: 'test-results/screens/second-tab.png' });

  // The writer rescans an edit; the reader sees the new content.
  await editFixture(page, 'repo-small', [{ op: 'write', path: 'src/extra.ts', text: 'export const wombatLimit = 42;\n' }]);
  await page.getByRole('listitem', { name: 'Codebase repo-small' }).getByRole('button', { name: 'Rescan' }).click();
  await waitIndexed(page, 'repo-small', FILES + 1);
  await expect(second.getByRole('listitem', { name: 'Codebase repo-small' }).getByTestId('codebase-stats')).toContainText(`${FILES + 1} files`);
  await searchFor(second, 'wombatLimit');
  expect((await resultPaths(second))[0]).toBe('src/extra.ts');

  // Closing the writer hands the lock to the other tab.
  await page.close();
  await expect(second.getByTestId('reader-badge')).toHaveCount(0);
  await expect(second.getByRole('button', { name: 'Open folder…' })).toBeEnabled();
});
