/**
 * The CLI's persisted vector index: a cache next to the database, rebuilt from the
 * embeddings table whenever its stamp (model key + embedded count + last update) no longer
 * matches the index. The embeddings table is the truth; this file only saves the rebuild.
 */
import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { createVectorIndex, loadVectorIndex } from '../core/vector/create.ts';
import type { VectorIndex } from '../core/vector/types.ts';
import type { IndexPaths } from './context.ts';
import { META, type MetaKey } from '../core/store/meta.ts';

interface VectorStore {
  getMeta(key: MetaKey): Promise<string | null>;
  setMeta(key: MetaKey, value: string): Promise<void>;
  embeddedCount(model: string): Promise<number>;
  loadVectors(model: string): Promise<{ ids: Int32Array; vectors: Float32Array; dim: number }>;
}

async function stampOf(store: VectorStore, key: string): Promise<string> {
  return `${key}|${await store.embeddedCount(key)}|${(await store.getMeta(META.updatedAt)) ?? ''}`;
}

export async function rebuildVectorIndex(store: VectorStore, paths: IndexPaths, key: string): Promise<{ kind: string; count: number; ms: number }> {
  const t0 = performance.now();
  const { ids, vectors, dim } = await store.loadVectors(key);
  // The CLI reloads its index on every run; hnsw rebuilds its graph on load (minutes at 50k),
  // so the CLI always uses the exact scan. The app keeps an hnsw index alive in its worker.
  const index = await createVectorIndex('exact', dim);
  try {
    if (ids.length) await index.add(ids, vectors);
    const bytes = await index.serialize();
    const tmp = `${paths.vectors}.tmp`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, paths.vectors);
    await store.setMeta(META.vectorsStamp, await stampOf(store, key));
    return { kind: index.kind, count: index.size, ms: performance.now() - t0 };
  } finally {
    index.dispose();
  }
}

/** The vector index for searching, or null when the index has no embeddings for `key`. */
export async function openVectorIndex(store: VectorStore, paths: IndexPaths, key: string): Promise<VectorIndex | null> {
  if ((await store.embeddedCount(key)) === 0) return null;
  const stamp = await stampOf(store, key);
  if ((await store.getMeta(META.vectorsStamp)) !== stamp || !existsSync(paths.vectors)) await rebuildVectorIndex(store, paths, key);
  return loadVectorIndex(new Uint8Array(readFileSync(paths.vectors)));
}
