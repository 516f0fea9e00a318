/**
 * Contract between the bench page (main.ts, driven by bench/browser.ts through Playwright)
 * and the bench worker (worker.ts). Types only; plain data crosses.
 */
import type { BenchVectorsRow } from '../vectors.ts';
import type { IndexSummary } from '../../src/core/index/indexer.ts';

export interface EmbedRequest {
  /** Folder name under the served models/ path, e.g. 'generated/minilm-shape'. */
  modelId: string;
  dtype: 'fp32' | 'q8';
  threads: number;
  texts: string[];
  batchSize: number;
  /** Default 'wasm'; 'webgpu' needs an adapter (bench/browser.ts launches with SwiftShader's). */
  device?: 'wasm' | 'webgpu';
}

/** A static (model2vec) model's throughput on this worker's one thread (no wasm threads). */
export interface StaticEmbedRequest {
  /** Folder under the served models/ path holding config.json, tokenizer.json, model.safetensors. */
  modelId: string;
  texts: string[];
  /** The texts are embedded again until this much time has passed (the set alone takes milliseconds). */
  minMs: number;
}

export interface StaticEmbedResult {
  chunksPerSec: number;
  /** Texts embedded in the timed loop (texts.length × rounds). */
  embedded: number;
  loadMs: number;
  dim: number;
  key: string;
}

export interface EmbedResult {
  chunksPerSec: number;
  loadMs: number;
  device: string;
  crossOriginIsolated: boolean;
}

export interface CopyRequest {
  /** OPFS folder name (under bench-corpus/). */
  name: string;
  /** URL prefix the files are fetched from; `prefix + path`. */
  urlPrefix: string;
  paths: string[];
  /**
   * Keep a copy an earlier run left in this profile when its manifest (same paths, all
   * written) matches, instead of copying again (bench/browser.ts --profile).
   */
  reuse?: boolean;
}

export interface CopyResult {
  files: number;
  bytes: number;
  ms: number;
  /** The copy was already there (reuse): nothing was fetched, `ms` is the check only. */
  reused?: boolean;
}

export interface SearchRequest {
  /** Store name (OPFS database) to open; the app's store worker must have closed it. */
  storeName: string;
  queries: string[];
  runs: number;
  /** Model used for query embedding in vector/hybrid (its time counts; see worker.ts). */
  queryModelId: string;
  dim: number;
}

export interface ModeLatency {
  mode: 'bm25' | 'vector' | 'hybrid';
  p50: number;
  p95: number;
  mean: number;
  /** Median per-query ms of the query-embedding step (vector/hybrid). */
  embedP50?: number;
  strategies: string[];
  /** The slowest queries (median ms of their runs), slowest first, with their legs' and fusion's share. */
  slowest: Array<{ query: string; total: number; leg: number; fuse: number }>;
  /** Each query's first run (nothing of it cached yet): p50 / p95 over the queries, and the slowest. */
  firstRun: { p50: number; p95: number; slowest: Array<{ query: string; ms: number }> };
}

export interface SearchResult {
  chunks: number;
  vectorKind: string;
  vectorBuildMs: number;
  modes: ModeLatency[];
  dbBytes: number;
}

/** Exact/regex search (issue 11) over a store's file text, in the worker (bench/grep.ts's query set). */
export interface GrepBenchRequest {
  storeName: string;
  literals: string[];
  regexes: string[];
  runs: number;
}

export interface GrepBenchResult {
  files: number;
  modes: Array<{ mode: 'exact' | 'regex'; p50: number; p95: number; mean: number }>;
  perQuery: Array<{ mode: 'exact' | 'regex'; pattern: string; lines: number; ms: number }>;
}

/** Summed ms of each OPFS call over a copied corpus, one pass per call (bench worker). */
export interface FsaCosts {
  dirs: number;
  files: number;
  bytes: number;
  /** Listing every directory (entries()), the walk's readDir. */
  listMs: number;
  /** dir.getFileHandle(name) per file: what a stat or read pays to find a file by path. */
  getFileHandleMs: number;
  /** handle.getFile() per file: a stat. */
  getFileMs: number;
  /** file.arrayBuffer() per file: the read itself. */
  arrayBufferMs: number;
  /** getFile() again: what a read pays after its stat. */
  getFileAgainMs: number;
}

/** Structured-clone cost of indexer → store batches against the chunking that made them. */
export interface CloneCost {
  files: number;
  bytes: number;
  chunks: number;
  /** In-thread Chunker + prepareChunks, summed. */
  chunkMs: number;
  /** packText (CompressionStream deflate-raw) of every file, one at a time. */
  packMs: number;
  /** fileTrigramKeys of every file. */
  gramsMs: number;
  /** structuredClone of every batch of 50 files. */
  cloneMs: number;
  /** postMessage of every batch through a MessageChannel until the last arrived. */
  postMs: number;
}

/** Store settings compared on the same batches (bench worker, store on its own thread). */
export interface StoreVariantsRequest {
  name: string;
  variants: Array<{ label: string; cacheSizeKiB?: number }>;
  rounds: number;
  /** Chunk rows per writeFiles call (the indexer's batches grow to 8 × 1,000 while the store is busy). */
  batchRows: number;
}

export interface StoreVariantRun {
  label: string;
  round: number;
  batches: number;
  writeMs: number;
  optimizeMs: number;
  dbBytes: number;
}

export interface BenchWorkerApi {
  storeVariants(req: StoreVariantsRequest): Promise<StoreVariantRun[]>;
  cloneCost(name: string, maxFiles: number): Promise<CloneCost>;
  fsaCosts(name: string): Promise<FsaCosts>;
  embed(req: EmbedRequest): Promise<EmbedResult>;
  embedStatic(req: StaticEmbedRequest): Promise<StaticEmbedResult>;
  copyCorpus(req: CopyRequest): Promise<CopyResult>;
  search(req: SearchRequest): Promise<SearchResult>;
  grep(req: GrepBenchRequest): Promise<GrepBenchResult>;
  vectors(opts: { sizes: number[]; kinds: Array<'exact' | 'int8' | 'hnsw' | 'voy'>; queries: number }): Promise<BenchVectorsRow[]>;
  /** Whether this worker context is cross-origin isolated, and WebGPU's answer. */
  env(): Promise<{ crossOriginIsolated: boolean; webgpu: string; hardwareConcurrency: number }>;
}

/** How the indexer worker is asked to run (IndexRequest's tuning fields). */
export interface IndexVariant {
  /** Chunker workers; 0 = chunk in the indexer worker. Unset: the app's default. */
  chunkWorkers?: number;
  /** Files prepared ahead; unset: the indexer worker's default for that pool size. */
  filesAhead?: number;
}

export interface IndexCorpusOptions extends IndexVariant {
  /** Also run a no-change rescan after the cold index (default true). */
  rescan?: boolean;
  /** Delete the store afterwards (variant rounds; default false: search runs on it next). */
  drop?: boolean;
}

export interface ColdIndexResult {
  summary: IndexSummary;
  wallMs: number;
  /** Wall ms from the call until the first progress event with searchable = true. */
  firstSearchableWallMs: number | null;
  rescan: IndexSummary | null;
  rescanWallMs: number | null;
  dbBytes: number;
}

/** What the page exposes as `window.siftBench` for the driver. */
export interface BenchPageApi {
  storeVariants(req: StoreVariantsRequest): Promise<StoreVariantRun[]>;
  cloneCost(name: string, maxFiles: number): Promise<CloneCost>;
  fsaCosts(name: string): Promise<FsaCosts>;
  embed(req: EmbedRequest): Promise<EmbedResult>;
  embedStatic(req: StaticEmbedRequest): Promise<StaticEmbedResult>;
  copyCorpus(req: CopyRequest): Promise<CopyResult>;
  /** Cold index + no-change rescan through the app's real store and indexer workers. */
  indexCorpus(name: string, storeName: string, opts?: IndexCorpusOptions): Promise<ColdIndexResult>;
  search(req: SearchRequest): Promise<SearchResult>;
  grep(req: GrepBenchRequest): Promise<GrepBenchResult>;
  vectors(opts: { sizes: number[]; kinds: Array<'exact' | 'int8' | 'hnsw' | 'voy'>; queries: number }): Promise<BenchVectorsRow[]>;
  env(): Promise<{ crossOriginIsolated: boolean; webgpu: string; hardwareConcurrency: number }>;
  /** measureUserAgentSpecificMemory (isolated pages) or performance.memory; bytes. */
  memory(): Promise<{ api: string; bytes: number | null; breakdown?: Record<string, number> }>;
}
