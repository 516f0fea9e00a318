/**
 * Chunker worker: one tree-sitter Chunker, spawned by the indexer worker's ChunkWorkerPool
 * so parsing runs on other cores while the indexer reads and hashes. Also does the per-chunk
 * work (content hash, FTS tokens) through the indexer's own `prepareChunks`, so results equal
 * an in-thread run exactly, and packs the file's text and makes its trigram keys as the
 * indexer would (`packText`, `fileTrigramKeys`). The browser twin of src/cli/chunk-worker.ts.
 *
 * Protocol: api.ts. Requests are answered in the order they finish (one at a time here).
 */
import type { ChunkReply, ChunkRequest, ChunkerStartup } from './api.ts';
import { Chunker } from '../../src/core/chunk/chunker.ts';
import { prepareChunks } from '../../src/core/index/indexer.ts';
import { browserWasmLoader } from '../indexer/wasm-loader.ts';
import { packText } from '../../src/core/store/text-codec.ts';
import { fileTrigramKeys } from '../../src/core/text/trigram-keys.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const chunkerReady = Chunker.create({ loadWasm: browserWasmLoader });

scope.onmessage = (ev: MessageEvent<ChunkRequest>) => {
  const req = ev.data;
  void (async () => {
    let reply: ChunkReply;
    try {
      const chunker = await chunkerReady;
      const res = await chunker.chunkFile(req.path, req.text);
      const packed = await packText(req.text);
      const grams = fileTrigramKeys(req.text);
      reply = { id: req.id, result: { ...res, chunks: prepareChunks(res.chunks), packed, grams } };
    } catch (e) {
      reply = { id: req.id, error: e instanceof Error ? e.message : String(e) };
    }
    // Both arrays are fresh and whole-buffer (packText, fileTrigramKeys): safe to transfer.
    scope.postMessage(reply, 'result' in reply ? [reply.result.packed.buffer, reply.result.grams.buffer] : []);
  })();
};

chunkerReady.then(
  () => scope.postMessage({ ready: true } satisfies ChunkerStartup),
  (e: unknown) => scope.postMessage({ failed: e instanceof Error ? e.message : String(e) } satisfies ChunkerStartup),
);
