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

/** Characters of text a HelpedChunker's helper is given ahead (HelpedChunkerOptions.aheadChars). */
export const HELPER_AHEAD_CHARS = 48_000;

export interface HelpedChunkerOptions {
  /** Start (or adopt) the one helper worker; it reports through `events` from then on. */
  spawn: (events: ChunkWorkerEvents) => ChunkWorkerHandle;
  /** This thread's chunker (called lazily, once). */
  local: () => Promise<FileChunker>;
  /**
   * Run `fn` after the events already queued (Node: setImmediate): this thread chunks one file
   * per turn, and the helper's replies (and its next files) are handled between two.
   */
  defer: (fn: () => void) => void;
  /** Characters of text in flight to the helper at most (default HELPER_AHEAD_CHARS); it always gets at least one file. */
  aheadChars?: number;
  /** Told once if the helper dies or cannot start (its files are then chunked here). */
  onWorkerLost?: (why: string) => void;
}

interface Job {
  path: string;
  text: string;
  resolve: (r: ChunkOutput) => void;
  reject: (e: Error) => void;
}

/**
 * HelpedChunker: a FileChunker for a run too small for a pool, where this thread chunks and ONE
 * helper worker takes files from the same queue (files in the order asked for): the helper is
 * kept `aheadChars` ahead while it keeps up, this thread chunks the next file each turn, so the
 * split follows each side's speed (a cold helper, batch writes on this thread). A file goes to
 * the helper only while this thread has at least as much text left as the helper has in flight,
 * so the run does not end waiting for the helper's files. Results are the same either way: the
 * helper runs `chunkForStore` as ChunkPool's workers do, and `local` is the in-thread chunker.
 *
 * The helper's failure or death is ChunkPool's: its files in flight go back to the queue's head
 * and every later file is chunked here. `dispose()` terminates the helper and rejects what is
 * queued or in flight.
 */
export class HelpedChunker implements FileChunker {
  readonly #opts: Required<Pick<HelpedChunkerOptions, 'aheadChars'>> & HelpedChunkerOptions;
  readonly #queue: Job[] = [];
  /** Characters of text in #queue. */
  #queued = 0;
  readonly #sent = new Map<number, Job>();
  /** Characters of text in #sent. */
  #sentChars = 0;
  #handle: ChunkWorkerHandle | null = null;
  #ready = false;
  #dead = false;
  #disposed = false;
  #localBusy = false;
  #localDue = false;
  #local: Promise<FileChunker> | null = null;
  #nextId = 1;
  /** Files chunked by the helper / by this thread (for traces and tests). */
  helperFiles = 0;
  localFiles = 0;

  constructor(opts: HelpedChunkerOptions) {
    this.#opts = { ...opts, aheadChars: opts.aheadChars ?? HELPER_AHEAD_CHARS };
    try {
      this.#handle = opts.spawn({ message: (m) => this.#receive(m), lost: (why) => this.#lose(why) });
    } catch (e) {
      this.#dead = true;
      opts.onWorkerLost?.(`could not start: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** The helper has loaded and is alive. */
  get helperReady(): boolean {
    return this.#ready && !this.#dead;
  }

  chunkFile(path: string, text: string): Promise<ChunkOutput> {
    if (this.#disposed) return Promise.reject(new Error('HelpedChunker is disposed'));
    return new Promise<ChunkOutput>((resolve, reject) => {
      this.#queue.push({ path, text, resolve, reject });
      this.#queued += text.length;
      this.#pump();
    });
  }

  /**
   * Stop: reject what is queued or in flight and ask the helper to terminate, without waiting
   * for its exit (~8 ms of a 100-file index's wall, idle, with nothing left to do but exit).
   */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#dead = true;
    Promise.resolve(this.#handle?.terminate()).catch(() => undefined);
    const error = new Error('HelpedChunker is disposed');
    for (const j of [...this.#sent.values(), ...this.#queue]) j.reject(error);
    this.#sent.clear();
    this.#queue.length = 0;
  }

  #pump(): void {
    while (this.#ready && !this.#dead && this.#queue.length > 0) {
      const next = this.#queue[0]!;
      const len = next.text.length;
      const inFlight = this.#sentChars + len;
      if (this.#sent.size > 0 && (inFlight > this.#opts.aheadChars || inFlight > this.#queued - len)) break;
      this.#queue.shift();
      this.#queued -= len;
      const id = this.#nextId++;
      this.#sent.set(id, next);
      this.#sentChars += len;
      this.#handle!.post({ id, path: next.path, text: next.text });
    }
    if (!this.#localBusy && !this.#localDue && this.#queue.length > 0) {
      this.#localDue = true;
      this.#opts.defer(() => this.#localTurn());
    }
  }

  #localTurn(): void {
    this.#localDue = false;
    const job = this.#queue.shift();
    if (!job || this.#disposed) return;
    this.#queued -= job.text.length;
    this.#localBusy = true;
    this.localFiles++;
    (this.#local ??= this.#opts.local())
      .then((c) => c.chunkFile(job.path, job.text))
      .then(job.resolve, job.reject)
      .finally(() => {
        this.#localBusy = false;
        this.#pump();
      });
  }

  #receive(m: ChunkReply | ChunkerStartup): void {
    if ('failed' in m) return this.#lose(`failed to start: ${m.failed}`);
    if ('ready' in m) {
      this.#ready = true;
      return this.#pump();
    }
    const job = this.#sent.get(m.id);
    if (!job) return;
    this.#sent.delete(m.id);
    this.#sentChars -= job.text.length;
    this.helperFiles++;
    if ('error' in m) job.reject(new Error(m.error));
    else job.resolve(m.result);
    this.#pump();
  }

  /** Retire the helper; its files in flight go back to the head of the queue, in order. */
  #lose(why: string): void {
    if (this.#dead) return;
    this.#dead = true;
    Promise.resolve(this.#handle?.terminate()).catch(() => undefined);
    this.#opts.onWorkerLost?.(why);
    const orphans = [...this.#sent.values()];
    this.#sent.clear();
    this.#sentChars = 0;
    for (const j of orphans) this.#queued += j.text.length;
    this.#queue.unshift(...orphans);
    this.#pump();
  }
}
