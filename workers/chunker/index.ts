/**
 * Chunker worker: one tree-sitter Chunker, spawned by the indexer worker's ChunkWorkerPool
 * so parsing runs on other cores while the indexer reads and hashes. Also does the per-chunk
 * work (content hash, FTS tokens), packs the file's text and makes its trigram keys, all
 * through the indexer's own `chunkForStore`, so results equal an in-thread run exactly. The
 * browser twin of src/cli/chunk-worker.ts.
 *
 * Protocol: api.ts, served by core's serveChunkRequests (as the CLI's thread does).
 * Requests are answered in the order they finish (one at a time here).
 */
import type { ChunkRequest } from './api.ts';
import { Chunker } from '../../src/core/chunk/chunker.ts';
import { serveChunkRequests } from '../../src/core/index/chunk-pool.ts';
import { browserWasmLoader } from '../indexer/wasm-loader.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const serve = serveChunkRequests(Chunker.create({ loadWasm: browserWasmLoader }), (m, transfer) => scope.postMessage(m, transfer));
scope.onmessage = (ev: MessageEvent<ChunkRequest>) => serve(ev.data);
