import { describe, expect, it } from 'vitest';
import { ASCII_KEY_SPACE, fileTrigramKeys, trigramKey } from './trigram-keys.ts';

/** The definition, written plainly: distinct keys of every 3-code-point window without '\n'. */
function reference(text: string): number[] {
  const keys = new Set<number>();
  for (const line of text.split('\n')) {
    const cps = Array.from(line);
    for (let i = 0; i + 3 <= cps.length; i++) keys.add(trigramKey(cps[i]! + cps[i + 1]! + cps[i + 2]!));
  }
  return [...keys].sort((a, b) => a - b);
}

const ALPHABET = ['a', 'b', 'A', 'B', 'k', 'K', 's', 'S', 'z', ' ', '\t', '\r', '\n', '\0', '(', 'é', 'É', 'ſ', '\u212a', 'Σ', '😀', '\ud800', '\udc00', '\uffff'];

function randomText(rand: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  return s;
}

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

describe('fileTrigramKeys', () => {
  it('packs ASCII trigrams exactly, folding A-Z only', () => {
    const abc = ('a'.charCodeAt(0) << 14) | ('b'.charCodeAt(0) << 7) | 'c'.charCodeAt(0);
    expect([...fileTrigramKeys('abc')]).toEqual([abc]);
    expect([...fileTrigramKeys('ABC')]).toEqual([abc]);
    expect(trigramKey('aBc')).toBe(abc);
    expect(trigramKey('ÉCO')).not.toBe(trigramKey('éco'));
    expect(trigramKey('ÉCO')).toBe(trigramKey('Éco'));
    expect(trigramKey('é😀x')).toBeGreaterThanOrEqual(ASCII_KEY_SPACE);
  });

  it('handles empty, short, line breaks, \\r, NUL and lone surrogates', () => {
    expect(fileTrigramKeys('')).toHaveLength(0);
    expect(fileTrigramKeys('ab')).toHaveLength(0);
    expect(fileTrigramKeys('😀😀')).toHaveLength(0); // 4 code units, 2 code points
    expect(fileTrigramKeys('ab\ncd\n')).toHaveLength(0);
    expect([...fileTrigramKeys('ab\r\n')]).toEqual([trigramKey('ab\r')]);
    expect([...fileTrigramKeys('a\0b')]).toEqual([trigramKey('a\0b')]);
    expect([...fileTrigramKeys('x\ud800y')]).toEqual([trigramKey('x\ud800y')]);
    expect(trigramKey('a\nb')).toBe(-1);
    expect(trigramKey('ab')).toBe(-1);
  });

  it('equals the plain definition on random texts (sorted, distinct)', () => {
    const rand = rng(7);
    for (let i = 0; i < 400; i++) {
      const t = randomText(rand, Math.floor(rand() * 60));
      expect([...fileTrigramKeys(t)], JSON.stringify(t)).toEqual(reference(t));
    }
  });

  it('equals the plain definition on random ASCII texts, big and small (every bit of the bitset, each call starting clean)', () => {
    const rand = rng(11);
    const ascii = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
    for (let i = 0; i < 60; i++) {
      // Mostly one short line of any ASCII, sometimes thousands of characters of printable ASCII.
      const big = i % 4 === 0;
      const n = big ? 5000 : Math.floor(rand() * 80);
      let t = '';
      for (let j = 0; j < n; j++) t += big ? ascii[32 + Math.floor(rand() * 95)] : ascii[Math.floor(rand() * 128)];
      if (i % 3 === 0) t += ' é😀x';
      expect([...fileTrigramKeys(t)], JSON.stringify(t.slice(0, 80))).toEqual(reference(t));
    }
  });

  it('keeps results of one call when called again (scratch buffers are not shared)', () => {
    const a = fileTrigramKeys('hello world');
    const copy = [...a];
    fileTrigramKeys('something else entirely, longer than the first text');
    expect([...a]).toEqual(copy);
  });
});
