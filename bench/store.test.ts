import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import { MemoryFileSource } from '../src/core/source/memory-source.ts';
import { openMemoryStore } from '../src/core/store/open-node.ts';
import { benchBm25Queries, benchIndexStages } from './store.ts';
import type { Store } from '../src/core/store/store.ts';

let chunker: Chunker;
let store: Store;
beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  store = await openMemoryStore();
});
afterAll(async () => {
  chunker.dispose();
  await store.close();
});

describe('bench-store', () => {
  it('measures every stage over a folder and leaves a searchable index', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`src/m${i}.c`] = `/* alloc ${i} */\nstatic int kmalloc_${i}(int n) {\n  return n * ${i};\n}\n`;
    const r = await benchIndexStages({ source: new MemoryFileSource(files), chunker, store, clock: () => performance.now() });
    expect(r.files).toBe(12);
    expect(r.chunks).toBe(await store.chunkCount());
    expect(r.bytes).toBe(Object.values(files).reduce((n, t) => n + t.length, 0));
    expect(Object.keys(r.stages)).toEqual(['walk', 'read', 'hash', 'chunk', 'prepare', 'store']);
    expect(r.dbBytes).toBeGreaterThan(0);
    const q = await benchBm25Queries(store, ['kmalloc_3', 'alloc', '  '], { runs: 2, clock: () => performance.now() });
    expect(q.queries).toBe(2);
    expect(q.perQuery.map((p) => p.hits)).toEqual([12, 12]);
    expect(q.p95).toBeGreaterThanOrEqual(q.p50);
  });
});
