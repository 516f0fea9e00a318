/**
 * Vector index benchmark, runnable in Node and in a browser worker (no node:* imports):
 * for each size and kind, build from clustered 384-d vectors, then measure search
 * p50/p95, recall@10 against the exact scan, memory, serialized size and load time.
 *
 * `npm run bench` calls benchVectors(); `npx tsx bench/vectors.ts
 * [--sizes=10000,50000] [--kinds=exact,int8,hnsw,voy] [--queries=100]` prints a table.
 */

import { createVectorIndex, loadVectorIndex } from '../src/core/vector/create.ts';
import type { VectorHit, VectorIndexKind } from '../src/core/vector/types.ts';
import { clusteredVectors, recallAt } from '../src/core/vector/synthetic.ts';
import { EMBED_DIM } from '../src/core/config.ts';

const BUILD_BATCH = 1000;
const DEFAULT_QUERIES = 100;
const DEFAULT_K = 10;
const CLUSTERS_PER_10K = 100;
/** voy holds every vector as a JS number[] (GBs at 50k): skip it above this size unless asked. */
const VOY_MAX_DEFAULT = 10_000;

export interface BenchVectorsOptions {
  sizes?: number[];
  kinds?: VectorIndexKind[];
  dim?: number;
  queries?: number;
  k?: number;
  seed?: number;
  /** Include voy above VOY_MAX_DEFAULT vectors. */
  voyLarge?: boolean;
  onRow?: (row: BenchVectorsRow) => void;
}

export interface BenchVectorsRow {
  kind: VectorIndexKind;
  size: number;
  dim: number;
  buildMs: number;
  searchP50Ms: number;
  searchP95Ms: number;
  /** Mean recall@k against the exact scan over the same vectors. */
  recall: number;
  memoryBytes: number;
  serializedBytes: number;
  loadMs: number;
}

export async function benchVectors(opts: BenchVectorsOptions = {}): Promise<BenchVectorsRow[]> {
  const dim = opts.dim ?? EMBED_DIM;
  const k = opts.k ?? DEFAULT_K;
  const kinds = opts.kinds ?? ['exact', 'int8', 'hnsw', 'voy'];
  const rows: BenchVectorsRow[] = [];
  for (const size of opts.sizes ?? [10_000, 50_000]) {
    const set = clusteredVectors({
      count: size, dim, clusters: Math.max(10, Math.round((size / 10_000) * CLUSTERS_PER_10K)),
      queries: opts.queries ?? DEFAULT_QUERIES, seed: opts.seed ?? 42,
    });
    const ids = Uint32Array.from({ length: size }, (_, i) => i);
    const nq = set.queries.length / dim;
    const query = (q: number) => set.queries.subarray(q * dim, (q + 1) * dim);

    const truthIndex = await createVectorIndex('exact', dim, { capacity: size });
    await truthIndex.add(ids, set.vectors);
    const truth: VectorHit[][] = [];
    for (let q = 0; q < nq; q++) truth.push(await truthIndex.search(query(q), k));
    truthIndex.dispose();

    for (const kind of kinds) {
      if (kind === 'voy' && size > VOY_MAX_DEFAULT && !opts.voyLarge) continue;
      const index = await createVectorIndex(kind, dim, { capacity: size });
      let t = performance.now();
      for (let b = 0; b < size; b += BUILD_BATCH) {
        const end = Math.min(size, b + BUILD_BATCH);
        await index.add(ids.subarray(b, end), set.vectors.subarray(b * dim, end * dim));
      }
      const buildMs = performance.now() - t;
      const times: number[] = [];
      let recall = 0;
      for (let q = 0; q < nq; q++) {
        t = performance.now();
        const got = await index.search(query(q), k);
        times.push(performance.now() - t);
        recall += recallAt(truth[q], got);
      }
      const bytes = await index.serialize();
      const memoryBytes = index.memoryBytes();
      index.dispose();
      t = performance.now();
      const loaded = await loadVectorIndex(bytes);
      const loadMs = performance.now() - t;
      loaded.dispose();
      times.sort((a, b) => a - b);
      const row: BenchVectorsRow = {
        kind, size, dim, buildMs, recall: recall / nq, memoryBytes, serializedBytes: bytes.byteLength, loadMs,
        searchP50Ms: percentile(times, 0.5), searchP95Ms: percentile(times, 0.95),
      };
      rows.push(row);
      opts.onRow?.(row);
    }
  }
  return rows;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

export function formatVectorsRow(r: BenchVectorsRow): string {
  const mb = (b: number) => (b / 1e6).toFixed(1).padStart(7);
  return [
    r.kind.padEnd(6), String(r.size).padStart(7), (r.buildMs / 1000).toFixed(1).padStart(7),
    r.searchP50Ms.toFixed(2).padStart(7), r.searchP95Ms.toFixed(2).padStart(7), r.recall.toFixed(3).padStart(6),
    mb(r.memoryBytes), mb(r.serializedBytes), (r.loadMs / 1000).toFixed(2).padStart(7),
  ].join(' ');
}

const HEADER = 'kind      size build_s  p50_ms  p95_ms recall  mem_MB  ser_MB  load_s';

async function main(argv: string[]): Promise<void> {
  const arg = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const sizes = arg('sizes')?.split(',').map(Number);
  const kinds = arg('kinds')?.split(',') as VectorIndexKind[] | undefined;
  const queries = arg('queries') ? Number(arg('queries')) : undefined;
  console.log(HEADER);
  await benchVectors({ sizes, kinds, queries, voyLarge: argv.includes('--voy-large'), onRow: (r) => console.log(formatVectorsRow(r)) });
}

const proc = (globalThis as { process?: { argv: string[] } }).process;
if (proc?.argv[1] && /bench-vectors\.ts$/.test(proc.argv[1])) {
  await main(proc.argv.slice(2));
}
