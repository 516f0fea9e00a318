/**
 * The one search entry point: query → legs (BM25, vector) → fused results.
 *
 * Invariants:
 * - Never throws for user input: any string is a valid query (processQuery makes it safe).
 * - Filters apply to both legs.
 * - The legs' raw hits are returned with the response so a caller can re-fuse with other
 *   weights without querying again (`refuse`).
 * - No model or no vectors → keyword only, and the strategy says so.
 */
import type { ChunkType, Hit, SearchFilters, SearchMode, SearchOptions, SearchResponse, SearchResult, StoredChunk } from '../types.ts';
import { BM25_WEIGHT, DEFAULT_SEARCH_LIMIT, LEG_CANDIDATES, MAX_SEARCH_LIMIT, RRF_K, VECTOR_WEIGHT } from '../config.ts';
import { processQuery, type ProcessedQuery } from './query.ts';
import { highlightRanges, searchBm25 } from './bm25.ts';
import { compilePathGlob } from '../text/path-glob.ts';
import type { Queryable } from '../store/sqlite.ts';
import { fuseRrf, strategyFor, type FusedItem } from './fuse.ts';
import type { VectorIndex } from '../vector/types.ts';

/** When filters are on, the vector leg over-fetches this many times and filters by metadata. */
const VECTOR_FILTER_OVERFETCH = 8;

export interface SearchStore {
  /** The connection the keyword leg queries (search/bm25.ts). */
  readonly db: Queryable;
  getChunks(ids: number[]): Promise<StoredChunk[]>;
  chunkCount(): Promise<number>;
}

export interface QueryEmbedder {
  embedQuery(text: string): Promise<Float32Array>;
}

export interface LegHits {
  bm25: Hit[];
  vector: Hit[];
  /** ids whose symbol equals an identifier in the query */
  exactSymbolIds: number[];
}

export interface FullSearchResponse extends SearchResponse {
  legs: LegHits;
  explain: Record<number, FusedItem['explain']>;
  /** The keyword leg's own named signals per result id (FTS bm25, name match, exact, …). */
  bm25Signals: Record<number, Record<string, number>>;
}

export class Searcher {
  #store: SearchStore;
  #embedder: QueryEmbedder | null;
  #vectors: VectorIndex | null;
  #embeddedCount: number;

  constructor(store: SearchStore, opts: { embedder?: QueryEmbedder | null; vectors?: VectorIndex | null } = {}) {
    this.#store = store;
    this.#embedder = opts.embedder ?? null;
    this.#vectors = opts.vectors ?? null;
    this.#embeddedCount = this.#vectors?.size ?? 0;
  }

  setVectorLeg(embedder: QueryEmbedder | null, vectors: VectorIndex | null): void {
    this.#embedder = embedder;
    this.#vectors = vectors;
    this.#embeddedCount = vectors?.size ?? 0;
  }

  get hasVectors(): boolean {
    return !!this.#embedder && !!this.#vectors && this.#vectors.size > 0;
  }

  async search(query: string, options: SearchOptions = {}): Promise<FullSearchResponse> {
    const timings: Record<string, number> = {};
    const t0 = performance.now();
    const limit = Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT)));
    const filters: SearchFilters = { languages: options.languages, pathGlob: options.pathGlob, chunkTypes: options.chunkTypes };
    const pq = processQuery(query);
    const mode: SearchMode = options.mode ?? (this.hasVectors ? 'hybrid' : 'bm25');
    const wantBm25 = mode !== 'vector';
    const wantVector = mode !== 'bm25' && this.hasVectors;
    const total = await this.#store.chunkCount();
    const embeddedRatio = total > 0 ? Math.min(1, this.#embeddedCount / total) : 0;

    const candidates = Math.max(LEG_CANDIDATES, limit);
    const [bm25, vector] = await Promise.all([
      wantBm25 && pq.ftsQuery ? this.#timed(timings, 'bm25', () => searchBm25(this.#store.db, pq, filters, candidates)) : Promise.resolve<Hit[]>([]),
      wantVector && query.trim() ? this.#timed(timings, 'vector', () => this.#vectorLeg(query, filters, candidates)) : Promise.resolve<Hit[]>([]),
    ]);

    // Metadata for every candidate: needed for exact-symbol detection and the results.
    const tf = performance.now();
    const ids = [...new Set([...bm25.map((h) => h.id), ...vector.map((h) => h.id)])];
    const rows = ids.length ? await this.#store.getChunks(ids) : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const exactSymbolIds = exactSymbolMatches(pq, rows);
    const legs: LegHits = { bm25, vector, exactSymbolIds };
    const fused = fuseRrf(bm25, vector, {
      k: RRF_K,
      bm25Weight: options.bm25Weight ?? BM25_WEIGHT,
      vectorWeight: options.vectorWeight ?? VECTOR_WEIGHT,
      limit,
      exactSymbolIds: new Set(exactSymbolIds),
    });
    const results = toResults(fused, byId, pq);
    timings.fuse = performance.now() - tf;
    timings.total = performance.now() - t0;
    const explain: Record<number, FusedItem['explain']> = {};
    for (const f of fused) explain[f.id] = f.explain;
    const bm25Signals: Record<number, Record<string, number>> = {};
    for (const h of bm25) if (h.signals && explain[h.id]) bm25Signals[h.id] = h.signals;
    return {
      query,
      strategy: strategyFor(mode, bm25.length > 0 || wantBm25, wantVector),
      embeddedRatio,
      results,
      timings,
      legs,
      explain,
      bm25Signals,
    };
  }

  async #vectorLeg(query: string, filters: SearchFilters, k: number): Promise<Hit[]> {
    const qv = await this.#embedder!.embedQuery(query);
    const filtered = !!(filters.languages?.length || filters.chunkTypes?.length || filters.pathGlob);
    const raw = await this.#vectors!.search(qv, filtered ? k * VECTOR_FILTER_OVERFETCH : k);
    let kept = raw;
    if (filtered) {
      const rows = await this.#store.getChunks(raw.map((h) => h.id));
      const keep = makeFilter(filters);
      const ok = new Set(rows.filter(keep).map((r) => r.id));
      kept = raw.filter((h) => ok.has(h.id));
    }
    return kept.slice(0, k).map((h, i) => ({ id: h.id, score: h.score, rank: i + 1 }));
  }

  async #timed<T>(timings: Record<string, number>, name: string, fn: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      timings[name] = performance.now() - t;
    }
  }
}

/** Re-fuse stored leg hits with new weights — no store access for ranking. */
export function refuse(legs: LegHits, weights: { bm25Weight: number; vectorWeight: number }, limit: number): FusedItem[] {
  return fuseRrf(legs.bm25, legs.vector, { k: RRF_K, ...weights, limit, exactSymbolIds: new Set(legs.exactSymbolIds) });
}

export function makeFilter(filters: SearchFilters): (c: { language: string; chunkType: ChunkType; path: string }) => boolean {
  const langs = filters.languages?.length ? new Set(filters.languages) : null;
  const types = filters.chunkTypes?.length ? new Set<string>(filters.chunkTypes) : null;
  // The same glob semantics as the keyword leg's SQL filter, so both legs keep the same files.
  const glob = filters.pathGlob ? compilePathGlob(filters.pathGlob) : null;
  return (c) => (!langs || langs.has(c.language)) && (!types || types.has(c.chunkType)) && (!glob || glob.test(c.path));
}

/** Chunks whose symbol is exactly an identifier of the query (`kalloc`, `getUserName`, `Foo::bar`). */
function exactSymbolMatches(pq: ProcessedQuery, rows: StoredChunk[]): number[] {
  if (!pq.isIdentifierLike) return [];
  const plain = new Set<string>();
  const qualified = new Set<string>();
  for (const id of pq.identifiers) {
    const low = id.toLowerCase();
    plain.add(low);
    const parts = low.split(/::|\.|#|->/).filter(Boolean);
    if (parts.length > 1) qualified.add(parts.slice(-2).join('::'));
  }
  return rows
    .filter((r) => {
      if (!r.symbol) return false;
      const sym = r.symbol.toLowerCase();
      return plain.has(sym) || (!!r.parent && qualified.has(`${r.parent.toLowerCase()}::${sym}`));
    })
    .map((r) => r.id);
}

function toResults(fused: FusedItem[], byId: Map<number, StoredChunk>, pq: ProcessedQuery): SearchResult[] {
  const out: SearchResult[] = [];
  for (const f of fused) {
    const c = byId.get(f.id);
    if (!c) continue; // deleted between the legs and the fetch
    out.push({
      id: c.id,
      path: c.path,
      startLine: c.startLine,
      endLine: c.endLine,
      language: c.language,
      chunkType: c.chunkType,
      symbol: c.symbol,
      parent: c.parent,
      signature: c.signature,
      content: c.content,
      bm25Score: f.bm25Score,
      vectorScore: f.vectorScore,
      combinedScore: f.combinedScore,
      rank: out.length + 1,
      bm25Rank: f.bm25Rank,
      vectorRank: f.vectorRank,
      legs: f.legs,
      highlights: highlightRanges(c.content, pq),
    });
  }
  return out;
}
