/**
 * English function words, one list for the multi-word keyword query (search/query.ts, which
 * drops them) and the words a first scan looks for in raw file text (scan-terms.ts). Code words
 * (function, method, return, new, get, set, not, null…) are kept: BM25's IDF already discounts
 * common ones, and they are exactly what people search for in code. If every term is a stop
 * word, all are kept.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'an', 'and', 'are', 'as', 'at', 'be', 'been', 'by', 'can', 'could', 'did', 'does',
  'for', 'from', 'has', 'have', 'how', 'i', 'in', 'into', 'is', 'it', 'its', 'me', 'my',
  'of', 'on', 'or', 'our', 'please', 'show', 'should', 'so', 'some', 'that', 'the', 'their', 'them',
  'there', 'these', 'they', 'those', 'to', 'us', 'was', 'we', 'were', 'what', 'when', 'where',
  'which', 'who', 'why', 'will', 'with', 'would', 'you', 'your', 'code', 'where\'s',
  // Doc-comment filler: how descriptions of functions begin, not what they are about.
  'if', 'this', 'whether', 'given', 'returns', 'reports', 'specified', 'provided', 'any', 'all',
  'then', 'only', 'used', 'called', 'also', 'such', 'other',
]);

/** Is `word` (lower-case) an English function word (STOP_WORDS)? */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}
