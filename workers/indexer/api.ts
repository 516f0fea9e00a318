/**
 * Contract of the indexer worker (types only). It owns reading folders and parsing: the
 * walker, hashing and the tree-sitter chunker. It never opens the database; rows go to the
 * store worker through a MessagePort that the bridge connects (see workers/store/api.ts).
 *
 * Only plain data crosses: handles, File objects, strings, numbers, MessagePorts.
 */
import type { IndexSummary } from '../../src/core/index/indexer.ts';
import type { IndexProgress } from '../../src/core/index/progress.ts';
import type { CancelToken } from '../../src/core/cancel.ts';
import type { FileSnapshot } from '../../src/core/source/drop.ts';

/** Where a codebase's files come from. A `files` snapshot cannot be rescanned in place. */
export type SourceRef =
  | { kind: 'folder'; name: string; handle: FileSystemDirectoryHandle }
  | ({ kind: 'files' } & FileSnapshot);

export interface IndexRequest {
  source: SourceRef;
  /** Port to the store worker, already connected to this codebase's store (transferred). */
  storePort: MessagePort;
  /** Re-read and re-hash every file. */
  verify?: boolean;
  maxFileSize?: number;
  /** Gitignore-syntax patterns: when any, only matching paths are indexed (app settings). */
  include?: string[];
  /** Gitignore-syntax patterns skipped after every ignore file (app settings). */
  exclude?: string[];
  /**
   * Chunker workers to parse in (default: defaultPoolSize(hardwareConcurrency)); 0 chunks in
   * the indexer worker itself. The bench compares the two.
   */
  chunkWorkers?: number;
  /** Files read, hashed and chunked ahead of the one being stored (default: see index.ts). */
  filesAhead?: number;
  /** The query typed while this run starts: a small folder's files holding its words go first (core IndexOptions.firstFor). */
  firstFor?: string;
}

/** What to index: the app's indexing settings, as the request carries them. */
export type IndexWalkSettings = Pick<IndexRequest, 'include' | 'exclude' | 'maxFileSize'>;

/** Throttled progress of a run (computed in the core: src/core/index/progress.ts). */
export type { IndexProgress };

/** A file read live from its source, for the viewer. */
export type LiveFile =
  | { ok: true; text: string; hash: string; size: number; mtime: number }
  | { ok: false; reason: 'not-found' | 'permission' | 'unreadable'; message: string };

export interface IndexerWorkerApi {
  indexCodebase(req: IndexRequest, token: CancelToken, onProgress: (p: IndexProgress) => void): Promise<IndexSummary>;
  readLiveFile(source: SourceRef, path: string): Promise<LiveFile>;
  /** Loads tree-sitter (fetch, compile) before the first run needs it. */
  warm(): Promise<void>;
  cancel(token: CancelToken): void;
}
