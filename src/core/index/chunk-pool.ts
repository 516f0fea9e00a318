/**
 * ChunkPool: a FileChunker over N chunk workers, so files are parsed and chunked on other
 * cores while the thread that runs the indexer reads, hashes and feeds the store. One pool for
 * both shells: the CLI spawns Node worker threads (src/cli/chunk-pool.ts), the browser's
 * indexer worker spawns dedicated workers (workers/chunker/); each worker runs `chunkForStore`
 * (indexer.ts) and speaks the protocol below.
 *
 * Invariants:
 * - Results equal the in-thread Chunker's + prepareChunks: the worker runs the same code.
 * - Workers start on the first request or on `start()` (a rescan that chunks nothing starts
 *   none) and live until `dispose()`; requests sent before a worker has loaded wait in its queue.
 * - A request goes to the live worker with the fewest characters of text in flight (a file's
 *   cost grows with its size): the indexer takes results in walk order, so a worker stuck
 *   behind big files while the other runs dry stalls the whole run. Replies resolve their own
 *   request by id, so any number may be in flight.
 * - A worker that fails to start or dies is terminated and never used again; its requests in
 *   flight, and every later request once none is left, are chunked by the in-thread
 *   `fallback`. A file is never lost to a dead worker. An error the chunker itself reports for
 *   one file (a reply with `error`) rejects that request only, as the in-thread chunker would
 *   throw (the indexer then indexes the file as plain text).
 * - `dispose()` terminates every worker and rejects what is in flight; later requests reject.
 */
import { chunkForStore, preparedBuffers, type FileChunker, type PreparedFile } from './indexer.ts';

/** One file to chunk. Plain postMessage, not Comlink: requests are many and small. */
export interface ChunkRequest {
  id: number;
  path: string;
  text: string;
}

/** `chunkForStore`'s answer (its buffers transferred, see preparedBuffers) or the chunker's error. */
export type ChunkReply = { id: number; result: PreparedFile } | { id: number; error: string };

/** Posted once by a worker: its tree-sitter runtime loaded, or why it cannot start. */
export type ChunkerStartup = { ready: true } | { failed: string };

/** What the pool hears from one worker; the shell's adapter calls these. */
export interface ChunkWorkerEvents {
  message(m: ChunkReply | ChunkerStartup): void;
  /** The worker is gone or unusable (an error or exit event, a reply that could not be read). */
  lost(why: string): void;
}

/** One started worker, as the shell's adapter hands it to the pool. */
export interface ChunkWorkerHandle {
  post(req: ChunkRequest): void;
  terminate(): unknown;
}

/**
 * A chunk worker's side of the protocol, shared by the CLI's thread (src/cli/chunk-worker.ts)
 * and the browser's worker (workers/chunker/index.ts): posts `{ ready }` once `chunker` has
 * loaded (or `{ failed }`), and returns the handler that answers each request with
 * `chunkForStore`, transferring the result's buffers. `post` is the worker's postMessage;
 * `o.wire`: the chunks go flat (store/chunk-wire.ts), for a shell whose postMessage clones
 * objects field by field and hands them on once more (the browser's indexer worker).
 */
export function serveChunkRequests(
  chunker: Promise<Parameters<typeof chunkForStore>[0]>,
  post: (m: ChunkReply | ChunkerStartup, transfer: ArrayBuffer[]) => void,
  o: Parameters<typeof chunkForStore>[3] = {},
): (req: ChunkRequest) => void {
  chunker.then(
    () => post({ ready: true }, []),
    (e: unknown) => post({ failed: e instanceof Error ? e.message : String(e) }, []),
  );
  return (req) => {
    void (async () => {
      let reply: ChunkReply;
      try {
        reply = { id: req.id, result: await chunkForStore(await chunker, req.path, req.text, o) };
      } catch (e) {
        reply = { id: req.id, error: e instanceof Error ? e.message : String(e) };
      }
      post(reply, 'result' in reply ? preparedBuffers(reply.result) : []);
    })();
  };
}

/**
 * Default workers: all cores but one (the store's SQLite writes keep one busy), at least 2
 * where there are 2 cores — the thread that writes waits on the workers part of the time and
 * a second worker uses it (CLI, kernel subset, 2 cores: 86 s with 1 worker, 79 s with 2,
 * 2026-11-22) — and never more than the cores. Unknown core count: 2.
 */
export function defaultPoolSize(cores: number | undefined): number {
  const n = cores && cores > 0 ? Math.floor(cores) : 2;
  return Math.min(n, Math.max(2, n - 1));
}

export interface ChunkPoolOptions {
  /** Start one worker; it reports through `events` from then on. */
  spawn: (events: ChunkWorkerEvents) => ChunkWorkerHandle;
  size: number;
  /** The in-thread chunker used when workers die or cannot start (called lazily). */
  fallback: () => Promise<FileChunker>;
  /** Told once per worker that died, with why (for a warning in the log). */
  onWorkerLost?: (why: string) => void;
}

/** What a FileChunker answers: a worker's prepared file or the fallback's raw chunks. */
type ChunkOutput = Awaited<ReturnType<FileChunker['chunkFile']>>;

interface Pending {
  path: string;
  text: string;
  resolve: (r: ChunkOutput) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: ChunkWorkerHandle | null;
  pending: Map<number, Pending>;
  /** Characters of text in `pending`. */
  chars: number;
  dead: boolean;
}

export class ChunkPool implements FileChunker {
  readonly #opts: ChunkPoolOptions;
  #slots: Slot[] | null = null;
  #nextId = 1;
  #disposed = false;
  /** Files chunked by the fallback because no worker could take them. */
  fallbackFiles = 0;

  constructor(opts: ChunkPoolOptions) {
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

  /** Start the workers now (they load while the caller does other work); later calls do nothing. */
  start(): void {
    if (!this.#disposed) this.#start();
  }

  chunkFile(path: string, text: string): Promise<ChunkOutput> {
    if (this.#disposed) return Promise.reject(new Error('ChunkPool is disposed'));
    let slot: Slot | null = null;
    for (const s of this.#start()) if (!s.dead && (!slot || s.chars < slot.chars)) slot = s;
    if (!slot) return this.#inThread(path, text);
    const id = this.#nextId++;
    const target = slot;
    return new Promise<ChunkOutput>((resolve, reject) => {
      target.pending.set(id, { path, text, resolve, reject });
      target.chars += text.length;
      target.worker!.post({ id, path, text });
    });
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const stopping: unknown[] = [];
    for (const s of this.#slots ?? []) {
      s.dead = true;
      stopping.push(s.worker?.terminate());
      for (const p of s.pending.values()) p.reject(new Error('ChunkPool is disposed'));
      s.pending.clear();
    }
    await Promise.allSettled(stopping);
  }

  /** The in-thread Chunker answers raw chunks; the indexer prepares them either way. */
  async #inThread(path: string, text: string): Promise<ChunkOutput> {
    this.fallbackFiles++;
    return (await this.#opts.fallback()).chunkFile(path, text);
  }

  #start(): Slot[] {
    if (this.#slots) return this.#slots;
    const slots: Slot[] = [];
    this.#slots = slots;
    for (let i = 0; i < this.#opts.size; i++) {
      const slot: Slot = { worker: null, pending: new Map(), chars: 0, dead: false };
      slots.push(slot);
      try {
        slot.worker = this.#opts.spawn({
          message: (m) => this.#receive(slot, m),
          lost: (why) => this.#lose(slot, why),
        });
      } catch (e) {
        slot.dead = true;
        this.#opts.onWorkerLost?.(`could not start: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return slots;
  }

  #receive(slot: Slot, m: ChunkReply | ChunkerStartup): void {
    if ('failed' in m) return this.#lose(slot, `failed to start: ${m.failed}`);
    if (!('id' in m)) return;
    const p = slot.pending.get(m.id);
    if (!p) return;
    slot.pending.delete(m.id);
    slot.chars -= p.text.length;
    if ('error' in m) p.reject(new Error(m.error));
    else p.resolve(m.result);
  }

  /** Retire a worker; whatever it had in flight is chunked in-thread. */
  #lose(slot: Slot, why: string): void {
    if (slot.dead) return;
    slot.dead = true;
    Promise.resolve(slot.worker?.terminate()).catch(() => undefined);
    this.#opts.onWorkerLost?.(why);
    const orphans = [...slot.pending.values()];
    slot.pending.clear();
    slot.chars = 0;
    for (const p of orphans) this.#inThread(p.path, p.text).then(p.resolve, p.reject);
  }
}
