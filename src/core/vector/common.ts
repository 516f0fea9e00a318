/**
 * Shared kernels and the binary header for every vector index.
 *
 * Invariants: vectors are L2-normalised, so cosine similarity is the plain dot product;
 * ids are integers in [0, 2^32) (SQLite chunk rowids) so they fit a Uint32Array and
 * hnswlib's 32-bit labels; every serialized index starts with the same 16-byte header
 * (magic, format version, kind, dim, count) so `loadVectorIndex` can dispatch on it.
 */

import type { VectorHit } from './types.ts';

export const MAGIC = 0x56464953; // 'SIFV' little-endian
export const FORMAT_VERSION = 1;
export const HEADER_BYTES = 16;
export const KIND_CODES = { exact: 1, int8: 2, hnsw: 3, voy: 4 } as const;
export type KindName = keyof typeof KIND_CODES;

const MAX_ID = 0xffffffff;

export interface Header {
  kind: KindName;
  dim: number;
  count: number;
}

export function writeHeader(out: Uint8Array, kind: KindName, dim: number, count: number): void {
  const view = new DataView(out.buffer, out.byteOffset, HEADER_BYTES);
  view.setUint32(0, MAGIC, true);
  view.setUint16(4, FORMAT_VERSION, true);
  view.setUint8(6, KIND_CODES[kind]);
  view.setUint8(7, 0);
  view.setUint32(8, dim, true);
  view.setUint32(12, count, true);
}

export function readHeader(bytes: Uint8Array): Header {
  if (bytes.byteLength < HEADER_BYTES) throw new VectorIndexError('truncated vector index', 'BAD_FORMAT');
  const view = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  if (view.getUint32(0, true) !== MAGIC) throw new VectorIndexError('not a Sift vector index', 'BAD_FORMAT');
  const version = view.getUint16(4, true);
  if (version !== FORMAT_VERSION) {
    throw new VectorIndexError(`unsupported vector index version ${version}`, 'BAD_VERSION');
  }
  const code = view.getUint8(6);
  const kind = (Object.keys(KIND_CODES) as KindName[]).find((k) => KIND_CODES[k] === code);
  if (!kind) throw new VectorIndexError(`unknown vector index kind ${code}`, 'BAD_FORMAT');
  return { kind, dim: view.getUint32(8, true), count: view.getUint32(12, true) };
}

/** Copies a byte range into a fresh, aligned buffer (the input may be unaligned). */
export function sliceAligned(bytes: Uint8Array, offset: number, length: number): ArrayBuffer {
  if (offset + length > bytes.byteLength) throw new VectorIndexError('truncated vector index', 'BAD_FORMAT');
  return bytes.slice(offset, offset + length).buffer;
}

export class VectorIndexError extends Error {
  override name = 'VectorIndexError';
  constructor(
    message: string,
    readonly code: 'DIM_MISMATCH' | 'BAD_ID' | 'BAD_FORMAT' | 'BAD_VERSION' | 'DISPOSED' | 'BACKEND' | 'READ_ONLY',
  ) {
    super(message);
  }
}

/** Capacity of a SlotMap (and of its index's row arrays) grows by this factor. */
const SLOT_GROWTH = 1.5;

/**
 * The id↔slot bookkeeping shared by the scan indexes (exact, int8). Slots 0..size-1 are
 * live and contiguous, `ids[s]` is the id of slot `s`, and every live id maps to its
 * slot. The index owns the rows; this decides when they grow and which row moves on a
 * remove (the last one, into the hole), so scans never skip holes.
 */
export class SlotMap {
  /** Id per slot; only 0..size-1 are meaningful (read it directly in scans). */
  ids: Uint32Array;
  private readonly slotOf = new Map<number, number>();
  private count = 0;

  constructor(capacity: number) {
    this.ids = new Uint32Array(Math.max(1, capacity));
  }

  get size(): number {
    return this.count;
  }

  get capacity(): number {
    return this.ids.length;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  slot(id: number): number | undefined {
    return this.slotOf.get(id);
  }

  /** The slot of `id`, appending a new one when absent (reserve() the room first). */
  claim(id: number): number {
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.count++;
      this.slotOf.set(id, slot);
      this.ids[slot] = id;
    }
    return slot;
  }

  /**
   * Frees the slot of `id` by moving the last slot's id into it. Returns the hole the
   * index must fill with its row at slot `size` (the former last), or -1 when no row
   * moves (absent id, or it was the last).
   */
  release(id: number): number {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return -1;
    this.slotOf.delete(id);
    const last = --this.count;
    if (slot === last) return -1;
    const movedId = this.ids[last];
    this.ids[slot] = movedId;
    this.slotOf.set(movedId, slot);
    return slot;
  }

  /** Makes room for `needed` slots; returns the new capacity for the index's rows, or 0 when unchanged. */
  reserve(needed: number): number {
    const cap = this.ids.length;
    if (needed <= cap) return 0;
    const next = Math.max(needed, Math.ceil(cap * SLOT_GROWTH));
    const ids = new Uint32Array(next);
    ids.set(this.ids.subarray(0, this.count));
    this.ids = ids;
    return next;
  }

  /** Takes `ids` as slots 0..ids.length-1 (a loaded payload; ids must be distinct and fit). */
  load(ids: Uint32Array): void {
    this.ids.set(ids);
    for (let s = 0; s < ids.length; s++) this.slotOf.set(ids[s], s);
    this.count = ids.length;
  }

  memoryBytes(): number {
    // Map entries cost roughly 40 bytes each in V8.
    return this.ids.byteLength + this.slotOf.size * 40;
  }

  clear(): void {
    this.ids = new Uint32Array(0);
    this.slotOf.clear();
    this.count = 0;
  }
}

/** k clamped to a whole number in 0..size. */
export function clampK(k: number, size: number): number {
  return Math.min(Math.max(0, Math.floor(k)), size);
}

export function checkDim(dim: number): void {
  if (!Number.isInteger(dim) || dim <= 0) throw new VectorIndexError(`bad dimension ${dim}`, 'DIM_MISMATCH');
}

/** Validates an add() batch: one row of `dim` floats per id, ids in range. */
export function checkBatch(ids: ArrayLike<number>, vectors: Float32Array, dim: number): void {
  if (vectors.length !== ids.length * dim) {
    throw new VectorIndexError(
      `expected ${ids.length} × ${dim} = ${ids.length * dim} floats, got ${vectors.length}`,
      'DIM_MISMATCH',
    );
  }
  for (let i = 0; i < ids.length; i++) checkId(ids[i]);
}

export function checkId(id: number): void {
  if (!Number.isInteger(id) || id < 0 || id > MAX_ID) throw new VectorIndexError(`bad vector id ${id}`, 'BAD_ID');
}

export function checkQuery(query: Float32Array, dim: number): void {
  if (query.length !== dim) {
    throw new VectorIndexError(`query has ${query.length} dimensions, index has ${dim}`, 'DIM_MISMATCH');
  }
}

/** Dot product of `q` with row `off..off+dim` of `data`; 4 accumulators, unrolled by 8. */
export function dot(q: Float32Array, data: Float32Array, off: number, dim: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let i = 0;
  const end8 = dim - (dim & 7);
  for (; i < end8; i += 8) {
    const o = off + i;
    s0 += q[i] * data[o] + q[i + 4] * data[o + 4];
    s1 += q[i + 1] * data[o + 1] + q[i + 5] * data[o + 5];
    s2 += q[i + 2] * data[o + 2] + q[i + 6] * data[o + 6];
    s3 += q[i + 3] * data[o + 3] + q[i + 7] * data[o + 7];
  }
  for (; i < dim; i++) s0 += q[i] * data[off + i];
  return s0 + s1 + s2 + s3;
}

/** Same as `dot` over int8 codes. */
export function dotI8(q: Float32Array, data: Int8Array, off: number, dim: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let i = 0;
  const end8 = dim - (dim & 7);
  for (; i < end8; i += 8) {
    const o = off + i;
    s0 += q[i] * data[o] + q[i + 4] * data[o + 4];
    s1 += q[i + 1] * data[o + 1] + q[i + 5] * data[o + 5];
    s2 += q[i + 2] * data[o + 2] + q[i + 6] * data[o + 6];
    s3 += q[i + 3] * data[o + 3] + q[i + 7] * data[o + 7];
  }
  for (; i < dim; i++) s0 += q[i] * data[off + i];
  return s0 + s1 + s2 + s3;
}

/**
 * Bounded top-k by score, a binary min-heap on (score, then larger id = worse) so ties
 * resolve to the smaller id and results are deterministic across implementations.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly ids: Float64Array;
  private n = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(Math.max(k, 1));
    this.ids = new Float64Array(Math.max(k, 1));
  }

  /** Lowest kept score, -Infinity until full: a cheap pre-check before push(). */
  get threshold(): number {
    return this.n < this.k ? -Infinity : this.scores[0];
  }

  push(id: number, score: number): void {
    if (this.k <= 0) return;
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(score, id, this.scores[p], this.ids[p])) break;
        this.scores[i] = this.scores[p];
        this.ids[i] = this.ids[p];
        i = p;
      }
      this.scores[i] = score;
      this.ids[i] = id;
      return;
    }
    if (!this.worse(this.scores[0], this.ids[0], score, id)) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.n) break;
      const r = l + 1;
      let c = l;
      if (r < this.n && this.worse(this.scores[r], this.ids[r], this.scores[l], this.ids[l])) c = r;
      if (!this.worse(this.scores[c], this.ids[c], score, id)) break;
      this.scores[i] = this.scores[c];
      this.ids[i] = this.ids[c];
      i = c;
    }
    this.scores[i] = score;
    this.ids[i] = id;
  }

  /** Best first. */
  result(): VectorHit[] {
    const out: VectorHit[] = [];
    for (let i = 0; i < this.n; i++) out.push({ id: this.ids[i], score: this.scores[i] });
    return out.sort(compareHits);
  }

  private worse(sa: number, ia: number, sb: number, ib: number): boolean {
    return sa < sb || (sa === sb && ia > ib);
  }
}

export function compareHits(a: VectorHit, b: VectorHit): number {
  return b.score - a.score || a.id - b.id;
}

/** True when running under Node (not a browser or worker). */
export function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string' && typeof (globalThis as { window?: unknown }).window === 'undefined';
}

/** Same bytes with another kind in the header (hnsw and voy persist the exact payload). */
export function retag(bytes: Uint8Array, kind: KindName = 'exact'): Uint8Array {
  const out = bytes.slice();
  const { dim, count } = readHeader(bytes);
  writeHeader(out.subarray(0, HEADER_BYTES), kind, dim, count);
  return out;
}
