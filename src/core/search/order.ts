/**
 * The learned order of a keyword list's first results (issue 35): after fusion, grouping and
 * diversity (results.ts rankGroups), the code among the first LEARNED_ORDER.depth groups is ranked
 * again, in the places it holds (movable), by a linear score over what the pipeline already knows
 * of each one — its place and fused score,
 * the keyword leg's named signals (signals.ts, rerank.ts), its chunk type, its size, whether
 * diversity moved it, how many of the listed results share its folder or its file's name, and its
 * file's size (OrderLegs.fileSizeOf, which search.ts reads for headPaths after diversity), and how
 * many of the question's neighbouring words its file's text holds near each other (nearPairs;
 * OrderLegs.fileTextOf, read with the sizes).
 *
 * The weights (config.ts LEARNED_ORDER) are fitted by bench/eval/learn-order.py on the
 * features this module computes (bench/eval/order-features.ts dumps them for every question of
 * the repository evals): a pairwise logistic loss, each pair weighted by what swapping the two
 * would change in NDCG@10 (LambdaRank's weighting), strong L2. Each question set was scored
 * with weights fitted on the other sets before the weights were fitted on all (docs/ranking.md).
 *
 * Only for the lists it was fitted on: keyword-only (no vector leg), code asked for (the default
 * intent: a question that asks for tests, docs or examples keeps the pipeline's order, where the
 * intent's kind factors put them first), not a name lookup or a list whose first result the
 * keyword leg fixes (`keywordFirst`), not a question that reads as one function's doc comment
 * (those keep the pipeline's order; their answer is a piece).
 *
 * Invariants: pure; only the first `depth` groups change places, among themselves, and only
 * the movable ones (movable: code the intent weighs in full), into each other's places; the scores
 * those groups had are handed out again in the new order, so scores never rise down the list;
 * a group that moved gets an `order` explain entry (its score's change).
 */
import { LEARNED_ORDER } from '../config.ts';
import type { Hit } from '../types.ts';
import type { FileSize } from '../store/store.ts';
import { STOP_WORDS } from '../text/stop-words.ts';

/** What the order reads of a listed group (results.ts GroupedItem, structurally: no import back). */
export interface OrderItem {
  id: number;
  combinedScore: number;
  bm25Score: number;
  explain: Array<{ signal: string; value: number; contribution: number }>;
  /** Its definition's other pieces. */
  more: readonly unknown[];
  /** Its file's other definitions folded into it, each with its own pieces. */
  filePieces: ReadonlyArray<{ more: readonly unknown[] }>;
  fileMore: number;
}

/** What the order reads of the legs (results.ts LegHits). */
export interface OrderLegs {
  bm25: readonly Hit[];
  fileOf?: Record<number, string>;
  linesOf?: Record<number, number>;
  typeOf?: Record<number, string>;
  fileSizeOf?: Record<string, FileSize>;
  /** The text of the files of the groups the order reads (headPaths), by path; absent: unknown to it. */
  fileTextOf?: ReadonlyMap<string, string>;
  /** The question's neighbouring content words (questionPairs), which nearPairs looks for in those texts. */
  questionPairs?: ReadonlyArray<readonly [string, string]>;
}

/**
 * Is this a list the order was fitted on (results.ts rankGroups applies it; the bench's dump
 * marks its questions with it): asked for (LegHits.learnedOrder: keyword mode, code intent, not a
 * doc comment's sentence), not `keywordFirst`, not one function's question, no vector hits.
 */
export function ordersList(legs: { learnedOrder?: boolean; keywordFirst?: boolean; functionLevel?: boolean; vector: readonly unknown[] }): boolean {
  return !!legs.learnedOrder && !legs.keywordFirst && !legs.functionLevel && !legs.vector.length;
}

/** The keyword leg's signals per candidate id. */
type SignalsOf = (id: number) => Record<string, number> | undefined;

function signalsOf(legs: OrderLegs): SignalsOf {
  const hits = new Map<number, Hit>(legs.bm25.map((h) => [h.id, h]));
  return (id) => hits.get(id)?.signals;
}

/**
 * The keyword leg's signals the order reads, by value (0 when absent). Not `kind`: what a file's
 * kind weighs is the intent's (config.ts KIND_FACTORS), and the questions the weights are fitted
 * on seldom ask for a test or a doc, so a weight on it would hold every test and doc down.
 */
const SIGNALS = ['bm25', 'name', 'coverage', 'exact', 'cover', 'file', 'path', 'file_name', 'spread'] as const;
/** The signals the order reads by presence too (they are absent for some pieces). */
const PRESENT = ['cover', 'file', 'path', 'file_name', 'spread'] as const;
/** Explain entries of the fusion the order reads by presence. */
const EXPLAINED = ['definition', 'diversity'] as const;
/** Chunk types of code the order tells apart (not `text`, a doc's piece: as for `kind` above). */
const TYPES = ['function', 'method', 'class', 'module', 'struct', 'interface', 'type', 'enum', 'comment'] as const;

/** Every feature's name, in the order orderFeatures writes them (the keys of LEARNED_ORDER.weights). */
export const ORDER_FEATURES: readonly string[] = [
  'inv_rank', 'rank', 'comb_rel', 'bm25_rel',
  ...SIGNALS.map((s) => `s_${s}`),
  ...PRESENT.map((s) => `has_${s}`),
  ...EXPLAINED.map((s) => `ex_${s}`),
  ...TYPES.map((t) => `t_${t}`),
  'log_lines', 'log_more', 'log_file_more', 'depth', 'dir_share', 'stem_share',
  'log_file_kb', 'log_file_pieces', 'file_share',
  'near_pairs', 'has_near_pair',
];

/** Stem length of a question word in questionPairs (`timeout` and `timeouts` → `timeo`). */
const PAIR_STEM = 5;
/** Characters between two words of a pair, at most, for them to count as near (nearPairs). */
const PAIR_GAP = 24;

/**
 * The question's neighbouring content words as stem pairs (issue 35, session 31): the words of
 * three letters or more that are not function words (text/stop-words.ts), in order, each cut to
 * PAIR_STEM letters; a pair of one stem twice is left out. "wait for a quiet period before emitting"
 * → [wait, quiet], [quiet, perio], [perio, befor], [befor, emitt].
 */
export function questionPairs(question: string): Array<[string, string]> {
  const words = (question.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => w.length >= 3 && !STOP_WORDS.has(w)).map((w) => w.slice(0, PAIR_STEM));
  const pairs: Array<[string, string]> = [];
  for (let i = 1; i < words.length; i++) if (words[i - 1] !== words[i]) pairs.push([words[i - 1], words[i]]);
  return pairs;
}

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code > 127;
}

/** Where `stem` starts a word of `text` (`lower` its lower case): after a non-word character, or as a capital after a small letter (`quietPeriod`). */
function wordStarts(text: string, lower: string, stem: string): number[] {
  const out: number[] = [];
  for (let i = lower.indexOf(stem); i !== -1; i = lower.indexOf(stem, i + 1)) {
    const before = i === 0 ? 32 : text.charCodeAt(i - 1);
    const here = text.charCodeAt(i);
    if (!isWordChar(before) || (here >= 65 && here <= 90 && before >= 97 && before <= 122)) out.push(i);
  }
  return out;
}

/**
 * The share of `pairs` whose two words start words of `text` within PAIR_GAP characters of each
 * other, in either order (`quiet period`, `QuietPeriod`, `period of quiet`): what a file that is
 * about the question says in the question's own phrases, where a big file that holds each word
 * somewhere does not. 0 without pairs.
 */
export function nearPairs(text: string, pairs: ReadonlyArray<readonly [string, string]>): number {
  if (!pairs.length || !text) return 0;
  const lower = text.toLowerCase();
  const startsOf = new Map<string, number[]>();
  const starts = (stem: string): number[] => {
    let out = startsOf.get(stem);
    if (!out) startsOf.set(stem, (out = wordStarts(text, lower, stem)));
    return out;
  };
  let near = 0;
  for (const [a, b] of pairs) {
    const bs = starts(b);
    if (!bs.length) continue;
    const as = starts(a);
    let k = 0;
    found: for (const i of as) {
      while (k < bs.length && bs[k] < i - PAIR_GAP - b.length) k++;
      for (let j = k; j < bs.length && bs[j] <= i + a.length + PAIR_GAP; j++) {
        if (bs[j] !== i) {
          near++;
          break found;
        }
      }
    }
  }
  return near / pairs.length;
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** The file name without its last extension (`retry-timing` of `source/core/retry-timing.ts`). */
function stemOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

function count<T>(values: readonly T[]): Map<T, number> {
  const out = new Map<T, number>();
  for (const v of values) out.set(v, (out.get(v) ?? 0) + 1);
  return out;
}

/** Pieces a group shows besides its own: its definition's other pieces and its file's folded ones. */
function moreOf(g: OrderItem): number {
  return g.more.length + g.filePieces.reduce((n, p) => n + 1 + p.more.length, 0);
}

/**
 * Which of `groups` the order moves: the pieces of code the question's intent weighs in full
 * (no `kind` signal: config.ts KIND_FACTORS gave them 1). Tests, docs, examples, configuration
 * and generated files keep the places the intent's kind factors gave them; the order only
 * decides which implementation file's piece takes which of the other places.
 */
export function movable(groups: readonly OrderItem[], legs: OrderLegs, signals: SignalsOf = signalsOf(legs)): boolean[] {
  return groups.map((g) => {
    const own = signals(g.id);
    return !!own && !('kind' in own);
  });
}

/** One row of ORDER_FEATURES per group of `groups` (the list's first ones, in their order). */
export function orderFeatures(groups: readonly OrderItem[], legs: OrderLegs, signalsById: SignalsOf = signalsOf(legs)): number[][] {
  if (!groups.length) return [];
  const pathOf = (g: OrderItem) => legs.fileOf?.[g.id] ?? '';
  const topScore = groups[0].combinedScore || 1;
  const maxBm25 = Math.max(...groups.map((g) => g.bm25Score)) || 1;
  const dirs = count(groups.map((g) => dirOf(pathOf(g))));
  const stems = count(groups.map((g) => stemOf(pathOf(g))));
  const n = groups.length;
  const pairs = legs.questionPairs ?? [];
  const nearOf = new Map<string, number>();
  const near = (path: string): number => {
    let v = nearOf.get(path);
    if (v === undefined) nearOf.set(path, (v = nearPairs(legs.fileTextOf?.get(path) ?? '', pairs)));
    return v;
  };
  return groups.map((g, i) => {
    const signals = signalsById(g.id) ?? {};
    const explained = new Set(g.explain.map((e) => e.signal));
    const type = legs.typeOf?.[g.id];
    const path = pathOf(g);
    const size = legs.fileSizeOf?.[path];
    return [
      1 / (i + 1), i / 10, g.combinedScore / topScore, g.bm25Score / maxBm25,
      ...SIGNALS.map((s) => signals[s] ?? 0),
      ...PRESENT.map((s) => (s in signals ? 1 : 0)),
      ...EXPLAINED.map((s) => (explained.has(s) ? 1 : 0)),
      ...TYPES.map((t) => (type === t ? 1 : 0)),
      Math.log1p(legs.linesOf?.[g.id] ?? 0), Math.log1p(moreOf(g)), Math.log1p(g.fileMore), path.split('/').length - 1,
      dirs.get(dirOf(path))! / n, stems.get(stemOf(path))! / n,
      // The file's size, and the share of its pieces the keyword leg found (this one, the
      // folded ones and the others it holds): a small file about the question against a big one
      // that mentions it among much else.
      Math.log1p((size?.bytes ?? 0) / 1000), Math.log1p(size?.pieces ?? 0),
      size?.pieces ? Math.min(1, (1 + moreOf(g) + g.fileMore) / size.pieces) : 0,
      // The question's neighbouring words near each other in the file (nearPairs).
      near(path), near(path) > 0 ? 1 : 0,
    ];
  });
}

/**
 * The files of the groups the order moves (the movable ones among the first LEARNED_ORDER.depth):
 * whose sizes and texts it wants (OrderLegs.fileSizeOf, fileTextOf). A test's or a doc's features
 * decide nothing: it keeps its place.
 */
export function headPaths(groups: readonly OrderItem[], legs: OrderLegs): string[] {
  const head = groups.slice(0, LEARNED_ORDER.depth);
  const canMove = movable(head, legs);
  return [...new Set(head.flatMap((g, i) => (canMove[i] ? (legs.fileOf?.[g.id] ?? []) : [])))];
}

/**
 * `groups` with its first LEARNED_ORDER.depth in the learned order (a new array; the groups are
 * changed in place: scores, explain). Ties keep the pipeline's order.
 */
export function learnedOrder<G extends OrderItem>(groups: G[], legs: OrderLegs): G[] {
  const depth = Math.min(LEARNED_ORDER.depth, groups.length);
  if (depth < 2) return groups;
  const head = groups.slice(0, depth);
  const weights = ORDER_FEATURES.map((f) => LEARNED_ORDER.weights[f] ?? 0);
  const signals = signalsOf(legs);
  const features = orderFeatures(head, legs, signals);
  const canMove = movable(head, legs, signals);
  // The movable groups, best first, into the places movable groups held; the others stay.
  const slots = head.map((_, i) => i).filter((i) => canMove[i]);
  const ranked = slots.map((i) => ({ i, s: features[i].reduce((sum, v, j) => sum + v * weights[j], 0) }));
  ranked.sort((a, b) => b.s - a.s || a.i - b.i);
  const scores = head.map((g) => g.combinedScore);
  const out = [...head];
  ranked.forEach(({ i }, k) => {
    const to = slots[k];
    if (i === to) return;
    const g = head[i];
    const before = g.combinedScore;
    g.combinedScore = scores[to];
    g.explain.push({ signal: 'order', value: i + 1, contribution: g.combinedScore - before });
    out[to] = g;
  });
  return [...out, ...groups.slice(depth)];
}
