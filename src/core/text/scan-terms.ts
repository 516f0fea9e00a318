/**
 * The words a query is looked for with in raw file text, before any index can answer it: `sift
 * mcp`'s scan for the files a call is about during a first index (mcp-disk.ts
 * DiskView.filesHolding) and the indexer's order for a query typed while a run starts
 * (IndexOptions.firstFor). A file's lowercased text is checked for each term as a substring.
 */
import { escapeRegExp } from './regexp.ts';
import { isStopWord } from './stop-words.ts';

/**
 * A query's scan terms: lowercased, identifiers split at case changes, `_` and other
 * punctuation, words of 2+ characters, English function words dropped as the keyword query drops
 * them (unless every word is one: "how" or "the" is in nearly every file, so it would decide
 * which files hold "the most terms"), a common English ending dropped (so "parse" also finds
 * "parsing" and "options" finds "option", as the keyword index's stemmer would); a query that is
 * one identifier of several parts also has the whole name.
 */
export function scanTerms(words: string): string[] {
  const parts = words
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 2);
  const content = parts.filter((w) => !isStopWord(w));
  const stems = (content.length ? content : parts).map((w) => {
    const stem = w.replace(/(ing|ed|es|er|s|e)$/, '');
    return stem.length >= 3 ? stem : w;
  });
  // One identifier of several parts (`thenReturn`, `parse_options`): the name as written is a
  // term too, the rarest, held only by the files that write it (its parts are in many more).
  const whole = words.trim().toLowerCase();
  if (parts.length > 1 && IDENTIFIER_RE.test(whole)) stems.push(whole);
  return [...new Set(stems)];
}

/** One identifier as a query writes it (scanTerms). */
const IDENTIFIER_RE = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

/** One case-insensitive pattern per term (termHits): 3–10× faster over 1,000 files than lowercasing each text for indexOf. */
export function termPatterns(terms: readonly string[]): RegExp[] {
  return terms.map((t) => new RegExp(escapeRegExp(t), 'gi'));
}

/**
 * How many of the terms `text` holds (`distinct`), and their occurrences, each counted up to
 * `cap`. A term `held` marks (the file's path holds it, termsIn) counts as held without any.
 */
export function termHits(text: string, patterns: readonly RegExp[], cap: number, held?: readonly boolean[]): { distinct: number; count: number; which: boolean[] } {
  let distinct = 0;
  let count = 0;
  const which: boolean[] = [];
  for (const [i, re] of patterns.entries()) {
    let n = 0;
    re.lastIndex = 0;
    while (n < cap && re.exec(text)) n++;
    which.push(n > 0 || held?.[i] === true);
    if (which[i]) distinct++;
    count += n;
  }
  return { distinct, count, which };
}

/** Which of the terms `text` (a path) holds, one flag per pattern, and how many. */
export function termsIn(text: string, patterns: readonly RegExp[]): { held: boolean[]; distinct: number } {
  const held = patterns.map((re) => {
    re.lastIndex = 0;
    return re.test(text);
  });
  return { held, distinct: held.filter(Boolean).length };
}
