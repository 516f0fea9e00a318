/**
 * Exact and regex search with ripgrep's line semantics over each indexed file's stored text
 * (store file_text), not over chunks: every matching line of every indexed file, once.
 *
 * Invariants (checked against `rg` by test/cli/grep-parity.test.ts):
 * - Lines are split on `\n` only; a line's text keeps a trailing `\r` while matching (so, as in
 *   rg without --crlf, `x$` does not match "x\r\n"), and `content` drops it (the chunk
 *   contract: content is the file's line as LineTable gives it). Line numbers are 1-based.
 * - A match never spans lines: every line is decided by matching the line alone. Whole-text
 *   searches (indexOf, a multi-line DFA test) only skip text that holds no matching line.
 * - `matches` are [start, end) offsets in UTF-16 code units of `content`, non-empty, in order.
 * - Regexes run on re2js (RE2: linear time, no backtracking), so a pattern cannot hang; exact
 *   mode uses indexOf, or a JS RegExp made only of the escaped literal when case-insensitive.
 * - Patterns are rewritten so `\w \d \s` (and negations) mean what they mean in ripgrep
 *   (Unicode), not RE2's ASCII classes. `\b`/`\B` stay ASCII (see README).
 * - Results come in path order (SQLite BINARY collation), then line order; `limit` caps the
 *   returned lines, `totalMatches` counts every matching line.
 */
import type * as Re2Module from 're2js';
import { compilePathGlob } from '../text/path-glob.ts';
import { escapeRegExp } from '../text/regexp.ts';
import type { GrepFile } from '../store/store.ts';
import { anyOfTrigrams, formatTrigramQuery, literalTrigrams, regexLiterals, regexTrigrams, type TrigramQuery } from './trigram.ts';

export type GrepMode = 'exact' | 'regex';

export const DEFAULT_GREP_LIMIT = 200;
export const MAX_GREP_LIMIT = 100_000;
/** Files whose text is read per store call: big enough to amortise the call, small enough to stream. */
export const TEXT_BATCH_FILES = 64;

export interface GrepRequest {
  pattern: string;
  mode: GrepMode;
  ignoreCase?: boolean;
  /** Returned lines (default DEFAULT_GREP_LIMIT, at most MAX_GREP_LIMIT). */
  limit?: number;
  /** Path glob (same rules as the ranked modes' --path). */
  path?: string;
  /** Only files of these languages (none = all). */
  languages?: string[];
  /**
   * Stop reading files once `limit` lines are found (an index read over the network: counting
   * every match of a common pattern would read most of its text). `totalMatches` then counts
   * the files read so far, and `exhaustive` is false.
   */
  stopAtLimit?: boolean;
}

export interface GrepRange {
  start: number;
  end: number;
}

export interface GrepLine {
  path: string;
  language: string;
  /** 1-based line number. */
  line: number;
  /** The line's text, without its line terminator. */
  content: string;
  matches: GrepRange[];
}

export interface GrepResponse {
  pattern: string;
  mode: GrepMode;
  ignoreCase: boolean;
  results: GrepLine[];
  /** Matching lines in all searched files (results holds the first `limit`). */
  totalMatches: number;
  truncated: boolean;
  /** False when `stopAtLimit` ended the scan early: totalMatches and filesMatched are lower bounds. */
  exhaustive: boolean;
  /** Files whose text was searched (after the trigram prefilter and filters). */
  filesSearched: number;
  filesMatched: number;
  /** Files with stored text in the index. */
  filesIndexed: number;
  /** The trigram query used (formatTrigramQuery), or null when the pattern allowed none (every file scanned). */
  prefilter: string | null;
  timings: { prefilter: number; scan: number; total: number };
}

/** The pattern is not a valid regex (or not allowed): what and where, never an exception to the user. */
export class GrepPatternError extends Error {
  readonly code = 'invalid-pattern';
  constructor(
    message: string,
    /** Code-unit offset into the pattern where the problem is, when known. */
    readonly offset: number | null,
  ) {
    super(message);
    this.name = 'GrepPatternError';
  }
}

/** What grep needs from the store (Store satisfies it; a worker proxy would too). */
export interface GrepStore {
  /** Files that may satisfy `query` (all files for null), in path order: a superset, re-checked by the matcher. */
  grepFiles(query: TrigramQuery | null): Promise<GrepFile[]>;
  fileTextsById(ids: readonly number[]): Promise<Map<number, string>>;
  fileTextCount(): Promise<number>;
}

/**
 * A compiled pattern. `visitLines` calls `visit(start, end)` for every line of `text` that
 * matches, in order (`start` is the line's first code unit, `end` the index of its `\n` or the
 * text's length); each line is decided by `testLine` on that line alone.
 */
export interface LineMatcher {
  testLine(line: string): boolean;
  /** Non-empty match ranges in a matching line. */
  ranges(line: string): GrepRange[];
  visitLines(text: string, visit: (start: number, end: number) => void): void;
  /** Trigrams every matching file contains (the prefilter), or null when none are required. */
  trigrams: TrigramQuery | null;
  /** `trigrams` as text, or null. */
  prefilter: string | null;
}

/**
 * For regexes without required trigrams: segments of at most this many code units are
 * decided line by line; larger ones are first tested whole by the DFA (no per-line overhead)
 * and halved while exactly one half matches (both halves matching = dense: line by line).
 * Measured on 71 Python files (30k lines): per-line re2js test() costs ~1-2 µs a line, a
 * whole-text DFA test() ~5 ms/MB.
 */
export const LINE_SEGMENT_CHARS = 2048;

/**
 * Visit the lines of text[from, to] that `test` accepts: `from` is a line start, `to` a line
 * end, so the segment holds at least one (maybe empty) line.
 */
function visitEachLine(text: string, from: number, to: number, test: (line: string) => boolean, visit: (s: number, e: number) => void): void {
  let s = from;
  while (s <= to) {
    let e = text.indexOf('\n', s);
    if (e < 0 || e > to) e = to;
    if (test(text.slice(s, e))) visit(s, e);
    s = e + 1;
  }
}

// ---- pattern compilation -------------------------------------------------------------

/** A character outside ASCII: where RE2's `\b` and ripgrep's can differ. */
const NON_ASCII_RE = /[\u0080-\uffff]/;

/** ripgrep's Unicode \w: Alphabetic, marks, decimal digits, connector punctuation, join controls. */
const WORD = '\\p{L}\\p{Nl}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}\\x{24B6}-\\x{24E9}\\x{1F130}-\\x{1F149}\\x{1F150}-\\x{1F169}\\x{1F170}-\\x{1F189}';
/** Unicode White_Space (ripgrep's \s); \n never occurs inside a line. */
const SPACE = '\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}';

/**
 * Rewrite ripgrep-meaning classes into RE2 syntax: outside a class \w → [WORD], \W → [^WORD],
 * \d → \p{Nd}, \D → \P{Nd}, \s → [SPACE], \S → [^SPACE]; inside a class \w, \d, \D, \s expand
 * in place (\W and \S inside a class stay RE2's ASCII meaning). Everything else is copied.
 */
export function toRe2Syntax(pattern: string): string {
  const c = Array.from(pattern);
  let out = '';
  let inClass = false;
  let classStart = -1;
  for (let i = 0; i < c.length; i++) {
    const ch = c[i]!;
    if (ch === '\\') {
      const n = c[i + 1];
      if (n === undefined) {
        out += ch;
        continue;
      }
      if (n === 'Q') {
        const end = c.findIndex((x, j) => j > i + 1 && x === '\\' && c[j + 1] === 'E');
        const stop = end < 0 ? c.length : end + 2;
        out += c.slice(i, stop).join('');
        i = stop - 1;
        continue;
      }
      if ((n === 'p' || n === 'P' || n === 'x') && c[i + 2] === '{') {
        const end = c.indexOf('}', i + 2);
        const stop = end < 0 ? c.length : end + 1;
        out += c.slice(i, stop).join('');
        i = stop - 1;
        continue;
      }
      i++;
      if (!inClass) {
        if (n === 'w') out += `[${WORD}]`;
        else if (n === 'W') out += `[^${WORD}]`;
        else if (n === 'd') out += '\\p{Nd}';
        else if (n === 'D') out += '\\P{Nd}';
        else if (n === 's') out += `[${SPACE}]`;
        else if (n === 'S') out += `[^${SPACE}]`;
        else out += ch + n;
      } else {
        if (n === 'w') out += WORD;
        else if (n === 'd') out += '\\p{Nd}';
        else if (n === 'D') out += '\\P{Nd}';
        else if (n === 's') out += SPACE;
        else out += ch + n;
      }
      continue;
    }
    if (!inClass && ch === '[') {
      inClass = true;
      classStart = i;
      out += ch;
      continue;
    }
    if (inClass) {
      if (ch === '[' && c[i + 1] === ':') {
        const end = c.indexOf(']', i + 2);
        const stop = end < 0 ? c.length : end + 1;
        out += c.slice(i, stop).join('');
        i = stop - 1;
        continue;
      }
      // A ']' right after '[' or '[^' is a literal.
      const literalBracket = i === classStart + 1 || (i === classStart + 2 && c[classStart + 1] === '^');
      if (ch === ']' && !literalBracket) inClass = false;
    }
    out += ch;
  }
  return out;
}

/**
 * ripgrep's `\b` is Unicode (a letter of any script is a word character); RE2's is ASCII, so in
 * `jöfn` RE2 finds `\bfn\b` and in `funcționează` `\bfunc\b`, which ripgrep does not. On a line
 * of ASCII only the two agree. For a line with other characters, the pattern is rewritten: a
 * `\b` that starts a top-level alternative before a word character (a literal letter, digit or
 * `_`, or `\w`) becomes "start of line or a non-word character", and one that ends an
 * alternative after a word character "end of line or a non-word character" — consuming that
 * character, so each alternative's own match is a group (`groups`: its number, for the match's
 * ranges). Null when some `\b`/`\B` is elsewhere (it keeps RE2's ASCII meaning) or there is none.
 * `source`: RE2 syntax (toRe2Syntax's output).
 */
export function unicodeBoundaries(source: string): { source: string; groups: number[] } | null {
  const wordClass = `[${WORD}]`;
  const branches: string[] = [];
  let depth = 0;
  let start = 0;
  const c = Array.from(source);
  if (boundaryEscapes(c).length === 0) return null;
  scanPattern(c, (i, ch) => {
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === '|' && depth === 0) {
      branches.push(c.slice(start, i).join(''));
      start = i + 1;
    }
  });
  branches.push(c.slice(start).join(''));
  const lead = `(?:^|[^${WORD}])`;
  const trail = `(?:$|[^${WORD}])`;
  const out: string[] = [];
  const groups: number[] = [];
  let group = 0;
  for (const b of branches) {
    let body = b;
    let head = '';
    let tail = '';
    if (body.startsWith('\\b') && (WORD_START_RE.test(body.slice(2)) || body.startsWith(wordClass, 2))) {
      head = lead;
      body = body.slice(2);
    }
    if (body.endsWith('\\b') && !body.endsWith('\\\\b')) {
      const before = body.slice(0, -2);
      if (WORD_END_RE.test(before) || /\][+*]?$/.test(before) && before.replace(/[+*]$/, '').endsWith(wordClass)) {
        tail = trail;
        body = before;
      }
    }
    // Any other \b or \B: not rewritten (RE2's meaning for the whole pattern).
    if (boundaryEscapes(Array.from(body)).length > 0) return null;
    groups.push(group + 1);
    group += 1 + capturingGroups(body);
    out.push(`${head}(${body})${tail}`);
  }
  return { source: out.join('|'), groups };
}

/** A literal word character (not escaped, not a class or group) starting / ending a pattern. */
const WORD_START_RE = /^[\p{L}\p{N}_]/u;
const WORD_END_RE = /(^|[^\\])[\p{L}\p{N}_]$/u;

/** How many capturing groups `source` opens (`(` not followed by `?`, and named ones). */
function capturingGroups(source: string): number {
  const c = Array.from(source);
  let n = 0;
  scanPattern(c, (i, ch) => {
    if (ch === '(' && (c[i + 1] !== '?' || (c[i + 2] === 'P' && c[i + 3] === '<') || (c[i + 2] === '<' && c[i + 3] !== '=' && c[i + 3] !== '!'))) n++;
  });
  return n;
}

/**
 * Visit a pattern in RE2 syntax (`c`: its characters) outside character classes and `\Q…\E`:
 * `at(i, ch)` for each character that is not escaped, `escaped(i, letter)` for each escape
 * (`b` of `\b`). `\p{…}` and `\x{…}` are skipped whole.
 */
function scanPattern(c: readonly string[], at: (i: number, ch: string) => void, escaped: (i: number, letter: string) => void = () => undefined): void {
  let inClass = false;
  for (let i = 0; i < c.length; i++) {
    const ch = c[i]!;
    if (ch === '\\') {
      const n = c[i + 1];
      if (n === 'Q') {
        const end = c.findIndex((x, j) => j > i + 1 && x === '\\' && c[j + 1] === 'E');
        i = end < 0 ? c.length : end + 1;
      } else if ((n === 'p' || n === 'P' || n === 'x') && c[i + 2] === '{') {
        const end = c.indexOf('}', i + 2);
        i = end < 0 ? c.length : end;
      } else {
        if (!inClass && n !== undefined) escaped(i, n);
        i++;
      }
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      // A ']' right after '[' or '[^' is a literal.
      if (c[i + 1] === '^') i++;
      if (c[i + 1] === ']') i++;
      continue;
    }
    at(i, ch);
  }
}

/** Where `c` (a pattern's characters) has a `\b` or `\B` outside classes and `\Q…\E`: each backslash's index. */
function boundaryEscapes(c: readonly string[]): number[] {
  const at: number[] = [];
  scanPattern(c, () => undefined, (i, letter) => {
    if (letter === 'b' || letter === 'B') at.push(i);
  });
  return at;
}

/** `source` without its `\b` and `\B` (outside classes): it matches wherever `source` does, and more. */
export function withoutBoundaries(source: string): string {
  const c = Array.from(source);
  const drop = new Set(boundaryEscapes(c).flatMap((i) => [i, i + 1]));
  return c.filter((_, i) => !drop.has(i)).join('');
}

/**
 * Where an unbalanced group or class starts: the innermost '(' left open, the first ')' with
 * no '(' (`stray`), or the '[' of a class left open. Escapes and class contents are skipped
 * (a '(' inside `[...]` or after '\\' opens nothing).
 */
function unbalancedAt(pattern: string, want: 'open' | 'stray' | 'class'): number | null {
  const open: number[] = [];
  let classStart = -1;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (classStart >= 0) {
      const literalBracket = i === classStart + 1 || (i === classStart + 2 && pattern[classStart + 1] === '^');
      if (ch === ']' && !literalBracket) classStart = -1;
    } else if (ch === '[') classStart = i;
    else if (ch === '(') open.push(i);
    else if (ch === ')') {
      if (open.length === 0 && want === 'stray') return i;
      open.pop();
    }
  }
  if (want === 'class') return classStart >= 0 ? classStart : null;
  return want === 'open' && open.length ? open[open.length - 1] : null;
}

/**
 * The offset a regex error points at. RE2 names the whole pattern for an unbalanced group
 * or class ("missing closing )"), which would put a caret at column 0: point at the '('
 * left open, the stray ')' or the '[' instead; otherwise where the named fragment starts.
 */
function offsetOf(pattern: string, fragment: string | null, desc = ''): number | null {
  const balance = /missing closing \)/.test(desc) ? unbalancedAt(pattern, 'open')
    : /unexpected \)/.test(desc) ? unbalancedAt(pattern, 'stray')
      : /missing closing \]/.test(desc) ? unbalancedAt(pattern, 'class') : null;
  if (balance !== null) return balance;
  if (!fragment) return null;
  const i = pattern.indexOf(fragment);
  return i >= 0 ? i : null;
}

type Re2 = typeof Re2Module;
let re2: Promise<Re2> | null = null;

/**
 * re2js, imported on the first regex compile and kept (a failed import is tried again by the
 * next compile): evaluating it costs ~20-30 ms of CPU (bench/results/2026-11-29-lazyre2.md), which a process that compiles no regex
 * (`sift mcp` up to its first regex grep, an exact or ranked search) should not pay. Vite and
 * esbuild put it in its own chunk. The warm server loads it up front (serve.ts), as it does
 * cmd-grep: a rebuild replaces the bundle's files under a running server.
 */
export function loadRegexEngine(): Promise<Re2> {
  return (re2 ??= import('re2js').catch((e: unknown) => {
    re2 = null;
    throw e;
  }));
}

/** `\n` in a pattern: ripgrep refuses it too (lines never contain one). */
function refuseNewline(pattern: string, mode: GrepMode): void {
  const raw = pattern.indexOf('\n');
  if (raw >= 0) throw new GrepPatternError('the pattern contains a line break; search is line by line', raw);
  if (mode === 'regex') {
    const m = /(^|[^\\])(\\\\)*\\n/.exec(pattern);
    if (m) throw new GrepPatternError('the pattern matches a line break (\\n); search is line by line, so no line can match it', m.index + m[0].length - 2);
  }
}

/**
 * ripgrep's class set operations (`[a-z&&[^aeiou]]`, `--`, `~~`) parse in RE2 as plain
 * characters and would silently match something else: refuse them.
 */
function refuseSetOperations(pattern: string): void {
  const m = /\[(?:[^\]\\]|\\.)*?(&&|~~|--)/.exec(pattern);
  if (m) throw new GrepPatternError(`character class set operations (${m[1]}) are not supported (RE2 syntax)`, m.index + m[0].length - 2);
}

function compileRegex(pattern: string, ignoreCase: boolean, { RE2JS, RE2JSException }: Re2): LineMatcher {
  refuseNewline(pattern, 'regex');
  refuseSetOperations(pattern);
  const compileRe2 = (source: string, flags: number): Re2Module.RE2JS => RE2JS.compile(source, flags);
  const flags = ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  try {
    compileRe2(pattern, flags); // errors name the user's own text
  } catch (e) {
    if (e instanceof RE2JSException) {
      const desc = 'getDescription' in e && typeof e.getDescription === 'function' ? String(e.getDescription()) : e.message;
      const frag = 'getPattern' in e && typeof e.getPattern === 'function' ? (e.getPattern() as string | null) : null;
      const offset = offsetOf(pattern, frag, desc);
      throw new GrepPatternError(`invalid regex: ${desc}${frag ? ` at "${frag}"` : ''}${offset !== null ? ` (offset ${offset})` : ''}`, offset);
    }
    throw e;
  }
  const translated = toRe2Syntax(pattern);
  const line = compileRe2(translated, flags);
  // `\b` as ripgrep means it on a line with other than ASCII characters (unicodeBoundaries).
  const uni = unicodeBoundaries(translated);
  const uniLine = uni ? compileRe2(uni.source, flags) : null;
  // \A and \z mean the start/end of a LINE here; a multi-line test cannot stand in for those.
  const wholeTextOk = !/(^|[^\\])(\\\\)*\\[Az]/.test(pattern);
  // (A segment test must never reject a line the line test accepts: without the boundaries.)
  const multi = wholeTextOk ? compileRe2(uni ? withoutBoundaries(translated) : translated, flags | RE2JS.MULTILINE) : null;
  const testLine = uniLine ? (l: string): boolean => (NON_ASCII_RE.test(l) ? uniLine : line).test(l) : (l: string): boolean => line.test(l);
  const trigrams = regexTrigrams(pattern, ignoreCase || /\(\?[a-zA-Z]*i/.test(pattern));
  // Candidate lines by a literal scan: every matching line holds one of these strings (the
  // regex's most selective required literals, else one required trigram per AND). A pure
  // escaped-literal alternation cannot backtrack catastrophically.
  const lits = regexLiterals(pattern, ignoreCase);
  const anyOf = lits ? null : anyOfTrigrams(trigrams);
  const finder = lits
    ? new RegExp(lits.strings.map(escapeRegExp).join('|'), lits.fold ? 'gi' : 'g')
    : anyOf ? new RegExp(anyOf.map(escapeRegExp).join('|'), 'gi') : null;
  // Without literals: bisect. A segment (whole lines) the multi-line DFA rejects has no
  // matching line (its matches may over-report — \s or [^x] can cross a line break — but
  // never under-report); when both halves of a matching segment match, the region is dense
  // and is decided line by line.
  const bisect = (text: string, from: number, to: number, visit: (s: number, e: number) => void): void => {
    if (to - from <= LINE_SEGMENT_CHARS || !multi) return visitEachLine(text, from, to, testLine, visit);
    let mid = text.indexOf('\n', from + ((to - from) >> 1));
    if (mid < 0 || mid >= to) mid = text.lastIndexOf('\n', from + ((to - from) >> 1));
    if (mid < from) return visitEachLine(text, from, to, testLine, visit);
    const left = multi.test(text.slice(from, mid));
    const right = multi.test(text.slice(mid + 1, to));
    if (left && right) {
      visitEachLine(text, from, mid, testLine, visit);
      visitEachLine(text, mid + 1, to, testLine, visit);
      return;
    }
    if (left) bisect(text, from, mid, visit);
    if (right) bisect(text, mid + 1, to, visit);
  };
  return {
    ...prefilterOf(trigrams),
    testLine,
    ranges(text) {
      const own = uniLine && uni && NON_ASCII_RE.test(text);
      const m = (own ? uniLine : line).matcher(text);
      const out: GrepRange[] = [];
      let from = 0;
      while (from <= text.length && m.find(from)) {
        let s = m.start();
        let e = m.end();
        // The alternative's own match, without the character a rewritten \b consumed.
        if (own) {
          const g = uni.groups.find((k) => m.start(k) >= 0);
          if (g !== undefined) [s, e] = [m.start(g), m.end(g)];
        }
        if (e > s) out.push({ start: s, end: e });
        from = e > s ? e : e + 1;
      }
      return out;
    },
    visitLines(text, visit) {
      if (text.length === 0) return;
      if (finder) {
        visitHits(text, (from) => {
          finder.lastIndex = from;
          const m = finder.exec(text);
          return m ? m.index : -1;
        }, visit, testLine);
        return;
      }
      // A text ending in '\n' has no line after it.
      const to = text.endsWith('\n') ? text.length - 1 : text.length;
      if (multi && !multi.test(text)) return;
      bisect(text, 0, to, visit);
    },
  };
}

/** A matcher's prefilter fields: TRUE (no trigram required) is null. */
function prefilterOf(q: TrigramQuery): Pick<LineMatcher, 'trigrams' | 'prefilter'> {
  return q.op === 'true' ? { trigrams: null, prefilter: null } : { trigrams: q, prefilter: formatTrigramQuery(q) };
}


/**
 * Visit each line holding a hit of `next(from)` (the next hit's offset at or after `from`, or
 * -1) and, when given, accepted by `test` (the hit is then only a candidate).
 */
function visitHits(text: string, next: (from: number) => number, visit: (s: number, e: number) => void, test?: (line: string) => boolean): void {
  let pos = 0;
  while (pos < text.length) {
    const at = next(pos);
    if (at < 0) return;
    const s = text.lastIndexOf('\n', at - 1) + 1;
    let e = text.indexOf('\n', at);
    if (e < 0) e = text.length;
    if (!test || test(text.slice(s, e))) visit(s, e);
    pos = e + 1;
  }
}

function compileLiteral(literal: string, ignoreCase: boolean): LineMatcher {
  refuseNewline(literal, 'exact');
  const prefilter = prefilterOf(literalTrigrams(literal, ignoreCase));
  if (literal === '') {
    return {
      trigrams: null,
      prefilter: null,
      testLine: () => true,
      ranges: () => [],
      visitLines: (text, visit) => {
        if (text.length) visitEachLine(text, 0, text.endsWith('\n') ? text.length - 1 : text.length, () => true, visit);
      },
    };
  }
  if (!ignoreCase) {
    return {
      ...prefilter,
      testLine: (l) => l.includes(literal),
      ranges(text) {
        const out: GrepRange[] = [];
        for (let i = text.indexOf(literal); i >= 0; i = text.indexOf(literal, i + literal.length)) out.push({ start: i, end: i + literal.length });
        return out;
      },
      visitLines: (text, visit) => visitHits(text, (from) => text.indexOf(literal, from), visit),
    };
  }
  // Unicode simple case folding, as ripgrep's -i: /iu. A pure escaped literal cannot backtrack.
  const source = escapeRegExp(literal);
  const g = new RegExp(source, 'giu');
  const one = new RegExp(source, 'iu');
  return {
    ...prefilter,
    testLine: (l) => one.test(l),
    ranges(text) {
      g.lastIndex = 0;
      const out: GrepRange[] = [];
      let m: RegExpExecArray | null;
      while ((m = g.exec(text)) !== null) out.push({ start: m.index, end: m.index + m[0].length });
      return out;
    },
    visitLines: (text, visit) => visitHits(text, (from) => {
      g.lastIndex = from;
      const m = g.exec(text);
      return m ? m.index : -1;
    }, visit),
  };
}

/** Compile a pattern; rejects with GrepPatternError (with what and where) for a bad one. */
export async function compileGrep(pattern: string, mode: GrepMode, ignoreCase = false): Promise<LineMatcher> {
  return mode === 'exact' ? compileLiteral(pattern, ignoreCase) : compileRegex(pattern, ignoreCase, await loadRegexEngine());
}

// ---- search --------------------------------------------------------------------------

/**
 * Every matching line of one text, in order: `onLine(lineNo, start, end)` with the line's
 * 1-based number and its span (without `\n`). Returns the number of matching lines.
 */
export function grepText(text: string, m: LineMatcher, onLine: (line: number, start: number, end: number) => void): number {
  let count = 0;
  let lineNo = 1;
  let counted = 0; // lines before offset `counted` are counted in lineNo
  m.visitLines(text, (s, e) => {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < s; i = text.indexOf('\n', i + 1)) lineNo++;
    counted = s;
    count++;
    onLine(lineNo, s, e);
  });
  return count;
}

/** One result line: `content` without a trailing '\r', ranges clipped to it. */
export function lineResult(text: string, s: number, e: number, m: LineMatcher): { content: string; matches: GrepRange[] } {
  const raw = text.slice(s, e);
  const content = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  const matches = m.ranges(raw).flatMap((r) => (r.start < content.length ? [{ start: r.start, end: Math.min(r.end, content.length) }] : []));
  return { content, matches };
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new DOMException('Cancelled', 'AbortError');
}

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * File texts kept between searches (a CLI `--stdin` session, the store worker), keyed by
 * file_text id AND the file's content hash, so a re-indexed file is never served stale;
 * least recently used texts go first past `maxChars`. Files without a hash are not kept.
 */
export class TextCache {
  #map = new Map<number, { hash: string; text: string }>();
  #chars = 0;
  constructor(readonly maxChars: number) {}

  get(id: number, hash: string): string | undefined {
    const e = this.#map.get(id);
    if (!e || !hash || e.hash !== hash) return undefined;
    this.#map.delete(id);
    this.#map.set(id, e); // most recently used last
    return e.text;
  }

  put(id: number, hash: string, text: string): void {
    const old = this.#map.get(id);
    if (old) {
      this.#map.delete(id);
      this.#chars -= old.text.length;
    }
    if (!hash || text.length > this.maxChars) return;
    this.#map.set(id, { hash, text });
    this.#chars += text.length;
    for (const [k, v] of this.#map) {
      if (this.#chars <= this.maxChars) break;
      this.#map.delete(k);
      this.#chars -= v.text.length;
    }
  }

  get chars(): number {
    return this.#chars;
  }
}

/**
 * Characters of file text the CLI keeps between `--stdin` queries and the store worker per
 * codebase: the kernel subset's 168 MB fits, so repeated scans skip SQLite entirely.
 */
export const DEFAULT_TEXT_CACHE_CHARS = 256 * 1024 * 1024;

/** An exact pattern written as a regex: an escape (`\\(`, `\\.`, `\\w`), `.*` / `.+`, or an anchor. */
const REGEX_SHAPED = /\\[^A-Za-z0-9\s]|\\[wWsSdDbB]|\.[*+]|^\^|\$$/;

/** Counts of a regex reading of an exact pattern (grepAsRegex). */
export interface AsRegex {
  totalMatches: number;
  filesMatched: number;
  /** False when the scan stopped at the first match (stopAtLimit): the counts are lower bounds. */
  exhaustive: boolean;
}

/**
 * What an exact grep that found nothing finds when its pattern, written as a regex, is read
 * as one (people and agents used to ripgrep write `func Open\\(`): the counts, or null when
 * the pattern does not look like a regex, is not valid RE2 or matches nothing either. Every
 * surface that answers an exact grep (app, CLI, tools) offers it the same way.
 */
export async function grepAsRegex(store: GrepStore, req: GrepRequest, opts: { signal?: AbortSignal; cache?: TextCache } = {}): Promise<AsRegex | null> {
  if (req.mode !== 'exact' || !REGEX_SHAPED.test(req.pattern)) return null;
  try {
    const r = await grep(store, { ...req, mode: 'regex', limit: 1 }, opts);
    return r.totalMatches > 0 ? { totalMatches: r.totalMatches, filesMatched: r.filesMatched, exhaustive: r.exhaustive } : null;
  } catch (e) {
    if (e instanceof GrepPatternError) return null;
    throw e;
  }
}

/** Two codebases' regex readings as one (null when neither matched). */
export function addAsRegex(a: AsRegex | null, b: AsRegex | null): AsRegex | null {
  if (!a || !b) return a ?? b;
  return { totalMatches: a.totalMatches + b.totalMatches, filesMatched: a.filesMatched + b.filesMatched, exhaustive: a.exhaustive && b.exhaustive };
}

/**
 * The regex reading's counts in words, with how the caller asks for regex mode: "as a regex
 * (--mode regex) it matches 3 lines in 2 files"; null when there is nothing to say.
 */
export function asRegexText(r: AsRegex | null, how: string): string | null {
  if (!r) return null;
  const n = (k: number, w: string) => `${r.exhaustive ? '' : 'at least '}${k.toLocaleString('en-US')} ${w}${k === 1 ? '' : 's'}`;
  return `as a regex (${how}) it matches ${n(r.totalMatches, 'line')} in ${n(r.filesMatched, 'file')}`;
}

/**
 * Search the store's file texts. `onLines` receives returned lines as they are found (in
 * order), so a caller can stream them; the response holds them all too.
 */
export async function grep(
  store: GrepStore,
  req: GrepRequest,
  opts: { signal?: AbortSignal; onLines?: (lines: GrepLine[]) => void; cache?: TextCache } = {},
): Promise<GrepResponse> {
  const t0 = now();
  const ignoreCase = !!req.ignoreCase;
  const limit = Math.max(1, Math.min(MAX_GREP_LIMIT, Math.floor(req.limit ?? DEFAULT_GREP_LIMIT)));
  const matcher = await compileGrep(req.pattern, req.mode, ignoreCase);
  const glob = req.path ? compilePathGlob(req.path) : null;

  const tp = now();
  let files = await store.grepFiles(matcher.trigrams);
  const prefilterMs = now() - tp;
  if (glob) files = files.filter((f) => glob.test(f.path));
  if (req.languages?.length) {
    const langs = new Set(req.languages);
    files = files.filter((f) => langs.has(f.language));
  }

  const results: GrepLine[] = [];
  let total = 0;
  let filesMatched = 0;
  let exhaustive = true;
  const ts = now();
  for (let b = 0; b < files.length; b += TEXT_BATCH_FILES) {
    throwIfAborted(opts.signal);
    if (req.stopAtLimit && results.length >= limit) {
      exhaustive = false;
      break;
    }
    const batch = files.slice(b, b + TEXT_BATCH_FILES);
    const cache = opts.cache;
    const texts = await store.fileTextsById(cache ? batch.filter((f) => cache.get(f.id, f.hash) === undefined).map((f) => f.id) : batch.map((f) => f.id));
    const fresh: GrepLine[] = [];
    for (const f of batch) {
      let text = texts.get(f.id);
      if (text !== undefined) cache?.put(f.id, f.hash, text);
      else text = cache?.get(f.id, f.hash);
      if (text === undefined) continue;
      const n = grepText(text, matcher, (line, s, e) => {
        if (results.length + fresh.length < limit) fresh.push({ path: f.path, language: f.language, line, ...lineResult(text, s, e, matcher) });
      });
      if (n > 0) filesMatched++;
      total += n;
    }
    if (fresh.length) {
      results.push(...fresh);
      opts.onLines?.(fresh);
    }
  }
  const scanMs = now() - ts;
  return {
    pattern: req.pattern,
    mode: req.mode,
    ignoreCase,
    results,
    totalMatches: total,
    truncated: total > results.length || !exhaustive,
    exhaustive,
    filesSearched: files.length,
    filesMatched,
    filesIndexed: await store.fileTextCount(),
    prefilter: matcher.prefilter,
    timings: { prefilter: prefilterMs, scan: scanMs, total: now() - t0 },
  };
}
