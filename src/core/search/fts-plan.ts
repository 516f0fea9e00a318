/**
 * The keyword leg's query planner: which phrases FTS5 searches for a query, and which rows
 * it scores.
 *
 * FTS5 has no top-k shortcut for bm25: `MATCH 'a OR b' ORDER BY bm25 LIMIT 100` scores every
 * row that contains any phrase, computes each phrase's idf by reading its whole doclist, and
 * a prefix phrase (`"lock"*`) first merges the doclists of every token it covers. On the kernel
 * (243k chunks) `"read"* OR "lock"* OR "mutex"*` matches 56k rows and took ~130 ms. Each
 * phrase's rows are probed, counted up to `cap` (a cheap, bounded statement), and then:
 *
 * - A phrase that matches no row is left out: it matches and scores nothing.
 * - A prefix phrase (the word being typed, a stem) whose word as typed already matches `cap`
 *   rows is searched as that word (`"lock"*` → `"lock"`, `"buff"*` → `"buffer"`); so is a
 *   multi-token word (`mutex_lock`) with `wordEnough` rows, whose prefix would merge every
 *   `lock*` doclist. The prefix only added more of a word that is everywhere.
 * - Rows, grouped by query term (a term and its abbreviation expansions), are restricted:
 *   - an identifier (`rcu_read_lock`) whose whole name matches `enough` rows: the rows that
 *     name it, ranked by the name (definitions still come first, bm25.ts);
 *   - a query whose every group is common (`read lock`): the rows with all of them, when that
 *     finds `enough`; else the full OR;
 *   - any other query with a common phrase: MaxScore over statements. The rows with a rarer
 *     phrase are kept when their n-th best scores at least what a row with only common words
 *     can (scoreBound), so the result is exactly the full OR's. When it does not, that n-th
 *     score (a lower bound of the full OR's) says which of the most common phrases cannot
 *     lift a row into the best n on their own (`replan`): the rows with any other phrase are
 *     then exactly enough, and that second try never needs the full OR. A query ending in
 *     `struct` or `return` (~70% of the kernel's chunks) scored ~180k rows for the OR.
 *     Of the rows without a left-out phrase, only those holding kept phrases whose bounds
 *     add up to more than the n-th best score so far are scored (essentialRows).
 *     Keeping rows without the check (Lucene's common-terms query) was faster but lost
 *     0.007–0.078 MRR@10 on the eval sets with the cap scaled to their size.
 *   - no common phrase: the full OR.
 * Definitions of the query's identifiers are candidates regardless (bm25.ts).
 */

import type { FtsPhrase } from './query.ts';

/** Row count of an FTS5 MATCH expression, counted up to `cap` (returns min(count, cap)). */
export type RowProbe = (match: string, cap: number) => Promise<number>;

export interface PlannedGroup {
  /** The group's phrases as searched (a prefix marker may have been dropped). */
  phrases: string[];
  /** Each phrase's rows, counted up to the cap (-1: not counted, a table below the cap: smallTablePlan). */
  phraseRows: number[];
  /** Rows matching any phrase, summed per phrase, each counted up to the cap (-1: not counted). */
  rows: number;
}

/** A phrase of a `rare` plan with what bounds its score. */
export interface BoundedPhrase {
  phrase: string;
  /** Its rows: exact below the cap, else counted up to `bigCap` (at most the real count). */
  rows: number;
  /** scoreBound of those rows: more than the phrase can add to any row's score. */
  bound: number;
}

export interface FtsPlan {
  /**
   * `or`: every group OR-ed; `identifier`: rows naming the whole identifier, by it; `all`: rows with
   * every group; `rare`: rows with a phrase that is not common, checked against `bound`.
   */
  kind: 'or' | 'identifier' | 'all' | 'rare';
  /** MATCH expressions whose rows together are the candidates. */
  matches: string[];
  /** Run (the full OR) when `matches` found fewer rows than wanted (filters may drop rows), or their n-th best scores below `bound`. */
  fallback: string[];
  /** `rare`: what a row without a rarer phrase scores less than (positive bm25). */
  bound?: number;
  /** `rare`: every phrase with its bound, lowest bound first (for `replan`); the leading `common` are the left-out ones. */
  phrases?: BoundedPhrase[];
  /** `rare`: how many of `phrases` (from the start) the first try leaves out. */
  common?: number;
  /** `rare`: whether the left-out phrases' rows were counted (else their bounds come from the cap). */
  counted?: boolean;
  groups: PlannedGroup[];
}

/** A second try of a `rare` plan (`replan`): its statements and what a left-out row scores less than. */
export interface Replan {
  matches: string[];
  /** The phrases kept (`matches` = selectWith(kept, leftOut)), with their bounds: for essentialRows. */
  kept: BoundedPhrase[];
  bound: number;
  /** The phrases left out: those whose bounds together stay within the n-th best score. */
  leftOut: string[];
}

export interface FtsPlanOptions {
  /** Probe limit: a phrase or group with this many rows is common. */
  cap: number;
  /**
   * A phrase with this many rows (at most `cap`; default `cap`) may be left out of a `rare`
   * plan's first try, as a common one is; the plan stays exact (see planFts).
   */
  leaveOut?: number;
  /** Rows wanted (the candidates bm25.ts keeps): a restricted plan must be able to fill them. */
  enough: number;
  /** The query is one identifier-shaped word (ProcessedQuery.isIdentifierLike). */
  identifier: boolean;
  /** At least the number of rows in the table (bm25's N, for `bound`). */
  tableRows: number;
  /** A multi-token word (`mutex_lock`) with this many rows as typed is not searched as a prefix. */
  wordEnough: number;
  /** Common phrases of a `rare` plan are counted up to here for their bounds (at least `cap`). */
  bigCap: number;
  /** The first try's guess of the n-th best score, as a fraction of the sum of all phrases' bounds. */
  thetaGuess: number;
}

/** A word FTS5 splits into several tokens (`mutex_lock`): as a prefix it merges every `lock*` doclist. */
function isMultiToken(quoted: string): boolean {
  return /[^\p{L}\p{N}\p{M}"]/u.test(unquote(quoted));
}

/** `"a b"*` → `a b` (the phrase's text; inner quotes stay doubled). */
function unquote(phrase: string): string {
  return phrase.replace(/^"|"\*?$/g, '');
}

function anyOf(phrases: readonly string[]): string {
  return phrases.length === 1 ? phrases[0] : `(${phrases.join(' OR ')})`;
}

/**
 * The rows with a `rare` phrase: `(rare) AND (common)` scored by every phrase, then `rare` alone.
 * The second statement scores a row by its rare phrases only, which is its full score when it
 * has no common word; when it has one, the first statement has the row with its full (better)
 * score, or the row is outside the first's best n, where its rare-only score (never better
 * than its full one) cannot pass the first statement's n-th row either. So the union's best n,
 * taking each row's better score, is the full OR's best n among these rows — without the
 * second statement paying for the common phrases' idf, which FTS5 computes by reading each
 * phrase's whole doclist.
 */
function selectWith(rare: readonly string[], common: readonly string[]): string[] {
  return [`${anyOf(rare)} AND ${anyOf(common)}`, rare.join(' OR ')];
}

/**
 * Plans the FTS5 statements for `groups` (ProcessedQuery.ftsGroups: quoted phrases, `*` after
 * the closing quote for a prefix). Probes each phrase's rows with `probe`: the word as typed,
 * then the phrase as written when they differ, and with two common phrases their real counts.
 */
export async function planFts(groups: readonly (readonly FtsPhrase[])[], probe: RowProbe, o: FtsPlanOptions): Promise<FtsPlan> {
  if (o.tableRows < o.cap) return smallTablePlan(groups, probe, o);
  const planned: PlannedGroup[] = [];
  /** Whether planned[0] is the query's first group (an identifier query's whole name). */
  let firstKept = false;
  for (const [gi, group] of groups.entries()) {
    const phrases: string[] = [];
    const phraseRows: number[] = [];
    for (const { phrase, word } of group) {
      const wordRows = await probe(word, o.cap);
      const asTyped = word === phrase || wordRows >= o.cap || (wordRows >= o.wordEnough && isMultiToken(word));
      const rows = asTyped ? wordRows : await probe(phrase, o.cap);
      if (rows === 0) continue; // counted exactly (below the cap): it matches and scores nothing
      phrases.push(asTyped ? word : phrase);
      phraseRows.push(rows);
    }
    if (phrases.length === 0) continue;
    if (gi === 0) firstKept = true;
    planned.push({ phrases, phraseRows, rows: phraseRows.reduce((a, b) => a + b, 0) });
  }
  const all = planned.flatMap((g) => g.phrases);
  const or: FtsPlan = { kind: 'or', matches: all.length ? [all.join(' OR ')] : [], fallback: [], groups: planned };
  const isCommon = (g: PlannedGroup) => g.rows >= o.cap;
  // A phrase with leaveOut rows or more may be left out of a `rare` plan's first try (below:
  // exact either way); on a table of a few ten thousand rows that is fewer than the cap.
  const leaveOut = Math.min(o.leaveOut ?? o.cap, o.cap);
  if (planned.length < 2) return or;
  if (planned.some(isCommon)) {
    // An identifier (`rcu_read_lock`): its first group is the whole name, the others its parts.
    // Rows that name it are enough: a row with `read` and `lock` apart is not a use of it.
    // They are ranked by the name alone: scoring the parts too means reading every `read` and
    // `lock` doclist for their idf (~40% of such a query on the kernel subset).
    if (o.identifier && firstKept && planned[0].rows >= o.enough) {
      // With filters, fewer than `enough` of them may pass: then the full OR, as before.
      return { kind: 'identifier', matches: [planned[0].phrases.join(' OR ')], fallback: or.matches, groups: planned };
    }
    // Every group common (`read lock`): the rows with all of them, when there are enough.
    if (planned.every(isCommon)) {
      return { kind: 'all', matches: [planned.map((g) => anyOf(g.phrases)).join(' AND ')], fallback: or.matches, groups: planned };
    }
  } else if (!planned.some((g) => g.phraseRows.some((r) => r >= leaveOut))) {
    return or;
  }
  // Rarer phrases and common ones (`compress data with deflate`): the rows with a rarer
  // phrase; a row with only common words scores below `bound`, so when the n-th best of these
  // rows scores at least that, they are the full OR's best n; else `replan`. One common phrase:
  // the bound from its capped count held for every kernel eval query on the kernel subset;
  // two: it held for 11 of 47 with capped counts and 36 of 47 with the phrases' counts
  // (counted here up to bigCap, the cost of reading that much of their doclists).
  const phrases: BoundedPhrase[] = [];
  for (const g of planned) g.phrases.forEach((phrase, i) => phrases.push({ phrase, rows: g.phraseRows[i], bound: 0 }));
  const commons = phrases.filter((p) => p.rows >= leaveOut);
  if (commons.length === 0) return or;
  const rareRows = phrases.reduce((n, p) => n + (p.rows < leaveOut ? p.rows : 0), 0);
  // Too few rows with a rarer phrase to fill the candidates: the least common phrases join them.
  const counted = commons.length > 1 || rareRows < o.enough;
  // Counted up to bigCap: a count reads that much of a doclist; bounds from it are tighter than from the cap.
  if (counted) for (const p of commons) p.rows = await probe(p.phrase, Math.max(o.bigCap, o.cap));
  for (const p of phrases) p.bound = scoreBound([p.rows], o.tableRows);
  // Lowest bound first: the commons (rows ≥ cap) lead, most rows first.
  phrases.sort((a, b) => a.bound - b.bound);
  // The first try leaves out one or two common phrases (their bound held for most kernel
  // queries), of more the most common whose bounds fit in a guess of the n-th best score (at
  // least the most common one); replan corrects a wrong guess exactly.
  const guess = o.thetaGuess * sumBounds(phrases);
  let common = commons.length <= 2 ? commons.length : Math.max(1, fitting(phrases, guess, commons.length));
  let rows = phrases.slice(common).reduce((n, p) => n + p.rows, 0);
  while (rows < o.enough && common > 0) rows += phrases[--common].rows;
  if (common === 0) return or;
  const left = phrases.slice(0, common);
  const kept = phrases.slice(common).map((p) => p.phrase);
  return { kind: 'rare', matches: selectWith(kept, left.map((p) => p.phrase)), fallback: or.matches, bound: sumBounds(left), phrases, common, counted, groups: planned };
}

/**
 * The plan for a table with fewer rows than the cap (`tableRows` < `cap`): no phrase can be
 * common, so planFts would always end in the full OR, and its counts would only drop phrases
 * that match nothing (which add nothing to any row's score) and pick the form of a multi-token
 * word (`mutex_lock` as typed once `wordEnough` rows name it). Only such a word is counted:
 * the OR is the same, less the counts. The groups' rows are those counts, -1 where none was made.
 */
async function smallTablePlan(groups: readonly (readonly FtsPhrase[])[], probe: RowProbe, o: FtsPlanOptions): Promise<FtsPlan> {
  const planned: PlannedGroup[] = [];
  for (const group of groups) {
    const phrases: string[] = [];
    const phraseRows: number[] = [];
    for (const { phrase, word } of group) {
      const counted = word !== phrase && isMultiToken(word) ? await probe(word, o.cap) : -1;
      const asTyped = word === phrase || counted >= o.wordEnough;
      phrases.push(asTyped ? word : phrase);
      phraseRows.push(asTyped ? counted : -1);
    }
    if (phrases.length) planned.push({ phrases, phraseRows, rows: -1 });
  }
  const all = planned.flatMap((g) => g.phrases);
  return { kind: 'or', matches: all.length ? [all.join(' OR ')] : [], fallback: [], groups: planned };
}

function sumBounds(phrases: readonly BoundedPhrase[]): number {
  return phrases.reduce((b, p) => b + p.bound, 0);
}

/** How many of `phrases` (lowest bound first), at most `max`, have bounds that add up to at most `limit`. */
function fitting(phrases: readonly BoundedPhrase[], limit: number, max: number): number {
  let k = 0;
  for (let b = 0; k < max && b + phrases[k].bound <= limit; ) b += phrases[k++].bound;
  return k;
}

/**
 * The second try of a `rare` plan whose first found `theta` as its n-th best score (positive
 * bm25), a lower bound of the full OR's n-th best: the most common phrases whose bounds add
 * up to at most `theta` are left out (MaxScore's non-essential terms), the rows with any other
 * phrase are the candidates. Every row's score there is at least its score in the first try,
 * so the n-th best stays ≥ theta ≥ `bound`: exact without the full OR. `null` when no phrase
 * can be left out (run the full OR).
 */
export async function replan(plan: FtsPlan, theta: number, probe: RowProbe, o: FtsPlanOptions): Promise<Replan | null> {
  if (plan.kind !== 'rare' || !plan.phrases) return null;
  // Left-out phrases not counted, or counted only up to bigCap, are counted in full: reading a
  // doclist costs a fraction of scoring its rows (kernel: `struct`, 177k rows, ~20 ms against
  // ~300 ms), and the most common phrases have the smallest bounds (over half the rows: 0).
  const phrases = plan.phrases.map((p) => ({ ...p }));
  const recount = phrases.slice(0, plan.common).filter((p) => !plan.counted || p.rows >= o.bigCap);
  for (const p of recount) {
    p.rows = await probe(p.phrase, o.tableRows + 1);
    p.bound = scoreBound([p.rows], o.tableRows);
  }
  phrases.sort((a, b) => a.bound - b.bound);
  // One phrase is always kept.
  const k = fitting(phrases, theta, phrases.length - 1);
  if (k === 0) return null;
  // k ≥ common: the first try's rows are enough, its left-out phrases' counted bounds fit in theta.
  const common = plan.common ?? 0;
  const left = phrases.slice(0, Math.min(k, common));
  const leftOut = left.map((p) => p.phrase);
  const kept = k >= common ? [] : phrases.slice(k);
  const matches = kept.length ? selectWith(kept.map((p) => p.phrase), leftOut) : [];
  return { matches, kept, bound: sumBounds(left), leftOut };
}

/**
 * Which rows without any left-out phrase can still reach `theta`, a lower bound of the full
 * OR's n-th best score. Such a row scores by the `kept` phrases it holds, less than the sum of
 * their bounds: only a row holding a set of them whose bounds add up to more than theta can
 * reach it. `all`: every kept phrase alone can (no restriction); `none`: not even all of them
 * together can (no row needed); else `match`, an FTS5 expression for the rows holding one of
 * the minimal such sets (`("a"* AND "b") OR "c"`), only used to pick rows: FTS5 scores every
 * occurrence of a phrase in an expression, so the rows are scored by the plain OR of `kept`.
 * Kernel: `allocate a buffer for network packets` scored 16k rows, 898 of them hold two of
 * `allocate*`, `packet*`, `network*`, and no row with one of them can reach the 100th score.
 * More than `maxSets` minimal sets, or more than ESSENTIAL_MAX_PHRASES phrases: `all`.
 */
export function essentialRows(kept: readonly BoundedPhrase[], theta: number, maxSets = ESSENTIAL_MAX_SETS): { match: string } | 'all' | 'none' {
  const k = kept.length;
  if (k === 0 || k > ESSENTIAL_MAX_PHRASES || kept.every((p) => p.bound > theta)) return 'all';
  const sum = new Float64Array(1 << k);
  const sets: number[] = [];
  for (let mask = 1; mask < 1 << k; mask++) {
    const low = mask & -mask;
    sum[mask] = sum[mask ^ low] + kept[31 - Math.clz32(low)].bound;
    if (sum[mask] <= theta) continue;
    // Minimal: no set with one phrase fewer reaches theta (the sums only grow with phrases).
    let minimal = true;
    for (let rest = mask; rest && minimal; rest &= rest - 1) minimal = sum[mask ^ (rest & -rest)] <= theta;
    if (minimal) sets.push(mask);
  }
  if (sets.length === 0) return 'none';
  if (sets.length > maxSets) return 'all';
  const group = (mask: number) => {
    const ps = kept.filter((_, i) => mask & (1 << i)).map((p) => p.phrase);
    return ps.length === 1 ? ps[0] : `(${ps.join(' AND ')})`;
  };
  return { match: sets.map(group).join(' OR ') };
}

/** essentialRows: most phrases whose sets it enumerates (2^n sums). */
const ESSENTIAL_MAX_PHRASES = 10;
/** essentialRows: most minimal sets in one expression (each AND group merges its doclists again). */
const ESSENTIAL_MAX_SETS = 12;

/** FTS5's bm25 k1 (fts5_aux.c): a phrase adds less than (k1 + 1) × its idf to a row's score. */
const BM25_K1 = 1.2;

/**
 * More than any row can score (FTS5 bm25, as a positive number) from phrases with these row
 * counts: Σ (k1 + 1) × idf, with FTS5's idf = ln((N − n + 0.5) / (n + 0.5)) made an upper
 * bound by N = `tableRows` (at least the table's rows) and n = the probed rows (at most the
 * phrase's rows).
 */
export function scoreBound(phraseRows: readonly number[], tableRows: number): number {
  let bound = 0;
  for (const hits of phraseRows) {
    bound += (BM25_K1 + 1) * Math.max(Math.log((tableRows - hits + 0.5) / (hits + 0.5)), 1e-6);
  }
  return bound;
}
