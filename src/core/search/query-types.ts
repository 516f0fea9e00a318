/**
 * The shapes of a processed query (query.ts makes them) and of the names it looks up as
 * definitions (symbols.ts makes and matches them): below both, so neither imports the other
 * for its types.
 */
import type { ChunkType } from '../types.ts';

/** One term of `ftsQuery`: the phrase as OR-ed there, and the word as typed (quoted, no stem, no prefix). */
export interface FtsPhrase {
  phrase: string;
  word: string;
}

export interface ProcessedQuery {
  /** The input as given. */
  original: string;
  /** The input reads as one function's doc comment (query.ts readsAsDocComment): its answer is that function. */
  docComment: boolean;
  /** Lower-cased words and identifier parts, stop words removed, deduplicated. */
  terms: string[];
  /** Every lower-case word and identifier part of the query, stop words included (symbol-name matching). */
  words: string[];
  /** `terms` plus abbreviation expansions (both directions), capped at MAX_EXPANDED_TERMS. */
  expandedTerms: string[];
  /** Words as typed that look like identifiers: camelCase, snake_case, `Foo::bar`, `a.b`. */
  identifiers: string[];
  /** Safe FTS5 MATCH expression; '' when nothing searchable is left. */
  ftsQuery: string;
  /**
   * The phrases of `ftsQuery` grouped by query term: a term's own phrase, then those of its
   * abbreviation expansions (`"table"*`, `"tbl"`). `ftsQuery` is all of them joined by OR; the
   * keyword leg's planner (bm25.ts) treats a group as one alternative when it restricts a query.
   */
  ftsGroups: FtsPhrase[][];
  /** The whole query is one identifier-shaped word (`getUserName`, `kalloc`, `Foo::bar`). */
  isIdentifierLike: boolean;
  /**
   * The whole query is a declaration written as code: optional modifiers, a declaration
   * keyword and one identifier (`struct page`, `def parse_args`, `pub fn main`, `class
   * Foo`), or a Go method (`func (b *Buffer) Write` names `Buffer.Write`), or a question
   * about where one name is defined ("where is the Router class defined": namedIn), else
   * null. Its name is looked up as a definition, like an identifier query's.
   */
  declared: Declared | null;
  /** The names this query looks up as definitions (symbols.ts symbolTargets), computed once here. */
  targets: SymbolTarget[];
  /**
   * A query with no letter or digit (`:<|>`, `>>=`, `.:`, `<=>`): its text as typed (trimmed,
   * runs of white space as one space), searched as exact text (literal.ts); FTS5 indexes words
   * only. Null for any other query.
   */
  literal: string | null;
  /**
   * Words a path may write for a run of the question's words: the run's initials
   * (query.ts acronymsOf: `server sent events` → `sse`), by each content word of the run.
   * For the path signals only (signals.ts termForms), like an abbreviation.
   */
  acronyms: Readonly<Record<string, readonly string[]>>;
  /**
   * The query's words in order as one FTS5 phrase (`"cannot override method on final class"`),
   * for a query that may be text pasted from the code (an error message, a log line, a comment's
   * sentence: query.ts phraseOf); null for a question, a name or a short query.
   */
  phrase: string | null;
  /**
   * A query that names a file (query.ts pathQueryOf): its path or the end of it (`sizes.test.ts`,
   * `middlewares/proxy`), or a file and line as a stack trace writes them (`src/a.ts:120`);
   * null for any other query.
   */
  pathQuery: PathQuery | null;
}

/** ProcessedQuery.pathQuery: the path (or its end) a query names, and the line it points at, if any. */
export interface PathQuery {
  /** Lower-case; `/`-separated. */
  path: string;
  /** The path writes a known extension (else any extension may follow it). */
  extension: boolean;
  /** A line the query points at (`src/foo.ts:120`, a traceback's frame): the piece holding it is listed. */
  line?: number;
}

/** A query that reads `<keyword> <name>` (ProcessedQuery.declared). */
export interface Declared {
  /** The keyword, lower-case, as typed (`struct`, `def`, `define`). */
  keyword: string;
  /** The declared name as typed (case kept). */
  name: string;
  /** The chunk types a definition of that keyword has; null when any (constants, macros, modules). */
  kinds: readonly ChunkType[] | null;
}

export interface SymbolTarget {
  /** The name as typed (case kept). */
  symbol: string;
  /** Required parent as typed, or null. */
  parent: string | null;
  /**
   * The chunk types the query's declaration keyword names (`struct page`: struct-like), or
   * null. A definition of another type, or a constant, keeps DECLARATION_OTHER_KIND of its tier.
   */
  kinds?: readonly string[] | null;
  /**
   * For a qualified name (`crate::parser::Parser`, `pkg.Func`, `Plug.Conn.send_resp`): every
   * qualifier as typed. A definition of the last name whose parent is not the last qualifier
   * still matches, lower (QUALIFIED_TIERS): its parent is another qualifier, or its path holds
   * one (Rust modules, Go packages, Elixir and Java namespaces are paths), or neither.
   */
  qualifiers?: readonly string[];
  /**
   * The type that owns a member a prose question names (`JsonSerializer` for "Refactor
   * JsonSerializer.Binder …"): its definition holds the member. Matched at the head of its
   * definition only.
   */
  owner?: boolean;
  /**
   * An owner a name lookup names (`Mailbox` of `Mailbox.enqueue`): matched lower
   * (LOOKUP_OWNER_TIER), as a type; after a `.` also as a constant a module piece defines.
   */
  lookupOwner?: 'type' | 'dot';
}
