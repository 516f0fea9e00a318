/**
 * Partitioned vectors through a real wa-sqlite store: written by writePackVectors, read back
 * cell by cell, searched through openPackVectors exactly as the in-memory index answers, and
 * every kind of damage (truncated or missing blob, wrong count, missing table, wrong dim) is
 * a PackError that names the problem, never a wrong answer.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemoryStore } from '../store/open-node.ts';
import type { Store } from '../store/store.ts';
import type { Queryable } from '../store/sqlite.ts';
import { PackError } from '../store/pack.ts';
import { PACK_VECTOR_CELLS, PACK_VECTOR_LISTS, openPackVectors, readCells, readCentroids, writePackVectors } from './pack-vectors.ts';
import { PartitionedVectorIndex, buildPartitions } from './partitioned.ts';
import type { PartitionCells } from './partitioned.ts';
import { clusteredVectors } from './synthetic.ts';

const DIM = 24;
const N = 6000;
const set = clusteredVectors({ count: N, dim: DIM, clusters: 40, queries: 8, seed: 17 });
const ids = Int32Array.from({ length: N }, (_, i) => 7 + i * 2);
const parts: PartitionCells = buildPartitions(ids, set.vectors, DIM, { cells: 50 });
const query = (q: number) => set.queries.slice(q * DIM, (q + 1) * DIM);

/** The real connection, counting the statements that read lists. */
function counting(db: Queryable): { db: Queryable; listReads: () => number } {
  let reads = 0;
  return {
    db: {
      exec: (sql) => db.exec(sql),
      run: (sql, p) => db.run(sql, p),
      get: (sql, p) => db.get(sql, p),
      all: (sql, p) => {
        if (sql.includes(PACK_VECTOR_LISTS)) reads++;
        return db.all(sql, p);
      },
    },
    listReads: () => reads,
  };
}

describe('pack vectors', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openMemoryStore();
    await store.db.transaction((tx) => writePackVectors(tx, parts));
  });
  afterEach(async () => {
    await store.close();
  });

  it('round-trips centroids, counts and cells, the cells table first', async () => {
    const c = await readCentroids(store.db);
    expect(c.dim).toBe(DIM);
    expect(c.centroids).toEqual(parts.centroids);
    expect(Array.from(c.counts)).toEqual(parts.cells.map((cell) => cell.ids.length));
    const want = [3, 0, parts.cells.length - 1];
    const cells = await readCells(store.db, want, DIM, c.counts);
    expect(cells.map((cell) => cell.id)).toEqual(want);
    for (const cell of cells) {
      const orig = parts.cells[cell.id];
      expect(cell.ids).toEqual(orig.ids);
      expect(cell.scales).toEqual(orig.scales);
      expect(cell.vectors).toEqual(orig.vectors);
    }
    const roots = await store.db.all<{ name: string; rootpage: number }>(
      `SELECT name, rootpage FROM sqlite_master WHERE name IN ('${PACK_VECTOR_CELLS}', '${PACK_VECTOR_LISTS}') ORDER BY rootpage`,
    );
    expect(roots.map((r) => r.name)).toEqual([PACK_VECTOR_CELLS, PACK_VECTOR_LISTS]);
  });

  it('asks a pack reader for every probed cell\'s rows at once, before the one SELECT', async () => {
    const asked: Array<[string, number[]]> = [];
    // The store's connection, with the hook a pack reader's connection has (open-pack.ts).
    const db = {
      all: store.db.all.bind(store.db),
      prefetchRows: async (table: string, rowids: readonly number[]) => void asked.push([table, [...rowids]]),
    } as unknown as typeof store.db;
    const cells = await readCells(db, [3, 0], DIM);
    expect(cells.map((c) => c.id)).toEqual([3, 0]);
    expect(asked).toEqual([[PACK_VECTOR_LISTS, [3, 0]]]);
  });

  it('searches like the in-memory index, one SELECT per query for the cells it lacks, none when cached', async () => {
    const { db, listReads } = counting(store.db);
    const index = await openPackVectors(db, DIM, { nprobe: 5 });
    expect(index.size).toBe(N);
    expect(index.cellCount).toBe(parts.cells.length);
    const memory = new PartitionedVectorIndex({
      dim: DIM, centroids: parts.centroids, size: N, nprobe: 5,
      loadCells: async (want) => want.map((id) => parts.cells[id]),
    });
    for (let q = 0; q < 4; q++) {
      const before = listReads();
      expect(await index.search(query(q), 10)).toEqual(await memory.search(query(q), 10));
      expect(listReads() - before).toBeLessThanOrEqual(1);
    }
    expect(listReads()).toBeGreaterThanOrEqual(1);
    const before = listReads();
    await index.search(query(0), 10);
    expect(listReads()).toBe(before);
    expect(index.loadCalls).toBe(before);
  });

  it('a truncated vectors blob is a clear PackError, never a wrong answer', async () => {
    await store.db.run(`UPDATE ${PACK_VECTOR_LISTS} SET vectors = substr(vectors, 1, length(vectors) - ${DIM}) WHERE cell = 2`);
    const { counts } = await readCentroids(store.db);
    await expect(readCells(store.db, [1, 2], DIM, counts)).rejects.toThrow(PackError);
    await expect(readCells(store.db, [2], DIM, counts)).rejects.toThrow(/cell 2: its vectors blob is \d+ bytes, expected \d+/);
    // Through search: every query probing cell 2 fails loudly; none returns a partial answer.
    const index = await openPackVectors(store.db, DIM, { nprobe: parts.cells.length });
    await expect(index.search(query(0), 10)).rejects.toThrow(/cell 2: its vectors blob/);
  });

  it('a truncated ids or scales blob, a wrong count or a missing list is a PackError', async () => {
    const { counts } = await readCentroids(store.db);
    await store.db.run(`UPDATE ${PACK_VECTOR_LISTS} SET ids = substr(ids, 1, length(ids) - 3) WHERE cell = 0`);
    await expect(readCells(store.db, [0], DIM, counts)).rejects.toThrow(/cell 0: its ids blob is \d+ bytes, not a whole number/);
    await store.db.run(`UPDATE ${PACK_VECTOR_LISTS} SET ids = substr(ids, 1, 8) WHERE cell = 0`);
    await expect(readCells(store.db, [0], DIM, counts)).rejects.toThrow(/cell 0: it lists 2 ids, its centroid row says \d+/);
    await store.db.run(`UPDATE ${PACK_VECTOR_LISTS} SET scales = substr(scales, 1, 4) WHERE cell = 1`);
    await expect(readCells(store.db, [1], DIM, counts)).rejects.toThrow(/cell 1: its scales blob is 4 bytes/);
    await store.db.run(`DELETE FROM ${PACK_VECTOR_LISTS} WHERE cell = 3`);
    await expect(readCells(store.db, [3], DIM, counts)).rejects.toThrow(/the list of cell 3 is missing/);
    await expect(readCells(store.db, [counts.length], DIM, counts)).rejects.toThrow(/no vector cell/);
  });

  it('a damaged centroid, a missing table or a dim the manifest does not say is a PackError', async () => {
    await expect(openPackVectors(store.db, DIM + 1)).rejects.toThrow(/have 24 dimensions; its manifest says 25/);
    await store.db.run(`UPDATE ${PACK_VECTOR_CELLS} SET centroid = substr(centroid, 1, 8) WHERE id = 4`);
    await expect(readCentroids(store.db)).rejects.toThrow(/cell 4: its centroid is 8 bytes, expected 96/);
    await store.db.run(`DELETE FROM ${PACK_VECTOR_CELLS} WHERE id = 4`);
    await expect(readCentroids(store.db)).rejects.toThrow(/cell 4 is missing/);
    await store.db.exec(`DROP TABLE ${PACK_VECTOR_CELLS}`);
    await expect(openPackVectors(store.db, DIM)).rejects.toThrow(/no partitioned vectors/);
  });
});
