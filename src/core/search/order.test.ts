import { describe, expect, it } from 'vitest';
import type { Hit } from '../types.ts';
import { LEARNED_ORDER } from '../config.ts';
import { ORDER_FEATURES, headPaths, learnedOrder, nearPairs, orderFeatures, questionPairs, type OrderLegs } from './order.ts';
import { rankGroups, type GroupedItem, type LegHits } from './results.ts';

/** A keyword-only group as rankGroups makes them: `score` its fused score and its keyword score. */
function group(id: number, score: number, explain: string[] = []): GroupedItem {
  return {
    id, rank: 0, combinedScore: score, bm25Score: score, vectorScore: 0, bm25Rank: id, vectorRank: null, legs: ['bm25'],
    explain: explain.map((signal) => ({ signal, value: 1, contribution: 0 })), more: [], filePieces: [], fileMore: 0,
  };
}

function legsOf(paths: Record<number, string>, signals: Record<number, Record<string, number>> = {}, types: Record<number, string> = {}): OrderLegs {
  const ids = Object.keys(paths).map(Number);
  return {
    bm25: ids.map((id, i): Hit => ({ id, score: 10 - i, rank: i + 1, signals: { bm25: 1, ...signals[id] } })),
    fileOf: paths,
    linesOf: Object.fromEntries(ids.map((id) => [id, 20])),
    typeOf: Object.fromEntries(ids.map((id) => [id, types[id] ?? 'function'])),
  };
}

const feature = (row: number[], name: string) => row[ORDER_FEATURES.indexOf(name)];

describe('orderFeatures', () => {
  it('writes one row of every feature per group, from its place, signals, type, path and neighbours', () => {
    const groups = [group(1, 1), group(2, 0.5, ['diversity']), group(3, 0.25)];
    const rows = orderFeatures(groups, legsOf({ 1: 'src/a/retry.ts', 2: 'src/a/retry.ts', 3: 'lib/retry.go' }, { 3: { cover: 0.3 } }, { 3: 'enum' }));
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r).toHaveLength(ORDER_FEATURES.length);
    expect(feature(rows[1], 'inv_rank')).toBe(0.5);
    expect(feature(rows[2], 'comb_rel')).toBe(0.25);
    expect(feature(rows[1], 'ex_diversity')).toBe(1);
    expect(feature(rows[0], 'ex_diversity')).toBe(0);
    expect(feature(rows[2], 's_cover')).toBe(0.3);
    expect(feature(rows[2], 'has_cover')).toBe(1);
    expect(feature(rows[0], 'has_cover')).toBe(0);
    expect(feature(rows[2], 't_enum')).toBe(1);
    expect(feature(rows[0], 'dir_share')).toBeCloseTo(2 / 3);
    expect(feature(rows[2], 'stem_share')).toBe(1); // retry.ts, retry.ts, retry.go: one name
    expect(feature(rows[0], 'depth')).toBe(2);
  });

  it("reads each file's size and the share of its pieces the keyword leg found", () => {
    const g = group(1, 1);
    g.more = [group(5, 0.1)];
    g.fileMore = 2;
    const legs = { ...legsOf({ 1: 'src/big.ts', 2: 'src/small.ts', 3: 'src/gone.ts' }), fileSizeOf: { 'src/big.ts': { bytes: 40_000, pieces: 40 }, 'src/small.ts': { bytes: 1_000, pieces: 2 } } };
    const rows = orderFeatures([g, group(2, 0.5), group(3, 0.25)], legs);
    expect(feature(rows[0], 'log_file_kb')).toBeCloseTo(Math.log1p(40));
    expect(feature(rows[0], 'log_file_pieces')).toBeCloseTo(Math.log1p(40));
    expect(feature(rows[0], 'file_share')).toBeCloseTo(4 / 40); // itself, its other piece, 2 more of the file
    expect(feature(rows[1], 'file_share')).toBe(0.5);
    expect(feature(rows[1], 'log_file_kb')).toBeCloseTo(Math.log(2));
    // A file the index does not know (or no sizes read): 0, as in the fit.
    expect([feature(rows[2], 'log_file_kb'), feature(rows[2], 'log_file_pieces'), feature(rows[2], 'file_share')]).toEqual([0, 0, 0]);
  });

  it("reads how many of the question's neighbouring words each file's text holds near each other", () => {
    const groups = [group(1, 1), group(2, 0.5), group(3, 0.25)];
    const legs = legsOf({ 1: 'src/options.ts', 2: 'src/debounce.ts', 3: 'src/none.ts' });
    legs.questionPairs = questionPairs('wait for a quiet period before emitting');
    legs.fileTextOf = new Map([
      ['src/options.ts', 'export const wait = 1;\n// ... many lines ...\nconst quiet = true; // a period of time'],
      ['src/debounce.ts', '/** Emits only after a quiet period, waiting for quietPeriod ms before emitting. */'],
    ]);
    const rows = orderFeatures(groups, legs);
    // [wait, quiet], [quiet, perio], [perio, befor], [befor, emitt]
    expect(feature(rows[1], 'near_pairs')).toBe(1);
    expect(feature(rows[1], 'has_near_pair')).toBe(1);
    expect(feature(rows[0], 'near_pairs')).toBe(0.25); // "quiet = true; // a period": 16 characters apart
    expect(feature(rows[2], 'near_pairs')).toBe(0); // no text read
    expect(feature(rows[2], 'has_near_pair')).toBe(0);
    // Without the question's pairs, nothing is near.
    expect(feature(orderFeatures(groups, { ...legs, questionPairs: undefined })[1], 'near_pairs')).toBe(0);
  });

  it("wants the sizes and texts of the files it may move only: not a test's or a doc's, not past the depth", () => {
    const groups = Array.from({ length: 12 }, (_, i) => group(i + 1, 1 - i / 20));
    const paths = Object.fromEntries(groups.map((g) => [g.id, g.id === 3 ? 'test/retry.test.ts' : g.id === 4 ? 'src/retry.ts' : `src/f${g.id}.ts`]));
    const legs = legsOf(paths, { 3: { kind: 0.5 } });
    expect(headPaths(groups, legs)).toEqual(['src/f1.ts', 'src/f2.ts', 'src/retry.ts', ...[5, 6, 7, 8, 9, 10].map((i) => `src/f${i}.ts`)]);
  });

  it('has a weight for every feature it names, and no weight for a feature it does not', () => {
    for (const name of Object.keys(LEARNED_ORDER.weights)) expect(ORDER_FEATURES).toContain(name);
  });
});

describe('questionPairs and nearPairs', () => {
  it("pairs the question's content words in order, as stems, leaving out function words and repeats", () => {
    expect(questionPairs('How does the scheduler pick the next task?')).toEqual([['sched', 'pick'], ['pick', 'next'], ['next', 'task']]);
    expect(questionPairs('cache caches on timeouts')).toEqual([['cache', 'timeo']]);
    expect(questionPairs('a of')).toEqual([]);
  });

  it('counts a pair at word starts within the gap, in either order, in snake, camel and prose', () => {
    const pairs: Array<[string, string]> = [['dirty', 'memor']];
    expect(nearPairs('purge_dirty_memory(arena)', pairs)).toBe(1);
    expect(nearPairs('void purgeDirtyMemory();', pairs)).toBe(1);
    expect(nearPairs('memory that is dirty', pairs)).toBe(1);
    expect(nearPairs('undirty memory', pairs)).toBe(0); // "dirty" does not start a word there
    expect(nearPairs(`dirty ${'x'.repeat(40)} memory`, pairs)).toBe(0); // too far apart
    expect(nearPairs('memory', pairs)).toBe(0);
    expect(nearPairs('', pairs)).toBe(0);
    expect(nearPairs('dirty memory', [])).toBe(0);
  });
});

describe('learnedOrder', () => {
  it('moves a piece its file covers the question with above one that holds the words once', () => {
    const groups = [group(1, 1), group(2, 0.9)];
    const out = learnedOrder(groups, legsOf({ 1: 'a.ts', 2: 'b.ts' }, { 2: { cover: 0.3, spread: 0.2 } }));
    expect(out.map((g) => g.id)).toEqual([2, 1]);
    // The scores the two had, handed out in the new order: never rising down the list.
    expect(out.map((g) => g.combinedScore)).toEqual([1, 0.9]);
    expect(out[0].explain.at(-1)).toMatchObject({ signal: 'order', value: 2 });
    expect(out[0].explain.at(-1)!.contribution).toBeCloseTo(0.1);
  });

  it('puts a second piece of a listed file that diversity moved below the next file', () => {
    const out = learnedOrder([group(1, 1), group(2, 0.99, ['diversity']), group(3, 0.98)], legsOf({ 1: 'a.ts', 2: 'a.ts', 3: 'b.ts' }));
    expect(out.map((g) => g.id)).toEqual([1, 3, 2]);
  });

  it('leaves a test or doc where the intent put it, and moves the code around it', () => {
    // #2 is a doc the kind factor weighed (`kind`); #3 covers the question: it takes #1's place, not #2's.
    const out = learnedOrder([group(1, 1), group(2, 0.95), group(3, 0.9)], legsOf({ 1: 'a.ts', 2: 'docs/a.md', 3: 'b.ts' }, { 2: { kind: 0.4, cover: 0.3 }, 3: { cover: 0.3, spread: 0.2 } }, { 2: 'text' }));
    expect(out.map((g) => g.id)).toEqual([3, 2, 1]);
    expect(out[1].explain.some((e) => e.signal === 'order')).toBe(false);
    expect(out.map((g) => g.combinedScore)).toEqual([1, 0.95, 0.9]);
  });

  it('leaves groups past the depth where they are, and a list in order alone', () => {
    const n = LEARNED_ORDER.depth + 3;
    const groups = Array.from({ length: n }, (_, i) => group(i + 1, 1 - i / 100));
    const paths = Object.fromEntries(groups.map((g) => [g.id, `f${g.id}.ts`]));
    const out = learnedOrder(groups, legsOf(paths));
    expect(out.map((g) => g.id)).toEqual(groups.map((g) => g.id));
    expect(out.every((g) => !g.explain.some((e) => e.signal === 'order'))).toBe(true);
  });

  it('is off at depth 0', () => {
    const depth = LEARNED_ORDER.depth;
    LEARNED_ORDER.depth = 0;
    try {
      const out = learnedOrder([group(1, 1), group(2, 0.9)], legsOf({ 1: 'a.ts', 2: 'b.ts' }, { 2: { cover: 0.3 } }));
      expect(out.map((g) => g.id)).toEqual([1, 2]);
    } finally {
      LEARNED_ORDER.depth = depth;
    }
  });
});

describe('rankGroups and the learned order', () => {
  const base = (extra: Partial<LegHits>): LegHits => ({
    bm25: [{ id: 1, score: 10, rank: 1, signals: { bm25: 1 } }, { id: 2, score: 9.5, rank: 2, signals: { bm25: 0.95, cover: 0.3, spread: 0.2 } }],
    vector: [], definitionTiers: {}, groupKeys: {}, fileOf: { 1: 'a.ts', 2: 'b.ts' }, linesOf: { 1: 10, 2: 10 }, typeOf: { 1: 'function', 2: 'function' },
    vectorFloor: null, vectorDropped: 0, ...extra,
  });
  const ids = (legs: LegHits) => rankGroups(legs, { bm25Weight: 1, vectorWeight: 0 }, 10).map((g) => [g.id, g.rank]);

  it('applies to a keyword list that asks for it, and renumbers the ranks', () => {
    expect(ids(base({ learnedOrder: true }))).toEqual([[2, 1], [1, 2]]);
  });

  it.each<[string, Partial<LegHits>]>([
    ['not asked for', {}],
    ['a name lookup (keywordFirst)', { learnedOrder: true, keywordFirst: true }],
    ['a question about one function', { learnedOrder: true, functionLevel: true }],
    ['a list with the vector leg', { learnedOrder: true, vector: [{ id: 3, score: 0.5, rank: 1 }] }],
  ])('keeps the pipeline order for %s', (_name, extra) => {
    expect(ids(base(extra)).slice(0, 2)).toEqual([[1, 1], [2, 2]]);
  });
});
