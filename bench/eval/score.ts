/**
 * Scoring for the CodeSearchNet-style eval. A result is a hit for a target function when
 * it is on the same file, spans at most MAX_HIT_LINES lines, and its line overlap with
 * the function covers at least half the function or at least half the result.
 * MRR@k is the mean of 1/rank of the first hit within the top k (0 when none);
 * recall@k (one target per query) is the share of queries with a hit in the top k.
 */

export const MAX_HIT_LINES = 150;
export const EVAL_K = 10;

export interface Span {
  path: string;
  /** 1-based, inclusive. */
  start: number;
  end: number;
}

export interface QueryScore {
  /** 1-based rank of the first hit within the top k, or null. */
  firstHitRank: number | null;
  reciprocalRank: number;
}

export interface EvalSummary {
  queries: number;
  mrr: number;
  recall: number;
  /** Share of queries with a hit at rank 1. */
  top1: number;
}

export function isHit(result: Span, target: Span): boolean {
  if (result.path !== target.path) return false;
  const resultLines = result.end - result.start + 1;
  if (resultLines > MAX_HIT_LINES || resultLines <= 0) return false;
  const overlap = Math.min(result.end, target.end) - Math.max(result.start, target.start) + 1;
  if (overlap <= 0) return false;
  const targetLines = target.end - target.start + 1;
  return overlap * 2 >= targetLines || overlap * 2 >= resultLines;
}

/** Score one query's ranked results (in rank order) against its target. */
export function scoreQuery(results: readonly Span[], target: Span, k = EVAL_K): QueryScore {
  for (let i = 0; i < Math.min(k, results.length); i++) {
    if (isHit(results[i], target)) return { firstHitRank: i + 1, reciprocalRank: 1 / (i + 1) };
  }
  return { firstHitRank: null, reciprocalRank: 0 };
}

export function summarize(scores: readonly QueryScore[]): EvalSummary {
  const n = scores.length;
  if (n === 0) return { queries: 0, mrr: NaN, recall: NaN, top1: NaN };
  let rr = 0;
  let found = 0;
  let top1 = 0;
  for (const s of scores) {
    rr += s.reciprocalRank;
    if (s.firstHitRank !== null) found++;
    if (s.firstHitRank === 1) top1++;
  }
  return { queries: n, mrr: rr / n, recall: found / n, top1: top1 / n };
}
