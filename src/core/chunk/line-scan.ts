/**
 * Line-anchored regexes (`/^…/gm`) run only at the lines that can match. V8's irregexp tries
 * such a pattern at every offset of the text: the `^` test fails fast, but at ~3 ns a character
 * each of the C masking passes (languages.ts) cost ~0.13 CPU-s over kernel mm + fs (47M
 * characters, every file C or C++). Here one `indexOf('\n')` hop a line and a look at the line's
 * first character after its blanks rule out most lines (~1 ns a character), and the pattern runs
 * anchored (sticky) at the start of each line left.
 *
 * Invariant: the same matches, in the same order, as the pattern over the whole text, when
 * - every match starts at a line start, and the first character of the line after its spaces
 *   and tabs is one `first` accepts (each caller's pattern says so in its first atoms);
 * - the text's only line terminators are `\n` and the `\r` of `\r\n` (plainLines). JS's `^` also
 *   starts a line after a lone `\r`, U+2028 and U+2029: such a text runs the whole-text pattern.
 *   (After the `\r` of `\r\n`, `^` matches before the `\n`, where no pattern here can start.)
 */

const LONE_CR = /\r(?!\n)/;

/** Whether `text`'s line starts (for `^` in multiline mode) are 0 and the offsets after each `\n`, up to the `\r\n` case above. */
export function plainLines(text: string): boolean {
  return text.indexOf('\u2028') < 0 && text.indexOf('\u2029') < 0 && (text.indexOf('\r') < 0 || !LONE_CR.test(text));
}

/** The same pattern, sticky and not global: run at one offset. */
function stickyOf(re: RegExp): RegExp {
  return new RegExp(re.source, `${re.flags.replace(/[gy]/g, '')}y`);
}

/**
 * Calls `at(lineStart)` for each line whose first character after its spaces and tabs `first`
 * accepts (a blank line's is `\n`, `\r` or NaN at the end), in order. `at` returns where its
 * match ended (the scan goes on from the line after it; Infinity stops it), or -1.
 */
function eachCandidateLine(text: string, first: (code: number) => boolean, at: (lineStart: number) => number): void {
  for (let ls = 0; ls < text.length;) {
    let i = ls;
    let c = text.charCodeAt(i);
    while (c === 32 || c === 9) c = text.charCodeAt(++i);
    // A match ends on the line it starts on (see the invariant): go on from the next `\n`.
    const nl = text.indexOf('\n', first(c) ? Math.max(i, at(ls)) : i);
    if (nl < 0) break;
    ls = nl + 1;
  }
}

/** Matches of `re` (flags `gm`; see the invariant) in text order. */
export function lineMatches(text: string, re: RegExp, first: (code: number) => boolean): RegExpExecArray[] {
  if (!plainLines(text)) return [...text.matchAll(re)];
  const sticky = stickyOf(re);
  const out: RegExpExecArray[] = [];
  eachCandidateLine(text, first, (ls) => {
    sticky.lastIndex = ls;
    const m = sticky.exec(text);
    if (!m) return -1;
    out.push(m);
    return ls + m[0].length;
  });
  return out;
}

/**
 * `text` with each match of `re` (flags `gm`; see the invariant) replaced by `replace(match)`:
 * what `text.replace(re, …)` gives.
 */
export function replaceLineMatches(text: string, re: RegExp, first: (code: number) => boolean, replace: (m: RegExpExecArray) => string): string {
  let out = '';
  let done = 0;
  let changed = false;
  for (const m of lineMatches(text, re, first)) {
    const r = replace(m);
    if (r === m[0]) continue;
    out += text.slice(done, m.index) + r;
    done = m.index + m[0].length;
    changed = true;
  }
  return changed ? out + text.slice(done) : text;
}

/** Whether one of `res` (`^…` multiline patterns, see the invariant) matches: `res.some((re) => re.test(text))`. */
export function someLineMatches(text: string, res: readonly RegExp[], first: (code: number) => boolean): boolean {
  if (!plainLines(text)) return res.some((re) => new RegExp(re.source, re.flags.replace(/[gy]/g, '')).test(text));
  const sticky = res.map(stickyOf);
  let found = false;
  eachCandidateLine(text, first, (ls) => {
    found = sticky.some((re) => {
      re.lastIndex = ls;
      return re.test(text);
    });
    return found ? Infinity : -1;
  });
  return found;
}

/**
 * Matches of `re` (flags `gm`; see the invariant) in text order, where every match holds
 * `needle` on its line: found from `indexOf(needle)` (a literal rarer than lines: ~0.4 ns a
 * character), each line tried once.
 */
export function needleLineMatches(text: string, re: RegExp, needle: string): RegExpExecArray[] {
  if (!plainLines(text)) return [...text.matchAll(re)];
  const sticky = stickyOf(re);
  const out: RegExpExecArray[] = [];
  for (let at = text.indexOf(needle); at >= 0;) {
    const ls = at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
    sticky.lastIndex = ls;
    const m = sticky.exec(text);
    if (m) out.push(m);
    const nl = text.indexOf('\n', m ? ls + m[0].length : at);
    if (nl < 0) break;
    at = text.indexOf(needle, nl + 1);
  }
  return out;
}
