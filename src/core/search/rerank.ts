/**
 * Second stage of the BM25 leg: re-scores the top FTS5 candidates in JS with signals BM25
 * over an OR query cannot see.
 *
 * Signals (each named, each explainable, all in [0, 1] before weighting):
 * - bm25: the FTS5 score divided by the best candidate's, so weights mean the same for
 *   every query.
 * - name: how well the chunk's symbol matches the query words — the share of the symbol's
 *   identifier parts that a query word names (`dec` ← "decrement", `cpu` ← "CPU") times the
 *   share of query words the symbol covers, so `idle_cpu` beats `rcu_is_idle_cpu` for
 *   "is a given CPU idle". Unsplittable names (`ismaclabel`) count query words found inside.
 * - coverage: the share of distinct query words present anywhere in the chunk (content,
 *   symbol, path; identifier parts and light stems included). Weight 0 by default: on the
 *   eval sets it cost kernel and Go more than it gave JS (bench/eval/tune.ts --w 1,1,0.2,1).
 * - exact: the symbol is an identifier written in a prose query — a strong signal, not an
 *   override ("enable lines disabled by suspend_device_irqs()" wants the neighbour).
 *
 * Invariants: pure (no store access), deterministic, never reorders when there is one
 * candidate; a term matches a chunk word the way FTS5 matched it (equal, or a prefix for
 * terms of PREFIX_MIN_CHARS+), plus stems and abbreviations.
 */
import { iForms, isIForm, lightStem } from '../text/word-forms.ts';
import { splitIdentifier } from '../text/identifiers.ts';
import { MIN_ABBREV_CHARS, MIN_INFIX_CHARS, MIN_SIGNAL_TERM_CHARS, RERANK_WEIGHTS as CONFIG_RERANK_WEIGHTS } from '../config.ts';

export interface RerankWeights {
  bm25: number;
  name: number;
  coverage: number;
  exact: number;
}

/**
 * Signal weights: score = Σ signal·weight (file kinds are weighed later, signals.ts).
 * Tuned with bench/eval/tune.ts on half of each eval set (the other half held out).
 */
export const RERANK_WEIGHTS: Readonly<RerankWeights> = CONFIG_RERANK_WEIGHTS;
export { MIN_ABBREV_CHARS, MIN_INFIX_CHARS, MIN_SIGNAL_TERM_CHARS };
export interface RerankCandidate {
  id: number;
  /** FTS5 score, higher is better (−bm25). */
  score: number;
  symbol: string | null;
  parent: string | null;
  path: string;
  content: string;
  /** The symbol is an identifier written in the query (`suspend_device_irqs()`, Go's `Foo returns…`). */
  exact?: boolean;
}

export interface RerankSignals {
  bm25: number;
  name: number;
  coverage: number;
  exact: number;
}

export interface Reranked {
  id: number;
  score: number;
  signals: RerankSignals;
}

const WORD_RE = /[\p{L}\p{N}\p{M}]+/gu;

/** Does query term `t` (lower-case) name chunk word `w` (lower-case)? */
function termMatchesWord(t: string, stem: string, w: string): boolean {
  if (w === t) return true;
  if (w.length >= stem.length && w.startsWith(stem)) return true; // prefix / stem: "alloc" → allocate
  return isIForm(w, stem); // the final y written i: "proxy" → proxies (text/word-forms.ts)
}

/** Does query term `t` name symbol part `p` (whose light stem is `pStem`)? Adds the abbreviation direction: `dec` ← decrement. */
function termMatchesPart(t: string, stem: string, p: string, pStem: string): boolean {
  return termMatchesWord(t, stem, p) || (p.length >= MIN_ABBREV_CHARS && t.startsWith(p)) || pStem === stem;
}

/** All lower-case words and identifier parts of `text`. */
function wordSet(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(WORD_RE)) {
    const w = m[0];
    out.add(w.toLowerCase());
    if (/\p{Lu}/u.test(w) && /\p{Ll}/u.test(w)) for (const p of splitIdentifier(w)) out.add(p);
  }
  return out;
}

/** Symbols whose parts symbolParts keeps (a pure function of the symbol: nothing to invalidate); then it starts over. */
const SYMBOL_PARTS_KEPT = 50_000;
const symbolPartsKept = new Map<string, { parts: string[]; stems: string[] }>();

/** A symbol's distinct identifier parts (lower-case) and their light stems, kept per symbol. */
function symbolParts(symbol: string): { parts: string[]; stems: string[] } {
  let got = symbolPartsKept.get(symbol);
  if (!got) {
    if (symbolPartsKept.size >= SYMBOL_PARTS_KEPT) symbolPartsKept.clear();
    const parts = [...new Set(symbol.split(/[^\p{L}\p{N}\p{M}]+/u).flatMap(splitIdentifier))].filter(Boolean);
    got = { parts, stems: parts.map(lightStem) };
    symbolPartsKept.set(symbol, got);
  }
  return got;
}

/**
 * Does symbol part `part` (light stem `partStem`) name query term `term` (stem `stem`): by
 * termMatchesPart, or the term inside a longer part (an infix of MIN_INFIX_CHARS or more).
 * The one rule of the `name` signal and of symbolTermMask.
 */
function partNamesTerm(term: string, stem: string, part: string, partStem: string): boolean {
  return termMatchesPart(term, stem, part, partStem) || (part.length > term.length && term.length >= MIN_INFIX_CHARS && part.includes(term));
}

function nameSignal(symbol: string | null, terms: string[], stems: string[], words: ReadonlySet<string>): number {
  if (!symbol || !terms.length) return 0;
  const { parts, stems: partStems } = symbolParts(symbol);
  if (!parts.length) return 0;
  const termHit = new Array<boolean>(terms.length).fill(false);
  let partHits = 0;
  for (let j = 0; j < parts.length; j++) {
    const p = parts[j];
    let hit = words.has(p); // `is`, `if`: stop words name parts too (`idle_cpu` vs `rcu_is_idle_cpu`)
    for (let i = 0; i < terms.length; i++) {
      if (partNamesTerm(terms[i], stems[i], p, partStems[j])) {
        hit = true;
        termHit[i] = true;
      }
    }
    if (hit) partHits++;
  }
  const termShare = termHit.filter(Boolean).length / terms.length;
  return (partHits / parts.length) * termShare;
}

/**
 * The query terms (bit i for terms[i], at most 31) that name a part of `symbol`, by the same
 * matching as the `name` signal (partNamesTerm).
 */
export function symbolTermMask(symbol: string | null, terms: readonly string[], stems: readonly string[]): number {
  if (!symbol) return 0;
  const { parts, stems: partStems } = symbolParts(symbol);
  let mask = 0;
  for (let j = 0; j < parts.length; j++) {
    const p = parts[j];
    for (let i = 0; i < terms.length && i < 31; i++) {
      if (partNamesTerm(terms[i], stems[i], p, partStems[j])) mask |= 1 << i;
    }
  }
  return mask;
}

/** A term with a character outside ASCII (lower-case text may not hold it where the text does). */
const NON_ASCII_RE = /[\u0080-\uffff]/;
const UPPER_RE = /\p{Lu}/u;
const LETTER_RE = /[\p{L}\p{M}]/u;
const DIGIT_RE = /\p{N}/u;

/** ASCII character classes for partStart: 1 lower-case letter, 2 upper-case, 3 digit, 0 anything else. */
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_CLASS[c] = /[a-z]/.test(ch) ? 1 : /[A-Z]/.test(ch) ? 2 : /[0-9]/.test(ch) ? 3 : 0;
}

/** partStart's class of the character at `i` (undefined past the end: 0). */
function charClass(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (!(code >= 0)) return 0;
  if (code < 128) return ASCII_CLASS[code];
  const ch = text[i];
  return UPPER_RE.test(ch) ? 2 : LETTER_RE.test(ch) ? 1 : DIGIT_RE.test(ch) ? 3 : 0;
}

/**
 * Does a word or an identifier part of `text` start at `i`: the start of a run of letters
 * and digits, an upper-case letter after a lower-case one (`getUser`), the last capital of a
 * run before lower-case (`HTTPServer`), or where letters and digits meet (`utf8Decode`).
 */
function partStart(text: string, i: number): boolean {
  if (i === 0) return true;
  const p = charClass(text, i - 1);
  const c = charClass(text, i);
  if (p === 0) return true;
  if (c === 2) return p === 1 || p === 3 || (p === 2 && charClass(text, i + 1) === 1);
  return (p === 3) !== (c === 3);
}

/**
 * Which of the query's terms (by index) are present anywhere in the candidate: its content,
 * symbol, parent and path, as a bit mask (terms past the 31st are not counted). A term is
 * present when a word or identifier part starts with its light stem (`allocat` ← "allocates":
 * `allocator`, `AllocateBuffer`), as termMatchesWord. The lower-cased text is searched for
 * each stem with indexOf (no word list: cover reads long pieces); a term outside ASCII in text
 * whose lower case changes its length is looked for word by word.
 */
export function termMask(c: Pick<RerankCandidate, 'symbol' | 'parent' | 'path' | 'content'>, terms: readonly string[], stems: readonly string[]): number {
  const text = `${c.symbol ?? ''} ${c.parent ?? ''} ${c.path} ${c.content}`;
  let lower = text.toLowerCase();
  // Lower case that moved characters (`İ`): lower only ASCII, so indexes stay the text's.
  const aligned = lower.length === text.length;
  if (!aligned) lower = text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  let mask = 0;
  let words: Set<string> | null = null;
  for (let i = 0; i < terms.length && i < 31; i++) {
    const s = stems[i];
    if (!s) continue;
    if (!aligned && NON_ASCII_RE.test(s)) {
      words ??= wordSet(text);
      for (const w of words) {
        if (termMatchesWord(terms[i], s, w)) {
          mask |= 1 << i;
          break;
        }
      }
      continue;
    }
    if (holdsAtPartStart(text, lower, s) || iForms(s).some((f) => holdsAtPartStart(text, lower, f))) mask |= 1 << i;
  }
  return mask;
}

/** Does `lower` (`text` lower-cased, same indexes) hold `s` at the start of a word or identifier part? */
function holdsAtPartStart(text: string, lower: string, s: string): boolean {
  for (let at = lower.indexOf(s); at >= 0; at = lower.indexOf(s, at + 1)) if (partStart(text, at)) return true;
  return false;
}

/** Bits set in a term mask. */
export function maskCount(mask: number): number {
  let n = 0;
  for (let m = mask; m; m &= m - 1) n++;
  return n;
}

/** The rerank's terms for `terms`: long enough for the signals, no phrases, each once. */
export function signalTerms(terms: readonly string[]): string[] {
  return [...new Set(terms.filter((t) => t.length >= MIN_SIGNAL_TERM_CHARS && !t.includes(' ')))];
}

function coverageSignal(c: RerankCandidate, terms: string[], stems: string[]): number {
  if (!terms.length) return 0;
  return maskCount(termMask(c, terms, stems)) / Math.min(terms.length, 31);
}

/**
 * Re-score candidates for query `terms` (ProcessedQuery.terms: stop words removed); `words`
 * (ProcessedQuery.words) may also name symbol parts but do not count as query words.
 * Returns all candidates, best first; ties keep the FTS order.
 */
export function rerank(
  candidates: readonly RerankCandidate[],
  terms: readonly string[],
  w: RerankWeights = RERANK_WEIGHTS,
  words: readonly string[] = terms,
): Reranked[] {
  const wordSetQ = new Set(words);
  const ts = signalTerms(terms);
  const stems = ts.map(lightStem);
  const best = Math.max(0, ...candidates.map((c) => c.score));
  const out = candidates.map((c, order) => {
    const signals: RerankSignals = {
      bm25: best > 0 ? Math.max(0, c.score) / best : 0,
      name: nameSignal(c.symbol, ts, stems, wordSetQ),
      coverage: w.coverage ? coverageSignal(c, ts, stems) : 0,
      exact: c.exact ? 1 : 0,
    };
    const sum = signals.bm25 * w.bm25 + signals.name * w.name + signals.coverage * w.coverage + signals.exact * w.exact;
    return { id: c.id, score: sum, signals, order };
  });
  out.sort((a, b) => b.score - a.score || a.order - b.order);
  return out.map(({ id, score, signals }) => ({ id, score, signals }));
}
