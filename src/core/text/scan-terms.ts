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

/** A file a question's scan terms were looked for in (termHits, termsIn). */
export interface ScannedFile {
  path: string;
  /** Per term: held in the file's text or path. */
  which: readonly boolean[];
  distinct: number;
  /** Occurrences (termHits' count). */
  count: number;
  /** Terms its path holds. */
  inPath: number;
  /** Its kind's weight for the question (KIND_FACTORS[intent][kind]; 1 for any). */
  factor: number;
}

/**
 * The files a question's first answer should come from, of `files` (those holding any of the
 * `terms` terms, among `scanned` files read), with their weights: every file holding half the
 * terms or more (none when none does), best first — the terms each holds, each by its rarity among the
 * files scanned (BM25's idf: a term every file holds, like the project's own name, counts
 * little), the sum times the file's `factor` — then most terms in the path, then most
 * occurrences, then by path. One rule for `sift mcp`'s files stored ahead of a first index
 * (cli/mcp-disk.ts) and the app's order for a query typed while a run starts (index/indexer.ts).
 */
export function rankScanned<T extends ScannedFile>(files: readonly T[], terms: number, scanned: number): Array<{ file: T; weight: number }> {
  const half = terms / 2;
  const idf = Array.from({ length: terms }, (_t, i) => {
    const df = files.reduce((n, f) => n + (f.which[i] ? 1 : 0), 0);
    return Math.log(1 + (scanned - df + 0.5) / (df + 0.5));
  });
  return files
    .filter((f) => f.distinct >= half)
    .map((file) => ({ file, weight: file.factor * file.which.reduce((sum, held, i) => sum + (held ? idf[i] : 0), 0) }))
    .sort((a, b) => b.weight - a.weight || b.file.inPath - a.file.inPath || b.file.count - a.file.count || (a.file.path < b.file.path ? -1 : 1));
}
