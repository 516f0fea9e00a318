/**
 * Results a developer trusts (issue 10), in the app on a real folder handle: a split
 * definition is one result whose body is numbered with the file's own lines and whose
 * signature shows as a breadcrumb at its real line; the other matching pieces open under
 * "N more matches in this definition"; multi-select filters live in the URL; group by file;
 * a C constant or enumerator, or a Python / TypeScript module constant, is found by name on
 * the lines that define it; a declaration query (`struct page`) finds the struct first.
 */
import { test, expect } from '@playwright/test';
import { installPicker, readFixture, type FixtureFolder } from './helpers/opfs-fixture.ts';
import { searchFor, waitIndexed, resetApp } from './helpers/app.ts';

const small = readFixture('test/fixtures/repo-small');
const steps = Array.from({ length: 90 }, (_, i) => `    total += values[${i}] * weight_${i % 7}  # running accumulate step ${i}`).join('\n');
const LONG = `import math\n\n\ndef accumulate(values):\n    """Sum weighted values."""\n    total = 0\n${steps}\n    return total\n`;
const PAGE_H = '#ifndef _ASM_PAGE_H\n#define _ASM_PAGE_H\n\n#define PAGE_SHIFT 12\n#define PAGE_SIZE (1UL << PAGE_SHIFT)\n\n#endif\n';
const PAGES_C = 'static unsigned long page_size(struct page *page)\n{\n\treturn PAGE_SIZE << compound_order(page);\n}\n\nvoid copy_pages(void *d, void *s)\n{\n\tmemcpy(d, s, PAGE_SIZE);\n}\n';
const MMZONE_H = 'enum zone_stat_item {\n\t/* First 128 byte cacheline */\n\tNR_FREE_PAGES,\n\tNR_ZONE_LRU_BASE,\n\tNR_VM_ZONE_STAT_ITEMS };\n';
const VMSTAT_C = 'unsigned long free_pages(struct zone *zone)\n{\n\treturn zone_page_state(zone, NR_FREE_PAGES);\n}\n';
const MM_TYPES_H = '/* Each physical page in the system has a struct page. */\nstruct page {\n\tunsigned long flags;\n\tstruct page *next;\n};\n';
const SETTINGS_PY = 'import os\n\nMAX_RETRIES = 5\n\n\ndef connect(host):\n    for attempt in range(MAX_RETRIES):\n        print(host, attempt)\n';
const CLIENT_TS = "export const API_TIMEOUT_MS = 3000;\n\nexport function fetchWithTimeout(url: string) {\n  return fetch(url, { signal: AbortSignal.timeout(API_TIMEOUT_MS) });\n}\n";
const ALT_HS = 'module Api.Alternative where\n\n-- | Union of two APIs.\ndata a :<|> b = a :<|> b\n  deriving (Eq, Show)\ninfixr 3 :<|>\n';
const SERVER_HS = 'module Server where\n\nserver :: Server Api\nserver = getUsers :<|> getUser :<|> postUser\n';
// A name nothing defines, written in a test only; code holds one of its parts (`retries`).
const RETRY_TEST_TS = "import { connect } from '../lib/settings';\n\ntest('connect retries', () => {\n  process.env.APP_RETRY_BUDGET_MS = '50';\n  expect(connect).toBeDefined();\n});\n";
const b64 = (t: string) => Buffer.from(t).toString('base64');
const fixture: FixtureFolder = {
  name: 'repo-results',
  files: { ...small.files, 'lib/acc.py': b64(LONG), 'include/asm/page.h': b64(PAGE_H), 'mm/pages.c': b64(PAGES_C), 'include/linux/mmzone.h': b64(MMZONE_H), 'mm/vmstat.c': b64(VMSTAT_C),
    'lib/settings.py': b64(SETTINGS_PY), 'web/client.ts': b64(CLIENT_TS), 'include/linux/mm_types.h': b64(MM_TYPES_H),
    'api/Api/Alternative.hs': b64(ALT_HS), 'api/Server.hs': b64(SERVER_HS), 'tests/retry.test.ts': b64(RETRY_TEST_TS) },
};
const FILES = Object.keys(fixture.files).length;
const fileLine = (n: number) => LONG.split('\n')[n - 1];

test.beforeEach(async ({ page }) => {
  await installPicker(page, { default: fixture });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-results', FILES);
});

test('a split definition is one result: true line numbers, breadcrumb at the real line, more pieces on demand', async ({ page }) => {
  await searchFor(page, 'running accumulate step weight');
  const cards = page.getByTestId('result').filter({ has: page.getByTestId('result-path').getByText('lib/acc.py') });
  await expect(cards).toHaveCount(1);
  const card = cards.first();
  // Every numbered line of the card is the file's own line with that number.
  const check = async () => {
    const lines = card.locator('pre[aria-label^="Code of"] .line');
    const n = await lines.count();
    expect(n).toBeGreaterThan(0);
    for (let i = 0; i < n; i++) {
      const el = lines.nth(i);
      const no = Number(await el.getAttribute('data-line'));
      expect((await el.textContent())!.replace(/^\d+/, '').replace(/\n$/, '')).toBe(fileLine(no));
    }
  };
  await check();
  const more = card.getByTestId('result-more');
  await expect(more).toContainText('more match');
  await more.click();
  await expect(card.getByTestId('result-fragments')).toBeVisible();
  await check();
  // A later piece's breadcrumb is the signature, numbered with its real line (4).
  const crumb = card.getByTestId('result-fragments').locator('.breadcrumb .line').first();
  await expect(crumb).toHaveAttribute('data-line', '4');
  await expect(crumb).toContainText('def accumulate(values):');
  await page.screenshot({ path: 'test-results/screens/results-split-definition.png', fullPage: true });
});

test('on a phone (390 px) the other pieces of a result scroll inside the card instead of widening it', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await searchFor(page, 'running accumulate step weight');
  const card = page.getByTestId('result').filter({ has: page.getByTestId('result-path').getByText('lib/acc.py') }).first();
  await card.getByTestId('result-more').click();
  await expect(card.getByTestId('result-fragments')).toBeVisible();
  // The fixture's lines are ~70 characters: wider than a phone. Each code block stays within the
  // card (its own horizontal scroll holds the rest), and the card within the screen.
  const box = (await card.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  const blocks = card.locator('pre');
  expect(await blocks.count()).toBeGreaterThan(1);
  let scrolling = 0;
  for (const b of await blocks.all()) {
    const r = (await b.boundingBox())!;
    expect(r.x + r.width).toBeLessThanOrEqual(box.x + box.width);
    if (await b.evaluate((el) => el.scrollWidth > el.clientWidth)) scrolling++;
  }
  expect(scrolling).toBeGreaterThan(0);
});

test('on a phone (390 px) results grouped by file stay within the screen; a path filter applies as it is typed', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await searchFor(page, 'running accumulate step weight');
  await page.getByRole('button', { name: /^Filters/ }).click();
  await page.getByTestId('group-by-file').check();
  await expect(page.getByTestId('file-group').first()).toBeVisible();
  // A grid item is as wide as its longest line unless told otherwise: the page was 569 px wide.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  for (const g of await page.getByTestId('file-group').all()) {
    const r = (await g.boundingBox())!;
    expect(r.x + r.width).toBeLessThanOrEqual(390);
  }
  await page.screenshot({ path: 'test-results/screens/results-group-by-file-phone.png', fullPage: true });
  // The path filter applies after a pause in typing, without Enter or leaving the box.
  await page.getByTestId('filter-glob').pressSequentially('lib/**');
  await expect(page.getByRole('button', { name: 'Clear filters' })).toBeVisible();
  await expect.poll(async () => [...new Set(await page.getByTestId('file-group-path').allTextContents())].every((p) => p.startsWith('lib/'))).toBe(true);
});

test('More context shows the lines around a result on the first click, and Less hides them', async ({ page }) => {
  await searchFor(page, 'fetchWithTimeout');
  const card = page.getByTestId('result').filter({ has: page.getByTestId('result-path').getByText('web/client.ts') }).first();
  await expect(card).toBeVisible();
  const toggle = card.getByRole('button', { name: /^More/ });
  await toggle.click();
  await expect(card.getByRole('button', { name: 'Less' })).toHaveAttribute('aria-expanded', 'true');
  // The file has lines before the function (the constant, a blank line): they show at once,
  // numbered with the file's own lines.
  const before = card.locator('pre[aria-label="Context before"]');
  await expect(before).toBeVisible();
  const lines = CLIENT_TS.split('\n');
  const first = before.locator('.line').first();
  const no = Number(await first.getAttribute('data-line'));
  expect((await first.textContent())!.replace(/^\d+/, '').replace(/\n$/, '')).toBe(lines[no - 1]);
  await card.getByRole('button', { name: 'Less' }).click();
  await expect(before).toHaveCount(0);
});

test('the head of a definition answers its name; explain names the tier; multi-select filters and group by file', async ({ page }) => {
  await searchFor(page, 'accumulate');
  const first = page.getByTestId('result').first();
  await expect(first.getByTestId('result-symbol')).toHaveText('accumulate');
  await expect(first.getByTestId('result-path')).toHaveText('lib/acc.py');
  await expect(first.locator('pre[aria-label^="Code of"] .line').first()).toHaveAttribute('data-line', '4');
  await first.getByRole('button', { name: 'Explain' }).click();
  await expect(page.getByTestId('explain-definition')).toContainText('exact case, head of the definition');

  // Two languages at once; the URL holds both.
  await searchFor(page, 'task');
  await page.getByTestId('filter-language').locator('summary').click();
  await page.getByTestId('filter-language').getByLabel('python').check();
  await page.getByTestId('filter-language').getByLabel('go').check();
  await expect.poll(() => page.url()).toMatch(/lang=(python%2Cgo|python,go)/);
  await expect
    .poll(async () => [...new Set(await page.getByTestId('result-language').allTextContents())].sort(), { timeout: 15_000 })
    .toEqual(['go', 'python']);

  await page.getByTestId('group-by-file').check();
  const groups = page.getByTestId('file-group');
  await expect(groups.first()).toBeVisible();
  const paths = await page.getByTestId('file-group-path').allTextContents();
  expect(new Set(paths).size).toBe(paths.length);
  await page.screenshot({ path: 'test-results/screens/results-group-by-file.png', fullPage: true });
});

test('a C constant is found by name where it is defined; the function of the same name in lower case comes first for its own name', async ({ page }) => {
  await searchFor(page, 'PAGE_SIZE');
  const first = page.getByTestId('result').first();
  await expect(first.getByTestId('result-path')).toHaveText('include/asm/page.h');
  await expect(first.getByTestId('result-symbol')).toHaveText('PAGE_SIZE');
  await expect(first.getByTestId('result-defines')).toHaveText('constant defined here');
  await searchFor(page, 'page_size');
  const top = page.getByTestId('result').first();
  await expect(top.getByTestId('result-path')).toHaveText('mm/pages.c');
  await expect(top.getByTestId('result-symbol')).toHaveText('page_size');
  await expect(top.getByTestId('result-defines')).toHaveCount(0);
  // An enumerator is a constant its enum defines: found there, not at its use.
  await searchFor(page, 'NR_FREE_PAGES');
  const en = page.getByTestId('result').first();
  await expect(en.getByTestId('result-path')).toHaveText('include/linux/mmzone.h');
  await expect(en.getByTestId('result-symbol')).toHaveText('NR_FREE_PAGES');
  await expect(en.getByTestId('result-defines')).toHaveText('constant defined here');
  await page.screenshot({ path: 'test-results/screens/results-enumerator.png', fullPage: true });
  // Module-level constants in Python and TypeScript: found where they are set, not at their use.
  for (const [name, path] of [['MAX_RETRIES', 'lib/settings.py'], ['API_TIMEOUT_MS', 'web/client.ts']]) {
    await searchFor(page, name);
    const hit = page.getByTestId('result').first();
    await expect(hit.getByTestId('result-path')).toHaveText(path);
    await expect(hit.getByTestId('result-symbol')).toHaveText(name);
    await expect(hit.getByTestId('result-defines')).toHaveText('constant defined here');
  }
  await page.screenshot({ path: 'test-results/screens/results-module-constant.png', fullPage: true });
  // Written as a declaration: the struct itself, not the functions that take a struct page.
  await searchFor(page, 'struct page');
  const decl = page.getByTestId('result').first();
  await expect(decl.getByTestId('result-path')).toHaveText('include/linux/mm_types.h');
  await expect(decl.getByTestId('result-symbol')).toHaveText('page');
  await page.screenshot({ path: 'test-results/screens/results-declaration.png', fullPage: true });
});

test('an operator is found as text, its definition first, the operator marked in the code', async ({ page }) => {
  await searchFor(page, ':<|>');
  const cards = page.getByTestId('result');
  await expect(cards.first().getByTestId('result-path')).toHaveText('api/Api/Alternative.hs');
  await expect(cards.first().getByTestId('result-symbol')).toHaveText(':<|>');
  await expect(cards.nth(1).getByTestId('result-path')).toHaveText('api/Server.hs');
  await expect(cards.first().locator('mark.hit').first()).toHaveText(':<|>');
  await page.screenshot({ path: 'test-results/screens/results-operator.png', fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(cards.first().locator('mark.hit').first()).toBeVisible();
  await page.screenshot({ path: 'test-results/screens/results-operator-390.png', fullPage: true });
});

test("a file's name lists that file first and Explain says so; an operator asked about in words is still found", async ({ page }) => {
  await searchFor(page, 'client.ts');
  const first = page.getByTestId('result').first();
  await expect(first.getByTestId('result-path')).toHaveText('web/client.ts');
  await first.getByRole('button', { name: 'Explain' }).click();
  await expect(page.getByTestId('explain-why')).toContainText('it is the file you named');
  await expect(page.getByTestId('explain-definition')).toContainText('the file the query names');
  await page.screenshot({ path: 'test-results/screens/results-file-name.png', fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'test-results/screens/results-file-name-390.png', fullPage: true });

  await searchFor(page, 'where is :<|> defined');
  await expect(page.getByTestId('result').first().getByTestId('result-path')).toHaveText('api/Api/Alternative.hs');

  // A name nothing defines: where it is written comes first, and Explain says why.
  await page.setViewportSize({ width: 1400, height: 900 });
  await searchFor(page, 'APP_RETRY_BUDGET_MS');
  const written = page.getByTestId('result').first();
  await expect(written.getByTestId('result-path')).toHaveText('tests/retry.test.ts');
  await written.getByRole('button', { name: 'Explain' }).click();
  await expect(page.getByTestId('explain-why')).toContainText('it holds the identifier you searched for, which nothing defines');
  await page.screenshot({ path: 'test-results/screens/results-name-written.png', fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'test-results/screens/results-name-written-390.png', fullPage: true });
});
