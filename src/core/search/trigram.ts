/**
 * Required-trigram extraction for exact and regex search (after Russ Cox, "Regular
 * Expression Matching with a Trigram Index"): turn a literal or an RE2 pattern into a boolean
 * query over trigrams that every matching FILE must contain, for Sift's trigram index
 * (store/trigram-index.ts; keys from text/trigram-keys.ts).
 *
 * Invariant (soundness): if any line of a text matches the pattern, the text satisfies the
 * query. The query may be weaker than the pattern (false candidates are re-checked by the
 * matcher in grep.ts); it must never be stronger. So every construct this parser does not
 * fully understand becomes ANY (matches anything, maybe empty), which only weakens the query.
 * A trigram is three code points; none holds `\n` (a line break is ANY), so none spans lines.
 *
 * Case: the index folds ASCII A–Z to a–z and nothing else, so trigrams are passed through
 * unfolded and the key function folds the query the same way as the text; a case-sensitive
 * query is then a superset test. With case-insensitive matching, the regex engine's Unicode
 * folding reaches beyond that: a character whose case orbit leaves ASCII (k → U+212A KELVIN
 * SIGN, s → U+017F LONG S) or any non-ASCII character (its other cases are not folded in the
 * index) is treated as ANY. Every other ASCII letter's orbit is exactly its two ASCII cases,
 * which the index folds together.
 *
 * The caller validates the pattern with the regex engine first; this parser assumes RE2
 * syntax is valid and only needs to find its structure.
 */
import type { TrigramQuery } from '../text/trigram-keys.ts';

export type { TrigramQuery };

/** Largest finite set of strings kept exact before it is turned into a trigram query. */
export const MAX_EXACT_SET = 16;
/** Trigrams ANDed per literal string: more add little selectivity and cost query time. */
export const MAX_TRIGRAMS_PER_STRING = 12;

const TRUE: TrigramQuery = { op: 'true' };

/** What a sub-pattern can match: a small exact set of strings, or only a required-trigram query. */
interface Info {
  /** Every string the node can match (code-point strings), or null when unknown/too many. */
  exact: string[] | null;
  /** Trigrams required of any text containing a match (used when exact is null). */
  match: TrigramQuery;
  /** Non-empty strings one of which every match contains (used when exact is null), or null. */
  lits?: string[] | null;
}

/** Most strings kept in a `lits` set (a longer alternation is not worth scanning for). */
export const MAX_LITERALS = 64;

/** `i`'s strings one of which every match contains, or null. */
function litsOf(i: Info): string[] | null {
  if (i.exact) return i.exact.every((x) => x.length > 0) ? i.exact : null;
  return i.lits ?? null;
}

/** The more selective of two literal sets: longer shortest string, then fewer strings. */
function betterLits(a: string[] | null, b: string[] | null): string[] | null {
  if (!a) return b;
  if (!b) return a;
  const min = (x: string[]) => Math.min(...x.map((y) => y.length));
  if (min(a) !== min(b)) return min(a) > min(b) ? a : b;
  return a.length <= b.length ? a : b;
}

const cps = (s: string): string[] => Array.from(s);

function and(parts: TrigramQuery[]): TrigramQuery {
  const flat: TrigramQuery[] = [];
  const seen = new Set<string>();
  for (const p of parts) {
    if (p.op === 'true') continue;
    for (const q of p.op === 'all' ? p.parts : [p]) {
      const key = JSON.stringify(q);
      if (!seen.has(key)) {
        seen.add(key);
        flat.push(q);
      }
    }
  }
  if (flat.length === 0) return TRUE;
  return flat.length === 1 ? flat[0]! : { op: 'all', parts: flat };
}

function or(parts: TrigramQuery[]): TrigramQuery {
  if (parts.length === 0) return TRUE;
  if (parts.some((p) => p.op === 'true')) return TRUE;
  const flat = parts.flatMap((p) => (p.op === 'any' ? p.parts : [p]));
  return flat.length === 1 ? flat[0]! : { op: 'any', parts: flat };
}

/** AND of (up to MAX_TRIGRAMS_PER_STRING, spread out) trigrams of one string; TRUE if shorter than 3. */
export function stringQuery(s: string): TrigramQuery {
  const c = cps(s);
  if (c.length < 3) return TRUE;
  const all: string[] = [];
  for (let i = 0; i + 3 <= c.length; i++) all.push(c[i]! + c[i + 1]! + c[i + 2]!);
  let pick = all;
  if (all.length > MAX_TRIGRAMS_PER_STRING) {
    pick = [];
    for (let k = 0; k < MAX_TRIGRAMS_PER_STRING; k++) pick.push(all[Math.round((k * (all.length - 1)) / (MAX_TRIGRAMS_PER_STRING - 1))]!);
  }
  return and(pick.map((t) => ({ op: 'tri', t })));
}

function setQuery(set: string[]): TrigramQuery {
  return or(set.map(stringQuery));
}

const toMatch = (i: Info): TrigramQuery => (i.exact ? setQuery(i.exact) : i.match);
const ANY: Info = { exact: null, match: TRUE };
const EMPTY: Info = { exact: [''], match: TRUE };

function concat(a: Info, b: Info): Info {
  if (a.exact && b.exact && a.exact.length * b.exact.length <= MAX_EXACT_SET) {
    const out = new Set<string>();
    for (const x of a.exact) for (const y of b.exact) out.add(x + y);
    return { exact: [...out], match: TRUE };
  }
  return { exact: null, match: and([toMatch(a), toMatch(b)]), lits: betterLits(litsOf(a), litsOf(b)) };
}

function alternate(a: Info, b: Info): Info {
  if (a.exact && b.exact && new Set([...a.exact, ...b.exact]).size <= MAX_EXACT_SET) {
    return { exact: [...new Set([...a.exact, ...b.exact])], match: TRUE };
  }
  const la = litsOf(a);
  const lb = litsOf(b);
  const lits = la && lb ? [...new Set([...la, ...lb])] : null;
  return { exact: null, match: or([toMatch(a), toMatch(b)]), lits: lits && lits.length <= MAX_LITERALS ? lits : null };
}

/** Characters a class or literal may stand for, under case folding when `fold`; null = too many/unknown. */
function charInfo(chars: string[] | null, fold: boolean): Info {
  if (!chars) return ANY;
  const out = new Set<string>();
  for (const c of chars) {
    if (c === '\n' || c === '\0') return ANY;
    if (fold) {
      if (c.length !== 1 || c.charCodeAt(0) > 0x7f || /[ks]/i.test(c)) return ANY;
      out.add(c.toLowerCase()); // the index folds ASCII the same way; one representative suffices
    } else out.add(c);
  }
  if (out.size === 0 || out.size > MAX_EXACT_SET) return ANY;
  return { exact: [...out], match: TRUE };
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', f: '\f', t: '\t', n: '\n', r: '\r', v: '\v' };

class Parser {
  private i = 0;
  private readonly c: string[];
  constructor(pattern: string, private fold: boolean) {
    this.c = cps(pattern);
  }

  parse(): Info {
    const info = this.alternation();
    return info;
  }

  private peek(k = 0): string | undefined {
    return this.c[this.i + k];
  }

  private alternation(): Info {
    let acc = this.sequence();
    while (this.peek() === '|') {
      this.i++;
      acc = alternate(acc, this.sequence());
    }
    return acc;
  }

  /**
   * A concatenation: runs of exact atoms are multiplied out into one exact set (`run`); an
   * inexact atom (or a run grown past MAX_EXACT_SET) ends the run, whose trigrams join the
   * required parts, and a new run starts after it.
   */
  private sequence(): Info {
    const parts: TrigramQuery[] = [];
    let run: string[] = [''];
    let exactSoFar = true;
    let lits: string[] | null = null;
    const flush = (): void => {
      parts.push(setQuery(run));
      lits = betterLits(lits, run.every((x) => x.length > 0) ? run : null);
      run = [''];
      exactSoFar = false;
    };
    while (this.i < this.c.length && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      if (atom === null) continue; // a flag group like (?i): changed state, matched nothing
      const q = this.quantified(atom);
      if (q.exact) {
        if (run.length * q.exact.length > MAX_EXACT_SET) {
          flush();
          run = q.exact;
        } else {
          const next = new Set<string>();
          for (const x of run) for (const y of q.exact) next.add(x + y);
          run = [...next];
        }
      } else {
        flush();
        parts.push(q.match);
        lits = betterLits(lits, q.lits ?? null);
      }
    }
    if (exactSoFar) return { exact: run, match: TRUE };
    flush();
    return { exact: null, match: and(parts), lits };
  }

  /** A group's body: flags set inside it (?i) last until its end, across `|` (as in RE2). */
  private groupBody(fold: boolean): Info {
    const saved = this.fold;
    this.fold = fold;
    const inner = this.alternation();
    this.fold = saved;
    this.i++; // ')'
    return inner;
  }

  /** Apply any repetition operators that follow an atom. */
  private quantified(atom: Info): Info {
    let info = atom;
    for (;;) {
      const ch = this.peek();
      if (ch === '*' || ch === '?') {
        this.i++;
        info = ANY;
      } else if (ch === '+') {
        this.i++;
        info = { exact: null, match: toMatch(info), lits: litsOf(info) };
      } else if (ch === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.c.slice(this.i, this.i + 24).join(''));
        if (!m) return info; // a literal '{' (RE2 treats a malformed repeat as literal) is read as the next atom
        this.i += cps(m[0]).length;
        const min = Number(m[1]);
        info = min === 0 ? ANY : { exact: null, match: toMatch(info), lits: litsOf(info) };
      } else return info;
      if (this.peek() === '?') this.i++; // non-greedy
    }
  }

  private atom(): Info | null {
    const ch = this.c[this.i++]!;
    switch (ch) {
      case '(': return this.group();
      case '[': return this.charClass();
      case '.': return ANY;
      case '^': case '$': return EMPTY;
      case '\\': return this.escape(false) as Info;
      default: return charInfo([ch], this.fold);
    }
  }

  private group(): Info | null {
    if (this.peek() === '?') {
      this.i++;
      if (this.peek() === 'P' || this.peek() === '<') {
        while (this.i < this.c.length && this.c[this.i] !== '>') this.i++;
        this.i++;
      } else {
        // Flags: (?flags) or (?flags:...)
        let flags = '';
        while (this.i < this.c.length && this.peek() !== ')' && this.peek() !== ':') flags += this.c[this.i++];
        const on = flags.split('-')[0] ?? '';
        const off = flags.split('-')[1] ?? '';
        const fold = on.includes('i') ? true : off.includes('i') ? false : this.fold;
        if (this.peek() === ')') {
          this.i++;
          this.fold = fold;
          return null;
        }
        this.i++; // ':'
        return this.groupBody(fold);
      }
    }
    return this.groupBody(this.fold);
  }

  /** An escape outside a class: a literal char, or a class/assertion (ANY/EMPTY). In a class: the char or null. */
  private escape(inClass: boolean): Info | string | null {
    const ch = this.c[this.i++];
    if (ch === undefined) return inClass ? null : ANY;
    if (ch === 'Q') {
      // \Q...\E literal text
      let lit = '';
      while (this.i < this.c.length && !(this.c[this.i] === '\\' && this.c[this.i + 1] === 'E')) lit += this.c[this.i++];
      if (this.i < this.c.length) this.i += 2;
      let acc: Info = EMPTY;
      for (const c of cps(lit)) acc = concat(acc, charInfo([c], this.fold));
      return inClass ? null : acc;
    }
    if (ch === 'x') {
      let hex = '';
      if (this.peek() === '{') {
        this.i++;
        while (this.i < this.c.length && this.c[this.i] !== '}') hex += this.c[this.i++];
        this.i++;
      } else {
        hex = (this.c[this.i] ?? '') + (this.c[this.i + 1] ?? '');
        this.i += 2;
      }
      const cp = parseInt(hex, 16);
      const c = Number.isFinite(cp) && cp <= 0x10ffff ? String.fromCodePoint(cp) : null;
      if (inClass) return c;
      return c === null ? ANY : charInfo([c], this.fold);
    }
    if (ch === 'p' || ch === 'P') {
      if (this.peek() === '{') {
        while (this.i < this.c.length && this.c[this.i] !== '}') this.i++;
        this.i++;
      } else this.i++;
      return inClass ? null : ANY;
    }
    if (/[0-7]/.test(ch)) {
      // octal \0, \012 (RE2 accepts \0 plus up to two more octal digits, or \1-\7 with digits)
      let oct = ch;
      while (oct.length < 3 && /[0-7]/.test(this.peek() ?? '')) oct += this.c[this.i++];
      const c = String.fromCodePoint(parseInt(oct, 8));
      if (inClass) return c;
      return charInfo([c], this.fold);
    }
    if (ch in SIMPLE_ESCAPES) {
      const c = SIMPLE_ESCAPES[ch]!;
      return inClass ? c : charInfo([c], this.fold);
    }
    if (/[A-Za-z]/.test(ch)) {
      // \d \w \s \D \W \S (classes), \b \B \A \z (assertions), anything else unknown
      if (inClass) return null;
      return /[bBAz]/.test(ch) ? EMPTY : ANY;
    }
    // escaped punctuation: the character itself
    return inClass ? ch : charInfo([ch], this.fold);
  }

  private charClass(): Info {
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.i++;
    }
    const chars: string[] = [];
    let unknown = false;
    let first = true;
    while (this.i < this.c.length) {
      const ch = this.c[this.i]!;
      if (ch === ']' && !first) {
        this.i++;
        break;
      }
      first = false;
      let lo: string | null;
      if (ch === '[' && this.peek(1) === ':') {
        const end = this.c.indexOf(']', this.i + 2);
        this.i = end < 0 ? this.c.length : end + 1;
        unknown = true;
        continue;
      }
      this.i++;
      if (ch === '\\') {
        const e = this.escape(true);
        lo = typeof e === 'string' ? e : null;
      } else lo = ch;
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.i++;
        let hi: string | null;
        const h = this.c[this.i++]!;
        if (h === '\\') {
          const e = this.escape(true);
          hi = typeof e === 'string' ? e : null;
        } else hi = h;
        if (lo === null || hi === null) {
          unknown = true;
          continue;
        }
        const a = lo.codePointAt(0)!;
        const b = hi.codePointAt(0)!;
        if (b - a + 1 > MAX_EXACT_SET) unknown = true;
        else for (let cp = a; cp <= b; cp++) chars.push(String.fromCodePoint(cp));
        continue;
      }
      if (lo === null) unknown = true;
      else chars.push(lo);
    }
    if (negated || unknown) return ANY;
    return charInfo(chars, this.fold);
  }
}

/** The trigram query a regex's matches require (TRUE = no prefilter possible). */
export function regexTrigrams(pattern: string, ignoreCase: boolean): TrigramQuery {
  return toMatch(new Parser(pattern, ignoreCase).parse());
}

/**
 * Strings one of which every match of the regex contains, for a literal scan that finds
 * candidate lines (grep.ts), or null when none is at least `minLength` long. `fold`: some
 * strings were case-folded (lowercase ASCII), so the scan must ignore case.
 */
export function regexLiterals(pattern: string, ignoreCase: boolean, minLength = 2): { strings: string[]; fold: boolean } | null {
  const fold = ignoreCase || /\(\?[a-zA-Z]*i/.test(pattern);
  const strings = litsOf(new Parser(pattern, ignoreCase).parse());
  if (!strings || strings.length > MAX_LITERALS || strings.some((x) => cps(x).length < minLength)) return null;
  return { strings, fold };
}

/** The trigram query a literal's matches require (TRUE when shorter than 3 characters). */
export function literalTrigrams(literal: string, ignoreCase: boolean): TrigramQuery {
  if (!ignoreCase) return stringQuery(literal);
  // Case-insensitive: split at characters whose folding the index does not share; keep ASCII runs.
  const runs: string[] = [''];
  for (const ch of literal) {
    if (ch.charCodeAt(0) > 0x7f || ch === '\0' || /[ks]/i.test(ch)) runs.push('');
    else runs[runs.length - 1] += ch.toLowerCase();
  }
  return and(runs.map(stringQuery));
}

/** A query as text (explain, JSON `prefilter`), or null for TRUE: each trigram quoted; AND/OR with parentheses. */
export function formatTrigramQuery(q: TrigramQuery): string | null {
  if (q.op === 'true') return null;
  const render = (x: TrigramQuery): string => {
    switch (x.op) {
      case 'tri': return `"${x.t.replace(/"/g, '""')}"`;
      case 'all': return `(${x.parts.map(render).join(' AND ')})`;
      case 'any': return `(${x.parts.map(render).join(' OR ')})`;
      default: return '';
    }
  };
  return render(q);
}

/**
 * A set of trigrams one of which every text satisfying `q` contains (one pick per AND, the
 * union over an OR), or null when `q` is TRUE or the set would exceed `max`. grep.ts scans
 * for these with one case-insensitive literal alternation to find candidate lines.
 */
export function anyOfTrigrams(q: TrigramQuery, max = 64): string[] | null {
  const pick = (x: TrigramQuery): string[] | null => {
    switch (x.op) {
      case 'true': return null;
      case 'tri': return [x.t];
      case 'all': {
        let best: string[] | null = null;
        for (const p of x.parts) {
          const s = pick(p);
          if (s && (!best || s.length < best.length)) best = s;
        }
        return best;
      }
      case 'any': {
        const out = new Set<string>();
        for (const p of x.parts) {
          const s = pick(p);
          if (!s) return null;
          for (const t of s) out.add(t);
        }
        return out.size <= max ? [...out] : null;
      }
    }
  };
  return pick(q);
}

/** Does `text` satisfy `q`, comparing trigrams case-folded (ASCII)? For tests of soundness. */
export function satisfies(q: TrigramQuery, text: string): boolean {
  const t = text.toLowerCase();
  switch (q.op) {
    case 'true': return true;
    case 'tri': return t.includes(q.t.toLowerCase());
    case 'all': return q.parts.every((p) => satisfies(p, text));
    case 'any': return q.parts.some((p) => satisfies(p, text));
  }
}
