/**
 * The shared vocabulary of Sift's core. Every module in src/core speaks these types;
 * they are plain data so they cross worker boundaries unchanged (structured clone).
 *
 * Glossary: *file* (a source file in a codebase), *chunk* (a span of a file that is
 * indexed), *embedding* (a chunk's vector), *hit* (one leg's ranked item), *result*
 * (a fused item), *query* (parsed user input), *codebase* (one indexed folder).
 */

import type { FileKind, SearchIntent } from './text/file-kind.ts';

/** Kinds of chunk. `text` is the fallback for non-code files and unparsable code. */
export type ChunkType =
  | 'function'
  | 'method'
  | 'class'
  | 'struct'
  | 'interface'
  | 'enum'
  | 'type'
  | 'module'
  | 'comment'
  | 'text';

/** [start, end) offsets (UTF-16 code units) into a file's text. */
export type TextSpan = [number, number];

/** A chunk as produced by the chunker (no database id yet). Lines are 1-based, inclusive. */
export interface Chunk {
  path: string;
  startLine: number;
  endLine: number;
  language: string;
  chunkType: ChunkType;
  /** Symbol name (function/class/…), null for module code and text. */
  symbol: string | null;
  /** Enclosing symbol (class for a method, …). */
  parent: string | null;
  /** Declaration line(s) without the body, e.g. `def foo(a, b) -> int:`. */
  signature: string | null;
  /** Doc comment attached to the symbol, without comment markers where practical. */
  doc: string | null;
  /**
   * Where `signature` / `doc` were read from: [start, end) offsets (UTF-16) into the file's
   * text. A hint for the store, which keeps the offsets instead of the text when
   * text/decl-text.ts signatureText / docText of that slice gives the field back. Absent or
   * null when the chunker has none.
   */
  signatureSpan?: TextSpan | null;
  docSpan?: TextSpan | null;
  /** The chunk's source text: exactly the file's lines startLine..endLine, nothing added. */
  content: string;
  /**
   * What a later piece of a split definition carries: the enclosing definition's signature
   * rows (file text starting at `contextLine`), shown as a breadcrumb, never numbered as
   * part of `content`. Null (or absent) for whole definitions, heads and module code.
   */
  context?: string | null;
  /** 1-based line where `context` starts. */
  contextLine?: number | null;
  /**
   * 1-based line of the signature of the definition this chunk is a piece of; every piece
   * of one split definition has the same value (results merge on it). Null for module code.
   */
  defLine?: number | null;
  /** Every name a chunk of merged small siblings defines (the first is `symbol`); null otherwise. */
  names?: string[] | null;
  /**
   * Constants defined on the chunk's lines that are no definition of their own (C/C++
   * object-like `#define`s), in file order, each once; null (or absent) when none.
   */
  defines?: string[] | null;
}

/** A chunk as stored: has a database id and the hash of its content. */
export interface StoredChunk extends Chunk {
  id: number;
  /** First 16 hex chars of SHA-256 of the embedding input text (chunk/embedding-text.ts contentHashOf): the vector cache key. */
  contentHash: string;
}

/** A file as recorded in the index. `path` is relative to the codebase root, `/`-separated. */
export interface FileRecord {
  path: string;
  /** SHA-256 hex of the file bytes. */
  hash: string;
  size: number;
  /** Milliseconds since epoch. */
  mtime: number;
  language: string;
}

/** `optimizing`: merging the keyword index's segments at the end of a big run (seconds on a large tree). */
export type IndexStage = 'preparing' | 'chunking' | 'embedding' | 'indexing' | 'optimizing' | 'complete';
export type IndexState = 'indexed' | 'indexing' | 'failed' | 'not_found';

/** Progress of an indexing run, after the seeds' CodebaseStatus. */
export interface CodebaseStatus {
  path: string;
  status: IndexState;
  /** 0–100 */
  progress: number;
  currentStage: IndexStage;
  merkleRoot: string | null;
  /** Files walked; while `walkDone` is false, those found so far (a lower bound, not the total). */
  totalFiles: number;
  /** The folder's walk has ended: `totalFiles` is the run's total. */
  walkDone: boolean;
  indexedFiles: number;
  totalChunks: number;
  embeddedChunks: number;
  /** Files that failed to parse and were indexed as text, unreadable files, … */
  warnings: number;
  lastUpdated: string | null;
  errorMessage: string | null;
}

export type SearchMode = 'hybrid' | 'bm25' | 'vector';
export type SearchStrategy = 'hybrid' | 'bm25_only' | 'vector_only' | 'none';

export interface SearchFilters {
  /** Languages to keep (e.g. ['python', 'go']). */
  languages?: string[];
  /** Path glob (gitignore-style globbing with ** and *), matched against the relative path. */
  pathGlob?: string;
  /** Chunk types to keep. */
  chunkTypes?: ChunkType[];
  /** File kinds to keep (text/file-kind.ts: code, test, docs, config, generated, example). */
  kinds?: FileKind[];
}

export interface SearchOptions extends SearchFilters {
  limit?: number;
  mode?: SearchMode;
  /**
   * Which file kinds lead (text/file-kind.ts): 'code' ranks tests, prose, examples and vendored
   * code below the implementation. Default: read from the query's words ("tests for …").
   */
  intent?: SearchIntent;
  bm25Weight?: number;
  vectorWeight?: number;
}

/** One leg's ranked item. `rank` is 1-based within the leg. */
export interface Hit {
  id: number;
  score: number;
  rank: number;
  /** The named signals inside the leg that produced `score` (for explain); optional. */
  signals?: Record<string, number>;
  /**
   * Ids of this hit's file's pieces among the leg's best that the leg left out for other files
   * (search/bm25.ts capPerFile): set on the file's best piece; its listed result counts those no
   * leg brought in its `fileMore`.
   */
  held?: number[];
}

/** A fused search result, after the seeds' SearchResult. */
export interface SearchResult {
  id: number;
  path: string;
  startLine: number;
  endLine: number;
  language: string;
  chunkType: ChunkType;
  symbol: string | null;
  parent: string | null;
  signature: string | null;
  /** Exactly the file's lines startLine..endLine. */
  content: string;
  /** A later piece's carried context (the definition's signature rows), shown as a breadcrumb at `contextLine`. */
  context: string | null;
  contextLine: number | null;
  /** Line of the definition this result is a piece of (null for module code). */
  defLine: number | null;
  /** Every name a chunk of merged small siblings defines; null for one definition. */
  names: string[] | null;
  /** Constants defined on the result's lines (Chunk.defines), null when none. */
  defines: string[] | null;
  /** The one of `names` or `defines` the query asked for (show it instead of `symbol`), else null. */
  matchedName: string | null;
  /** The file's kind (text/file-kind.ts): code, test, docs, config, generated, example. */
  kind?: FileKind;
  /**
   * Other matching pieces shown with this result, each exactly its lines: first the pieces of
   * the same definition, best first ("N more matches in this definition"), then other
   * definitions of this file that diversity folded into its first result (`sameDefinition` false).
   */
  more: ResultFragment[];
  /** Other matching definitions or pieces of this file that are neither listed nor in `more`. */
  fileMore?: number;
  /** Raw BM25 score from FTS5 (higher is better; 0 when the leg did not match). */
  bm25Score: number;
  /** Cosine similarity (0 when the leg did not match). */
  vectorScore: number;
  /** Final fused score (RRF plus named boosts). */
  combinedScore: number;
  /** 1-based rank in the fused list. */
  rank: number;
  bm25Rank: number | null;
  vectorRank: number | null;
  /** Which legs produced this result. */
  legs: Array<'bm25' | 'vector'>;
  /** Character ranges [start, end) in `content` that matched query terms (for highlighting). */
  highlights: Array<[number, number]>;
}

/** Another matching piece of a result's definition. `content` is exactly its lines. */
export interface ResultFragment {
  id: number;
  startLine: number;
  endLine: number;
  content: string;
  /** The piece's carried context and its line (null for the definition's head). */
  context: string | null;
  contextLine: number | null;
  combinedScore: number;
  highlights: Array<[number, number]>;
  /** A piece of the result's own definition (true), or of another definition of its file (false). */
  sameDefinition: boolean;
  /** The piece's own definition: for a piece of the same definition, the result's. */
  symbol: string | null;
  parent: string | null;
  chunkType: ChunkType;
  defLine: number | null;
}

export interface SearchResponse {
  query: string;
  strategy: SearchStrategy;
  /** Share of chunks that have embeddings, 0–1. */
  embeddedRatio: number;
  results: SearchResult[];
  /** Milliseconds taken, by leg. */
  timings: Record<string, number>;
}
