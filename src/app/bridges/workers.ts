/**
 * The bridge: the only code that creates workers and calls Comlink's `wrap()`. Every
 * method takes an AbortSignal; aborting rejects at once with an AbortError and, for long
 * calls, tells the worker to stop (a cancel token crosses instead of the signal).
 *
 * Topology: one store worker (all SQLite connections, vector indexes, search), one indexer
 * worker (walk, hash, tree-sitter), one embedder worker (model session). Writers reach the
 * store over a MessageChannel connected here, so rows never pass through the page.
 *
 * Invariants: workers start lazily and at most once; the indexer and embedder are stopped
 * after IDLE_STOP_MS without work (their WASM memory never shrinks otherwise); the store
 * worker lives as long as the page because it holds the database connections.
 */
import { proxy, transfer, wrap, releaseProxy, type Remote } from 'comlink';
import type { StoreWorkerApi, AppSearchRequest, AppSearchResponse, CodebaseInfo, ImportResult, VectorModel } from '../../../workers/store/api.ts';
import type { IndexerWorkerApi, IndexProgress, LiveFile, SourceRef } from '../../../workers/indexer/api.ts';
import type { EmbedderWorkerApi, ImportedModel, ModelConfig, ModelLoadResult } from '../../../workers/embedder/api.ts';
import type { IndexSummary } from '../../core/index/indexer.ts';
import type { EmbedProgress, EmbedSummary } from '../../core/embed/embed-pass.ts';
import type { FileRecord, StoredChunk } from '../../core/types.ts';
import { abortError, newToken, type CancelToken } from '../../core/cancel.ts';
import type { MetaKey } from '../../core/store/meta.ts';

/** Idle writer workers are terminated after this long. */
const IDLE_STOP_MS = 60_000;
/** Calls kept for the debug panel. */
const CALL_LOG_SIZE = 40;

export interface CallRecord {
  worker: 'store' | 'indexer' | 'embedder';
  method: string;
  ms: number;
  ok: boolean;
}

interface Handle<T> {
  worker: Worker;
  remote: Remote<T>;
}

type WorkerName = CallRecord['worker'];

function spawn(name: WorkerName): Worker {
  // Literal URLs so Vite bundles each worker.
  switch (name) {
    case 'store':
      return new Worker(new URL('../../../workers/store/index.ts', import.meta.url), { type: 'module', name: 'sift-store' });
    case 'indexer':
      return new Worker(new URL('../../../workers/indexer/index.ts', import.meta.url), { type: 'module', name: 'sift-indexer' });
    case 'embedder':
      return new Worker(new URL('../../../workers/embedder/index.ts', import.meta.url), { type: 'module', name: 'sift-embedder' });
  }
}

class WorkerBridge {
  #store: Handle<StoreWorkerApi> | null = null;
  #indexer: Handle<IndexerWorkerApi> | null = null;
  #embedder: Handle<EmbedderWorkerApi> | null = null;
  #busy: Record<WorkerName, number> = { store: 0, indexer: 0, embedder: 0 };
  #idleTimers: Partial<Record<WorkerName, ReturnType<typeof setTimeout>>> = {};
  #queryModel: VectorModel | null = null;
  readonly calls: CallRecord[] = [];
  onCall: ((c: CallRecord) => void) | null = null;

  get #storeRemote(): Remote<StoreWorkerApi> {
    this.#store ??= this.#start<StoreWorkerApi>('store');
    return this.#store.remote;
  }

  get #indexerRemote(): Remote<IndexerWorkerApi> {
    this.#indexer ??= this.#start<IndexerWorkerApi>('indexer');
    return this.#indexer.remote;
  }

  get #embedderRemote(): Remote<EmbedderWorkerApi> {
    if (!this.#embedder) {
      this.#embedder = this.#start<EmbedderWorkerApi>('embedder');
    }
    return this.#embedder.remote;
  }

  #start<T>(name: WorkerName): Handle<T> {
    const worker = spawn(name);
    return { worker, remote: wrap<T>(worker) };
  }

  #stop(name: WorkerName): void {
    const h = name === 'indexer' ? this.#indexer : name === 'embedder' ? this.#embedder : this.#store;
    if (!h) return;
    h.remote[releaseProxy]();
    h.worker.terminate();
    if (name === 'indexer') this.#indexer = null;
    else if (name === 'embedder') {
      this.#embedder = null;
      // The store's query port died with the embedder.
      if (this.#queryModel) void this.#storeRemote.connectEmbedder(null, null);
      this.#queryModel = null;
    } else this.#store = null;
  }

  /** Times a call, races it against the signal, and tracks busy-ness for idle stop. */
  async #call<R>(name: WorkerName, method: string, signal: AbortSignal | undefined, fn: () => Promise<R>, cancel?: () => void): Promise<R> {
    if (signal?.aborted) throw abortError();
    this.#busy[name]++;
    clearTimeout(this.#idleTimers[name]);
    const t0 = performance.now();
    let ok = false;
    let onAbort: (() => void) | null = null;
    try {
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => {
          cancel?.();
          reject(abortError());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      const r = await Promise.race([fn(), aborted]);
      ok = true;
      return r;
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      this.#busy[name]--;
      const rec = { worker: name, method, ms: performance.now() - t0, ok };
      this.calls.push(rec);
      if (this.calls.length > CALL_LOG_SIZE) this.calls.shift();
      this.onCall?.(rec);
      if (name !== 'store' && this.#busy[name] === 0) {
        this.#idleTimers[name] = setTimeout(() => {
          // The embedder stays while it serves queries: reloading a model costs seconds.
          if (this.#busy[name] === 0 && !(name === 'embedder' && this.#queryModel)) this.#stop(name);
        }, IDLE_STOP_MS);
      }
    }
  }

  // ---- store ----

  openCodebase(id: string, signal?: AbortSignal): Promise<CodebaseInfo> {
    return this.#call('store', 'open', signal, () => this.#storeRemote.open(id));
  }

  codebaseInfo(id: string, signal?: AbortSignal): Promise<CodebaseInfo> {
    return this.#call('store', 'info', signal, () => this.#storeRemote.info(id));
  }

  removeCodebase(id: string, signal?: AbortSignal): Promise<void> {
    return this.#call('store', 'remove', signal, () => this.#storeRemote.remove(id));
  }

  reloadVectors(id: string, signal?: AbortSignal): Promise<void> {
    return this.#call('store', 'reloadVectors', signal, () => this.#storeRemote.reloadVectors(id));
  }

  search(req: AppSearchRequest, signal?: AbortSignal): Promise<AppSearchResponse> {
    const token = newToken('search');
    return this.#call('store', 'search', signal, () => this.#storeRemote.search(req, token), () => void this.#storeRemote.cancel(token));
  }

  getChunks(id: string, ids: number[], signal?: AbortSignal): Promise<StoredChunk[]> {
    return this.#call('store', 'getChunks', signal, () => this.#storeRemote.getChunks(id, ids));
  }

  getFileRecord(id: string, path: string, signal?: AbortSignal): Promise<FileRecord | null> {
    return this.#call('store', 'getFile', signal, () => this.#storeRemote.getFile(id, path));
  }

  setMeta(id: string, key: MetaKey, value: string, signal?: AbortSignal): Promise<void> {
    return this.#call('store', 'setMeta', signal, () => this.#storeRemote.setMeta(id, key, value));
  }

  exportIndex(id: string, signal?: AbortSignal): Promise<Uint8Array> {
    return this.#call('store', 'exportIndex', signal, () => this.#storeRemote.exportIndex(id));
  }

  importIndex(id: string, bytes: Uint8Array, expectModel: string | null, signal?: AbortSignal): Promise<ImportResult> {
    return this.#call<ImportResult>('store', 'importIndex', signal, () =>
      this.#storeRemote.importIndex(id, transfer(bytes, [bytes.buffer as ArrayBuffer]), expectModel),
    );
  }

  // ---- indexer ----

  /** Indexes (or incrementally rescans) a codebase; rows flow indexer → store directly. */
  async indexCodebase(
    id: string,
    source: SourceRef,
    opts: { verify?: boolean; signal?: AbortSignal; onProgress: (p: IndexProgress) => void },
  ): Promise<IndexSummary> {
    const { port1, port2 } = new MessageChannel();
    await this.#call('store', 'connectWriter', opts.signal, () => this.#storeRemote.connectWriter(id, transfer(port1, [port1])));
    const token = newToken('index');
    return this.#call(
      'indexer',
      'indexCodebase',
      opts.signal,
      () => this.#indexerRemote.indexCodebase(transfer({ source, storePort: port2, verify: opts.verify }, [port2]), token, proxy(opts.onProgress)),
      () => void this.#indexer?.remote.cancel(token),
    );
  }

  readLiveFile(source: SourceRef, path: string, signal?: AbortSignal): Promise<LiveFile> {
    return this.#call<LiveFile>('indexer', 'readLiveFile', signal, () => this.#indexerRemote.readLiveFile(source, path));
  }

  // ---- embedder ----

  /** Loads a model and connects it to the store's vector leg. */
  async loadModel(cfg: ModelConfig, signal?: AbortSignal): Promise<ModelLoadResult> {
    const token = newToken('model');
    const res = await this.#call<ModelLoadResult>('embedder', 'loadModel', signal, () => this.#embedderRemote.loadModel(cfg, token), () => void this.#embedder?.remote.cancel(token));
    if (res.ok) {
      const { port1, port2 } = new MessageChannel();
      await this.#embedderRemote.serveQueries(transfer(port1, [port1]));
      this.#queryModel = { key: res.info.key, dim: res.info.dim };
      await this.#call('store', 'connectEmbedder', signal, () => this.#storeRemote.connectEmbedder(transfer(port2, [port2]), this.#queryModel));
    }
    return res;
  }

  async unloadModel(signal?: AbortSignal): Promise<void> {
    this.#queryModel = null;
    await this.#call('store', 'connectEmbedder', signal, () => this.#storeRemote.connectEmbedder(null, null));
    if (this.#embedder) this.#stop('embedder');
  }

  async embedPending(id: string, opts: { signal?: AbortSignal; onProgress: (p: EmbedProgress) => void }): Promise<EmbedSummary> {
    const { port1, port2 } = new MessageChannel();
    await this.#call('store', 'connectWriter', opts.signal, () => this.#storeRemote.connectWriter(id, transfer(port1, [port1])));
    const token = newToken('embed');
    return this.#call(
      'embedder',
      'embedPending',
      opts.signal,
      () => this.#embedderRemote.embedPending(transfer(port2, [port2]), token, proxy(opts.onProgress)),
      () => void this.#embedder?.remote.cancel(token),
    );
  }

  importModelFolder(handle: FileSystemDirectoryHandle, signal?: AbortSignal): Promise<ImportedModel> {
    return this.#call('embedder', 'importModelFolder', signal, () => this.#embedderRemote.importModelFolder(handle));
  }

  listImportedModels(signal?: AbortSignal): Promise<ImportedModel[]> {
    return this.#call('embedder', 'listImportedModels', signal, () => this.#embedderRemote.listImportedModels());
  }

  removeImportedModel(name: string, signal?: AbortSignal): Promise<void> {
    return this.#call('embedder', 'removeImportedModel', signal, () => this.#embedderRemote.removeImportedModel(name));
  }
}

export type { WorkerBridge };
export const bridge = new WorkerBridge();
export type { CancelToken };
