/**
 * The partitioned (IVF) layout of a published pack: buildPartitions is deterministic and keeps
 * its invariants, and PartitionedVectorIndex answers like the int8 scan over the cells it
 * probes, honours filters, breaks ties by id, reads nothing for a repeated query, and is
 * read-only. Real code throughout; loadCells serves the built cells from memory and counts.
 */

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NPROBE, PartitionedVectorIndex, SINGLE_CELL_MAX, buildPartitions, cellBytes, defaultCellCount,
} from './partitioned.ts';
import type { Cell, PartitionCells, PartitionedIndexOptions } from './partitioned.ts';
import { ExactIndex } from './exact.ts';
import { Int8Index } from './int8.ts';
import { VectorIndexError } from './common.ts';
import { clusteredVectors, recallAt } from './synthetic.ts';

function idsFor(n: number, first = 100, step = 3): Int32Array {
  return Int32Array.from({ length: n }, (_, i) => first + i * step);
}

/** An index over `parts` whose loadCells serves them from memory and records each call. */
function serve(parts: PartitionCells, opts: Partial<PartitionedIndexOptions> = {}) {
  const calls: number[][] = [];
  const byId = new Map(parts.cells.map((c) => [c.id, c]));
  const index = new PartitionedVectorIndex({
    dim: parts.dim,
    centroids: parts.centroids,
    counts: Int32Array.from(parts.cells, (c) => c.ids.length),
    size: parts.cells.reduce((s, c) => s + c.ids.length, 0),
    loadCells: async (ids) => {
      calls.push([...ids]);
      return ids.map((id) => byId.get(id)!);
    },
    ...opts,
  });
  return { index, calls };
}

function row(v: Float32Array, r: number, dim: number): Float32Array {
  return v.slice(r * dim, (r + 1) * dim);
}

describe('buildPartitions', () => {
  const dim = 32;
  const n = 6000;
  const set = clusteredVectors({ count: n, dim, clusters: 60, queries: 20, seed: 5 });
  const ids = idsFor(n);

  it('is deterministic: same input and seed, the same cells byte for byte', () => {
    const a = buildPartitions(ids, set.vectors, dim, { seed: 3 });
    const b = buildPartitions(ids, set.vectors, dim, { seed: 3 });
    expect(a.cells.length).toBe(defaultCellCount(n));
    expect(b.centroids).toEqual(a.centroids);
    expect(b.cells).toEqual(a.cells);
  });

  it('keeps its invariants: every id once, ids ascending per cell, cells 0..C-1 non-empty, unit centroids', () => {
    // Shuffled input order must not matter to the invariants.
    const order = Int32Array.from({ length: n }, (_, i) => (i * 7919) % n);
    const shuffledIds = Int32Array.from(order, (r) => ids[r]);
    const shuffled = new Float32Array(n * dim);
    order.forEach((r, i) => shuffled.set(row(set.vectors, r, dim), i * dim));
    const parts = buildPartitions(shuffledIds, shuffled, dim, { cells: 40, seed: 9 });
    expect(parts.cells.length).toBeGreaterThan(30);
    expect(parts.cells.length).toBeLessThanOrEqual(40);
    const seen = new Set<number>();
    parts.cells.forEach((cell, c) => {
      expect(cell.id).toBe(c);
      expect(cell.ids.length).toBeGreaterThan(0);
      expect(cell.scales.length).toBe(cell.ids.length);
      expect(cell.vectors.length).toBe(cell.ids.length * dim);
      for (let j = 0; j < cell.ids.length; j++) {
        if (j > 0) expect(cell.ids[j]).toBeGreaterThan(cell.ids[j - 1]);
        seen.add(cell.ids[j]);
      }
      let norm = 0;
      for (let i = 0; i < dim; i++) norm += parts.centroids[c * dim + i] ** 2;
      expect(norm).toBeCloseTo(1, 5);
    });
    expect(seen.size).toBe(n);
    expect(parts.centroids.length).toBe(parts.cells.length * dim);
  });

  it('probing every cell gives exactly the int8 scan: same quantisation, same scores', async () => {
    const parts = buildPartitions(ids, set.vectors, dim);
    const { index } = serve(parts, { nprobe: parts.cells.length });
    const int8 = new Int8Index(dim, n);
    await int8.add(ids, set.vectors);
    for (let q = 0; q < 5; q++) {
      const query = row(set.queries, q, dim);
      expect(await index.search(query, 10)).toEqual(await int8.search(query, 10));
    }
  });

  it('puts small sets in one cell, and sizes cells by √n above that', () => {
    expect(defaultCellCount(0)).toBe(1);
    expect(defaultCellCount(SINGLE_CELL_MAX)).toBe(1);
    expect(defaultCellCount(SINGLE_CELL_MAX + 1)).toBe(64);
    expect(defaultCellCount(200_000)).toBe(447);
    expect(defaultCellCount(10_000_000)).toBe(1024);
    const small = clusteredVectors({ count: 500, dim, clusters: 5, queries: 1, seed: 1 });
    const parts = buildPartitions(idsFor(500), small.vectors, dim);
    expect(parts.cells).toHaveLength(1);
    expect(parts.cells[0].ids).toEqual(idsFor(500));
    const empty = buildPartitions(new Int32Array(0), new Float32Array(0), dim);
    expect(empty.cells).toEqual([]);
  });

  it('rejects duplicate or negative ids and a wrong vector length', () => {
    const v = clusteredVectors({ count: 3, dim, clusters: 1, queries: 1, seed: 1 }).vectors;
    expect(() => buildPartitions(Int32Array.of(1, 2, 1), v, dim)).toThrow(/duplicate vector id 1/);
    expect(() => buildPartitions(Int32Array.of(1, -2, 3), v, dim)).toThrow(/bad vector id -2/);
    expect(() => buildPartitions(Int32Array.of(1, 2), v, dim)).toThrow(VectorIndexError);
  });
});

describe('PartitionedVectorIndex', () => {
  it(`reaches recall@10 ≥ 0.95 against the exact scan at the default nprobe (${DEFAULT_NPROBE})`, async () => {
    // 20k 384-d vectors in 20 topics of ~1,000: a topic spans several of the 141 cells, so a
    // query must probe more than its nearest cell (one cell suffices with small topics).
    const dim = 384, n = 20_000;
    const set = clusteredVectors({ count: n, dim, clusters: 20, queries: 60, seed: 11 });
    const ids = idsFor(n, 0, 1);
    const parts = buildPartitions(ids, set.vectors, dim);
    const exact = new ExactIndex(dim, n);
    await exact.add(ids, set.vectors);
    const { index, calls } = serve(parts, { cacheBytes: 0 });
    let recall = 0;
    const nq = set.queries.length / dim;
    for (let q = 0; q < nq; q++) {
      const query = row(set.queries, q, dim);
      recall += recallAt(await exact.search(query, 10), await index.search(query, 10));
    }
    expect(recall / nq).toBeGreaterThanOrEqual(0.95);
    // The set needs probing: the nearest cell alone misses most neighbours.
    const { index: one } = serve(parts, { nprobe: 1 });
    let recallOne = 0;
    for (let q = 0; q < nq; q++) {
      const query = row(set.queries, q, dim);
      recallOne += recallAt(await exact.search(query, 10), await one.search(query, 10));
    }
    expect(recallOne / nq).toBeLessThan(0.6);
    // Each query (no cache here) read its nprobe cells in one call: a small share of the vectors.
    expect(calls).toHaveLength(nq);
    expect(calls.every((c) => c.length === DEFAULT_NPROBE)).toBe(true);
    const counts = new Map(parts.cells.map((c) => [c.id, c.ids.length]));
    const read = calls.flat().reduce((sum, c) => sum + counts.get(c)!, 0) / nq;
    expect(read / n).toBeLessThan(0.25);
  }, 60_000);

  const dim = 16;
  const n = 5000;
  const set = clusteredVectors({ count: n, dim, clusters: 50, queries: 10, seed: 21 });
  const ids = idsFor(n);
  const parts = buildPartitions(ids, set.vectors, dim, { cells: 30 });

  it('honours filter, probing further cells while too few hits pass it', async () => {
    const { index } = serve(parts, { nprobe: 2 });
    const query = row(set.queries, 0, dim);
    const even = (id: number) => id % 2 === 0;
    const hits = await index.search(query, 10, even);
    expect(hits).toHaveLength(10);
    expect(hits.every((h) => even(h.id))).toBe(true);
    // A filter matching only a few ids far from the query: they are found while within maxProbe.
    const few = new Set([ids[0], ids[1], ids[2]]);
    const { index: all } = serve(parts, { nprobe: 2, maxProbe: parts.cells.length });
    const found = await all.search(query, 10, (id) => few.has(id));
    expect(found.map((h) => h.id).sort((a, b) => a - b)).toEqual([...few].sort((a, b) => a - b));
    expect(await index.search(query, 10, () => false)).toEqual([]);
  });

  it('returns best first with ties broken by the smaller id, across cells', async () => {
    const d = 4;
    const v = Int8Array.of(127, 0, 0, 0);
    const cell = (id: number, cellIds: number[]): Cell => ({
      id,
      ids: Int32Array.from(cellIds),
      scales: new Float32Array(cellIds.length).fill(1 / 127),
      vectors: Int8Array.from({ length: cellIds.length * d }, (_, i) => v[i % d]),
    });
    const cells = [cell(0, [9, 40]), cell(1, [3, 12, 50])];
    const index = new PartitionedVectorIndex({
      dim: d, centroids: Float32Array.of(1, 0, 0, 0, 0.9, 0.1, 0, 0), size: 5, nprobe: 2,
      loadCells: async (want) => want.map((c) => cells[c]),
    });
    const hits = await index.search(Float32Array.of(1, 0, 0, 0), 4);
    expect(hits.map((h) => h.id)).toEqual([3, 9, 12, 40]);
    expect(hits.every((h) => Math.abs(h.score - 1) < 1e-6)).toBe(true);
  });

  it('keeps loaded cells in a byte-bounded LRU: a repeated query loads nothing', async () => {
    const { index, calls } = serve(parts, { nprobe: 3 });
    const q0 = row(set.queries, 0, dim), q1 = row(set.queries, 1, dim);
    const first = await index.search(q0, 10);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(3);
    expect(await index.search(q0, 10)).toEqual(first);
    expect(calls).toHaveLength(1);
    expect(index.memoryBytes()).toBeGreaterThan(parts.centroids.byteLength);

    // Concurrent queries share one load.
    const { index: shared, calls: sharedCalls } = serve(parts, { nprobe: 3 });
    const [a, b] = await Promise.all([shared.search(q1, 5), shared.search(q1, 5)]);
    expect(a).toEqual(b);
    expect(sharedCalls).toHaveLength(1);

    // A cache that holds one cell evicts: the first query's cells are loaded again.
    const biggest = Math.max(...parts.cells.map(cellBytes));
    const { index: small, calls: smallCalls } = serve(parts, { nprobe: 3, cacheBytes: biggest });
    await small.search(q0, 10);
    await small.search(q1, 10);
    const before = smallCalls.length;
    await small.search(q0, 10);
    expect(smallCalls.length).toBe(before + 1);
    // Centroids, counts, and at most the bound's worth of cells (plus a Map entry).
    expect(small.memoryBytes()).toBeLessThanOrEqual(parts.centroids.byteLength + parts.cells.length * 4 + biggest + 64);
  });

  it('is read-only: add, remove and serialize reject with READ_ONLY', async () => {
    const { index } = serve(parts);
    expect(index.kind).toBe('ivf');
    expect(index.size).toBe(n);
    await expect(index.add([1], new Float32Array(dim))).rejects.toMatchObject({ code: 'READ_ONLY' });
    await expect(index.remove([ids[0]])).rejects.toMatchObject({ code: 'READ_ONLY' });
    await expect(index.serialize()).rejects.toMatchObject({ code: 'READ_ONLY', message: /read from the pack/ });
    index.dispose();
    await expect(index.search(row(set.queries, 0, dim), 3)).rejects.toMatchObject({ code: 'DISPOSED' });
  });

  it('rejects a malformed or missing cell with a clear error and does not cache it', async () => {
    let broken = true;
    const byId = new Map(parts.cells.map((c) => [c.id, c]));
    const index = new PartitionedVectorIndex({
      dim, centroids: parts.centroids, counts: Int32Array.from(parts.cells, (c) => c.ids.length), size: n, nprobe: 1,
      loadCells: async (want) => want.map((id) => {
        const c = byId.get(id)!;
        return broken ? { ...c, vectors: c.vectors.subarray(0, c.vectors.length - 1) } : c;
      }),
    });
    const query = row(set.queries, 0, dim);
    await expect(index.search(query, 5)).rejects.toThrow(/vector cell \d+ is damaged/);
    broken = false;
    expect(await index.search(query, 5)).toHaveLength(5);

    const missing = new PartitionedVectorIndex({
      dim, centroids: parts.centroids, size: n, nprobe: 2, loadCells: async () => [],
    });
    await expect(missing.search(query, 5)).rejects.toThrow(/vector cell \d+ is missing/);
    expect(() => new PartitionedVectorIndex({
      dim, centroids: parts.centroids, counts: new Int32Array(parts.cells.length), size: n, loadCells: async () => [],
    })).toThrow(/cells hold 0 vectors/);
  });

  it('checks the query and k like every index', async () => {
    const { index } = serve(parts);
    await expect(index.search(new Float32Array(dim + 1), 3)).rejects.toMatchObject({ code: 'DIM_MISMATCH' });
    expect(await index.search(row(set.queries, 0, dim), 0)).toEqual([]);
  });
});
