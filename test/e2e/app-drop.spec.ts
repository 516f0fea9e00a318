/**
 * Drag and drop in real Chromium. A page script can only put File objects into a
 * DataTransfer (no folder entries, no directory handles), so this drives the one drop a
 * test can make: loose files, which Sift refuses with a message and without adding anything.
 * (Dropping a folder goes through the same readDrop, src/core/source/drop.ts; it needs a
 * real drag from the OS.)
 */
import { test, expect } from '@playwright/test';
import { resetApp } from './helpers/app.ts';

test('dropping loose files adds nothing and says to drop a folder', async ({ page }) => {
  await resetApp(page);
  const panel = page.getByRole('region', { name: 'Codebases' });
  const dataTransfer = await page.evaluateHandle(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['export const a = 1;\n'], 'a.ts', { type: 'text/plain' }));
    return dt;
  });
  await panel.dispatchEvent('dragover', { dataTransfer });
  await panel.dispatchEvent('drop', { dataTransfer });
  await expect(page.getByText('Drop a folder, not single files.')).toBeVisible();
  await expect(page.getByRole('listitem', { name: /^Codebase / })).toHaveCount(0);
});
