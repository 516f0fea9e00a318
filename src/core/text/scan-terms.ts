/**
 * The words a query is looked for with in raw file text, before any index can answer it: `sift
 * mcp`'s scan for the files a call is about during a first index (mcp-disk.ts
 * DiskView.filesHolding) and the indexer's order for a query typed while a run starts
 * (IndexOptions.firstFor). A file's lowercased text is checked for each term as a substring.
 */

/**
 * A query's scan terms: lowercased, identifiers split at case changes, `_` and other
 * punctuation, words of 2+ characters, a common English ending dropped (so "parse" also finds
 * "parsing" and "options" finds "option", as the keyword index's stemmer would).
 */
export function scanTerms(words: string): string[] {
  const parts = words
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 2);
  const stems = parts.map((w) => {
    const stem = w.replace(/(ing|ed|es|er|s|e)$/, '');
    return stem.length >= 3 ? stem : w;
  });
  return [...new Set(stems)];
}
