/**
 * Where the search's query matches in a whole file, for the file viewer's marks and its
 * next/previous match: the same rules as the results' marks — a keyword or meaning search marks
 * what the keyword leg matches (core highlightRanges), an exact or regex search every match of
 * its pattern (core grep, loaded when first needed: the page does not search lines itself).
 */
import { highlightRanges } from '../../core/search/bm25.ts';
import { isGrepMode, type AppMode } from './url-state.ts';

/** Marks shown in one file at most (a query that matches everywhere stops here). */
export const MAX_FILE_MARKS = 2000;

export interface MarkQuery {
  query: string;
  mode: AppMode;
  ignoreCase: boolean;
}

/** Sorted, disjoint [start, end) ranges of `text` the query matches (none for a bad pattern). */
export async function queryMarks(text: string, q: MarkQuery): Promise<Array<[number, number]>> {
  if (!q.query.trim() || !text) return [];
  if (!isGrepMode(q.mode)) return highlightRanges(text, q.query, MAX_FILE_MARKS);
  const { compileGrep, grepText } = await import('../../core/search/grep.ts');
  let m;
  try {
    m = await compileGrep(q.query, q.mode, q.ignoreCase);
  } catch {
    return [];
  }
  const out: Array<[number, number]> = [];
  grepText(text, m, (_line, s, e) => {
    if (out.length >= MAX_FILE_MARKS) return;
    for (const r of m.ranges(text.slice(s, e))) if (r.end > r.start && out.length < MAX_FILE_MARKS) out.push([s + r.start, s + r.end]);
  });
  return out;
}

/** The line of each of `marks` (sorted) in `text`, whose first line is `firstLine`: one pass. */
export function markLines(text: string, marks: ReadonlyArray<readonly [number, number]>, firstLine = 1): number[] {
  const out: number[] = [];
  let line = firstLine;
  let nl = text.indexOf('\n');
  for (const [s] of marks) {
    while (nl !== -1 && nl < s) {
      line++;
      nl = text.indexOf('\n', nl + 1);
    }
    out.push(line);
  }
  return out;
}
