/**
 * The bridge: the only code that creates workers and calls Comlink's `wrap()`. Every
 * method takes an AbortSignal; aborting rejects at once with an AbortError and, for long
 * calls, tells the worker to stop (a cancel token crosses instead of the signal).
 *
 * Topology: one store worker (all SQLite connections, vector indexes, search), one indexer
 * worker (walk, hash, tree-sitter), one embedder worker (model session). Writers reach the
 * store over a MessageChannel connected here, so rows never pass through the page.
 *
 * Each worker's methods are defined once, in its `workers/<name>/api.ts` contract: `#call`
 * takes the method as a key of that contract, so arguments, result and the call-log entry
 * are typed on it and cannot drift from the worker. Adding a worker method = add it to
 * api.ts, implement it in the worker's index.ts, add a one-line wrapper here.
 *
 * Invariants: workers start lazily and at most once; the indexer and embedder are stopped
 * after IDLE_STOP_MS without work (their WASM memory never shrinks otherwise); the store
 * worker lives as long as the page because it holds the database connections.
 */
import { proxy, transfer, wrap, releaseProxy, type Remote } from 'comlink';
import type { AgentCodebase, OutlineEntry, StoreWorkerApi, AppGrepRequest, AppGrepResponse, AppSearchRequest, AppSearchResponse, CodebaseInfo, DownloadProgress, ImportResult, OpenPackResult, VectorModel } from '../../../workers/store/api.ts';
import type { IndexerWorkerApi, IndexProgress, IndexWalkSettings, LiveFile, SourceRef } from '../../../workers/indexer/api.ts';
import type { EmbedderWorkerApi, ImportedModel, LoadProgress, ModelConfig, ModelLoadResult } from '../../../workers/embedder/api.ts';
import type { IndexSummary } from '../../core/index/indexer.ts';
import type { EmbedProgress, EmbedSummary } from '../../core/embed/embed-pass.ts';
import type { FileRecord, StoredChunk } from '../../core/types.ts';
import type { IndexStructures } from '../../core/store/store.ts';
import { abortError, newToken, type CancelToken } from '../../core/cancel.ts';
import type { MetaKey } from '../../core/store/meta.ts';
import type { ToolAnswer } from '../../core/tools/run.ts';

/** Idle writer workers are terminated after this long. */
const IDLE_STOP_MS = 60_000;
/** Calls kept for the debug panel. */
const CALL_LOG_SIZE = 40;

/** Each worker's contract, by name: the only place the bridge learns method names from. */
export interface WorkerApis {
  store: StoreWorkerApi;
  indexer: IndexerWorkerApi;
  embedder: EmbedderWorkerApi;
}

type WorkerName = keyof WorkerApis;

/** A method of worker `W`'s contract (`cancel` is not a call of its own: #call sends it). */
export type MethodName<W extends WorkerName> = Exclude<
  { [K in keyof WorkerApis[W]]: WorkerApis[W][K] extends (...args: never[]) => unknown ? K : never }[keyof WorkerApis[W]],
  'cancel'
> &
  string;

type Args<W extends WorkerName, M extends MethodName<W>> = WorkerApis[W][M] extends (...args: infer A) => unknown ? A : never;
type Result<W extends WorkerName, M extends MethodName<W>> = WorkerApis[W][M] extends (...args: never[]) => infer R ? Awaited<R> : never;

/** One timed worker call; `method` is a key of that worker's contract, never a free string. */
export type CallRecord = {
  [W in WorkerName]: { worker: W; method: MethodName<W>; ms: number; ok: boolean };
}[WorkerName];

interface Handle<T> {
  worker: Worker;
  remote: Remote<T>;
}

/** A remote seen as plain async functions by name (the one cast at the Comlink boundary). */
type Callable = Record<string, (...args: unknown[]) => Promise<unknown>>;

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
  #handles: { [W in WorkerName]: Handle<WorkerApis[W]> | null } = { store: null, indexer: null, embedder: null };
  #busy: Record<WorkerName, number> = { store: 0, indexer: 0, embedder: 0 };
  #idleTimers: Partial<Record<WorkerName, ReturnType<typeof setTimeout>>> = {};
  #queryModel: VectorModel | null = null;
  readonly calls: CallRecord[] = [];
  onCall: ((c: CallRecord) => void) | null = null;

  /** The worker's handle, started on first use. */
  #handle<W extends WorkerName>(name: W): Handle<WorkerApis[W]> {
    const handles = this.#handles as { [K in W]: Handle<WorkerApis[K]> | null };
    let h = handles[name];
    if (!h) {
      const worker = spawn(name);
      h = { worker, remote: wrap<WorkerApis[W]>(worker) };
      handles[name] = h;
    }
    return h;
  }

  #stop(name: WorkerName): void {
    const h = this.#handles[name];
    if (!h) return;
    h.remote[releaseProxy]();
    h.worker.terminate();
    this.#handles[name] = null;
    if (name === 'embedder') {
      // The store's query port died with the embedder.
      if (this.#queryModel) void this.#call('store', 'connectEmbedder', [null, null]).catch(() => undefined);
      this.#queryModel = null;
    }
  }

  /**
   * Calls `method` of worker `name` with `args` (types from that worker's contract), timed
   * and logged under that same key, raced against `signal`. With a `token` (one of the
   * args), aborting also asks the worker to `cancel(token)`. Tracks busy-ness for idle stop.
   */
  async #call<W extends WorkerName, M extends MethodName<W>>(
    name: W,
    method: M,
    args: Args<W, M>,
    signal?: AbortSignal,
    token?: CancelToken,
  ): Promise<Result<W, M>> {
    if (signal?.aborted) throw abortError();
    const remote = this.#handle(name).remote as unknown as Callable;
    this.#busy[name]++;
    clearTimeout(this.#idleTimers[name]);
    const t0 = performance.now();
    let ok = false;
    let onAbort: (() => void) | null = null;
    try {
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => {
          if (token) void (this.#handles[name]?.remote as unknown as Callable | undefined)?.cancel(token);
          reject(abortError());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      const r = (await Promise.race([remote[method](...(args as unknown[])), aborted])) as Result<W, M>;
      ok = true;
      return r;
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      this.#busy[name]--;
      const rec = { worker: name, method, ms: performance.now() - t0, ok } as CallRecord;
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

  /**
   * Starts worker `name` and loads its WASM (SQLite; tree-sitter) ahead of the work that
   * needs it: the store at startup, the indexer while a folder is being picked. Best effort.
   */
  warm(name: 'store' | 'indexer'): Promise<void> {
    return (name === 'store' ? this.#call('store', 'warm', []) : this.#call('indexer', 'warm', [])).catch(() => undefined);
  }

  // ---- store ----

  openCodebase(id: string, signal?: AbortSignal): Promise<CodebaseInfo> {
    return this.#call('store', 'open', [id], signal);
  }

  /** The spare index: the database of a codebase not added yet, created and held open (StoreWorkerApi.prepare). */
  prepareCodebase(id: string, signal?: AbortSignal): Promise<void> {
    return this.#call('store', 'prepare', [id], signal);
  }

  /** A published index by its manifest URL (issue 27): read-only, read over HTTP byte ranges. */
  openPack(id: string, manifestUrl: string, savedManifest: string | null, fetchedManifest: string | null = null, signal?: AbortSignal): Promise<OpenPackResult> {
    return this.#call('store', 'openPack', [id, manifestUrl, savedManifest, fetchedManifest], signal);
  }

  /** The whole pack, for hosts without byte ranges: kept as a local (imported) index. */
  downloadPack(id: string, manifestUrl: string, onProgress?: (p: DownloadProgress) => void, signal?: AbortSignal): Promise<ImportResult> {
    return this.#call('store', 'downloadPack', [id, manifestUrl, onProgress ? proxy(onProgress) : undefined], signal);
  }

  codebaseInfo(id: string, signal?: AbortSignal): Promise<CodebaseInfo> {
    return this.#call('store', 'info', [id], signal);
  }

  indexStructures(id: string, signal?: AbortSignal): Promise<IndexStructures> {
    return this.#call('store', 'structures', [id], signal);
  }

  removeCodebase(id: string, signal?: AbortSignal): Promise<void> {
    return this.#call('store', 'remove', [id], signal);
  }

  reloadVectors(id: string, signal?: AbortSignal): Promise<void> {
    return this.#call('store', 'reloadVectors', [id], signal);
  }

  search(req: AppSearchRequest, signal?: AbortSignal): Promise<AppSearchResponse> {
    const token = newToken('search');
    return this.#call('store', 'search', [req, token], signal, token);
  }

  /** Exact/regex search (issue 11); aborting cancels the scan in the worker. */
  grep(req: AppGrepRequest, signal?: AbortSignal): Promise<AppGrepResponse> {
    const token = newToken('grep');
    return this.#call('store', 'grep', [req, token], signal, token);
  }

  getChunks(id: string, ids: number[], signal?: AbortSignal): Promise<StoredChunk[]> {
    return this.#call('store', 'getChunks', [id, ids], signal);
  }

  getFileRecord(id: string, path: string, signal?: AbortSignal): Promise<FileRecord | null> {
    return this.#call('store', 'getFile', [id, path], signal);
  }

  getFileText(id: string, path: string, signal?: AbortSignal): Promise<string | null> {
    return this.#call('store', 'getFileText', [id, path], signal);
  }

  outline(id: string, path: string, signal?: AbortSignal): Promise<OutlineEntry[]> {
    return this.#call('store', 'outline', [id, path], signal);
  }

  setMeta(id: string, key: MetaKey, value: string, signal?: AbortSignal): Promise<void> {
    return this.#call('store', 'setMeta', [id, key, value], signal);
  }

  exportIndex(id: string, signal?: AbortSignal): Promise<Uint8Array> {
    return this.#call('store', 'exportIndex', [id], signal);
  }

  importIndex(id: string, bytes: Uint8Array, expectModel: string | null, signal?: AbortSignal): Promise<ImportResult> {
    return this.#call('store', 'importIndex', [id, transfer(bytes, [bytes.buffer as ArrayBuffer]), expectModel], signal);
  }

  /** An agent tool call (issue 26, WebMCP) over the codebases the page opened to browser agents. */
  agentTool(name: string, args: unknown, codebases: AgentCodebase[], signal?: AbortSignal): Promise<ToolAnswer> {
    return this.#call('store', 'agentTool', [name, args, codebases], signal);
  }

  // ---- indexer ----

  /** Indexes (or incrementally rescans) a codebase; rows flow indexer → store directly. */
  async indexCodebase(
    id: string,
    source: SourceRef,
    opts: { verify?: boolean; signal?: AbortSignal; onProgress: (p: IndexProgress) => void; walk?: IndexWalkSettings; firstFor?: string },
  ): Promise<IndexSummary> {
    // The indexer starts (worker, tree-sitter, walk) while the store connects its port: the
    // indexer's first store call waits in the port's queue, not the whole run behind it.
    const { port1, port2: storePort } = new MessageChannel();
    const connected = this.#call('store', 'connectWriter', [id, transfer(port1, [port1])], opts.signal);
    const token = newToken('index');
    const w = opts.walk;
    const req = transfer({ source, storePort, verify: opts.verify, include: w?.include, exclude: w?.exclude, maxFileSize: w?.maxFileSize, firstFor: opts.firstFor }, [storePort]);
    const run = this.#call('indexer', 'indexCodebase', [req, token, proxy(opts.onProgress)], opts.signal, token);
    // A store that cannot serve the port never answers the indexer: stop the run, report why.
    connected.catch(() => void (this.#handles.indexer?.remote as unknown as Callable | undefined)?.cancel(token));
    run.catch(() => undefined);
    await connected;
    return run;
  }

  readLiveFile(source: SourceRef, path: string, signal?: AbortSignal): Promise<LiveFile> {
    return this.#call('indexer', 'readLiveFile', [source, path], signal);
  }

  // ---- embedder ----

  /** Loads a model (reporting bytes read) and connects it to the store's vector leg. */
  async loadModel(cfg: ModelConfig, signal?: AbortSignal, onProgress?: (p: LoadProgress) => void): Promise<ModelLoadResult> {
    const token = newToken('model');
    const res = await this.#call('embedder', 'loadModel', [cfg, token, onProgress ? proxy(onProgress) : undefined], signal, token);
    if (res.ok) {
      const { port1, port2 } = new MessageChannel();
      await this.#call('embedder', 'serveQueries', [transfer(port1, [port1])]);
      this.#queryModel = { key: res.info.key, dim: res.info.dim };
      await this.#call('store', 'connectEmbedder', [transfer(port2, [port2]), this.#queryModel], signal);
    }
    return res;
  }

  async unloadModel(signal?: AbortSignal): Promise<void> {
    this.#queryModel = null;
    await this.#call('store', 'connectEmbedder', [null, null], signal);
    if (this.#handles.embedder) this.#stop('embedder');
  }

  async embedPending(id: string, opts: { signal?: AbortSignal; onProgress: (p: EmbedProgress) => void }): Promise<EmbedSummary> {
    const storePort = await this.#writerPort(id, opts.signal);
    const token = newToken('embed');
    return this.#call('embedder', 'embedPending', [transfer(storePort, [storePort]), token, proxy(opts.onProgress)], opts.signal, token);
  }

  importModelFolder(handle: FileSystemDirectoryHandle, signal?: AbortSignal): Promise<ImportedModel> {
    return this.#call('embedder', 'importModelFolder', [handle], signal);
  }

  listImportedModels(signal?: AbortSignal): Promise<ImportedModel[]> {
    return this.#call('embedder', 'listImportedModels', [], signal);
  }

  removeImportedModel(name: string, signal?: AbortSignal): Promise<void> {
    return this.#call('embedder', 'removeImportedModel', [name], signal);
  }

  /** A port served by the store worker as codebase `id`'s writer (for the indexer or embedder). */
  async #writerPort(id: string, signal?: AbortSignal): Promise<MessagePort> {
    const { port1, port2 } = new MessageChannel();
    await this.#call('store', 'connectWriter', [id, transfer(port1, [port1])], signal);
    return port2;
  }
}

export type { WorkerBridge };
export const bridge = new WorkerBridge();
export type { CancelToken };
