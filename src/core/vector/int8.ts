/**
 * Exact scan over int8-quantised vectors: 4× less memory and persisted size than the
 * f32 scan, same speed in plain JS (no SIMD), recall@10 ≈ 0.98–0.99.
 *
 * Choice: no float copy is kept for a re-rank (that would undo the memory win). Instead
 * each row stores 1/‖codes‖, so the score is the exact cosine between the query and the
 * *dequantised* vector; quantisation only perturbs the direction (per-vector scale
 * max|x|/127, error ~1e-3 in cosine), never the norm.
 *
 * Invariants as in exact.ts: live rows 0..size-1 contiguous, swap-remove, id↔slot in a SlotMap.
 * Payload after the header: ids (u32 × n), invNorms (f32 × n), codes (i8 × n × dim).
 */

import type { VectorHit, VectorIndex } from './types.ts';
import {
  HEADER_BYTES, SlotMap, TopK, VectorIndexError, checkBatch, checkDim, checkQuery, clampK, dotI8, readHeader,
  sliceAligned, writeHeader,
} from './common.ts';

const INITIAL_CAPACITY = 1024;
const INT8_MAX = 127;

export class Int8Index implements VectorIndex {
  readonly kind = 'int8' as const;
  private codes: Int8Array;
  private invNorms: Float32Array;
  private readonly slots: SlotMap;

  constructor(readonly dim: number, capacity = INITIAL_CAPACITY) {
    checkDim(dim);
    this.slots = new SlotMap(capacity);
    this.codes = new Int8Array(this.slots.capacity * dim);
    this.invNorms = new Float32Array(this.slots.capacity);
  }

  get size(): number {
    return this.slots.size;
  }

  static fromBytes(bytes: Uint8Array): Int8Index {
    const { kind, dim, count } = readHeader(bytes);
    if (kind !== 'int8') throw new VectorIndexError(`expected int8 index, got ${kind}`, 'BAD_FORMAT');
    const index = new Int8Index(dim, count);
    let off = HEADER_BYTES;
    const ids = new Uint32Array(sliceAligned(bytes, off, count * 4));
    off += count * 4;
    index.invNorms.set(new Float32Array(sliceAligned(bytes, off, count * 4)));
    off += count * 4;
    index.codes.set(new Int8Array(sliceAligned(bytes, off, count * dim)));
    index.slots.load(ids);
    return index;
  }

  async add(ids: ArrayLike<number>, vectors: Float32Array): Promise<void> {
    checkBatch(ids, vectors, this.dim);
    const dim = this.dim;
    this.reserve(this.slots.size + ids.length);
    for (let i = 0; i < ids.length; i++) {
      const slot = this.slots.claim(ids[i]);
      this.invNorms[slot] = quantise(vectors, i * dim, dim, this.codes, slot * dim);
    }
  }

  async remove(ids: ArrayLike<number>): Promise<void> {
    const dim = this.dim;
    for (let i = 0; i < ids.length; i++) {
      const hole = this.slots.release(ids[i]);
      if (hole < 0) continue;
      const last = this.slots.size;
      this.invNorms[hole] = this.invNorms[last];
      this.codes.copyWithin(hole * dim, last * dim, (last + 1) * dim);
    }
  }

  async search(query: Float32Array, k: number, filter?: (id: number) => boolean): Promise<VectorHit[]> {
    checkQuery(query, this.dim);
    const { ids, size: count } = this.slots;
    const top = new TopK(clampK(k, count));
    if (top.k === 0) return [];
    const { codes, invNorms, dim } = this;
    for (let s = 0; s < count; s++) {
      const id = ids[s];
      if (filter && !filter(id)) continue;
      const score = dotI8(query, codes, s * dim, dim) * invNorms[s];
      if (score >= top.threshold) top.push(id, score);
    }
    return top.result();
  }

  async serialize(): Promise<Uint8Array> {
    const { dim } = this;
    const { ids, size: count } = this.slots;
    const out = new Uint8Array(HEADER_BYTES + count * 8 + count * dim);
    writeHeader(out, 'int8', dim, count);
    let off = HEADER_BYTES;
    out.set(new Uint8Array(ids.buffer, 0, count * 4), off);
    off += count * 4;
    out.set(new Uint8Array(this.invNorms.buffer, 0, count * 4), off);
    off += count * 4;
    out.set(new Uint8Array(this.codes.buffer, 0, count * dim), off);
    return out;
  }

  memoryBytes(): number {
    return this.codes.byteLength + this.invNorms.byteLength + this.slots.memoryBytes();
  }

  dispose(): void {
    this.codes = new Int8Array(0);
    this.invNorms = new Float32Array(0);
    this.slots.clear();
  }

  private reserve(needed: number): void {
    const next = this.slots.reserve(needed);
    if (next === 0) return;
    const count = this.slots.size;
    const codes = new Int8Array(next * this.dim);
    codes.set(this.codes.subarray(0, count * this.dim));
    const invNorms = new Float32Array(next);
    invNorms.set(this.invNorms.subarray(0, count));
    this.codes = codes;
    this.invNorms = invNorms;
  }
}

/**
 * Writes int8 codes for one row (per-vector scale max|x|/127); returns 1/‖codes‖ (0 for a
 * zero vector), so `dotI8(q, codes) × result` is the cosine with the dequantised vector.
 * Shared with the partitioned pack layout (partitioned.ts), which stores the same codes.
 */
export function quantise(src: Float32Array, off: number, dim: number, dst: Int8Array, dstOff: number): number {
  let maxAbs = 0;
  for (let i = 0; i < dim; i++) maxAbs = Math.max(maxAbs, Math.abs(src[off + i]));
  if (maxAbs === 0 || !Number.isFinite(maxAbs)) {
    dst.fill(0, dstOff, dstOff + dim);
    return 0;
  }
  const inv = INT8_MAX / maxAbs;
  let norm2 = 0;
  for (let i = 0; i < dim; i++) {
    const c = Math.round(src[off + i] * inv);
    dst[dstOff + i] = c;
    norm2 += c * c;
  }
  return 1 / Math.sqrt(norm2);
}
