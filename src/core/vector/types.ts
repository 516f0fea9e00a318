/**
 * The vector index contract (types only; the factory is create.ts). Every implementation (exact f32 scan, int8
 * scan, hnswlib-wasm graph, voy k-d tree) passes the same contract suite
 * (contract.test.ts): re-adding an id replaces it, removed ids never come back from
 * search, `filter` is always honoured, hits are best first with ties by smaller id, and
 * `serialize()` → `loadVectorIndex()` gives an index that answers the same queries.
 *
 * Vectors are L2-normalised by the embedder; a hit's score is the cosine similarity.
 */


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

/** 'ivf' is the read-only partitioned index of a published pack (partitioned.ts): not created or loaded here. */
export type VectorIndexKind = 'exact' | 'int8' | 'hnsw' | 'voy' | 'ivf';

export interface VectorIndexOptions {
  /** Initial capacity in vectors (grows geometrically). */
  capacity?: number;
  /** hnsw only. */
  m?: number;
  efConstruction?: number;
  efSearch?: number;
}
