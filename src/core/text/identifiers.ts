/**
 * Identifier text: how code words split into parts. Shared by the write side (the indexer
 * fills the `names`, `path_words` and `tokens` columns) and the query side (processQuery
 * splits the user's words), so `user name` finds `getUserName` — both sides must split the
 * same way, which is why this lives below both.
 */

/** An identifier in source text (for the tokens column). */
const IDENT_RE = /[\p{L}\p{N}\p{M}_$]+/gu;
/**
 * One identifier part: `HTTP` in HTTPServer, `Server`, `utf8`, `HTTP2`, `64`, or a run of
 * caseless letters (CJK…). Underscores, `$` and punctuation separate parts.
 */
const PART_RE = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}[\p{Ll}\p{M}]*\p{N}*|\p{Lu}+\p{N}*|\p{N}+|[\p{L}\p{M}\p{N}]+/gu;
/** A case boundary or separator inside a word: the word splits into more than one part. */
/** An upper-case letter: the camelCase tests below need one. */
const HAS_UPPER_RE = /\p{Lu}/u;

export const COMPOUND_RE = /[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|[_$]|::|->|[.\-#/]/u;

/** Parts of an identifier, lower-cased: `getUserName` → get,user,name; `HTTPServer` → http,server. */
export function splitIdentifier(s: string): string[] {
  const parts: string[] = [];
  for (const m of s.matchAll(PART_RE)) parts.push(m[0].toLowerCase());
  return parts;
}

/** Parts of `s` with their UTF-16 offsets, for highlighting. */
export function identifierParts(s: string): Array<{ start: number; end: number; text: string }> {
  const parts: Array<{ start: number; end: number; text: string }> = [];
  for (const m of s.matchAll(PART_RE)) parts.push({ start: m.index, end: m.index + m[0].length, text: m[0].toLowerCase() });
  return parts;
}

/** ASCII characters IDENT_RE matches: letters, digits, `_`, `$`. */
const ASCII_IDENT = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_IDENT[c] = /[A-Za-z0-9_$]/.test(String.fromCharCode(c)) ? 1 : 0;
const NONE = 0;
const LOWER = 1;
const DIGIT = 2;
const UPPER = 3;

/**
 * The identifier parts in `text` that FTS5's unicode61 tokenizer would NOT produce by itself
 * (it already splits on `_`, `.`, `/`…, but keeps `getUserName` whole), deduplicated and
 * space-joined. Stored in `chunks.tokens` so natural-language words match camelCase names.
 *
 * Only words with a camelCase boundary can hold a part the tokenizer lacks, so most words of
 * C or Python code are skipped before any splitting. ASCII text is scanned by character code
 * and only words with such a boundary are sliced out (`GFP_KERNEL` and `i` never are); from
 * the first non-ASCII character on, IDENT_RE finds the words (the scan hands over at a word
 * start, so the words are the same).
 */
export function identifierTokens(text: string): string {
  const seen = new Set<string>();
  const words = new Set<string>();
  const add = (word: string): void => {
    // Each distinct word once.
    if (words.has(word)) return;
    words.add(word);
    if (word.length > 256 || !HAS_UPPER_RE.test(word) || !COMPOUND_RE.test(word)) return;
    // Segments the tokenizer produces itself (split on `_`/`$`): only these may be camelCase.
    for (const segment of word.split(/[_$]+/)) {
      if (!/[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u.test(segment)) continue;
      for (const part of splitIdentifier(segment)) seen.add(part);
    }
  };
  const n = text.length;
  let start = -1;
  // Whether the current word has a camelCase boundary inside one `_`/`$` segment (a lower
  // case letter or digit before an upper-case one, or `ABc`): an ASCII word without one adds
  // no part. p1, p2: the previous two characters of the segment (UPPER, OTHER, or NONE).
  let camel = false;
  let p1 = NONE;
  let p2 = NONE;
  let i = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) break;
    if (ASCII_IDENT[c] === 1) {
      if (start < 0) {
        start = i;
        camel = false;
        p1 = p2 = NONE;
      }
      if (c === 95 || c === 36) {
        p1 = p2 = NONE;
        continue;
      }
      const k = c >= 65 && c <= 90 ? UPPER : c >= 97 && c <= 122 ? LOWER : DIGIT;
      if ((k === UPPER && (p1 === LOWER || p1 === DIGIT)) || (k === LOWER && p1 === UPPER && p2 === UPPER)) camel = true;
      p2 = p1;
      p1 = k;
    } else if (start >= 0) {
      if (camel) add(text.slice(start, i));
      start = -1;
    }
  }
  if (i < n) {
    const re = new RegExp(IDENT_RE);
    re.lastIndex = start >= 0 ? start : i;
    for (let m = re.exec(text); m; m = re.exec(text)) add(m[0]);
  } else if (start >= 0 && camel) {
    add(text.slice(start));
  }
  return [...seen].join(' ');
}

/** `names` column value: symbol and parent as written, plus their parts. */
export function nameWords(symbol: string | null, parent: string | null): string {
  const words = [symbol ?? '', parent ?? ''].filter(Boolean);
  const parts = new Set<string>();
  for (const w of words) for (const p of splitIdentifier(w)) parts.add(p);
  return [...words, ...parts].join(' ');
}

/** `path_words` column value: the path as written plus its identifier parts. */
export function pathWords(path: string): string {
  return `${path} ${[...new Set(splitIdentifier(path))].join(' ')}`.trim();
}

