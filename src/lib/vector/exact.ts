/**
 * Exact cosine scan over one contiguous Float32Array (the default index).
 *
 * Invariants: slots 0..size-1 of `data` are live, row `s` belongs to `ids[s]`, and
 * `slotOf` maps every live id to its slot. Remove swaps the last row into the hole, so
 * the live rows stay contiguous and the scan never skips holes. Capacity grows by
 * GROWTH so a long run of adds copies O(n) floats in total.
 *
 * Payload after the header: ids (u32 × count), then vectors (f32 × count × dim).
 */

import type { VectorHit, VectorIndex } from './types.ts';
import {
  HEADER_BYTES, TopK, VectorIndexError, checkBatch, checkDim, checkQuery, dot, readHeader, sliceAligned,
  writeHeader,
} from './common.ts';

const INITIAL_CAPACITY = 1024;
const GROWTH = 1.5;

export class ExactIndex implements VectorIndex {
  readonly kind = 'exact' as const;
  private data: Float32Array;
  private ids: Uint32Array;
  private readonly slotOf = new Map<number, number>();
  private count = 0;

  constructor(readonly dim: number, capacity = INITIAL_CAPACITY) {
    checkDim(dim);
    const cap = Math.max(1, capacity);
    this.data = new Float32Array(cap * dim);
    this.ids = new Uint32Array(cap);
  }

  get size(): number {
    return this.count;
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

  async add(ids: ArrayLike<number>, vectors: Float32Array): Promise<void> {
    this.addSync(ids, vectors);
  }

  addSync(ids: ArrayLike<number>, vectors: Float32Array): void {
    checkBatch(ids, vectors, this.dim);
    const dim = this.dim;
    this.reserve(this.count + ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      let slot = this.slotOf.get(id);
      if (slot === undefined) {
        slot = this.count++;
        this.slotOf.set(id, slot);
        this.ids[slot] = id;
      }
      this.data.set(vectors.subarray(i * dim, (i + 1) * dim), slot * dim);
    }
  }

  async remove(ids: ArrayLike<number>): Promise<void> {
    this.removeSync(ids);
  }

  removeSync(ids: ArrayLike<number>): void {
    const dim = this.dim;
    for (let i = 0; i < ids.length; i++) {
      const slot = this.slotOf.get(ids[i]);
      if (slot === undefined) continue;
      this.slotOf.delete(ids[i]);
      const last = --this.count;
      if (slot !== last) {
        const movedId = this.ids[last];
        this.ids[slot] = movedId;
        this.data.copyWithin(slot * dim, last * dim, (last + 1) * dim);
        this.slotOf.set(movedId, slot);
      }
    }
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** The stored vector of `id` (a view: copy before keeping), or null. */
  vectorOf(id: number): Float32Array | null {
    const slot = this.slotOf.get(id);
    return slot === undefined ? null : this.data.subarray(slot * this.dim, (slot + 1) * this.dim);
  }

  /** Cosine of `query` with the stored vector of `id` (NaN when absent). */
  scoreOf(query: Float32Array, id: number): number {
    const slot = this.slotOf.get(id);
    return slot === undefined ? NaN : dot(query, this.data, slot * this.dim, this.dim);
  }

  /** Live ids in slot order (a view: copy before keeping). */
  liveIds(): Uint32Array {
    return this.ids.subarray(0, this.count);
  }

  /** Live vectors, row-major in slot order (a view). */
  liveVectors(): Float32Array {
    return this.data.subarray(0, this.count * this.dim);
  }

  async search(query: Float32Array, k: number, filter?: (id: number) => boolean): Promise<VectorHit[]> {
    return this.searchSync(query, k, filter);
  }

  searchSync(query: Float32Array, k: number, filter?: (id: number) => boolean): VectorHit[] {
    checkQuery(query, this.dim);
    const top = new TopK(Math.min(Math.max(0, Math.floor(k)), this.count));
    if (top.k === 0) return [];
    const { data, ids, dim, count } = this;
    for (let s = 0; s < count; s++) {
      const id = ids[s];
      if (filter && !filter(id)) continue;
      const score = dot(query, data, s * dim, dim);
      if (score >= top.threshold) top.push(id, score);
    }
    return top.result();
  }

  async serialize(): Promise<Uint8Array> {
    const { count, dim } = this;
    const out = new Uint8Array(HEADER_BYTES + count * 4 + count * dim * 4);
    writeHeader(out, 'exact', dim, count);
    out.set(new Uint8Array(this.ids.buffer, 0, count * 4), HEADER_BYTES);
    out.set(new Uint8Array(this.data.buffer, 0, count * dim * 4), HEADER_BYTES + count * 4);
    return out;
  }

  memoryBytes(): number {
    // Map entries cost roughly 40 bytes each in V8.
    return this.data.byteLength + this.ids.byteLength + this.slotOf.size * 40;
  }

  dispose(): void {
    this.data = new Float32Array(0);
    this.ids = new Uint32Array(0);
    this.slotOf.clear();
    this.count = 0;
  }

  private reserve(needed: number): void {
    const cap = this.ids.length;
    if (needed <= cap) return;
    const next = Math.max(needed, Math.ceil(cap * GROWTH));
    const data = new Float32Array(next * this.dim);
    data.set(this.data.subarray(0, this.count * this.dim));
    const ids = new Uint32Array(next);
    ids.set(this.ids.subarray(0, this.count));
    this.data = data;
    this.ids = ids;
  }
}
