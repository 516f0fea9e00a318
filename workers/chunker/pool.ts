/**
 * The indexer worker's chunker pool: core's ChunkPool (src/core/index/chunk-pool.ts) over
 * dedicated workers running index.ts, so the indexer worker parses on other cores while it
 * reads, hashes and feeds the store worker. This file only maps a Worker's events onto the
 * pool's; the CLI's twin is src/cli/chunk-pool.ts (Node worker threads).
 */
import { ChunkPool, type ChunkWorkerEvents, type ChunkWorkerHandle } from '../../src/core/index/chunk-pool.ts';
import type { FileChunker } from '../../src/core/index/indexer.ts';

export { defaultPoolSize } from '../../src/core/index/chunk-pool.ts';

/** The part of `Worker` the pool uses. */
export interface ChunkWorkerLike {
  postMessage(message: unknown): void;
  onmessage: ((ev: MessageEvent) => unknown) | null;
  onerror: ((ev: ErrorEvent) => unknown) | null;
  onmessageerror: ((ev: MessageEvent) => unknown) | null;
  terminate(): void;
}

/** Adapt one started Worker to the pool: its replies, and error / messageerror as its loss. */
export function adaptWorker(worker: ChunkWorkerLike, events: ChunkWorkerEvents): ChunkWorkerHandle {
  worker.onmessage = (ev) => events.message(ev.data as Parameters<ChunkWorkerEvents['message']>[0]);
  worker.onerror = (ev) => events.lost(ev.message || 'error event');
  worker.onmessageerror = () => events.lost('a reply could not be deserialized');
  return { post: (req) => worker.postMessage(req), terminate: () => worker.terminate() };
}

/** A pool of `size` chunker workers started by `spawn`; `fallback` chunks what none can take. */
export function createChunkWorkerPool(size: number, spawn: () => ChunkWorkerLike, fallback: () => Promise<FileChunker>, onWorkerLost?: (why: string) => void): ChunkPool {
  return new ChunkPool({ size, fallback, onWorkerLost, spawn: (events) => adaptWorker(spawn(), events) });
}
