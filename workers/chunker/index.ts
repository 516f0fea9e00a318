/**
 * Chunker worker: one tree-sitter Chunker, spawned by the indexer worker's ChunkWorkerPool
 * so parsing runs on other cores while the indexer reads and hashes. Also does the per-chunk
 * work (content hash, FTS tokens), packs the file's text and makes its trigram keys, all
 * through the indexer's own `chunkForStore`, so results equal an in-thread run exactly. The
 * browser twin of src/cli/chunk-worker.ts.
 *
 * Protocol: api.ts, served by core's serveChunkRequests (as the CLI's thread does); the WASM
 * modules (runtime, grammars) come compiled from the parent (WasmRequest / WasmReply).
 * Requests are answered in the order they finish (one at a time here).
 */
import type { ChunkRequest, WasmReply, WasmRequest } from './api.ts';
import { Chunker } from '../../src/core/chunk/chunker.ts';
import { serveChunkRequests } from '../../src/core/index/chunk-pool.ts';
import { measureSince } from '../../src/core/user-timing.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const asked = new Map<string, { resolve: (m: WebAssembly.Module) => void; reject: (e: Error) => void }>();

/** The parent's compiled module for `file` (one question per file: the Chunker caches what it loads). */
function fromParent(file: string): Promise<WebAssembly.Module> {
  return new Promise((resolve, reject) => {
    asked.set(file, { resolve, reject });
    scope.postMessage({ wasmRequest: file } satisfies WasmRequest);
  });
}

const t0 = performance.now();
const chunker = Chunker.create({ loadWasm: fromParent });
chunker.then(() => measureSince('chunker-ready', t0), () => undefined);
// Flat chunks (store/chunk-wire.ts): the indexer worker passes them on to the store worker
// unopened, so the reply's ~20 fields per chunk are cloned by neither hop.
const serve = serveChunkRequests(chunker, (m, transfer) => scope.postMessage(m, transfer), { wire: true });
scope.onmessage = (ev: MessageEvent<ChunkRequest | WasmReply>) => {
  const m = ev.data;
  if (!('wasmReply' in m)) return serve(m);
  const waiting = asked.get(m.wasmReply);
  asked.delete(m.wasmReply);
  if ('module' in m) waiting?.resolve(m.module);
  else waiting?.reject(new Error(m.error));
};
