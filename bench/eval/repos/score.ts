/**
 * File-level scoring for the repository eval (bench/eval/repos.ts), pure functions.
 *
 * A system's answer to a question is its top-K results' paths in rank order (one entry per
 * result: two pieces of one file are two entries). NDCG@K with binary gains: a result earns
 * 1/log2(rank+1) when its path is an answer that no earlier result already had; a further piece
 * of an answered file takes its slot and earns nothing. Ideal DCG = min(#answers, K) ones at
 * the top. A question with no answers is an error, not a zero.
 *
 * Aggregates: per repository the mean over its questions; per language the mean of its
 * repositories; the headline is the mean of per-repository NDCG (each repository weighs the
 * same, whatever its question count); per category and per source the mean over the pooled
 * questions of that category/source.
 */

export const K = 10;

export function dcgAt(rank: number): number {
  return 1 / Math.log2(rank + 1);
}

/** NDCG@k of ranked paths against the answer files (first occurrence of an answer counts). */
export function ndcg(ranked: readonly string[], answers: readonly string[], k = K): number {
  const want = new Set(answers);
  if (want.size === 0) throw new Error('ndcg: a question needs at least one answer');
  const seen = new Set<string>();
  let dcg = 0;
  ranked.slice(0, k).forEach((p, i) => {
    if (want.has(p) && !seen.has(p)) {
      dcg += dcgAt(i + 1);
      seen.add(p);
    }
  });
  let ideal = 0;
  for (let i = 1; i <= Math.min(want.size, k); i++) ideal += dcgAt(i);
  return dcg / ideal;
}

/** Rank (1-based) of the first result that is an answer, or null within the top k. */
export function firstHit(ranked: readonly string[], answers: readonly string[], k = K): number | null {
  const i = ranked.slice(0, k).findIndex((p) => answers.includes(p));
  return i < 0 ? null : i + 1;
}

/** Distinct files among the top k results. */
export function distinctFiles(ranked: readonly string[], k = K): number {
  return new Set(ranked.slice(0, k)).size;
}

export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

export interface ScoredQuestion {
  id: string;
  repo: string;
  language: string;
  category: string;
  source: string;
  /** Issue 35 failure class (hand-written questions written for one). */
  class?: string;
  ndcg: number;
  distinct: number;
  firstHit: number | null;
}

export interface Aggregate {
  /** Mean of per-repository NDCG. */
  overall: number;
  /** Mean over every question, pooled. */
  pooled: number;
  questions: number;
  distinct: number;
  /** Share of questions with an answer in the top K. */
  recall: number;
  /** Share of questions with an answer first. */
  top1: number;
  repos: Record<string, { language: string; questions: number; ndcg: number; distinct: number }>;
  languages: Record<string, { repos: number; ndcg: number }>;
  categories: Record<string, { questions: number; ndcg: number }>;
  sources: Record<string, { questions: number; ndcg: number }>;
  /** Per issue 35 failure class, over the questions that have one. */
  classes: Record<string, { questions: number; ndcg: number }>;
}

function groupBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    if (!m.has(k)) m.set(k, []);
    m.get(k)!.push(x);
  }
  return m;
}

export function aggregate(scored: readonly ScoredQuestion[]): Aggregate {
  const repos: Aggregate['repos'] = {};
  for (const [repo, qs] of groupBy(scored, (q) => q.repo)) {
    repos[repo] = { language: qs[0].language, questions: qs.length, ndcg: mean(qs.map((q) => q.ndcg)), distinct: mean(qs.map((q) => q.distinct)) };
  }
  const languages: Aggregate['languages'] = {};
  for (const [lang, rs] of groupBy(Object.values(repos), (r) => r.language)) {
    languages[lang] = { repos: rs.length, ndcg: mean(rs.map((r) => r.ndcg)) };
  }
  const byPooled = (key: (q: ScoredQuestion) => string) => {
    const out: Record<string, { questions: number; ndcg: number }> = {};
    for (const [k, qs] of groupBy(scored, key)) out[k] = { questions: qs.length, ndcg: mean(qs.map((q) => q.ndcg)) };
    return out;
  };
  return {
    overall: mean(Object.values(repos).map((r) => r.ndcg)),
    pooled: mean(scored.map((q) => q.ndcg)),
    questions: scored.length,
    distinct: mean(scored.map((q) => q.distinct)),
    recall: mean(scored.map((q) => (q.firstHit === null ? 0 : 1))),
    top1: mean(scored.map((q) => (q.firstHit === 1 ? 1 : 0))),
    repos,
    languages,
    categories: byPooled((q) => q.category),
    sources: byPooled((q) => q.source),
    classes: Object.fromEntries(Object.entries(byPooled((q) => q.class ?? '')).filter(([k]) => k)),
  };
}
