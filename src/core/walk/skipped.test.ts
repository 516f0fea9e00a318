import { describe, expect, it } from 'vitest';
import { EXAMPLES_PER_REASON, MAX_EXTENSIONS, OTHER_EXTENSIONS, parseSkippedStats, SkipTally } from './skipped.ts';

describe('SkipTally', () => {
  it('counts by reason and by file extension (folders by reason only), with a few examples per reason', () => {
    const t = new SkipTally();
    t.add({ path: 'node_modules', reason: 'ignored', directory: true });
    t.add({ path: 'img/a.PNG', reason: 'binary', detail: '.png file, not read' });
    t.add({ path: 'img/b.png', reason: 'binary', detail: '.png file, not read' });
    t.add({ path: 'data/blob', reason: 'binary', detail: 'binary content' });
    t.add({ path: 'big.sql', reason: 'too-large', detail: '2000000 bytes > 1048576' });
    for (let i = 0; i < 5; i++) t.add({ path: `x${i}.log`, reason: 'ignored' });
    const r = t.result();
    expect(r.total).toBe(10);
    expect(r.by_reason).toEqual({ ignored: 6, binary: 3, 'too-large': 1 });
    expect(Object.keys(r.by_reason)).toEqual(['ignored', 'binary', 'too-large']); // most first
    expect(r.by_extension).toEqual({ '.log': 5, '.png': 2, '(none)': 1, '.sql': 1 });
    expect(r.examples.map((e) => e.path)).toEqual(['node_modules', 'x0.log', 'x1.log', 'img/a.PNG', 'img/b.png', 'data/blob', 'big.sql']);
    expect(r.examples).toHaveLength(EXAMPLES_PER_REASON + 3 + 1);
    expect(r.examples[3]).toEqual({ path: 'img/a.PNG', reason: 'binary', detail: '.png file, not read' });
    expect(parseSkippedStats(JSON.stringify(r))).toEqual(r);
  });

  it('keeps the most frequent extensions and sums the rest', () => {
    const t = new SkipTally();
    for (let i = 0; i < MAX_EXTENSIONS + 5; i++) for (let k = 0; k <= i; k++) t.add({ path: `f${k}.e${i}`, reason: 'binary' });
    const r = t.result();
    expect(Object.keys(r.by_extension)).toHaveLength(MAX_EXTENSIONS + 1);
    expect(r.by_extension['.e' + (MAX_EXTENSIONS + 4)]).toBe(MAX_EXTENSIONS + 5);
    expect(r.by_extension[OTHER_EXTENSIONS]).toBe(1 + 2 + 3 + 4 + 5);
    expect(Object.values(r.by_extension).reduce((a, b) => a + b, 0)).toBe(r.total);
  });

  it('parses only its own shape', () => {
    expect(parseSkippedStats(null)).toBeNull();
    expect(parseSkippedStats('not json')).toBeNull();
    expect(parseSkippedStats('{"a.bin":"1:2"}')).toBeNull();
    expect(parseSkippedStats(JSON.stringify(new SkipTally().result()))).toEqual({ total: 0, by_reason: {}, by_extension: {}, examples: [] });
  });
});
