/**
 * The BM25 leg: FTS5 ranking over chunks_fts, filters, the exact-symbol boost, and match
 * highlighting.
 *
 * Ranking signals (each named, each explainable):
 * - FTS5 bm25() with per-column weights BM25_COLUMN_WEIGHTS: a hit in a chunk's names
 *   (symbol/parent) or path counts more than one in its body.
 * - Second stage (rerank.ts): the top RERANK_CANDIDATES FTS hits are re-scored with the
 *   normalised bm25, a symbol-name match with the query words and an exact-identifier
 *   signal; test/vendored/generated files are scaled down.
 * - Definitions (symbols.ts, the one exact-symbol detector): for identifier-like queries (one
 *   word) and declaration queries (`struct page`, `def parse`), a chunk that defines the
 *   identifier (any case; `Foo::bar` / `Foo.bar` also need parent = Foo; a merged chunk by any of its names, any chunk by a constant it defines) is
 *   added to the candidates and gets KEYWORD_DEFINITION_BOOST × its tier (exact case, head of
 *   the definition, first), so definitions rank first. An identifier inside a prose query only feeds the rerank's
 *   `exact` signal.
 * Hit.score = rerank score (+ boost): higher is better. Ranks are 1..n, ties broken by chunk id.
 *
 * Filters, all inside the one SQL query so LIMIT counts only rows that pass: languages and
 * chunk types as IN lists; pathGlob as a LIKE on the glob's literal prefix (uses no JS) plus
 * the JS function sift_path_match(glob, path) (picomatch, compiled once per glob), which
 * `registerPathMatch` (text/path-glob.ts) installs on the connection (Store.open does).
 */
import type { Hit, SearchFilters, StoredChunk } from '../types.ts';
import type { Queryable, SqlValue } from '../store/sqlite.ts';
import { nameKey, readChunks } from '../store/store.ts';
import { ftsRowCount } from '../store/fts-totals.ts';
import { compilePathGlob, PATH_MATCH_FUNCTION } from '../text/path-glob.ts';
import { identifierParts } from '../text/identifiers.ts';
import { BM25_COLUMN_WEIGHTS, CODE_CANDIDATES, FEW_FILES, FILE_SIGNALS, FTS_PLAN_BIG_CAP, FTS_PLAN_CAP, FTS_PLAN_LEAVE_OUT_SHARE, FTS_PLAN_THETA_GUESS, FTS_PLAN_WORD_ENOUGH, KEYWORD_DEFINITION_BOOST, MAX_EXACT_SYMBOL_ROWS, PHRASE_ROWS, PHRASE_WEIGHT, QUALIFIED_TIERS, RERANK_CANDIDATES, RERANK_WEIGHTS, EXAMPLE_WORD_NAME_SHARE, FILE_NAME_TIER, LEG_FILE_PIECES, TEST_WORD_CODE_SHARE, TEXT_DEFINITION_TIER, WRITTEN_NAME_TIER } from '../config.ts';
import { lightStem } from '../text/word-forms.ts';
import { DECLARATION_LINE_SOURCE, PREFIX_MIN_CHARS, describesFunction, fileNameTerms, processQuery, type ProcessedQuery } from './query.ts';
import type { PathQuery } from './query-types.ts';
import { essentialRows, planFts, replan, type BoundedPhrase, type RowProbe } from './fts-plan.ts';
import { maskCount, rerank, signalTerms, termMask, type RerankCandidate } from './rerank.ts';
import { NAMED_FILES_READ_ALL_AFTER, NAMED_FILE_PIECES, filesNamedBy, namedParts, readFileNames, type FileNames } from './named-files.ts';
import { NAMED_LEAF_MIN_TERMS, termForms, addScore, applyCover, applyFileSignals, applyNamedLeaf, applyPieceKind, applyProse, applySpread, asksHowOrWhere, coverFiles, namedLeafFiles, type FileCandidate } from './signals.ts';
import { EXAMPLE_WORD, SPEC_WORD, TEST_WORD, asksForDeclarations, fileKind, pathWordForms, pieceKind, type SearchIntent } from '../text/file-kind.ts';
import { QUALIFIER_RE, definitionRank, docCommentTargets, matchDefinition, wantsDefinitions, type DefinitionMatch } from './symbols.ts';
import { escapeRegExp } from '../text/regexp.ts';

export { BM25_COLUMN_WEIGHTS, MAX_EXACT_SYMBOL_ROWS, RERANK_CANDIDATES };
/** The keyword leg's boost for a tier-1 definition (config.ts KEYWORD_DEFINITION_BOOST). */
export const EXACT_SYMBOL_BOOST = KEYWORD_DEFINITION_BOOST;
/** Most highlight ranges returned for one chunk. */
export const MAX_HIGHLIGHTS = 500;

const W = BM25_COLUMN_WEIGHTS;
/** The keyword leg's FTS5 score (lower is better). */
export const BM25_EXPR = `bm25(chunks_fts, ${W.names}, ${W.pathWords}, ${W.sigDoc}, ${W.content}, ${W.tokens})`;

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export interface FilterSql {
  where: string;
  params: SqlValue[];
}

export function filterSql(filters: SearchFilters): FilterSql {
  const clauses: string[] = [];
  const params: SqlValue[] = [];
  if (filters.languages?.length) {
    clauses.push(`c.language IN (${filters.languages.map(() => '?').join(', ')})`);
    params.push(...filters.languages);
  }
  if (filters.chunkTypes?.length) {
    clauses.push(`c.chunk_type IN (${filters.chunkTypes.map(() => '?').join(', ')})`);
    params.push(...filters.chunkTypes);
  }
  if (filters.kinds?.length) {
    clauses.push(`c.kind IN (${filters.kinds.map(() => '?').join(', ')})`);
    params.push(...filters.kinds);
  }
  const glob = filters.pathGlob ? compilePathGlob(filters.pathGlob) : null;
  if (glob?.prefix) {
    clauses.push(`c.path LIKE ? ESCAPE '\\'`);
    params.push(`${likeEscape(glob.prefix)}%`);
  }
  if (glob && filters.pathGlob) {
    clauses.push(`${PATH_MATCH_FUNCTION}(?, c.path)`);
    params.push(filters.pathGlob);
  }
  return { where: clauses.map((c) => ` AND ${c}`).join(''), params };
}

function isFtsSyntaxError(e: unknown): boolean {
  return e instanceof Error && /fts5|syntax error|unterminated string|malformed MATCH/i.test(e.message);
}

interface FtsRow {
  id: number;
  /** bm25(): lower is better. */
  r: number;
  /** 1 for a definition row (always fetched), else 0. */
  x: number;
}

/**
 * One FTS5 pass: every listed definition row that matches, then the best rows by bm25 (enough
 * that the best n of all rows are among them: topRows).
 */
async function ftsCandidates(db: Queryable, match: string, where: string, params: SqlValue[], exact: number[], n: number, only?: string): Promise<FtsRow[]> {
  // Without filters the FTS table alone answers (external content = chunks, kept equal by
  // triggers): joining chunks would seek one chunks row per MATCHING row before the sort.
  const id = where ? 'c.id' : 'chunks_fts.rowid';
  const from = where ? 'chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid' : 'chunks_fts';
  // In the select list, not the WHERE: FTS5 never sees it as a rowid constraint.
  const x = exact.length ? `${id} IN (${exact.map(() => '?').join(', ')})` : '0';
  // `only`: score just the rows that also match it (fts-plan.ts essentialRows), and the listed
  // definitions. `+id` keeps the IN off FTS5's rowid constraints (else one MATCH per row);
  // the subquery runs once, and bm25 is computed only for the rows that pass.
  const restrict = only ? ` AND (+${id} IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?) OR ${x})` : '';
  return db.all<FtsRow>(
    `SELECT ${id} AS id, ${BM25_EXPR} AS r, ${x} AS x FROM ${from}
      WHERE chunks_fts MATCH ?${where}${restrict}
      ORDER BY ${exact.length ? 'x DESC, ' : ''}r, ${id} LIMIT ?`,
    [...exact, match, ...params, ...(only ? [only, ...exact] : []), n + exact.length],
  );
}

/**
 * The first piece of each file (at most MAX_EXACT_SYMBOL_ROWS) that the query names: whose path is
 * `q.path` or ends with `/` + it, with or without an extension after it when the query wrote
 * none (`middlewares/proxy` → `server/middlewares/proxy.ts`). Compared lower-case. With a line
 * (`src/a.ts:120`, a traceback's frame), the smallest piece of the file that holds the line, and a
 * path that matches no file is tried without its first folders (an absolute path from another
 * machine: `/home/me/app/src/a.ts` → `app/src/a.ts` → `src/a.ts`).
 */
async function filesNamed(db: Queryable, q: PathQuery, where: string, params: SqlValue[]): Promise<number[]> {
  const parts = q.path.split('/').filter(Boolean);
  const tries = q.line === undefined ? 1 : Math.min(parts.length, MAX_PATH_SUFFIX_TRIES);
  const match = q.extension
    ? `(lower(f.path) = ? OR lower(f.path) LIKE ? ESCAPE '\\')`
    : `(lower(f.path) = ? OR lower(f.path) LIKE ? ESCAPE '\\' OR lower(f.path) LIKE ? ESCAPE '\\' OR lower(f.path) LIKE ? ESCAPE '\\')`;
  for (let i = 0; i < tries; i++) {
    const path = parts.slice(i).join('/');
    const p = likeEscape(path);
    const args = q.extension ? [path, `%/${p}`] : [path, `%/${p}`, `${p}.%`, `%/${p}.%`];
    const rows = q.line === undefined
      ? await db.all<{ id: number }>(
        `SELECT c.id AS id FROM files f JOIN chunks c ON c.id = f.chunk_lo WHERE ${match}${where} ORDER BY length(f.path), f.path LIMIT ?`,
        [...args, ...params, MAX_EXACT_SYMBOL_ROWS],
      )
      : await db.all<{ id: number }>(
        // Per file, the smallest piece holding the line, else its first piece.
        `SELECT (SELECT c2.id FROM chunks c2 WHERE c2.id BETWEEN f.chunk_lo AND f.chunk_hi
                   ORDER BY (c2.start_line <= ?1 AND c2.end_line >= ?1) DESC,
                            CASE WHEN c2.start_line <= ?1 AND c2.end_line >= ?1 THEN c2.end_line - c2.start_line ELSE 0 END, c2.id LIMIT 1) AS id
           FROM files f JOIN chunks c ON c.id = f.chunk_lo WHERE ${match}${where} ORDER BY length(f.path), f.path LIMIT ?`,
        [q.line, ...args, ...params, MAX_EXACT_SYMBOL_ROWS],
      );
    if (rows.length) return rows.map((r) => r.id);
  }
  return [];
}

/** Most leading folders filesNamed drops from a path with a line that matches no file as written. */
const MAX_PATH_SUFFIX_TRIES = 8;

/**
 * A line that names something under another name: an import or export (`export { getAll as
 * __unsafe_getAll }`, `import numpy as np`, `use io::Result as IoResult;`), or an entry of such a
 * list on a line of its own (`  getAll as __unsafe_getAll,`); the alias follows.
 */
const ALIAS_LINE_SOURCE = '^[ \\t]*(?:(?:export|import|from|use|pub[ \\t]+use)\\b[^\\n]*?[\\s{,]|(?=[\\p{L}_$][\\p{L}\\p{N}_$.:]*[ \\t]+as[ \\t]+[\\p{L}_$][\\p{L}\\p{N}_$]*,?[ \\t]*$))[\\p{L}_$*][\\p{L}\\p{N}_$.:]*[ \\t]+as[ \\t]+';

/** The name a lookup asks for, as one word (`Foo.bar` → `bar`), or '' when it is not a plain name. */
function lookedUpName(query: ProcessedQuery): string {
  const name = (query.declared?.name ?? query.original.trim()).split(QUALIFIER_RE).pop() ?? '';
  return /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(name) ? name : '';
}

/**
 * A lookup of a name of several parts that nothing defines or declares (`walrus_settle_count`,
 * an environment variable, a config key, a name used only in tests): its answer is where the
 * name is written, so the pieces that hold the phrase of its parts (as typed; docs included) are
 * listed and rank above every piece that holds only some of them (`name_written`,
 * WRITTEN_NAME_TIER), in their own order (code before tests); of the pieces that hold the phrase,
 * those that hold the name itself (any case). Otherwise a code piece holding one part (`settle`)
 * ranked above the one test that holds the name. None for a one-part name (its one word is the
 * query already).
 */
async function writtenName(db: Queryable, query: ProcessedQuery, where: string, params: SqlValue[], read: (ids: number[]) => Promise<StoredChunk[]>): Promise<number[]> {
  const name = lookedUpName(query);
  if (!name || identifierParts(name).length < 2) return [];
  const ids = await phraseRows(db, `"${name}"`, where, params, true);
  if (!ids.length) return [];
  // The phrase of its parts also matches prose ("current gin mode" for `GIN_MODE`): the name itself.
  const holds = new RegExp(`(?<![\\p{L}\\p{N}_$])${escapeRegExp(name)}(?![\\p{L}\\p{N}_$])`, 'iu');
  return (await read(ids)).filter((r) => holds.test(r.content)).map((r) => r.id);
}

/**
 * Ids of the pieces (at most PHRASE_ROWS) whose text holds `phrase` (an FTS5 phrase) word for
 * word; not documentation: a changelog or a guide repeats the message or the commit subject the
 * code is asked for by.
 */
async function phraseRows(db: Queryable, phrase: string, where: string, params: SqlValue[], docs = false): Promise<number[]> {
  const rows = await db.all<{ id: number }>(
    `SELECT c.id AS id FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?${docs ? '' : " AND c.kind <> 'docs'"}${where} LIMIT ?`,
    [phrase, ...params, PHRASE_ROWS],
  );
  return rows.map((r) => r.id);
}

/** FTS5 rows matching `match`, counted up to `cap` (the planner's probe); `cache`: counts kept between queries. */
export function probeRows(db: Queryable, cache?: KeywordCache): RowProbe {
  return async (match, cap) => {
    const known = cache?.count(match, cap);
    if (known !== undefined) return known;
    const rows = await db.all<{ n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)', [match, cap]);
    const n = rows[0]?.n ?? 0;
    cache?.setCount(match, cap, n);
    return n;
  };
}

/** Most phrase counts a KeywordCache keeps (then it starts over). */
const KEYWORD_CACHE_COUNTS = 20_000;

/**
 * What the keyword leg keeps between the queries of one Searcher, valid while the database is
 * unchanged (ChunkReader.generation): the planner's row counts per phrase and the table's row
 * bound. A query's plan and results are the same with or without it; words that come back in
 * later questions are not counted again.
 */
export class KeywordCache {
  #generation: number | undefined = undefined;
  /** Per MATCH expression: its rows, exact when below `cap`, else at least `cap`. */
  readonly #counts = new Map<string, { n: number; cap: number }>();
  tableRows: number | null = null;
  /** codeWordShare of this generation by word, once asked. */
  readonly wordShares = new Map<string, number>();
  /** The index's files for named-files.ts, read once asked more than NAMED_FILES_READ_ALL_AFTER times. */
  fileNames: FileNames | null = null;
  /** Questions of this generation that looked for named files. */
  namedAsks = 0;

  /** Start using the cache for a read of `generation`; another generation (or none) empties it. */
  use(generation: number | undefined): KeywordCache | undefined {
    if (generation === undefined || generation !== this.#generation) {
      this.#counts.clear();
      this.tableRows = null;
      this.wordShares.clear();
      this.fileNames = null;
      this.namedAsks = 0;
      this.#generation = generation;
    }
    return generation === undefined ? undefined : this;
  }

  /** min(rows, cap) when known. */
  count(match: string, cap: number): number | undefined {
    const c = this.#counts.get(match);
    if (!c) return undefined;
    if (c.n < c.cap) return Math.min(c.n, cap); // exact
    return cap <= c.cap ? cap : undefined; // at least c.cap rows
  }

  setCount(match: string, cap: number, n: number): void {
    const c = this.#counts.get(match);
    if (c && c.cap >= cap) return;
    if (this.#counts.size >= KEYWORD_CACHE_COUNTS) this.#counts.clear();
    this.#counts.set(match, { n, cap });
  }
}

/** Candidate rows of every planned statement (fallback when too few), one row per id. Exported for tests. */
export async function plannedCandidates(db: Queryable, query: ProcessedQuery, where: string, params: SqlValue[], exact: number[], n: number, timings?: Record<string, number>, cache?: KeywordCache): Promise<FtsRow[]> {
  // The row count bm25 uses: FTS5's own (store/fts-totals.ts). Not max(id): ids are never
  // reused, so after files change it overstates the rows (zod, re-chunked once: 16,897 for
  // 6,415), and the plan would be another than for the same files indexed afresh.
  const tableRows = cache?.tableRows ?? await ftsRowCount(db);
  if (cache) cache.tableRows = tableRows;
  const options = {
    // A smaller table's rarer phrases may be left out (exact for the best n), not with listed
    // definitions: a rare plan scores a definition by the phrases of the statement that has it,
    // or not at all when it holds only left-out phrases (the full OR scores it by all of them).
    cap: FTS_PLAN_CAP, leaveOut: exact.length ? undefined : Math.ceil(tableRows * FTS_PLAN_LEAVE_OUT_SHARE), bigCap: FTS_PLAN_BIG_CAP, thetaGuess: FTS_PLAN_THETA_GUESS, wordEnough: FTS_PLAN_WORD_ENOUGH, enough: n, identifier: query.isIdentifierLike, tableRows,
  };
  const counting = probeRows(db, cache);
  // The planner's counts are `plan`; searchBm25 books the rest of this as `fts`.
  const probe: RowProbe = timings ? async (match, cap) => {
    const t = performance.now();
    try {
      return await counting(match, cap);
    } finally {
      const ms = performance.now() - t;
      timings.plan = (timings.plan ?? 0) + ms;
      timings.fts = (timings.fts ?? 0) - ms;
    }
  } : counting;
  const plan = await planFts(query.ftsGroups, probe, options);
  const byId = new Map<number, FtsRow>();
  const run = async (matches: string[], only?: string) => {
    for (const m of matches) {
      for (const row of await ftsCandidates(db, m, where, params, exact, n, only)) {
        const seen = byId.get(row.id);
        // A row in two statements: the better (lower) bm25 is the one scored by more phrases.
        byId.set(row.id, seen ? { id: row.id, r: Math.min(seen.r, row.r), x: Math.max(seen.x, row.x) } : row);
      }
    }
  };
  const nth = () => (byId.size >= n ? topRows([...byId.values()], n)[n - 1] : null);
  /**
   * A rare plan's statements (fts-plan.ts selectWith: the rows with a kept phrase and a
   * left-out one, then the kept phrases alone): the second scores only the rows that can
   * still reach the n-th best score so far (essentialRows). Every row so far is scored by the
   * phrases it holds or fewer, so that n-th score is a lower bound of the full OR's.
   */
  const runRare = async (matches: string[], kept: readonly BoundedPhrase[]) => {
    await run(matches.slice(0, 1));
    const so = nth();
    const rows = essentialRows(kept, so ? -so.r : 0);
    if (rows !== 'none') await run(matches.slice(1), rows === 'all' ? undefined : rows.match);
  };
  if (plan.kind === 'rare' && plan.phrases && plan.matches.length === 2) await runRare(plan.matches, plan.phrases.slice(plan.common));
  else await run(plan.matches);
  let last = nth();
  if (plan.fallback.length && (!last || (plan.bound !== undefined && -last.r < plan.bound))) {
    // Below the bound: a second try, exact by construction (fts-plan.ts replan), else the OR.
    const next = last ? await replan(plan, -last.r, probe, options) : null;
    if (next?.matches.length === 2) await runRare(next.matches, next.kept);
    else if (next) await run(next.matches);
    last = nth();
    if (!next || !last || -last.r < next.bound) await run(plan.fallback);
  }
  return [...byId.values()];
}

/**
 * For a name lookup that no chunk defines (no recorded definition: step 1 found none), the
 * chunks with a line that declares the name (query.ts DECLARATION_LINE_SOURCE: modifiers or
 * comment markers, a declaration keyword — def, fn, func, function, class, struct, const, let,
 * … — then the name as a whole word in the exact case: `def make_files(`, not `def make_file(`,
 * `fn overflowing_rem_euclid` or Lua's `---@type LazyPlugin[]`).
 * The parse records no definition there: a function nested in another (Python's `files()`
 * defines `make_files`), functions written inside `macro_rules!` bodies (Rust's int_macros.rs),
 * an example in a doc. Read from the rows that hold the name as an FTS phrase (its tokens as
 * typed: no prefix, no stem), at most MAX_EXACT_SYMBOL_ROWS of them; a name the tree defines
 * needs none of this, so a lookup of one costs nothing more. For a qualified name (`Foo.bar`)
 * the last name.
 */
async function textDefinitions(db: Queryable, query: ProcessedQuery, where: string, params: SqlValue[], read: (ids: number[]) => Promise<StoredChunk[]>): Promise<number[]> {
  const name = lookedUpName(query);
  if (!name) return [];
  const id = where ? 'c.id' : 'chunks_fts.rowid';
  const from = where ? 'chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid' : 'chunks_fts';
  const rows = await db.all<{ id: number }>(
    `SELECT ${id} AS id FROM ${from} WHERE chunks_fts MATCH ?${where} LIMIT ?`,
    [`"${name}"`, ...params, MAX_EXACT_SYMBOL_ROWS],
  );
  if (!rows.length) return [];
  const end = '(?![\\p{L}\\p{N}_$])';
  const declares = new RegExp(`${DECLARATION_LINE_SOURCE}${escapeRegExp(name)}${end}|${ALIAS_LINE_SOURCE}${escapeRegExp(name)}${end}`, 'mu');
  return (await read(rows.map((r) => r.id))).filter((r) => declares.test(r.content)).map((r) => r.id);
}

/**
 * A code question whose best rows are nearly all tests, docs, data or vendored copies (a folder
 * of hundreds of three-line test inputs named for what they test, each holding the question's
 * words: aeson's `tests/JSONTestSuite/results/n_string_escape_x.tok` for "where are escape
 * sequences inside strings decoded"): the kind signal would rank code above them, but none is
 * a candidate. Then the best code rows are candidates too: when fewer than
 * CODE_CANDIDATES.minShare of the candidates read (`rows`, a full FTS pass) are code, a second
 * pass restricted to the stored kind `code` (text/file-kind.ts; migrations keep it current)
 * gives its best CODE_CANDIDATES.rows; their ids not yet candidates are returned, scored in `scores`.
 */
async function codeCandidates(db: Queryable, query: ProcessedQuery, where: string, params: SqlValue[], rows: readonly StoredChunk[], scores: Map<number, number>, timings?: Record<string, number>, cache?: KeywordCache): Promise<number[]> {
  let code = 0;
  for (const r of rows) if (fileKind(r.path, r.language) === 'code') code++;
  if (code >= rows.length * CODE_CANDIDATES.minShare) return [];
  return addCandidates(await plannedCandidates(db, query, `${where} AND c.kind = 'code'`, params, [], CODE_CANDIDATES.rows, timings, cache), CODE_CANDIDATES.rows, scores);
}

/** The ids of the best `n` of `rows` that are not candidates yet, scored into `scores` (a second FTS pass's rows). */
function addCandidates(rows: readonly FtsRow[], n: number, scores: Map<number, number>): number[] {
  const added: number[] = [];
  for (const row of topRows(rows, n)) {
    if (scores.has(row.id)) continue;
    scores.set(row.id, -row.r);
    added.push(row.id);
  }
  return added;
}

/**
 * A question whose candidate rows all come from a few files (two 130 KB copies of one spec file,
 * each with dozens of pieces holding the question's words: rxjs's ported `share.spec.ts` for
 * "tests for the share operator reset options"): the list can only show those files again and
 * again, however diversity weighs them, and the answer in another file is no candidate. Then
 * the best rows of the other files are candidates too: when the candidates read (`rows`, a full
 * FTS pass) come from fewer than FEW_FILES.files files, a pass without those files gives its best
 * FEW_FILES.rows (at most FEW_FILES.passes such passes, each without the files found so far);
 * the rows not yet candidates are returned, read by `readRows`, scored in `scores`. A question
 * whose candidates span more files (nearly all) costs nothing more.
 */
async function otherFileCandidates(db: Queryable, query: ProcessedQuery, where: string, params: SqlValue[], rows: readonly StoredChunk[], scores: Map<number, number>, readRows: (ids: number[]) => Promise<StoredChunk[]>, timings?: Record<string, number>, cache?: KeywordCache): Promise<StoredChunk[]> {
  const paths = new Set(rows.map((r) => r.path));
  const out: StoredChunk[] = [];
  // A pass may find only more of one file (the second copy): then one more without it too.
  for (let pass = 0; pass < FEW_FILES.passes && paths.size < FEW_FILES.files; pass++) {
    const without = `${where} AND c.path NOT IN (${[...paths].map(() => '?').join(', ')})`;
    const ids = addCandidates(await plannedCandidates(db, query, without, [...params, ...paths], [], FEW_FILES.rows, timings, cache), FEW_FILES.rows, scores);
    if (!ids.length) break;
    const got = await readRows(ids);
    for (const r of got) paths.add(r.path);
    out.push(...got);
  }
  return out;
}

/**
 * The best piece of each file the question names (named-files.ts filesNamedBy) that has no
 * candidate yet: of its first NAMED_FILE_PIECES pieces, the one that holds the most of the
 * question's words (none: not added). No FTS statement: a MATCH limited to the file's rows still
 * merges every prefix's doclists (medium's keyword p50 18 → 27 ms when tried). It is scored as the
 * weakest FTS candidate, and the rerank and file signals place it. Returned with their rows (read
 * with content by `readRows`), scored in `scores`.
 */
async function namedFileCandidates(db: Queryable, query: ProcessedQuery, where: string, params: SqlValue[], rows: readonly StoredChunk[], scores: Map<number, number>, readRows: (ids: number[]) => Promise<StoredChunk[]>, cache?: KeywordCache): Promise<StoredChunk[]> {
  const terms = signalTerms(query.terms);
  if (!terms.length || !scores.size) return [];
  const forms = termForms(fileNameTerms(query), query.acronyms);
  let fileNames = cache?.fileNames;
  if (!fileNames) {
    // The first questions read the files their words can name; later ones of the generation, all once.
    const all = cache !== undefined && ++cache.namedAsks > NAMED_FILES_READ_ALL_AFTER;
    fileNames = await readFileNames(db, all ? undefined : namedParts(forms));
    if (all && cache) cache.fileNames = fileNames;
  }
  const have = new Set(rows.map((r) => r.path));
  const named = filesNamedBy(fileNames, forms).filter((f) => !have.has(f.path));
  if (!named.length) return [];
  // Their first pieces that pass the search's filters (a language, a path glob, a chunk type).
  const ranges = named.map(() => 'c.id BETWEEN ? AND ?').join(' OR ');
  const ids = (await db.all<{ id: number }>(
    `SELECT c.id AS id FROM chunks c WHERE (${ranges})${where} ORDER BY c.id`,
    [...named.flatMap((f) => [f.lo, Math.min(f.hi, f.lo + NAMED_FILE_PIECES - 1)]), ...params],
  )).map((r) => r.id);
  if (!ids.length) return [];
  const stems = terms.map(lightStem);
  const best = new Map<string, { row: StoredChunk; n: number }>();
  for (const r of await readRows(ids)) {
    const n = maskCount(termMask(r, terms, stems));
    const b = best.get(r.path);
    if (n > 0 && (!b || n > b.n || (n === b.n && r.id < b.row.id))) best.set(r.path, { row: r, n });
  }
  const floor = Math.min(...scores.values());
  const added: StoredChunk[] = [];
  for (const { row } of best.values()) {
    if (scores.has(row.id)) continue;
    scores.set(row.id, floor);
    added.push(row);
  }
  return added;
}

/**
 * Does this codebase name code with every one of `words` (text/file-kind.ts codebaseTestWords): a
 * file or folder of code whose path holds the word or its singular / plural (`retrofit-mock/…`,
 * `community/specs.lua`; one FTS lookup in the path words per word, stopping at the first code
 * row), and for TEST_WORD and EXAMPLE_WORD a share of its code pieces (codeWordShare); SPEC_WORD
 * ("spec files") where the code is about tests or about specs (the share of pieces holding "test",
 * or "spec"), and "specs" by its path or that share of "spec".
 */
export async function codeNamedBy(db: Queryable, words: readonly string[], cache?: KeywordCache): Promise<boolean> {
  // A test runner's own words: a share of its code (once per generation when there is a cache).
  const share = async (w: ShareWord): Promise<number> => {
    const known = cache?.wordShares.get(w) ?? (await codeWordShare(db, w));
    cache?.wordShares.set(w, known);
    return known;
  };
  const about = async (w: typeof TEST_WORD | typeof SPEC_WORD) => (await share(w)) >= TEST_WORD_CODE_SHARE;
  for (const w of words) {
    if (w === TEST_WORD || w === EXAMPLE_WORD) {
      if ((await share(w)) < (w === TEST_WORD ? TEST_WORD_CODE_SHARE : EXAMPLE_WORD_NAME_SHARE)) return false;
      continue;
    }
    // "spec files": code about tests or about specs handles them.
    if (w === SPEC_WORD) {
      if (!(await about(TEST_WORD)) && !(await about(SPEC_WORD))) return false;
      continue;
    }
    const forms = pathWordForms(w).map((f) => `"${f.replace(/"/g, '')}"`);
    const rows = await db.all<{ id: number }>(
      `SELECT c.id AS id FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? AND c.kind = 'code' LIMIT 1`,
      [`path_words : (${forms.join(' OR ')})`],
    );
    // "specs" where the code is about specs, though no path says so (RSpec's `lib/rspec/core/`).
    if (!rows.length && !(pathWordForms(w).includes(SPEC_WORD) && (await about(SPEC_WORD)))) return false;
  }
  return words.length > 0;
}

/** The words codeWordShare counts. */
type ShareWord = typeof TEST_WORD | typeof EXAMPLE_WORD | typeof SPEC_WORD;

/**
 * The share of this codebase's code pieces that hold "test" or "tests" ("spec" or "specs"), or
 * whose names or path hold "example(s)" (a Rust inline test module's pieces are tests:
 * text/file-kind.ts pieceKind).
 * A test runner writes "test" in a third of its code (vitest 32%; mockito 18% in session 18, 10%
 * once its `src/testFixtures/` counted as tests in session 19); the 77 other codebases of the
 * repository eval and the session-18 fresh sets in at most 11% (okhttp, with its mock web server and
 * test support libraries), most under 5%. Counted once per index generation (KeywordCache).
 */
export async function codeWordShare(db: Queryable, word: ShareWord): Promise<number> {
  const code = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM chunks WHERE kind = 'code'`))?.n ?? 0;
  if (!code) return 0;
  // "test", "spec": anywhere in the piece; "example": in its names or path only (doc comments' "Examples" headings).
  const match = word === TEST_WORD ? 'test OR tests' : word === SPEC_WORD ? 'spec OR specs' : '{names path_words} : (example OR examples)';
  const rows = await db.all<{ language: string; parent: string | null }>(
    `SELECT c.language AS language, c.parent AS parent FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? AND c.kind = 'code'`,
    [match],
  );
  return rows.filter((r) => pieceKind('code', r.language, r.parent) === 'code').length / code;
}

/** The best n rows by (bm25, id): what `ORDER BY r, rowid LIMIT n` over all rows returns. */
function topRows(rows: readonly FtsRow[], n: number): FtsRow[] {
  return [...rows].sort((a, b) => a.r - b.r || a.id - b.id).slice(0, n);
}

/**
 * Rank chunks for `query` with FTS5 BM25. Returns at most `limit` hits; [] for an empty query.
 * `timings`, when given, gets each stage's milliseconds: `defs` (definition lookups), `plan`
 * (the planner's row counts), `fts` (the candidate statements), `rows` (candidate rows), `named` (files the question names: named-files.ts) and
 * `rank` (rerank, file signals, definitions). `cache`: what the Searcher keeps between queries
 * (KeywordCache, already checked against the database). `rowsOut`, when given, gets every
 * candidate's row (Store.getChunks with `{ content: false }`, content '' unless a signal read it)
 * by id: the hits' metadata, read once in the same transaction. `readRows`: how the `cover`
 * signal reads a few pieces with their content (ChunkReader.getChunks, whose file texts the
 * results' content read then finds kept); without it, readChunks on `db`.
 */
export async function searchBm25(db: Queryable, query: ProcessedQuery, filters: SearchFilters, limit: number, intent: SearchIntent = 'code', timings?: Record<string, number>, cache?: KeywordCache, rowsOut?: Map<number, StoredChunk>, readRows?: (ids: number[]) => Promise<StoredChunk[]>): Promise<Hit[]> {
  if (!query.ftsQuery || !(limit > 0)) return [];
  const { where, params } = filterSql(filters);
  const scores = new Map<number, number>();
  /** Per-candidate rerank signals (rerank.ts), surfaced in explain. */
  const signals = new Map<number, Record<string, number>>();
  /** Each candidate's file (capPerFile). */
  const pathOf = new Map<number, string>();
  // A question that reads as a function's doc comment ("Hijack implements the Hijacker.Hijack
  // method.", and every describesFunction question) names the type a member belongs to for
  // context; its answer is the function, so its leg keeps every piece of a file (LEG_FILE_PIECES).
  const docComment = query.docComment;

  let mark = performance.now();
  const stage = (name: string) => {
    const now = performance.now();
    if (timings) timings[name] = (timings[name] ?? 0) + now - mark;
    mark = now;
  };
  try {
    // 1. Definitions of the query's identifiers: always candidates (ranked first for
    //    identifier queries). By symbol (indexed), and by chunk_names: the names of merged
    //    siblings and the constants a chunk defines.
    /** A name lookup (symbols.ts wantsDefinitions): its answer is a definition. */
    const lookup = wantsDefinitions(query);
    const targets = docComment ? query.targets.filter((t) => !t.owner) : query.targets;
    const exact = new Set<number>();
    // A pack over HTTP: the doclists' pages and the index leaves of the lookups below, in one round.
    await db.prefetchTerms?.(query.ftsGroups.flat().flatMap((p) => [p.phrase, p.word]), targets.flatMap((t) => [{ index: 'chunks_symbol', key: [t.symbol], nocase: true }, { index: 'chunk_names', key: [nameKey(t.symbol)], table: 'chunks' }]));
    for (const t of targets) {
      // A qualified target (`crate::parser::Parser`) also takes definitions under another
      // parent, ranked by how their place fits (symbols.ts qualifiedScope): fetched by name.
      const needParent = t.parent && !t.qualifiers ? t.parent : null;
      const parent = needParent ? ' AND c.parent = ? COLLATE NOCASE' : '';
      const rows = await db.all<{ id: number }>(
        `SELECT c.id AS id FROM chunks c
          WHERE c.symbol = ? COLLATE NOCASE${parent}${where}
          ORDER BY c.id LIMIT ?`,
        [t.symbol, ...(needParent ? [needParent] : []), ...params, MAX_EXACT_SYMBOL_ROWS],
      );
      for (const row of rows) exact.add(row.id);
      // Merged siblings' names and defined constants: one seek in chunk_names (schema 7).
      const named = await db.all<{ id: number }>(
        `SELECT c.id AS id FROM chunk_names n JOIN chunks c ON c.id = n.chunk_id
          WHERE n.key = ?${parent}${where}
          ORDER BY c.id LIMIT ?`,
        [nameKey(t.symbol), ...(needParent ? [needParent] : []), ...params, MAX_EXACT_SYMBOL_ROWS],
      );
      for (const row of named) exact.add(row.id);
    }
    // A name lookup that no chunk defines: chunks whose text declares it (a nested function, …).
    const textDefs = lookup && exact.size === 0 ? await textDefinitions(db, query, where, params, readRows ?? ((ids) => readChunks(db, ids))) : [];
    for (const id of textDefs) exact.add(id);
    // A query that names a file (`sizes.test.ts`, `middlewares/proxy`): the first piece of each
    // file so named, listed like the definitions (filesNamed).
    const fileHeads = query.pathQuery ? await filesNamed(db, query.pathQuery, where, params) : [];
    for (const id of fileHeads) exact.add(id);

    // 2. FTS candidates: the best n rows, filters applied in SQL, plus the definitions, whose
    //    bm25 comes from the same pass: a `rowid IN (…)` constraint would be handed to FTS5,
    //    which re-runs the whole MATCH once per listed rowid (parse_options on the kernel: 347
    //    ms for 3 definitions outside the best 100).
    const n = Math.max(limit, RERANK_CANDIDATES);
    // Pieces that hold the query verbatim (an error message pasted, a line of a comment): listed
    // like the definitions, whatever their bm25 (query.ts phraseOf). Not when the search asks for
    // a kind (tests, docs, examples…): a comment of an example repeating the question is not that.
    const phrased = query.phrase && !lookup && (intent === 'code' || intent === 'any') ? await phraseRows(db, query.phrase, where, params) : [];
    // A lookup of a name of several parts that nothing defines or declares: where it is written.
    const written = lookup && exact.size === 0 ? await writtenName(db, query, where, params, readRows ?? ((ids) => readChunks(db, ids))) : [];
    for (const id of written) exact.add(id);
    stage('defs');
    const listed = [...new Set([...exact, ...phrased])];
    const rows = await plannedCandidates(db, query, where, params, listed, n, timings, cache);
    stage('fts');
    for (const row of topRows(rows, n)) scores.set(row.id, -row.r);
    for (const row of rows) if (row.x) scores.set(row.id, -row.r);
    for (const id of listed) if (!scores.has(id)) scores.set(id, 0);
    // 3. Second stage: re-score every candidate (rerank.ts), then put exact symbol matches
    //    of an identifier query on top. Content is read only when a signal needs it.
    const ids = [...scores.keys()];
    const cands: Array<RerankCandidate & { language: string }> = [];
    const tiers = new Map<number, DefinitionMatch>();
    // The candidates' rows, as Store.getChunks gives them (content lives in file_text since
    // schema 5 and is read only when a signal needs it); the caller's metadata for these ids.
    const needContent = RERANK_WEIGHTS.coverage > 0;
    // A question that reads as a doc comment: `exact` only for the name it opens with, not for a
    // type it names later (symbols.ts docCommentTargets).
    const docTargets = docComment ? docCommentTargets({ original: query.original, targets }) : null;
    const chunkTypeOf = new Map<number, string>();
    let read = await readChunks(db, ids, { content: needContent });
    if (intent === 'code' && !filters.kinds?.length && ids.length >= n) {
      const more = await codeCandidates(db, query, where, params, read, scores, timings, cache);
      if (more.length) read = read.concat(await readChunks(db, more, { content: needContent }));
    }
    if (!lookup && ids.length >= n) {
      const more = await otherFileCandidates(db, query, where, params, read, scores, (more) => readChunks(db, more, { content: needContent }), timings, cache);
      if (more.length) read = read.concat(more);
    }
    // 2b. A question in words that names a file (named-files.ts): that file's best piece too.
    stage('rows');
    if (!lookup && !docComment && (intent === 'code' || intent === 'any') && !filters.kinds?.length && query.terms.length >= 2) {
      const more = await namedFileCandidates(db, query, where, params, read, scores, readRows ?? ((ids) => readChunks(db, ids)), cache);
      if (more.length) read = read.concat(more);
      stage('named');
    }
    for (const r of read) {
      pathOf.set(r.id, r.path);
      chunkTypeOf.set(r.id, r.chunkType);
      const m = matchDefinition(targets, r);
      if (m) tiers.set(r.id, m);
      // In prose, a member's name under an unrelated parent (`Error` of `TraceLevel` for
      // `MissingMemberHandling.Error`) is another thing of the same name: no `exact`.
      const em = docTargets ? matchDefinition(docTargets, r) : m;
      // A doc comment's first word is its function's own name, wherever it lives (Go's
      // "Listen creates a TLS listener … using net.Listen.": tls.Listen).
      const exact = em !== null && (lookup || docTargets !== null || em.scope > QUALIFIED_TIERS.elsewhere);
      cands.push({ id: r.id, symbol: r.symbol, parent: r.parent, path: r.path, language: r.language, content: r.content, score: scores.get(r.id) ?? 0, exact });
      rowsOut?.set(r.id, r);
    }
    stage('rows');
    cands.sort((a, b) => b.score - a.score || a.id - b.id);
    scores.clear();
    // 4. File-level signals (signals.ts): the query's words in the path, other matching pieces
    //    of the file, and the file's kind for the query's intent.
    const candOf = new Map(cands.map((c) => [c.id, c]));
    const scored: FileCandidate[] = rerank(cands, query.terms, RERANK_WEIGHTS, query.words).map((r) => {
      const c = candOf.get(r.id)!;
      return { id: r.id, score: r.score, signals: { ...r.signals }, path: c.path, language: c.language, parent: c.parent };
    });
    // 3b. `phrase`: the piece holds the query's words in order, as one line of its text would.
    if (phrased.length) {
      const holds = new Set(phrased);
      for (const r of scored) if (holds.has(r.id)) addScore(r, 'phrase', PHRASE_WEIGHT);
    }
    applyFileSignals(scored, query.terms, intent, docComment, asksForDeclarations(query.original), fileNameTerms(query), query.acronyms);
    // 4b. An enum or exception type the question names is something the change throws or
    //     reads, not where it happens (signals.ts applyNamedLeaf).
    if (!lookup && !docComment && query.terms.length >= NAMED_LEAF_MIN_TERMS) {
      applyNamedLeaf(scored, namedLeafFiles(cands, tiers, chunkTypeOf));
    }
    // 5. `cover`: the words the leading files' best pieces hold together (signals.ts coverFiles).
    //    Not for a name lookup: its answer is a definition, not a file that holds the words.
    const coverTerms = FILE_SIGNALS.fileCoverWeight > 0 && !lookup ? signalTerms(query.terms) : [];
    if (coverTerms.length > 1) {
      stage('rank');
      const coverStems = coverTerms.map(lightStem);
      const files = coverFiles(scored);
      const read = await (readRows ?? ((ids: number[]) => readChunks(db, ids)))([...files.values()].flat());
      const fileTerms = new Map<string, number>();
      for (const r of read) fileTerms.set(r.path, (fileTerms.get(r.path) ?? 0) | termMask(r, coverTerms, coverStems));
      applyCover(scored, fileTerms, coverTerms.length);
      // 5a. For a question that asks how or where something happens (signals.ts
      //     asksHowOrWhere): how many of each file's definitions name the question's words
      //     (`spread`: an orchestrating file).
      if (asksHowOrWhere(query.original, query.identifiers)) applySpread(scored, new Map(cands.map((c) => [c.id, c.symbol])), files, coverTerms, coverStems);
      // 5b. A file whose best pieces are only comments is prose (signals.ts applyProse).
      applyProse(scored, read, intent);
      stage('cover');
    }
    // 6. A question that describes one function asks for a function's piece (signals.ts applyPieceKind).
    if (describesFunction(query.original)) applyPieceKind(scored, chunkTypeOf);
    for (const r of scored) {
      scores.set(r.id, r.score);
      signals.set(r.id, r.signals);
    }
    if (lookup) {
      // A chunk whose text declares a name no chunk defines (a nested function, an example in a
      // doc): a definition of the lowest tier (textDefinitions).
      for (const id of textDefs) {
        if (tiers.has(id)) continue;
        scores.set(id, (scores.get(id) ?? 0) + KEYWORD_DEFINITION_BOOST * TEXT_DEFINITION_TIER);
        const s = signals.get(id);
        if (s) s.text_definition = 1;
      }
      // Where a name nothing defines is written: above every piece that holds a part of it.
      for (const id of written) {
        scores.set(id, (scores.get(id) ?? 0) + KEYWORD_DEFINITION_BOOST * WRITTEN_NAME_TIER);
        const s = signals.get(id);
        if (s) s.name_written = 1;
      }
      for (const [id, m] of tiers) {
        scores.set(id, (scores.get(id) ?? 0) + KEYWORD_DEFINITION_BOOST * definitionRank(m));
        const s = signals.get(id);
        if (s) {
          s.definition_tier = m.tier;
          s.definition_size = m.size;
          if (m.implementation) s.definition_kind = 1;
        }
      }
    }
    // The files the query names, by name: above every definition (FILE_NAME_TIER).
    for (const id of fileHeads) {
      scores.set(id, (scores.get(id) ?? 0) + KEYWORD_DEFINITION_BOOST * FILE_NAME_TIER);
      const s = signals.get(id);
      if (s) s.file_named = 1;
    }
    stage('rank');
  } catch (e) {
    if (isFtsSyntaxError(e)) return []; // processQuery guards against this; never surface it
    throw e;
  }

  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const best = ranked.slice(0, limit);
  // At most LEG_FILE_PIECES pieces of one file while other files' pieces are left.
  const leg = docComment ? best : capPerFile(ranked, pathOf, limit, LEG_FILE_PIECES);
  const hits: Hit[] = leg.map(([id, score], i) => {
    const s = signals.get(id);
    return s ? { id, score, rank: i + 1, signals: s } : { id, score, rank: i + 1 };
  });
  if (leg !== best) {
    // What the cap left out of the best `limit`, per file, on the file's best piece: still its
    // file's matches (the result's `fileMore`), in no slot.
    const kept = new Set(leg.map((e) => e[0]));
    const held = new Map<string | undefined, number[]>();
    for (const [id] of best) if (!kept.has(id)) held.set(pathOf.get(id), [...held.get(pathOf.get(id)) ?? [], id]);
    for (const h of hits) {
      const ids = held.get(pathOf.get(h.id));
      if (ids) { h.held = ids; held.delete(pathOf.get(h.id)); }
    }
  }
  return hits;
}

/**
 * The first `limit` of `ranked` (id, score; best first) with at most `cap` pieces of one file
 * (`pathOf`; an id without a path is a file of its own) while other files' pieces are left, then
 * the pieces held back, best first, while room is left. In `ranked`'s order.
 */
export function capPerFile<T extends readonly [number, number]>(ranked: readonly T[], pathOf: ReadonlyMap<number, string>, limit: number, cap: number): T[] {
  const per = new Map<string, number>();
  const keep = new Set<number>();
  for (const e of ranked) {
    if (keep.size >= limit) break;
    const p = pathOf.get(e[0]) ?? `#${e[0]}`;
    const k = per.get(p) ?? 0;
    if (k >= cap) continue;
    per.set(p, k + 1);
    keep.add(e[0]);
  }
  for (const e of ranked) {
    if (keep.size >= limit) break;
    keep.add(e[0]);
  }
  return ranked.filter((e) => keep.has(e[0]));
}

const WORD_RE = /[\p{L}\p{N}\p{M}_$]+/gu;
const SEGMENT_RE = /[\p{L}\p{N}\p{M}]+/gu;
/** A character outside ASCII (lower-casing it may change the length). */
const NON_ASCII_RE = /[\u0080-\uffff]/;
/** What joins the names of a qualified identifier (`Foo::bar`, `a.b`, `a->b`, `Class#method`). */
const IDENTIFIER_QUALIFIER_RE = /::|->|[.#/]/;
/** ASCII characters WORD_RE matches: letters, digits, `_`, `$`. */
const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_WORD[c] = /[A-Za-z0-9_$]/.test(String.fromCharCode(c)) ? 1 : 0;
/** A string WORD_RE would match whole in ASCII text (anything else is never inside an ASCII word). */
const ASCII_WORD_RE = /^[a-z0-9_$]+$/;

/** What highlightRanges needs from a query, worked out once per ProcessedQuery. */
interface HighlightTerms {
  terms: string[];
  /** An identifier query's names (lower-case), else null. */
  names: Set<string> | null;
  /** The terms and names that can be inside a word of ASCII text: a word with none of them in it marks nothing. */
  termNeedles: string[];
  nameNeedles: string[];
}

const highlightTermsOf = new WeakMap<ProcessedQuery, HighlightTerms>();

function highlightTerms(q: ProcessedQuery): HighlightTerms {
  let h = highlightTermsOf.get(q);
  if (!h) {
    const terms = q.expandedTerms.filter((t) => !t.includes(' '));
    const names = q.isIdentifierLike ? new Set(q.identifiers.flatMap((id) => id.split(IDENTIFIER_QUALIFIER_RE)).filter(Boolean).map((n) => n.toLowerCase())) : null;
    const needles = (xs: Iterable<string>) => [...new Set([...xs].filter((x) => ASCII_WORD_RE.test(x)))];
    h = { terms, names, termNeedles: needles(terms), nameNeedles: needles(names ?? []) };
    highlightTermsOf.set(q, h);
  }
  return h;
}

/**
 * The words of ASCII `content` (WORD_RE's matches) that hold one of `needles`, in order, as
 * [start, end): each needle found in the lower-cased text (`lowered`), widened to its word.
 */
function asciiWordsHolding(content: string, lowered: string, needles: readonly string[]): Array<[number, number]> {
  const ends = new Map<number, number>();
  for (const n of needles) {
    for (let at = lowered.indexOf(n); at >= 0; at = lowered.indexOf(n, at + 1)) {
      let start = at;
      while (start > 0 && ASCII_WORD[content.charCodeAt(start - 1)]) start--;
      if (ends.has(start)) continue;
      let end = at + n.length;
      while (end < content.length && ASCII_WORD[content.charCodeAt(end)]) end++;
      ends.set(start, end);
    }
  }
  return [...ends].sort((a, b) => a[0] - b[0]);
}

/**
 * Character ranges [start, end) in `content` that match the query's terms, mirroring what
 * FTS5 matched: a whole word equal to a term (`get_user_name`), else an FTS token (`user` in
 * user_id) equal to or, for terms of PREFIX_MIN_CHARS+, starting with a term, else identifier
 * parts (`User` in getUserName). Case-insensitive; sorted, overlaps merged, capped at `max`.
 *
 * A query that is one identifier (`send_response`, `Plug.Conn.send_resp`) marks only the words
 * that are that identifier (or one of its qualifiers) where the content has one: its parts and
 * their stems ("Sends", "response" in the doc comment) matched too, but are not what was asked.
 *
 * In ASCII content only the words that hold a term (or a name) are looked at: a word marks
 * something only if one is in it, so the ranges are those of a scan of every word.
 */
export function highlightRanges(content: string, query: ProcessedQuery | string, max = MAX_HIGHLIGHTS): Array<[number, number]> {
  const q = typeof query === 'string' ? processQuery(query) : query;
  if (q.literal) {
    // An operator (literal.ts): each place it is written, as typed.
    const ranges: Array<[number, number]> = [];
    for (let i = content.indexOf(q.literal); i >= 0 && ranges.length < max; i = content.indexOf(q.literal, i + q.literal.length)) ranges.push([i, i + q.literal.length]);
    return ranges;
  }
  const { terms, names, termNeedles, nameNeedles } = highlightTerms(q);
  if (!terms.length || !content) return [];
  const ascii = !NON_ASCII_RE.test(content);
  const lowered = ascii ? content.toLowerCase() : '';
  /** [start, end) of the words to look at, in order: every word, or in ASCII text those holding a needle. */
  const wordsWith = (needles: readonly string[]): Iterable<[number, number]> => (ascii
    ? asciiWordsHolding(content, lowered, needles)
    : [...content.matchAll(WORD_RE)].map((m): [number, number] => [m.index, m.index + m[0].length]));
  if (names) {
    const whole: Array<[number, number]> = [];
    for (const [start, end] of wordsWith(nameNeedles)) {
      if (whole.length >= max) break;
      if (names.has(ascii ? lowered.slice(start, end) : content.slice(start, end).toLowerCase())) whole.push([start, end]);
    }
    if (whole.length) return whole;
  }
  const hits = (word: string) => terms.some((t) => word === t || (t.length >= PREFIX_MIN_CHARS && word.startsWith(t)));
  const ranges: Array<[number, number]> = [];
  for (const [wordStart, wordEnd] of wordsWith(termNeedles)) {
    if (ranges.length >= max) break;
    const word = content.slice(wordStart, wordEnd);
    const lower = ascii ? lowered.slice(wordStart, wordEnd) : word.toLowerCase();
    if (terms.includes(lower)) {
      ranges.push([wordStart, wordEnd]);
      continue;
    }
    // Every token and part below is a piece of the word, lower-cased: in an ASCII word (where
    // lower-casing keeps each character in its place) one can hit only if a term is in it.
    if (!NON_ASCII_RE.test(word) && !terms.some((t) => lower.includes(t))) continue;
    // FTS5 tokens of the word (unicode61 splits on `_`/`$`), then their identifier parts.
    for (const seg of word.matchAll(SEGMENT_RE)) {
      const start = wordStart + seg.index;
      if (hits(seg[0].toLowerCase())) {
        ranges.push([start, start + seg[0].length]);
        continue;
      }
      for (const part of identifierParts(seg[0])) {
        if (hits(part.text)) ranges.push([start + part.start, start + part.end]);
      }
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] < last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged.slice(0, max);
}
