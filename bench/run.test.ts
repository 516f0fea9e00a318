import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../src/core/store/open-node.ts';
import { HOOKS, hookMarkdown, runHooks, type BenchReport } from './run.ts';
import { indexStructures } from './shared.ts';
import { REPO_DIR } from './util.ts';


describe('runHooks', () => {
  it('runs every hook, renders its rows, and reports a failing one without stopping', async () => {
    const out = await runHooks(true, [
      { key: 'ok', title: 'ok', load: async () => async (quick) => [{ kind: 'x', quick, ms: 1.234 }] },
      { key: 'bad', title: 'bad', load: async () => async () => { throw new Error('boom'); } },
      { key: 'after', title: 'after', load: async () => async () => ({ markdown: '# m' }) },
    ]);
    expect(out.map((h) => h.status)).toEqual(['ok', 'failed', 'ok']);
    expect(out[0].data).toEqual([{ kind: 'x', quick: true, ms: 1.234 }]);
    expect(out[0].markdown).toBe('| kind | quick | ms |\n|---|---|---|\n| x | true | 1.23 |');
    expect(out[1].detail).toBe('boom');
    expect(out[2].markdown).toBe('# m');
  });
});

describe('npm run bench -- --smoke', () => {
  // The real entry point in its own process: a hook module that imports run.ts back leaves
  // run.ts's top-level await unsettled (exit 13), which only shows when run.ts is the main module.
  it('walks the whole sequence (small corpus, every hook loaded) and writes its report', () => {
    const out = mkdtempSync(join(tmpdir(), 'sift-bench-smoke-'));
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke', '--out', out], { cwd: REPO_DIR, encoding: 'utf8', timeout: 120_000 });
      expect(r.status, r.stderr).toBe(0);
      const files = readdirSync(out).sort();
      expect(files).toHaveLength(2);
      const report = JSON.parse(readFileSync(join(out, files.find((f) => f.endsWith('-smoke.json'))!), 'utf8')) as BenchReport;
      expect(report.mode).toBe('smoke');
      expect(report.hooks.map((h) => [h.key, h.status])).toEqual(HOOKS.map((h) => [h.key, 'ok']));
      const small = report.corpora[0]!;
      expect(small.corpus.name).toBe('small');
      expect(small.cold?.summary.files.total).toBeGreaterThan(0);
      expect(small.search.map((s) => s.mode)).toEqual(['bm25']);
      expect(small.incremental.find((x) => x.label === '1 file edited')?.searchable).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 150_000);
});

describe('hookMarkdown', () => {
  it.each([
    [{ markdown: '# own' }, '# own'],
    [{ a: 1 }, '```json\n{\n "a": 1\n}\n```'],
  ])('%j', (data, want) => expect(hookMarkdown(data)).toBe(want));
});

describe('indexStructures', () => {
  it('splits a real Sift index file into its structures (native sqlite3 dbstat)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sift-bench-structures-'));
    try {
      const db = join(dir, 'index.db');
      const store = await openNodeStore(db);
      const text = 'function alpha() {\n  return 1;\n}\n';
      await store.writeFiles([{
        file: { path: 'a.ts', hash: 'h', size: text.length, mtime: 1, language: 'typescript' }, text,
        chunks: [{ path: 'a.ts', startLine: 1, endLine: 3, language: 'typescript', chunkType: 'function', symbol: 'alpha', parent: null, signature: 'function alpha()', doc: null, content: text.trimEnd(), contentHash: 'x' }],
      }]);
      await store.flushTrigrams();
      await store.close();
      const s = indexStructures(db);
      for (const k of ['keyword index (chunks_fts)', 'chunk rows (chunks)', 'file text (file_text)', 'trigram index (trigram_postings)', 'file records']) expect(s[k]).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
