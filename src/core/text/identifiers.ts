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
/** ASCII character classes for asciiParts: upper case, lower case, digit (0: a separator, `_` or `$`). */
const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_CLASS[c] = /[A-Z]/.test(ch) ? UPPER : /[a-z]/.test(ch) ? LOWER : /[0-9]/.test(ch) ? DIGIT : 0;
}

/**
 * identifierTokens' work on one ASCII word, text[start, end) of letters, digits, `_` and `$`:
 * each `_`/`$`-separated segment with a camelCase boundary (`aB`, `1B`, `ABc`) adds its parts,
 * lower-cased, to `seen` — splitIdentifier's parts (PART_RE restricted to ASCII: an upper-case
 * run before `Xy` is a part of its own, `Ab12`, `AB12`, `12`), by character codes instead of
 * the Unicode regexes (a word's parts were ~60% of a Go file's indexing tokens' time).
 */
function addAsciiParts(text: string, start: number, end: number, seen: Set<string>): void {
  for (let s = start; s < end; ) {
    // One segment: [s, e).
    let e = s;
    while (e < end && ASCII_CLASS[text.charCodeAt(e)] !== 0) e++;
    let camel = false;
    for (let i = s; i + 1 < e && !camel; i++) {
      const a = ASCII_CLASS[text.charCodeAt(i)];
      const b = ASCII_CLASS[text.charCodeAt(i + 1)];
      camel = (b === UPPER && a !== UPPER) || (a === UPPER && b === UPPER && i + 2 < e && ASCII_CLASS[text.charCodeAt(i + 2)] === LOWER);
    }
    if (camel) {
      for (let i = s; i < e; ) {
        const c = ASCII_CLASS[text.charCodeAt(i)];
        let j = i + 1;
        if (c === UPPER) {
          while (j < e && ASCII_CLASS[text.charCodeAt(j)] === UPPER) j++;
          if (j < e && ASCII_CLASS[text.charCodeAt(j)] === LOWER) {
            if (j - i >= 2) j--; // `HTTPServer`: HTTP, then Server
            else {
              // `Server1`: one upper-case letter, its lower case, then digits.
              while (j < e && ASCII_CLASS[text.charCodeAt(j)] === LOWER) j++;
              while (j < e && ASCII_CLASS[text.charCodeAt(j)] === DIGIT) j++;
            }
          } else while (j < e && ASCII_CLASS[text.charCodeAt(j)] === DIGIT) j++; // `HTTP2`, `ID`
        } else if (c === LOWER) {
          while (j < e && ASCII_CLASS[text.charCodeAt(j)] === LOWER) j++;
          while (j < e && ASCII_CLASS[text.charCodeAt(j)] === DIGIT) j++;
        } else while (j < e && ASCII_CLASS[text.charCodeAt(j)] === DIGIT) j++;
        seen.add(text.slice(i, j).toLowerCase());
        i = j;
      }
    }
    s = e;
    while (s < end && ASCII_CLASS[text.charCodeAt(s)] === 0) s++;
  }
}
/** A camelCase boundary in ASCII: lower case or digit before upper case, or `ABc` (never across `_`/`$`). */
const ASCII_CAMEL_RE = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/g;
const NON_ASCII_RE = /[\u0080-\uffff]/;

/**
 * The identifier parts in `text` that FTS5's unicode61 tokenizer would NOT produce by itself
 * (it already splits on `_`, `.`, `/`…, but keeps `getUserName` whole), deduplicated and
 * space-joined. Stored in `chunks.tokens` so natural-language words match camelCase names.
 *
 * Only a word with a camelCase boundary in one of its `_`/`$` segments can hold a part the
 * tokenizer lacks, and most words of C or Python code have none. So the ASCII part of the
 * text (up to the word where its first non-ASCII character is) is searched for boundaries
 * with one regex, and only the words around them are cut out (`GFP_KERNEL` and `i` never
 * are); from that word on, IDENT_RE finds every word. Kernel mm+net as 1,000-character
 * pieces: 0.49 -> 0.14 CPU-s against a scan of every word, same output.
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
  // Where IDENT_RE takes over: the start of the word holding the first non-ASCII character
  // (or that character itself).
  let handover = text.search(NON_ASCII_RE);
  if (handover < 0) handover = n;
  else while (handover > 0 && ASCII_IDENT[text.charCodeAt(handover - 1)] === 1) handover--;
  const re = ASCII_CAMEL_RE;
  re.lastIndex = 0;
  // A boundary before `handover` is in a word that ends before it (handover starts a word).
  for (let m = re.exec(text); m !== null && m.index < handover; m = re.exec(text)) {
    let start = m.index;
    while (start > 0 && ASCII_IDENT[text.charCodeAt(start - 1)] === 1) start--;
    let end = m.index + m[0].length;
    while (end < n && ASCII_IDENT[text.charCodeAt(end)] === 1) end++;
    re.lastIndex = end;
    // Each distinct word once; it has an upper-case letter and a boundary (the match), so add's tests hold.
    if (end - start > 256) continue;
    const word = text.slice(start, end);
    if (words.has(word)) continue;
    words.add(word);
    addAsciiParts(text, start, end, seen);
  }
  if (handover < n) {
    const all = new RegExp(IDENT_RE);
    all.lastIndex = handover;
    for (let m = all.exec(text); m; m = all.exec(text)) add(m[0]);
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

