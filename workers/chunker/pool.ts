/**
 * ChunkWorkerPool: a FileChunker over N chunker workers (index.ts), so the indexer worker
 * parses on other cores while it reads, hashes and feeds the store worker. The browser twin
 * of the CLI's ChunkPool (src/cli/chunk-pool.ts).
 *
 * Invariants:
 * - Results equal the in-thread Chunker's + prepareChunks: the worker runs the same code.
 * - Workers start on the first request (a rescan that chunks nothing starts none) and live
 *   until `dispose()`.
 * - A request goes to the live worker with the fewest requests in flight; replies resolve
 *   their own request by id, so any number may be in flight.
 * - A worker that fails to start or dies (an `error` / `messageerror` event) is terminated and
 *   never used again; its requests in flight, and every later request once none is left, are
 *   chunked by the in-thread `fallback`. A file is never lost to a dead worker. An error the
 *   chunker itself reports for one file (a reply with `error`) rejects that request only, as
 *   the in-thread chunker would throw.
 * - `dispose()` terminates every worker; later requests reject.
 */
import type { FileChunker } from '../../src/core/index/indexer.ts';
import type { ChunkReply, ChunkRequest, ChunkResult, ChunkerStartup } from './api.ts';

/** What a FileChunker answers: a worker's prepared chunks or the fallback's raw ones. */
type ChunkOutput = Awaited<ReturnType<FileChunker['chunkFile']>>;

/** The part of `Worker` the pool uses (a fake in tests). */
export interface ChunkWorkerLike {
  postMessage(message: ChunkRequest): void;
  addEventListener(type: 'message', listener: (ev: { data: ChunkReply | ChunkerStartup }) => void): void;
  addEventListener(type: 'error' | 'messageerror', listener: (ev: { message?: string }) => void): void;
  terminate(): void;
}

/**
 * Default workers: all cores but one (the store worker's SQLite writes keep one busy), and
 * at least 2: on 2 cores the indexer and store threads both wait on each other part of the
 * time, and the CLI gained from a second chunk worker there (86 → 79 s on the kernel subset).
 */
export function defaultPoolSize(hardwareConcurrency: number | undefined): number {
  const cores = hardwareConcurrency && hardwareConcurrency > 0 ? hardwareConcurrency : 2;
  return Math.max(2, cores - 1);
}

interface Pending {
  path: string;
  text: string;
  resolve: (r: ChunkOutput) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: ChunkWorkerLike;
  pending: Map<number, Pending>;
  dead: boolean;
}

export interface ChunkWorkerPoolOptions {
  /** Starts one chunker worker. */
  spawn: () => ChunkWorkerLike;
  size: number;
  /** The in-thread chunker used when workers die or cannot start (called lazily). */
  fallback: () => Promise<FileChunker>;
  /** Told once per worker that died, with why (for a warning in the log). */
  onWorkerLost?: (why: string) => void;
}

export class ChunkWorkerPool implements FileChunker {
  readonly #opts: ChunkWorkerPoolOptions;
  #slots: Slot[] | null = null;
  #nextId = 1;
  #disposed = false;
  /** Files chunked by the fallback because no worker could take them. */
  fallbackFiles = 0;

  constructor(opts: ChunkWorkerPoolOptions) {
    this.#opts = { ...opts, size: Math.max(1, Math.floor(opts.size)) };
  }

  /** Workers asked for. */
  get size(): number {
    return this.#opts.size;
  }

  /** Workers started and still alive (0 before the first request). */
  get liveWorkers(): number {
    return this.#slots?.filter((s) => !s.dead).length ?? 0;
  }

  chunkFile(path: string, text: string): Promise<ChunkOutput> {
    if (this.#disposed) return Promise.reject(new Error('ChunkWorkerPool is disposed'));
    const live = this.#start().filter((s) => !s.dead);
    if (!live.length) return this.#inThread(path, text);
    const slot = live.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.#nextId++;
    return new Promise<ChunkOutput>((resolve, reject) => {
      slot.pending.set(id, { path, text, resolve, reject });
      slot.worker.postMessage({ id, path, text });
    });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const s of this.#slots ?? []) {
      s.dead = true;
      s.worker.terminate();
      for (const p of s.pending.values()) p.reject(new Error('ChunkWorkerPool is disposed'));
      s.pending.clear();
    }
  }

  /** The in-thread Chunker answers raw chunks; the indexer prepares them either way. */
  async #inThread(path: string, text: string): Promise<ChunkOutput> {
    this.fallbackFiles++;
    return (await this.#opts.fallback()).chunkFile(path, text);
  }

  #start(): Slot[] {
    if (this.#slots) return this.#slots;
    const slots: Slot[] = [];
    for (let i = 0; i < this.#opts.size; i++) {
      let worker: ChunkWorkerLike;
      try {
        worker = this.#opts.spawn();
      } catch (e) {
        this.#opts.onWorkerLost?.(`could not start: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      const slot: Slot = { worker, pending: new Map(), dead: false };
      worker.addEventListener('message', (ev) => {
        const m = ev.data;
        if ('failed' in m) return this.#lose(slot, `failed to start: ${m.failed}`);
        if (!('id' in m)) return;
        const p = slot.pending.get(m.id);
        if (!p) return;
        slot.pending.delete(m.id);
        if ('error' in m) p.reject(new Error(m.error));
        else p.resolve(m.result satisfies ChunkResult);
      });
      worker.addEventListener('error', (ev) => this.#lose(slot, ev.message || 'error event'));
      worker.addEventListener('messageerror', () => this.#lose(slot, 'a reply could not be deserialized'));
      slots.push(slot);
    }
    this.#slots = slots;
    return slots;
  }

  /** Retire a worker; whatever it had in flight is chunked in-thread. */
  #lose(slot: Slot, why: string): void {
    if (slot.dead) return;
    slot.dead = true;
    slot.worker.terminate();
    this.#opts.onWorkerLost?.(why);
    const orphans = [...slot.pending.values()];
    slot.pending.clear();
    for (const p of orphans) this.#inThread(p.path, p.text).then(p.resolve, p.reject);
  }
}
