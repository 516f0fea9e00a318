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
 * - A prefix phrase (the word being typed, a stem) is searched as the word as typed when that
 *   word, or the stem as a word, already matches `cap` rows (`"lock"*` → `"lock"`, `"buff"*`
 *   → `"buffer"`, `"read"*` for `readers` → `"readers"`); so is a multi-token word
 *   (`mutex_lock`) with `wordEnough` rows, whose prefix would merge every `lock*` doclist. The
 *   prefix only added more of a word that is everywhere.
 * - Rows are restricted in two cases only, both where the full OR ranks those rows first
 *   anyway; elsewhere every phrase is OR-ed as before (measured: restricting descriptive
 *   queries to rows with their rarer words lost 0.01–0.08 MRR@10 on the eval sets):
 *   - an identifier (`rcu_read_lock`) whose whole name matches `enough` rows: the rows that
 *     name it, still scored by every phrase (selectWith);
 *   - a query whose every group is common (`read lock`): the rows with all of them, when that
 *     finds `enough`; else the full OR.
 * Definitions of the query's identifiers are candidates regardless (bm25.ts).
 */

import type { FtsPhrase } from './query.ts';

/** Row count of an FTS5 MATCH expression, counted up to `cap` (returns min(count, cap)). */
export type RowProbe = (match: string, cap: number) => Promise<number>;

export interface PlannedGroup {
  /** The group's phrases as searched (a prefix marker may have been dropped). */
  phrases: string[];
  /** Rows matching any phrase, summed per phrase, each counted up to the cap. */
  rows: number;
}

export interface FtsPlan {
  /** `or`: every group OR-ed; `identifier`: rows naming the whole identifier; `all`: rows with every group. */
  kind: 'or' | 'identifier' | 'all';
  /** MATCH expressions whose rows together are the candidates. */
  matches: string[];
  /** Run when `matches` found fewer rows than wanted (the `all` plan: the full OR). */
  fallback: string[];
  groups: PlannedGroup[];
}

export interface FtsPlanOptions {
  /** Probe limit: a phrase or group with this many rows is common. */
  cap: number;
  /** Rows wanted (the candidates bm25.ts keeps): a restricted plan must be able to fill them. */
  enough: number;
  /** The query is one identifier-shaped word (ProcessedQuery.isIdentifierLike). */
  identifier: boolean;
  /** A multi-token word (`mutex_lock`) with this many rows as typed is not searched as a prefix. */
  wordEnough: number;
}

/** A word FTS5 splits into several tokens (`mutex_lock`): as a prefix it merges every `lock*` doclist. */
function isMultiToken(quoted: string): boolean {
  return /[^\p{L}\p{N}\p{M}"]/u.test(quoted.replace(/^"|"\*?$/g, ''));
}

function anyOf(phrases: readonly string[]): string {
  return phrases.length === 1 ? phrases[0] : `(${phrases.join(' OR ')})`;
}

/**
 * The rows with a `rare` group: `(rare) AND (common)` scored by every phrase, then `rare` alone.
 * The second statement scores a row by its rare phrases only, which is its full score when it
 * has no common word; when it has one, the first statement has the row with its full (better)
 * score, or the row is outside the first's best n, where its rare-only score (never better
 * than its full one) cannot pass the first statement's n-th row either. So the union's best n,
 * taking each row's better score, is the full OR's best n among these rows — without the
 * second statement paying for the common phrases' idf, which FTS5 computes by reading each
 * phrase's whole doclist.
 */
function selectWith(rare: readonly PlannedGroup[], common: readonly PlannedGroup[]): string[] {
  if (common.length === 0) return [rare.flatMap((g) => g.phrases).join(' OR ')];
  const rarePhrases = rare.flatMap((g) => g.phrases);
  return [`${anyOf(rarePhrases)} AND ${anyOf(common.flatMap((g) => g.phrases))}`, rarePhrases.join(' OR ')];
}

/**
 * Plans the FTS5 statements for `groups` (ProcessedQuery.ftsGroups: quoted phrases, `*` after
 * the closing quote for a prefix). Probes each phrase's rows with `probe`, at most twice.
 */
export async function planFts(groups: readonly (readonly FtsPhrase[])[], probe: RowProbe, o: FtsPlanOptions): Promise<FtsPlan> {
  const planned: PlannedGroup[] = [];
  for (const group of groups) {
    const phrases: string[] = [];
    let rows = 0;
    for (const { phrase, word } of group) {
      const wordRows = await probe(word, o.cap);
      const stem = phrase.endsWith('*') ? phrase.slice(0, -1) : phrase;
      if (
        word === phrase || wordRows >= o.cap || (wordRows >= o.wordEnough && isMultiToken(word)) ||
        (stem !== word && stem !== phrase && (await probe(stem, o.cap)) >= o.cap)
      ) {
        phrases.push(word);
        rows += wordRows;
      } else {
        phrases.push(phrase);
        rows += await probe(phrase, o.cap);
      }
    }
    if (phrases.length) planned.push({ phrases, rows });
  }
  const all = planned.flatMap((g) => g.phrases);
  const or: FtsPlan = { kind: 'or', matches: all.length ? [all.join(' OR ')] : [], fallback: [], groups: planned };
  const common = (g: PlannedGroup) => g.rows >= o.cap;
  if (planned.length < 2 || !planned.some(common)) return or;
  // An identifier (`rcu_read_lock`): its first group is the whole name, the others its parts.
  // Rows that name it are enough: a row with `read` and `lock` apart is not a use of it.
  if (o.identifier && planned[0].rows >= o.enough) {
    return { kind: 'identifier', matches: selectWith([planned[0]], planned.slice(1)), fallback: [], groups: planned };
  }
  // Every group common (`read lock`): the rows with all of them, when there are enough.
  if (planned.every(common)) {
    return { kind: 'all', matches: [planned.map((g) => anyOf(g.phrases)).join(' AND ')], fallback: or.matches, groups: planned };
  }
  return or;
}
