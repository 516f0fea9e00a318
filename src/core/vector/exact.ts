/**
 * Exact cosine scan over one contiguous Float32Array (the default index).
 *
 * Invariants: slots 0..size-1 of `data` are live and row `s` belongs to `slots.ids[s]`
 * (the SlotMap owns the id↔slot map). Remove swaps the last row into the hole, so the
 * live rows stay contiguous and the scan never skips holes. Capacity grows with the
 * SlotMap's, geometrically, so a long run of adds copies O(n) floats in total.
 *
 * Payload after the header: ids (u32 × count), then vectors (f32 × count × dim).
 */

import type { VectorHit, VectorIndex } from './types.ts';
import {
  HEADER_BYTES, SlotMap, TopK, VectorIndexError, checkBatch, checkDim, checkQuery, clampK, dot, readHeader,
  retag, sliceAligned, writeHeader,
} from './common.ts';
import type { KindName } from './common.ts';

const INITIAL_CAPACITY = 1024;

/**
 * What `serialize()` of an exact index holding `ids` (distinct) with `vectors` in that order
 * returns, as its three parts (header, ids, vectors) and without building the index: the
 * CLI writes its vector cache from the stored vectors this way, with no copy of them.
 */
export function exactIndexParts(dim: number, ids: Uint32Array | Int32Array, vectors: Float32Array): Uint8Array[] {
  checkDim(dim);
  checkBatch(ids, vectors, dim);
  const header = new Uint8Array(HEADER_BYTES);
  writeHeader(header, 'exact', dim, ids.length);
  return [
    header,
    new Uint8Array(ids.buffer, ids.byteOffset, ids.length * 4),
    new Uint8Array(vectors.buffer, vectors.byteOffset, ids.length * dim * 4),
  ];
}

export class ExactIndex implements VectorIndex {
  readonly kind = 'exact' as const;
  private data: Float32Array;
  private readonly slots: SlotMap;

  constructor(readonly dim: number, capacity = INITIAL_CAPACITY) {
    checkDim(dim);
    this.slots = new SlotMap(capacity);
    this.data = new Float32Array(this.slots.capacity * dim);
  }

  get size(): number {
    return this.slots.size;
  }

  static fromBytes(bytes: Uint8Array): ExactIndex {
    const { kind, dim, count } = readHeader(bytes);
    if (kind !== 'exact') throw new VectorIndexError(`expected exact index, got ${kind}`, 'BAD_FORMAT');
    const index = new ExactIndex(dim, count);
    const ids = new Uint32Array(sliceAligned(bytes, HEADER_BYTES, count * 4));
    const vectors = new Float32Array(sliceAligned(bytes, HEADER_BYTES + count * 4, count * dim * 4));
    index.addSync(ids, vectors);
    return index;
  }

  /** The exact payload persisted under `kind`'s header (how hnsw and voy store their floats). */
  static fromTagged(bytes: Uint8Array, kind: KindName): ExactIndex {
    const found = readHeader(bytes).kind;
    if (found !== kind) throw new VectorIndexError(`expected ${kind} index, got ${found}`, 'BAD_FORMAT');
    return ExactIndex.fromBytes(retag(bytes));
  }

  async add(ids: ArrayLike<number>, vectors: Float32Array): Promise<void> {
    this.addSync(ids, vectors);
  }

  addSync(ids: ArrayLike<number>, vectors: Float32Array): void {
    checkBatch(ids, vectors, this.dim);
    const dim = this.dim;
    this.reserve(this.slots.size + ids.length);
    for (let i = 0; i < ids.length; i++) {
      const slot = this.slots.claim(ids[i]);
      this.data.set(vectors.subarray(i * dim, (i + 1) * dim), slot * dim);
    }
  }

  async remove(ids: ArrayLike<number>): Promise<void> {
    this.removeSync(ids);
  }

  removeSync(ids: ArrayLike<number>): void {
    const dim = this.dim;
    for (let i = 0; i < ids.length; i++) {
      const hole = this.slots.release(ids[i]);
      if (hole < 0) continue;
      const last = this.slots.size;
      this.data.copyWithin(hole * dim, last * dim, (last + 1) * dim);
    }
  }

  has(id: number): boolean {
    return this.slots.has(id);
  }

  /** The stored vector of `id` (a view: copy before keeping), or null. */
  vectorOf(id: number): Float32Array | null {
    const slot = this.slots.slot(id);
    return slot === undefined ? null : this.data.subarray(slot * this.dim, (slot + 1) * this.dim);
  }

  /** Cosine of `query` with the stored vector of `id` (NaN when absent). */
  scoreOf(query: Float32Array, id: number): number {
    const slot = this.slots.slot(id);
    return slot === undefined ? NaN : dot(query, this.data, slot * this.dim, this.dim);
  }

  /** Live ids in slot order (a view: copy before keeping). */
  liveIds(): Uint32Array {
    return this.slots.ids.subarray(0, this.slots.size);
  }

  /** Live vectors, row-major in slot order (a view). */
  liveVectors(): Float32Array {
    return this.data.subarray(0, this.slots.size * this.dim);
  }

  async search(query: Float32Array, k: number, filter?: (id: number) => boolean): Promise<VectorHit[]> {
    return this.searchSync(query, k, filter);
  }

  searchSync(query: Float32Array, k: number, filter?: (id: number) => boolean): VectorHit[] {
    checkQuery(query, this.dim);
    const { ids, size: count } = this.slots;
    const top = new TopK(clampK(k, count));
    if (top.k === 0) return [];
    const { data, dim } = this;
    for (let s = 0; s < count; s++) {
      const id = ids[s];
      if (filter && !filter(id)) continue;
      const score = dot(query, data, s * dim, dim);
      if (score >= top.threshold) top.push(id, score);
    }
    return top.result();
  }

  async serialize(): Promise<Uint8Array> {
    const { dim } = this;
    const { ids, size: count } = this.slots;
    const out = new Uint8Array(HEADER_BYTES + count * 4 + count * dim * 4);
    writeHeader(out, 'exact', dim, count);
    out.set(new Uint8Array(ids.buffer, 0, count * 4), HEADER_BYTES);
    out.set(new Uint8Array(this.data.buffer, 0, count * dim * 4), HEADER_BYTES + count * 4);
    return out;
  }

  memoryBytes(): number {
    return this.data.byteLength + this.slots.memoryBytes();
  }

  dispose(): void {
    this.data = new Float32Array(0);
    this.slots.clear();
  }

  private reserve(needed: number): void {
    const next = this.slots.reserve(needed);
    if (next === 0) return;
    const data = new Float32Array(next * this.dim);
    data.set(this.data.subarray(0, this.slots.size * this.dim));
    this.data = data;
  }
}
