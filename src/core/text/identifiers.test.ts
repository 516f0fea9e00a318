import { describe, expect, it } from 'vitest';
import { identifierTokens, splitIdentifier } from './identifiers.ts';

/** identifierTokens as it was before the ASCII scan: every word found by the regex. */
function reference(text: string): string {
  const seen = new Set<string>();
  for (const m of text.matchAll(/[\p{L}\p{N}\p{M}_$]+/gu)) {
    const word = m[0];
    if (word.length > 256 || !/\p{Lu}/u.test(word) || !/[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|[_$]|::|->|[.\-#/]/u.test(word)) continue;
    for (const segment of word.split(/[_$]+/)) {
      if (!/[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u.test(segment)) continue;
      for (const part of splitIdentifier(segment)) seen.add(part);
    }
  }
  return [...seen].join(' ');
}

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('identifierTokens', () => {
  it('splits camelCase words in first-seen order', () => {
    expect(identifierTokens('getUserName(x); HTTPServer; getUser')).toBe('get user name http server');
    expect(identifierTokens('plain_snake lower $dollar')).toBe('');
    expect(identifierTokens('endsWithCamel')).toBe('ends with camel');
  });

  it('hands over to the regex at the first non-ASCII character without changing words', () => {
    expect(identifierTokens('fooBar café Ünicode getX')).toBe(reference('fooBar café Ünicode getX'));
    expect(identifierTokens('xyzÉtéCase abcDef')).toBe('xyz été case abc def');
    expect(identifierTokens('aB\u0301cD 𝐀bcDe')).toBe(reference('aB\u0301cD 𝐀bcDe'));
  });

  it('equals the regex-only reference on random text', () => {
    const alphabet = [...'aAbBzZ09_$ .:-(>/#\n\t', 'é', 'Ä', 'ß', '中', '\u0301', '𝐀', '\ud800', '\udc00', '٣'];
    const next = rng(12);
    for (let n = 0; n < 6000; n++) {
      let s = '';
      const len = Math.floor(next() * 60);
      // Mostly ASCII, as source code is; non-ASCII anywhere, including inside words.
      // Half the strings are pure ASCII (the scanned path end to end).
      const ascii = n % 2 === 0;
      for (let i = 0; i < len; i++) s += ascii || next() < 0.85 ? alphabet[Math.floor(next() * 20)] : alphabet[Math.floor(next() * alphabet.length)];
      expect(identifierTokens(s), JSON.stringify(s)).toBe(reference(s));
    }
  });

  it('skips words longer than 256 characters on both paths', () => {
    const long = 'aB'.repeat(200);
    expect(identifierTokens(`${long} cD`)).toBe('c d');
    expect(identifierTokens(`é ${long} cD`)).toBe('c d');
  });
});
