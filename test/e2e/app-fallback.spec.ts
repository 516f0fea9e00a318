/** Browsers without showDirectoryPicker: the webkitdirectory upload; and index export/import. */
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { searchFor, resultPaths, waitIndexed, resetApp } from './helpers/app.ts';

test('webkitdirectory upload indexes a snapshot; export and import an index', async ({ page }, info) => {
  await resetApp(page);
  await page.getByTestId('folder-input').setInputFiles('test/fixtures/repo-small');
  const row = page.getByRole('listitem', { name: 'Codebase repo-small' });
  await waitIndexed(page, 'repo-small', 22);
  await expect(row.getByText('snapshot', { exact: true })).toBeVisible();
  await searchFor(page, 'complete_task');
  expect((await resultPaths(page))[0]).toBe('api/handlers.py');

  // Export the index to a file…
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Export index' }).click()]);
  const file = info.outputPath('repo-small.sift.sqlite');
  await download.saveAs(file);
  expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');

  // …remove the codebase, then import the file: searchable again without re-indexing.
  await row.getByRole('button', { name: 'Remove…' }).click();
  await row.getByRole('button', { name: /Delete index of/ }).click();
  await expect(row).toHaveCount(0);
  await page.getByTestId('import-input').setInputFiles(file);
  const imported = page.getByRole('listitem', { name: 'Codebase repo-small' });
  await expect(imported.getByText('imported', { exact: true })).toBeVisible();
  await searchFor(page, 'complete_task');
  expect((await resultPaths(page))[0]).toBe('api/handlers.py');

  // A file that is not an index is refused with a clear message.
  await page.getByTestId('import-input').setInputFiles({ name: 'bogus.sqlite', mimeType: 'application/octet-stream', buffer: Buffer.from('not a database') });
  await expect(page.getByRole('alert')).toContainText('not a Sift index');
});
