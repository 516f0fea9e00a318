/**
 * FTS5's totals (fts-totals.ts) after deletes: the store's index equals, in rows and tokens per
 * column, the index of the same files written afresh — so bm25() scores the same.
 */
import { afterEach, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Chunk, FileRecord } from '../types.ts';
import { openMemoryStore, openNodeStore } from './open-node.ts';
import { decodeVarints, encodeVarints, ftsRowCount } from './fts-totals.ts';
import type { Store } from './store.ts';

type Item = { file: FileRecord; chunks: Array<Chunk & { contentHash: string }> };

function file(p: string, words: string[], hash = `h-${p}`): Item {
  return {
    file: { path: p, hash, size: 100, mtime: 1, language: 'typescript' },
    chunks: words.map((w, i) => ({
      path: p, startLine: i * 10 + 1, endLine: i * 10 + 9, language: 'typescript', chunkType: 'function' as const,
      symbol: `fn${i}`, parent: null, signature: `function fn${i}()`, doc: null, content: `function fn${i}() { return "${w} ${w} ${p}" }`, contentHash: `${p}#${i}#${w}`,
    })),
  };
}

const totals = async (s: Store) => decodeVarints((await s.db.get<{ b: Uint8Array }>('SELECT block AS b FROM chunks_fts_data WHERE id = 1'))!.b);
const scores = (s: Store) => s.db.all<{ id: number; r: number }>("SELECT rowid AS id, round(bm25(chunks_fts), 9) AS r FROM chunks_fts WHERE chunks_fts MATCH 'alpha OR gamma' ORDER BY r, rowid");

describe('FTS5 totals', () => {
  const open: Store[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  it('varints round-trip, small and large', () => {
    const values = [0, 1, 127, 128, 16_383, 16_384, 6_415, 2_504_805, 2 ** 40 + 7];
    expect(decodeVarints(encodeVarints(values))).toEqual(values);
    expect(encodeVarints([16_897])).toEqual(new Uint8Array([0x81, 0x84, 0x01]));
  });

  it('after changed, deleted and renamed files, equal the totals of the same files written afresh', async () => {
    const s = await openMemoryStore();
    open.push(s);
    await s.writeFiles([file('a.ts', ['alpha', 'beta', 'gamma']), file('b.ts', ['beta', 'delta']), file('c.ts', ['gamma'])]);
    const before = await totals(s);
    await s.writeFiles([file('a.ts', ['alpha'], 'h2')]); // changed: 3 pieces → 1
    await s.deleteFiles(['b.ts']);
    await s.renameFile('c.ts', { path: 'd.ts', hash: 'h-c.ts', size: 100, mtime: 1, language: 'typescript' });
    const fresh = await openMemoryStore();
    open.push(fresh);
    await fresh.writeFiles([file('a.ts', ['alpha'], 'h2')]);
    await fresh.writeFiles([{ ...file('c.ts', ['gamma']), file: { path: 'd.ts', hash: 'h-c.ts', size: 100, mtime: 1, language: 'typescript' }, chunks: file('c.ts', ['gamma']).chunks.map((c) => ({ ...c, path: 'd.ts' })) }]);
    expect(before[0]).toBe(6);
    expect(await totals(s)).toEqual(await totals(fresh));
    expect((await scores(s)).map((r) => r.r)).toEqual((await scores(fresh)).map((r) => r.r));
    // The keyword planner's row count is bm25's, not the largest id (ids are never reused).
    expect(await ftsRowCount(s.db)).toBe(2);
    expect((await s.db.get<{ n: number }>('SELECT max(id) AS n FROM chunks'))!.n).toBeGreaterThan(2);
  });

  it('an index whose totals drifted (schema 17) is recounted when opened', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sift-totals-'));
    try {
      const f = path.join(dir, 'v17.sqlite');
      const s = await openNodeStore(f);
      await s.writeFiles([file('a.ts', ['alpha', 'beta']), file('b.ts', ['gamma'])]);
      const right = await totals(s);
      // What an older Sift left: deletes never lowered the totals.
      await s.db.run('UPDATE chunks_fts_data SET block = ? WHERE id = 1', [encodeVarints(right.map((v) => v * 3))]);
      await s.db.exec('PRAGMA user_version = 17');
      await s.close();
      const again = await openNodeStore(f);
      expect(await totals(again)).toEqual(right);
      await again.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
