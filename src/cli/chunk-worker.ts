/**
 * Chunking worker thread for the CLI's ChunkPool: one tree-sitter Chunker per thread, and
 * the per-chunk work the store's thread would otherwise do (content hash, FTS tokens) via
 * the indexer's own `prepareChunks`, so results equal an in-thread run exactly.
 *
 * Protocol (see chunk-pool.ts): in {id, path, text}; out {id, result} or {id, error}.
 */
import { parentPort } from 'node:worker_threads';
import { createHash } from 'node:crypto';
import { Chunker } from '../core/chunk/chunker.ts';
import { nodeWasmLoader } from '../core/chunk/grammars-node.ts';
import { prepareChunks } from '../core/index/indexer.ts';
import { packText } from '../core/store/text-codec.ts';
import { nodeTextCodec } from '../core/store/text-codec-node.ts';
import { fileTrigramKeys } from '../core/text/trigram-keys.ts';
import type { ChunkRequest, ChunkReply } from './chunk-pool.ts';

const port = parentPort;
if (!port) throw new Error('chunk-worker.ts must run in a worker thread');

const chunkerReady = Chunker.create({ loadWasm: nodeWasmLoader });

/** Node's native SHA-256 for content hashes (the pure-JS one was ~4% of this thread's CPU). */
const nativeSha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

port.on('message', (req: ChunkRequest) => {
  void (async () => {
    let reply: ChunkReply;
    try {
      const chunker = await chunkerReady;
      const res = await chunker.chunkFile(req.path, req.text);
      // The file's text is packed for file_text here too, off the main (SQLite) thread.
      // So are its trigram keys (grep's prefilter).
      const packed = await packText(req.text, nodeTextCodec);
      const grams = fileTrigramKeys(req.text);
      reply = { id: req.id, result: { ...res, chunks: prepareChunks(res.chunks, nativeSha256), packed, grams } };
    } catch (e) {
      reply = { id: req.id, error: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(reply, 'result' in reply ? [reply.result.packed, reply.result.grams].flatMap((b) => (b ? [b.buffer as ArrayBuffer] : [])) : []);
  })();
});
port.postMessage({ ready: true });
