/**
 * An index that is searchable at once and gets fast later: it answers from an exact scan
 * while an hnsw graph is built in the background in small slices (yielding between them so
 * searches and writes keep flowing in the worker), then switches to the graph and frees
 * the scan. hnswlib-wasm cannot persist its graph, and building 100k vectors takes
 * minutes, so a big codebase must never wait for the graph to open.
 *
 * Invariants:
 * - Every add/remove is applied to the index that answers searches right away; while the
 *   graph builds, the same operations are queued and replayed onto it before the switch,
 *   so the switch never loses or resurrects a vector.
 * - Results are always exact until the switch, then hnsw (recall ≥ 0.95 by its contract).
 */
import type { VectorHit, VectorIndex, VectorIndexKind } from './types.ts';
import { createVectorIndex } from './create.ts';

/** Vectors added to the graph per slice; at ~2 ms per vector a slice blocks ≤ ~200 ms. */
const BUILD_SLICE = 100;

type Op = { op: 'add'; ids: number[]; vectors: Float32Array } | { op: 'remove'; ids: number[] };

const yieldToQueue = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

export class TieredIndex implements VectorIndex {
  readonly dim: number;
  #active: VectorIndex;
  #pending: Op[] | null = [];
  #disposed = false;
  /** Resolves when the graph has taken over (or the build failed and the scan stays). */
  readonly ready: Promise<void>;

  private constructor(exact: VectorIndex, build: (self: TieredIndex) => Promise<void>) {
    this.dim = exact.dim;
    this.#active = exact;
    this.ready = build(this);
  }

  /** Starts exact with `ids`/`vectors` and builds the graph kind `target` behind it. */
  static async create(dim: number, ids: ArrayLike<number>, vectors: Float32Array, target: VectorIndexKind = 'hnsw'): Promise<TieredIndex> {
    const exact = await createVectorIndex('exact', dim, { capacity: Math.max(1024, ids.length) });
    if (ids.length) await exact.add(ids, vectors);
    const idList = Array.from(ids);
    const rows = vectors.slice(0, idList.length * dim);
    return new TieredIndex(exact, (self) => self.#build(target, idList, rows));
  }

  get kind(): VectorIndexKind {
    return this.#active.kind;
  }

  get size(): number {
    return this.#active.size;
  }

  /** True while searches are answered by the exact scan and the graph is still building. */
  get building(): boolean {
    return this.#pending !== null;
  }

  async #build(target: VectorIndexKind, ids: number[], vectors: Float32Array): Promise<void> {
    let graph: VectorIndex | null = null;
    try {
      graph = await createVectorIndex(target, this.dim, { capacity: Math.max(1024, ids.length) });
      for (let i = 0; i < ids.length && !this.#disposed; i += BUILD_SLICE) {
        const end = Math.min(ids.length, i + BUILD_SLICE);
        await graph.add(ids.slice(i, end), vectors.subarray(i * this.dim, end * this.dim));
        await yieldToQueue();
      }
      // Replay what happened meanwhile; new operations may arrive while we await.
      while (!this.#disposed && this.#pending && this.#pending.length > 0) {
        const op = this.#pending.shift()!;
        if (op.op === 'add') await graph.add(op.ids, op.vectors);
        else await graph.remove(op.ids);
      }
      if (this.#disposed) {
        graph.dispose();
        return;
      }
      const scan = this.#active;
      this.#active = graph;
      this.#pending = null;
      scan.dispose();
    } catch {
      // The scan keeps answering (exact, just slower); nothing is lost.
      graph?.dispose();
      this.#pending = null;
    }
  }

  async add(ids: ArrayLike<number>, vectors: Float32Array): Promise<void> {
    await this.#active.add(ids, vectors);
    this.#pending?.push({ op: 'add', ids: Array.from(ids), vectors: vectors.slice(0, ids.length * this.dim) });
  }

  async remove(ids: ArrayLike<number>): Promise<void> {
    await this.#active.remove(ids);
    this.#pending?.push({ op: 'remove', ids: Array.from(ids) });
  }

  search(query: Float32Array, k: number, filter?: (id: number) => boolean): Promise<VectorHit[]> {
    return this.#active.search(query, k, filter);
  }

  serialize(): Promise<Uint8Array> {
    return this.#active.serialize();
  }

  memoryBytes(): number {
    return this.#active.memoryBytes();
  }

  dispose(): void {
    this.#disposed = true;
    this.#active.dispose();
  }
}
