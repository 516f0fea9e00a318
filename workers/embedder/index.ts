/**
 * Embedder worker: owns the one model session. Loads a model from the app's served
 * `models/` folder, from a folder imported into OPFS, or (only when asked) from the Hub;
 * embeds queries for the store worker and runs the embedding pass over a store port.
 *
 * Invariant: one model at a time; loads are serialised (Transformers.js env is global).
 */
import { expose, releaseProxy, transfer, wrap } from 'comlink';
import { env } from '@huggingface/transformers';
import type { EmbedderWorkerApi, ModelConfig, ModelLoadResult } from './api.ts';
import type { WriterPortApi } from '../store/api.ts';
import { Embedder } from '../../src/core/embed/embedder.ts';
import { embedPending } from '../../src/core/embed/embed-pass.ts';
import { ortWasmPaths, localModelPath } from '../../src/core/embed/ort-assets.ts';
import { CancelRegistry, abortError, type CancelToken } from '../../src/core/cancel.ts';
import { importModelFolder, listImportedModels, modelCache, OPFS_MODEL_PATH, removeImportedModel } from './opfs-models.ts';

const cancels = new CancelRegistry();
let embedder: Embedder | null = null;
let loading: Promise<unknown> = Promise.resolve();

// Imported models are read from OPFS through Transformers.js's custom-cache hook; Hub
// downloads land in Cache Storage. (EmbedderOptions has no cache option yet.)
env.useCustomCache = true;
env.customCache = modelCache as unknown as typeof env.customCache;

function isMissing(e: unknown): boolean {
  const m = e instanceof Error ? `${e.name} ${e.message}` : String(e);
  // A static host's SPA fallback answers a missing file with index.html: not JSON.
  return /not found|404|ModelFileNotFound|local_files_only|allowRemoteModels=false|Could not locate|is not valid JSON|Unexpected token '<'/i.test(m);
}

/**
 * A served model is there when its config.json is: a static host answers a missing file
 * with 404 or (SPA fallback) index.html, and Transformers.js then fails with an unhelpful
 * error deep inside, so ask first.
 */
async function servedModelExists(modelId: string): Promise<boolean> {
  try {
    const res = await fetch(`${localModelPath()}${modelId}/config.json`);
    if (!res.ok) return false;
    const config: unknown = await res.json();
    return typeof config === 'object' && config !== null;
  } catch {
    return false;
  }
}

async function load(cfg: ModelConfig, signal: AbortSignal): Promise<ModelLoadResult> {
  const t0 = performance.now();
  const old = embedder;
  embedder = null;
  await old?.dispose().catch(() => undefined);
  if (cfg.source === 'served' && !(await servedModelExists(cfg.modelId))) {
    return { ok: false, reason: 'missing', message: `${localModelPath()}${cfg.modelId}/config.json is not served` };
  }
  try {
    const next = await Embedder.load({
      modelId: cfg.modelId,
      localModelPath: cfg.source === 'opfs' ? OPFS_MODEL_PATH : localModelPath(),
      allowRemote: cfg.source === 'hub',
      device: 'wasm',
      dtype: cfg.dtype ?? 'auto',
      numThreads: cfg.numThreads ?? 1,
      wasmPaths: ortWasmPaths('wasm'),
    });
    if (signal.aborted) {
      await next.dispose();
      throw abortError();
    }
    embedder = next;
    const i = next.info;
    return { ok: true, info: { modelId: i.modelId, device: i.device, dtype: i.dtype, dim: i.dim, key: i.key, loadMs: performance.now() - t0 } };
  } catch (e) {
    if (signal.aborted) throw abortError();
    const message = e instanceof Error ? e.message : String(e);
    return { ok: false, reason: isMissing(e) ? 'missing' : 'failed', message };
  }
}

function current(): Embedder {
  if (!embedder) throw Object.assign(new Error('No embedding model is loaded'), { name: 'ModelMissingError' });
  return embedder;
}

/** Query vectors are transferred, not copied. */
async function embedQuery(text: string): Promise<Float32Array> {
  const v = await current().embedQuery(text);
  return transfer(v, [v.buffer as ArrayBuffer]);
}

const api: EmbedderWorkerApi = {
  loadModel(cfg: ModelConfig, token: CancelToken) {
    const run = loading.then(() => cancels.run(token, (signal) => load(cfg, signal)));
    loading = run.catch(() => undefined);
    return run;
  },

  async unloadModel() {
    const old = embedder;
    embedder = null;
    await old?.dispose();
  },

  embedQuery,

  serveQueries(port: MessagePort) {
    expose({ embedQuery }, port);
  },

  async embedPending(storePort: MessagePort, token: CancelToken, onProgress) {
    const model = current();
    const store = wrap<WriterPortApi>(storePort);
    try {
      return await cancels.run(token, (signal) =>
        embedPending(
          { store, embedder: model, onVectors: (ids, vectors) => store.addVectors(ids, vectors) },
          { signal, onProgress: (p) => onProgress(p) },
        ),
      );
    } finally {
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
