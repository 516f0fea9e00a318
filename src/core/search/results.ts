/**
 * The one place that turns legs' hits into results: fuse (fuse.ts), merge the pieces of one
 * definition, cut to the limit, attach rows — for the Searcher, for the page's re-fuse with
 * new weights, and for the merge across codebases (store worker and page).
 *
 * Invariants:
 * - One result per definition: pieces of one definition (same path and def_line; chunks
 *   without a definition are their own group) become one result BEFORE the limit is applied.
 *   The result is the group's best-ranked piece; the others follow it as `more`, best first.
 * - A listed file's other definitions that diversity holds back, or that fall below the limit,
 *   fold into the file's first result: after its own pieces in `more` (`sameDefinition` false),
 *   at most MAX_FILE_PIECES of them while the result's lines stay within MAX_FOLDED_LINES, best
 *   first; the rest are counted in `fileMore`. A piece is
 *   in the list once: as a result or as a `more` piece.
 * - A result's `content` is the stored chunk content, i.e. exactly the file's lines
 *   start..end; carried context travels in `context`/`contextLine`, never in content.
 * - Pure: no store access; the same legs and weights give the same results everywhere.
 */
import type { Hit, ResultFragment, SearchResult, StoredChunk } from '../types.ts';
import { DIVERSITY, MAX_FILE_PIECES, MAX_FOLDED_LINES, MAX_MORE_FRAGMENTS, RRF_K } from '../config.ts';
import { fuseRrf, type FusedItem } from './fuse.ts';
import { highlightRanges } from './bm25.ts';
import { isFunctionKind, type ProcessedQuery } from './query.ts';
import { matchDefinition } from './symbols.ts';
import { fileKind } from '../text/file-kind.ts';
import { learnedOrder, ordersList } from './order.ts';
import type { FileSize } from '../store/store.ts';

/** What fusion and grouping need from one codebase's search, besides the rows. */
export interface LegHits {
  bm25: Hit[];
  vector: Hit[];
  /** Definition tier (symbols.ts) per candidate id that defines an identifier of the query. */
  definitionTiers: Record<number, number>;
  /** Its order steps within the tier (symbols.ts definitionSteps: file kind, then size); none: 0. */
  definitionSizes?: Record<number, number>;
  /** Definition key per candidate id (definitionKey): pieces of one definition share it. */
  groupKeys: Record<number, string>;
  /** File path per candidate id, for diversity (rankGroups); absent: no diversity. */
  fileOf?: Record<number, string>;
  /** Lines per candidate id, for the folded result's size (MAX_FOLDED_LINES); absent: not limited by lines. */
  linesOf?: Record<number, number>;
  /** The vector leg's relevance floor (cosine) for this query, null when the leg did not run. */
  vectorFloor: number | null;
  /** Vector hits dropped below the floor. */
  vectorDropped: number;
  /** A name lookup: the keyword leg's first result stays first, the rest fuse by the weights (fuse.ts keywordFirst). */
  keywordFirst?: boolean;
  /**
   * The question describes one function (query.ts describesFunction: "Returns the number of…"):
   * its answer is a piece, not a file, so no piece yields its place to another file (diversity
   * moves nothing; `fileMore` is still counted).
   */
  functionLevel?: boolean;
  /** Chunk type per candidate id, for the learned order (order.ts); absent: types unknown to it. */
  typeOf?: Record<number, string>;
  /** Size of the files of the groups the learned order reads (order.ts headPaths), by path; absent: unknown to it. */
  fileSizeOf?: Record<string, FileSize>;
  /** Text of those files, by path (order.ts nearPairs); absent: unknown to it. */
  fileTextOf?: ReadonlyMap<string, string>;
  /** The question's neighbouring content words, for the learned order (order.ts questionPairs). */
  questionPairs?: ReadonlyArray<readonly [string, string]>;
  /**
   * The search asks for the learned order (order.ts): keyword mode, code intent, not a question
   * read as one function's doc comment; order.ts ordersList also leaves out `keywordFirst`,
   * `functionLevel` and any list with vector hits. Absent or false: the pipeline's order.
   */
  learnedOrder?: boolean;
}

/** A fused item that stands for its definition; `more` are the other pieces' items, best first. */
export interface GroupedItem extends FusedItem {
  more: FusedItem[];
  /** Other definitions of the same file folded into this result (its file's first), best first. */
  filePieces: GroupedItem[];
  /** Other matching definitions or pieces of the same file that are neither listed nor folded. */
  fileMore: number;
}

/** Pieces of one definition share this key: path + the definition's line; anything else is its own group. */
export function definitionKey(c: { id: number; path: string; defLine?: number | null }): string {
  return c.defLine != null ? `${c.path}\n${c.defLine}` : `#${c.id}`;
}

/**
 * Definition keys for candidate rows. A definition nested in a function's body (a local
 * `def`, Go's `type span struct` inside FieldsFunc) is part of that function: when the
 * enclosing function is among the candidates too, the nested one takes its key, so the two
 * never fill two slots. Members of a class keep their own keys.
 */
export function definitionKeys(rows: readonly StoredChunk[]): Record<number, string> {
  const keys: Record<number, string> = {};
  const functions = new Map<string, StoredChunk[]>();
  for (const r of rows) {
    keys[r.id] = definitionKey(r);
    if (r.symbol && r.defLine != null && isFunctionKind(r.chunkType)) {
      const k = `${r.path}\n${r.symbol}`;
      functions.set(k, [...(functions.get(k) ?? []), r]);
    }
  }
  // The nearest enclosing function of that name that starts before this definition.
  const outerOf = (r: StoredChunk): StoredChunk | null => {
    if (!r.parent || r.defLine == null) return null;
    let outer: StoredChunk | null = null;
    for (const o of functions.get(`${r.path}\n${r.parent}`) ?? []) {
      if (o.defLine! < r.defLine && (!outer || o.defLine! > outer.defLine!)) outer = o;
    }
    return outer;
  };
  for (const r of rows) {
    // Follow the chain outwards (a def in a def in a def); defLine strictly decreases, so it ends.
    let top: StoredChunk | null = null;
    for (let o = outerOf(r); o; o = outerOf(o)) top = o;
    if (top) keys[r.id] = definitionKey(top);
  }
  return keys;
}

/**
 * Fuses the legs, merges the pieces of each definition, and picks the best `limit` groups with
 * diversity (diversify): another piece of a file already listed must beat the alternatives by
 * a margin. Definitions of a named identifier keep their place (their tier decides). Groups of
 * a listed file that do not make the list are counted in its first group's `fileMore`.
 */
export function rankGroups(legs: LegHits, weights: { bm25Weight: number; vectorWeight: number }, limit: number): GroupedItem[] {
  return orderGroups(pickGroups(legs, weights, limit), legs);
}

/**
 * rankGroups' last step: the learned order of the first groups where the list gets it (order.ts
 * ordersList), then the ranks. Apart so a caller can read what the order needs of the picked
 * groups (their files' sizes, order.ts headPaths) in between.
 */
export function orderGroups(picked: GroupedItem[], legs: LegHits): GroupedItem[] {
  const out = ordersList(legs) ? learnedOrder(picked, legs) : picked;
  out.forEach((g, i) => { g.rank = i + 1; });
  return out;
}

/** rankGroups before the learned order: fused, grouped, the best `limit` picked with diversity. */
export function pickGroups(legs: LegHits, weights: { bm25Weight: number; vectorWeight: number }, limit: number): GroupedItem[] {
  const tiers = new Map<number, number>(Object.entries(legs.definitionTiers).map(([id, t]) => [Number(id), t]));
  const sizes = new Map<number, number>(Object.entries(legs.definitionSizes ?? {}).map(([id, s]) => [Number(id), s]));
  const fused = fuseRrf(legs.bm25, legs.vector, { k: RRF_K, ...weights, definitionTiers: tiers, definitionSizes: sizes, keywordFirst: legs.keywordFirst === true });
  const groups = new Map<string, GroupedItem>();
  const all: GroupedItem[] = [];
  for (const f of fused) {
    const key = legs.groupKeys[f.id] ?? `#${f.id}`;
    const g = groups.get(key);
    if (g) {
      if (g.more.length < MAX_MORE_FRAGMENTS) g.more.push(f);
      continue;
    }
    const item: GroupedItem = { ...f, more: [], filePieces: [], fileMore: 0 };
    groups.set(key, item);
    all.push(item);
  }
  // A file's pieces the keyword leg left out for other files (Hit.held) that no leg brought in.
  const fusedIds = new Set(fused.map((f) => f.id));
  const held = new Map<string, number>();
  for (const h of legs.bm25) {
    const file = legs.fileOf?.[h.id];
    const n = h.held?.filter((id) => !fusedIds.has(id)).length;
    if (file && n) held.set(file, (held.get(file) ?? 0) + n);
  }
  return legs.fileOf ? diversify(all, legs.fileOf, legs.linesOf, limit, legs.functionLevel ? 0 : DIVERSITY.maxPass, held) : all.slice(0, Math.max(0, limit));
}

/**
 * Greedy pick of `limit` groups in fused order with diversity. The next group in fused order is
 * taken unless it is another piece of a file already listed n times (and no definition of the
 * name asked for): then the best group of a file not yet listed goes first when the piece's
 * relevance × DIVERSITY.factor^n is below that group's. The piece held back folds into its
 * file's first result (filePieces: found at its file's rank, its slot to another file); when
 * that result holds MAX_FILE_PIECES already, or the piece would take it past MAX_FOLDED_LINES
 * lines, it waits, and at most `maxPass` groups go before
 * it that way (so it moves down a few places, never out of sight). Groups of listed files left
 * below the limit fold the same way, the rest are counted in `fileMore`. Relevance is a group's score in its legs
 * relative to the best (keyword score ÷ the best non-definition keyword score, cosine ÷ the best
 * cosine; the larger), so a strong second piece keeps its slot over weak alternatives (a small
 * codebase), while comparable alternatives take the slots (a big one). A group moved down gets
 * a `diversity` explain entry and the score of the group before it, so scores never rise.
 */
function diversify(all: readonly GroupedItem[], fileOf: Record<number, string>, linesOf: Record<number, number> | undefined, limit: number, maxPass: number, held: ReadonlyMap<string, number> = new Map()): GroupedItem[] {
  const isDefinition = (g: GroupedItem) => g.explain.some((e) => e.signal === 'definition');
  const maxB = Math.max(0, ...all.filter((g) => g.bm25Rank !== null && !isDefinition(g)).map((g) => g.bm25Score));
  const maxV = Math.max(0, ...all.filter((g) => g.vectorRank !== null).map((g) => g.vectorScore));
  const relevance = (g: GroupedItem) => Math.max(
    g.bm25Rank !== null && maxB > 0 ? g.bm25Score / maxB : 0,
    g.vectorRank !== null && maxV > 0 ? g.vectorScore / maxV : 0,
  );
  const fileKey = (g: GroupedItem) => fileOf[g.id] ?? `#${g.id}`;
  const shown = new Map<string, GroupedItem[]>();
  const left = [...all];
  const out: GroupedItem[] = [];
  /** How many groups have gone before the current head because of diversity. */
  let passed = 0;
  /** A group's lines: its pieces' (0 without linesOf). */
  const linesIn = (g: GroupedItem) => linesOf ? [g, ...g.more].reduce((n, p) => n + (linesOf[p.id] ?? 0), 0) : 0;
  /** Lines of each listed file's first result with what is folded into it. */
  const foldedLines = new Map<GroupedItem, number>();
  /** Folds a group into its file's first result when it has room (true), else leaves it. */
  const fold = (g: GroupedItem): boolean => {
    const first = shown.get(fileKey(g))?.[0];
    if (!first || first.filePieces.length >= MAX_FILE_PIECES) return false;
    const lines = (foldedLines.get(first) ?? linesIn(first)) + linesIn(g);
    if (lines > MAX_FOLDED_LINES) return false;
    foldedLines.set(first, lines);
    first.filePieces.push(g);
    return true;
  };
  while (out.length < limit && left.length) {
    let pick = 0;
    const head = left[0];
    const n = shown.get(fileKey(head))?.length ?? 0;
    if (n > 0 && !isDefinition(head) && maxPass > 0) {
      const alt = left.findIndex((a) => isDefinition(a) || !shown.has(fileKey(a)));
      if (alt > 0 && relevance(head) * DIVERSITY.factor ** n < relevance(left[alt])) {
        if (fold(head)) {
          left.shift();
          passed = 0;
          continue;
        }
        if (passed < maxPass) pick = alt;
      }
    }
    passed = pick > 0 ? passed + 1 : 0;
    const [g] = left.splice(pick, 1);
    const prev = out[out.length - 1];
    if (prev && g.combinedScore > prev.combinedScore) {
      g.explain.push({ signal: 'diversity', value: shown.get(fileKey(g))?.length ?? 0, contribution: prev.combinedScore - g.combinedScore });
      g.combinedScore = prev.combinedScore;
    }
    const list = shown.get(fileKey(g));
    if (list) list.push(g);
    else shown.set(fileKey(g), [g]);
    out.push(g);
  }
  for (const g of left) {
    const first = shown.get(fileKey(g))?.[0];
    if (first && !fold(g)) first.fileMore++;
  }
  // A listed file's pieces the keyword leg left out (rankGroups: Hit.held).
  for (const [file, n] of held) {
    const first = shown.get(file)?.[0];
    if (first) first.fileMore += n;
  }
  return out;
}

/** Every id a grouped list needs rows for (results, their more-pieces and their file's folded pieces). */
export function idsOf(groups: readonly GroupedItem[]): number[] {
  return groups.flatMap((g) => [g.id, ...g.more.map((m) => m.id), ...g.filePieces.flatMap((p) => [p.id, ...p.more.map((m) => m.id)])]);
}

/**
 * How a result's other matches count where it is shown: `definition`, its `more` pieces of its
 * own definition; `folded`, those of other definitions of its file (diversify); `inFile`, the
 * file's matches beyond its own definition: the folded ones and `fileMore`.
 */
export function moreCounts(r: Pick<SearchResult, 'more' | 'fileMore'>): { definition: number; folded: number; inFile: number } {
  const folded = foldedDefinitions(r).length;
  return { definition: r.more.length - folded, folded, inFile: folded + (r.fileMore ?? 0) };
}

/** A result's `more` pieces of other definitions of its file (diversify folded them into it): where they are shown and listed. */
export function foldedDefinitions<M extends { sameDefinition: boolean }>(r: { more: readonly M[] }): M[] {
  return r.more.filter((m) => !m.sameDefinition);
}

/**
 * Whether the name a result shows is a constant defined on its lines (`defines`) rather than
 * its own or a merged sibling's name: shown without the parent, labelled as a constant.
 */
export function showsConstant(r: Pick<SearchResult, 'matchedName' | 'names' | 'defines'>): boolean {
  return !!r.matchedName && !r.names?.includes(r.matchedName) && !!r.defines?.includes(r.matchedName);
}

/** The name a result shows: the one of a merged chunk's names or of its constants that the query asked for. */
function matchedName(c: StoredChunk, pq: ProcessedQuery): string | null {
  if (!c.names?.length && !c.defines?.length) return null;
  return matchDefinition(pq.targets, c)?.name ?? null;
}

/**
 * The lines of `start..end` not yet shown, as one range: a piece that overlaps lines an earlier
 * piece of the file in the list showed (text files are cut into overlapping windows) keeps only
 * the rest; null when every line was shown. `shown`: the file's ranges so far (this piece's is
 * added). A shown range strictly inside the piece leaves it whole.
 */
export function unshownLines(shown: Array<[number, number]>, start: number, end: number): [number, number] | null {
  let s = start;
  let e = end;
  for (const [a, b] of shown) {
    if (a <= s && b >= e) return null;
    if (a <= s && b >= s) s = b + 1;
    else if (a <= e && b >= e) e = a - 1;
  }
  if (s > e) return null;
  shown.push([s, e]);
  return [s, e];
}

/**
 * `row` cut to lines s..e of its own (its content is exactly its lines: the same lines of it),
 * each line without a CRLF file's `\r` — as grep's lines and an editor's (a stored piece keeps
 * the `\r` of every line but its last).
 */
function cutTo<R extends { startLine: number; endLine: number; content: string; context?: string | null; defLine?: number | null }>(row: R, s: number, e: number): R {
  const crlf = row.content.includes('\r') || !!row.context?.includes('\r');
  if (s === row.startLine && e === row.endLine && !crlf) return row;
  const lines = row.content.split('\n').slice(s - row.startLine, e - row.startLine + 1);
  const defLine = row.defLine !== undefined && row.defLine !== null && row.defLine >= s && row.defLine <= e ? row.defLine : null;
  return { ...row, startLine: s, endLine: e, content: withoutCr(lines.join('\n')), defLine, ...(row.context ? { context: withoutCr(row.context) } : {}) };
}

/** Text without the `\r` that ends its lines (CRLF line ends). */
function withoutCr(text: string): string {
  return text.includes('\r') ? text.replace(/\r(?=\n)|\r$/g, '') : text;
}

/** Results for grouped items; a group whose row is gone (deleted meanwhile) is skipped. */
export function toResults(groups: readonly GroupedItem[], rowOf: (id: number) => StoredChunk | undefined, pq: ProcessedQuery): SearchResult[] {
  const out: SearchResult[] = [];
  /** Per file, the lines shown so far: no line is shown twice in one list (unshownLines). */
  const shownOf = new Map<string, Array<[number, number]>>();
  const shown = (path: string) => shownOf.get(path) ?? (shownOf.set(path, []), shownOf.get(path)!);
  for (const g of groups) {
    const whole = rowOf(g.id);
    if (!whole) continue;
    const own = unshownLines(shown(whole.path), whole.startLine, whole.endLine);
    if (!own) continue;
    const c = cutTo(whole, own[0], own[1]);
    const fragment = (m: FusedItem, sameDefinition: boolean): ResultFragment[] => {
      const full = rowOf(m.id);
      const lines = full ? unshownLines(shown(full.path), full.startLine, full.endLine) : null;
      if (!full || !lines) return [];
      const r = cutTo(full, lines[0], lines[1]);
      return [{
        id: r.id, startLine: r.startLine, endLine: r.endLine, content: r.content, context: r.context ?? null,
        contextLine: r.contextLine ?? null, combinedScore: m.combinedScore, highlights: highlightRanges(r.content, pq),
        sameDefinition, symbol: r.symbol, parent: r.parent, chunkType: r.chunkType, defLine: r.defLine ?? null,
      }];
    };
    const more: ResultFragment[] = [
      ...g.more.flatMap((m) => fragment(m, true)),
      ...g.filePieces.flatMap((p) => [...fragment(p, false), ...p.more.flatMap((m) => fragment(m, false))]),
    ];
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
      context: c.context ?? null,
      contextLine: c.contextLine ?? null,
      defLine: c.defLine ?? null,
      names: c.names ?? null,
      defines: c.defines ?? null,
      matchedName: matchedName(c, pq),
      kind: fileKind(c.path, c.language),
      more,
      fileMore: g.fileMore,
      bm25Score: g.bm25Score,
      vectorScore: g.vectorScore,
      combinedScore: g.combinedScore,
      rank: out.length + 1,
      bm25Rank: g.bm25Rank,
      vectorRank: g.vectorRank,
      legs: g.legs,
      highlights: highlightRanges(c.content, pq),
    });
  }
  return out;
}

/** Chunk rows a result list carries: each result's row and its more-pieces' rows (its file's; their own definition's names). */
export function rowsOfResults(results: readonly SearchResult[]): StoredChunk[] {
  return results.flatMap((r) => {
    const base: StoredChunk = {
      id: r.id, path: r.path, startLine: r.startLine, endLine: r.endLine, language: r.language, chunkType: r.chunkType,
      symbol: r.symbol, parent: r.parent, signature: r.signature, doc: null, content: r.content, contentHash: '',
      context: r.context, contextLine: r.contextLine, defLine: r.defLine, names: r.names,
    };
    return [base, ...r.more.map((m) => ({
      ...base, id: m.id, startLine: m.startLine, endLine: m.endLine, content: m.content, context: m.context, contextLine: m.contextLine,
      ...(m.sameDefinition ? {} : { symbol: m.symbol, parent: m.parent, chunkType: m.chunkType, signature: null, defLine: m.defLine, names: null }),
    }))];
  });
}

/**
 * Results of several codebases as one list: by fused score (ties: codebase order, then
 * rank), cut to `limit`, ranks renumbered. Each list is already one result per definition.
 */
export function mergeRanked<T extends { combinedScore: number; rank: number }>(lists: ReadonlyArray<readonly T[]>, limit: number): T[] {
  const all = lists.flatMap((l, li) => l.map((r) => ({ r, li })));
  all.sort((a, b) => b.r.combinedScore - a.r.combinedScore || a.li - b.li || a.r.rank - b.r.rank);
  return all.slice(0, Math.max(0, limit)).map(({ r }, i) => ({ ...r, rank: i + 1 }));
}
