/**
 * Indexer worker: walks a folder handle (or a File snapshot), hashes and chunks, and streams
 * rows to the store worker over the port it is handed. Thin: the pipeline is
 * src/core/index/indexer.ts; this file only adapts sources, ports and cancellation.
 */
import { expose, releaseProxy, wrap } from 'comlink';
import type { IndexerWorkerApi, IndexProgress, IndexRequest, LiveFile, SourceRef } from './api.ts';
import type { WriterPortApi } from '../store/api.ts';
import { indexCodebase, decodeText, type IndexStore } from '../../src/core/index/indexer.ts';
import { ProgressMeter } from '../../src/core/index/progress.ts';
import { namesCodeOf, processQuery } from '../../src/core/search/query.ts';
import { Chunker } from '../../src/core/chunk/chunker.ts';
import { FsaFileSource } from '../../src/core/source/fsa-source.ts';
import { FileListSource } from '../../src/core/source/memory-source.ts';
import type { FileSource } from '../../src/core/source/types.ts';
import { sha256Hex } from '../../src/core/hash/hash.ts';
import { CancelRegistry, type CancelToken } from '../../src/core/cancel.ts';
import { browserWasmModules } from './wasm-loader.ts';
import { measureSince } from '../../src/core/user-timing.ts';
import { createChunkWorkerPool, defaultPoolSize } from '../chunker/pool.ts';
import type { ChunkPool } from '../../src/core/index/chunk-pool.ts';
import type { FileChunker } from '../../src/core/index/indexer.ts';

/**
 * Merge the keyword index after a run that wrote this many rows (the CLI's threshold): one
 * segment instead of dozens after a big cold index, which keyword queries then read.
 */
const OPTIMIZE_AFTER_ROWS = 20_000;

/**
 * Files prepared ahead per chunker worker (and with no pool, in all): enough that every
 * worker always has the next file queued while the indexer waits on a reply or a batch.
 */
const FILES_AHEAD_PER_WORKER = 16;
const FILES_AHEAD_IN_THREAD = 4;
/**
 * Files of a run chunked in this worker before the pool is used: one edited file, or the
 * first few of a run, are searchable at once even when the workers are busy or cold.
 */
const IN_THREAD_FIRST_FILES = 16;
/**
 * Bytes of text a run chunks in this worker before it starts the chunker workers: starting
 * them (module load, instantiating the runtime and grammars) pays only when more work
 * follows. A 100-file folder (~0.7 MB) is chunked here, with no worker started; a bigger one
 * goes on here until a worker has loaded, so no file waits on a worker's start.
 */
const POOL_AFTER_BYTES = 1 << 20;

const cancels = new CancelRegistry();
let chunkerPromise: Promise<Chunker> | null = null;
/** Kept across runs (the workers keep their loaded grammars); replaced when the size changes. */
let pool: { pool: ChunkPool; ready: number } | null = null;

function getChunker(): Promise<Chunker> {
  if (!chunkerPromise) {
    const t0 = performance.now();
    const p = Chunker.create({ loadWasm: browserWasmModules });
    p.then(() => measureSince('tree-sitter', t0), () => undefined);
    p.catch(() => (chunkerPromise = null));
    chunkerPromise = p;
  }
  return chunkerPromise;
}

function workerPool(workers: number): { pool: ChunkPool; ready: number } {
  if (pool?.pool.size === workers) return pool;
  void pool?.pool.dispose();
  const p: { pool: ChunkPool; ready: number } = { pool: null as unknown as ChunkPool, ready: 0 };
  p.pool = createChunkWorkerPool(
    workers,
    // Nested dedicated workers; a literal URL so Vite bundles the chunker worker.
    () => new Worker(new URL('../chunker/index.ts', import.meta.url), { type: 'module', name: 'sift-chunker' }),
    getChunker,
    // Not a file's warning: the run goes on in-thread with the same results, only slower.
    (why) => console.warn(`sift: a chunker worker stopped (${why}); its files are chunked in the indexer worker`),
    // The modules this worker compiled, shared: a worker instantiates, it never compiles.
    { provideWasm: browserWasmModules, onReady: () => p.ready++ },
  );
  pool = p;
  return p;
}

/**
 * The chunker of one run: this worker until the run has chunked POOL_AFTER_BYTES here and a
 * chunker worker is ready (and always the first IN_THREAD_FIRST_FILES files), then the pool
 * of `workers` chunker workers (none: all in this worker).
 */
function runChunker(workers: number, ready: Promise<Chunker>): FileChunker {
  // One load per run: if tree-sitter fails to load, each file falls back to text chunks (with
  // the run's parse-fallback warning) instead of fetching the runtime again.
  const here: FileChunker = { chunkFile: async (path, text) => (await ready).chunkFile(path, text) };
  if (workers <= 0) return here;
  let seen = 0;
  let bytes = 0;
  return {
    chunkFile: (path, text) => {
      const p = pool?.pool.size === workers ? pool : null;
      if (++seen > IN_THREAD_FIRST_FILES && p && p.ready > 0) return p.pool.chunkFile(path, text);
      bytes += text.length;
      if (!p && bytes >= POOL_AFTER_BYTES) workerPool(workers).pool.start();
      return here.chunkFile(path, text);
    },
  };
}

function toSource(ref: SourceRef): FileSource {
  if (ref.kind === 'folder') return new FsaFileSource(ref.handle);
  // webkitRelativePath does not survive structured cloning: the paths travel beside the files.
  return new FileListSource(ref.files, ref.paths);
}

const api: IndexerWorkerApi = {
  async indexCodebase(req: IndexRequest, token: CancelToken, onProgress: (p: IndexProgress) => void) {
    return cancels.run(token, async (signal) => {
      const store = wrap<WriterPortApi>(req.storePort);
      const t0 = performance.now();
      try {
        // Loading, not awaited: the walk, the reads and a waiting query's first answer (text
        // windows, IndexOptions.firstFor) need no parser; the first file chunked waits for it.
        const ready = getChunker();
        ready.catch(() => undefined);
        const meter = new ProgressMeter(onProgress);
        // The first committed batch is reported at once (not with the next status, up to
        // PROGRESS_MS later): a typed query searches it as soon as it lands.
        let last: Parameters<typeof meter.status>[0] | null = null;
        let batches = 0;
        const workers = Math.max(0, Math.floor(req.chunkWorkers ?? defaultPoolSize(navigator.hardwareConcurrency)));
        const chunker = runChunker(workers, ready);
        const summary = await indexCodebase(
          { source: toSource(req.source), store: store as unknown as IndexStore, chunker },
          {
            signal,
            walk: { maxFileSize: req.maxFileSize || undefined, include: req.include, extraIgnore: req.exclude },
            verify: req.verify,
            concurrency: req.filesAhead ?? (workers > 0 ? workers * FILES_AHEAD_PER_WORKER : FILES_AHEAD_IN_THREAD),
            optimizeAfterRows: OPTIMIZE_AFTER_ROWS,
            firstFor: req.firstFor,
            firstForNamesCode: req.firstFor ? namesCodeOf(processQuery(req.firstFor)) : undefined,
            onWarning: (w) => meter.warning(w),
            onBatch: () => {
              meter.batch();
              if (++batches === 1) measureSince('first-batch', t0);
              if (batches === 1 && last) {
                meter.status(last);
                meter.flush();
              }
            },
            onProgress: (status) => {
              last = status;
              meter.status(status);
            },
          },
        );
        meter.flush();
        measureSince('index', t0);
        return summary;
      } finally {
        store[releaseProxy]();
        req.storePort.close();
      }
    });
  },

  async readLiveFile(ref: SourceRef, path: string): Promise<LiveFile> {
    try {
      const source = toSource(ref);
      const bytes = await source.readFile(path);
      const [hash, info] = await Promise.all([sha256Hex(bytes), source.stat(path)]);
      return { ok: true, text: decodeText(bytes), hash, size: info.size, mtime: info.mtime };
    } catch (e) {
      const name = (e as { name?: string }).name;
      const message = e instanceof Error ? e.message : String(e);
      if (name === 'NotFoundError') return { ok: false, reason: 'not-found', message };
      if (name === 'NotAllowedError' || name === 'SecurityError') return { ok: false, reason: 'permission', message };
      return { ok: false, reason: 'unreadable', message };
    }
  },

  async warm() {
    await getChunker();
  },

  cancel(token: CancelToken) {
    cancels.cancel(token);
  },
};

expose(api);
