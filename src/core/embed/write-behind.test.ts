import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fileOfFunctions as item } from './test-fixtures.ts';
import { openMemoryStore } from '../store/open-node.ts';
import { ensureGeneratedModel } from '../../../scripts/gen-models.ts';
import { loadEmbedder } from './load-embedder.ts';
import { folderModelFiles } from './model-files-node.ts';
import type { SiftEmbedder } from './embedder.ts';
import { embedPending, type EmbedStore } from './embed-pass.ts';
import { WriteBehindStore } from './write-behind.ts';

const MODELS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../models/generated');

describe('WriteBehindStore (real store, the static tiny model, the real pass)', () => {
  let embedder: SiftEmbedder;
  beforeAll(async () => {
    await ensureGeneratedModel('static-tiny', MODELS);
    embedder = await loadEmbedder({ files: folderModelFiles(`${MODELS}/static-tiny`), modelId: 'static-tiny', transformer: {} });
  });

  it('writes every vector, in groups, and the pass counts them all', async () => {
    const store = await openMemoryStore();
    await store.writeFiles([item('vendor/lib/a.ts', 3), item('src/a.ts', 150), item('src/b.ts', 300)]);
    const commits: number[] = [];
    const counting: EmbedStore = Object.assign(Object.create(store) as EmbedStore, {
      putEmbeddings: (m: string, items: Array<{ hash: string; vector: Float32Array }>) => {
        commits.push(items.length);
        return store.putEmbeddings(m, items);
      },
    });
    const wb = new WriteBehindStore(counting, 200);
    const summary = await embedPending({ store: wb, embedder });
    await wb.flush();
    expect(summary.newlyEmbedded).toBe(453);
    expect(summary.embedded).toBe(453);
    expect(await store.embeddedCount(embedder.info.key)).toBe(453);
    // Pages of 64 grouped into transactions of ≥ 200 (the last one holds the rest).
    expect(commits.slice(0, -1).every((n) => n >= 200)).toBe(true);
    expect(commits.reduce((a, b) => a + b, 0)).toBe(453);
    expect(commits.length).toBeLessThan(Math.ceil(453 / 64));
    expect((await embedPending({ store: new WriteBehindStore(store), embedder })).newlyEmbedded).toBe(0);
  });

  it('groups grow to their maximum when asked', async () => {
    const store = await openMemoryStore();
    await store.writeFiles([item('src/a.ts', 1000)]);
    const commits: number[] = [];
    const counting: EmbedStore = Object.assign(Object.create(store) as EmbedStore, {
      putEmbeddings: (m: string, items: Array<{ hash: string; vector: Float32Array }>) => {
        commits.push(items.length);
        return store.putEmbeddings(m, items);
      },
    });
    const wb = new WriteBehindStore(counting, 100, 400);
    for (let i = 0; i < 1000; i += 50) {
      await wb.putEmbeddings(embedder.info.key, Array.from({ length: 50 }, (_, k) => ({ hash: `src/a.ts#${i + k}`, vector: new Float32Array(embedder.info.dim).fill(1) })));
    }
    await wb.flush();
    expect(commits).toEqual([100, 200, 400, 300]);
    expect(await store.embeddedCount(embedder.info.key)).toBe(1000);
  });

  it('a cancelled pass keeps what was embedded once flushed', async () => {
    const store = await openMemoryStore();
    await store.writeFiles([item('src/c.ts', 300)]);
    const wb = new WriteBehindStore(store, 1024);
    const ctl = new AbortController();
    let pages = 0;
    let reported = 0;
    // (Page sizes are the pass's to choose: it grows them for a fast model.)
    await expect(embedPending({ store: wb, embedder }, { signal: ctl.signal, onProgress: (p) => { reported = p.embedded; if (++pages === 3) ctl.abort(); } })).rejects.toThrow(/cancelled|abort/i);
    expect(await store.embeddedCount(embedder.info.key)).toBe(0);
    await wb.flush();
    const kept = await store.embeddedCount(embedder.info.key);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(300);
    expect(kept).toBe(reported);
  });
});
