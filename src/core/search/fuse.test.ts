import { describe, expect, it } from 'vitest';
import { EXACT_SYMBOL_BOOST, fuseRrf, strategyFor, toRankedHits, type FuseOptions } from './fuse.ts';
import type { Hit, SearchMode, SearchStrategy } from '../types.ts';
import { idsOf, rankGroups, type LegHits } from './results.ts';
import { DIVERSITY, MAX_FILE_PIECES, MAX_FOLDED_LINES } from '../config.ts';

const hits = (...ids: number[]): Hit[] => ids.map((id, i) => ({ id, score: 10 - i, rank: i + 1 }));
const order = (bm25: Hit[], vector: Hit[], opts?: FuseOptions) => fuseRrf(bm25, vector, opts).map((f) => f.id);

describe('fuseRrf ordering', () => {
  it.each<[string, Hit[], Hit[], FuseOptions | undefined, number[]]>([
    ['both legs agree', hits(1, 2, 3), hits(1, 2, 3), undefined, [1, 2, 3]],
    ['an item in both legs beats rank 1 of one leg', hits(1, 2), hits(3, 2), undefined, [2, 1, 3]],
    ['equal scores: BM25 rank breaks the tie', hits(1), hits(2), undefined, [1, 2]],
    ['vector weight 0: BM25 order, vector-only items last', hits(5, 6), hits(7, 6, 5), { vectorWeight: 0 }, [5, 6, 7]],
    ['BM25 weight 0: vector order', hits(5, 6), hits(7, 6, 5), { bm25Weight: 0 }, [7, 6, 5]],
    ['vector weight 1 vs 0.1 tips a disagreement', hits(1, 2), hits(2, 1), { bm25Weight: 0.1, vectorWeight: 1 }, [2, 1]],
    ['only BM25 hits', hits(9, 8), [], undefined, [9, 8]],
    ['only vector hits', [], hits(9, 8), undefined, [9, 8]],
    ['no hits', [], [], undefined, []],
    ['limit keeps the best', hits(1, 2, 3), hits(4, 5, 6), { limit: 2 }, [1, 4]],
    ['exact symbol from the bottom of one leg goes first', hits(1, 2, 3), hits(1, 2), { exactSymbolIds: new Set([3]) }, [3, 1, 2]],
    ['two exact symbols keep their RRF order', hits(1, 2, 3), hits(3), { exactSymbolIds: new Set([2, 3]) }, [3, 2, 1]],
    ['exact symbol with k = 0 and weight 1 still first', hits(1, 2), hits(1, 2), { k: 0, bm25Weight: 1, vectorWeight: 1, exactSymbolIds: new Set([2]) }, [2, 1]],
    // A name lookup: the keyword leg's first item stays first however the vector leg disagrees; the rest fuse as usual.
    ['keywordFirst: keyword first kept, the rest by RRF', hits(1, 2, 3), hits(3, 9, 2, 1), { keywordFirst: true, vectorWeight: 1 }, [1, 3, 2, 9]],
    ['keywordFirst: a vector-only item can pass later keyword items, never the first', hits(...Array.from({ length: 200 }, (_, i) => i + 1)), hits(500), { keywordFirst: true, bm25Weight: 0.1, vectorWeight: 1 }, [1, 500, ...Array.from({ length: 199 }, (_, i) => i + 2)]],
    ['keywordFirst: the first definition stays first, equal-tier ones after it follow RRF', hits(1, 2, 3), hits(3, 2), { keywordFirst: true, definitionTiers: new Map([[1, 1], [2, 1], [3, 1]]) }, [1, 3, 2]],
    ['keywordFirst: first stays above a higher-tier definition only the vector leg found', hits(1, 2), hits(7), { keywordFirst: true, definitionTiers: new Map([[7, 3]]) }, [1, 7, 2]],
    ['keywordFirst without a vector leg: plain keyword scores', hits(1, 2), [], { keywordFirst: true, definitionTiers: new Map([[2, 1]]) }, [2, 1]],
    ['without keywordFirst the vector leg reorders equal-tier definitions', hits(1, 2, 3), hits(2), { definitionTiers: new Map([[1, 1], [2, 1]]) }, [2, 1, 3]],
  ])('%s', (_name, bm25, vector, opts, want) => {
    expect(order(bm25, vector, opts)).toEqual(want);
  });
});

describe('fuseRrf scores and explain', () => {
  it('computes the RRF formula with k = 60 and weights 0.5 by default', () => {
    const [top] = fuseRrf(hits(1, 2), hits(2, 1));
    expect(top.id).toBe(1); // tie on score, BM25 rank 1 wins
    expect(top.combinedScore).toBeCloseTo(0.5 / 61 + 0.5 / 62, 12);
  });

  it('carries ranks, raw scores, legs and 1-based fused rank', () => {
    const fused = fuseRrf([{ id: 7, score: 3.2, rank: 1 }], [{ id: 7, score: 0.81, rank: 4 }, { id: 9, score: 0.9, rank: 1 }]);
    expect(fused).toEqual([
      expect.objectContaining({ id: 7, rank: 1, bm25Score: 3.2, vectorScore: 0.81, bm25Rank: 1, vectorRank: 4, legs: ['bm25', 'vector'] }),
      expect.objectContaining({ id: 9, rank: 2, bm25Score: 0, vectorScore: 0.9, bm25Rank: null, vectorRank: 1, legs: ['vector'] }),
    ]);
  });

  it.each<[string, FuseOptions]>([
    ['defaults', {}],
    ['custom k and weights', { k: 10, bm25Weight: 0.8, vectorWeight: 0.3 }],
    ['with exact symbols', { exactSymbolIds: new Set([2, 4]) }],
  ])('explain contributions sum to the combined score (%s)', (_name, opts) => {
    for (const item of fuseRrf(hits(1, 2, 3), hits(4, 2, 5), opts)) {
      const sum = item.explain.reduce((s, e) => s + e.contribution, 0);
      expect(sum).toBeCloseTo(item.combinedScore, 12);
      expect(item.explain.map((e) => e.signal)).toEqual([
        ...(item.bm25Rank !== null ? ['bm25_rrf'] : []),
        ...(item.vectorRank !== null ? ['vector_rrf'] : []),
        ...(opts.exactSymbolIds?.has(item.id) ? ['definition'] : []),
      ]);
    }
  });

  it('names the exact-symbol boost and makes it exceed any RRF score', () => {
    const [item] = fuseRrf([], hits(3), { exactSymbolIds: new Set([3]) });
    const boost = item.explain.find((e) => e.signal === 'definition');
    expect(boost?.contribution).toBeGreaterThan(EXACT_SYMBOL_BOOST);
    expect(boost!.contribution).toBeGreaterThan(1 / 61);
  });

  it('counts the best rank when a leg repeats an id', () => {
    const [item] = fuseRrf([{ id: 1, score: 2, rank: 3 }, { id: 1, score: 5, rank: 1 }], []);
    expect(item.bm25Rank).toBe(1);
    expect(item.bm25Score).toBe(5);
  });

  it('is pure: re-fusing the same stored hits with new weights re-orders without mutating the input', () => {
    const bm25 = hits(1, 2, 3);
    const vector = hits(3, 2, 1);
    const snapshot = JSON.stringify([bm25, vector]);
    expect(order(bm25, vector, { bm25Weight: 1, vectorWeight: 0 })).toEqual([1, 2, 3]);
    expect(order(bm25, vector, { bm25Weight: 0, vectorWeight: 1 })).toEqual([3, 2, 1]);
    expect(JSON.stringify([bm25, vector])).toBe(snapshot);
    expect(fuseRrf(bm25, vector)).toEqual(fuseRrf(bm25, vector));
  });

  it.each<[FuseOptions]>([[{ k: -1 }], [{ bm25Weight: -0.1 }], [{ vectorWeight: NaN }]])('rejects %o', (opts) => {
    expect(() => fuseRrf(hits(1), hits(1), opts)).toThrow(RangeError);
  });
});

describe('strategyFor', () => {
  it.each<[SearchMode, boolean, boolean, SearchStrategy]>([
    ['hybrid', true, true, 'hybrid'],
    ['hybrid', true, false, 'bm25_only'],
    ['hybrid', false, true, 'vector_only'],
    ['hybrid', false, false, 'none'],
    ['bm25', true, true, 'bm25_only'],
    ['bm25', false, true, 'none'],
    ['vector', true, true, 'vector_only'],
    ['vector', true, false, 'none'],
  ])('%s, bm25=%s, vectors=%s → %s', (mode, b, v, want) => {
    expect(strategyFor(mode, b, v)).toBe(want);
  });
});

describe('toRankedHits', () => {
  it('ranks in order from 1', () => {
    expect(toRankedHits([{ id: 4, score: 0.9 }, { id: 2, score: 0.5 }])).toEqual([
      { id: 4, score: 0.9, rank: 1 }, { id: 2, score: 0.5, rank: 2 },
    ]);
  });
});

describe('rankGroups diversity', () => {
  /** Keyword hits in this order, with these scores. */
  const legs = (hits: Array<[id: number, score: number]>, fileOf: Record<number, string>, tiers: Record<number, number> = {}): LegHits => ({
    bm25: hits.map(([id, score], i) => ({ id, score, rank: i + 1 })), vector: [], definitionTiers: tiers, groupKeys: {}, fileOf, vectorFloor: null, vectorDropped: 0,
  });
  const w = { bm25Weight: 0.5, vectorWeight: 0.5 };

  it('lets another piece of a listed file take a slot only by a margin, and folds the rest into the file\'s first result', () => {
    // a.go holds ranks 1-4; b.go rank 5, c.go rank 6, all of comparable scores.
    const fileOf = { 1: 'a.go', 2: 'a.go', 3: 'a.go', 4: 'a.go', 5: 'b.go', 6: 'c.go' };
    const hits: Array<[number, number]> = [[1, 10], [2, 9], [3, 9], [4, 8.5], [5, 8.5], [6, 8]];
    const out = rankGroups(legs(hits, fileOf), w, 3);
    expect(out.map((g) => g.id)).toEqual([1, 5, 6]);
    expect(out[0].filePieces.map((g) => g.id)).toEqual([2, 3, 4]);
    expect(out[0].fileMore).toBe(0);
    // Every piece once: listed or folded, never both.
    expect(idsOf(out).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    const all = rankGroups(legs(hits, fileOf), w, 6);
    expect(all.map((g) => g.id)).toEqual([1, 5, 6]);
    for (const g of all) expect(g.explain.reduce((s, e) => s + e.contribution, 0)).toBeCloseTo(g.combinedScore);
    for (let i = 1; i < all.length; i++) expect(all[i].combinedScore).toBeLessThanOrEqual(all[i - 1].combinedScore);
  });
  it('folds at most MAX_FILE_PIECES pieces into a result and counts the rest of the file', () => {
    const fileOf: Record<number, string> = { 1: 'a.go', 20: 'b.go' };
    const hits: Array<[number, number]> = [[1, 10]];
    for (let i = 0; i < MAX_FILE_PIECES + 3; i++) {
      hits.push([2 + i, 9 - i * 0.01]);
      fileOf[2 + i] = 'a.go';
    }
    hits.push([20, 8.9]);
    const out = rankGroups(legs(hits, fileOf), w, 2);
    expect(out.map((g) => g.id)).toEqual([1, 20]);
    expect(out[0].filePieces.map((g) => g.id)).toEqual(hits.slice(1, 1 + MAX_FILE_PIECES).map(([id]) => id));
    expect(out[0].fileMore).toBe(3);
  });
  it('counts a listed file\'s pieces the keyword leg held back (Hit.held) in its fileMore, once, unless a leg brought them in', () => {
    const fileOf = { 1: 'a.go', 2: 'b.go' };
    const base = legs([[1, 10], [2, 9]], fileOf);
    const held: LegHits = { ...base, bm25: [{ ...base.bm25[0], held: [7, 8, 9] }, base.bm25[1]] };
    expect(rankGroups(base, w, 2)[0].fileMore).toBe(0);
    expect(rankGroups(held, w, 2)[0].fileMore).toBe(3);
    // Piece 9 came back through the vector leg (hybrid): a group of its own, not counted again.
    const hybrid: LegHits = { ...held, vector: [{ id: 9, score: 0.5, rank: 1 }], fileOf: { ...fileOf, 9: 'a.go' } };
    const out = rankGroups(hybrid, w, 3);
    expect(idsOf(out)).toContain(9);
    expect(out.find((g) => g.id === 1)!.fileMore).toBe(2);
  });
  it('folds a piece only while the result stays within MAX_FOLDED_LINES lines', () => {
    const fileOf = { 1: 'a.go', 2: 'a.go', 3: 'a.go', 4: 'b.go' };
    const hits: Array<[number, number]> = [[1, 10], [2, 9], [3, 9], [4, 8.9]];
    const linesOf = { 1: 40, 2: MAX_FOLDED_LINES - 40, 3: 1, 4: 10 };
    const out = rankGroups({ ...legs(hits, fileOf), linesOf }, w, 2);
    expect(out.map((g) => g.id)).toEqual([1, 4]);
    expect(out[0].filePieces.map((g) => g.id)).toEqual([2]);
    expect(out[0].fileMore).toBe(1);
    // Without the line counts only MAX_FILE_PIECES limits it.
    expect(rankGroups(legs(hits, fileOf), w, 2)[0].filePieces.map((g) => g.id)).toEqual([2, 3]);
  });
  it('a piece that cannot fold moves down a few places and keeps the score order', () => {
    const fileOf: Record<number, string> = { 1: 'a.go' };
    const hits: Array<[number, number]> = [[1, 10]];
    for (let i = 0; i <= MAX_FILE_PIECES; i++) {
      hits.push([2 + i, 9 - i * 0.01]);
      fileOf[2 + i] = 'a.go';
    }
    const last = 2 + MAX_FILE_PIECES;
    for (let i = 0; i < 6; i++) {
      hits.push([30 + i, 8.9 - i * 0.01]);
      fileOf[30 + i] = `f${i}.go`;
    }
    const all = rankGroups(legs(hits, fileOf), w, 8);
    expect(all.map((g) => g.id).indexOf(last)).toBe(1 + DIVERSITY.maxPass);
    expect(all[1 + DIVERSITY.maxPass].explain.some((e) => e.signal === 'diversity')).toBe(true);
    for (let i = 1; i < all.length; i++) expect(all[i].combinedScore).toBeLessThanOrEqual(all[i - 1].combinedScore);
  });
  it('keeps a second piece of a file only when the alternatives score less than half as much', () => {
    const fileOf: Record<number, string> = { 1: 'a.go', 2: 'a.go', 3: 'b.go', 4: 'c.go' };
    // 9 × 0.5 ≥ 4: the strong second piece stays ahead of far weaker matches in other files.
    expect(rankGroups(legs([[1, 10], [2, 9], [3, 4], [4, 3]], fileOf), w, 3).map((g) => g.id)).toEqual([1, 2, 3]);
    // 9 × 0.5 < 6 (and < 8): the alternative takes the slot, and the piece folds into a.go's
    // result (session 10: at 0.8 the piece kept its slot against 6 and only repeated a listed file).
    for (const third of [8, 6]) {
      const out = rankGroups(legs([[1, 10], [2, 9], [3, third], [4, 3]], fileOf), w, 3);
      expect(out.map((g) => g.id)).toEqual([1, 3, 4]);
      expect(out[0].filePieces.map((g) => g.id)).toEqual([2]);
    }
  });
  it('a held-back piece is found at its file\'s rank, in its first result', () => {
    const fileOf: Record<number, string> = { 1: 'a.go', 2: 'a.go' };
    const hits: Array<[number, number]> = [[1, 10], [2, 9], ...Array.from({ length: 6 }, (_, i): [number, number] => [10 + i, 8.9 - i * 0.01])];
    for (const [id] of hits.slice(2)) fileOf[id] = `f${id}.go`;
    const out = rankGroups(legs(hits, fileOf), w, 8);
    expect(out.map((g) => g.id)).toEqual([1, 10, 11, 12, 13, 14, 15]);
    expect(out[0].filePieces.map((g) => g.id)).toEqual([2]);
  });
  it('leaves definitions of a named identifier in tier order', () => {
    const fileOf = { 1: 'a.go', 2: 'a.go', 3: 'b.go' };
    const out = rankGroups(legs([[1, 1000], [2, 1000], [3, 5]], fileOf, { 1: 1, 2: 1 }), w, 3);
    expect(out.map((g) => g.id)).toEqual([1, 2, 3]);
  });
  it('a question describing one function keeps the pieces in score order, and still counts the rest of the file', () => {
    const fileOf = { 1: 'a.go', 2: 'a.go', 3: 'a.go', 4: 'a.go', 5: 'b.go', 6: 'c.go' };
    const hits: Array<[number, number]> = [[1, 10], [2, 9], [3, 9], [4, 8.5], [5, 8.5], [6, 8]];
    const l = { ...legs(hits, fileOf), functionLevel: true };
    expect(rankGroups(l, w, 6).map((g) => g.id)).toEqual([1, 2, 3, 4, 5, 6]);
    const top = rankGroups(l, w, 2);
    expect(top.map((g) => g.id)).toEqual([1, 2]);
    // Below the limit, a.go's other pieces fold into its first result.
    expect(top[0].filePieces.map((g) => g.id)).toEqual([3, 4]);
    expect(top[0].fileMore).toBe(0);
  });
  it('without file paths ranks as fused', () => {
    const l = legs([[1, 3], [2, 2], [3, 1]], {});
    delete l.fileOf;
    expect(rankGroups(l, w, 3).map((g) => g.id)).toEqual([1, 2, 3]);
  });
});
