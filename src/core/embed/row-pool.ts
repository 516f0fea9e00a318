/**
 * The static embedder's inner loop: a weighted sum of table rows, Σₖ wₖ × table[rowₖ], with
 * WebAssembly SIMD (four f32 lanes, sixteen columns a block held in registers over every row)
 * where the runtime has it — Node and every current browser — and a plain loop otherwise.
 * Pooling the kernel subset's 267k chunks was ~16 s of CPU as a JS loop of float64 adds; the
 * SIMD loop does the same sums ~4× faster (bench numbers in docs/performance.md).
 *
 * The module is written out here byte by byte (it is 200 bytes; no toolchain in the build):
 *
 *   (func (export "sum") (param $rows i32) (param $ws i32) (param $n i32) (param $bytes i32) (param $acc i32)
 *     ;; for each block of 16 columns (64 bytes) below $bytes: a0..a3 = Σₖ load(rows[k] + d) × splat(ws[k])
 *     ;; then store a0..a3 at $acc + d. $rows holds byte offsets of rows, $n ≥ 1.
 *   (memory (export "mem") 1)
 *
 * Invariants:
 * - `sum(n)` reads `rows[0..n)` (row indices) and `weights[0..n)`, and leaves the sums in
 *   `acc[0..dim)`. The SIMD path adds in float32 (like model2vec's numpy mean over a float32
 *   table), the plain path in float64; they agree to float32 rounding (row-pool.test.ts).
 * - The table lives in the module's memory when SIMD runs (copied once at load; `table` is a
 *   view of it), so nothing else holds a second copy.
 */

/** Columns per SIMD block: four v128 accumulators of four f32 each. */
const BLOCK = 16;

export interface RowPool {
  /** 'wasm-simd' or 'js': which loop sums (the bench and tests name it). */
  readonly path: 'wasm-simd' | 'js';
  readonly dim: number;
  /** The table, rows × dim, row-major (in the module's memory on the SIMD path). */
  readonly table: Float32Array;
  /** Row index of each term of the next sum. */
  readonly rows: Int32Array;
  /** Weight of each term. */
  readonly weights: Float32Array;
  /** The last sum. */
  readonly acc: Float64Array;
  /** acc = Σ_{k<n} weights[k] × table[rows[k]]; n ≤ rows.length. */
  sum(n: number): void;
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function name(s: string): number[] {
  return [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
}

/** The module's bytes (see the header for its text). */
export function rowPoolModule(): Uint8Array<ArrayBuffer> {
  const I32 = 0x7f;
  const V128 = 0x7b;
  const get = (i: number) => [0x20, i];
  const set = (i: number) => [0x21, i];
  const tee = (i: number) => [0x22, i];
  const i32c = (v: number) => [0x41, ...sleb(v)];
  const add = 0x6a;
  const shl = 0x74;
  const ltU = 0x49;
  const simd = (op: number) => [0xfd, ...uleb(op)];
  const memarg = (offset: number) => [2, ...uleb(offset)]; // align 2^2: the table's floats
  const v128load = (offset: number) => [...simd(0x00), ...memarg(offset)];
  const v128store = (offset: number) => [...simd(0x0b), ...memarg(offset)];
  const f32x4splat = simd(0x13);
  const f32x4add = simd(0xe4);
  const f32x4mul = simd(0xe6);
  const zero = [...simd(0x0c), ...new Array<number>(16).fill(0)];
  // params: 0 rows, 1 ws, 2 n, 3 bytes, 4 acc; locals: 5 d, 6 k, 7 r (i32); 8 w, 9..12 a0..a3 (v128)
  const [ROWS, WS, N, BYTES, ACC, D, K, R, W] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const A = [9, 10, 11, 12];
  const body: number[] = [
    0x02, 0x03, I32, 0x05, V128, // locals: 3 × i32, 5 × v128
    0x03, 0x40, // loop $d
    ...zero, ...tee(A[0]!), ...tee(A[1]!), ...tee(A[2]!), ...set(A[3]!),
    ...i32c(0), ...set(K),
    0x03, 0x40, // loop $k
    ...get(ROWS), ...get(K), ...i32c(2), shl, add, 0x28, 2, 0, // i32.load rows[k]
    ...get(D), add, ...set(R),
    ...get(WS), ...get(K), ...i32c(2), shl, add, 0x2a, 2, 0, // f32.load ws[k]
    ...f32x4splat, ...set(W),
    ...A.flatMap((a, j) => [...get(a), ...get(R), ...v128load(16 * j), ...get(W), ...f32x4mul, ...f32x4add, ...set(a)]),
    ...get(K), ...i32c(1), add, ...tee(K), ...get(N), ltU, 0x0d, 0, // br_if $k
    0x0b, // end $k
    ...A.flatMap((a, j) => [...get(ACC), ...get(D), add, ...get(a), ...v128store(16 * j)]),
    ...get(D), ...i32c(BLOCK * 4), add, ...tee(D), ...get(BYTES), ltU, 0x0d, 0, // br_if $d
    0x0b, // end $d
    0x0b, // end func
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, ...name('sum'), 0x00, 0, ...name('mem'), 0x02, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or null where WebAssembly SIMD is not available. */
function simdModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = rowPoolModule();
    compiled = typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

const PAGE = 65536;

/**
 * A pool over `table` (rows × dim) for sums of up to `maxTerms` rows. `forceJs`: the plain
 * loop even where SIMD runs (tests compare the two).
 */
export function createRowPool(table: Float32Array, dim: number, maxTerms: number, opts: { forceJs?: boolean } = {}): RowPool {
  const mod = opts.forceJs ? null : simdModule();
  const blockCols = dim - (dim % BLOCK);
  if (mod && blockCols > 0) {
    const tableBytes = table.length * 4;
    const rowsAt = tableBytes;
    const wsAt = rowsAt + maxTerms * 4;
    const accAt = (wsAt + maxTerms * 4 + 15) & ~15;
    const end = accAt + dim * 4;
    const inst = new WebAssembly.Instance(mod, {});
    const mem = inst.exports.mem as WebAssembly.Memory;
    const pages = Math.ceil(end / PAGE);
    if (pages > 1) mem.grow(pages - 1);
    // Views after the one grow: they stay attached.
    const t = new Float32Array(mem.buffer, 0, table.length);
    t.set(table);
    const offsets = new Int32Array(mem.buffer, rowsAt, maxTerms);
    const weights = new Float32Array(mem.buffer, wsAt, maxTerms);
    const sums = new Float32Array(mem.buffer, accAt, dim);
    const rows = new Int32Array(maxTerms);
    const acc = new Float64Array(dim);
    const wasmSum = inst.exports.sum as (rows: number, ws: number, n: number, bytes: number, acc: number) => void;
    const rowBytes = dim * 4;
    return {
      path: 'wasm-simd', dim, table: t, rows, weights, acc,
      sum(n: number): void {
        if (n <= 0) {
          acc.fill(0);
          return;
        }
        for (let k = 0; k < n; k++) offsets[k] = rows[k]! * rowBytes;
        wasmSum(rowsAt, wsAt, n, blockCols * 4, accAt);
        for (let d = 0; d < blockCols; d++) acc[d] = sums[d]!;
        for (let d = blockCols; d < dim; d++) {
          let s = 0;
          for (let k = 0; k < n; k++) s += weights[k]! * t[rows[k]! * dim + d]!;
          acc[d] = s;
        }
      },
    };
  }
  const rows = new Int32Array(maxTerms);
  const weights = new Float32Array(maxTerms);
  const acc = new Float64Array(dim);
  return {
    path: 'js', dim, table, rows, weights, acc,
    sum(n: number): void {
      acc.fill(0);
      const unrolled = dim & ~7;
      for (let k = 0; k < n; k++) {
        const w = weights[k]!;
        const base = rows[k]! * dim;
        // Unrolled by 8 (the usual dims are multiples of 8): ~1.5-2x the plain loop in V8.
        for (let d = 0; d < unrolled; d += 8) {
          const b = base + d;
          acc[d] += w * table[b]!;
          acc[d + 1] += w * table[b + 1]!;
          acc[d + 2] += w * table[b + 2]!;
          acc[d + 3] += w * table[b + 3]!;
          acc[d + 4] += w * table[b + 4]!;
          acc[d + 5] += w * table[b + 5]!;
          acc[d + 6] += w * table[b + 6]!;
          acc[d + 7] += w * table[b + 7]!;
        }
        for (let d = unrolled; d < dim; d++) acc[d] += w * table[base + d]!;
      }
    },
  };
}
