import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../src/core/store/open-node.ts';
import { hookMarkdown, indexStructures, runHooks } from './run.ts';


describe('runHooks', () => {
  it('runs every hook, renders its rows, and reports a failing one without stopping', async () => {
    const out = await runHooks(true, [
      { key: 'ok', title: 'ok', run: async (quick) => [{ kind: 'x', quick, ms: 1.234 }] },
      { key: 'bad', title: 'bad', run: async () => { throw new Error('boom'); } },
      { key: 'after', title: 'after', run: async () => ({ markdown: '# m' }) },
    ]);
    expect(out.map((h) => h.status)).toEqual(['ok', 'failed', 'ok']);
    expect(out[0].data).toEqual([{ kind: 'x', quick: true, ms: 1.234 }]);
    expect(out[0].markdown).toBe('| kind | quick | ms |\n|---|---|---|\n| x | true | 1.23 |');
    expect(out[1].detail).toBe('boom');
    expect(out[2].markdown).toBe('# m');
  });
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
