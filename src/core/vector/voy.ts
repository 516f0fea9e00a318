/**
 * voy-search 0.6.3 (a k-d tree in WASM) behind the VectorIndex contract, kept so the
 * benchmark can compare it; never chosen by chooseIndexKind.
 *
 * voy returns ids without scores and has no filter, so this keeps the floats in an
 * ExactIndex: scores are recomputed from it, and a filtered search is an exact scan of
 * it. Memory: voy copies every vector as a JS number[] through serde and pads to its
 * own layout (measured 1.26 GB of heap at 50k × 384 in Chromium), and its own
 * serialize() is JSON (399 MB at 50k), so persistence uses the exact payload and load
 * rebuilds the tree.
 *
 * Invariant: voy's ids (decimal strings) equal the store's ids.
 */

import type { VectorHit, VectorIndex } from './types.ts';
import type { Voy } from 'voy-search';
import { ExactIndex } from './exact.ts';
import {
  VectorIndexError, checkBatch, checkDim, checkQuery, clampK, compareHits, isNode, retag,
} from './common.ts';

type VoyModule = typeof import('voy-search');

let modulePromise: Promise<VoyModule> | null = null;

export function loadVoy(): Promise<VoyModule> {
  // A variable specifier keeps bundlers from pulling the node:* loader into browser builds.
  const nodeLoader = './voy-loader-node.ts';
  modulePromise ??= isNode()
    ? import(/* @vite-ignore */ nodeLoader).then((m: { loadVoyNode(): Promise<VoyModule> }) => m.loadVoyNode())
    : import('voy-search');
  modulePromise.catch(() => { modulePromise = null; });
  return modulePromise;
}

export class VoyIndex implements VectorIndex {
  readonly kind = 'voy' as const;
  private readonly store: ExactIndex;
  private voy: Voy | null;

  private constructor(lib: VoyModule, readonly dim: number) {
    this.store = new ExactIndex(dim);
    this.voy = new lib.Voy();
  }

  static async create(dim: number): Promise<VoyIndex> {
    checkDim(dim);
    return new VoyIndex(await loadVoy(), dim);
  }

  static async fromBytes(bytes: Uint8Array): Promise<VoyIndex> {
    const stored = ExactIndex.fromTagged(bytes, 'voy');
    const index = await VoyIndex.create(stored.dim);
    await index.add(stored.liveIds(), stored.liveVectors());
    return index;
  }

  get size(): number {
    return this.store.size;
  }

  async add(ids: ArrayLike<number>, vectors: Float32Array): Promise<void> {
    checkBatch(ids, vectors, this.dim);
    const voy = this.live();
    const replaced = Array.from(ids).filter((id) => this.store.has(id));
    if (replaced.length) voy.remove(this.resource(replaced));
    const dim = this.dim;
    const embeddings = Array.from(ids, (id, i) => ({
      id: String(id), title: '', url: '', embeddings: Array.from(vectors.subarray(i * dim, (i + 1) * dim)),
    }));
    if (embeddings.length) voy.add({ embeddings });
    this.store.addSync(ids, vectors);
  }

  async remove(ids: ArrayLike<number>): Promise<void> {
    const voy = this.live();
    const present = Array.from(ids).filter((id) => this.store.has(id));
    if (present.length) voy.remove(this.resource(present));
    this.store.removeSync(present);
  }

  async search(query: Float32Array, k: number, filter?: (id: number) => boolean): Promise<VectorHit[]> {
    checkQuery(query, this.dim);
    const voy = this.live();
    const want = clampK(k, this.size);
    if (want === 0) return [];
    if (filter) return this.store.searchSync(query, want, filter);
    const { neighbors } = voy.search(query, want);
    return neighbors
      .map((n) => { const id = Number(n.id); return { id, score: this.store.scoreOf(query, id) }; })
      .sort(compareHits);
  }

  async serialize(): Promise<Uint8Array> {
    return retag(await this.store.serialize(), 'voy');
  }

  /** The store only: voy's WASM and serde heap is not observable from here (see module note). */
  memoryBytes(): number {
    return this.store.memoryBytes();
  }

  dispose(): void {
    this.voy?.free();
    this.voy = null;
    this.store.dispose();
  }

  /** voy's remove matches on the stored embedding as well as the id: pass the real vector. */
  private resource(ids: number[]) {
    return {
      embeddings: ids.map((id) => ({
        id: String(id), title: '', url: '', embeddings: Array.from(this.store.vectorOf(id) ?? []),
      })),
    };
  }

  private live(): Voy {
    if (!this.voy) throw new VectorIndexError('voy index was disposed', 'DISPOSED');
    return this.voy;
  }
}
