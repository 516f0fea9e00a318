/**
 * File-level signals of the keyword leg, and the one place a candidate's score is changed by
 * a named signal (`addScore`, after zoekt's): every change is recorded under its name, so
 * explain (the app's panel, `--explain`) shows what each signal did.
 *
 * The pipeline a query's candidates go through (bm25.ts): FTS5 candidates → rerank.ts (bm25,
 * name, exact) → here: `path` (the query's words in the file's path; its name counts most),
 * `file` (other matching pieces of the same file) and `kind` (text/file-kind.ts: for a code
 * question tests, prose, examples and vendored code rank below the implementation; a question
 * that asks for them puts them first) → definitions (symbols.ts) → fusion and diversity
 * (results.ts rankGroups).
 *
 * Invariants: pure; the order of candidates does not change any score; a signal whose input is
 * absent contributes nothing and is not recorded.
 */
import { lineCommentFor } from '../chunk/languages.ts';
import { FILE_SIGNALS, FUNCTION_KIND_FACTORS, FUNCTION_QUESTION, KIND_FACTORS, TEST_DATA_FACTOR } from '../config.ts';
import { fileKind, isDeclarationFile, isSourceLanguage, pieceKind, type SearchIntent } from '../text/file-kind.ts';
import { splitIdentifier } from '../text/identifiers.ts';
import { isIForm, lightStem, sameWordForm } from '../text/word-forms.ts';
import { expandAbbreviation, isFunctionKind, pathNamesFor, readsAsDocComment } from './query.ts';
import { isStopWord } from '../text/stop-words.ts';
import { maskCount, symbolTermMask } from './rerank.ts';

/** A candidate being scored: its score and the named contributions that made it. */
export interface Scored {
  id: number;
  score: number;
  signals: Record<string, number>;
}

/** Add `value` to the candidate's score under `name` (recorded, summed when named twice). */
export function addScore(c: Scored, name: string, value: number): void {
  if (!value) return;
  c.score += value;
  c.signals[name] = (c.signals[name] ?? 0) + value;
}

/** Scale the candidate's score by `factor`; recorded as `name` = the factor. */
export function scaleScore(c: Scored, name: string, factor: number): void {
  if (factor === 1) return;
  c.score *= factor;
  c.signals[name] = factor;
}

export interface FileCandidate extends Scored {
  path: string;
  language: string;
  /** The piece's parent (its enclosing type or module), when known: an inline test module's pieces are tests (file-kind.ts pieceKind). */
  parent?: string | null;
}

const PATH_WORD_RE = /[\p{L}\p{N}]+/gu;

/** Paths whose words a keptPerPath function keeps (a pure function of the path: nothing to invalidate); then it starts over. */
const PATH_WORDS_KEPT = 50_000;

/** `make`, remembered for up to PATH_WORDS_KEPT paths. */
function keptPerPath<T>(make: (path: string) => T): (path: string) => T {
  const kept = new Map<string, T>();
  return (path) => {
    let v = kept.get(path);
    if (v === undefined) {
      if (kept.size >= PATH_WORDS_KEPT) kept.clear();
      v = make(path);
      kept.set(path, v);
    }
    return v;
  };
}

/**
 * The word a test file's name carries to say it is a test (`plugin_spec`, `router_test`,
 * `test_client`, `RouterTest`, `conn.test`): a mark of its kind, which the kind signal weighs,
 * not a word of what it is about ("how plugin specs are merged" is not about `plugin_spec.lua`
 * more than about `plugin.lua`).
 */
const TEST_NAME_MARK = /^(?:test_)(?=[^/]*[a-z0-9])|[._-](?:tests?|specs?)$|(?<=[a-z0-9])(?:Tests?|Spec)$/;

/** A folder named only to say its files are tests: a mark too, not a word of what they are about. */
const TEST_DIR_MARK = /^(?:tests?|specs?|__tests__)$/i;

/** A file name (no extension) without its test mark; a name that is only the mark stays. */
function testMarkerless(name: string): string {
  const out = name.replace(TEST_NAME_MARK, '');
  return out || name;
}

/** A path's words, lower-case, with identifier parts and light stems: [file-name words, directory words]. Kept per path. */
export const pathWordSets: (path: string) => [ReadonlySet<string>, ReadonlySet<string>] = keptPerPath((path) => makePathWordSets(path));

function makePathWordSets(path: string): [Set<string>, Set<string>] {
  const slash = path.lastIndexOf('/');
  const add = (set: Set<string>, text: string) => {
    for (const m of text.matchAll(PATH_WORD_RE)) {
      for (const w of [m[0], ...splitIdentifier(m[0])]) {
        const lw = w.toLowerCase();
        set.add(lw);
        set.add(lightStem(lw));
      }
    }
  };
  const name = new Set<string>();
  const dirs = new Set<string>();
  const base = path.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  add(name, testMarkerless(dot > 0 ? base.slice(0, dot) : base));
  add(dirs, path.slice(0, Math.max(0, slash)).split('/').filter((d) => !TEST_DIR_MARK.test(d)).join('/'));
  return [name, dirs];
}

/** Suffixes that make another form of a three-letter word (`log` → logs, logger; `map` → mapping). */
const SHORT_WORD_SUFFIXES = new Set(['s', 'es', 'er', 'ers', 'ing', 'ed']);

/** Is `w` three-letter word `t` with a suffix, its last letter doubled or not (`logger`, `tags`, `mapping`)? */
function shortWordForm(w: string, t: string): boolean {
  if (!w.startsWith(t)) return false;
  const rest = w.slice(t.length);
  return SHORT_WORD_SUFFIXES.has(rest) || (rest[0] === t[2] && SHORT_WORD_SUFFIXES.has(rest.slice(1)));
}

/** Shortest word namesWord finds at the end of a path word written as one. */
const COMPOUND_TAIL_MIN = 5;

/**
 * Does path word `w` stand for query term `t` (whose light stem is `stem`): the term or its
 * stem, a word it starts or that starts it, another form of the word, or a word it abbreviates
 * / that abbreviates it (`utility` → `util`, `error` → `err`, `configuration` → `cfg`).
 */
export function namesWord(w: string, t: string, stem: string): boolean {
  if (w === t || w === stem) return true;
  if (t.length < 4) return t.length === 3 && shortWordForm(w, t);
  // A three-letter path word stands for its plural only (`Key.hs` for "keys", `tag.go` for "tags").
  if (w.length < 4) return w.length === 3 && (t === `${w}s` || t === `${w}es`);
  if (w.startsWith(stem) || stem.startsWith(w) || sameWordForm(w, t)) return true;
  // A final y written i before a suffix (`lazy` → `lazily`, `copy` → `copies`).
  if (isIForm(w, stem)) return true;
  // The end of a word written as one (`winconsole` ← console, `ostream` ← streams).
  return stem.length >= COMPOUND_TAIL_MIN && w.length > stem.length && w.endsWith(stem);
}

/**
 * The abbreviations and long forms of term `t` and of its stem (`windows` → window → `win`), and
 * the words a path writes for it (query.ts pathNamesFor: `german` → `de`, `translations` → `i18n`).
 */
function abbreviationsOf(t: string, stem: string): string[] {
  const forms = stem === t ? expandAbbreviation(t) : [...expandAbbreviation(t), ...expandAbbreviation(stem)];
  // An abbreviation's plural names the same thing (`StringUtils.java` for "string utility methods").
  const own = forms.flatMap((a) => (a.length >= 4 && !/[sy]$/.test(a) ? [a, `${a}s`] : [a]));
  const named = pathNamesFor(t);
  return named.length ? [...own, ...named] : own;
}

/** A query term with what the path signals compare: its light stem and abbreviations, worked out once per query. */
export interface TermForm {
  t: string;
  stem: string;
  abbreviations: readonly string[];
}

/**
 * The term forms of `terms` (termForms once per query, not per path); `acronyms`: the initials
 * of runs of the question's words, by word (ProcessedQuery.acronyms), counted as abbreviations.
 */
export function termForms(terms: readonly string[], acronyms?: Readonly<Record<string, readonly string[]>>): TermForm[] {
  return terms.map((t) => {
    const stem = lightStem(t);
    const more = acronyms && Object.prototype.hasOwnProperty.call(acronyms, t) ? acronyms[t] : undefined;
    return { t, stem, abbreviations: more?.length ? [...abbreviationsOf(t, stem), ...more] : abbreviationsOf(t, stem) };
  });
}

/** Term forms as given, or worked out from plain terms (a caller outside a query's loop). */
function formsOf(terms: readonly string[] | readonly TermForm[]): readonly TermForm[] {
  return typeof terms[0] === 'string' ? termForms(terms as readonly string[]) : terms as readonly TermForm[];
}

/** Does a path word set hold query term `f.t` (namesWord, or an abbreviation of it)? */
function holds(set: ReadonlySet<string>, f: TermForm): boolean {
  if (set.has(f.t) || set.has(f.stem)) return true;
  for (const e of f.abbreviations) if (set.has(e)) return true;
  if (f.t.length < 3) return false;
  for (const w of set) if (namesWord(w, f.t, f.stem)) return true;
  return false;
}

/**
 * The `path` signal in [0, 1]: query terms found in the file name count FILE_SIGNALS.pathNameWeight, in a
 * directory 1, over pathNameWeight × the number of terms.
 */
export function pathSignal(path: string, terms: readonly string[] | readonly TermForm[]): number {
  if (!terms.length) return 0;
  const forms = formsOf(terms);
  const [name, dirs] = pathWordSets(path);
  let got = 0;
  for (const f of forms) {
    if (holds(name, f)) got += FILE_SIGNALS.pathNameWeight;
    else if (holds(dirs, f)) got += 1;
  }
  return got / (FILE_SIGNALS.pathNameWeight * forms.length);
}

/** File names that say nothing about what the file holds: their directory names it (`_extensions/init.lua`, `parser/mod.rs`). */
const GENERIC_FILE_NAMES = new Set(['index', 'init', 'mod', 'lib', 'main', 'package', 'module', 'default']);

/** Name words a query must name for the full `file_name` signal (one counts half). */
const FILE_NAME_FULL_HITS = 2;

/**
 * The words that name what a file is about, lower-case: its file name's words and identifier
 * parts (`quiet_logger.rb` → quiet, logger; `RelativizeUrls.hs` → relativize, urls), or its
 * directory's when the name is generic (`_extensions/init.lua` → extensions). Numbers alone,
 * one-letter words and function words (`str_to_bool` → str, bool) are left out.
 */
export const fileNameWords: (path: string) => readonly string[] = keptPerPath((path) => {
  const parts = path.split('/');
  const base = parts[parts.length - 1];
  const dot = base.lastIndexOf('.');
  const split = (text: string) => [...new Set([...text.matchAll(PATH_WORD_RE)].flatMap((m) => splitIdentifier(m[0])).map((w) => w.toLowerCase()))]
    .filter((w) => w.length >= 2 && !/^\p{N}+$/u.test(w));
  const words = split(dot > 0 ? base.slice(0, dot) : base);
  const named = words.every((w) => GENERIC_FILE_NAMES.has(w)) && parts.length > 1 ? split(parts[parts.length - 2]) : words;
  // A function word joins a name's words (`str_to_bool`, `ObjectForKey`): a query drops it, so it counts for nothing.
  const content = named.filter((w) => !isStopWord(w));
  return content.length ? content : named;
});

/**
 * The `file_name` signal in [0, 1]: the share of the file name's words (fileNameWords) that a
 * query term names (namesWord or an abbreviation). A file named by the question
 * (`RelativizeUrls.hs` for "making urls relative to the site root") is about it as a whole;
 * one query word in a longer name counts for its part, none for a file whose name the question
 * does not use. The reverse of `path`, which counts the query's words found in the path.
 */
export function fileNameSignal(path: string, terms: readonly string[] | readonly TermForm[]): number {
  const words = fileNameWords(path);
  if (!words.length || !terms.length) return 0;
  const forms = formsOf(terms);
  let hits = 0;
  for (const w of words) {
    for (const f of forms) {
      if (namesWord(w, f.t, f.stem) || f.abbreviations.includes(w)) {
        hits++;
        break;
      }
    }
  }
  // One word of a name is weaker evidence than two (`List.hs` for "a list of posts…").
  return (hits / words.length) * Math.min(1, hits / FILE_NAME_FULL_HITS);
}

/**
 * Apply the file-level signals to the keyword leg's reranked candidates, in place:
 * `path`, `file_name` (signals.ts fileNameSignal), `file` (evidence from other pieces of the file) and `kind` (× KIND_FACTORS).
 * `terms`: the query's content words (ProcessedQuery.terms); `intent`: which kinds lead;
 * `functionLevel`: the question reads as one function's doc comment (query.ts
 * readsAsDocComment), whose answer is a piece, not a file named for its words: no `file_name`.
 * `declarations`: the question asks for type declarations (text/file-kind.ts
 * asksForDeclarations; kindFactor weighs a `.d.ts` as code). `nameTerms`: the terms `file_name`
 * compares (query.ts fileNameTerms: without the parts of an identifier the question does not
 * write as words), `terms` when absent.
 * `cover` comes after these (coverFiles, applyCover): it needs the leading files' text.
 */
export function applyFileSignals(cands: FileCandidate[], terms: readonly string[], intent: SearchIntent, functionLevel = false, declarations = false, nameTerms?: readonly string[], acronyms?: Readonly<Record<string, readonly string[]>>): void {
  if (!cands.length) return;
  const ts = termForms([...new Set(terms.filter((t) => t.length >= 2 && !t.includes(' ')))], acronyms);
  const nts = nameTerms ? termForms([...new Set(nameTerms.filter((t) => t.length >= 2 && !t.includes(' ')))], acronyms) : ts;
  const best = Math.max(...cands.map((c) => c.score));
  // Evidence per file: the scores of its pieces relative to the best candidate.
  const byFile = new Map<string, number[]>();
  for (const c of cands) {
    const list = byFile.get(c.path);
    const rel = best > 0 ? Math.max(0, c.score) / best : 0;
    if (list) list.push(rel);
    else byFile.set(c.path, [rel]);
  }
  const pathCache = new Map<string, number>();
  const kindCache = new Map<string, number>();
  const nameCache = new Map<string, number>();
  for (const c of cands) {
    let p = pathCache.get(c.path);
    if (p === undefined) {
      p = pathSignal(c.path, ts);
      pathCache.set(c.path, p);
    }
    const rels = byFile.get(c.path)!;
    const own = best > 0 ? Math.max(0, c.score) / best : 0;
    const others = Math.min(FILE_SIGNALS.fileEvidenceCap, rels.reduce((s, r) => s + r, 0) - own);
    let nm = nameCache.get(c.path);
    if (nm === undefined) {
      nm = functionLevel ? 0 : fileNameSignal(c.path, nts);
      nameCache.set(c.path, nm);
    }
    addScore(c, 'path', FILE_SIGNALS.pathWeight * p);
    addScore(c, 'file_name', FILE_SIGNALS.fileNameWeight * nm);
    addScore(c, 'file', FILE_SIGNALS.fileEvidenceWeight * others);
    const key = c.parent ? `${c.path}\0${c.parent}` : c.path;
    let factor = kindCache.get(key);
    if (factor === undefined) {
      factor = kindFactor(c.path, c.language, intent, c.parent, functionLevel, declarations);
      kindCache.set(key, factor);
    }
    scaleScore(c, 'kind', factor);
  }
}

/**
 * The pieces whose words the `cover` signal reads: the best FILE_SIGNALS.coverPieces pieces of
 * each of the FILE_SIGNALS.coverFiles best files (by their best piece's score so far), by file.
 * Only files that can be listed compete on cover: their text is read for the results anyway
 * (Store.read keeps it), so cover costs the words of a few pieces, not every candidate's text.
 */
export function coverFiles(cands: readonly FileCandidate[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const c of [...cands].sort((a, b) => b.score - a.score || a.id - b.id)) {
    const ids = out.get(c.path);
    if (ids) {
      if (ids.length < FILE_SIGNALS.coverPieces) ids.push(c.id);
    } else if (out.size < FILE_SIGNALS.coverFiles) out.set(c.path, [c.id]);
  }
  return out;
}

/**
 * The `cover` signal, in place: every piece of a file in `fileTerms` gets
 * FILE_SIGNALS.fileCoverWeight × the share of the query's `termCount` words that the file's
 * read pieces hold between them (a mask of term bits, rerank.ts termMask), × the file's
 * `kind` factor (as if added before kind scaled the score). A file whose pieces together hold
 * the question beats a piece of a neighbour with one dense match.
 */
export function applyCover(cands: FileCandidate[], fileTerms: ReadonlyMap<string, number>, termCount: number): void {
  if (!(termCount > 0) || !(FILE_SIGNALS.fileCoverWeight > 0)) return;
  for (const c of cands) {
    const mask = fileTerms.get(c.path);
    if (!mask) continue;
    addScore(c, 'cover', FILE_SIGNALS.fileCoverWeight * (c.signals.kind ?? 1) * maskCount(mask) / Math.min(termCount, 31));
  }
}

/** A question that opens with a question word asks how or where something happens. */
const QUESTION_OPENER_RE = /^\s*(?:how|where|what|which|when|why)\b/i;

/**
 * Does the question ask how or where something happens, so that `spread` applies: it opens with
 * a question word ("how requests flow through middleware", "where diagnostics are collected"),
 * names no identifier (`identifiers` of processQuery: such a question asks about that name's
 * code), does not open like a function's doc comment (query.ts readsAsDocComment) and is not a
 * sentence with its full stop. A doc comment's first sentence ("Remove an event from the
 * queue.", "Stop the server and this thread nicely") and a commit subject describe one change or
 * one function; without the question word, spread put a module of many `stop`/`thread` functions
 * before pydoc's server for the second (Python docstrings 0.470 → 0.466 MRR@10).
 */
export function asksHowOrWhere(original: string, identifiers: readonly string[]): boolean {
  return identifiers.length === 0 && QUESTION_OPENER_RE.test(original) && !original.trim().endsWith('.') && !readsAsDocComment(original);
}

/**
 * The `spread` signal (issue 35 class 4: an orchestrating file), in place: for each of `files`
 * (the files `cover` read), the share of the question's words that the definition names of its
 * candidate pieces name (rerank.ts symbolTermMask: `_send_handling_auth`,
 * `_send_handling_redirects` for "the auth flow applied, redirects followed"), when together they
 * name more of them than any one definition does, × FILE_SIGNALS.fileSpreadWeight × the file's
 * kind factor, added to every piece of the file. An orchestrating file runs the steps the question
 * names, each in a function of its own; a long documented API file holds the same words in doc
 * comments, which this does not read, and one definition that names every word is `name`'s case.
 * `symbolOf`: each candidate's symbol (its row, already read). No content is read.
 */
export function applySpread(cands: FileCandidate[], symbolOf: ReadonlyMap<number, string | null>, files: ReadonlyMap<string, readonly number[]>, terms: readonly string[], stems: readonly string[]): void {
  if (!(FILE_SIGNALS.fileSpreadWeight > 0) || terms.length < 2) return;
  const perFile = new Map<string, { mask: number; best: number }>();
  for (const c of cands) {
    if (!files.has(c.path)) continue;
    const mask = symbolTermMask(symbolOf.get(c.id) ?? null, terms, stems);
    if (!mask) continue;
    const f = perFile.get(c.path) ?? { mask: 0, best: 0 };
    f.mask |= mask;
    f.best = Math.max(f.best, maskCount(mask));
    perFile.set(c.path, f);
  }
  const n = Math.min(terms.length, 31);
  for (const c of cands) {
    const f = perFile.get(c.path);
    // Spread: the file's definitions together name more words than any one of them.
    if (!f || maskCount(f.mask) <= f.best) continue;
    addScore(c, 'spread', FILE_SIGNALS.fileSpreadWeight * (c.signals.kind ?? 1) * maskCount(f.mask) / n);
  }
}

/** What opens a C-style block comment. */
const BLOCK_START = '/*';

/**
 * A piece that holds only comments, by its language's own comment syntax (chunk/languages.ts
 * `lineComment`): every line that is not blank starts with the language's line-comment marker
 * (Rust's `///` and `//!` start with `//`; Python's `#`, Lua's and Haskell's `--`), or lies in a
 * `/* … *\/` block in a language whose marker is `//` (C, Java, Rust, Go, …), or is Rust's
 * `#![doc …]` / `#[doc …]` attribute (a doc read from a file): a license header, a doc comment
 * on its own, a Rust module that is a guide (clap's `src/_derive/mod.rs`). A marker of another
 * language is code here: C's `# define` and `--i;`, Rust's `#[derive]`. A `package` line is
 * code, so Go's `doc.go` is not comments alone.
 */
export function commentOnly(content: string, language: string): boolean {
  const marker = lineCommentFor(language);
  const blocks = marker === '//';
  let any = false;
  let inBlock = false;
  for (const raw of content.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    any = true;
    if (inBlock) {
      if (line.includes('*/')) inBlock = false;
      continue;
    }
    if (blocks && line.startsWith(BLOCK_START)) {
      inBlock = !line.includes('*/', 2);
      continue;
    }
    if (line.startsWith(marker)) continue;
    // A piece may start inside a block comment that an earlier piece opened.
    if (blocks && /^\*(?:[\s/]|$)/.test(line)) continue;
    if (language === 'rust' && /^#!?\[doc\b/.test(line)) continue;
    return false;
  }
  return any;
}

/** Read pieces a file needs, all comments alone, to be prose: one commented-out block is no guide. */
const PROSE_MIN_PIECES = 2;

/**
 * `prose`, in place: every piece of a code file whose read pieces (`read`: the pieces `cover`
 * read, the leading files' best ones) are all `commentOnly`, PROSE_MIN_PIECES or more, weighs as
 * the docs the file is (× KIND_FACTORS[intent].docs ÷ the code factor) — unless the question
 * names the file (its `file_name` signal, applyFileSignals): a file of comments alone documents
 * what its name says, and a question about that ("feature flags of the crate" → clap's
 * `src/_features.rs`) asks for it; one about anything else ("how a derived enum's variants
 * become subcommands", which `src/_derive/_tutorial.rs` also tells) asks for the code. A
 * generic name reads its directory (fileNameWords), so "how derive macros turn struct fields
 * into arguments" names the derive guide `src/_derive/mod.rs`. One comment piece of a file with
 * code (a table of options above the code that reads them, a commented-out block) is evidence
 * for that file and keeps its weight. Java's `package-info.java` is seldom reached: its license
 * header rarely matches, so one piece is read.
 */
export function applyProse(cands: FileCandidate[], read: ReadonlyArray<{ id: number; path: string; language: string; content: string }>, intent: SearchIntent): void {
  const factor = KIND_FACTORS[intent].docs / KIND_FACTORS[intent].code;
  if (factor === 1) return;
  /** Per file: how many read pieces are comments alone, or -1 once one holds code. */
  const prose = new Map<string, number>();
  for (const r of read) {
    const n = prose.get(r.path) ?? 0;
    if (n < 0) continue;
    prose.set(r.path, fileKind(r.path, r.language) === 'code' && commentOnly(r.content, r.language) ? n + 1 : -1);
  }
  for (const c of cands) {
    if ((prose.get(c.path) ?? 0) >= PROSE_MIN_PIECES && !c.signals.file_name) scaleScore(c, 'prose', factor);
  }
}

/** Fewest query terms for `named_leaf`: a question with more to say than the type's name. */
export const NAMED_LEAF_MIN_TERMS = 3;

/** A type name that reads as an exception or error type (`JsonSyntaxException`, `AFError`). */
const EXCEPTION_NAME_RE = /(?:Exception|Error)$/;

/**
 * The files that define an enum or an exception type the question names (`DefaultValueHandling`
 * in "Fixed DefaultValueHandling.Ignore with decimal properties", `JsonSyntaxException` in
 * "Throw JsonSyntaxException instead of NPE for a null AtomicLongArray element"): a candidate
 * that is the head of a definition of a question's name (`tiers`, symbols.ts matchDefinition)
 * under its qualifier (scope 1), of type enum or named …Exception / …Error.
 */
export function namedLeafFiles(cands: ReadonlyArray<{ id: number; path: string; symbol: string | null }>, tiers: ReadonlyMap<number, { head: boolean; scope: number }>, chunkTypeOf: ReadonlyMap<number, string>): Set<string> {
  const out = new Set<string>();
  for (const c of cands) {
    const m = tiers.get(c.id);
    if (!m || !m.head || m.scope < 1) continue;
    if (chunkTypeOf.get(c.id) === 'enum' || EXCEPTION_NAME_RE.test(c.symbol ?? '')) out.add(c.path);
  }
  return out;
}

/**
 * `named_leaf`, in place: every piece of a file in `files` (namedLeafFiles) ×
 * FILE_SIGNALS.namedLeafFactor. A question that names an enum or an exception and says more
 * (a commit subject, a behaviour) is about the code that throws or reads it: the type's own
 * small file led on `name`, `exact`, `path` and `file_name` from that one word.
 */
export function applyNamedLeaf(cands: FileCandidate[], files: ReadonlySet<string>): void {
  if (!files.size) return;
  for (const c of cands) if (files.has(c.path)) scaleScore(c, 'named_leaf', FILE_SIGNALS.namedLeafFactor);
}

/**
 * `piece_kind`, in place: for a question that describes one function (query.ts
 * describesFunction), every piece that is not a function or a method (a class or struct head, a
 * module's top level, a comment) × FUNCTION_QUESTION.otherPieceFactor. The question's answer is
 * a function; a type whose doc holds the question's words ranked above its own method
 * (`MaybeUninit` over `assume_init` for "Extracts the value from the `MaybeUninit<T>`
 * container.", `WeakValueDictionary` over `valuerefs`). `chunkTypeOf`: the candidates' types.
 */
export function applyPieceKind(cands: FileCandidate[], chunkTypeOf: ReadonlyMap<number, string>): void {
  const factor = FUNCTION_QUESTION.otherPieceFactor;
  for (const c of cands) if (!isFunctionKind(chunkTypeOf.get(c.id))) scaleScore(c, 'piece_kind', factor);
}

/**
 * The `kind` signal's factor for a piece of the file at `path` in `language` under `intent`
 * (KIND_FACTORS[intent][kind]): the file's kind, or 'test' for a piece of an inline test module
 * (`parent`: file-kind.ts pieceKind). The keyword leg here and the vector leg (search.ts) both
 * ask here. `functionLevel`: a code question that reads as one function's doc comment (FUNCTION_KIND_FACTORS).
 */
export function kindFactor(path: string, language: string, intent: SearchIntent, parent?: string | null, functionLevel = false, declarations = false): number {
  const row = functionLevel && intent === 'code' ? FUNCTION_KIND_FACTORS : KIND_FACTORS[intent];
  const kind = pieceKind(fileKind(path, language), language, parent);
  if (intent === 'test' && kind === 'test' && !isSourceLanguage(language)) return TEST_DATA_FACTOR;
  return row[declarations && kind === 'generated' && isDeclarationFile(path) ? 'code' : kind];
}
