/**
 * IVF-style partitioned vectors for a published pack (issue 27): a reader over HTTP byte ranges
 * fetches the small table of cell centroids once, then only the few cells nearest a query,
 * never all the vectors (a kernel-sized index holds ~100 MB of int8 vectors).
 *
 * Build (`buildPartitions`, at `sift publish`): deterministic spherical k-means. Vectors are
 * L2-normalised, so similarity is the dot product and centroids are re-normalised after
 * every update. Seeded k-means++ picks the first centroids from a sample, Lloyd iterations run
 * on a sample of at most TRAIN_SAMPLE vectors, then every vector goes to its best centroid.
 * Assignment runs on the int8 codes the cells store (int8.ts `quantise`, shared, not copied)
 * against centroids quantised to ≤10-bit integers, two centroids packed per double: every
 * product and partial sum is an integer below 2^53, so the packed sums are exact and split
 * exactly (see `packCentroids`). Same input and options → the same cells, byte for byte.
 *
 * Invariants of a PartitionCells:
 * - cells[c].id === c, cells are numbered 0..C-1 with no gaps and none is empty (empty k-means
 *   cells are dropped and the rest renumbered), and `centroids` holds C unit rows of `dim`.
 * - Every input id is in exactly one cell; within a cell ids ascend.
 * - A cell stores its vectors as int8 codes (n × dim) and one float32 scale per vector,
 *   1/‖codes‖, so `dotI8(q, codes) × scale` is the cosine with the dequantised vector: exactly
 *   the Int8Index score.
 *
 * Search (`PartitionedVectorIndex`, read-only): rank all centroids by dot product, load the
 * best `nprobe` cells through the `loadCells` callback (one call per query for the cells not
 * cached), scan them exactly. While fewer than k hits pass `filter` it probes further cells,
 * in centroid order, up to `maxProbe`. Loaded cells stay in an LRU bounded by bytes, so a
 * repeated query loads nothing. Hits are best first, ties by smaller id; ids rejected by
 * `filter` never appear; a cell that comes back malformed is a VectorIndexError, never a
 * wrong answer.
 */

import type { VectorHit, VectorIndex } from './types.ts';
import { TopK, VectorIndexError, checkDim, checkQuery, clampK, dot, dotI8 } from './common.ts';
import { quantise } from './int8.ts';
import { mulberry32 } from './synthetic.ts';

/** One partition: its vectors as int8 codes with a per-vector scale (1/‖codes‖). */
export interface Cell {
  /** Cell number: row `id` of the centroids. */
  id: number;
  /** Vector ids, ascending. */
  ids: Int32Array;
  /** 1/‖codes‖ per vector (int8.ts `quantise`); 0 for a zero vector. */
  scales: Float32Array;
  /** ids.length × dim int8 codes, row-major. */
  vectors: Int8Array;
}

export interface PartitionCells {
  dim: number;
  /** cells.length × dim, unit rows. */
  centroids: Float32Array;
  /** cells[c].id === c. */
  cells: Cell[];
}

export interface BuildPartitionsOptions {
  /** Number of cells; default `defaultCellCount(n)`. Clamped to 1..n. */
  cells?: number;
  /** PRNG seed for the sample and the k-means++ choices; default 1. */
  seed?: number;
  /** Lloyd iterations at most (stops earlier when ≤ 0.1% of the sample changes cell); default 10. */
  iterations?: number;
}

/**
 * At most this many vectors train the centroids; all are assigned afterwards. Fewer costs
 * recall: 64 per cell (28.6k at 200k vectors) dropped recall@10 at nprobe 24 from 0.968 to
 * 0.914 on small topics (synthetic.ts, 100 vectors a topic).
 */
export const TRAIN_SAMPLE = 50_000;
/** Up to this many vectors, one cell: small enough to read whole. */
export const SINGLE_CELL_MAX = 4096;
export const MAX_CELLS = 1024;
const DEFAULT_ITERATIONS = 10;
/** k-means++ seeding runs on at most this many sample vectors per cell. */
const SEED_POINTS_PER_CELL = 8;
/** A Lloyd round that moves at most this share of the sample is the last. */
const CONVERGED_SHARE = 0.001;

/** Cells for n vectors: 1 up to SINGLE_CELL_MAX, else round(√n), at most MAX_CELLS. */
export function defaultCellCount(n: number): number {
  if (n <= SINGLE_CELL_MAX) return 1;
  return Math.min(MAX_CELLS, Math.round(Math.sqrt(n)));
}

/** Partitions `ids` (distinct, ≥ 0) and their L2-normalised `vectors` (ids.length × dim). */
export function buildPartitions(
  ids: Int32Array, vectors: Float32Array, dim: number, opts: BuildPartitionsOptions = {},
): PartitionCells {
  checkDim(dim);
  const n = ids.length;
  if (vectors.length !== n * dim) {
    throw new VectorIndexError(`expected ${n} × ${dim} = ${n * dim} floats, got ${vectors.length}`, 'DIM_MISMATCH');
  }
  checkDistinctIds(ids);
  const codes = new Int8Array(n * dim);
  const scales = new Float32Array(n);
  for (let r = 0; r < n; r++) {
    scales[r] = quantise(vectors, r * dim, dim, codes, r * dim);
    if (scales[r] === 0) {
      for (let i = 0; i < dim; i++) {
        if (!Number.isFinite(vectors[r * dim + i])) throw new VectorIndexError(`the vector of id ${ids[r]} is not finite`, 'BAD_FORMAT');
      }
    }
  }
  if (n === 0) return { dim, centroids: new Float32Array(0), cells: [] };

  const asked = opts.cells !== undefined && Number.isFinite(opts.cells) ? Math.floor(opts.cells) : defaultCellCount(n);
  const want = Math.max(1, Math.min(n, asked));
  const rand = mulberry32(opts.seed ?? 1);
  let centroids: Float32Array;
  let assign: Int32Array;
  if (want === 1) {
    centroids = meanCentroid(vectors, dim, n);
    assign = new Int32Array(n);
  } else {
    const sample = pickSample(n, Math.min(n, TRAIN_SAMPLE), rand);
    centroids = seedCentroids(vectors, dim, sample, want, rand);
    const trained = lloyd(vectors, codes, scales, dim, sample, centroids, opts.iterations ?? DEFAULT_ITERATIONS);
    centroids = trained.centroids;
    assign = trained.cell;
    // The sample is assigned to the final centroids already; the rest once, in full.
    const inSample = new Uint8Array(n);
    for (const r of sample) inSample[r] = 1;
    const rest = new Int32Array(n - sample.length);
    for (let r = 0, j = 0; r < n; r++) if (!inSample[r]) rest[j++] = r;
    const best = new Float64Array(n), second = new Float64Array(n);
    assignRows(codes, scales, rest, dim, packCentroids(centroids, dim), assign, best, second);
  }
  return gatherCells(ids, codes, scales, dim, centroids, assign);
}

function checkDistinctIds(ids: Int32Array): void {
  const sorted = Int32Array.from(ids).sort();
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i] < 0) throw new VectorIndexError(`bad vector id ${sorted[i]}`, 'BAD_ID');
    if (i > 0 && sorted[i] === sorted[i - 1]) throw new VectorIndexError(`duplicate vector id ${sorted[i]}`, 'BAD_ID');
  }
}

function normaliseRow(v: Float32Array | Float64Array, off: number, dim: number): void {
  let s = 0;
  for (let i = 0; i < dim; i++) s += v[off + i] * v[off + i];
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < dim; i++) v[off + i] *= inv;
}

function meanCentroid(vectors: Float32Array, dim: number, n: number): Float32Array {
  const sum = new Float64Array(dim);
  for (let r = 0; r < n; r++) for (let i = 0; i < dim; i++) sum[i] += vectors[r * dim + i];
  normaliseRow(sum, 0, dim);
  return Float32Array.from(sum);
}

/** `size` distinct row numbers out of 0..n-1, ascending (a seeded partial Fisher–Yates). */
function pickSample(n: number, size: number, rand: () => number): Int32Array {
  if (size >= n) return Int32Array.from({ length: n }, (_, i) => i);
  const all = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < size; i++) {
    const j = i + Math.floor(rand() * (n - i));
    const t = all[i]; all[i] = all[j]; all[j] = t;
  }
  return all.slice(0, size).sort();
}

/** k-means++ on the first SEED_POINTS_PER_CELL × k sample rows (the sample is already random). */
function seedCentroids(vectors: Float32Array, dim: number, sample: Int32Array, k: number, rand: () => number): Float32Array {
  // The sample is sorted, so take an evenly strided subset rather than a prefix.
  const m = Math.min(sample.length, SEED_POINTS_PER_CELL * k);
  // A contiguous copy: the scans below stream it once per centroid.
  const pool = new Float32Array(m * dim);
  for (let i = 0; i < m; i++) {
    const r = sample[Math.floor((i * sample.length) / m)];
    pool.set(vectors.subarray(r * dim, (r + 1) * dim), i * dim);
  }
  const centroids = new Float32Array(k * dim);
  const far = new Float64Array(m).fill(Infinity); // 1 - best dot: half the squared distance
  const chosen = new Uint8Array(m);
  const centre = new Float32Array(dim);
  let pick = Math.floor(rand() * m);
  for (let c = 0; c < k; c++) {
    chosen[pick] = 1;
    centre.set(pool.subarray(pick * dim, (pick + 1) * dim));
    centroids.set(centre, c * dim);
    if (c === k - 1) break;
    let total = 0;
    for (let i = 0; i < m; i++) {
      if (chosen[i]) { far[i] = 0; continue; }
      const d = Math.max(0, 1 - dot(centre, pool, i * dim, dim));
      if (d < far[i]) far[i] = d;
      total += far[i];
    }
    pick = -1;
    if (total > 0) {
      let target = rand() * total;
      for (let i = 0; i < m; i++) {
        if (chosen[i] || far[i] <= 0) continue;
        target -= far[i];
        pick = i;
        if (target < 0) break;
      }
    }
    if (pick < 0) {
      // Every remaining point coincides with a centroid: any unchosen one will do.
      const start = Math.floor(rand() * m);
      for (let j = 0; j < m && pick < 0; j++) if (!chosen[(start + j) % m]) pick = (start + j) % m;
      if (pick < 0) pick = Math.floor(rand() * m); // k > m: duplicates become empty cells, dropped later
    }
  }
  return centroids;
}

/**
 * Spherical Lloyd iterations on the sample rows, skipping rows whose centroid provably did
 * not change (Hamerly's bounds on the unit sphere: `upper` ≥ the distance to the row's
 * centroid, `lower` ≤ the distance to any other; a row with upper < lower keeps its cell).
 * Distances are between the row's dequantised direction and the quantised centroids the
 * kernel sees, so a centroid's drift counts its quantisation error before and after the move.
 * Returns the final centroids and, for the sample rows, their cell under those centroids
 * (other rows of `cell` are 0).
 */
function lloyd(
  vectors: Float32Array, codes: Int8Array, scales: Float32Array, dim: number, sample: Int32Array,
  centroids: Float32Array, iterations: number,
): { centroids: Float32Array; cell: Int32Array } {
  const k = centroids.length / dim;
  const n = scales.length;
  const s = sample.length;
  const cell = new Int32Array(n).fill(-1);
  const best = new Float64Array(n), second = new Float64Array(n);
  const upper = new Float64Array(n), lower = new Float64Array(n);
  const sums = new Float64Array(k * dim);
  const counts = new Int32Array(k);
  const drift = new Float64Array(k);
  let packed = packCentroids(centroids, dim);
  let active = sample;
  for (let it = 0; it < iterations; it++) {
    const changed = assignRows(codes, scales, active, dim, packed, cell, best, second);
    for (const r of active) {
      upper[r] = distance(best[r]);
      lower[r] = distance(second[r]);
    }
    sums.fill(0);
    counts.fill(0);
    for (const r of sample) {
      const c = cell[r];
      counts[c]++;
      const src = r * dim, dst = c * dim;
      for (let j = 0; j < dim; j++) sums[dst + j] += vectors[src + j];
    }
    reseedEmpty(vectors, dim, sample, cell, best, counts, sums, upper);
    const next = new Float32Array(k * dim);
    for (let c = 0; c < k; c++) {
      normaliseRow(sums, c * dim, dim);
      for (let j = 0; j < dim; j++) next[c * dim + j] = sums[c * dim + j];
    }
    const nextPacked = packCentroids(next, dim);
    // Hamerly's refinement: a row of the centroid that moved most only needs the runner-up's move.
    let maxDrift = 0, runnerUp = 0, mover = -1;
    for (let c = 0; c < k; c++) {
      let d2 = 0;
      for (let j = 0; j < dim; j++) {
        const d = next[c * dim + j] - centroids[c * dim + j];
        d2 += d * d;
      }
      drift[c] = Math.sqrt(d2) + packed.err[c] + nextPacked.err[c] + DRIFT_SLACK;
      if (drift[c] > maxDrift) {
        runnerUp = maxDrift;
        maxDrift = drift[c];
        mover = c;
      } else if (drift[c] > runnerUp) {
        runnerUp = drift[c];
      }
    }
    for (const r of sample) {
      upper[r] += drift[cell[r]];
      lower[r] -= cell[r] === mover ? runnerUp : maxDrift;
    }
    centroids = next;
    packed = nextPacked;
    const list: number[] = [];
    for (const r of sample) if (!(upper[r] < lower[r])) list.push(r);
    active = Int32Array.from(list);
    if (it > 0 && changed <= s * CONVERGED_SHARE) break;
  }
  assignRows(codes, scales, active, dim, packed, cell, best, second);
  for (let r = 0; r < n; r++) if (cell[r] < 0) cell[r] = 0;
  return { centroids, cell };
}

/** Covers float rounding in the bounds (distances are O(1), errors O(1e-7)). */
const DRIFT_SLACK = 1e-6;

/** Euclidean distance between unit vectors with cosine `cos`. */
function distance(cos: number): number {
  return Math.sqrt(Math.max(0, 2 - 2 * cos));
}

/**
 * An empty cell takes the sample vector worst served by its centroid (among cells with more
 * than one member), which then leaves its old cell: the usual k-means repair, deterministic.
 * The moved row's upper bound becomes infinite, so it is assigned again in full.
 */
function reseedEmpty(
  vectors: Float32Array, dim: number, sample: Int32Array, cell: Int32Array, best: Float64Array,
  counts: Int32Array, sums: Float64Array, upper: Float64Array,
): void {
  const k = counts.length;
  let empty = 0;
  for (let c = 0; c < k; c++) if (counts[c] === 0) empty++;
  if (empty === 0) return;
  const order = Int32Array.from(sample).sort((a, b) => best[a] - best[b] || a - b);
  let o = 0;
  for (let c = 0; c < k; c++) {
    if (counts[c] !== 0) continue;
    while (o < order.length && counts[cell[order[o]]] <= 1) o++;
    if (o >= order.length) return;
    const r = order[o++];
    const from = cell[r], src = r * dim;
    counts[from]--;
    counts[c] = 1;
    cell[r] = c;
    upper[r] = Infinity;
    for (let j = 0; j < dim; j++) {
      sums[from * dim + j] -= vectors[src + j];
      sums[c * dim + j] = vectors[src + j];
    }
  }
}

/** 2^26: the high centroid's lane in a packed double. */
const LANE = 67_108_864;
const INT8_MAX = 127;

interface PackedCentroids {
  k: number;
  /** `pairs` rows of dim doubles (see packCentroids). */
  packed: Float64Array;
  pairs: number;
  /** 1/‖codes‖ per centroid (0 for a zero centroid). */
  inv: Float64Array;
  /** Distance between each centroid and its quantised direction. */
  err: Float64Array;
}

/**
 * Centroid codes for the packed kernel: centroid 2p is the low lane and 2p+1 the high lane of
 * row p, `packed[p·dim + i] = a[2p][i] + 2^26 · a[2p+1][i]`. With int8 vector codes (|x| ≤ 127)
 * and |a| ≤ A where dim·127·A < 2^25, each lane's dot stays below 2^25 in magnitude and the
 * whole sum below 2^52: every partial sum is an exact integer, and the high lane is
 * round(sum / 2^26), the low lane the rest. Rows are padded to a multiple of 2 (zero lanes).
 */
function packCentroids(centroids: Float32Array, dim: number): PackedCentroids {
  const k = centroids.length / dim;
  const amax = Math.max(1, Math.min(511, Math.floor((LANE / 2 - 1) / (dim * INT8_MAX))));
  let pairs = Math.ceil(k / 2);
  pairs += pairs & 1;
  const packed = new Float64Array(pairs * dim);
  const inv = new Float64Array(pairs * 2);
  const err = new Float64Array(k);
  const codes = new Float64Array(dim);
  for (let c = 0; c < k; c++) {
    let maxAbs = 0, norm2 = 0;
    for (let i = 0; i < dim; i++) {
      maxAbs = Math.max(maxAbs, Math.abs(centroids[c * dim + i]));
      norm2 += centroids[c * dim + i] * centroids[c * dim + i];
    }
    if (maxAbs === 0) continue;
    const f = amax / maxAbs, lane = c & 1 ? LANE : 1, row = (c >> 1) * dim;
    let codeNorm2 = 0;
    for (let i = 0; i < dim; i++) {
      const a = Math.round(centroids[c * dim + i] * f);
      codes[i] = a;
      packed[row + i] += a * lane;
      codeNorm2 += a * a;
    }
    inv[c] = 1 / Math.sqrt(codeNorm2);
    const invNorm = 1 / Math.sqrt(norm2);
    let e2 = 0;
    for (let i = 0; i < dim; i++) {
      const d = codes[i] * inv[c] - centroids[c * dim + i] * invNorm;
      e2 += d * d;
    }
    err[c] = Math.sqrt(e2);
  }
  return { k, packed, pairs, inv, err };
}

/**
 * Assigns the code rows listed in `rows`: `cell[r]` becomes the best centroid (ties to the
 * smaller), `best[r]` and `second[r]` the best and second-best cosines (row direction ×
 * quantised centroid). Four rows × four centroids per kernel call, the rows widened to doubles
 * once per block. Returns how many rows changed cell.
 */
function assignRows(
  codes: Int8Array, scales: Float32Array, rows: Int32Array, dim: number, p: PackedCentroids,
  cell: Int32Array, best: Float64Array, second: Float64Array,
): number {
  const { k, packed, pairs, inv } = p;
  const block = new Float64Array(4 * dim);
  const out = new Float64Array(8);
  const top1 = new Float64Array(4), top2 = new Float64Array(4);
  const topCell = new Int32Array(4);
  let changed = 0;
  for (let b = 0; b < rows.length; b += 4) {
    const count = Math.min(4, rows.length - b);
    block.fill(0);
    for (let row = 0; row < count; row++) {
      const src = rows[b + row] * dim, dst = row * dim;
      for (let j = 0; j < dim; j++) block[dst + j] = codes[src + j];
    }
    top1.fill(-Infinity);
    top2.fill(-Infinity);
    topCell.fill(0);
    for (let q = 0; q < pairs; q += 2) {
      kernel(block, packed, q * dim, dim, out);
      for (let half = 0; half < 2; half++) {
        const c = (q + half) * 2;
        for (let row = 0; row < count; row++) {
          const sum = out[half * 4 + row];
          const hi = Math.round(sum / LANE);
          const lo = sum - hi * LANE;
          for (let lane = 0; lane < 2 && c + lane < k; lane++) {
            const score = (lane ? hi : lo) * inv[c + lane];
            if (score > top1[row]) {
              top2[row] = top1[row];
              top1[row] = score;
              topCell[row] = c + lane;
            } else if (score > top2[row]) {
              top2[row] = score;
            }
          }
        }
      }
    }
    for (let row = 0; row < count; row++) {
      const r = rows[b + row];
      if (cell[r] !== topCell[row]) changed++;
      cell[r] = topCell[row];
      best[r] = top1[row] * scales[r];
      second[r] = (k > 1 ? top2[row] : -1) * scales[r];
    }
  }
  return changed;
}

/** Packed sums of 4 block rows with packed rows p0 and p0+1: out[q·4 + row]. */
function kernel(b: Float64Array, packed: Float64Array, p0: number, dim: number, out: Float64Array): void {
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  const x1 = dim, x2 = 2 * dim, x3 = 3 * dim, p1 = p0 + dim;
  for (let i = 0; i < dim; i++) {
    const u = packed[p0 + i], v = packed[p1 + i];
    let x = b[i];
    a0 += x * u; b0 += x * v;
    x = b[x1 + i];
    a1 += x * u; b1 += x * v;
    x = b[x2 + i];
    a2 += x * u; b2 += x * v;
    x = b[x3 + i];
    a3 += x * u; b3 += x * v;
  }
  out[0] = a0; out[1] = a1; out[2] = a2; out[3] = a3;
  out[4] = b0; out[5] = b1; out[6] = b2; out[7] = b3;
}

/** Cells from an assignment: empty ones dropped and the rest renumbered, ids ascending within a cell. */
function gatherCells(
  ids: Int32Array, codes: Int8Array, scales: Float32Array, dim: number, centroids: Float32Array, assign: Int32Array,
): PartitionCells {
  const k = centroids.length / dim;
  const n = ids.length;
  const counts = new Int32Array(k);
  for (let r = 0; r < n; r++) counts[assign[r]]++;
  const renumber = new Int32Array(k).fill(-1);
  let live = 0;
  for (let c = 0; c < k; c++) if (counts[c] > 0) renumber[c] = live++;
  const start = new Int32Array(k + 1);
  for (let c = 0; c < k; c++) start[c + 1] = start[c] + counts[c];
  // Rows in id order, then stably bucketed by cell: ids ascend within each cell.
  const byId = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => ids[a] - ids[b]);
  const order = new Int32Array(n);
  const fill = start.slice(0, k);
  for (const r of byId) order[fill[assign[r]]++] = r;
  const out = new Float32Array(live * dim);
  const cells: Cell[] = [];
  for (let c = 0; c < k; c++) {
    const id = renumber[c];
    if (id < 0) continue;
    out.set(centroids.subarray(c * dim, (c + 1) * dim), id * dim);
    const m = counts[c];
    const cell: Cell = { id, ids: new Int32Array(m), scales: new Float32Array(m), vectors: new Int8Array(m * dim) };
    for (let j = 0; j < m; j++) {
      const r = order[start[c] + j];
      cell.ids[j] = ids[r];
      cell.scales[j] = scales[r];
      cell.vectors.set(codes.subarray(r * dim, (r + 1) * dim), j * dim);
    }
    cells.push(cell);
  }
  return { dim, centroids: out, cells };
}

/** Bytes a cell holds in memory (and, give or take the SQLite row, on the wire). */
export function cellBytes(cell: Cell): number {
  return cell.ids.byteLength + cell.scales.byteLength + cell.vectors.byteLength;
}

/** Checks a cell's shape: one scale and one dim-row per id, and `expected` vectors when known. */
export function checkCell(cell: Cell, dim: number, expected?: number): void {
  const n = cell.ids.length;
  if (cell.scales.length !== n || cell.vectors.length !== n * dim || (expected !== undefined && n !== expected)) {
    throw new VectorIndexError(
      `vector cell ${cell.id} is damaged: ${n} ids, ${cell.scales.length} scales, ${cell.vectors.length} codes` +
      ` (expected ${expected ?? n} ids with ${dim} codes each)`,
      'BAD_FORMAT',
    );
  }
}

/**
 * Cells probed by default: the smallest count with recall@10 ≥ 0.95 against the exact f32
 * scan on every clustered set measured (synthetic.ts, 384-d, 200 queries, 50k and 200k
 * vectors with topics of 100, 1,000 and 5,000 vectors). Small topics need 1 to 8 cells; the
 * largest topics at 50k (224 cells of ~220, a topic spread over ~22 of them) need 24
 * (recall 0.9735; 16 gave 0.904). At 200k that reads ~4 MB per cold query of 78 MB of cells.
 */
export const DEFAULT_NPROBE = 24;
/** Cache for loaded cells: 32 MB. */
export const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;

export interface PartitionedIndexOptions {
  dim: number;
  /** cells × dim unit centroids; cell c's centroid is row c. */
  centroids: Float32Array;
  /** Vectors per cell, when known (a loaded cell must then hold exactly that many). */
  counts?: Int32Array;
  /** Vectors in all cells (the sum of `counts` when given). */
  size: number;
  /** Loads the named cells (ascending, distinct); must return each of them once, in any order. */
  loadCells: (cellIds: number[]) => Promise<Cell[]>;
  /** Cells scanned per query; default DEFAULT_NPROBE. */
  nprobe?: number;
  /**
   * While the probed cells yield fewer than k hits (a strict `filter`, or k beyond what the
   * cells hold), probing goes on, nprobe cells at a time in centroid order, up to this many
   * cells; default 4 × nprobe.
   */
  maxProbe?: number;
  /** Bound on the bytes of cached cells; default DEFAULT_CACHE_BYTES. */
  cacheBytes?: number;
}

/** The read-only VectorIndex over partitioned cells (see the module comment). */
export class PartitionedVectorIndex implements VectorIndex {
  readonly kind = 'ivf' as const;
  readonly dim: number;
  readonly size: number;
  readonly nprobe: number;
  readonly maxProbe: number;
  readonly cacheBytes: number;
  private centroids: Float32Array;
  private readonly counts: Int32Array | undefined;
  private readonly loadCells: (cellIds: number[]) => Promise<Cell[]>;
  /** Loaded cells, least recently used first (Map keeps insertion order). */
  private readonly cache = new Map<number, Cell>();
  private cachedBytes = 0;
  /** Loads in flight, so concurrent queries never fetch a cell twice. */
  private readonly pending = new Map<number, Promise<Cell>>();
  private disposed = false;
  /** Cells loaded through `loadCells` since construction (for tests and measurements). */
  cellsLoaded = 0;
  /** Calls of `loadCells` since construction. */
  loadCalls = 0;

  constructor(opts: PartitionedIndexOptions) {
    checkDim(opts.dim);
    const { dim, centroids, counts } = opts;
    if (centroids.length % dim !== 0) {
      throw new VectorIndexError(`centroids hold ${centroids.length} floats, not a multiple of ${dim}`, 'DIM_MISMATCH');
    }
    const cells = centroids.length / dim;
    if (counts) {
      if (counts.length !== cells) throw new VectorIndexError(`${counts.length} cell counts for ${cells} centroids`, 'BAD_FORMAT');
      let total = 0;
      for (const c of counts) {
        if (c < 0) throw new VectorIndexError(`negative cell count ${c}`, 'BAD_FORMAT');
        total += c;
      }
      if (total !== opts.size) throw new VectorIndexError(`cells hold ${total} vectors, index says ${opts.size}`, 'BAD_FORMAT');
    }
    if (!Number.isInteger(opts.size) || opts.size < 0) throw new VectorIndexError(`bad size ${opts.size}`, 'BAD_FORMAT');
    this.dim = dim;
    this.size = opts.size;
    this.centroids = centroids;
    this.counts = counts;
    this.loadCells = opts.loadCells;
    this.nprobe = Math.max(1, Math.floor(opts.nprobe ?? DEFAULT_NPROBE));
    this.maxProbe = Math.max(this.nprobe, Math.floor(opts.maxProbe ?? 4 * this.nprobe));
    this.cacheBytes = Math.max(0, opts.cacheBytes ?? DEFAULT_CACHE_BYTES);
  }

  /** Number of cells. */
  get cellCount(): number {
    return this.centroids.length / this.dim;
  }

  async add(_ids: ArrayLike<number>, _vectors: Float32Array): Promise<void> {
    throw new VectorIndexError('a published pack\'s vector index is read-only: it cannot add vectors', 'READ_ONLY');
  }

  async remove(_ids: ArrayLike<number>): Promise<void> {
    throw new VectorIndexError('a published pack\'s vector index is read-only: it cannot remove vectors', 'READ_ONLY');
  }

  async search(query: Float32Array, k: number, filter?: (id: number) => boolean): Promise<VectorHit[]> {
    this.assertOpen();
    checkQuery(query, this.dim);
    const top = new TopK(clampK(k, this.size));
    if (top.k === 0) return [];
    const ranked = this.rankCells(query);
    let accepted = 0;
    for (let from = 0; from < ranked.length;) {
      const limit = from === 0 ? this.nprobe : Math.min(this.maxProbe, from + this.nprobe);
      if (from >= limit) break;
      const batch = ranked.slice(from, limit);
      from = limit;
      for (const cell of await this.cells(batch)) accepted += scanCell(cell, query, this.dim, top, filter);
      if (accepted >= top.k) break;
    }
    return top.result();
  }

  async serialize(): Promise<Uint8Array> {
    throw new VectorIndexError('a published pack\'s vector index is not persisted: it is read from the pack', 'READ_ONLY');
  }

  memoryBytes(): number {
    // Centroids, counts, the cached cells, and ~64 bytes of Map entry per cached cell.
    return this.centroids.byteLength + (this.counts?.byteLength ?? 0) + this.cachedBytes + this.cache.size * 64;
  }

  dispose(): void {
    this.disposed = true;
    this.cache.clear();
    this.pending.clear();
    this.cachedBytes = 0;
    this.centroids = new Float32Array(0);
  }

  /** Non-empty cells by centroid dot product, best first, ties by smaller cell. */
  private rankCells(query: Float32Array): number[] {
    const { dim, counts } = this;
    const cells = this.cellCount;
    const scores = new Float64Array(cells);
    const order: number[] = [];
    for (let c = 0; c < cells; c++) {
      if (counts && counts[c] === 0) continue;
      scores[c] = dot(query, this.centroids, c * dim, dim);
      order.push(c);
    }
    return order.sort((a, b) => scores[b] - scores[a] || a - b);
  }

  /** The named cells, from the cache or one `loadCells` call for those neither cached nor in flight. */
  private async cells(ids: number[]): Promise<Cell[]> {
    const missing = ids.filter((id) => !this.cache.has(id) && !this.pending.has(id)).sort((a, b) => a - b);
    if (missing.length > 0) {
      this.loadCalls++;
      const load = this.loadCells(missing).then((cells) => this.checkLoaded(missing, cells));
      for (const id of missing) {
        const one = load.then((byId) => byId.get(id)!);
        one.catch(() => undefined); // the caller awaiting it sees the error
        this.pending.set(id, one);
      }
      void load.then(
        (byId) => {
          for (const id of missing) this.pending.delete(id);
          if (this.disposed) return;
          this.cellsLoaded += missing.length;
          for (const cell of byId.values()) this.remember(cell);
        },
        () => { for (const id of missing) this.pending.delete(id); },
      );
    }
    // Take every cell or promise now: a load settling during an await below clears `pending`.
    const waits: (Cell | Promise<Cell>)[] = ids.map((id) => {
      const hit = this.cache.get(id);
      if (!hit) return this.pending.get(id)!;
      this.cache.delete(id); // most recently used last
      this.cache.set(id, hit);
      return hit;
    });
    const out = await Promise.all(waits);
    this.assertOpen();
    return out;
  }

  private checkLoaded(wanted: number[], cells: Cell[]): Map<number, Cell> {
    const byId = new Map<number, Cell>();
    for (const cell of cells) {
      if (!wanted.includes(cell.id) || byId.has(cell.id)) {
        throw new VectorIndexError(`loadCells returned cell ${cell.id}, which was not asked for or came twice`, 'BAD_FORMAT');
      }
      checkCell(cell, this.dim, this.counts?.[cell.id]);
      byId.set(cell.id, cell);
    }
    for (const id of wanted) if (!byId.has(id)) throw new VectorIndexError(`vector cell ${id} is missing`, 'BAD_FORMAT');
    return byId;
  }

  private remember(cell: Cell): void {
    const bytes = cellBytes(cell);
    if (bytes > this.cacheBytes || this.cache.has(cell.id)) return;
    for (const [id, old] of this.cache) {
      if (this.cachedBytes + bytes <= this.cacheBytes) break;
      this.cache.delete(id);
      this.cachedBytes -= cellBytes(old);
    }
    this.cache.set(cell.id, cell);
    this.cachedBytes += bytes;
  }

  private assertOpen(): void {
    if (this.disposed) throw new VectorIndexError('partitioned index was disposed', 'DISPOSED');
  }
}

/** Scores one cell into `top`; returns how many of its vectors `filter` accepted. */
function scanCell(cell: Cell, query: Float32Array, dim: number, top: TopK, filter?: (id: number) => boolean): number {
  const { ids, scales, vectors } = cell;
  let accepted = 0;
  for (let j = 0; j < ids.length; j++) {
    const id = ids[j];
    if (filter && !filter(id)) continue;
    accepted++;
    const score = dotI8(query, vectors, j * dim, dim) * scales[j];
    if (score >= top.threshold) top.push(id, score);
  }
  return accepted;
}
