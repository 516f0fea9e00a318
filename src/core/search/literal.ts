/**
 * The keyword leg of a query with no letter or digit (ProcessedQuery.literal: `:<|>`, `>>=`,
 * `.:`, `<=>`). FTS5 indexes words only, so such a query found nothing at all. It is searched as
 * exact text instead (grep.ts: the trigram index narrows the files when it has 3+ characters),
 * and the pieces that hold it are ranked:
 *
 * 1. pieces that define it: named for it (chunks.symbol, or chunk_names: `(<>)` of an instance),
 *    then pieces with a line that declares it (`data a :<|> b`, `(.:) ::`, `infixr 3 :<|>`,
 *    `x .: y = …`, `def ++(`, `bool operator==(`, `static func + (`);
 * 2. code before tests, docs, examples and the rest (the stored kind);
 * 3. more lines holding it first; then path order, then line.
 *
 * Data path: query → grep lines (outside the read transaction) → the pieces holding each line
 * (files.chunk_lo..chunk_hi) → hits, whose metadata and text the search reads as for any hit.
 */
import type { Hit, SearchFilters } from '../types.ts';
import type { Queryable } from '../store/sqlite.ts';
import { nameKey } from '../store/store.ts';
import { escapeRegExp } from '../text/regexp.ts';
import { filterSql } from './bm25.ts';
import { grep, type GrepLine, type GrepStore } from './grep.ts';

/** Lines read for a literal query (grep stops at this many, files in path order). */
export const LITERAL_LINES = 2000;
/** Files whose pieces are ranked (the first that hold it, in path order). */
export const LITERAL_FILES = 200;
/** Pieces that define the literal, looked up by name (beyond the lines read). */
const LITERAL_NAMED = 50;

/** Can this store be searched as text (Store, a pack's store)? */
export function isGrepStore(store: unknown): store is GrepStore {
  const s = store as Partial<GrepStore> | null;
  return !!s && typeof s.grepFiles === 'function' && typeof s.fileTextsById === 'function' && typeof s.fileTextCount === 'function';
}

/** The lines that hold `literal` as typed (case kept), under the search's path and language filters. */
export async function literalLines(store: GrepStore, literal: string, filters: SearchFilters, signal?: AbortSignal): Promise<GrepLine[]> {
  const res = await grep(store, { pattern: literal, mode: 'exact', limit: LITERAL_LINES, path: filters.pathGlob, languages: filters.languages, stopAtLimit: true }, { signal });
  return res.results;
}

/** Words a function declaration opens with before an operator's name (`def ++(`, `operator<<`, `static func + (`). */
const DECLARING_WORDS = 'def|defp|defmacro|defmacrop|fun|func|fn|operator';
/**
 * Words a type declaration opens with, one type variable before an infix type's operator
 * (`data a :<|> b`, `type a :> b`). Never right before it: `data <> rest` uses a variable.
 */
const TYPE_WORDS = 'data|newtype|type';

/** A line that declares `literal` (see the module comment). */
export function declarationLine(literal: string): RegExp {
  const e = escapeRegExp(literal);
  const end = String.raw`(?=[\s(\[{:,]|$)`;
  return new RegExp(
    [
      // Haskell: a signature or a binding of the operator in parentheses: `(.:) :: …`, `(<$>) = fmap`.
      String.raw`^\s*\(${e}\)\s*(?:::|=(?!=))`,
      // A fixity declaration: `infixr 3 :<|>`, `infixl 4 <$>, <*>`.
      String.raw`^\s*infix[lr]?\s+(?:\d+\s+)?(?:\S+\s*,\s*)*${e}${end}`,
      // A declaring word, at most one more word, then the operator: `def ++(`, `def left |> right`.
      String.raw`\b(?:${DECLARING_WORDS})\b[ \t]*(?:[\w']+[ \t]+)?\(?[ \t]*${e}${end}`,
      // A type word and one type variable at the line's start: `data a :<|> b`, `type a :> b`.
      String.raw`^\s*(?:${TYPE_WORDS})[ \t]+[\w']+[ \t]+${e}${end}`,
      // An infix equation: `x .: y = …`.
      String.raw`^\s*[\w']+\s+${e}\s+[\w']+\s*=(?!=)`,
    ].join('|'),
    'u',
  );
}

interface PieceRow {
  id: number;
  path: string;
  s: number;
  e: number;
  kind: string;
}

/**
 * Rank the pieces holding `lines` (literalLines) for `pq.literal`; at most `limit` hits, best
 * first. `db`: the search's read transaction.
 */
export async function literalHits(db: Queryable, literal: string, lines: readonly GrepLine[], filters: SearchFilters, limit: number): Promise<Hit[]> {
  const { where, params } = filterSql(filters);
  const byPath = new Map<string, GrepLine[]>();
  for (const l of lines) {
    const list = byPath.get(l.path);
    if (list) list.push(l);
    else if (byPath.size < LITERAL_FILES) byPath.set(l.path, [l]);
  }
  const declares = declarationLine(literal);
  const found = new Map<number, { row: PieceRow; count: number; declares: boolean }>();
  for (const [path, held] of byPath) {
    const pieces = await db.all<PieceRow>(
      `SELECT c.id AS id, c.path AS path, c.start_line AS s, c.end_line AS e, c.kind AS kind
         FROM files f JOIN chunks c ON c.id BETWEEN f.chunk_lo AND f.chunk_hi
        WHERE f.path = ? AND c.path = f.path${where}`,
      [path, ...params],
    );
    for (const l of held) {
      // The narrowest piece that holds the line (a container's header and its members are pieces of their own).
      let best: PieceRow | null = null;
      for (const p of pieces) if (p.s <= l.line && l.line <= p.e && (!best || p.e - p.s < best.e - best.s)) best = p;
      if (!best) continue;
      const f = found.get(best.id) ?? { row: best, count: 0, declares: false };
      f.count++;
      if (!f.declares && declares.test(l.content)) f.declares = true;
      found.set(best.id, f);
    }
  }
  // Pieces named for it, wherever they are (also beyond the lines read).
  const named = new Set<number>();
  const rows = await db.all<PieceRow>(
    `SELECT c.id AS id, c.path AS path, c.start_line AS s, c.end_line AS e, c.kind AS kind FROM chunks c
      WHERE (c.symbol = ? OR c.id IN (SELECT chunk_id FROM chunk_names WHERE key = ?))${where} ORDER BY c.id LIMIT ?`,
    [literal, nameKey(literal), ...params, LITERAL_NAMED],
  );
  for (const r of rows) {
    named.add(r.id);
    if (!found.has(r.id)) found.set(r.id, { row: r, count: 0, declares: false });
  }
  const tier = (id: number, f: { declares: boolean }) => (named.has(id) ? 2 : f.declares ? 1 : 0);
  const ranked = [...found].sort(([a, fa], [b, fb]) =>
    tier(b, fb) - tier(a, fa)
    || Number(fb.row.kind === 'code') - Number(fa.row.kind === 'code')
    || fb.count - fa.count
    || (fa.row.path < fb.row.path ? -1 : fa.row.path > fb.row.path ? 1 : 0)
    || fa.row.s - fb.row.s);
  return ranked.slice(0, limit).map(([id, f], i) => ({
    id,
    score: 1 / (i + 1),
    rank: i + 1,
    signals: { literal_lines: f.count, ...(named.has(id) ? { literal_named: 1 } : f.declares ? { literal_declares: 1 } : {}) },
  }));
}
