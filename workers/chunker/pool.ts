/**
 * The indexer worker's chunker pool: core's ChunkPool (src/core/index/chunk-pool.ts) over
 * dedicated workers running index.ts, so the indexer worker parses on other cores while it
 * reads, hashes and feeds the store worker. This file maps a Worker's events onto the pool's
 * and answers the workers' WASM requests (api.ts) with the parent's compiled modules; the
 * CLI's twin is src/cli/chunk-pool.ts (Node worker threads).
 */
import { ChunkPool, type ChunkWorkerEvents, type ChunkWorkerHandle } from '../../src/core/index/chunk-pool.ts';
import type { FileChunker } from '../../src/core/index/indexer.ts';
import type { WasmReply, WasmRequest } from './api.ts';

export { defaultPoolSize } from '../../src/core/index/chunk-pool.ts';

/** The part of `Worker` the pool uses. */
export interface ChunkWorkerLike {
  postMessage(message: unknown): void;
  onmessage: ((ev: MessageEvent) => unknown) | null;
  onerror: ((ev: ErrorEvent) => unknown) | null;
  onmessageerror: ((ev: MessageEvent) => unknown) | null;
  terminate(): void;
}

export interface ChunkWorkerHooks {
  /** Compiles (once) the WASM file a worker asks for; without it a request is answered with an error. */
  provideWasm?: (file: string) => Promise<WebAssembly.Module>;
  /** A worker reported `{ ready }` (its tree-sitter runtime loaded). */
  onReady?: () => void;
}

/** Adapt one started Worker to the pool: its replies, its WASM requests, and error / messageerror as its loss. */
export function adaptWorker(worker: ChunkWorkerLike, events: ChunkWorkerEvents, hooks: ChunkWorkerHooks = {}): ChunkWorkerHandle {
  worker.onmessage = (ev) => {
    const m = ev.data as Parameters<ChunkWorkerEvents['message']>[0] | WasmRequest;
    if ('wasmRequest' in m) {
      const file = m.wasmRequest;
      const reply = hooks.provideWasm ? hooks.provideWasm(file) : Promise.reject(new Error('no WASM provider'));
      reply.then(
        (module) => worker.postMessage({ wasmReply: file, module } satisfies WasmReply),
        (e: unknown) => worker.postMessage({ wasmReply: file, error: e instanceof Error ? e.message : String(e) } satisfies WasmReply),
      );
      return;
    }
    if ('ready' in m) hooks.onReady?.();
    events.message(m);
  };
  worker.onerror = (ev) => events.lost(ev.message || 'error event');
  worker.onmessageerror = () => events.lost('a reply could not be deserialized');
  return { post: (req) => worker.postMessage(req), terminate: () => worker.terminate() };
}

/** A pool of `size` chunker workers started by `spawn`; `fallback` chunks what none can take. */
export function createChunkWorkerPool(size: number, spawn: () => ChunkWorkerLike, fallback: () => Promise<FileChunker>, onWorkerLost?: (why: string) => void, hooks: ChunkWorkerHooks = {}): ChunkPool {
  return new ChunkPool({ size, fallback, onWorkerLost, spawn: (events) => adaptWorker(spawn(), events, hooks) });
}
