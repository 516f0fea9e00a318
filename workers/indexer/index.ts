/**
 * Indexer worker: walks a folder handle (or a File snapshot), hashes and chunks, and streams
 * rows to the store worker over the port it is handed. Thin: the pipeline is
 * src/core/index/indexer.ts; this file only adapts sources, ports and cancellation.
 */
import { expose, releaseProxy, wrap } from 'comlink';
import type { IndexerWorkerApi, IndexProgress, IndexRequest, LiveFile, SourceRef } from './api.ts';
import type { WriterPortApi } from '../store/api.ts';
import { indexCodebase, decodeText, type IndexStore } from '../../src/core/index/indexer.ts';
import { ProgressMeter } from '../../src/core/index/progress.ts';
import { Chunker } from '../../src/core/chunk/chunker.ts';
import { FsaFileSource } from '../../src/core/source/fsa-source.ts';
import { FileListSource } from '../../src/core/source/memory-source.ts';
import type { FileSource } from '../../src/core/source/types.ts';
import { sha256Hex } from '../../src/core/hash/hash.ts';
import { CancelRegistry, type CancelToken } from '../../src/core/cancel.ts';
import { browserWasmLoader } from './wasm-loader.ts';

/**
 * Merge the keyword index after a run that wrote this many rows (the CLI's threshold): one
 * segment instead of dozens after a big cold index, which keyword queries then read.
 */
const OPTIMIZE_AFTER_ROWS = 20_000;

const cancels = new CancelRegistry();
let chunkerPromise: Promise<Chunker> | null = null;

function getChunker(): Promise<Chunker> {
  if (!chunkerPromise) {
    const p = Chunker.create({ loadWasm: browserWasmLoader });
    p.catch(() => (chunkerPromise = null));
    chunkerPromise = p;
  }
  return chunkerPromise;
}

function toSource(ref: SourceRef): FileSource {
  if (ref.kind === 'folder') return new FsaFileSource(ref.handle);
  // webkitRelativePath does not survive structured cloning: the paths travel beside the files.
  return new FileListSource(ref.files, ref.paths);
}

const api: IndexerWorkerApi = {
  async indexCodebase(req: IndexRequest, token: CancelToken, onProgress: (p: IndexProgress) => void) {
    return cancels.run(token, async (signal) => {
      const store = wrap<WriterPortApi>(req.storePort);
      try {
        const chunker = await getChunker();
        const meter = new ProgressMeter(onProgress);
        const summary = await indexCodebase(
          { source: toSource(req.source), store: store as unknown as IndexStore, chunker },
          {
            signal,
            walk: req.maxFileSize ? { maxFileSize: req.maxFileSize } : undefined,
            verify: req.verify,
            optimizeAfterRows: OPTIMIZE_AFTER_ROWS,
            onWarning: (w) => meter.warning(w),
            onBatch: () => meter.batch(),
            onProgress: (status) => meter.status(status),
          },
        );
        meter.flush();
        return summary;
      } finally {
        store[releaseProxy]();
        req.storePort.close();
      }
    });
  },

  async readLiveFile(ref: SourceRef, path: string): Promise<LiveFile> {
    try {
      const source = toSource(ref);
      const bytes = await source.readFile(path);
      const [hash, info] = await Promise.all([sha256Hex(bytes), source.stat(path)]);
      return { ok: true, text: decodeText(bytes), hash, size: info.size, mtime: info.mtime };
    } catch (e) {
      const name = (e as { name?: string }).name;
      const message = e instanceof Error ? e.message : String(e);
      if (name === 'NotFoundError') return { ok: false, reason: 'not-found', message };
      if (name === 'NotAllowedError' || name === 'SecurityError') return { ok: false, reason: 'permission', message };
      return { ok: false, reason: 'unreadable', message };
    }
  },

  cancel(token: CancelToken) {
    cancels.cancel(token);
  },
};

expose(api);
