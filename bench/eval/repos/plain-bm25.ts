/**
 * The plain BM25 reference of the repository eval: the same chunks Sift indexed, ranked by
 * SQLite FTS5's own `bm25(chunks_fts)` (default column weights: every column of chunks_fts
 * weighs 1) for a plain OR of the question's words. Words = lower-cased runs of letters and
 * digits, each once, minus the English stop words below (this list is the eval's own, fixed,
 * so the reference does not move when Sift's query parser changes); no prefixes, no
 * identifier splitting beyond the tokenizer's, no rerank, no definitions. Top K chunks →
 * their paths, scored like Sift's results.
 */

/** Common English function words; fixed for the eval (not Sift's list). */
export const PLAIN_STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'after', 'all', 'also', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'because', 'been', 'before',
  'being', 'between', 'both', 'but', 'by', 'can', 'could', 'did', 'do', 'does', 'doing', 'done', 'during', 'each',
  'for', 'from', 'had', 'has', 'have', 'having', 'he', 'her', 'here', 'his', 'how', 'i', 'if', 'in', 'into', 'is',
  'it', 'its', 'itself', 'just', 'me', 'more', 'most', 'my', 'no', 'nor', 'not', 'of', 'off', 'on', 'once', 'only',
  'or', 'other', 'our', 'out', 'over', 'own', 'same', 'she', 'should', 'so', 'some', 'such', 'than', 'that', 'the',
  'their', 'them', 'then', 'there', 'these', 'they', 'this', 'those', 'through', 'to', 'too', 'under', 'until',
  'up', 'very', 'was', 'we', 'were', 'what', 'when', 'where', 'which', 'while', 'who', 'whom', 'why', 'will',
  'with', 'would', 'you', 'your',
]);

/** The question's words as an FTS5 OR expression (`"retry" OR "backoff"`), or '' when none is left. */
export function plainQuery(question: string): string {
  const words = [...new Set(question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].filter((w) => !PLAIN_STOP_WORDS.has(w));
  return words.map((w) => `"${w}"`).join(' OR ');
}

/** The slice of Sift's Db the reference needs. */
export interface AllDb {
  all<T>(sql: string, params?: Array<string | number>): Promise<T[]>;
}

/** Top-`k` chunk paths for each question, in bm25 order (ties by chunk id). */
export async function plainSearch(db: AllDb, questions: readonly string[], k = 10): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of questions) {
    const expr = plainQuery(q);
    if (!expr) {
      out.push([]);
      continue;
    }
    const rows = await db.all<{ path: string }>(
      'SELECT c.path AS path FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts), c.id LIMIT ?',
      [expr, k]);
    out.push(rows.map((r) => r.path));
  }
  return out;
}
