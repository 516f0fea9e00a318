import { describe, expect, it } from 'vitest';
import { iForms, isIForm, lightStem, sameWordForm } from './word-forms.ts';

describe('lightStem', () => {
  it.each([
    ['allocates', 'allocat'], ['returns', 'return'], ['entries', 'entr'], ['walking', 'walk'],
    ['pages', 'page'], ['caches', 'cach'], ['names', 'name'], ['uses', 'uses'], ['cpu', 'cpu'],
    ['currently', 'current'], ['checks', 'check'], ['proxy', 'proxy'], ['proxies', 'prox'],
  ])('%s → %s (always a prefix of the word)', (w, s) => {
    expect(lightStem(w)).toBe(s);
    expect(w.startsWith(lightStem(w))).toBe(true);
  });
});

describe('iForms', () => {
  it('writes a final y after a consonant as i before a suffix', () => {
    expect(iForms('proxy')).toEqual(['proxies', 'proxied', 'proxier', 'proxiers', 'proxily']);
    expect(iForms('entry')).toContain('entries');
    expect(iForms('policy')).toContain('policies');
    expect(iForms('copy')).toContain('copied');
    expect(iForms('modify')).toContain('modifier');
    expect(iForms('lazy')).toContain('lazily');
  });
  it('none for a y after a vowel, a word without a final y, or one under four letters', () => {
    for (const stem of ['display', 'key', 'obey', 'try', 'prox', 'read']) expect(iForms(stem), stem).toEqual([]);
  });
  it('isIForm is iForms(stem).includes(w) without building them; not other words the i form starts', () => {
    const words = ['proxies', 'proxy', 'proximity', 'entries', 'entry', 'copied', 'cop', 'lazily', 'displays', 'keys', 'application', 'applies', 'modifiers'];
    for (const stem of ['proxy', 'entry', 'copy', 'lazy', 'display', 'key', 'prox', 'apply', 'modify']) {
      for (const w of words) expect(isIForm(w, stem), `${w} / ${stem}`).toBe(iForms(stem).includes(w));
    }
    expect(isIForm('application', 'apply')).toBe(false);
    expect(isIForm('proximity', 'proxy')).toBe(false);
  });
});

describe('sameWordForm', () => {
  it('a shared start of six or more that leaves at most two letters of the shorter word', () => {
    expect(sameWordForm('iterator', 'iteration')).toBe(true);
    expect(sameWordForm('validate', 'validation')).toBe(true);
    expect(sameWordForm('compose', 'composition')).toBe(true);
    expect(sameWordForm('format', 'formal')).toBe(false);
    expect(sameWordForm('generic', 'general')).toBe(false);
  });
});
