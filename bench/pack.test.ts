// bench/pack.ts without a browser: the pack-vs-local comparison and the report.
import { describe, expect, it } from 'vitest';
import { EXACT_PATTERNS, FIRST_QUERY, KEYWORD_QUERIES, compare, packMarkdown, type LocalSide, type PackAnswer, type PackSide } from './pack.ts';

const answer = (query: string, items: string[], extra: Partial<PackAnswer> = {}): PackAnswer => ({
  query, ms: 200, workerMs: 20, summary: '', items, siftRequests: 2, siftBytes: 131072, otherRequests: 0, ...extra,
});

function sides(): { pack: PackSide; local: LocalSide } {
  const kw = KEYWORD_QUERIES.slice(0, 3);
  const ex = EXACT_PATTERNS.slice(0, 2);
  const pack: PackSide = {
    openMs: 400, rowLabel: 'Codebase kernel-quick', firstResultsMs: 900, first: answer(FIRST_QUERY, ['mm/slab.c:1–2']),
    untilFirst: { sift: { requests: 5, bytes: 5 * 65536 }, manifest: { requests: 1, bytes: 2000 }, all: { requests: 40, bytes: 3 << 20 }, app: { requests: 5, bytes: 5 * 65536 }, top: [{ path: '/assets/x.wasm', requests: 2, bytes: 2048 }] },
    appAtEnd: null,
    modes: [
      { mode: 'keyword', errors: [], answers: [answer(kw[0]!, ['a:1–2', 'b:3–4']), answer(kw[1]!, ['a:1–2', 'b:3–4']), answer(kw[2]!, ['x:1–1'])] },
      { mode: 'exact', errors: ['goto out;: timeout'], answers: [answer(ex[0]!, ['a:1', 'b:2'], { totalMatches: 2, filesMatched: 2 }), answer(ex[1]!, ['a:9'], { totalMatches: 1, filesMatched: 1 })] },
    ],
  };
  const local: LocalSide = {
    copy: { files: 2, bytes: 10, ms: 5 }, indexMs: 1000, files: 2, chunks: 4,
    modes: [
      { mode: 'keyword', errors: [], answers: [answer(kw[0]!, ['a:1–2', 'b:3–4']), answer(kw[1]!, ['b:3–4', 'a:1–2']), answer(kw[2]!, ['y:1–1'])] },
      { mode: 'exact', errors: [], answers: [answer(ex[0]!, ['b:2', 'a:1'], { totalMatches: 2, filesMatched: 2 }), answer(ex[1]!, ['a:9'], { totalMatches: 3, filesMatched: 1 })] },
    ],
  };
  return { pack, local };
}

describe('compare', () => {
  it('keyword: same order, or the overlap; exact: the same line set and totals', () => {
    const { pack, local } = sides();
    const p = compare(pack, local);
    expect(p.keyword.map((k) => [k.sameOrder, k.overlap])).toEqual([[true, 2], [false, 2], [false, 0]]);
    expect(p.exact.map((e) => [e.sameLines, e.sameTotals, e.pack, e.local])).toEqual([[true, true, 2, 2], [true, false, 1, 3]]);
  });
});

describe('packMarkdown', () => {
  it('reports the open, the per-mode rows, the parity and the failures', () => {
    const { pack, local } = sides();
    const md = packMarkdown({
      machine: { date: '2026-11-27T00:00:00Z', cpu: 'x', cores: 2, ramGiB: 4, node: 'v20', chromium: 'c', sqlite3: 's', ripgrep: 'r', gitCommit: 'abc' },
      delayMs: 50, tree: { name: 'kernel-quick', dirs: ['mm', 'block'], files: 2, bytes: 1 << 20 },
      publish: { command: 'bin/sift publish t --out o', ms: 1000, dev: false },
      manifest: {
        format: 1, name: 'kernel-quick', commit: null, created: '2026-11-27T00:00:00Z', pack: 'kernel-quick-0123456789abcdef.sift', bytes: 2 << 20, sha256: '0'.repeat(64),
        pageSize: 65536, pageHashes: '', schemaVersion: 11, files: 2, chunks: 4, sourceBytes: 1 << 20,
        contains: { keyword: true, text: true, definitions: true, embeddings: null }, stats: { languages: {}, kinds: {}, chunkTypes: {}, symbols: 0, skipped: null }, sift: '0.1.0',
      } as Parameters<typeof packMarkdown>[0]['manifest'],
      chromium: 'Chromium 150', pack, local, parity: compare(pack, local), errors: {}, notes: ['a note'], uncommitted: ['src/app/App.svelte'], loadavgEnd: [1, 2, 3],
    });
    expect(md).toContain('| navigation → first results of `kfree` (keyword) | 900 ms');
    expect(md).toContain('| .sift until first results | 5 requests, 320 KiB (15.63% of the pack) |');
    expect(md).toMatch(/\| keyword \| pack \| 3 \| 200 \| 200 \| 200 \| 20\.0 \/ 20\.0 \| 2 \/ 2 \/ 6 \| 128 \/ 128 \/ 384 \|/);
    expect(md).toContain('| exact | pack | 2 (+1 failed) |');
    expect(md).toContain('identical: 1 of 3 queries');
    expect(md).toContain('the same totals (lines, files) for 1 of 2');
    expect(md).toContain('- exact: goto out;: timeout');
    expect(md).toContain('- a note');
    expect(md).toContain('**The app measured is the working tree**: 1 files under its sources differ from commit abc (src/app/App.svelte)');
    expect(md).toContain('`/assets/x.wasm` 2.0 KiB (2×)');
  });
});
