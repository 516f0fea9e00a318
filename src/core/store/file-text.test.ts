// issue 11: each indexed file's text is stored once (file_text) with a trigram index, and
// follows the file through edits, renames and deletes made by the real indexer.
import { beforeAll, describe, expect, it } from 'vitest';
import { indexCodebase } from '../index/indexer.ts';
import { MemoryFileSource } from '../source/memory-source.ts';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import { openMemoryStore } from './open-node.ts';
import type { Store } from './store.ts';
import { literalTrigrams } from '../search/trigram.ts';

let chunker: Chunker;
beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
});

/** Candidate files of a literal's trigrams, after indexing every pending file's trigrams. */
async function pathsMatching(store: Store, literal: string): Promise<string[]> {
  await store.flushTrigrams();
  return (await store.grepFiles(literalTrigrams(literal, false))).map((f) => f.path);
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
    // b.py's old keys may stay in an older segment (a false candidate) until segments merge.
    expect(await pathsMatching(store, 'KeyError')).toEqual(['src/b.py']);
    expect(await store.getFileText('src/a.py')).toBeNull();
    expect(await store.getFileText('lib/a_moved.py')).toBe(crlf);
    expect(await store.getFileText('notes.md')).toBeNull();
    expect(await store.filesWithoutText()).toBe(0);
    expect(await store.db.get('SELECT count(*) AS n FROM trigram_pending')).toEqual({ n: 0 });
    await store.optimizeTrigrams();
    expect(await store.integrityCheck()).toBe('ok');
    expect(await pathsMatching(store, 'KeyError')).toEqual(['src/b.py']);
    expect(await pathsMatching(store, 'ValueError')).toEqual([]);
    await store.close();
  });

  it('a text written unpacked with its keys left for later is read back, grepped while pending and indexed by the next segment', async () => {
    const store = await openMemoryStore();
    const text = `${'// filler line\n'.repeat(40)}export function storedAhead() { return "needle_xyz"; }\n`;
    const { packUtf8 } = await import('./text-codec.ts');
    const { prepareChunks } = await import('../index/indexer.ts');
    const { chunkText } = await import('../chunk/text.ts');
    const chunks = prepareChunks(chunkText('src/ahead.ts', text, 'typescript', { maxChunkChars: 1500, minChunkChars: 200, overlapChars: 100 }));
    await store.writeFiles([{ file: { path: 'src/ahead.ts', hash: '', size: text.length, mtime: -1, language: 'typescript' }, chunks, text, packed: packUtf8(text), grams: null }]);
    expect(await store.getFileText('src/ahead.ts')).toBe(text);
    // Pending (no keys yet): every trigram query lists it, so grep reads it whole.
    expect((await store.grepFiles(literalTrigrams('needle_xyz', false))).map((f) => f.path)).toEqual(['src/ahead.ts']);
    // The segment reads the keys back from the stored text: a literal it holds finds it, one it lacks does not.
    expect(await pathsMatching(store, 'needle_xyz')).toEqual(['src/ahead.ts']);
    expect(await pathsMatching(store, 'haystack_q')).toEqual([]);
    expect(await store.db.get('SELECT count(*) AS n FROM trigram_pending')).toEqual({ n: 0 });
    await store.close();
  });

  it('lists grep files in path order with their language, and reads texts by id', async () => {
    const files: Record<string, string> = {};
    for (const name of ['b.py', 'a.txt', 'c/d.go', 'B.md']) files[name] = `text of ${name}\n`;
    const store = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(files), store, chunker });
    const all = await store.grepFiles(null);
    expect(all.map((f) => f.path)).toEqual(['B.md', 'a.txt', 'b.py', 'c/d.go']);
    expect(all.find((f) => f.path === 'b.py')?.language).toBe('python');
    const texts = await store.fileTextsById([all[3]!.id, all[0]!.id, 99999]);
    expect([...texts.values()].sort()).toEqual(['text of B.md\n', 'text of c/d.go\n']);
    // Short texts are stored as tagged UTF-8 (text-codec.ts): one tag byte each.
    expect(await store.fileTextSize()).toEqual({ files: 4, packedBytes: Object.values(files).join('').length + 4 });
    await store.close();
  });
});
