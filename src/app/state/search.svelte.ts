/**
 * The search: query, filters, mode and weights (mirrored in the URL fragment), the latest
 * response, the selection, and re-fusing with new weights.
 *
 * Invariants:
 * - At most one search is in flight; a newer one aborts the older (its result never lands).
 * - Typing is debounced; a query that arrives whole (pasted, dropped, recalled: more than one
 *   character changed in one input) and filter and mode changes search at once.
 * - Changing weights re-fuses the stored leg hits on this thread — no new query; rows that
 *   were outside the last result list are fetched by id.
 */
import { bridge } from '../bridges/workers.ts';
import type { AppSearchResponse, AppSearchResult, CodebaseLegs } from '../../../workers/store/api.ts';
import type { ChunkType, StoredChunk } from '../../core/types.ts';
import type { FileKind, SearchIntent } from '../../core/text/file-kind.ts';
import { reFuse } from '../../core/search/search.ts';
import { idsOf, mergeRanked, rowsOfResults, toResults } from '../../core/search/results.ts';
import { processQuery } from '../../core/search/query.ts';
import { APP_RESULT_LIMIT, BM25_WEIGHT, MAX_SEARCH_LIMIT } from '../../core/config.ts';
import { handleError } from './notices.svelte.ts';
import { isGrepMode, parseHash, serializeHash, type AppMode, type AppView, type UrlSearchState } from './url-state.ts';
import { grepSearch } from './grep.svelte.ts';
import { LatestCall, keepSelection } from './latest-call.svelte.ts';
import { isKeystroke } from './typing.ts';

export const TYPING_DEBOUNCE_MS = 150;
/** Results shown (and fetched from each codebase). */
export const RESULT_LIMIT = APP_RESULT_LIMIT;
/**
 * While indexing, live results refresh at most this often once some are shown (at once while
 * none are). Each refresh is a search in the store worker between the run's writes: every 1.2 s
 * it cost a 1,022-file first index ~0.4 s of its 5.5 s in Chromium.
 */
const LIVE_REFRESH_MS = 2500;

const key = (r: { codebaseId: string; id: number }) => `${r.codebaseId}:${r.id}`;

class Search {
  #query = $state('');
  #mode = $state<AppMode>('hybrid');
  /** Exact/regex only: fold case (the Aa toggle, `i=1` in the URL). */
  #ignoreCase = $state(false);
  #languages = $state.raw<string[]>([]);
  #pathGlob = $state('');
  #chunkTypes = $state.raw<ChunkType[]>([]);
  #kinds = $state.raw<FileKind[]>([]);
  #intent = $state<SearchIntent | null>(null);
  #codebases = $state.raw<string[]>([]);
  /** The published index the URL opened (`index=`), kept in the fragment so a shared link reopens it. */
  #index = '';
  /** The keyword leg's fusion weight once the slider moved; null: the search's own (fusionWeights). */
  #bm25Weight = $state<number | null>(null);

  #response = $state.raw<AppSearchResponse | null>(null);
  #results = $state.raw<AppSearchResult[]>([]);
  #selected = $state(-1);
  #expanded = $state.raw<readonly string[]>([]);
  #explainKey = $state<string | null>(null);
  /** Show results under a header per file (zoekt/Sourcegraph style), best file first. */
  #groupByFile = $state(false);

  #call = new LatestCall();
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The queued search is a typed query's (not a live refresh's). */
  #typing = false;
  #lastLiveRefresh = 0;
  /** The person has set the query or a filter since the page loaded (applyHash atStart). */
  #touched = false;
  /** Results shown: RESULT_LIMIT, raised by Show more (up to MAX_SEARCH_LIMIT); a new search starts over. */
  #limit = $state(RESULT_LIMIT);
  /** The last search found more results than it shows. */
  #more = $state(false);
  /** Chunk rows seen in the last response (results and their more-pieces), by codebase:id. */
  #rows = new Map<string, StoredChunk>();

  get query() { return this.#query; }
  get mode() { return this.#mode; }
  get ignoreCase() { return this.#ignoreCase; }
  /** Exact or regex: every matching line (grep.svelte.ts), not ranked results. */
  get isGrep() { return isGrepMode(this.#mode); }
  get languages() { return this.#languages; }
  get pathGlob() { return this.#pathGlob; }
  get chunkTypes() { return this.#chunkTypes; }
  get kinds() { return this.#kinds; }
  get intent() { return this.#intent; }
  get codebases() { return this.#codebases; }
  get bm25Weight(): number { return this.#bm25Weight ?? this.#response?.weights?.bm25Weight ?? BM25_WEIGHT; }
  get vectorWeight() { return Math.round((1 - this.bm25Weight) * 100) / 100; }
  get response() { return this.#response; }
  get results() { return this.#results; }
  /**
   * Whether the results shown (ranked, or exact/regex lines) answer the query in the box: a query
   * pasted whole runs at once, but its results come later.
   */
  get answersQuery() {
    return this.isGrep ? grepSearch.answer?.pattern === this.#query : this.#response !== null && this.#response.query === this.#query.trim();
  }
  get loading() { return this.#call.loading; }
  get selected() { return this.#selected; }
  get explainKey() { return this.#explainKey; }
  get groupByFile() { return this.#groupByFile; }
  /** More results than shown exist (a lower bound: the count is not known). */
  get hasMore() { return this.#more; }
  /** Show more can fetch them (results stop at MAX_SEARCH_LIMIT). */
  get canShowMore() { return this.#more && this.#limit < MAX_SEARCH_LIMIT; }
  /** The list stops at the most a search returns. */
  get atMost() { return this.#limit >= MAX_SEARCH_LIMIT && this.#results.length >= MAX_SEARCH_LIMIT; }

  /** The next RESULT_LIMIT results of the same search, keeping the selection. */
  async showMore(): Promise<void> {
    this.#limit = Math.min(MAX_SEARCH_LIMIT, this.#limit + RESULT_LIMIT);
    await this.run();
  }

  /** Results grouped by codebase + file, files in the order of their best result; `index` is the result's rank − 1. */
  get fileGroups(): Array<{ key: string; path: string; codebaseId: string; items: Array<{ result: AppSearchResult; index: number }> }> {
    const groups: Array<{ key: string; path: string; codebaseId: string; items: Array<{ result: AppSearchResult; index: number }> }> = [];
    const at: Record<string, number> = {};
    this.#results.forEach((result, index) => {
      const k = `${result.codebaseId}\n${result.path}`;
      if (at[k] === undefined) {
        at[k] = groups.length;
        groups.push({ key: k, path: result.path, codebaseId: result.codebaseId, items: [] });
      }
      groups[at[k]].items.push({ result, index });
    });
    return groups;
  }

  setGroupByFile(on: boolean): void {
    this.#groupByFile = on;
  }
  get hasFilters() {
    return this.#languages.length > 0 || this.#pathGlob !== '' || this.#chunkTypes.length > 0 || this.#kinds.length > 0 || this.#intent !== null || this.#codebases.length > 0;
  }

  resultKey(r: AppSearchResult): string {
    return key(r);
  }

  isExpanded(r: AppSearchResult): boolean {
    return this.#expanded.includes(key(r));
  }

  // ---- URL ----

  #urlState(): Omit<UrlSearchState, 'view'> {
    return { query: this.#query, mode: this.#mode, ignoreCase: this.#ignoreCase, languages: this.#languages, pathGlob: this.#pathGlob, chunkTypes: this.#chunkTypes, kinds: this.#kinds, intent: this.#intent, codebases: this.#codebases, index: this.#index };
  }

  /** The URL fragment of the search shown, on a page. */
  #hashOn(view: AppView): string {
    return serializeHash({ ...this.#urlState(), view });
  }

  /** Applies the URL fragment (page load, back/forward, a shared link) and searches. */
  /** Resolves when the search it started has answered. */
  applyHash(hash: string, o: { atStart?: boolean } = {}): Promise<void> {
    // At start the URL's search is applied once the workers are up: a person who typed (or
    // changed a filter) meanwhile keeps what they did, and it is what the URL says now.
    if (o.atStart && this.#touched) return Promise.resolve();
    const s = parseHash(hash);
    // (The page shown is the URL's too, but it is no search: ui.applyHash follows it.)
    if (serializeHash(s) === this.#hashOn(s.view)) return Promise.resolve();
    this.#query = s.query;
    this.#mode = s.mode;
    this.#ignoreCase = s.ignoreCase;
    this.#languages = s.languages;
    this.#pathGlob = s.pathGlob;
    this.#chunkTypes = s.chunkTypes;
    this.#kinds = s.kinds;
    this.#intent = s.intent;
    this.#codebases = s.codebases;
    this.#index = s.index;
    this.#limit = RESULT_LIMIT;
    return this.run();
  }

  /**
   * Writes the search shown into the current history entry's URL, on `view` (the URL's page unless
   * said): App calls it where the step back that closed the file viewer lands, so a query typed
   * before it landed stays.
   */
  writeHash(view: AppView = parseHash(location.hash).view): void {
    if (typeof history === 'undefined') return;
    const hash = this.#hashOn(view);
    if (hash === location.hash || (hash === '' && location.hash === '')) return;
    history.replaceState(history.state, '', hash || location.pathname + location.search);
  }

  // ---- inputs ----

  /** Whether a typed query waits for the pause in typing and has not run yet (a queued live refresh is not one). */
  get pending(): boolean {
    return this.#timer !== null && this.#typing;
  }

  /** Runs the queued search now (Enter after typing: no wait for the debounce). */
  flush(): void {
    if (this.#timer) void this.run();
  }

  setQuery(q: string): void {
    this.#touched = true;
    // Typing waits for a pause; a query that arrived whole has nothing to wait for.
    this.#typing = isKeystroke(this.#query, q);
    this.#query = q;
    this.#limit = RESULT_LIMIT;
    this.writeHash();
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#typing) this.#timer = setTimeout(() => void this.run(), TYPING_DEBOUNCE_MS);
    else void this.run();
  }

  setMode(m: AppMode): void {
    this.#mode = m;
    this.#changed();
  }

  setIgnoreCase(on: boolean): void {
    this.#ignoreCase = on;
    this.#changed();
  }

  setLanguages(v: string[]): void {
    this.#languages = v;
    this.#changed();
  }

  setPathGlob(v: string): void {
    this.#pathGlob = v.trim();
    this.#changed();
  }

  setChunkTypes(v: ChunkType[]): void {
    this.#chunkTypes = v;
    this.#changed();
  }

  setKinds(v: FileKind[]): void {
    this.#kinds = v;
    this.#changed();
  }

  setIntent(v: SearchIntent | null): void {
    this.#intent = v;
    this.#changed();
  }

  setCodebases(v: string[]): void {
    this.#codebases = v;
    this.#changed();
  }

  clearFilters(): void {
    this.#languages = [];
    this.#pathGlob = '';
    this.#chunkTypes = [];
    this.#kinds = [];
    this.#intent = null;
    this.#codebases = [];
    this.#changed();
  }

  #changed(): void {
    this.#touched = true;
    this.#limit = RESULT_LIMIT;
    this.writeHash();
    void this.run();
  }

  // ---- running ----

  #answered: () => void = () => undefined;
  /**
   * Resolves once a search (ranked or exact) has shown results for the first time: a search
   * that ran before any codebase was ready, or was overtaken by a newer one, does not count.
   */
  readonly firstAnswer: Promise<void> = new Promise((resolve) => (this.#answered = resolve));

  async run(): Promise<void> {
    await this.#run();
    if (this.#query.trim() && (this.#results.length > 0 || grepSearch.lines.length > 0)) this.#answered();
  }

  async #run(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#typing = false;
    this.#call.cancel();
    const q = this.#query.trim();
    if (!q) {
      this.#response = null;
      this.#results = [];
      this.#more = false;
      this.#selected = -1;
      grepSearch.clear();
      return;
    }
    const mode = this.#mode;
    if (isGrepMode(mode)) {
      // Lines, not ranked results (issue 11); grep.svelte.ts runs it and cancels the older one.
      this.#response = null;
      this.#results = [];
      this.#more = false;
      this.#selected = -1;
      await grepSearch.run({
        pattern: this.#query,
        mode,
        ignoreCase: this.#ignoreCase,
        codebaseIds: this.#codebases,
        pathGlob: this.#pathGlob || undefined,
        languages: this.#languages.length ? this.#languages : undefined,
      });
      return;
    }
    grepSearch.clear();
    const request = {
      query: q,
      codebaseIds: this.#codebases,
      options: {
        // One more than shown: whether there are more.
        limit: Math.min(MAX_SEARCH_LIMIT, this.#limit + 1),
        mode,
        languages: this.#languages.length ? this.#languages : undefined,
        pathGlob: this.#pathGlob || undefined,
        chunkTypes: this.#chunkTypes.length ? this.#chunkTypes : undefined,
        kinds: this.#kinds.length ? this.#kinds : undefined,
        intent: this.#intent ?? undefined,
        ...(this.#bm25Weight !== null ? { bm25Weight: this.#bm25Weight, vectorWeight: this.vectorWeight } : {}),
      },
    };
    await this.#call.run((signal) => bridge.search(request, signal), (res) => {
      this.#rows.clear();
      for (const r of res.results) for (const c of rowsOfResults([r])) this.#rows.set(key({ codebaseId: r.codebaseId, id: c.id }), c);
      const prevKey = this.#results[this.#selected] ? key(this.#results[this.#selected]) : null;
      const shown = res.results.slice(0, this.#limit);
      this.#response = res;
      this.#results = shown;
      this.#more = res.results.length > shown.length;
      this.#selected = keepSelection(shown, prevKey, key);
    });
  }

  /**
   * Called when indexed data changed; re-runs the current search. Throttled (LIVE_REFRESH_MS)
   * while results are on screen and indexing goes on; at once while the query has shown no
   * results yet (a person waits on them: each batch that lands is searched) and when
   * `settled` (the run ended: its last files are searched now, not up to a throttle later).
   */
  refreshLive(settled = false): void {
    if (!this.#query.trim()) return;
    const waiting = settled || (this.#results.length === 0 && grepSearch.lines.length === 0);
    const wait = waiting ? 0 : Math.max(0, LIVE_REFRESH_MS - (Date.now() - this.#lastLiveRefresh));
    if (this.#timer && (this.#typing || !waiting)) return; // a search is already queued
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#lastLiveRefresh = Date.now();
      void this.run();
    }, wait);
  }

  // ---- weights: re-fuse without querying ----

  async setBm25Weight(w: number): Promise<void> {
    this.#bm25Weight = Math.max(0, Math.min(1, w));
    const res = this.#response;
    if (!res) return;
    const weights = { bm25Weight: this.bm25Weight, vectorWeight: this.vectorWeight };
    // The same fusion, grouping by definition and merge as the store worker (search/results.ts).
    const perCodebase = res.legs.map((legs: CodebaseLegs) => reFuse(legs, weights, this.#limit).map((g) => ({ ...g, codebaseId: legs.codebaseId })));
    const top = mergeRanked(perCodebase, this.#limit);
    // Rows not in the last result list: fetch them by id (no ranking work).
    const missing: Record<string, number[]> = {};
    for (const g of top) for (const id of idsOf([g])) if (!this.#rows.has(key({ codebaseId: g.codebaseId, id }))) (missing[g.codebaseId] ??= []).push(id);
    try {
      for (const [cb, ids] of Object.entries(missing)) {
        const rows: StoredChunk[] = await bridge.getChunks(cb, ids);
        for (const c of rows) this.#rows.set(key({ codebaseId: cb, id: c.id }), c);
      }
    } catch (e) {
      handleError(e, 'Re-ranking');
    }
    if (this.#response !== res) return; // a newer search landed meanwhile
    const sel = this.#results[this.#selected];
    const pq = processQuery(res.query);
    this.#results = top.flatMap((g, i) => {
      const rowOf = (id: number) => this.#rows.get(key({ codebaseId: g.codebaseId, id }));
      // The keyword leg's own signals do not depend on the weights: keep the ones the search returned.
      const bm25Signals = res.results.find((r) => r.codebaseId === g.codebaseId && r.id === g.id)?.bm25Signals ?? null;
      return toResults([g], rowOf, pq).map((r) => ({ ...r, rank: i + 1, codebaseId: g.codebaseId, explain: g.explain, bm25Signals }));
    });
    const keep = sel ? this.#results.findIndex((r) => key(r) === key(sel)) : -1;
    this.#selected = keep >= 0 ? keep : this.#results.length ? 0 : -1;
  }

  // ---- selection and per-result UI ----

  select(i: number): void {
    this.#selected = Math.max(-1, Math.min(this.#results.length - 1, i));
  }

  move(delta: number): void {
    if (!this.#results.length) return;
    const next = this.#selected < 0 ? 0 : this.#selected + delta;
    this.#selected = Math.max(0, Math.min(this.#results.length - 1, next));
  }

  toggleExpanded(r: AppSearchResult): void {
    const k = key(r);
    this.#expanded = this.#expanded.includes(k) ? this.#expanded.filter((x) => x !== k) : [...this.#expanded, k];
  }

  toggleExplain(r: AppSearchResult | null): void {
    this.#explainKey = r && this.#explainKey !== key(r) ? key(r) : null;
  }
}

export const search = new Search();

