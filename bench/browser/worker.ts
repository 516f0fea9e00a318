/**
 * The bench worker: a dedicated module worker, like the app's, that runs the real core
 * modules for the measurements the app's own workers do not expose — embedding
 * throughput, writing a corpus into OPFS (untimed setup), search latency per mode with
 * the Searcher over the OPFS store, and the vector index benchmark.
 *
 * Invariants: one embedding model per worker (ORT-web fixes its thread count when its WASM
 * first initialises, so the driver uses a fresh worker per thread count); nothing here is
 * timed that the driver does not report.
 */
import { expose } from 'comlink';
import type { BenchWorkerApi, CopyRequest, EmbedRequest, GrepBenchRequest, GrepBenchResult, ModeLatency, SearchRequest } from './api.ts';
import { DEFAULT_TEXT_CACHE_CHARS, grep, TextCache } from '../../src/core/search/grep.ts';
import { Embedder } from '../../src/core/embed/embedder.ts';
import { localModelPath, ortWasmPaths } from '../../src/core/embed/ort-assets.ts';
import { openOpfsStore } from '../../src/core/store/open-opfs.ts';
import { Searcher } from '../../src/core/search/search.ts';
import { createVectorIndex } from '../../src/core/vector/create.ts';
import { clusteredVectors } from '../../src/core/vector/synthetic.ts';
import { benchVectors } from '../vectors.ts';

/** Texts in the untimed warm-up (same as the Node bench). */
const WARMUP_TEXTS = 4;
/** Parallel fetch → OPFS writes while copying a corpus. */
const COPY_CONCURRENCY = 4;
/** A stalled request is retried (then fails naming the file) instead of hanging the bench. */
const COPY_FETCH_TIMEOUT_MS = 20_000;
const COPY_TRIES = 3;
const CORPUS_DIR = 'bench-corpus';
const SYNTHETIC_SEED = 7;
const CHUNKS_PER_CLUSTER = 100;
/** Vector index the search bench uses (hnsw's build is minutes at these sizes; see bench-vectors). */
const SEARCH_VECTOR_KIND = 'exact';

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]! : NaN;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function loadModel(modelId: string, dtype: 'fp32' | 'q8', threads: number, device: 'wasm' | 'webgpu' = 'wasm', batchSize?: number): Promise<Embedder> {
  return Embedder.load({
    modelId, localModelPath: localModelPath(), allowRemote: false, device, dtype, numThreads: threads, wasmPaths: ortWasmPaths(device),
    ...(batchSize ? { batchSize } : {}),
  });
}

async function webgpuState(): Promise<string> {
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  if (!gpu) return 'no navigator.gpu';
  try {
    return (await gpu.requestAdapter()) ? 'adapter available' : 'no adapter';
  } catch (e) {
    return `requestAdapter failed: ${(e as Error).message}`;
  }
}

async function writeFile(dir: FileSystemDirectoryHandle, path: string, bytes: Uint8Array): Promise<void> {
  const parts = path.split('/');
  let d = dir;
  for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create: true });
  const fh = await d.getFileHandle(parts[parts.length - 1]!, { create: true });
  const h = await fh.createSyncAccessHandle();
  try {
    h.truncate(0);
    h.write(bytes, { at: 0 });
    h.flush();
  } finally {
    h.close();
  }
}

async function fetchBytes(url: string, path: string): Promise<Uint8Array> {
  let last: unknown = null;
  for (let i = 0; i < COPY_TRIES; i++) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(COPY_FETCH_TIMEOUT_MS), cache: 'no-store' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      last = e;
    }
  }
  throw new Error(`copy ${path}: ${last instanceof Error ? last.message : String(last)}`);
}

const api: BenchWorkerApi = {
  async embed(req: EmbedRequest) {
    const t0 = performance.now();
    const e = await loadModel(req.modelId, req.dtype, req.threads, req.device, req.batchSize);
    const loadMs = performance.now() - t0;
    try {
      await e.embed(req.texts.slice(0, WARMUP_TEXTS));
      const t = performance.now();
      await e.embed(req.texts); // length-bucketed batches of EMBED_BATCH_SIZE
      return { chunksPerSec: req.texts.length / ((performance.now() - t) / 1000), loadMs, device: e.info.device, crossOriginIsolated };
    } finally {
      await e.dispose();
    }
  },

  async copyCorpus(req: CopyRequest) {
    const t0 = performance.now();
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle(CORPUS_DIR, { create: true });
    await root.removeEntry(req.name, { recursive: true }).catch(() => undefined);
    const dir = await root.getDirectoryHandle(req.name, { create: true });
    let next = 0;
    let bytes = 0;
    const lane = async () => {
      while (next < req.paths.length) {
        const path = req.paths[next++]!;
        const data = await fetchBytes(req.urlPrefix + path.split('/').map(encodeURIComponent).join('/'), path);
        bytes += data.byteLength;
        await writeFile(dir, path, data);
      }
    };
    await Promise.all(Array.from({ length: COPY_CONCURRENCY }, lane));
    return { files: req.paths.length, bytes, ms: performance.now() - t0 };
  },

  async search(req: SearchRequest) {
    const store = await openOpfsStore(req.storeName);
    try {
      const ids = (await store.db.all<{ id: number }>('SELECT id FROM chunks ORDER BY id')).map((r) => r.id);
      const stats = await store.stats();
      // Synthetic clustered vectors stand in for every chunk's embedding (no model pass).
      const set = clusteredVectors({
        count: ids.length, dim: req.dim, clusters: Math.max(10, Math.round(ids.length / CHUNKS_PER_CLUSTER)),
        queries: req.queries.length, seed: SYNTHETIC_SEED,
      });
      let t = performance.now();
      const vectors = await createVectorIndex(SEARCH_VECTOR_KIND, req.dim, { capacity: ids.length });
      await vectors.add(ids, set.vectors);
      const vectorBuildMs = performance.now() - t;
      // The query model really runs (its time is part of vector/hybrid latency); the index
      // is then queried with the query's synthetic vector, since the model's own output
      // (a different dim for the tiny model) has no neighbours among synthetic vectors.
      const model = await loadModel(req.queryModelId, 'q8', 1);
      const byText = new Map(req.queries.map((q, i) => [q, set.queries.subarray(i * req.dim, (i + 1) * req.dim)]));
      const embedTimes: number[] = [];
      const embedder = {
        async embedQuery(text: string): Promise<Float32Array> {
          const s = performance.now();
          await model.embedQuery(text);
          embedTimes.push(performance.now() - s);
          return byText.get(text) ?? set.queries.subarray(0, req.dim);
        },
      };
      const searcher = new Searcher(store, { embedder, vectors });
      // Modes interleave per query, so background load on this shared machine hits them alike.
      const MODES = ['bm25', 'vector', 'hybrid'] as const;
      const perQuery = MODES.map(() => req.queries.map((): number[] => []));
      const embedByMode = MODES.map((): number[] => []);
      const strategies = MODES.map(() => new Set<string>());
      for (let r = 0; r < req.runs; r++) {
        for (const [i, q] of req.queries.entries()) {
          for (const [m, mode] of MODES.entries()) {
            embedTimes.length = 0;
            t = performance.now();
            const res = await searcher.search(q, { mode, limit: 10 });
            perQuery[m]![i]!.push(res.timings.total ?? performance.now() - t);
            embedByMode[m]!.push(...embedTimes);
            strategies[m]!.add(res.strategy);
          }
        }
      }
      const modes: ModeLatency[] = MODES.map((mode, m) => {
        const sorted = perQuery[m]!.map(median).sort((a, b) => a - b);
        return {
          mode, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
          embedP50: mode === 'bm25' ? undefined : median(embedByMode[m]!), strategies: [...strategies[m]!],
        };
      });
      vectors.dispose();
      await model.dispose();
      return { chunks: ids.length, vectorKind: SEARCH_VECTOR_KIND, vectorBuildMs, modes, dbBytes: stats.dbBytes };
    } finally {
      await store.close();
    }
  },

  async grep(req: GrepBenchRequest): Promise<GrepBenchResult> {
    const store = await openOpfsStore(req.storeName);
    try {
      // As in the app's store worker: texts read by one query are kept for the next.
      const cache = new TextCache(DEFAULT_TEXT_CACHE_CHARS);
      const modes: GrepBenchResult['modes'] = [];
      const perQuery: GrepBenchResult['perQuery'] = [];
      for (const [mode, patterns] of [['exact', req.literals], ['regex', req.regexes]] as const) {
        const times = patterns.map((): number[] => []);
        const lines = patterns.map(() => 0);
        for (let r = 0; r < req.runs; r++) {
          for (const [i, pattern] of patterns.entries()) {
            const t = performance.now();
            const res = await grep(store, { pattern, mode, limit: 100_000 }, { cache });
            times[i]!.push(performance.now() - t);
            lines[i] = res.totalMatches;
          }
        }
        const sorted = times.map(median).sort((a, b) => a - b);
        modes.push({ mode, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length });
        patterns.forEach((pattern, i) => perQuery.push({ mode, pattern, lines: lines[i]!, ms: median(times[i]!) }));
      }
      return { files: await store.fileTextCount(), modes, perQuery };
    } finally {
      await store.close();
    }
  },

  vectors: (opts) => benchVectors(opts),

  async env() {
    return { crossOriginIsolated, webgpu: await webgpuState(), hardwareConcurrency: navigator.hardwareConcurrency };
  },
};

expose(api);
