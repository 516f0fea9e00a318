/** Code from files is text, never HTML: the XSS fixture must render inertly. */
import { test, expect } from '@playwright/test';
import { installPicker, readFixture } from './helpers/opfs-fixture.ts';
import { searchFor, waitIndexed, resetApp } from './helpers/app.ts';

const fixture = readFixture('test/fixtures/repo-small');

test('a file full of <script> and <img onerror> renders as text', async ({ page }) => {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await installPicker(page, { default: fixture });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', Object.keys(fixture.files).length);

  await searchFor(page, 'xsspayload onerror script');
  const paths = await page.getByTestId('result-path').allTextContents();
  expect(paths).toEqual(expect.arrayContaining(['evil/xss.html', 'evil/payload.ts']));
  // The payload is visible as text…
  await expect(page.getByTestId('result').filter({ hasText: 'evil/xss.html' }).first()).toContainText('<img src="x" onerror=');
  // …and nothing from it became markup or ran.
  expect(await page.locator('#results img, #results script, #results iframe, #results svg, #results b').count()).toBe(0);
  await page.getByTestId('result').filter({ hasText: 'evil/xss.html' }).first().getByRole('button', { name: 'Open file' }).click();
  await expect(page.getByTestId('file-viewer')).toContainText('<iframe srcdoc=');
  expect(await page.locator('[data-testid="file-viewer"] img, [data-testid="file-viewer"] script, [data-testid="file-viewer"] iframe').count()).toBe(0);
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as unknown as { __siftXss?: number }).__siftXss)).toBeUndefined();
  expect(dialogs).toEqual([]);
  await page.screenshot({ path: 'test-results/screens/xss.png' });
});
