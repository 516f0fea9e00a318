// issue 11: each indexed file's text is stored once (file_text) with a trigram index, and
// follows the file through edits, renames and deletes made by the real indexer.
import { beforeAll, describe, expect, it } from 'vitest';
import { indexCodebase } from '../index/indexer.ts';
import { MemoryFileSource } from '../source/memory-source.ts';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import { openMemoryStore } from './open-node.ts';
import type { Store } from './store.ts';

let chunker: Chunker;
beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
});

/** FTS5 query: every trigram of `s` (detail=none allows no phrases). */
const all3 = (s: string) => Array.from({ length: s.length - 2 }, (_, i) => `"${s.slice(i, i + 3)}"`).join(' AND ');

async function pathsMatching(store: Store, literal: string): Promise<string[]> {
  const match = all3(literal);
  const ids = new Set(await store.trigramCandidates(match));
  return (await store.fileTextPaths()).filter((r) => ids.has(r.id)).map((r) => r.path).sort();
}

describe('file_text', () => {
  it('stores each file text exactly as decoded, and keeps it through edit, rename and delete', async () => {
    const crlf = 'def a():\r\n    return "é ü 😀"\r\n';
    const source = new MemoryFileSource({
      'src/a.py': crlf,
      'src/b.py': 'def b():\n    raise ValueError("bad")\n',
      'notes.md': '# Notes\n\nnothing here\n',
      'bin.dat': new Uint8Array([0, 1, 2, 0, 3]),
    });
    const store = await openMemoryStore();
    await indexCodebase({ source, store, chunker });
    expect(await store.getFileText('src/a.py')).toBe(crlf);
    expect(await store.getFileText('bin.dat')).toBeNull();
    expect([...(await store.getFileTexts(['src/a.py', 'src/b.py', 'nope'])).keys()].sort()).toEqual(['src/a.py', 'src/b.py']);
    expect(await pathsMatching(store, 'ValueError')).toEqual(['src/b.py']);
    // The index is case-folded: a case-insensitive superset.
    expect(await pathsMatching(store, 'valueerror')).toEqual(['src/b.py']);

    source.set('src/b.py', 'def b():\n    raise KeyError("bad")\n');
    source.rename('src/a.py', 'lib/a_moved.py');
    source.delete('notes.md');
    await indexCodebase({ source, store, chunker });
    expect(await store.getFileText('src/b.py')).toContain('KeyError');
    expect(await pathsMatching(store, 'ValueError')).toEqual([]);
    expect(await pathsMatching(store, 'KeyError')).toEqual(['src/b.py']);
    expect(await store.getFileText('src/a.py')).toBeNull();
    expect(await store.getFileText('lib/a_moved.py')).toBe(crlf);
    expect(await store.getFileText('notes.md')).toBeNull();
    expect(await store.filesWithoutText()).toBe(0);
    expect(await store.db.get('SELECT count(*) AS n FROM file_trigrams')).toEqual({ n: 2 });
    await store.db.run(`INSERT INTO file_trigrams(file_trigrams) VALUES ('integrity-check')`);
    await store.close();
  });

  it('pages through stored texts by id, optionally only given ids', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 7; i++) files[`f${i}.txt`] = `line ${i}\n`;
    const store = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(files), store, chunker });
    const all = await store.fileTextPaths();
    expect(all).toHaveLength(7);
    const seen: string[] = [];
    let after = 0;
    for (;;) {
      const page = await store.fileTextPage(after, 3);
      if (!page.length) break;
      seen.push(...page.map((r) => r.path));
      after = page[page.length - 1]!.id;
    }
    expect(seen.sort()).toEqual(Object.keys(files).sort());
    const some = [all[5]!.id, all[1]!.id];
    expect((await store.fileTextPage(0, 10, some)).map((r) => r.id)).toEqual([all[1]!.id, all[5]!.id]);
    await store.close();
  });
});
