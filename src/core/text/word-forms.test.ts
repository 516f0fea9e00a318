import { describe, expect, it } from 'vitest';
import { iForm, lightStem, sameWordForm, startsWithIForm } from './word-forms.ts';

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

describe('iForm', () => {
  it('writes a final y after a consonant as i, the start of the forms with a suffix', () => {
    expect(iForm('proxy')).toBe('proxi');
    expect(iForm('entry')).toBe('entri');
    expect(iForm('policy')).toBe('polici');
    expect(iForm('copy')).toBe('copi');
    expect(iForm('modify')).toBe('modifi');
  });
  it('is null for a y after a vowel, a word without a final y, or one under four letters', () => {
    expect(iForm('display')).toBeNull();
    expect(iForm('key')).toBeNull();
    expect(iForm('obey')).toBeNull();
    expect(iForm('try')).toBeNull();
    expect(iForm('proxies')).toBeNull();
    expect(iForm('ready'.slice(0, 4))).toBeNull();
  });
  it('startsWithIForm is w.startsWith(iForm(stem)) without building the form', () => {
    const words = ['proxies', 'proxy', 'proximity', 'entries', 'entry', 'copied', 'cop', 'lazily', 'displays', 'keys'];
    for (const stem of ['proxy', 'entry', 'copy', 'lazy', 'display', 'key', 'prox']) {
      for (const w of words) {
        const i = iForm(stem);
        expect(startsWithIForm(w, stem), `${w} / ${stem}`).toBe(i !== null && w.startsWith(i));
      }
    }
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
