/**
 * Approximate index: an HNSW graph from hnswlib-wasm (inner-product space, which is
 * cosine for L2-normalised vectors), plus an ExactIndex holding the same floats.
 *
 * The float copy doubles the float memory but buys three things hnswlib-wasm cannot
 * give cheaply: persistence (its writeIndex only reaches the Emscripten FS, which the
 * build does not export; getPoint costs ~80 µs a call), an exact scan when a filter
 * leaves few ids, and scores identical to the exact index's.
 *
 * Invariants: the graph's live labels equal the store's ids; a removed id is
 * markDeleted (a tombstone: it keeps its node and capacity until the next load, which
 * rebuilds the graph from the stored vectors); re-adding a removed id unmarks and
 * updates that node. Capacity grows by GROWTH via resizeIndex.
 *
 * Serialized payload = the ExactIndex payload (ids + f32 vectors); load rebuilds the
 * graph, costing as much as the original build (see the vector report).
 */

import type { HierarchicalNSW, HnswlibModule } from 'hnswlib-wasm/dist/hnswlib-317962d7.js';
import type { VectorHit, VectorIndex } from './types.ts';
import { ExactIndex } from './exact.ts';
import {
  VectorIndexError, checkBatch, checkDim, checkQuery, clampK, compareHits, retag,
} from './common.ts';

const INITIAL_CAPACITY = 1024;
const GROWTH = 1.5;
const RANDOM_SEED = 100;
/** A filter keeping at most this share of ids (or under EXACT_FALLBACK_MIN ids) is served by an exact scan. */
const EXACT_FALLBACK_FRACTION = 0.05;
const EXACT_FALLBACK_MIN = 2000;
/** ef never goes above this when a filter forces over-fetching. */
const EF_MAX = 800;

export interface HnswParams {
  m: number;
  efConstruction: number;
  efSearch: number;
  capacity?: number;
}

let libraryPromise: Promise<HnswlibModule> | null = null;

/**
 * Loads hnswlib-wasm once. Its Emscripten build is web-only (it throws unless `window`
 * or `importScripts` exists) but needs neither: the WASM is inlined as a data URI. In
 * Node we define `importScripts` only while the factory runs, then remove it.
 */
export function loadHnswlib(): Promise<HnswlibModule> {
  libraryPromise ??= (async () => {
    const g = globalThis as { window?: unknown; importScripts?: unknown };
    const shim = typeof g.window === 'undefined' && typeof g.importScripts === 'undefined';
    if (shim) g.importScripts = () => { throw new Error('importScripts is not available'); };
    try {
      const { default: factory } = await import('hnswlib-wasm/dist/hnswlib-317962d7.js');
      return await factory();
    } finally {
      if (shim) delete g.importScripts;
    }
  })();
  libraryPromise.catch(() => { libraryPromise = null; });
  return libraryPromise;
}

export class HnswIndex implements VectorIndex {
  readonly kind = 'hnsw' as const;
  private readonly store: ExactIndex;
  private readonly tombstones = new Set<number>();
  private graph: HierarchicalNSW | null;

  private constructor(
    private readonly lib: HnswlibModule,
    readonly dim: number,
    private readonly params: HnswParams,
    capacity: number,
  ) {
    this.store = new ExactIndex(dim, capacity);
    this.graph = new lib.HierarchicalNSW('ip', dim, '');
    this.graph.initIndex(capacity, params.m, params.efConstruction, RANDOM_SEED);
    this.graph.setEfSearch(params.efSearch);
  }

  static async create(dim: number, params: HnswParams): Promise<HnswIndex> {
    checkDim(dim);
    const lib = await loadHnswlib();
    return new HnswIndex(lib, dim, params, Math.max(1, params.capacity ?? INITIAL_CAPACITY));
  }

  static async fromBytes(bytes: Uint8Array, params: HnswParams): Promise<HnswIndex> {
    const stored = ExactIndex.fromTagged(bytes, 'hnsw');
    const index = await HnswIndex.create(stored.dim, { ...params, capacity: Math.max(stored.size, 1) });
    await index.add(stored.liveIds(), stored.liveVectors());
    return index;
  }

  get size(): number {
    return this.store.size;
  }

  async add(ids: ArrayLike<number>, vectors: Float32Array): Promise<void> {
    checkBatch(ids, vectors, this.dim);
    const graph = this.live();
    const dim = this.dim;
    // The last row wins when a batch repeats an id, as in the store.
    const lastRow = new Map<number, number>();
    for (let i = 0; i < ids.length; i++) lastRow.set(ids[i], i);
    const freshIds: number[] = [];
    const freshRows: Float32Array[] = [];
    const updates: number[] = [];
    for (const [id, i] of lastRow) {
      if (this.store.has(id) || this.tombstones.has(id)) updates.push(id);
      else { freshIds.push(id); freshRows.push(vectors.subarray(i * dim, (i + 1) * dim)); }
    }
    // This build checks capacity before it looks a label up, so updates need a free slot too.
    const needed = graph.getCurrentCount() + freshIds.length + (updates.length ? 1 : 0);
    if (needed > graph.getMaxElements()) {
      this.call(() => graph.resizeIndex(Math.max(needed, Math.ceil(graph.getMaxElements() * GROWTH))));
    }
    for (const id of updates) {
      const i = lastRow.get(id)!;
      if (this.tombstones.delete(id)) this.call(() => graph.unmarkDelete(id));
      this.call(() => graph.addPoint(vectors.subarray(i * dim, (i + 1) * dim), id, false));
    }
    // One addPoints call for new ids: ~20% faster than one addPoint each.
    if (freshIds.length) this.call(() => graph.addPoints(freshRows, freshIds, false));
    this.store.addSync(ids, vectors);
  }

  async remove(ids: ArrayLike<number>): Promise<void> {
    const graph = this.live();
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (!this.store.has(id)) continue;
      this.call(() => graph.markDelete(id));
      this.tombstones.add(id);
    }
    this.store.removeSync(ids);
  }

  async search(query: Float32Array, k: number, filter?: (id: number) => boolean): Promise<VectorHit[]> {
    checkQuery(query, this.dim);
    const graph = this.live();
    const want = clampK(k, this.size);
    if (want === 0) return [];
    let ef = Math.max(this.params.efSearch, want);
    if (filter) {
      let allowed = 0;
      for (const id of this.store.liveIds()) if (filter(id)) allowed++;
      if (allowed === 0) return [];
      if (allowed <= Math.max(EXACT_FALLBACK_MIN, this.size * EXACT_FALLBACK_FRACTION)) {
        return this.store.searchSync(query, want, filter);
      }
      // Fewer allowed nodes on the beam means fewer results per expansion: widen ef.
      ef = Math.min(EF_MAX, Math.max(ef, Math.ceil((ef * this.size) / allowed)));
    }
    graph.setEfSearch(ef);
    const found = this.call(() => graph.searchKnn(query, want, filter));
    const hits = found.neighbors.map((id) => ({ id, score: this.store.scoreOf(query, id) }));
    return hits.sort(compareHits);
  }

  async serialize(): Promise<Uint8Array> {
    return retag(await this.store.serialize(), 'hnsw');
  }

  memoryBytes(): number {
    // hnswlib level 0 per node: the vector, 2·M links + count, label; upper levels ≈ 1/M of that.
    const graph = this.graph;
    const perNode = this.dim * 4 + (2 * this.params.m + 1) * 4 + 8;
    return this.store.memoryBytes() + (graph ? Math.ceil(graph.getMaxElements() * perNode * (1 + 1 / this.params.m)) : 0);
  }

  dispose(): void {
    this.graph?.delete();
    this.graph = null;
    this.store.dispose();
    this.tombstones.clear();
  }

  private live(): HierarchicalNSW {
    if (!this.graph) throw new VectorIndexError('hnsw index was disposed', 'DISPOSED');
    return this.graph;
  }

  /** Runs a WASM call, turning C++ exceptions into VectorIndexError with the library's message. */
  private call<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof Error) throw err;
      let message = String(err);
      try {
        message = this.lib.getExceptionMessage(err).join(': ');
      } catch {
        // not a C++ exception; keep String(err)
      }
      throw new VectorIndexError(`hnswlib: ${message}`, 'BACKEND');
    }
  }
}
