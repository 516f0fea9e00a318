/**
 * Faults the app must name correctly (the same classification the CLI uses): the origin's
 * storage quota running out while indexing (a real quota, set through Chromium's DevTools
 * protocol — OPFS writes then fail with QuotaExceededError), and read permission on a folder
 * handle being revoked (the page's handle reports "prompt", as after a browser restart).
 */
import { test, expect } from '@playwright/test';
import { installPicker, readFixture, syntheticFixture } from './helpers/opfs-fixture.ts';
import { openFolderWithRoom, resetApp, searchFor, resultPaths, waitIndexed } from './helpers/app.ts';

const small = readFixture('test/fixtures/repo-small');
const SMALL_FILES = Object.keys(small.files).length;

test('storage quota exceeded while indexing: a "storage is full" notice, never "corrupt", and the app keeps working', async ({ page }) => {
  const big = syntheticFixture('quota-big', 400);
  await installPicker(page, { default: big });
  await resetApp(page);
  // The origin is left ~200 KB more than the fixture folder takes.
  await openFolderWithRoom(page, 200_000, () => page.screenshot({ path: test.info().outputPath('quota.png') }).then(() => undefined));
  // With room again, the same codebase indexes completely: nothing was left damaged.
  const row = page.getByRole('listitem', { name: 'Codebase quota-big' });
  await row.getByRole('button', { name: 'Rescan' }).click();
  await waitIndexed(page, 'quota-big', 400);
  await searchFor(page, 'compute_399_5');
  expect((await resultPaths(page))[0]).toBe('pkg19/mod9/file_399.ts');
});

test('read permission revoked: the codebase asks for access again, its index stays searchable, access is restored', async ({ page }) => {
  await installPicker(page, { default: small });
  // Like a browser restart: the handle's permission drops back to "prompt" until the user grants it.
  await page.addInitScript(() => {
    if (!sessionStorage.getItem('sift-e2e-revoked')) return;
    const proto = FileSystemHandle.prototype as unknown as {
      queryPermission(d: unknown): Promise<PermissionState>;
      requestPermission(d: unknown): Promise<PermissionState>;
    };
    proto.queryPermission = async () => (sessionStorage.getItem('sift-e2e-revoked') ? 'prompt' : 'granted');
    proto.requestPermission = async () => {
      sessionStorage.removeItem('sift-e2e-revoked');
      return 'granted';
    };
  });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', SMALL_FILES);

  await page.evaluate(() => sessionStorage.setItem('sift-e2e-revoked', '1'));
  await page.reload();
  const row = page.getByRole('listitem', { name: 'Codebase repo-small' });
  const restore = row.getByRole('button', { name: 'Restore access' });
  await expect(restore).toBeVisible();
  await searchFor(page, 'slugify');
  expect(await resultPaths(page)).toContain('src/utils/strings.ts');
  // Nothing can read the folder meanwhile; nothing about the index is called damaged.
  await expect(row.getByRole('button', { name: 'Rescan' })).toBeDisabled();
  await expect(page.getByRole('alert')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('revoked.png') });

  await restore.click();
  await expect(restore).toHaveCount(0);
  await waitIndexed(page, 'repo-small', SMALL_FILES);
});
