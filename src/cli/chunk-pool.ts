/**
 * ChunkPool: a FileChunker over Node worker threads (chunk-worker.ts), so the CLI parses
 * and chunks on other cores while its main thread writes SQLite. The browser gets the same
 * split from its separate indexer and store workers.
 *
 * Invariants:
 * - Results equal the in-thread Chunker's + prepareChunks: the worker runs the same code.
 * - Requests go to the least-busy worker; replies resolve their own request (by id), so any
 *   number may be in flight. A worker that dies rejects its pending requests (the indexer
 *   then indexes those files as text) and is not reused.
 * - `dispose()` terminates every worker; a disposed pool rejects new requests.
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileChunker, PreparedFile } from '../core/index/indexer.ts';

/**
 * Default workers: all cores but the one the main thread (SQLite writes) keeps busy, and at
 * least 2 where there are 2 cores: the main thread is idle between writes, so a second worker
 * uses that time (kernel subset, 2 cores, `sift index --no-embed`: 86 s with 1 worker, 79 s
 * with 2, 2026-11-22).
 */
export const DEFAULT_POOL_SIZE = Math.min(availableParallelism(), Math.max(2, availableParallelism() - 1));

export interface ChunkRequest {
  id: number;
  path: string;
  text: string;
}
export type ChunkReply = { id: number; result: PreparedFile } | { id: number; error: string };

type Result = Extract<ChunkReply, { result: unknown }>['result'];
interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (r: Result) => void; reject: (e: Error) => void }>;
  dead: boolean;
}

/**
 * The worker runs TypeScript: a tiny eval'd bootstrap registers tsx's ESM hooks inside the
 * thread (module hooks and `--import` in execArgv do not reach worker threads in Node 20),
 * then imports chunk-worker.ts.
 */
function workerBootstrap(): string {
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(require.resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
  const entry = new URL('./chunk-worker.ts', import.meta.url).href;
  return `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`
    + `.catch((e) => { require('node:worker_threads').parentPort.postMessage({ failed: String(e && e.stack || e) }); });`;
}

export class ChunkPool implements FileChunker {
  readonly #slots: Slot[] = [];
  #nextId = 1;
  #disposed = false;

  private constructor() {}

  /** Start `size` workers and wait until each has loaded. */
  static async create(size = DEFAULT_POOL_SIZE): Promise<ChunkPool> {
    const pool = new ChunkPool();
    const bootstrap = workerBootstrap();
    await Promise.all(
      Array.from({ length: Math.max(1, size) }, () => {
        const worker = new Worker(bootstrap, { eval: true });
        const slot: Slot = { worker, pending: new Map(), dead: false };
        pool.#slots.push(slot);
        return new Promise<void>((resolve, reject) => {
          worker.once('message', (m: { ready?: true; failed?: string }) => (m.failed ? reject(new Error(`chunk worker failed to start: ${m.failed}`)) : resolve()));
          worker.once('error', reject);
          worker.on('message', (m: ChunkReply | { ready?: true; failed?: string }) => {
            if (!('id' in m)) return;
            const p = slot.pending.get(m.id);
            if (!p) return;
            slot.pending.delete(m.id);
            if ('error' in m) p.reject(new Error(m.error));
            else p.resolve(m.result);
          });
          const die = (why: string): void => {
            slot.dead = true;
            for (const p of slot.pending.values()) p.reject(new Error(`chunk worker stopped: ${why}`));
            slot.pending.clear();
          };
          worker.on('error', (e) => die(e.message));
          worker.on('exit', (code) => die(`exit code ${code}`));
        });
      }),
    ).catch(async (e: unknown) => {
      await pool.dispose();
      throw e;
    });
    return pool;
  }

  get size(): number {
    return this.#slots.length;
  }

  chunkFile(path: string, text: string): Promise<Result> {
    if (this.#disposed) return Promise.reject(new Error('ChunkPool is disposed'));
    const live = this.#slots.filter((s) => !s.dead);
    if (!live.length) return Promise.reject(new Error('no chunk worker is running'));
    const slot = live.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.#nextId++;
    return new Promise<Result>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, path, text } satisfies ChunkRequest);
    });
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await Promise.all(this.#slots.map((s) => s.worker.terminate()));
  }
}
