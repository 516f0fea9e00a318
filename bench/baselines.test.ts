import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ftsBaseline, latencyStats, readBenchQueries, rgBaseline } from './baselines.ts';
import { runOk } from './util.ts';
import { openNodeStore } from '../src/core/store/open-node.ts';

const dir = mkdtempSync(join(tmpdir(), 'sift-baselines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tree = join(dir, 'tree');
mkdirSync(join(tree, 'src'), { recursive: true });
writeFileSync(join(tree, 'src/a.c'), 'int spin_lock_irqsave(void) { return 0; }\n');
writeFileSync(join(tree, 'src/b.go'), 'package b\n// Spin_Lock_IrqSave mention\n');
writeFileSync(join(tree, 'src/c.js'), 'export const nothing = 1;\n');

describe('baselines', () => {
  it('bench/queries.txt holds ~30 queries of each kind', () => {
    const q = readBenchQueries();
    expect(q.length).toBeGreaterThanOrEqual(25);
    expect(q.some((x) => /_/.test(x))).toBe(true);
    expect(q.some((x) => x.split(' ').length >= 4)).toBe(true);
  });

  it('ripgrep counts case-insensitive literal matches per query', () => {
    const r = rgBaseline(tree, ['spin_lock_irqsave', 'absent token'], 1);
    expect(r.matchingFiles).toEqual([2, 0]);
    expect(r.perQuery).toHaveLength(2);
    expect(r.p95).toBeGreaterThanOrEqual(r.p50);
  });

  it('sqlite3 FTS5 over the chunks of an index file (their text read from file_text)', async () => {
    const siftDb = join(dir, 'sift.db');
    const store = await openNodeStore(siftDb);
    const texts: Record<string, string> = { 'a.c': 'x\nspin lock\n', 'b.c': 'unrelated\n', 'c.c': 'lock free\n' };
    await store.writeFiles(Object.entries(texts).map(([path, text]) => {
      const startLine = path === 'a.c' ? 2 : 1;
      const content = text.split('\n')[startLine - 1]!;
      return {
        file: { path, hash: path, size: text.length, mtime: 1, language: 'c' }, text,
        chunks: [{ path, startLine, endLine: startLine, language: 'c', chunkType: 'text' as const, symbol: null, parent: null, signature: null, doc: null, content, contentHash: path }],
      };
    }));
    await store.close();
    const r = ftsBaseline(tree, ['spin lock', 'zzz'], { siftDb, runs: 2, work: join(dir, 'w1') });
    expect(r).toMatchObject({ source: 'sift-chunks', rows: 3 });
    expect(r.perQuery).toHaveLength(2);
    expect(r.dbBytes).toBeGreaterThan(0);
    const copied = runOk('sqlite3', [join(dir, 'w1', 'fts.db'), 'SELECT path, content FROM c ORDER BY path;']).stdout.trim().split('\n');
    expect(copied).toEqual(['a.c|spin lock', 'b.c|unrelated', 'c.c|lock free']);
  });

  it('sqlite3 FTS5 falls back to 40-line windows of the folder', () => {
    const r = ftsBaseline(tree, ['spin'], { runs: 1, work: join(dir, 'w2') });
    expect(r).toMatchObject({ source: '40-line windows', rows: 3 });
  });
});

describe('latencyStats', () => {
  it('nearest-rank p50/p95 and mean', () => {
    const s = latencyStats([5, 1, 4, 2, 3, 100, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(s.p50).toBe(10);
    expect(s.p95).toBe(19);
    expect(s.mean).toBeCloseTo(14.5);
  });
});
