/**
 * Chunker worker: one tree-sitter Chunker, spawned by the indexer worker's ChunkWorkerPool
 * so parsing runs on other cores while the indexer reads and hashes. Also does the per-chunk
 * work (content hash, FTS tokens), packs the file's text and makes its trigram keys, all
 * through the indexer's own `chunkForStore`, so results equal an in-thread run exactly. The
 * browser twin of src/cli/chunk-worker.ts.
 *
 * Protocol: api.ts. Requests are answered in the order they finish (one at a time here).
 */
import type { ChunkReply, ChunkRequest, ChunkerStartup } from './api.ts';
import { Chunker } from '../../src/core/chunk/chunker.ts';
import { chunkForStore, preparedBuffers } from '../../src/core/index/indexer.ts';
import { browserWasmLoader } from '../indexer/wasm-loader.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const chunkerReady = Chunker.create({ loadWasm: browserWasmLoader });

scope.onmessage = (ev: MessageEvent<ChunkRequest>) => {
  const req = ev.data;
  void (async () => {
    let reply: ChunkReply;
    try {
      reply = { id: req.id, result: await chunkForStore(await chunkerReady, req.path, req.text) };
    } catch (e) {
      reply = { id: req.id, error: e instanceof Error ? e.message : String(e) };
    }
    scope.postMessage(reply, 'result' in reply ? preparedBuffers(reply.result) : []);
  })();
};

chunkerReady.then(
  () => scope.postMessage({ ready: true } satisfies ChunkerStartup),
  (e: unknown) => scope.postMessage({ failed: e instanceof Error ? e.message : String(e) } satisfies ChunkerStartup),
);
