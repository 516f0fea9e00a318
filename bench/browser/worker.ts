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
import type { BenchWorkerApi, StoreVariantRun, StoreVariantsRequest, CloneCost, FsaCosts, CopyRequest, EmbedRequest, GrepBenchRequest, GrepBenchResult, ModeLatency, SearchRequest, StaticEmbedRequest } from './api.ts';
import { loadEmbedder } from '../../src/core/embed/load-embedder.ts';
import { servedModelFiles } from '../../workers/embedder/model-files.ts';
import { DEFAULT_TEXT_CACHE_CHARS, grep, TextCache } from '../../src/core/search/grep.ts';
import { Embedder } from '../../src/core/embed/embedder.ts';
import { localModelPath, ortWasmPaths } from '../../src/core/embed/ort-assets.ts';
import { OPFS_DIR, openOpfsStore } from '../../src/core/store/open-opfs.ts';
import { overwriteOpfsFile } from '../../src/core/store/opfs-files.ts';
import type { WriteItem } from '../../src/core/store/store.ts';
import { isProbablyBinary } from '../../src/core/walk/walker.ts';
import { sha256Hex } from '../../src/core/hash/hash.ts';
import { Searcher } from '../../src/core/search/search.ts';
import { createVectorIndex } from '../../src/core/vector/create.ts';
import { clusteredVectors } from '../../src/core/vector/synthetic.ts';
import { benchVectors } from '../vectors.ts';
import { FsaFileSource } from '../../src/core/source/fsa-source.ts';
import { walk } from '../../src/core/walk/walker.ts';
import { Chunker } from '../../src/core/chunk/chunker.ts';
import { decodeText, prepareChunks, type StoredChunkInput } from '../../src/core/index/indexer.ts';
import type { FileRecord } from '../../src/core/types.ts';
import { browserWasmLoader } from '../../workers/indexer/wasm-loader.ts';
import { packText } from '../../src/core/store/text-codec.ts';
import { fileTrigramKeys } from '../../src/core/text/trigram-keys.ts';

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
/** Slowest queries listed per search mode. */
const SLOWEST_SHOWN = 4;

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
  await overwriteOpfsFile(await d.getFileHandle(parts[parts.length - 1]!, { create: true }), bytes);
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

  async embedStatic(req: StaticEmbedRequest) {
    const t0 = performance.now();
    // The app's own loading path: the served-models ModelFiles, the family read from the files.
    const files = servedModelFiles(new URL(localModelPath(), location.origin).href, req.modelId, ['config.json', 'tokenizer.json', 'model.safetensors']);
    const e = await loadEmbedder({ files, modelId: req.modelId, transformer: {} });
    const loadMs = performance.now() - t0;
    try {
      if (e.info.family !== 'static') throw new Error(`${req.modelId} is a ${e.info.family} model, not static`);
      await e.embed(req.texts.slice(0, WARMUP_TEXTS));
      let embedded = 0;
      const t = performance.now();
      do {
        await e.embed(req.texts);
        embedded += req.texts.length;
      } while (performance.now() - t < req.minMs);
      return { chunksPerSec: embedded / ((performance.now() - t) / 1000), embedded, loadMs, dim: e.info.dim, key: e.info.key };
    } finally {
      await e.dispose();
    }
  },

  async copyCorpus(req: CopyRequest) {
    const t0 = performance.now();
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle(CORPUS_DIR, { create: true });
    const manifestName = `${req.name}.manifest.json`;
    const manifest = JSON.stringify(req.paths);
    if (req.reuse) {
      const old = await root.getFileHandle(manifestName).then((h) => h.getFile()).then((f) => f.text()).catch(() => null);
      const done = old?.startsWith('{') ? (JSON.parse(old) as { paths: string; bytes: number }) : null;
      if (done && done.paths === manifest) return { files: req.paths.length, bytes: done.bytes, ms: performance.now() - t0, reused: true };
    }
    // The manifest is written last: a copy cut short is never reused.
    await root.removeEntry(manifestName).catch(() => undefined);
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
    await writeFile(root, manifestName, new TextEncoder().encode(JSON.stringify({ paths: manifest, bytes })));
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
      const legMs = MODES.map(() => req.queries.map((): number[] => []));
      const fuseMs = MODES.map(() => req.queries.map((): number[] => []));
      const embedByMode = MODES.map((): number[] => []);
      const strategies = MODES.map(() => new Set<string>());
      for (let r = 0; r < req.runs; r++) {
        for (const [i, q] of req.queries.entries()) {
          for (const [m, mode] of MODES.entries()) {
            embedTimes.length = 0;
            t = performance.now();
            const res = await searcher.search(q, { mode, limit: 10 });
            perQuery[m]![i]!.push(res.timings.total ?? performance.now() - t);
            legMs[m]![i]!.push(Math.max(res.timings.bm25 ?? 0, res.timings.vector ?? 0));
            fuseMs[m]![i]!.push(res.timings.fuse ?? 0);
            embedByMode[m]!.push(...embedTimes);
            strategies[m]!.add(res.strategy);
          }
        }
      }
      const modes: ModeLatency[] = MODES.map((mode, m) => {
        const sorted = perQuery[m]!.map(median).sort((a, b) => a - b);
        const first = perQuery[m]!.map((runs) => runs[0]!).sort((a, b) => a - b);
        const slowest = req.queries
          .map((query, i) => ({ query, total: median(perQuery[m]![i]!), leg: median(legMs[m]![i]!), fuse: median(fuseMs[m]![i]!) }))
          .sort((a, b) => b.total - a.total)
          .slice(0, SLOWEST_SHOWN);
        return {
          mode, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
          embedP50: mode === 'bm25' ? undefined : median(embedByMode[m]!), strategies: [...strategies[m]!],
          slowest,
          firstRun: {
            p50: percentile(first, 0.5), p95: percentile(first, 0.95),
            slowest: req.queries.map((query, i) => ({ query, ms: perQuery[m]![i]![0]! })).sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_SHOWN),
          },
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

  async storeVariants(req: StoreVariantsRequest): Promise<StoreVariantRun[]> {
    // The store's own work, one thread, no chunking in the timed part: chunk the corpus once
    // (in-thread), then write the same batches into a fresh OPFS store per variant, rounds
    // interleaved. timings = Store.writeFiles + optimizeFts, as the store worker runs them.
    const source = new FsaFileSource(await (await (await navigator.storage.getDirectory()).getDirectoryHandle(CORPUS_DIR)).getDirectoryHandle(req.name));
    const chunker = await Chunker.create({ loadWasm: browserWasmLoader });
    const batches: WriteItem[][] = [];
    let batch: WriteItem[] = [];
    let rows = 0;
    for await (const f of walk(source)) {
      const data = await source.readFile(f.path);
      if (isProbablyBinary(data)) continue;
      const text = decodeText(data);
      const res = await chunker.chunkFile(f.path, text);
      batch.push({ file: { path: f.path, hash: await sha256Hex(data), size: f.size, mtime: f.mtime, language: res.language }, chunks: prepareChunks(res.chunks), text });
      rows += res.chunks.length;
      if (rows >= req.batchRows) {
        batches.push(batch);
        batch = [];
        rows = 0;
      }
    }
    if (batch.length) batches.push(batch);
    chunker.dispose();
    const dbDir = await (await navigator.storage.getDirectory()).getDirectoryHandle(OPFS_DIR.replace(/^\//, ''), { create: true });
    const out: StoreVariantRun[] = [];
    for (let round = 0; round < req.rounds; round++) {
      const order = req.variants.map((v, i) => ({ v, i }));
      if (round % 2 === 1) order.reverse();
      for (const { v, i } of order) {
        const storeName = `bench-store-v${i}-r${round}`;
        const store = await openOpfsStore(storeName, { cacheSizeKiB: v.cacheSizeKiB });
        let t = performance.now();
        for (const b of batches) await store.writeFiles(b);
        const writeMs = performance.now() - t;
        t = performance.now();
        await store.optimizeFts();
        const optimizeMs = performance.now() - t;
        const dbBytes = (await store.stats()).dbBytes;
        await store.close();
        await dbDir.removeEntry(`${storeName}.sqlite`).catch(() => undefined);
        out.push({ label: v.label, round, batches: batches.length, writeMs, optimizeMs, dbBytes });
      }
    }
    return out;
  },

  async cloneCost(name: string, maxFiles: number): Promise<CloneCost> {
    // The indexer posts batches of {file, chunks, text} to the store worker (Comlink →
    // postMessage → structured clone). Chunk real files as the indexer does, then clone
    // the same batches the way postMessage does, to set the copy against the work.
    const source = new FsaFileSource(await (await (await navigator.storage.getDirectory()).getDirectoryHandle(CORPUS_DIR)).getDirectoryHandle(name));
    const chunker = await Chunker.create({ loadWasm: browserWasmLoader });
    const items: Array<{ file: FileRecord; chunks: StoredChunkInput[]; text: string }> = [];
    let chunkMs = 0;
    let bytes = 0;
    for await (const f of walk(source)) {
      if (items.length >= maxFiles) break;
      const data = await source.readFile(f.path);
      const text = decodeText(data);
      const t = performance.now();
      const res = await chunker.chunkFile(f.path, text);
      const chunks = prepareChunks(res.chunks);
      chunkMs += performance.now() - t;
      bytes += data.byteLength;
      items.push({ file: { path: f.path, hash: '0'.repeat(64), size: f.size, mtime: f.mtime, language: res.language }, chunks, text });
    }
    chunker.dispose();
    // What else is done per file where it is chunked: pack the text (web codec), trigram keys.
    let t = performance.now();
    for (const it of items) await packText(it.text);
    const packMs = performance.now() - t;
    t = performance.now();
    for (const it of items) fileTrigramKeys(it.text);
    const gramsMs = performance.now() - t;
    const batches: Array<typeof items> = [];
    for (let i = 0; i < items.length; i += 50) batches.push(items.slice(i, i + 50));
    const channel = new MessageChannel();
    const got = new Promise<number>((resolve) => {
      let n = 0;
      channel.port2.onmessage = () => ++n === batches.length && resolve(performance.now());
    });
    t = performance.now();
    for (const b of batches) structuredClone(b);
    const cloneMs = performance.now() - t;
    t = performance.now();
    for (const b of batches) channel.port1.postMessage(b);
    const postMs = (await got) - t;
    channel.port1.close();
    return { files: items.length, bytes, chunks: items.reduce((a, x) => a + x.chunks.length, 0), chunkMs, packMs, gramsMs, cloneMs, postMs };
  },

  async fsaCosts(name: string): Promise<FsaCosts> {
    // What the walk and the reads pay per OPFS call, summed over the copied corpus, each
    // operation in its own pass (sequential, so the sums are latencies, not overlapped).
    const root = await (await (await navigator.storage.getDirectory()).getDirectoryHandle(CORPUS_DIR)).getDirectoryHandle(name);
    const costs: FsaCosts = { dirs: 0, files: 0, bytes: 0, listMs: 0, getFileHandleMs: 0, getFileMs: 0, arrayBufferMs: 0, getFileAgainMs: 0 };
    const files: Array<{ dir: FileSystemDirectoryHandle; name: string; handle: FileSystemFileHandle }> = [];
    const stack = [root];
    let t = performance.now();
    while (stack.length) {
      const dir = stack.pop()!;
      costs.dirs++;
      for await (const [n, h] of (dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
        if (h.kind === 'directory') stack.push(h as FileSystemDirectoryHandle);
        else files.push({ dir, name: n, handle: h as FileSystemFileHandle });
      }
    }
    costs.listMs = performance.now() - t;
    costs.files = files.length;
    t = performance.now();
    for (const f of files) await f.dir.getFileHandle(f.name);
    costs.getFileHandleMs = performance.now() - t;
    const blobs: File[] = [];
    t = performance.now();
    for (const f of files) blobs.push(await f.handle.getFile());
    costs.getFileMs = performance.now() - t;
    t = performance.now();
    for (const b of blobs) costs.bytes += (await b.arrayBuffer()).byteLength;
    costs.arrayBufferMs = performance.now() - t;
    t = performance.now();
    for (const f of files) await f.handle.getFile();
    costs.getFileAgainMs = performance.now() - t;
    return costs;
  },

  async env() {
    return { crossOriginIsolated, webgpu: await webgpuState(), hardwareConcurrency: navigator.hardwareConcurrency };
  },
};

expose(api);
