import { describe, it, expect, beforeAll } from 'vitest';
import { indexCodebase, type IndexStore } from './indexer.ts';
import { MemoryFileSource } from '../source/memory-source.ts';
import { openMemoryStore } from '../store/open-node.ts';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import type { Store } from '../store/store.ts';

let chunker: Chunker;
beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
});

function repo(n = 30): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    files[`src/mod${i}.py`] = `def handler_${i}(request):\n    """Handle request number ${i}."""\n    return request.value * ${i}\n\n\nclass Worker${i}:\n    def run(self):\n        return handler_${i}(self)\n`;
  }
  files['README.md'] = '# Demo\n\nSome words about the demo project.\n';
  return files;
}

async function snapshot(store: Store) {
  const files = [...(await store.getFiles()).values()].map((f) => `${f.path}:${f.hash}`).sort();
  const stats = await store.stats();
  return { files, chunks: stats.chunks, integrity: await store.integrityCheck() };
}

describe('indexCodebase', () => {
  it('indexes, then recognises an unchanged folder without reading it', async () => {
    const source = new MemoryFileSource({ ...repo(), 'data/blob.txt': new Uint8Array([0, 1, 2, 0, 9, 0]) });
    const store = await openMemoryStore();
    const first = await indexCodebase({ source, store, chunker });
    expect(first.files.added).toBe(31);
    expect(first.files.skipped).toBe(1); // the binary file
    expect(first.firstSearchableMs).not.toBeNull();
    let reads = 0;
    const counting = { ...source, name: source.name, readDir: source.readDir.bind(source), stat: source.stat.bind(source), readFile: (p: string) => { reads++; return source.readFile(p); } };
    const second = await indexCodebase({ source: counting, store, chunker });
    expect(second.unchanged).toBe(true);
    expect(reads).toBe(0);
    expect(second.status.merkleRoot).toBe(first.status.merkleRoot);
  });

  it('handles edit, add, delete and rename incrementally', async () => {
    const source = new MemoryFileSource(repo(5));
    const store = await openMemoryStore();
    await indexCodebase({ source, store, chunker });
    const before = await store.getFiles();
    source.set('src/mod1.py', 'def edited():\n    return 1\n');
    source.set('src/added.py', 'def added_fn():\n    return 2\n');
    source.delete('README.md');
    source.rename('src/mod2.py', 'lib/mod2_moved.py');
    const res = await indexCodebase({ source, store, chunker });
    expect(res.files).toMatchObject({ added: 1, changed: 1, deleted: 1, renamed: 1 });
    const after = await store.getFiles();
    expect(after.has('README.md')).toBe(false);
    expect(after.get('lib/mod2_moved.py')?.hash).toBe(before.get('src/mod2.py')?.hash);
    // The result equals a fresh index of the same folder.
    const fresh = await openMemoryStore();
    await indexCodebase({ source, store: fresh, chunker });
    expect(await snapshot(store)).toEqual(await snapshot(fresh));
  });

  it('resumes an interrupted run without duplicating rows', async () => {
    const source = new MemoryFileSource(repo(60));
    const store = await openMemoryStore();
    const ac = new AbortController();
    let batches = 0;
    await expect(
      indexCodebase({ source, store, chunker }, { signal: ac.signal, onBatch: () => { if (++batches === 1) ac.abort(); } }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    const partial = (await store.getFiles()).size;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(61);
    const resumed = await indexCodebase({ source, store, chunker });
    expect(resumed.unchanged).toBe(false);
    expect(resumed.files.added).toBe(61 - partial);
    const fresh = await openMemoryStore();
    await indexCodebase({ source, store: fresh, chunker });
    expect(await snapshot(store)).toEqual(await snapshot(fresh));
  });

  it('keeps a file that fails to parse as text and counts it', async () => {
    const source = new MemoryFileSource({ 'bad.rs': 'fn broken( {{{{ struct\n'.repeat(20), 'ok.go': 'package x\n\nfunc Ok() int { return 1 }\n' });
    const store: IndexStore & Store = await openMemoryStore();
    const res = await indexCodebase({ source, store, chunker });
    expect(res.parseFallbacks).toBe(1);
    expect((await store.getFiles()).has('bad.rs')).toBe(true);
  });
});
