/**
 * Exact and regex search in the app (issue 11), on a real folder handle (OPFS fixture) in
 * Chromium: the lines shown equal ripgrep's on the same files, grouped by file; the Aa toggle
 * and the mode live in the URL; an invalid pattern says what and where; the catastrophic
 * pattern finishes; Enter opens the viewer at the line.
 */
import { test, expect, type Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { installPicker, readFixture } from './helpers/opfs-fixture.ts';
import { waitIndexed, resetApp, viewerStepLanded } from './helpers/app.ts';

const fixture = readFixture('test/fixtures/repo-small');
const EXTRA: Record<string, string> = {
  'notes/windows.txt': 'first line\r\nTODO: fix the CRLF file\r\n\r\nlast line todo\r\n',
  'notes/long.txt': `${'a'.repeat(20_000)}!\nshort aaa\n`,
  'notes/unicode.md': '# Café\n\nnaïve — 😀 TODO later\n',
};
for (const [p, text] of Object.entries(EXTRA)) fixture.files[p] = Buffer.from(text).toString('base64');
const FILES = Object.keys(fixture.files).length;

let copy: string;
test.beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'sift-e2e-grep-'));
  for (const [p, b64] of Object.entries(fixture.files)) {
    mkdirSync(dirname(join(copy, p)), { recursive: true });
    writeFileSync(join(copy, p), Buffer.from(b64, 'base64'));
  }
});
test.afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** rg's (path:line) answer on the same files. */
function rg(pattern: string, opts: { fixed?: boolean; ignoreCase?: boolean } = {}): string[] {
  const r = spawnSync('rg', ['--no-config', '-n', '--no-heading', '-H', '--hidden', '--no-ignore', ...(opts.fixed ? ['-F'] : []), ...(opts.ignoreCase ? ['-i'] : []), '-e', pattern, '.'], { cwd: copy, encoding: 'utf8' });
  if (r.status === 1) return [];
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean).map((l) => /^\.\/(.*?):(\d+):/.exec(l)!.slice(1, 3).join(':')).sort();
}

async function shownLines(page: Page): Promise<string[]> {
  const out: string[] = [];
  for (const file of await page.getByTestId('grep-file').all()) {
    const path = await file.getByTestId('grep-file-path').textContent();
    for (const line of await file.getByTestId('grep-line').all()) out.push(`${path}:${await line.getAttribute('data-line')}`);
  }
  return out.sort();
}

/** Types a pattern and waits for ITS answer (a summary or an error carrying it), never an older one. */
async function grepFor(page: Page, pattern: string): Promise<void> {
  const box = page.getByTestId('search-input');
  await box.fill('');
  await expect(page.getByTestId('grep-summary')).toHaveCount(0);
  await box.fill(pattern);
  const answered = () => page.evaluate(() => document.querySelector('[data-testid=grep-summary], [data-testid=grep-error]')?.getAttribute('data-query') ?? null);
  await expect.poll(answered).toBe(pattern);
  await expect(page.getByText('Searching…')).toHaveCount(0);
}

test.beforeEach(async ({ page }) => {
  await installPicker(page, { default: fixture });
  await resetApp(page);
});

test('exact and regex search show ripgrep\'s lines, grouped by file', async ({ page }) => {
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', FILES);

  await page.getByText('Exact', { exact: true }).click();
  expect(page.url()).toContain('mode=exact');
  await grepFor(page, 'TODO');
  expect(await shownLines(page)).toEqual(rg('TODO', { fixed: true }));
  await expect(page.getByTestId('grep-summary')).toContainText('matching case');
  // One header per file, with its count.
  const head = page.getByTestId('grep-file').filter({ hasText: 'notes/windows.txt' });
  await expect(head.getByTestId('grep-file-count')).toHaveText('1');
  await expect(head.getByTestId('grep-line').locator('mark')).toHaveText('TODO');

  // Controls of ranked search are not shown for lines: chunk type, file kind, first, group by file, the model offer.
  for (const id of ['filter-type', 'filter-kind', 'filter-intent', 'group-by-file', 'model-offer']) await expect(page.getByTestId(id)).toHaveCount(0);
  await expect(page.getByTestId('match-case')).toBeChecked();
  // Match case off: ignore case (URL i=1), then the same lines as rg -i.
  await page.getByTestId('match-case').click();
  await expect(page.getByTestId('grep-summary')).toContainText('ignoring case');
  expect(page.url()).toContain('i=1');
  await expect.poll(() => shownLines(page)).toEqual(rg('TODO', { fixed: true, ignoreCase: true }));
  await page.getByTestId('match-case').click();

  // An exact pattern written as a regex finds no line; the app says what Regex finds, one click away.
  await grepFor(page, '^def \\w+\\(');
  await expect(page.getByTestId('grep-as-regex')).toContainText(`${rg('^def \\w+\\(').length} lines`);
  await page.screenshot({ path: 'test-results/screens/grep-as-regex.png' });
  await page.getByTestId('grep-as-regex').getByRole('button', { name: 'search as a regex' }).click();
  await expect.poll(() => shownLines(page)).toEqual(rg('^def \\w+\\('));
  expect(page.url()).toContain('mode=regex');
  await page.getByText('Exact', { exact: true }).click();
  await grepFor(page, 'no such text anywhere');
  await expect(page.getByTestId('grep-as-regex')).toHaveCount(0);

  await page.getByText('Regex', { exact: true }).click();
  expect(page.url()).toContain('mode=regex');
  for (const p of ['^def \\w+\\(', 'line$', '^$', 'a{3}$', '\\bTODO\\b.*\\S$']) {
    await grepFor(page, p);
    expect(await shownLines(page), p).toEqual(rg(p));
  }
  await page.screenshot({ path: 'test-results/screens/grep-regex.png', fullPage: true });

  // The catastrophic pattern finishes; the 20,000 a's end in '!' so only 'short aaa' matches.
  await grepFor(page, '(a+)+$');
  expect(await shownLines(page)).toEqual(rg('(a+)+$'));

  // An invalid pattern: what and where, no exception.
  await grepFor(page, 'foo(bar');
  await expect(page.getByTestId('grep-error')).toContainText('missing closing )');

  // Keyboard: Enter opens the viewer at the selected line.
  await grepFor(page, '^def complete_task');
  await page.getByTestId('search-input').press('Enter');
  const dialog = page.getByTestId('file-viewer');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading')).toContainText('api/handlers.py:12');
  await expect(dialog.locator('.line.focus', { hasText: 'def complete_task' })).toHaveCount(1);
  await page.keyboard.press('Escape');
  await viewerStepLanded(page);

  // A link with mode and case restores them.
  await page.goto(`./#q=${encodeURIComponent('todo')}&mode=exact&i=1`);
  await expect(page.getByTestId('grep-summary')).toHaveAttribute('data-query', 'todo');
  await expect.poll(() => shownLines(page)).toEqual(rg('todo', { fixed: true, ignoreCase: true }));
  await page.screenshot({ path: 'test-results/screens/grep-exact.png', fullPage: true });
});
