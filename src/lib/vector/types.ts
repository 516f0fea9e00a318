/**
 * The vector index contract and its factory. Every implementation (exact f32 scan, int8
 * scan, hnswlib-wasm graph, voy k-d tree) passes the same contract suite
 * (contract.test.ts): re-adding an id replaces it, removed ids never come back from
 * search, `filter` is always honoured, hits are best first with ties by smaller id, and
 * `serialize()` → `loadVectorIndex()` gives an index that answers the same queries.
 *
 * Vectors are L2-normalised by the embedder; a hit's score is the cosine similarity.
 * Implementations are loaded lazily so the WASM backends cost nothing until chosen.
 */

import { readHeader, checkDim } from './common.ts';
import { HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH, HNSW_M } from '../config.ts';

export interface VectorHit {
  id: number;
  /** Cosine similarity (vectors are L2-normalised); higher is better. */
  score: number;
}

export interface VectorIndex {
  readonly kind: VectorIndexKind;
  readonly dim: number;
  readonly size: number;
  /** Row-major `ids.length × dim` floats; re-adding an id replaces its vector. */
  add(ids: ArrayLike<number>, vectors: Float32Array): Promise<void>;
  /** Unknown ids are ignored. */
  remove(ids: ArrayLike<number>): Promise<void>;
  /** Top `k` by cosine, best first; ids for which `filter` returns false never appear. */
  search(query: Float32Array, k: number, filter?: (id: number) => boolean): Promise<VectorHit[]>;
  /** Persisted binary: 16-byte versioned header, then the kind's payload. */
  serialize(): Promise<Uint8Array>;
  /** Bytes held (JS typed arrays plus, for WASM backends, an estimate of their heap use). */
  memoryBytes(): number;
  /** Frees WASM memory; the index is unusable afterwards. */
  dispose(): void;
}

export type VectorIndexKind = 'exact' | 'int8' | 'hnsw' | 'voy';

export interface VectorIndexOptions {
  /** Initial capacity in vectors (grows geometrically). */
  capacity?: number;
  /** hnsw only. */
  m?: number;
  efConstruction?: number;
  efSearch?: number;
}

/**
 * Above this many vectors the hnsw graph replaces the exact scan. Why 50k: the exact f32
 * scan is 7–10 ms p50 at 10k and 33–38 ms at 50k in a Chromium worker (STACK-FACTS),
 * exact, and loads in well under a second; hnsw answers in ~1 ms but its graph costs
 * 2–10 ms per vector to build (efConstruction 200; 107 s for 10k on this loaded 2-core
 * box) and, because hnswlib-wasm cannot hand us its bytes, is rebuilt on every load.
 * Below ~50k the scan stays within an interactive budget, so the graph only pays above.
 */
export const HNSW_THRESHOLD = 50_000;

export function chooseIndexKind(count: number): VectorIndexKind {
  return count > HNSW_THRESHOLD ? 'hnsw' : 'exact';
}

export const HNSW_DEFAULTS = { m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, efSearch: HNSW_EF_SEARCH };

export async function createVectorIndex(
  kind: VectorIndexKind,
  dim: number,
  opts: VectorIndexOptions = {},
): Promise<VectorIndex> {
  checkDim(dim);
  switch (kind) {
    case 'exact': {
      const { ExactIndex } = await import('./exact.ts');
      return new ExactIndex(dim, opts.capacity);
    }
    case 'int8': {
      const { Int8Index } = await import('./int8.ts');
      return new Int8Index(dim, opts.capacity);
    }
    case 'hnsw': {
      const { HnswIndex } = await import('./hnsw.ts');
      return HnswIndex.create(dim, { ...HNSW_DEFAULTS, ...opts });
    }
    case 'voy': {
      const { VoyIndex } = await import('./voy.ts');
      return VoyIndex.create(dim);
    }
    default:
      throw new Error(`unknown vector index kind ${String(kind)}`);
  }
}

export async function loadVectorIndex(bytes: Uint8Array, opts: VectorIndexOptions = {}): Promise<VectorIndex> {
  const header = readHeader(bytes);
  switch (header.kind) {
    case 'exact': {
      const { ExactIndex } = await import('./exact.ts');
      return ExactIndex.fromBytes(bytes);
    }
    case 'int8': {
      const { Int8Index } = await import('./int8.ts');
      return Int8Index.fromBytes(bytes);
    }
    case 'hnsw': {
      const { HnswIndex } = await import('./hnsw.ts');
      return HnswIndex.fromBytes(bytes, { ...HNSW_DEFAULTS, ...opts });
    }
    case 'voy': {
      const { VoyIndex } = await import('./voy.ts');
      return VoyIndex.fromBytes(bytes);
    }
  }
}
