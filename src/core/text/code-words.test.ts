import { describe, expect, it } from 'vitest';
import { codeWordsFor } from './code-words.ts';

describe('codeWordsFor (issue 35 class 6)', () => {
  it('gives the words files are named by for a question word, in any of its forms', () => {
    for (const w of ['throttle', 'throttling', 'throttled', 'throttles']) expect(codeWordsFor(w)).toContain('ratelimit');
    for (const w of ['serialize', 'serialized', 'serializes', 'serializing']) expect(codeWordsFor(w)).toContain('marshal');
    expect(codeWordsFor('popups')).toContain('overlay');
    expect(codeWordsFor('reply')).toContain('response');
  });
  it('nothing for a word it does not know, and never the word itself', () => {
    expect(codeWordsFor('banana')).toEqual([]);
    expect(codeWordsFor('')).toEqual([]);
    expect(codeWordsFor('constructor')).toEqual([]);
    for (const w of ['throttle', 'popup', 'plural', 'fifo']) expect(codeWordsFor(w)).not.toContain(w);
  });
  it('one direction: a code word is no question word for its synonym', () => {
    expect(codeWordsFor('ratelimit')).toEqual([]);
    expect(codeWordsFor('response')).toEqual([]);
  });
});
