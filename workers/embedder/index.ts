/**
 * Embedder worker: owns the one model. Loads a model from the app's served `models/`
 * folder, from a folder imported into OPFS, or (only when asked) from the Hub; embeds
 * queries for the store worker and runs the embedding pass over a store port.
 *
 * Two families, found from the model's files (ModelFiles, model-files.ts): a transformer
 * runs through Transformers.js on ONNX Runtime Web (which reads its files itself, through
 * the same Cache Storage and OPFS); a static (model2vec) model is a token table read once
 * and embedded on this worker's thread, thousands of chunks per second.
 *
 * Invariants: one model at a time; loads are serialised (Transformers.js env is global).
 * Device: WebGPU when an adapter exists (falling back to wasm if its session fails), else
 * wasm with min(cores − 1, 4) threads under cross-origin isolation. Queries jump ahead of
 * waiting embedding batches (the Embedder's SessionGate).
 */
import { expose, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import { env } from '@huggingface/transformers';
import type { EmbedderWorkerApi, LoadProgress, ModelConfig, ModelLoadResult } from './api.ts';
import type { WriterPortApi } from '../store/api.ts';
import type { SiftEmbedder } from '../../src/core/embed/embedder.ts';
import { loadEmbedder } from '../../src/core/embed/load-embedder.ts';
import { defaultNumThreads } from '../../src/core/embed/threads.ts';
import { embedPending } from '../../src/core/embed/embed-pass.ts';
import { ortWasmPaths, localModelPath } from '../../src/core/embed/ort-assets.ts';
import { CancelRegistry, abortError, type CancelToken } from '../../src/core/cancel.ts';
import { importModelFolder, listImportedModels, modelCache, OPFS_MODEL_PATH, removeImportedModel } from './opfs-models.ts';
import { modelFilesFor } from './config-files.ts';
import { WRITE_GROUP, WriteBehindStore } from '../../src/core/embed/write-behind.ts';
import type { EmbedStore, TextEmbedder } from '../../src/core/embed/embed-pass.ts';
import { PAGE_CACHE_KIB, vectorToInt8Blob } from '../../src/core/store/store.ts';
import { HELPERS_FROM_CHUNKS, staticHelperCount, StaticHelpers } from './static-helpers.ts';

/**
 * Chunks per session run in the browser. Measured 2026-11-22 (bench/browser.ts --quick,
 * MiniLM-shaped q8, 1 thread, same chunks, two runs on a loaded 2-core machine): batch 8
 * 9.2 and 2.8 chunks/s vs batch 32 1.8 and 1.9 — never slower, and a query waits behind at
 * most one batch, so a quarter of the batch is a quarter of the wait.
 */
const BROWSER_EMBED_BATCH = 8;

/**
 * The largest group of vectors per transaction (write-behind.ts: groups double from WRITE_GROUP):
 * a commit on OPFS costs ~0.4 s, so a 35k-chunk pass commits ~6 times instead of 34.
 */
const WRITE_GROUP_MAX = 16_384;
/**
 * A static model's vectors per transaction, from the first: a pass of up to this many writes
 * once, at its end. The embeddings table is keyed by a random hash, so every commit after the
 * first rewrites (and journals) nearly every page of it: the medium corpus's 34,728 vectors
 * took 4,021 VFS writes (37 MiB) in groups of 1,024 doubling to 16,384 and 794 (12 MiB) in one
 * (the same pass on the Node VFS; bench/results/2026-11-29-app-embed.md), and in an off-the-record
 * Chromium profile OPFS writes took 37 s of that pass's store thread (a trace at load ~17).
 * Search by meaning does not wait for it (the
 * live index gets each page at once); a crash loses at most one group, embedded again by the
 * next pass in seconds. At 65,536 the group holds ~70 MB of vectors until written.
 */
const STATIC_WRITE_GROUP = 65_536;

/**
 * The store's page cache while a pass embeds (Store.setPageCache; PAGE_CACHE_KIB after): the
 * pass reads every pending chunk's row and text and inserts into the hash-keyed embeddings
 * table, and with 16 MB the store worker spent most of a 35k-chunk pass in OPFS reads and
 * writes (a Chromium trace of bench/browser-semantic.ts --corpus medium: 37 s writing, 13 s
 * reading). SQLite takes the memory only as pages are read (the CLI's is 256 MiB).
 */
const EMBED_PAGE_CACHE_KIB = 128 * 1024;

const cancels = new CancelRegistry();
let embedder: SiftEmbedder | null = null;
/** The config `embedder` was loaded from (static helpers load the same files). */
let loadedCfg: ModelConfig | null = null;
let loading: Promise<unknown> = Promise.resolve();

// Imported models are read from OPFS through Transformers.js's custom-cache hook; Hub
// downloads land in Cache Storage. (EmbedderOptions has no cache option yet.)
env.useCustomCache = true;
env.customCache = modelCache as unknown as typeof env.customCache;

function isMissing(e: unknown): boolean {
  const m = e instanceof Error ? `${e.name} ${e.message}` : String(e);
  // A static host's SPA fallback answers a missing file with index.html: not JSON.
  return /not found|config\.json is missing|404|ModelFileNotFound|local_files_only|allowRemoteModels=false|Could not locate|is not valid JSON|Unexpected token '<'/i.test(m);
}

/** Whether this worker can run WebGPU: '' when it can, else what is missing. */
async function webGpuMissing(): Promise<string> {
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  if (!gpu) return 'this browser has no WebGPU (navigator.gpu)';
  try {
    return (await gpu.requestAdapter()) ? '' : 'no WebGPU adapter (GPU blocklisted or disabled)';
  } catch (e) {
    return `WebGPU adapter request failed: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/**
 * Loads the model; its family is read from its files (load-embedder.ts). 'served' models
 * are only asked for the files the build's manifest lists, so no request 404s; Hub models
 * skip the app's own origin entirely and come from Cache Storage or, on first use, the Hub.
 * A transformer tries WebGPU first when there is an adapter; a static model needs none.
 */
async function load(cfg: ModelConfig, signal: AbortSignal, onProgress?: (p: LoadProgress) => void): Promise<ModelLoadResult> {
  const t0 = performance.now();
  const old = embedder;
  embedder = null;
  loadedCfg = null;
  await old?.dispose().catch(() => undefined);
  const files = modelFilesFor(cfg);
  const want = cfg.device ?? 'auto';
  const gpuMissing = want === 'wasm' ? 'wasm chosen in settings' : await webGpuMissing();
  const threads = cfg.numThreads ?? defaultNumThreads(navigator.hardwareConcurrency || 1, globalThis.crossOriginIsolated === true);
  const attempt = (device: 'wasm' | 'webgpu') =>
    loadEmbedder({
      files,
      modelId: cfg.modelId,
      transformer: {
        localModelPath: cfg.source === 'opfs' ? OPFS_MODEL_PATH : localModelPath(),
        allowRemote: cfg.source === 'hub',
        allowLocal: cfg.source !== 'hub',
        device,
        // q8 everywhere unless chosen otherwise: the ≈23 MB file the offer promises, and one
        // vector key whichever device runs it.
        dtype: cfg.dtype ?? 'q8',
        numThreads: threads,
        wasmPaths: ortWasmPaths(device),
        batchSize: BROWSER_EMBED_BATCH,
      },
      onProgress,
    });
  try {
    let next: SiftEmbedder;
    let webgpu = gpuMissing;
    if (!gpuMissing) {
      try {
        next = await attempt('webgpu');
      } catch (e) {
        if (signal.aborted || isMissing(e)) throw e;
        webgpu = `WebGPU session failed (${e instanceof Error ? e.message : String(e)}); using wasm`;
        next = await attempt('wasm');
      }
    } else {
      next = await attempt('wasm');
    }
    if (signal.aborted) {
      await next.dispose();
      throw abortError();
    }
    embedder = next;
    loadedCfg = cfg;
    const i = next.info;
    return {
      ok: true,
      info: {
        modelId: i.modelId, family: i.family, device: i.device, dtype: i.dtype, dim: i.dim, key: i.key, loadMs: performance.now() - t0,
        // A static model embeds on this worker's thread, and a big pass on helpers beside it (static-helpers.ts).
        threads: i.family === 'static' ? 1 : i.device === 'wasm' ? threads : 0,
        webgpu: i.family === 'static' ? 'a static model embeds by table lookup on the CPU' : webgpu,
      },
    };
  } catch (e) {
    if (signal.aborted) throw abortError();
    const message = e instanceof Error ? e.message : String(e);
    return { ok: false, reason: isMissing(e) ? 'missing' : 'failed', message };
  }
}

function current(): SiftEmbedder {
  if (!embedder) throw Object.assign(new Error('No embedding model is loaded'), { name: 'ModelMissingError' });
  return embedder;
}

/** Query vectors are transferred, not copied. */
async function embedQuery(text: string): Promise<Float32Array> {
  const v = await current().embedQuery(text);
  return transfer(v, [v.buffer as ArrayBuffer]);
}

/**
 * The store port as the pass's EmbedStore. Vectors cross as stored blobs, encoded here
 * (vectorToInt8Blob) into one buffer that is transferred: the store worker's thread, which the
 * pass's reads, writes and live-index adds all wait on, only writes them.
 */
function portStore(store: Remote<WriterPortApi>): EmbedStore {
  return {
    pendingEmbeddings: (m, limit, afterId) => store.pendingEmbeddings(m, limit, afterId),
    chunkCount: () => store.chunkCount(),
    embeddedCount: (m) => store.embeddedCount(m),
    async putEmbeddings(m, items) {
      if (!items.length) return;
      const first = vectorToInt8Blob(items[0]!.vector);
      const stride = first.byteLength;
      const blobs = new Uint8Array(items.length * stride);
      blobs.set(first, 0);
      for (let i = 1; i < items.length; i++) blobs.set(vectorToInt8Blob(items[i]!.vector), i * stride);
      await store.putEmbeddingBlobs(m, items.map((it) => it.hash), transfer(blobs, [blobs.buffer]), stride);
    },
  };
}

const api: EmbedderWorkerApi = {
  loadModel(cfg: ModelConfig, token: CancelToken, onProgress?: (p: LoadProgress) => void) {
    const run = loading.then(() => cancels.run(token, (signal) => load(cfg, signal, onProgress)));
    loading = run.catch(() => undefined);
    return run;
  },

  async unloadModel() {
    const old = embedder;
    embedder = null;
    loadedCfg = null;
    await old?.dispose();
  },

  embedQuery,

  serveQueries(port: MessagePort) {
    expose({ embedQuery }, port);
  },

  async embedPending(storePort: MessagePort, token: CancelToken, onProgress) {
    const model = current();
    const cfg = loadedCfg;
    const store = wrap<WriterPortApi>(storePort);
    // Vectors are written in groups (core/embed/write-behind.ts): a commit on OPFS costs more than a
    // static model takes to embed a page.
    const writes = model.info.family === 'static'
      ? new WriteBehindStore(portStore(store), STATIC_WRITE_GROUP, STATIC_WRITE_GROUP)
      : new WriteBehindStore(portStore(store), WRITE_GROUP, WRITE_GROUP_MAX);
    let helpers: StaticHelpers | null = null;
    try {
      await store.setPageCache(EMBED_PAGE_CACHE_KIB);
      // A static model embeds a big pass on one thread per core (static-helpers.ts); a transformer
      // has its own threads (onnxruntime), and a small pass is done before a helper has loaded.
      const count = staticHelperCount(navigator.hardwareConcurrency || 1);
      if (model.info.family === 'static' && cfg && count > 0) {
        const pending = (await store.chunkCount()) - (await store.embeddedCount(model.info.key));
        if (pending >= HELPERS_FROM_CHUNKS) {
          helpers = new StaticHelpers(model, cfg, count, () => new Worker(new URL('./static-helper.ts', import.meta.url), { type: 'module', name: 'sift-embed-helper' }));
        }
      }
      const embedWith: TextEmbedder = helpers ?? model;
      const summary = await cancels.run(token, (signal) =>
        embedPending(
          {
            store: writes,
            embedder: embedWith,
            // The page's vectors are not read again after this (its writes hold copies): transferred.
            onVectors: (ids, vectors) => {
              const at = Int32Array.from(ids);
              return store.addVectors(transfer(at, [at.buffer]), transfer(vectors, [vectors.buffer as ArrayBuffer]));
            },
          },
          { signal, onProgress: (p) => onProgress(p) },
        ),
      );
      return { ...summary, threads: helpers?.threads ?? 1 };
    } finally {
      helpers?.dispose();
      await writes.flush();
      await store.setPageCache(PAGE_CACHE_KIB).catch(() => undefined);
      store[releaseProxy]();
      storePort.close();
    }
  },

  importModelFolder: (handle) => importModelFolder(handle),
  listImportedModels: () => listImportedModels(),
  removeImportedModel: (name) => removeImportedModel(name),

  cancel(token: CancelToken) {
    cancels.cancel(token);
  },
};

expose(api);
