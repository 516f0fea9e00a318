import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildWindowsDb, indexable, searchWindows, seedQuery } from './seed-baseline.ts';

describe('seedQuery', () => {
  it.each([
    ['page table walk', '"page"* OR "table"* OR "walk"*'],
    ['Free the mm\'s "pages" (AND) NOT *', '"free"* OR "the"* OR "mm"* OR "s"* OR "pages"* OR "and"* OR "not"*'],
    ['snake_case getX', '"snake"* OR "case"* OR "getx"*'],
    ['*** ""', ''],
  ])('%j', (q, want) => expect(seedQuery(q)).toBe(want));
});

describe('indexable', () => {
  it.each([['a/b.c', true], ['Makefile', true], ['x.PY', true], ['img.png', false], ['noext', false]])('%s', (p, want) =>
    expect(indexable(p)).toBe(want));
});

describe('window index on native sqlite3', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sift-seed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('cuts 40-line windows and ranks the window holding the terms first', () => {
    mkdirSync(join(dir, 'tree/src'), { recursive: true });
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1} filler`);
    lines[54] = 'int reclaim_zebra_pages(void) { return 0; }';
    writeFileSync(join(dir, 'tree/src/a.c'), lines.join('\n'));
    writeFileSync(join(dir, 'tree/src/b.c'), "zebra crossing 'quoted'\n");
    writeFileSync(join(dir, 'tree/logo.png'), 'zebra');
    const built = buildWindowsDb(join(dir, 'tree'), join(dir, 'w.db'));
    expect(built).toMatchObject({ files: 2, windows: 4 });
    const [res, none] = searchWindows(built.db, ['reclaim zebra', 'qqqqqq']);
    expect(res[0]).toEqual({ path: 'src/a.c', start: 41, end: 80 });
    expect(res).toHaveLength(2);
    expect(none).toEqual([]);
  });
});
