/**
 * A chunk thread started before the run that uses it: bin/sift starts it for `sift index` /
 * `sift rebuild` of a small folder (its entry count) before the bundle loads, so the thread has
 * loaded its isolate, the chunker's modules and web-tree-sitter while the main thread loads the
 * bundle, opens SQLite and walks; the run then chunks on both threads (core's HelpedChunker,
 * cmd-index.ts). Built as a file of its own (dist-cli/chunk-helper.mjs, scripts/build-cli.mjs):
 * only Node built-ins, nothing of the bundle, so starting it costs bin/sift ~5 ms of the main
 * thread.
 *
 * Invariants:
 * - Until `adopt`, the thread never keeps the process alive (unref) and what it says (ready,
 *   failed, exit) waits in a backlog; `adopt` replays it to the pool's events, after the caller
 *   has its handle (a microtask later).
 * - Started only where a core is free (`helperWanted`): on a loaded machine a second thread's
 *   start and cold code (~0.2–0.3 s of CPU for 100 files) cost everyone more than it saves.
 */
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ChunkReply, ChunkRequest, ChunkWorkerEvents, ChunkWorkerHandle, ChunkerStartup } from '../core/index/chunk-pool.ts';

/**
 * A folder with fewer entries than this gets no helper (bin/sift's count, ignored folders
 * included): its chunking is shorter than the thread's start (~80 ms of CPU).
 */
export const HELPER_MIN_ENTRIES = 24;

/**
 * Whether a helper thread pays here: a folder of at least HELPER_MIN_ENTRIES entries, no
 * `SIFT_CHUNK_WORKERS=0`, at least 2 cores, and a core free on average over the last minute
 * (load below cores − 0.5; Linux's load counts runnable threads). `SIFT_CHUNK_HELPER=1` / `=0`
 * decide instead of the cores and the load (benchmarks, tests).
 */
export function helperWanted(entries: number, env: NodeJS.ProcessEnv = process.env, cores = availableParallelism(), load = loadavg()[0]!): boolean {
  if (entries < HELPER_MIN_ENTRIES || env.SIFT_CHUNK_WORKERS === '0' || env.SIFT_CHUNK_HELPER === '0') return false;
  if (env.SIFT_CHUNK_HELPER === '1') return true;
  return cores >= 2 && load < cores - 0.5;
}

type Event = (e: ChunkWorkerEvents) => void;

/** The bundled chunk worker beside this file (dist-cli/chunk-worker.mjs), failures posted as `{ failed }` (chunk-pool.ts workerBootstrap). */
function bundledBootstrap(): string {
  const entry = new URL('./chunk-worker.mjs', import.meta.url).href;
  return `import(${JSON.stringify(entry)}).catch((e) => { require('node:worker_threads').parentPort.postMessage({ failed: String(e && e.stack || e) }); });`;
}

export class EarlyChunkThread {
  readonly #worker: Worker;
  #events: ChunkWorkerEvents | null = null;
  #adopted = false;
  #backlog: Event[] = [];
  #stopped: Promise<number> | null = null;

  /** Start the thread now; `bootstrap`: the eval'd code that loads the chunk worker (default: the bundle's). */
  constructor(bootstrap = bundledBootstrap()) {
    this.#worker = new Worker(bootstrap, { eval: true });
    this.#worker.unref();
    const deliver = (f: Event): void => {
      if (this.#events) f(this.#events);
      else this.#backlog.push(f);
    };
    this.#worker.on('message', (m: ChunkReply | ChunkerStartup) => deliver((e) => e.message(m)));
    this.#worker.on('messageerror', () => deliver((e) => e.lost('a reply could not be deserialized')));
    this.#worker.on('error', (err: Error) => deliver((e) => e.lost(err.message)));
    this.#worker.on('exit', (code: number) => deliver((e) => e.lost(`exit code ${code}`)));
  }

  /** The thread's id (for traces). */
  get threadId(): number {
    return this.#worker.threadId;
  }

  /** Hand the thread to a pool (once): from now on it keeps the process alive until terminated. */
  adopt(events: ChunkWorkerEvents): ChunkWorkerHandle {
    if (this.#adopted) throw new Error('EarlyChunkThread adopted twice');
    this.#adopted = true;
    this.#worker.ref();
    const backlog = this.#backlog;
    this.#backlog = [];
    // After the caller has stored the handle returned here: a replayed `ready` makes it post.
    queueMicrotask(() => {
      this.#events = events;
      for (const f of backlog) f(events);
      // Events that came meanwhile (none can: they are macrotasks) would be in #backlog.
      for (const f of this.#backlog.splice(0)) f(events);
    });
    return { post: (req: ChunkRequest) => this.#worker.postMessage(req), terminate: () => this.terminate() };
  }

  /** Stop the thread (adopted or not); later calls return the same promise. */
  terminate(): Promise<number> {
    this.#stopped ??= this.#worker.terminate();
    return this.#stopped;
  }
}

/** bin/sift: a helper for an index of a folder of `entries` entries, or null where none pays (helperWanted). */
export function startChunkHelper(entries: number): EarlyChunkThread | null {
  if (!helperWanted(entries)) return null;
  try {
    return new EarlyChunkThread();
  } catch {
    return null; // the run chunks on its own thread, as without a helper
  }
}
