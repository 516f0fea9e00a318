/**
 * The weighted row sum (row-pool.ts): the hand-assembled WebAssembly SIMD module validates and
 * runs in Node, and its sums equal the plain loop's and a float64 reference to float32
 * rounding, for widths with and without a tail past the last 16-column block.
 */
import { describe, expect, it } from 'vitest';
import { createRowPool, rowPoolModule } from './row-pool.ts';

function table(rows: number, dim: number, seed: number): Float32Array {
  let s = seed;
  return Float32Array.from({ length: rows * dim }, () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1);
}

describe('row pool', () => {
  it('is valid WebAssembly with SIMD', () => {
    expect(WebAssembly.validate(rowPoolModule())).toBe(true);
  });

  it('sums two rows by hand', () => {
    const dim = 16;
    const t = new Float32Array(3 * dim);
    for (let d = 0; d < dim; d++) {
      t[dim + d] = d; // row 1: 0..15
      t[2 * dim + d] = 100 - d; // row 2
    }
    const p = createRowPool(t, dim, 4);
    expect(p.path).toBe('wasm-simd');
    p.rows.set([1, 2]);
    p.weights.set([2, 0.5]);
    p.sum(2);
    expect([...p.acc]).toEqual(Array.from({ length: dim }, (_, d) => 2 * d + 0.5 * (100 - d)));
    p.sum(0);
    expect([...p.acc]).toEqual(new Array(dim).fill(0));
  });

  for (const dim of [8, 16, 40, 256]) {
    it(`equals the plain loop and a float64 reference, ${dim} columns`, () => {
      const rows = 300;
      const t = table(rows, dim, dim);
      const simd = createRowPool(t, dim, 512);
      const js = createRowPool(t, dim, 512, { forceJs: true });
      expect(simd.path).toBe(dim >= 16 ? 'wasm-simd' : 'js');
      expect(js.path).toBe('js');
      for (const n of [1, 7, 64, 512]) {
        const ref = new Float64Array(dim);
        for (let k = 0; k < n; k++) {
          const row = (k * 37 + n) % rows;
          const w = Math.fround(1 + (k % 5) * 0.25);
          simd.rows[k] = js.rows[k] = row;
          simd.weights[k] = js.weights[k] = w;
          for (let d = 0; d < dim; d++) ref[d]! += w * t[row * dim + d]!;
        }
        simd.sum(n);
        js.sum(n);
        for (let d = 0; d < dim; d++) {
          expect(js.acc[d]).toBeCloseTo(ref[d]!, 9);
          // float32 adds: error grows with n, within 1e-6 × Σ|terms|.
          expect(Math.abs(simd.acc[d]! - ref[d]!)).toBeLessThan(1e-6 * n * 2);
        }
      }
    });
  }
});
