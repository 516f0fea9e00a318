/**
 * The VectorIndex contract, run against every implementation, plus recall@10 of each
 * non-exact kind against the exact scan on clustered vectors.
 */

import { describe, expect, it } from 'vitest';
import {
  chooseIndexKind, createVectorIndex, loadVectorIndex,
} from './create.ts';
import type { VectorIndex, VectorIndexKind } from './types.ts';
import { HNSW_THRESHOLD } from '../config.ts';
import { clusteredVectors, mulberry32, normalise, recallAt } from './synthetic.ts';
import { VectorIndexError } from './common.ts';

const KINDS: VectorIndexKind[] = ['exact', 'int8', 'hnsw', 'voy'];
const DIM = 16;
/** int8 scores are cosines against dequantised vectors. */
const SCORE_TOLERANCE: Record<VectorIndexKind, number> = { exact: 1e-6, int8: 2e-2, hnsw: 1e-6, voy: 1e-6, ivf: 2e-2 };
const MIN_RECALL = 0.95;

function randomVectors(n: number, dim: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(n * dim);
  for (let i = 0; i < out.length; i++) out[i] = rand() - 0.5;
  for (let r = 0; r < n; r++) normalise(out, r * dim, dim);
  return out;
}

function row(v: Float32Array, r: number, dim = DIM): Float32Array {
  return v.slice(r * dim, (r + 1) * dim);
}

function bruteForce(ids: number[], vectors: Float32Array, q: Float32Array, k: number, dim = DIM) {
  const scored = ids.map((id, r) => {
    let s = 0;
    for (let i = 0; i < dim; i++) s += q[i] * vectors[r * dim + i];
    return { id, score: s };
  });
  return scored.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, k);
}

describe.each(KINDS)('VectorIndex contract: %s', (kind) => {
  const tol = SCORE_TOLERANCE[kind];
  const make = (): Promise<VectorIndex> => createVectorIndex(kind, DIM, { capacity: 4 });
  const ids = Array.from({ length: 60 }, (_, i) => 1000 + i * 3);
  const vectors = randomVectors(ids.length, DIM, 7);

  it('finds a stored vector as its own nearest neighbour, scores are cosines, best first', async () => {
    const index = await make();
    await index.add(ids, vectors);
    expect(index.size).toBe(ids.length);
    expect(index.kind).toBe(kind);
    for (const r of [0, 17, 59]) {
      const q = row(vectors, r);
      const hits = await index.search(q, 5);
      const truth = bruteForce(ids, vectors, q, 5);
      expect(hits[0].id).toBe(ids[r]);
      expect(hits[0].score).toBeCloseTo(1, 1);
      expect(hits.map((h) => h.id)).toEqual(truth.map((h) => h.id));
      hits.forEach((h, i) => expect(Math.abs(h.score - truth[i].score)).toBeLessThanOrEqual(tol));
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
    }
    index.dispose();
  });

  it('removes ids, ignores unknown ids, and re-adding a removed id works', async () => {
    const index = await make();
    await index.add(ids, vectors);
    await index.remove([ids[0], ids[1], 424242]);
    expect(index.size).toBe(ids.length - 2);
    const hits = await index.search(row(vectors, 0), ids.length);
    expect(hits.map((h) => h.id)).not.toContain(ids[0]);
    expect(hits.map((h) => h.id)).not.toContain(ids[1]);
    expect(hits).toHaveLength(ids.length - 2);
    await index.add([ids[0]], row(vectors, 0));
    expect((await index.search(row(vectors, 0), 1))[0].id).toBe(ids[0]);
    expect(index.size).toBe(ids.length - 1);
    index.dispose();
  });

  it('re-adding a live id replaces its vector', async () => {
    const index = await make();
    await index.add(ids, vectors);
    const moved = row(vectors, 40);
    await index.add([ids[3]], moved);
    expect(index.size).toBe(ids.length);
    const hits = await index.search(moved, 2);
    expect(hits.map((h) => h.id).sort()).toEqual([ids[3], ids[40]].sort());
    // The old vector is gone: nothing matches row 3 exactly any more.
    const old = await index.search(row(vectors, 3), 1);
    expect(old[0].score).toBeLessThan(0.95);
    index.dispose();
  });

  it('keeps the last row when one batch repeats an id', async () => {
    const index = await make();
    const batch = new Float32Array(3 * DIM);
    batch.set(row(vectors, 0), 0);
    batch.set(row(vectors, 1), DIM);
    batch.set(row(vectors, 2), 2 * DIM);
    await index.add([5, 6, 5], batch);
    expect(index.size).toBe(2);
    expect((await index.search(row(vectors, 2), 1))[0]).toMatchObject({ id: 5 });
    expect((await index.search(row(vectors, 0), 2)).every((h) => h.score < 0.95)).toBe(true);
    index.dispose();
  });

  it('honours the filter', async () => {
    const index = await make();
    await index.add(ids, vectors);
    const even = (id: number) => id % 2 === 0;
    const q = row(vectors, 1);
    const hits = await index.search(q, 10, even);
    expect(hits.every((h) => even(h.id))).toBe(true);
    const allowed = ids.filter(even);
    expect(hits.map((h) => h.id)).toEqual(
      bruteForce(ids, vectors, q, ids.length).filter((h) => even(h.id)).slice(0, 10).map((h) => h.id),
    );
    expect(hits).toHaveLength(Math.min(10, allowed.length));
    expect(await index.search(q, 10, () => false)).toEqual([]);
    index.dispose();
  });

  it('handles an empty index, k = 0 and k > size', async () => {
    const index = await make();
    expect(index.size).toBe(0);
    expect(await index.search(row(vectors, 0), 10)).toEqual([]);
    await index.add(ids.slice(0, 3), vectors.subarray(0, 3 * DIM));
    expect(await index.search(row(vectors, 0), 0)).toEqual([]);
    expect(await index.search(row(vectors, 0), 100)).toHaveLength(3);
    await index.remove(ids.slice(0, 3));
    expect(await index.search(row(vectors, 0), 10)).toEqual([]);
    const empty = await loadVectorIndex(await index.serialize());
    expect(empty.size).toBe(0);
    index.dispose();
    empty.dispose();
  });

  it('rejects dimension mismatches and bad ids', async () => {
    const index = await make();
    await expect(index.add([1, 2], new Float32Array(DIM))).rejects.toThrow(VectorIndexError);
    await expect(index.add([-1], new Float32Array(DIM))).rejects.toMatchObject({ code: 'BAD_ID' });
    await expect(index.add([1.5], new Float32Array(DIM))).rejects.toMatchObject({ code: 'BAD_ID' });
    await expect(index.search(new Float32Array(DIM + 1), 3)).rejects.toMatchObject({ code: 'DIM_MISMATCH' });
    await expect(createVectorIndex(kind, 0)).rejects.toMatchObject({ code: 'DIM_MISMATCH' });
    index.dispose();
  });

  it('round-trips through serialize → load, after removes, and keeps answering the same', async () => {
    const index = await make();
    await index.add(ids, vectors);
    await index.remove([ids[5], ids[6]]);
    const bytes = await index.serialize();
    const loaded = await loadVectorIndex(bytes);
    expect(loaded.kind).toBe(kind);
    expect(loaded.dim).toBe(DIM);
    expect(loaded.size).toBe(index.size);
    for (const r of [0, 5, 30]) {
      const q = row(vectors, r);
      expect(await loaded.search(q, 8)).toEqual(await index.search(q, 8));
    }
    // Loaded indexes stay writable.
    await loaded.add([ids[5]], row(vectors, 5));
    expect((await loaded.search(row(vectors, 5), 1))[0].id).toBe(ids[5]);
    index.dispose();
    loaded.dispose();
  });

  it('rejects corrupt and foreign bytes', async () => {
    const index = await make();
    await index.add(ids.slice(0, 4), vectors.subarray(0, 4 * DIM));
    const bytes = await index.serialize();
    await expect(loadVectorIndex(bytes.subarray(0, 8))).rejects.toMatchObject({ code: 'BAD_FORMAT' });
    await expect(loadVectorIndex(bytes.subarray(0, bytes.length - 4))).rejects.toMatchObject({ code: 'BAD_FORMAT' });
    const future = bytes.slice();
    future[4] = 99;
    await expect(loadVectorIndex(future)).rejects.toMatchObject({ code: 'BAD_VERSION' });
    const garbage = bytes.slice();
    garbage[0] ^= 0xff;
    await expect(loadVectorIndex(garbage)).rejects.toMatchObject({ code: 'BAD_FORMAT' });
    index.dispose();
  });

  it('grows past its initial capacity and reports memory', async () => {
    const index = await make();
    const many = randomVectors(500, DIM, 11);
    const manyIds = Array.from({ length: 500 }, (_, i) => i);
    for (let b = 0; b < 5; b++) {
      await index.add(manyIds.slice(b * 100, (b + 1) * 100), many.subarray(b * 100 * DIM, (b + 1) * 100 * DIM));
    }
    expect(index.size).toBe(500);
    expect((await index.search(row(many, 321), 1))[0].id).toBe(321);
    expect(index.memoryBytes()).toBeGreaterThan(kind === 'int8' ? 500 * DIM : 500 * DIM * 4);
    index.dispose();
  });
});

describe.each(KINDS.filter((k) => k !== 'exact'))('recall@10 against the exact scan: %s', (kind) => {
  it(`is at least ${MIN_RECALL} on 5k clustered 384-d vectors`, async () => {
    const dim = 384;
    const set = clusteredVectors({ count: 5000, dim, clusters: 50, queries: 100, seed: 42 });
    const ids = Array.from({ length: 5000 }, (_, i) => i * 2 + 1);
    const exact = await createVectorIndex('exact', dim);
    const other = await createVectorIndex(kind, dim);
    await exact.add(ids, set.vectors);
    await other.add(ids, set.vectors);
    let total = 0;
    let filteredTotal = 0;
    // Half the ids: above the hnsw exact-fallback size, so the graph's own filtered search is measured.
    const half = (id: number) => id % 4 === 3;
    for (let q = 0; q < 100; q++) {
      const query = set.queries.subarray(q * dim, (q + 1) * dim);
      total += recallAt(await exact.search(query, 10), await other.search(query, 10));
      filteredTotal += recallAt(await exact.search(query, 10, half), await other.search(query, 10, half));
    }
    expect(total / 100).toBeGreaterThanOrEqual(MIN_RECALL);
    expect(filteredTotal / 100).toBeGreaterThanOrEqual(MIN_RECALL);
    exact.dispose();
    other.dispose();
  }, 120_000);
});

describe('chooseIndexKind', () => {
  it.each([
    [0, 'exact'], [1000, 'exact'], [HNSW_THRESHOLD, 'exact'], [HNSW_THRESHOLD + 1, 'hnsw'], [1_000_000, 'hnsw'],
  ] as const)('%i vectors → %s', (count, kind) => {
    expect(chooseIndexKind(count)).toBe(kind);
  });
});
