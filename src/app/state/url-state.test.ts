import { describe, expect, it } from 'vitest';
import { DEFAULT_URL_STATE, parseHash, serializeHash, type UrlSearchState } from './url-state.ts';

describe('url-state', () => {
  const cases: Array<[string, UrlSearchState]> = [
    ['', DEFAULT_URL_STATE],
    ['#q=parse%20duration', { ...DEFAULT_URL_STATE, query: 'parse duration' }],
    ['#q=a%26b%3Dc&mode=keyword', { ...DEFAULT_URL_STATE, query: 'a&b=c', mode: 'bm25' }],
    ['#mode=semantic&lang=go,python', { ...DEFAULT_URL_STATE, mode: 'vector', languages: ['go', 'python'] }],
    ['#glob=src%2F**%2F*.ts&type=function,method', { ...DEFAULT_URL_STATE, pathGlob: 'src/**/*.ts', chunkTypes: ['function', 'method'] }],
    ['#cb=cb-1,cb-2', { ...DEFAULT_URL_STATE, codebases: ['cb-1', 'cb-2'] }],
    ['#q=router&kind=test,docs&intent=test', { ...DEFAULT_URL_STATE, query: 'router', kinds: ['test', 'docs'], intent: 'test' }],
    ['#q=raise+ValueError%28&mode=exact&i=1', { ...DEFAULT_URL_STATE, query: 'raise ValueError(', mode: 'exact', ignoreCase: true }],
    ['#q=%5Eclass+%5Cw%2B&mode=regex', { ...DEFAULT_URL_STATE, query: '^class \\w+', mode: 'regex' }],
    ['#q=router&view=stats', { ...DEFAULT_URL_STATE, query: 'router', view: 'stats' }],
    ['#view=settings', { ...DEFAULT_URL_STATE, view: 'settings' }],
  ];
  it.each(cases)('parses %s', (hash, want) => {
    expect(parseHash(hash)).toEqual(want);
  });
  it.each(cases)('round-trips %s', (_hash, state) => {
    expect(parseHash(serializeHash(state))).toEqual(state);
  });
  it('drops invalid values and omits defaults', () => {
    expect(parseHash('#mode=nonsense&type=function,bogus&extra=1')).toEqual({ ...DEFAULT_URL_STATE, chunkTypes: ['function'] });
    expect(parseHash('#view=nowhere')).toEqual(DEFAULT_URL_STATE);
    expect(parseHash('#kind=code,vendor&intent=later')).toEqual({ ...DEFAULT_URL_STATE, kinds: ['code'] });
    expect(serializeHash(DEFAULT_URL_STATE)).toBe('');
    expect(serializeHash({ ...DEFAULT_URL_STATE, mode: 'bm25', query: 'x y' })).toBe('#q=x+y&mode=keyword');
  });
});
