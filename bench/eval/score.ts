/**
 * Scoring for the CodeSearchNet-style eval. A piece is a hit for a target function when
 * it is on the same file, spans at most MAX_HIT_LINES lines, and its line overlap with
 * the function covers at least half the function or at least half the piece.
 * A result's lines are its own piece and its `more` pieces (the held-out checks count them
 * so: `sift search --json`'s `more`): the result is a hit when one of its pieces is, or when
 * its pieces together hold at least half the function (a function split into pieces).
 * `ownLines` scores the older rule, the result's own lines only (isHit on the result).
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

/** A ranked result: its own lines and the lines of its `more` pieces (same path). */
export interface ResultSpan extends Span {
  more?: ReadonlyArray<{ start: number; end: number }>;
}

/** Which lines of a result count: its own piece only, or its own and its `more` pieces'. */
export type HitRule = 'more' | 'ownLines';

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

/**
 * A result with its `more` pieces: one piece is a hit (isHit), or the pieces of at most
 * MAX_HIT_LINES lines each together hold at least half the target's lines.
 */
export function isHitWithMore(result: ResultSpan, target: Span): boolean {
  if (result.path !== target.path) return false;
  const pieces = [{ start: result.start, end: result.end }, ...(result.more ?? [])];
  if (pieces.some((p) => isHit({ path: result.path, ...p }, target))) return true;
  const held = new Set<number>();
  for (const p of pieces) {
    if (p.end - p.start + 1 > MAX_HIT_LINES) continue;
    for (let l = Math.max(p.start, target.start); l <= Math.min(p.end, target.end); l++) held.add(l);
  }
  return held.size * 2 >= target.end - target.start + 1;
}

/** Score one query's ranked results (in rank order) against its target. */
export function scoreQuery(results: readonly ResultSpan[], target: Span, k = EVAL_K, rule: HitRule = 'more'): QueryScore {
  for (let i = 0; i < Math.min(k, results.length); i++) {
    const hit = rule === 'more' ? isHitWithMore(results[i], target) : isHit(results[i], target);
    if (hit) return { firstHitRank: i + 1, reciprocalRank: 1 / (i + 1) };
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
