import { describe, expect, it } from 'vitest';
import { isHit, isHitWithMore, scoreQuery, summarize, type Span } from './score.ts';

const fn: Span = { path: 'a.c', start: 101, end: 120 }; // 20 lines

describe('isHit', () => {
  it.each([
    ['exact span', { path: 'a.c', start: 101, end: 120 }, true],
    ['other file', { path: 'b.c', start: 101, end: 120 }, false],
    ['40-line window containing it', { path: 'a.c', start: 81, end: 120 }, true],
    ['covers exactly half the function', { path: 'a.c', start: 111, end: 130 }, true],
    ['covers 9 of 20 lines, 9 of 30 result lines', { path: 'a.c', start: 112, end: 141 }, false],
    ['small result fully inside', { path: 'a.c', start: 105, end: 108 }, true],
    ['151-line result containing it', { path: 'a.c', start: 1, end: 151 }, false],
    ['150-line result containing it', { path: 'a.c', start: 1, end: 150 }, true],
    ['adjacent, no overlap', { path: 'a.c', start: 121, end: 125 }, false],
  ])('%s', (_n, r, want) => expect(isHit(r, fn)).toBe(want));

  it('a long function is hit by a result that lies half inside it', () => {
    const long: Span = { path: 'a.c', start: 1, end: 1000 };
    expect(isHit({ path: 'a.c', start: 990, end: 1009 }, long)).toBe(true);
    expect(isHit({ path: 'a.c', start: 992, end: 1011 }, long)).toBe(false);
  });
});

describe('isHitWithMore (a result with its more pieces)', () => {
  it('a more piece that is the function makes the result a hit', () => {
    expect(isHitWithMore({ path: 'a.c', start: 1, end: 10, more: [{ start: 101, end: 120 }] }, fn)).toBe(true);
    expect(isHit({ path: 'a.c', start: 1, end: 10 }, fn)).toBe(false);
  });
  it('pieces that together hold half the function', () => {
    // 6 + 4 of 20 lines: neither piece alone holds half of the function or is half inside it.
    const head = { path: 'a.c', start: 95, end: 106 };
    expect(isHit(head, fn)).toBe(true); // 6 of 12 result lines: half the result
    const r = { path: 'a.c', start: 90, end: 106, more: [{ start: 117, end: 130 }] }; // 6 of 17, 4 of 14
    expect(isHit(r, fn)).toBe(false);
    expect(isHitWithMore({ ...r, more: [] }, fn)).toBe(false);
    expect(isHitWithMore(r, fn)).toBe(true);
  });
  it('another file, or more pieces elsewhere, are no hit', () => {
    expect(isHitWithMore({ path: 'b.c', start: 101, end: 120, more: [{ start: 101, end: 120 }] }, fn)).toBe(false);
    expect(isHitWithMore({ path: 'a.c', start: 1, end: 10, more: [{ start: 200, end: 230 }] }, fn)).toBe(false);
  });
  it('a piece over MAX_HIT_LINES counts for nothing', () => {
    expect(isHitWithMore({ path: 'a.c', start: 1, end: 10, more: [{ start: 1, end: 151 }] }, fn)).toBe(false);
  });
});

describe('scoreQuery / summarize', () => {
  const miss: Span = { path: 'x.c', start: 1, end: 5 };
  const hit: Span = { path: 'a.c', start: 101, end: 120 };
  it.each([
    [[hit, miss], 1, 1],
    [[miss, miss, hit], 3, 1 / 3],
    [[...Array(10).fill(miss), hit], null, 0],
    [[], null, 0],
  ] as const)('%#', (results, rank, rr) => {
    expect(scoreQuery(results, fn)).toEqual({ firstHitRank: rank, reciprocalRank: rr });
  });

  it('counts more pieces unless the rule is ownLines', () => {
    const folded = { path: 'a.c', start: 1, end: 10, more: [{ start: 101, end: 120 }] };
    expect(scoreQuery([miss, folded], fn).firstHitRank).toBe(2);
    expect(scoreQuery([miss, folded], fn, 10, 'ownLines').firstHitRank).toBe(null);
  });

  it('summarizes MRR, recall and top-1', () => {
    const s = summarize([
      { firstHitRank: 1, reciprocalRank: 1 },
      { firstHitRank: 2, reciprocalRank: 0.5 },
      { firstHitRank: null, reciprocalRank: 0 },
      { firstHitRank: null, reciprocalRank: 0 },
    ]);
    expect(s).toEqual({ queries: 4, mrr: 0.375, recall: 0.5, top1: 0.25 });
  });
});
