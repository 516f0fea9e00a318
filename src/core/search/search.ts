/**
 * The one search entry point: query → legs (BM25, vector) → fused results.
 *
 * Invariants:
 * - Never throws for user input: any string is a valid query (processQuery makes it safe).
 * - Filters apply to both legs.
 * - The legs' raw hits are returned with the response so a caller can re-fuse with other
 *   weights without querying again (`reFuse`); fusion and grouping live in results.ts.
 * - One result per definition, grouped before the limit (results.ts); `content` is exactly
 *   the file's lines start..end.
 * - The vector leg has a relevance floor (vectorFloor); hits below it never reach fusion,
 *   and fusion works the same when the floor leaves none.
 * - No model or no vectors → keyword only, and the strategy says so.
 */
import type { ChunkType, Hit, SearchFilters, SearchMode, SearchOptions, SearchResponse, SearchResult, StoredChunk } from '../types.ts';
import {
  BM25_WEIGHT, DEFAULT_SEARCH_LIMIT, LEG_CANDIDATES, FILL_CANDIDATES, SYMBOL_FUSION_WEIGHTS, MAX_SEARCH_LIMIT, VECTOR_FILTER_OVERFETCH, VECTOR_MIN_SCORE,
  VECTOR_RELATIVE_FLOOR, VECTOR_WEIGHT, FILE_NAME_TIER,
} from '../config.ts';
import { describesFunction, namesCodeOf, processQuery, type ProcessedQuery } from './query.ts';
import { kindFactor } from './signals.ts';
import { asksForDeclarations, fileKind, queryIntent, type SearchIntent } from '../text/file-kind.ts';
import { codeNamedBy, KeywordCache, searchBm25 } from './bm25.ts';
import { compilePathGlob } from '../text/path-glob.ts';
import { readFileSizes, readFileTexts, type ChunkReader } from '../store/store.ts';
import { strategyFor, type FusedItem } from './fuse.ts';
import { isGrepStore, literalHits, literalLines } from './literal.ts';
import type { VectorIndex } from '../vector/types.ts';
import { definitionKeys, idsOf, orderGroups, pickGroups, rankGroups, toResults, type GroupedItem, type LegHits } from './results.ts';
import { headPaths, ordersList, questionPairs } from './order.ts';
import { definitionSteps, matchDefinition, wantsDefinitions, type SymbolTarget } from './symbols.ts';

export type { LegHits } from './results.ts';

/**
 * What a search reads: `db` is the connection the keyword leg queries (search/bm25.ts);
 * getChunks with `{ content: false }` gives rows with `content` '' (no file text read).
 */
export interface SearchStore extends ChunkReader {
  /**
   * Run `fn` with a reader whose statements share one read transaction (Store.read: one lock
   * for a whole search instead of one per statement). Absent: the store itself reads.
   */
  read?<T>(fn: (reader: ChunkReader) => Promise<T>): Promise<T>;
}

/** One search's question and settings, as `search` worked them out. */
interface Ask {
  query: string;
  options: SearchOptions;
  pq: ProcessedQuery;
  intent: SearchIntent;
  /** The query reads as one function's doc comment (query.ts readsAsDocComment). */
  docComment: boolean;
  mode: SearchMode;
  wantBm25: boolean;
  wantVector: boolean;
  limit: number;
  timings: Record<string, number>;
  t0: number;
}

export interface QueryEmbedder {
  embedQuery(text: string): Promise<Float32Array>;
}

export interface FullSearchResponse extends SearchResponse {
  legs: LegHits;
  explain: Record<number, FusedItem['explain']>;
  /** The keyword leg's own named signals per result id (FTS bm25, name match, exact, …). */
  bm25Signals: Record<number, Record<string, number>>;
  /** The fusion weights used: the caller's, else fusionWeights for the kind of question. */
  weights: { bm25Weight: number; vectorWeight: number };
}

export class Searcher {
  #store: SearchStore;
  #embedder: QueryEmbedder | null;
  #vectors: VectorIndex | null;
  #embeddedCount: number;
  /** The keyword leg's row counts, kept while the database is unchanged (bm25.ts KeywordCache). */
  readonly #keyword = new KeywordCache();

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
    const limit = Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT)));
    const candidates = Math.max(LEG_CANDIDATES, limit);
    const first = await this.#search(query, options, limit, candidates);
    if (first.response.results.length >= limit || !first.legsFull) return first.response;
    // Grouping folds a definition's other pieces into one result, so LEG_CANDIDATES pieces can
    // make fewer results than asked for (Show more, `--limit 50`) while more match. The list
    // is the same ranking as ever, continued from a wider run: its results not already listed
    // (by any piece) follow, so the first ones stay in place.
    const t = performance.now();
    const wider = await this.#search(query, options, limit, Math.max(FILL_CANDIDATES, 2 * limit));
    const out = first.response;
    const pieces = (r: SearchResult) => [r.id, ...r.more.map((m) => m.id)];
    const listed = new Set(out.results.flatMap(pieces));
    for (const r of wider.response.results) {
      if (out.results.length >= limit) break;
      const ids = pieces(r);
      if (ids.some((id) => listed.has(id))) continue;
      out.results.push(r);
      for (const id of ids) listed.add(id);
      if (wider.response.explain[r.id]) out.explain[r.id] = wider.response.explain[r.id];
      if (wider.response.bm25Signals[r.id]) out.bm25Signals[r.id] = wider.response.bm25Signals[r.id];
    }
    // Re-fusing with other weights (the app's slider) ranks the wider run's candidates, so that
    // list is full too; at the search's own weights its order is the wider run's.
    out.legs = wider.response.legs;
    out.timings.fill = performance.now() - t;
    out.timings.total += out.timings.fill;
    return out;
  }

  /** One ranked run with `candidates` hits per leg; `legsFull`: a leg stopped at `candidates` (more match). */
  async #search(query: string, options: SearchOptions, limit: number, candidates: number): Promise<{ response: FullSearchResponse; legsFull: boolean }> {
    const timings: Record<string, number> = {};
    const t0 = performance.now();
    const filters: SearchFilters = { languages: options.languages, pathGlob: options.pathGlob, chunkTypes: options.chunkTypes, kinds: options.kinds };
    const pq = processQuery(query);
    // A name lookup or a function's doc comment asks for code, whatever its words ("Tests whether…").
    const docComment = pq.docComment;
    const namesCode = namesCodeOf(pq);
    // "a mock server", "plugin specs", a test runner's "test files": test words this codebase names its own code with ask for code.
    const intent = options.intent ?? await queryIntent(query, namesCode, (soft) => this.#reading((r) => codeNamedBy(r.db, soft, this.#keyword.use(r.generation))));
    const mode: SearchMode = options.mode ?? (this.hasVectors ? 'hybrid' : 'bm25');
    const wantBm25 = mode !== 'vector';
    // An operator has no meaning to embed: a literal query is found as text alone (literal.ts).
    const wantVector = mode !== 'bm25' && this.hasVectors && !pq.literal;
    // A literal query's lines, read before the search's read transaction (grep reads through the store).
    const store = this.#store;
    const lines = wantBm25 && pq.literal && isGrepStore(store) ? await this.#timed(timings, 'grep', () => literalLines(store, pq.literal!, filters)) : [];
    const keyword = (r: ChunkReader, rows?: Map<number, StoredChunk>): Promise<Hit[]> => (wantBm25 && pq.ftsQuery
      ? this.#timed(timings, 'bm25', () => searchBm25(r.db, pq, filters, candidates, intent, timings, this.#keyword.use(r.generation), rows, (ids) => r.getChunks(ids)))
      : wantBm25 && pq.literal
        ? this.#timed(timings, 'literal', () => literalHits(r.db, pq.literal!, lines, filters, candidates))
        : Promise.resolve([]));
    const noVector: VectorLeg = { hits: [], floor: null, dropped: 0 };
    const ask: Ask = { query, options, pq, intent, docComment, mode, wantBm25, wantVector, limit, timings, t0 };
    // Keyword only: the whole search is one read transaction, and the keyword leg's candidate
    // rows are the hits' metadata. With the vector leg, the keyword leg's reads are one and the
    // results' another: the query's embedding runs between them without holding the connection.
    const full = (bm25: Hit[], vector: VectorLeg) => bm25.length >= candidates || vector.hits.length >= candidates;
    if (!wantVector) {
      return this.#reading(async (r) => {
        const rows = new Map<number, StoredChunk>();
        const bm25 = await keyword(r, rows);
        return { response: await this.#finish(r, ask, bm25, noVector, rows), legsFull: full(bm25, noVector) };
      });
    }
    const [bm25, vector] = await Promise.all([
      this.#reading(keyword),
      query.trim() ? this.#timed(timings, 'vector', () => this.#vectorLeg(query, filters, candidates)) : Promise.resolve(noVector),
    ]);
    return { response: await this.#reading((r) => this.#finish(r, ask, bm25, vector)), legsFull: full(bm25, vector) };
  }

  /** `fn` with the store's reader in one read transaction (SearchStore.read), else with the store itself. */
  #reading<T>(fn: (r: ChunkReader) => Promise<T>): Promise<T> {
    return this.#store.read ? this.#store.read(fn) : fn(this.#store);
  }

  /**
   * Metadata for every candidate, grouping, fusion, and the shown results' rows — read through
   * `r`; `known`: rows already read in the same transaction (content not needed), by id.
   */
  async #finish(r: ChunkReader, ask: Ask, bm25: Hit[], vector: VectorLeg, known?: ReadonlyMap<number, StoredChunk>): Promise<FullSearchResponse> {
    const { query, options, pq, intent, docComment, mode, wantBm25, wantVector, limit, timings, t0 } = ask;
    // Only when some chunks have vectors (0 embedded is a ratio of 0 however many there are).
    const total = this.#embeddedCount > 0 ? await r.chunkCount() : 0;
    const embeddedRatio = total > 0 ? Math.min(1, this.#embeddedCount / total) : 0;
    // Metadata for every candidate: definition matching, grouping by definition, results.
    const tf = performance.now();
    const ids = [...new Set([...bm25.map((h) => h.id), ...vector.hits.map((h) => h.id)])];
    // Grouping and definition tiers need metadata only; file text is read for the results.
    const unread = known ? ids.filter((id) => !known.has(id)) : ids;
    const read = unread.length ? await r.getChunks(unread, { content: false }) : [];
    const rows = known?.size ? rowsInOrder(ids, known, read) : read;
    const tm = performance.now();
    timings.meta = tm - tf;
    const fileOf: Record<number, string> = {};
    const linesOf: Record<number, number> = {};
    const typeOf: Record<number, string> = {};
    for (const row of rows) {
      fileOf[row.id] = row.path;
      linesOf[row.id] = row.endLine - row.startLine + 1;
      typeOf[row.id] = row.chunkType;
    }
    const tiers = wantsDefinitions(pq) ? definitionTiers(pq.targets, rows) : { definitionTiers: {}, definitionSizes: {} };
    // The files the query names (bm25.ts filesNamed) rank above definitions here too.
    const named = bm25.filter((h) => h.signals?.file_named);
    for (const h of named) tiers.definitionTiers[h.id] = FILE_NAME_TIER;
    const legs: LegHits = {
      bm25,
      vector: kindOrder(vector.hits, rows, intent, docComment, asksForDeclarations(query)),
      fileOf,
      linesOf,
      ...tiers,
      groupKeys: definitionKeys(rows),
      vectorFloor: vector.floor,
      vectorDropped: vector.dropped,
      // A name lookup, a file named, or a keyword answer that holds the query word for word
      // (bm25.ts `phrase`): the keyword leg's first result stays first.
      keywordFirst: wantsDefinitions(pq) || named.length > 0 || (bm25[0]?.signals?.phrase ?? 0) > 0,
      functionLevel: describesFunction(query),
      typeOf,
      // The learned order (order.ts) is for the keyword lists it was fitted on.
      learnedOrder: !wantVector && !docComment && intent === 'code',
    };
    const auto = fusionWeights(pq);
    const weights = { bm25Weight: options.bm25Weight ?? auto.bm25Weight, vectorWeight: options.vectorWeight ?? auto.vectorWeight };
    const picked = pickGroups(legs, weights, limit);
    // The learned order reads the sizes and texts of the first groups' files.
    if (ordersList(legs)) {
      const head = headPaths(picked, legs);
      legs.fileSizeOf = await readFileSizes(r.db, head);
      // Their texts only when the question has neighbouring words to look for (order.ts nearPairs).
      legs.questionPairs = questionPairs(query);
      if (legs.questionPairs.length) legs.fileTextOf = await (r.fileTexts ? r.fileTexts(head) : readFileTexts(r.db, head));
    }
    const groups = orderGroups(picked, legs);
    const shown = idsOf(groups);
    const tr = performance.now();
    timings.group = tr - tm;
    const byId = new Map((shown.length ? await r.getChunks(shown) : []).map((c) => [c.id, c]));
    const tx = performance.now();
    timings.text = tx - tr;
    const results = toResults(groups, (id) => byId.get(id), pq);
    timings.results = performance.now() - tx;
    timings.fuse = performance.now() - tf;
    timings.total = performance.now() - t0;
    const explain: Record<number, FusedItem['explain']> = {};
    for (const g of groups) explain[g.id] = g.explain;
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
      weights,
    };
  }

  async #vectorLeg(query: string, filters: SearchFilters, k: number): Promise<VectorLeg> {
    const qv = await this.#embedder!.embedQuery(query);
    const filtered = !!(filters.languages?.length || filters.chunkTypes?.length || filters.kinds?.length || filters.pathGlob);
    const raw = await this.#vectors!.search(qv, filtered ? k * VECTOR_FILTER_OVERFETCH : k);
    let kept = raw;
    if (filtered) {
      const rows = await this.#store.getChunks(raw.map((h) => h.id), { content: false });
      const keep = makeFilter(filters);
      const ok = new Set(rows.filter(keep).map((r) => r.id));
      kept = raw.filter((h) => ok.has(h.id));
    }
    // The relevance floor: unrelated chunks are not listed as semantic hits.
    const best = kept.length ? Math.max(...kept.map((h) => h.score)) : 0;
    const floor = vectorFloor(best);
    const above = kept.filter((h) => h.score >= floor);
    return {
      hits: above.slice(0, k).map((h, i) => ({ id: h.id, score: h.score, rank: i + 1, signals: { cosine: h.score, floor } })),
      floor,
      dropped: Math.min(k, kept.length) - Math.min(k, above.length),
    };
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

interface VectorLeg {
  hits: Hit[];
  floor: number | null;
  dropped: number;
}

/** The rows of `ids` in that order (as getChunks gives them), from `known` and then `read`; ids with no row are left out. */
function rowsInOrder(ids: readonly number[], known: ReadonlyMap<number, StoredChunk>, read: readonly StoredChunk[]): StoredChunk[] {
  const more = new Map(read.map((row) => [row.id, row]));
  return ids.flatMap((id) => known.get(id) ?? more.get(id) ?? []);
}

/** The vector leg's floor for a query whose best hit has cosine `best`: absolute and relative. */
export function vectorFloor(best: number): number {
  return Math.max(VECTOR_MIN_SCORE, best * VECTOR_RELATIVE_FLOOR);
}

/** Re-fuse stored leg hits with new weights — no store access for ranking; one result per definition. */
export function reFuse(legs: LegHits, weights: { bm25Weight: number; vectorWeight: number }, limit: number): GroupedItem[] {
  return rankGroups(legs, weights, limit);
}

/** @deprecated name kept for callers; see reFuse. */
export const refuse = reFuse;

export { idsOf };

export function makeFilter(filters: SearchFilters): (c: { language: string; chunkType: ChunkType; path: string }) => boolean {
  const langs = filters.languages?.length ? new Set(filters.languages) : null;
  const types = filters.chunkTypes?.length ? new Set<string>(filters.chunkTypes) : null;
  const kinds = filters.kinds?.length ? new Set<string>(filters.kinds) : null;
  // The same glob semantics as the keyword leg's SQL filter, so both legs keep the same files.
  const glob = filters.pathGlob ? compilePathGlob(filters.pathGlob) : null;
  return (c) => (!langs || langs.has(c.language)) && (!types || types.has(c.chunkType)) && (!glob || glob.test(c.path))
    && (!kinds || kinds.has(fileKind(c.path, c.language)));
}

/** Definition tier and size step per row that defines an identifier of the query (symbols.ts). */
function definitionTiers(targets: readonly SymbolTarget[], rows: readonly StoredChunk[]): Pick<LegHits, 'definitionTiers' | 'definitionSizes'> {
  const definitionTiers: Record<number, number> = {};
  const definitionSizes: Record<number, number> = {};
  for (const r of rows) {
    const m = matchDefinition(targets, r);
    if (m) {
      definitionTiers[r.id] = m.tier;
      definitionSizes[r.id] = definitionSteps(m);
    }
  }
  return { definitionTiers, definitionSizes };
}

/**
 * The vector leg in the order its cosines × the kind signal give (signals.ts kindFactor):
 * the same rule the keyword leg applies, so a code question's semantic hits put the
 * implementation before its tests and docs. Ranks are renumbered; `kind` is recorded.
 */
function kindOrder(hits: readonly Hit[], rows: readonly StoredChunk[], intent: SearchIntent, functionLevel: boolean, declarations: boolean): Hit[] {
  if (!hits.length || intent === 'any') return [...hits];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const scored = hits.map((h, i) => {
    const r = byId.get(h.id);
    const factor = r ? kindFactor(r.path, r.language, intent, r.parent, functionLevel, declarations) : 1;
    return { h, i, factor, s: h.score * factor };
  });
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.map(({ h, factor }, i) => ({ ...h, rank: i + 1, signals: factor === 1 ? h.signals : { ...h.signals, kind: factor } }));
}

/**
 * Fusion weights for a question: a name lookup (one identifier, a declaration, "where is X
 * defined") leans on the keyword leg (SYMBOL_FUSION_WEIGHTS), anything else weighs both
 * legs BM25_WEIGHT / VECTOR_WEIGHT.
 */
export function fusionWeights(pq: ProcessedQuery): { bm25Weight: number; vectorWeight: number } {
  return wantsDefinitions(pq) ? { ...SYMBOL_FUSION_WEIGHTS } : { bm25Weight: BM25_WEIGHT, vectorWeight: VECTOR_WEIGHT };
}
