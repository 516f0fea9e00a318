/**
 * Protocol of a chunker worker (types only): the indexer worker's ChunkWorkerPool (pool.ts)
 * posts one request per file and gets one reply per request, matched by `id`. Plain
 * postMessage, not Comlink: requests are many and small, and a reply carries only plain data.
 *
 * The worker first posts `{ ready: true }` once its tree-sitter runtime has loaded, or
 * `{ failed }` when it cannot start.
 */
import type { PreparedFile } from '../../src/core/index/indexer.ts';

export interface ChunkRequest {
  id: number;
  path: string;
  text: string;
}

/**
 * What `chunkForStore` returns: chunks prepared, the file's text packed for file_text and its
 * trigram keys (made here, off the indexer's and the store's threads; their buffers are
 * transferred, not copied).
 */
export type ChunkResult = PreparedFile;

export type ChunkReply = { id: number; result: ChunkResult } | { id: number; error: string };

export type ChunkerStartup = { ready: true } | { failed: string };
