import { test, expect } from '@playwright/test';

test('the built app loads', async ({ page }) => {
  await page.goto('./');
  await expect(page.getByRole('heading', { name: 'Sift' })).toBeVisible();
});
