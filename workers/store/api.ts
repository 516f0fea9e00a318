/**
 * Contract of the store worker (types only). It owns every SQLite connection (one per
 * codebase database in OPFS), the in-memory vector index of each codebase, and search.
 * Writers (the indexer and embedder workers) reach a codebase's store through a
 * MessagePort that the bridge connects with `connectWriter`; the page only reads.
 *
 * Only plain data crosses: strings, numbers, plain objects, Uint8Array/Float32Array.
 */
import type { AsRegex } from '../../src/core/search/grep.ts';
import type { DownloadProgress } from '../../src/core/store/pack-http.ts';
import type { SearchOptions, SearchResponse, StoredChunk, FileRecord, SearchStrategy } from '../../src/core/types.ts';
import type { IndexStore } from '../../src/core/index/indexer.ts';
import type { EmbedStore } from '../../src/core/embed/embed-pass.ts';
import type { CancelToken } from '../../src/core/cancel.ts';
import type { LegHits } from '../../src/core/search/results.ts';
import type { MetaKey } from '../../src/core/store/meta.ts';
import type { GrepLine, GrepMode } from '../../src/core/search/grep.ts';
import type { SkippedStats } from '../../src/core/walk/skipped.ts';
import type { ToolAnswer } from '../../src/core/tools/run.ts';
import type { IndexStructures } from '../../src/core/store/store.ts';

export type { DownloadProgress };

/**
 * What a writer worker sees of one codebase's store, over its MessagePort. Every optional
 * IndexStore method is required here: through Comlink any property of the proxy looks
 * present, so the indexer's `store.setMetas?.(…)` calls it whether or not the worker has it
 * (a missing one failed every app index run at its end: "reading 'apply'").
 */
export interface WriterPortApi extends Required<IndexStore>, EmbedStore {
  /** Adds freshly embedded vectors to the live vector index (search sees them at once); both arrays may be transferred. */
  addVectors(ids: Int32Array, vectors: Float32Array): Promise<void>;
  /**
   * putEmbeddings with the vectors already stored blobs (vectorToInt8Blob), `stride` bytes each,
   * back to back in `blobs` (transferred): row i is `hashes[i]`.
   */
  putEmbeddingBlobs(model: string, hashes: string[], blobs: Uint8Array, stride: number): Promise<void>;
  /** SQLite's page cache of this codebase's connection, KiB (Store.setPageCache): raised while a pass embeds. */
  setPageCache(kib: number): Promise<void>;
}

/** The embedding model the vector leg uses; null = keyword only. */
export interface VectorModel {
  key: string;
  dim: number;
}

export interface CodebaseInfo {
  codebaseId: string;
  files: number;
  chunks: number;
  embedded: number;
  /** Source bytes of the indexed files. */
  bytes: number;
  /** Bytes of the database file(s). */
  dbBytes: number;
  /** `structured: false`: no grammar, the files are plain-text chunks. */
  languages: Array<{ language: string; files: number; bytes: number; chunks: number; structured: boolean }>;
  /** By file kind (src/core/text/file-kind.ts), most bytes first. */
  kinds: Array<{ kind: string; files: number; bytes: number; chunks: number }>;
  chunkTypes: Array<{ chunkType: string; chunks: number }>;
  /** 'indexing' when the last run did not finish (resume after reload or crash). */
  runState: string | null;
  merkleRoot: string | null;
  updatedAt: string | null;
  createdAt: string | null;
  schemaVersion: string | null;
  /** Model key the stored vectors belong to (null when none). */
  vectorModel: string | null;
  vectorIndexKind: string | null;
  /** What the last index run did not index and why (null: indexed before this was recorded). */
  skipped: SkippedStats | null;
  /** A published index read over HTTP (issue 27); absent for local indexes. */
  pack?: PackInfo;
}

/** A codebase opened by URL: what its manifest says and what this session read of it. */
export interface PackInfo {
  manifestUrl: string;
  packUrl: string;
  name: string;
  commit: string | null;
  created: string;
  /** The pack's size (what a full download costs). */
  bytes: number;
  pageSize: number;
  /** The pack carries vectors of this model (semantic search when the app loads it). */
  embeddingsModel: string | null;
  /** The loaded model's key when the pack's vectors are for another model (packVectorsFit), else null. */
  otherModel: string | null;
  /** Requests and bytes this session fetched from the pack, and pages served from memory. */
  reads: { requests: number; bytes: number; hits: number };
  /** Pages restored from Cache Storage when it opened (readable offline). */
  cachedPages: number;
  /** True when the manifest could not be fetched and the saved copy was used. */
  offline: boolean;
}

export type OpenPackResult =
  | { ok: true; info: CodebaseInfo; manifestText: string }
  | { ok: false; problem: string; message: string; bytes: number | null };

export interface AppSearchRequest {
  query: string;
  options: SearchOptions;
  /** Codebases to search; results are merged by fused score. */
  codebaseIds: string[];
}

/** One definition of a file's outline (core/tools/run.ts fileDefinitions). */
export interface OutlineEntry {
  name: string;
  /** Its chunk type (`function`, `class`…) or, for a member found in the text, its declaration's kind. */
  kind: string;
  /** The class-like definition it is a member of, or null. */
  container: string | null;
  startLine: number;
  endLine: number;
}

/** A result, tagged with its codebase (chunk ids are per database). */
export interface AppSearchResult extends Omit<SearchResponse['results'][number], never> {
  codebaseId: string;
  /** Contribution of each leg to the fused score, for "explain". */
  explain: unknown;
  /** The keyword leg's own named signals (normalised BM25, name match, exact, …), when it matched. */
  bm25Signals?: Record<string, number> | null;
}

/** One codebase's leg hits, definition tiers and grouping keys (search/results.ts LegHits). */
export interface CodebaseLegs extends LegHits {
  codebaseId: string;
}

export interface AppSearchResponse {
  query: string;
  strategy: SearchStrategy;
  embeddedRatio: number;
  results: AppSearchResult[];
  /** Raw leg hits per codebase: the page re-fuses these with new weights, no new query. */
  legs: CodebaseLegs[];
  timings: Record<string, number>;
  /** The fusion weights used (the request's, else those for the kind of question). */
  weights: { bm25Weight: number; vectorWeight: number };
}

/** Exact/regex search (issue 11) over one or more codebases' stored file text. */
export interface AppGrepRequest {
  pattern: string;
  mode: GrepMode;
  ignoreCase: boolean;
  /** Returned lines over all codebases (default 200, at most 100,000). */
  limit?: number;
  codebaseIds: string[];
  pathGlob?: string;
  /** Only files of one of these languages (none = all). */
  languages?: string[];
}

/** One matching line, tagged with its codebase. */
export interface AppGrepLine extends GrepLine {
  codebaseId: string;
}

/** An invalid pattern is an expected condition: a value with what and where, not an exception. */
export type AppGrepResponse =
  | {
      ok: true;
      pattern: string;
      mode: GrepMode;
      ignoreCase: boolean;
      lines: AppGrepLine[];
      /** Matching lines in all searched files; `lines` holds the first `limit`. */
      totalMatches: number;
      truncated: boolean;
      /** False when a published index stopped reading at the limit: totals are lower bounds. */
      exhaustive: boolean;
      filesMatched: number;
      filesSearched: number;
      timings: Record<string, number>;
      /** An exact pattern that matched nothing, written as a regex: what regex mode finds (grepAsRegex); else null. */
      asRegex: AsRegex | null;
    }
  | { ok: false; pattern: string; message: string; offset: number | null };

export type ImportResult =
  | { ok: true; info: CodebaseInfo; name: string | null }
  | { ok: false; reason: 'not-sqlite' | 'schema' | 'model' | 'corrupt'; message: string };

export interface StoreWorkerApi {
  /** Opens (creating if needed) the codebase's database and loads its vectors. */
  open(codebaseId: string): Promise<CodebaseInfo>;
  /**
   * Creates (or reopens) the database of a codebase not added yet and holds it open, outside
   * the open codebases a search without ids covers, until the codebase's first use: the page's
   * spare index, so adding a folder waits for no file creation or schema.
   */
  prepare(codebaseId: string): Promise<void>;
  /**
   * Opens a published index by the URL of its `sift-index.json` (issue 27) as a read-only
   * codebase: fetches the manifest (`savedManifest`, the text saved when it was added, is used
   * when offline; `fetchedManifest`, the page's own fetch of the same same-origin URL started
   * at load, replaces the fetch when it parses), probes the host and reads pages on demand. A
   * refusal is a value.
   */
  openPack(codebaseId: string, manifestUrl: string, savedManifest: string | null, fetchedManifest?: string | null): Promise<OpenPackResult>;
  /**
   * Downloads a whole published pack (for hosts without byte ranges) and keeps it as a local
   * index; onProgress hears the bytes received so far (a few times a second at most).
   */
  downloadPack(codebaseId: string, manifestUrl: string, onProgress?: (p: DownloadProgress) => void): Promise<ImportResult>;
  info(codebaseId: string): Promise<CodebaseInfo>;
  /** Index bytes by structure (Store.structureBytes: reads every table once; for the Stats page). */
  structures(codebaseId: string): Promise<IndexStructures>;
  close(codebaseId: string): Promise<void>;
  /** Closes and deletes every file of the codebase's database. */
  remove(codebaseId: string): Promise<void>;
  /** Serves the codebase's store on `port` for a writer worker (port transferred). */
  connectWriter(codebaseId: string, port: MessagePort): Promise<void>;
  /** Gives the store worker a port on which the embedder worker serves `embedQuery`. */
  connectEmbedder(port: MessagePort | null, model: VectorModel | null): Promise<void>;
  /** Re-reads vectors written by another tab or worker (e.g. after another tab indexed). */
  reloadVectors(codebaseId: string): Promise<void>;
  search(req: AppSearchRequest, token: CancelToken): Promise<AppSearchResponse>;
  /** Every matching line, ripgrep style (issue 11); cancelled when a newer query starts. */
  grep(req: AppGrepRequest, token: CancelToken): Promise<AppGrepResponse>;
  getChunks(codebaseId: string, ids: number[]): Promise<StoredChunk[]>;
  getFile(codebaseId: string, path: string): Promise<FileRecord | null>;
  /** A file's text as indexed (file_text), or null: for codebases without a readable folder. */
  getFileText(codebaseId: string, path: string): Promise<string | null>;
  /** The definitions of one file, in line order (the agent tools' `symbols path=`), for the viewer's outline. */
  outline(codebaseId: string, path: string): Promise<OutlineEntry[]>;
  setMeta(codebaseId: string, key: MetaKey, value: string): Promise<void>;
  exportIndex(codebaseId: string): Promise<Uint8Array>;
  /** Writes `bytes` as the database of `codebaseId` after checking schema and model. */
  importIndex(codebaseId: string, bytes: Uint8Array, expectModel: string | null): Promise<ImportResult>;
  /**
   * One agent tool call (issue 26: src/core/tools — search, grep, read, symbols, status) over
   * `codebases`, the ones the page lets browser agents search; a bad argument is an error answer.
   */
  agentTool(name: string, args: unknown, codebases: AgentCodebase[]): Promise<ToolAnswer>;
  /** Loads SQLite (fetch, compile, OPFS VFS) before the first codebase needs it. */
  warm(): Promise<void>;
  cancel(token: CancelToken): void;
}

/** A codebase open to browser agents (WebMCP), with the page's view of its indexing. */
export interface AgentCodebase {
  id: string;
  /** The name agents see (unique among those passed). */
  name: string;
  indexing: boolean;
  /** Share of its files stored (1 when no run is under way). */
  indexedShare: number;
}
