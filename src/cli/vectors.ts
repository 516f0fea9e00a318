/**
 * The CLI's persisted vector index: a cache next to the database, rebuilt from the
 * embeddings table whenever its stamp (model key + embedded count + last update) no longer
 * matches the index. The embeddings table is the truth; this file only saves the rebuild.
 *
 * Invariants:
 * - The stamp is written INSIDE the file (a header line), so a file always describes its own
 *   content: two processes (an indexer and a searcher) can never pair one's stamp with the
 *   other's vectors, and searching never writes to the database.
 * - Written to a per-process temp file and renamed into place; the temp file is removed when
 *   the write fails (e.g. a full disk). A failed save still returns the in-memory index.
 * - A stamp is kept only when the index did not change while the vectors were read.
 */
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createVectorIndex, loadVectorIndex } from '../core/vector/create.ts';
import { exactIndexParts } from '../core/vector/exact.ts';
import type { VectorIndex } from '../core/vector/types.ts';
import type { IndexPaths } from './context.ts';
import { META, type MetaKey } from '../core/store/meta.ts';

/** First bytes of a stamped vector file: magic, then the stamp, each ending in '\n'. */
const MAGIC = 'SIFTVEC2\n';

interface VectorStore {
  getMeta(key: MetaKey): Promise<string | null>;
  embeddedCount(model: string): Promise<number>;
  loadVectors(model: string): Promise<{ ids: Int32Array; vectors: Float32Array; dim: number }>;
}

/** The cache's stamp for the index as it is now (rebuildVectorIndex makes the same string from what it read). */
async function stampOf(store: VectorStore, key: string): Promise<string> {
  return `${key}|${await store.embeddedCount(key)}|${(await store.getMeta(META.updatedAt)) ?? ''}`;
}

/** The stored vectors of `key` (a consistent snapshot, with its stamp, or null when the index changed while they were read). */
async function snapshot(store: VectorStore, key: string): Promise<{ ids: Int32Array; vectors: Float32Array; dim: number; stamp: string | null }> {
  const before = await stampOf(store, key);
  const { ids, vectors, dim } = await store.loadVectors(key);
  const after = await stampOf(store, key);
  return { ids, vectors, dim, stamp: before === after ? after : null };
}

/**
 * Write the cache file: the stamp line, then the exact index of the snapshot's vectors as
 * `serialize()` lays it out (exactIndexParts), part by part with no copy. Throws (after
 * removing its temp file) when the write fails.
 */
function save(snap: { ids: Int32Array; vectors: Float32Array; dim: number }, stamp: string, file: string): void {
  const parts = [new TextEncoder().encode(`${MAGIC}${stamp}\n`), ...exactIndexParts(snap.dim, snap.ids, snap.vectors)];
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      for (const part of parts) for (let at = 0; at < part.length; ) at += writeSync(fd, part, at, part.length - at);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw Object.assign(e as Error, { neededBytes: parts.reduce((n, p) => n + p.length, 0) });
  }
}

/**
 * The exact index over a snapshot. The CLI reloads its index on every run; hnsw rebuilds its
 * graph on load (minutes at 50k), so the CLI always uses the exact scan. The app keeps an hnsw
 * index alive in its worker.
 */
async function indexOf(snap: { ids: Int32Array; vectors: Float32Array; dim: number }): Promise<VectorIndex> {
  const index = await createVectorIndex('exact', snap.dim);
  if (snap.ids.length) await index.add(snap.ids, snap.vectors);
  return index;
}

function readStamped(file: string): { stamp: string; body: Uint8Array } | null {
  if (!existsSync(file)) return null;
  const bytes = new Uint8Array(readFileSync(file));
  const magic = new TextEncoder().encode(MAGIC);
  if (bytes.length < magic.length || magic.some((b, i) => bytes[i] !== b)) return null;
  const nl = bytes.indexOf(10, magic.length);
  if (nl < 0) return null;
  return { stamp: new TextDecoder().decode(bytes.subarray(magic.length, nl)), body: bytes.subarray(nl + 1) };
}

/**
 * Rewrite the cache file from the embeddings table (after an embedding pass). The caller holds
 * the index's writer lock, so nothing changes the embeddings while they are read: the stamp
 * is made from the vectors read (their count is embeddedCount's: the same join) and the
 * index's last update, without the snapshot's two counting joins before and after — each a
 * lookup per chunk, 267k on the kernel subset.
 */
export async function rebuildVectorIndex(store: VectorStore, paths: IndexPaths, key: string): Promise<{ kind: string; count: number; ms: number }> {
  const t0 = performance.now();
  const updated = (await store.getMeta(META.updatedAt)) ?? '';
  const snap = await store.loadVectors(key);
  save(snap, `${key}|${snap.ids.length}|${updated}`, paths.vectors);
  return { kind: 'exact', count: snap.ids.length, ms: performance.now() - t0 };
}

export interface OpenedVectors {
  index: VectorIndex;
  /** Why the cache file could not be used or saved (the index still answers), else null. */
  note: string | null;
}

/**
 * The vector index for searching, or null when the index has no embeddings for `key`. An
 * unreadable or stale cache file is rebuilt from the database; when it cannot be saved (full
 * disk, read-only folder) the in-memory index is used and `note` says why.
 */
export async function openVectorIndex(store: VectorStore, paths: IndexPaths, key: string): Promise<OpenedVectors | null> {
  if ((await store.embeddedCount(key)) === 0) return null;
  const current = await stampOf(store, key);
  let note: string | null = null;
  try {
    const cached = readStamped(paths.vectors);
    if (cached && cached.stamp === current) return { index: await loadVectorIndex(cached.body), note: null };
  } catch (e) {
    note = `vector cache unreadable (${e instanceof Error ? e.message : String(e)}); rebuilt in memory`;
  }
  const snap = await snapshot(store, key);
  const index = await indexOf(snap);
  if (snap.stamp) {
    try {
      save(snap, snap.stamp, paths.vectors);
    } catch (e) {
      note = `could not save the vector cache (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); using it from memory`;
    }
  }
  return { index, note };
}
