/**
 * Protocol of a chunker worker (types only): the indexer worker's pool (pool.ts, over core's
 * ChunkPool) posts one request per file and gets one reply per request, matched by `id`.
 * Plain postMessage, not Comlink: requests are many and small, and a reply carries only
 * plain data. The protocol is core's (src/core/index/chunk-pool.ts), shared with the CLI's
 * worker threads.
 *
 * The worker first posts `{ ready: true }` once its tree-sitter runtime has loaded, or
 * `{ failed }` when it cannot start.
 */
export type { ChunkReply, ChunkRequest, ChunkerStartup } from '../../src/core/index/chunk-pool.ts';
