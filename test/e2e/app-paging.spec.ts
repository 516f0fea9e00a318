/**
 * More results than a page (issue 37): the summary says the list is the top of more, Show
 * more adds the next 20 of the same ranking (the first ones stay in place), and the list says
 * where it stops (a search returns at most 50).
 */
import { test, expect } from '@playwright/test';
import { installPicker, type FixtureFolder } from './helpers/opfs-fixture.ts';
import { resultPaths, searchFor, waitIndexed, resetApp } from './helpers/app.ts';

const b64 = (t: string) => Buffer.from(t).toString('base64');
const files: Record<string, string> = {};
for (let i = 0; i < 70; i++) {
  files[`src/handlers/h${String(i).padStart(2, '0')}.ts`] = b64(`export function handle${i}(req: Request) {\n  const token = req.headers.get('x-token');\n  return token?.length === ${i + 1};\n}\n`);
}
const fixture: FixtureFolder = { name: 'repo-paging', files };

test('Show more adds the next results of the same search, up to the most a search returns', async ({ page }) => {
  await installPicker(page, { default: fixture });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-paging', 70);
  await searchFor(page, 'token headers');
  const summary = page.getByTestId('result-summary');
  await expect(summary).toContainText('top 20 of more');
  const first20 = await resultPaths(page);
  expect(first20).toHaveLength(20);
  const more = page.getByTestId('show-more');
  await more.click();
  await expect(page.getByTestId('result')).toHaveCount(40);
  await expect(summary).toContainText('top 40 of more');
  expect((await resultPaths(page)).slice(0, 20)).toEqual(first20);
  await more.click();
  await expect(page.getByTestId('result')).toHaveCount(50);
  await expect(page.getByTestId('show-more')).toHaveCount(0);
  await expect(page.getByTestId('results-at-most')).toContainText('These are the top 50');
  // A new search starts at 20 again.
  await searchFor(page, 'token request');
  await expect(page.getByTestId('result')).toHaveCount(20);
  await expect(page.getByTestId('show-more')).toBeVisible();
});
