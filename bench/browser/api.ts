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
}

export interface CopyResult {
  files: number;
  bytes: number;
  ms: number;
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

export interface BenchWorkerApi {
  embed(req: EmbedRequest): Promise<EmbedResult>;
  copyCorpus(req: CopyRequest): Promise<CopyResult>;
  search(req: SearchRequest): Promise<SearchResult>;
  grep(req: GrepBenchRequest): Promise<GrepBenchResult>;
  vectors(opts: { sizes: number[]; kinds: Array<'exact' | 'int8' | 'hnsw' | 'voy'>; queries: number }): Promise<BenchVectorsRow[]>;
  /** Whether this worker context is cross-origin isolated, and WebGPU's answer. */
  env(): Promise<{ crossOriginIsolated: boolean; webgpu: string; hardwareConcurrency: number }>;
}

export interface ColdIndexResult {
  summary: IndexSummary;
  wallMs: number;
  /** Wall ms from the call until the first progress event with searchable = true. */
  firstSearchableWallMs: number | null;
  rescan: IndexSummary;
  rescanWallMs: number;
  dbBytes: number;
}

/** What the page exposes as `window.siftBench` for the driver. */
export interface BenchPageApi {
  embed(req: EmbedRequest): Promise<EmbedResult>;
  copyCorpus(req: CopyRequest): Promise<CopyResult>;
  /** Cold index + no-change rescan through the app's real store and indexer workers. */
  indexCorpus(name: string, storeName: string): Promise<ColdIndexResult>;
  search(req: SearchRequest): Promise<SearchResult>;
  grep(req: GrepBenchRequest): Promise<GrepBenchResult>;
  vectors(opts: { sizes: number[]; kinds: Array<'exact' | 'int8' | 'hnsw' | 'voy'>; queries: number }): Promise<BenchVectorsRow[]>;
  env(): Promise<{ crossOriginIsolated: boolean; webgpu: string; hardwareConcurrency: number }>;
  /** measureUserAgentSpecificMemory (isolated pages) or performance.memory; bytes. */
  memory(): Promise<{ api: string; bytes: number | null; breakdown?: Record<string, number> }>;
}
