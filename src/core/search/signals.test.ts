import { describe, expect, it } from 'vitest';
import { addScore, applyFileSignals, pathSignal, type FileCandidate } from './signals.ts';

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
