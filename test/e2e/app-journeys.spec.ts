/**
 * Whole user journeys (issue 37) on a generated project of ~300 files in six languages
 * (helpers/project-fixture.ts), indexed once: open, search an identifier, expand its context,
 * open the file (marks, next match, outline), page past 20, explain, Stats and back, Settings
 * and back, a bad regex then the same text exact, Semantic before any model. The light theme
 * runs every step at 1400 px and at 390 px (a phone: the search box in the first 200 px, the
 * first result on the first screen); the dark theme the screens that differ, at both widths.
 * Every step writes test-results/journeys/<theme>-<width>-<step>.png, to be looked at.
 */
import { writeFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { installPicker } from './helpers/opfs-fixture.ts';
import { journeyProject, JOURNEY_FACTS } from './helpers/project-fixture.ts';
import { chooseMode, resetApp, searchFor, waitIndexed } from './helpers/app.ts';

const project = journeyProject();
const FILES = Object.keys(project.files).length;
const WIDE = { width: 1400, height: 900 };
const PHONE = { width: 390, height: 844 };

type Width = 'wide' | 'phone';

const started = Date.now();
async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: `test-results/journeys/${name}.png`, fullPage });
  if (process.env.SIFT_E2E_TIMES) console.log(`${((Date.now() - started) / 1000).toFixed(1)} s ${name}`);
}

/** Roles of controls: each one on screen must have a name (getByRole finds it by that name). */
const CONTROL = /^\s*- (button|link|textbox|searchbox|checkbox|radio|combobox|slider|spinbutton|switch|tab|menuitem|option)(?: \[[^\]]*\])*:?\s*$/;

/** Every control in the accessibility tree on screen now has a name. */
async function everyControlNamed(page: Page, where: string): Promise<void> {
  const tree = await page.locator('body').ariaSnapshot();
  if (process.env.SIFT_E2E_ARIA) writeFileSync(`test-results/journeys/${where.replace(/\W+/g, '-')}.aria.yml`, tree);
  const unnamed = tree.split('\n').filter((l) => CONTROL.test(l));
  expect(unnamed, `controls without a name (${where}):\n${tree}`).toEqual([]);
}

/** Presses Tab (Shift+Tab back) until `target` has the focus: how a keyboard reaches it. */
async function tabTo(page: Page, target: ReturnType<Page['locator']>, back = false, max = 150): Promise<void> {
  const handle = await target.elementHandle();
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((el) => document.activeElement === el, handle)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${target}`);
}

/** Opens a page of the header and comes back with the browser's Back. */
async function visitAndBack(page: Page, label: 'Stats' | 'Settings', check: () => Promise<void>, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: label }).click();
  await check();
  await everyControlNamed(page, name);
  // The whole page once (at 1400 px, light), to look at below the fold.
  await shot(page, name, name === 'light-wide-08-settings');
  await page.goBack();
  await expect(page.getByTestId('search-input')).toBeVisible();
  await expect(page.getByTestId('result').first()).toBeVisible();
}

async function identifierSearch(page: Page, width: Width, prefix: string): Promise<void> {
  await searchFor(page, 'send_response');
  const card = page.getByTestId('result').first();
  await expect(card.getByTestId('result-path')).toHaveText(JOURNEY_FACTS.connPath);
  // Elixir: the module is named as a module, the function's badge says function.
  await expect(card.getByTestId('result-type')).toHaveText('function');
  // The preview shows the definition line under a folded doc, and marks only the identifier.
  await expect(card.locator(`[data-line="${JOURNEY_FACTS.sendResponseDefLine}"]`)).toContainText('def send_response(conn, status, body)');
  await expect(card.getByTestId('result-doc-fold')).toContainText('more doc lines');
  const marked = await card.locator('mark').allTextContents();
  expect(marked.length).toBeGreaterThan(0);
  expect(new Set(marked)).toEqual(new Set(['send_response']));
  if (width === 'phone') {
    // The header (name, pages, theme) and the five modes each on one row.
    const rowOf = async (name: string) => (await page.getByRole('banner').getByRole(name === 'Theme' ? 'combobox' : 'button', { name }).boundingBox())!.y;
    expect(Math.abs((await rowOf('Theme')) - (await rowOf('Stats')))).toBeLessThan(8);
    const modeY = async (name: string) => (await page.getByRole('radio', { name }).locator('..').boundingBox())!.y;
    expect(await modeY('Regex')).toBe(await modeY('Hybrid'));
    const box = await page.getByTestId('search-input').boundingBox();
    expect(box!.y).toBeLessThan(200);
    const first = await card.boundingBox();
    expect(first!.y).toBeLessThan(PHONE.height);
  }
  await everyControlNamed(page, `${prefix} search`);
  await shot(page, `${prefix}-02-search`);
}

async function journey(page: Page, width: Width, prefix: string): Promise<void> {
  await test.step(`${prefix}: search an identifier`, () => identifierSearch(page, width, prefix));

  await test.step(`${prefix}: more context, then the whole doc`, async () => {
    const card = page.getByTestId('result').first();
    await card.getByRole('button', { name: /^More/ }).click();
    await expect(card.getByLabel('Context after')).toBeVisible();
    await expect(card.getByLabel('Context before')).toContainText('import Plug.Conn');
    // The lines around are marked like the result's own (send_error calls send_response).
    await expect(card.getByLabel('Context after').locator('mark')).toHaveText(['send_response']);
    await expect(card.getByTestId('result-doc-fold')).toHaveCount(0);
    await card.getByRole('button', { name: 'Less' }).scrollIntoViewIfNeeded();
    await shot(page, `${prefix}-03-context`);
    await card.getByRole('button', { name: 'Less' }).click();
  });

  await test.step(`${prefix}: open the file: marks, next match, outline`, async () => {
    await page.getByTestId('result').first().getByRole('button', { name: 'Open file' }).click();
    const viewer = page.getByTestId('file-viewer');
    await expect(viewer).toBeVisible();
    const matches = viewer.getByTestId('viewer-matches');
    // send_response on lines 17, 22, 28 and 34 of the file (send_resp is another name).
    await expect(matches).toContainText(width === 'phone' ? '1 of 4' : '1 of 4 matches');
    await expect(viewer.locator('mark').first()).toHaveText('send_response');
    await page.keyboard.press('n');
    await expect(matches).toContainText('2 of');
    await viewer.getByRole('button', { name: 'Previous match (Shift+N)' }).click();
    await expect(matches).toContainText('1 of');
    if (width === 'phone') {
      // The viewer's controls on one row under its title.
      const y = async (name: string) => (await viewer.getByRole('button', { name }).boundingBox())!.y;
      expect(await y('Close file (Esc)')).toBe(await y('Next match (N)'));
      await expect(viewer.getByTestId('viewer-outline')).toHaveCount(0);
      await viewer.getByRole('button', { name: 'Outline' }).click();
    }
    const outline = viewer.getByTestId('viewer-outline');
    // The module once (indexed as Shop.Web.Conn and Conn), badged a module, then its functions.
    await expect(outline.getByRole('button')).toHaveText([/^Shop\.Web\.Conn\s*module\s*1$/, /^send_response\s*function\s*22$/, /^send_error/, /^redirect_to/]);
    await outline.getByRole('button', { name: /redirect_to/ }).click();
    const line = viewer.locator('.line.focus').first();
    await expect(line).toContainText('def redirect_to(conn, path)');
    await expect(line).toBeInViewport();
    // The definition's lines end at its own `end`, not the module's (line 43).
    await expect(viewer.locator('.line.focus')).toHaveCount(5);
    await everyControlNamed(page, `${prefix} viewer`);
    await shot(page, `${prefix}-04-viewer`);
    await page.keyboard.press('Escape');
    await expect(viewer).toBeHidden();
  });

  await test.step(`${prefix}: page past 20`, async () => {
    await searchFor(page, 'parse config');
    await expect(page.getByTestId('result-summary')).toContainText('top 20 of more');
    await page.getByTestId('show-more').click();
    await expect(page.getByTestId('result')).toHaveCount(40);
    await page.getByTestId('result').nth(20).scrollIntoViewIfNeeded();
    await shot(page, `${prefix}-05-more`);
  });

  await test.step(`${prefix}: explain`, async () => {
    const card = page.getByTestId('result').first();
    await card.scrollIntoViewIfNeeded();
    await card.getByRole('button', { name: 'Explain' }).click();
    await expect(card.getByTestId('explain-why')).toContainText('#1');
    // No signal the ranking does not weigh (coverage read 0.00 on a piece with every word).
    await expect(card.getByTestId('bm25-signals')).not.toContainText('coverage');
    await shot(page, `${prefix}-06-explain`);
    await card.getByRole('button', { name: 'Explain' }).click();
  });

  await test.step(`${prefix}: Stats and back`, () =>
    visitAndBack(page, 'Stats', async () => {
      await expect(page.getByTestId('stat-files')).toHaveText(String(FILES));
      // Debug facts wait behind Details.
      await expect(page.getByText('Merkle root')).toBeHidden();
      await expect(page.getByText('Details: worker calls')).toBeVisible();
    }, `${prefix}-07-stats`));

  await test.step(`${prefix}: Settings and back`, () =>
    visitAndBack(page, 'Settings', async () => {
      await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
    }, `${prefix}-08-settings`));

  await test.step(`${prefix}: a bad regex, then the same text exact`, async () => {
    await chooseMode(page, 'Regex');
    await page.getByTestId('search-input').fill('send_response(conn');
    const err = page.getByTestId('grep-error');
    await expect(err).toBeVisible();
    // The caret sits under the '(' left open.
    const caret = (await err.locator('pre').textContent())!.split('\n')[1];
    expect(caret.indexOf('^')).toBe('send_response'.length);
    await everyControlNamed(page, `${prefix} regex`);
    await shot(page, `${prefix}-09-regex-error`);
    await chooseMode(page, 'Exact');
    await expect(page.getByTestId('grep-summary')).toHaveAttribute('data-query', 'send_response(conn');
    await expect(page.getByTestId('grep-line').first()).toBeVisible();
    await shot(page, `${prefix}-10-exact`);
  });

  await test.step(`${prefix}: Semantic before the model`, async () => {
    await chooseMode(page, 'Semantic');
    await page.getByTestId('search-input').fill('how errors are sent to the client');
    const why = page.getByTestId('meaning-needs-model');
    await expect(why).toContainText('Semantic search needs the embedding model');
    await expect(why.getByRole('button', { name: 'Download the model' })).toBeVisible();
    // One offer of the download: the model offer (on a phone its one line) steps aside.
    await expect(page.getByTestId('model-offer')).toHaveCount(0);
    await expect(page.getByRole('button', { name: /download/i })).toHaveCount(1);
    await everyControlNamed(page, `${prefix} semantic`);
    await shot(page, `${prefix}-11-semantic`);
    await why.getByRole('button', { name: 'Search by keyword instead' }).click();
    await expect(page.getByRole('radio', { name: 'Keyword' })).toBeChecked();
    await expect(page.getByTestId('result').first()).toBeVisible();
  });
}

/** The journeys again with the keyboard only (Tab, Enter, arrows, the app's keys), at 1400 px. */
async function keyboardJourney(page: Page): Promise<void> {
  const box = page.getByTestId('search-input');
  const type = async (q: string) => {
    await page.keyboard.press('/');
    await expect(box).toBeFocused();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(q);
  };
  const nav = (name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name });

  // Search, open the first result with Enter, the next match, a definition from the outline, Esc.
  await type('send_response');
  await expect(page.getByTestId('result-summary')).toHaveAttribute('data-query', 'send_response');
  await page.keyboard.press('Enter');
  const viewer = page.getByTestId('file-viewer');
  await expect(viewer.getByTestId('viewer-matches')).toContainText('1 of 4');
  await page.keyboard.press('n');
  await expect(viewer.getByTestId('viewer-matches')).toContainText('2 of 4');
  await tabTo(page, viewer.getByTestId('viewer-outline').getByRole('button', { name: /redirect_to/ }));
  await page.keyboard.press('Enter');
  await expect(viewer.locator('.line.focus').first()).toContainText('def redirect_to(conn, path)');
  await page.keyboard.press('Escape');
  await expect(viewer).toBeHidden();

  // More context and Explain on the first card: Tab to them, Enter, Enter again to close.
  const card = page.getByTestId('result').first();
  await tabTo(page, card.getByRole('button', { name: /^More/ }));
  await page.keyboard.press('Enter');
  await expect(card.getByLabel('Context after')).toBeVisible();
  await expect(card.getByRole('button', { name: 'Less' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(card.getByLabel('Context after')).toHaveCount(0);
  await tabTo(page, card.getByRole('button', { name: 'Explain' }));
  await page.keyboard.press('Enter');
  await expect(card.getByTestId('explain-why')).toContainText('#1');
  await shot(page, 'light-wide-12-keyboard-explain');
  await page.keyboard.press('Enter');

  // A filter menu: Tab to it, Enter opens it, Space checks a type, Esc closes it.
  const typeMenu = page.getByRole('button', { name: 'Chunk type' });
  await tabTo(page, typeMenu);
  await page.keyboard.press('Enter');
  await tabTo(page, page.getByRole('checkbox', { name: 'function', exact: true }));
  await page.keyboard.press('Space');
  await expect(typeMenu).toHaveText('function');
  await expect(page.getByTestId('result-type').first()).toHaveText('function');
  await page.keyboard.press('Space');
  await page.keyboard.press('Escape');
  await expect(typeMenu).toHaveText('All');
  await expect(typeMenu).toHaveAttribute('aria-expanded', 'false');

  // Past result 20.
  await type('parse config');
  await expect(page.getByTestId('result-summary')).toHaveAttribute('data-query', 'parse config');
  await tabTo(page, page.getByTestId('show-more'));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('result')).toHaveCount(40);

  // Stats and Settings from the header, and back to the same search.
  for (const [label, heading] of [['Stats', 'Index statistics'], ['Settings', 'Settings']] as const) {
    await page.keyboard.press('/');
    await tabTo(page, nav(label), true);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: heading, exact: true })).toBeVisible();
    await tabTo(page, nav('Search'), true);
    await page.keyboard.press('Enter');
    await expect(box).toHaveValue('parse config');
    await expect(page.getByTestId('result').first()).toBeVisible();
  }

  // The modes are one radio group: Tab into it, arrows move. Keyword → Regex, a bad pattern.
  await type('send_response(conn');
  await tabTo(page, page.getByRole('radio', { name: 'Keyword' }));
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('radio', { name: 'Regex' })).toBeChecked();
  await expect(page.getByTestId('grep-error')).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('radio', { name: 'Exact' })).toBeChecked();
  await expect(page.getByTestId('grep-line').first()).toBeVisible();
  await shot(page, 'light-wide-13-keyboard-exact');

  // Semantic before the model: its message's buttons are reachable; keyword instead.
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('radio', { name: 'Semantic' })).toBeChecked();
  const why = page.getByTestId('meaning-needs-model');
  await tabTo(page, why.getByRole('button', { name: 'Download the model' }));
  await tabTo(page, why.getByRole('button', { name: 'Search by keyword instead' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('radio', { name: 'Keyword' })).toBeChecked();
  await expect(page.getByTestId('result').first()).toBeVisible();
}

test('journeys at 1400 and 390 px, light; the changed screens dark', async ({ page }) => {
  test.setTimeout(300_000);
  await installPicker(page, { default: project });
  await page.setViewportSize(WIDE);
  await page.emulateMedia({ colorScheme: 'light' });
  await resetApp(page);
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, project.name, FILES);
  await shot(page, 'light-wide-01-open');

  await journey(page, 'wide', 'light-wide');
  await page.setViewportSize(PHONE);
  await page.getByTestId('search-input').fill('');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'light-phone-01-open');
  await journey(page, 'phone', 'light-phone');

  await test.step('dark: the screens this issue changed, at both widths', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    for (const [width, size] of [['phone', PHONE], ['wide', WIDE]] as const) {
      await page.setViewportSize(size);
      const prefix = `dark-${width}`;
      await identifierSearch(page, width, prefix);
      await page.getByTestId('result').first().getByRole('button', { name: 'Open file' }).click();
      if (width === 'phone') await page.getByTestId('file-viewer').getByRole('button', { name: 'Outline' }).click();
      await expect(page.getByTestId('viewer-outline')).toBeVisible();
      await shot(page, `${prefix}-04-viewer`);
      await page.keyboard.press('Escape');
      if (width === 'phone') await page.getByTestId('filters-toggle').click();
      await page.getByRole('button', { name: 'Chunk type' }).click();
      // Stored types by what they are here: a class may be an Elixir module; `module` is top-level code.
      const types = page.getByTestId('filter-type').getByRole('checkbox');
      await expect(page.getByTestId('filter-type').getByRole('checkbox', { name: 'class or Elixir module' })).toBeVisible();
      await expect(page.getByTestId('filter-type').getByRole('checkbox', { name: 'top-level code' })).toBeVisible();
      await expect(types.and(page.getByRole('checkbox', { name: 'module', exact: true }))).toHaveCount(0);
      await everyControlNamed(page, `${prefix} filters`);
      await shot(page, `${prefix}-05-filters`);
      await page.keyboard.press('Escape');
      await visitAndBack(page, 'Stats', async () => {
        await shot(page, `${prefix}-07-stats-top`);
        await page.getByTestId('stat-details').locator('summary').click();
        await expect(page.getByText('Merkle root')).toBeVisible();
      }, `${prefix}-07-stats`);
    }
  });

  await test.step('keyboard only, 1400 px light', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(WIDE);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await keyboardJourney(page);
  });
});
