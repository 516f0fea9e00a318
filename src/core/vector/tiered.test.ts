import { describe, it, expect } from 'vitest';
import { TieredIndex } from './tiered.ts';
import { clusteredVectors } from './synthetic.ts';
import { createVectorIndex } from './create.ts';

const DIM = 32;

describe('TieredIndex', () => {
  it('answers exactly at once, keeps writes made during the build, then switches to the graph', async () => {
    const set = clusteredVectors({ count: 1200, dim: DIM, clusters: 12, queries: 20, seed: 7 });
    const ids = Array.from({ length: 1000 }, (_, i) => i);
    const tiered = await TieredIndex.create(DIM, ids, set.vectors.subarray(0, 1000 * DIM));
    expect(tiered.kind).toBe('exact');
    expect(tiered.building).toBe(true);

    // Searchable before the graph exists, and exact.
    const q = set.queries.subarray(0, DIM);
    const exact = await createVectorIndex('exact', DIM);
    await exact.add(ids, set.vectors.subarray(0, 1000 * DIM));
    expect((await tiered.search(q, 10)).map((h) => h.id)).toEqual((await exact.search(q, 10)).map((h) => h.id));

    // Writes while building: 200 new vectors, 50 removed.
    const newIds = Array.from({ length: 200 }, (_, i) => 1000 + i);
    await tiered.add(newIds, set.vectors.subarray(1000 * DIM, 1200 * DIM));
    const removed = Array.from({ length: 50 }, (_, i) => i * 3);
    await tiered.remove(removed);

    await tiered.ready;
    expect(tiered.building).toBe(false);
    expect(tiered.kind).toBe('hnsw');
    expect(tiered.size).toBe(1150);
    const gone = new Set(removed);
    for (let i = 0; i < 1200; i += 97) {
      const row = set.vectors.subarray(i * DIM, (i + 1) * DIM);
      const hits = await tiered.search(row, 5);
      if (gone.has(i)) expect(hits.map((h) => h.id)).not.toContain(i);
      else expect(hits[0].id).toBe(i);
    }
    tiered.dispose();
    exact.dispose();
  }, 120_000);
});
