/**
 * Chunking worker thread for the CLI's chunk pool (chunk-pool.ts, over core's ChunkPool): one
 * tree-sitter Chunker per thread, and the work the store's thread would otherwise do (content
 * hashes, FTS tokens, packing the text, trigram keys) via the indexer's own `chunkForStore`,
 * so results equal an in-thread run exactly. The Node twin of workers/chunker/index.ts; both
 * serve the protocol through core's serveChunkRequests.
 *
 * Protocol: src/core/index/chunk-pool.ts. `{ ready }` once the chunker has loaded, or
 * `{ failed }`; then one reply per request.
 */
import { parentPort } from 'node:worker_threads';
import { Chunker } from '../core/chunk/chunker.ts';
import { nodeWasmLoader } from '../core/chunk/grammars-node.ts';
import { serveChunkRequests } from '../core/index/chunk-pool.ts';
import { nodeTextCodec } from '../core/store/text-codec-node.ts';
import { nativeSha256 } from './node-hash.ts';

const port = parentPort;
if (!port) throw new Error('chunk-worker.ts must run in a worker thread');

port.on('message', serveChunkRequests(
  Chunker.create({ loadWasm: nodeWasmLoader }),
  (m, transfer) => port.postMessage(m, transfer),
  { codec: nodeTextCodec, sha256Hex: nativeSha256 },
));
