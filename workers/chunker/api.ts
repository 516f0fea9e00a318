/**
 * Protocol of a chunker worker (types only): the indexer worker's pool (pool.ts, over core's
 * ChunkPool) posts one request per file and gets one reply per request, matched by `id`.
 * Plain postMessage, not Comlink: requests are many and small, and a reply carries only
 * plain data. The protocol is core's (src/core/index/chunk-pool.ts), shared with the CLI's
 * worker threads.
 *
 * The worker first posts `{ ready: true }` once its tree-sitter runtime has loaded, or
 * `{ failed }` when it cannot start.
 *
 * WASM (this shell's addition): the worker compiles nothing. It asks its parent for each file
 * it needs (`WasmRequest`: the runtime at start, a grammar on its language's first file) and
 * the parent answers with the module it compiled once for all its chunkers (`WasmReply`).
 */
export type { ChunkReply, ChunkRequest, ChunkerStartup } from '../../src/core/index/chunk-pool.ts';

/** Worker → parent: the compiled module of this WASM file, please. */
export interface WasmRequest {
  wasmRequest: string;
}

/** Parent → worker: the module (a WebAssembly.Module posts without copying its code), or why not. */
export type WasmReply = { wasmReply: string; module: WebAssembly.Module } | { wasmReply: string; error: string };
