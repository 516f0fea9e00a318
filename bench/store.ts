/**
 * Measurement helpers for the lexical pipeline and the BM25 leg, callable from Node (the
 * bench harness, ad-hoc tsx scripts) and from a browser worker: no node:* imports; the caller
 * passes the clock (`process.cpuUsage`-based CPU ms in Node, performance.now elsewhere).
 *
 * `benchIndexStages` runs the stages ONE AFTER ANOTHER over a whole folder (read → hash →
 * chunk → prepare → store), so each stage's cost is measured alone — on a shared, loaded
 * machine CPU time per stage is the stable number; wall time of a pipelined run is not.
 * `benchBm25Queries` times Store.searchBm25 through processQuery, as the search entry does.
 */
import { searchBm25 } from '../src/core/search/bm25.ts';
import type { FileSource } from '../src/core/source/types.ts';
import type { FileRecord } from '../src/core/types.ts';
import { walk } from '../src/core/walk/walker.ts';
import { sha256Hex } from '../src/core/hash/hash.ts';
import { decodeText, prepareChunks, type FileChunker, type StoredChunkInput } from '../src/core/index/indexer.ts';
import { processQuery } from '../src/core/search/query.ts';
import { LEG_CANDIDATES, WRITE_BATCH_ROWS } from '../src/core/config.ts';
import type { Store } from '../src/core/store/store.ts';

export type Clock = () => number;

export interface StageCost {
  ms: number;
  /** Source megabytes per second of this stage alone. */
  mbPerS: number;
}

export interface IndexStagesResult {
  files: number;
  bytes: number;
  chunks: number;
  stages: Record<'walk' | 'read' | 'hash' | 'chunk' | 'prepare' | 'store', StageCost>;
  /** Store stage in chunk rows per second. */
  storeRowsPerS: number;
  dbBytes: number;
}

export async function benchIndexStages(deps: { source: FileSource; chunker: FileChunker; store: Store; clock: Clock }): Promise<IndexStagesResult> {
  const { source, chunker, store, clock } = deps;
  const time = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const t = clock();
    const r = await fn();
    return [r, clock() - t];
  };
  const [walked, walkMs] = await time(async () => {
    const out: Array<{ path: string; size: number; mtime: number }> = [];
    for await (const f of walk(source)) out.push(f);
    return out;
  });
  const [datas, readMs] = await time(() => Promise.all(walked.map((f) => source.readFile(f.path))));
  const bytes = datas.reduce((n, d) => n + d.byteLength, 0);
  const [hashes, hashMs] = await time(() => Promise.all(datas.map((d) => sha256Hex(d))));
  const [chunked, chunkMs] = await time(async () => {
    const out = [];
    for (let i = 0; i < walked.length; i++) out.push(await chunker.chunkFile(walked[i]!.path, decodeText(datas[i]!)));
    return out;
  });
  const [prepared, prepareMs] = await time(async () => chunked.map((r) => prepareChunks(r.chunks)));
  const items = walked.map((f, i) => ({
    file: { path: f.path, hash: hashes[i]!, size: f.size, mtime: f.mtime, language: chunked[i]!.language } satisfies FileRecord,
    chunks: prepared[i]!,
  }));
  const chunks = prepared.reduce((n, c) => n + c.length, 0);
  const [, storeMs] = await time(async () => {
    let batch: Array<{ file: FileRecord; chunks: StoredChunkInput[] }> = [];
    let rows = 0;
    for (const it of items) {
      batch.push(it);
      rows += it.chunks.length;
      if (rows >= WRITE_BATCH_ROWS) {
        await store.writeFiles(batch);
        batch = [];
        rows = 0;
      }
    }
    await store.writeFiles(batch);
  });
  const mb = bytes / 1e6;
  const cost = (ms: number): StageCost => ({ ms: Math.round(ms), mbPerS: ms > 0 ? Math.round((mb / ms) * 1000 * 100) / 100 : Infinity });
  return {
    files: walked.length,
    bytes,
    chunks,
    stages: { walk: cost(walkMs), read: cost(readMs), hash: cost(hashMs), chunk: cost(chunkMs), prepare: cost(prepareMs), store: cost(storeMs) },
    storeRowsPerS: Math.round((chunks / storeMs) * 1000),
    dbBytes: (await store.stats()).dbBytes,
  };
}

export interface QueryLatency {
  queries: number;
  runs: number;
  p50: number;
  p95: number;
  max: number;
  /** Per query: median ms and hit count. */
  perQuery: Array<{ query: string; ms: number; hits: number }>;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** p50/p95 over every (query, run) of Store.searchBm25 with LEG_CANDIDATES hits, after one warm-up pass. */
export async function benchBm25Queries(store: Store, queries: string[], opts: { runs?: number; limit?: number; clock: Clock }): Promise<QueryLatency> {
  const runs = opts.runs ?? 3;
  const limit = opts.limit ?? LEG_CANDIDATES;
  const qs = queries.map((q) => q.trim()).filter(Boolean);
  for (const q of qs) await searchBm25(store.db, processQuery(q), {}, limit);
  const all: number[] = [];
  const perQuery: QueryLatency['perQuery'] = [];
  for (const q of qs) {
    const times: number[] = [];
    let hits = 0;
    for (let r = 0; r < runs; r++) {
      const t = opts.clock();
      hits = (await searchBm25(store.db, processQuery(q), {}, limit)).length;
      times.push(opts.clock() - t);
    }
    all.push(...times);
    times.sort((a, b) => a - b);
    perQuery.push({ query: q, ms: Math.round(percentile(times, 50) * 10) / 10, hits });
  }
  all.sort((a, b) => a - b);
  const r1 = (x: number) => Math.round(x * 10) / 10;
  return { queries: qs.length, runs, p50: r1(percentile(all, 50)), p95: r1(percentile(all, 95)), max: r1(all[all.length - 1] ?? 0), perQuery };
}
