import { describe, expect, it } from 'vitest';
import { FILE_SIGNALS } from '../config.ts';
import { addScore, applyFileSignals, pathSignal, sameWordForm, type FileCandidate } from './signals.ts';

const cand = (id: number, path: string, score: number, language = 'go'): FileCandidate => ({ id, path, language, score, signals: {} });

describe('pathSignal', () => {
  it('counts query words in the file name above words in a directory', () => {
    const inName = pathSignal('pkg/http/retry.go', ['retry', 'backoff']);
    const inDir = pathSignal('pkg/retry/client.go', ['retry', 'backoff']);
    expect(inName).toBeGreaterThan(inDir);
    expect(inDir).toBeGreaterThan(0);
    expect(pathSignal('pkg/http/client.go', ['retry', 'backoff'])).toBe(0);
  });
  it('matches identifier parts and light stems of path words', () => {
    expect(pathSignal('lib/PluginLoader.kt', ['plugins', 'loaded'])).toBe(1);
    expect(pathSignal('src/routing/router.rs', ['routing'])).toBe(1);
  });
  it('matches another form of the word and abbreviations in file and directory names (issue 35)', () => {
    expect(pathSignal('src/compose.ts', ['composition'])).toBe(1);
    expect(pathSignal('src/StringUtils.java', ['string', 'utility'])).toBe(1);
    expect(pathSignal('pkg/errs/err.go', ['error'])).toBe(1);
    expect(pathSignal('lib/cfg/loader.go', ['configuration'])).toBeGreaterThan(0);
    expect(pathSignal('src/generic.rs', ['general'])).toBe(0);
  });
  it('sameWordForm: a shared start of six or more that leaves at most two letters of the shorter word', () => {
    expect(sameWordForm('iterator', 'iteration')).toBe(true);
    expect(sameWordForm('validate', 'validation')).toBe(true);
    expect(sameWordForm('format', 'formal')).toBe(false);
    expect(sameWordForm('generic', 'general')).toBe(false);
  });
});

describe('applyFileSignals', () => {
  it('puts the implementation above its test and docs for a code question, and the test first for a test question', () => {
    const make = () => [cand(1, 'router_test.go', 1), cand(2, 'docs/router.md', 1, 'markdown'), cand(3, 'router.go', 0.9)];
    const code = make();
    applyFileSignals(code, ['router'], 'code');
    expect(code.sort((a, b) => b.score - a.score).map((c) => c.id)).toEqual([3, 1, 2]);
    expect(code.find((c) => c.id === 1)!.signals.kind).toBeLessThan(1);
    const test = make();
    applyFileSignals(test, ['router'], 'test');
    expect(test.sort((a, b) => b.score - a.score)[0].id).toBe(1);
  });
  it('adds evidence from other matching pieces of the same file', () => {
    const cs = [cand(1, 'a.go', 1), cand(2, 'b.go', 1), cand(3, 'b.go', 0.5)];
    applyFileSignals(cs, ['x'], 'any');
    expect(cs[1].score).toBeGreaterThan(cs[0].score);
    expect(cs[1].signals.file).toBeGreaterThan(0);
    expect(cs[0].signals.file).toBeUndefined();
  });
  it('cover: a file whose pieces together hold more of the query\'s words gets more', () => {
    const saved = FILE_SIGNALS.fileCoverWeight;
    (FILE_SIGNALS as { fileCoverWeight: number }).fileCoverWeight = 0.3;
    try {
    // terms: 3; a.go's one piece holds term 0 strongly; b.go's two pieces hold terms 0-2 between them.
    const withTerms = (c: FileCandidate, terms: number) => ({ ...c, terms });
    const cs = [withTerms(cand(1, 'a.go', 1), 0b001), withTerms(cand(2, 'b.go', 0.9), 0b011), withTerms(cand(3, 'b.go', 0.2), 0b100)];
    applyFileSignals(cs, ['x'], 'any', 3);
    const w = FILE_SIGNALS.fileCoverWeight;
    expect(cs[0].signals.cover).toBeCloseTo(w / 3);
    expect(cs[1].signals.cover).toBeCloseTo(w);
    expect(cs[2].signals.cover).toBeCloseTo(w);
    expect(cs[1].score).toBeGreaterThan(cs[0].score);
    const off = [cand(1, 'a.go', 1)];
    applyFileSignals(off, ['x'], 'any');
    expect(off[0].signals.cover).toBeUndefined();
    } finally {
      (FILE_SIGNALS as { fileCoverWeight: number }).fileCoverWeight = saved;
    }
  });
  it('records every contribution by name so explain sums to the score', () => {
    const c = cand(1, 'retry.go', 2);
    c.signals.bm25 = 2;
    applyFileSignals([c], ['retry'], 'code');
    expect(c.signals.path).toBeGreaterThan(0);
    expect(c.score).toBeCloseTo(c.signals.bm25 + c.signals.path);
    addScore(c, 'x', 0);
    expect('x' in c.signals).toBe(false);
  });
});
