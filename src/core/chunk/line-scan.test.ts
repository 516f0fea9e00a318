// line-scan.ts must find exactly what the whole-text regex finds: same matches, same order,
// same replaced text, on any line terminators (a lone `\r`, U+2028 and U+2029 start lines for
// JS's `^` too).
import { describe, expect, it } from 'vitest';
import { needleLineMatches, replaceLineMatches, someLineMatches } from './line-scan.ts';

/** Patterns of the shapes languages.ts runs through line-scan.ts, with what their lines start with. */
const PATTERNS: Array<{ re: RegExp; first: (c: number) => boolean; needle?: string }> = [
  { re: /^[A-Za-z_}].*$/gm, first: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 125 },
  { re: /^([ \t]*(?:class|struct)[ \t]+)([A-Z][A-Z_]*)(?=[ \t]+[a-z]\w*[ \t]*(?:\{|$))/gm, first: (c) => c === 99 || c === 115 },
  { re: /^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\(?)([^\n]*)/gm, first: (c) => c === 35, needle: 'define' },
  { re: /^[ \t]*[A-Z_][A-Z0-9_]*[A-Z0-9][ \t]*(?:\/\/.*)?$/gm, first: (c) => (c >= 65 && c <= 90) || c === 95 },
];

const TEXTS = [
  '', '\n', 'struct FOO bar {\n', '  struct FOO bar\r\n}__x;\r\n', '#define A 1\n  #define B(x) x\n# define C\n',
  'struct FOO bar {\rstruct BAR baz {\n', 'FOO\u2028struct X y {\u2029#define Q\n', '\t\tMACRO_LINE // c\nlower\nMACRO',
  'class A_B c\n\n\nstruct Q r {', '}\r\n#define\tX\r\n', 'a\n'.repeat(5) + 'STRUCT\nstruct S t {\n',
];

/** Deterministic random texts over the patterns' alphabet and every line terminator. */
function randomTexts(count: number): string[] {
  const parts = ['struct', 'class', ' ', '\t', 'FOO', 'bar', '{', '}', '#', 'define', 'X', '(', ')', '//', '\n', '\n', '\r\n', '\r', '\u2028', '_', 'a'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  return Array.from({ length: count }, () => Array.from({ length: 5 + Math.floor(next() * 60) }, () => parts[Math.floor(next() * parts.length)]).join(''));
}

const all = [...TEXTS, ...randomTexts(3000)];

describe('line-scan', () => {
  it('replaces exactly what String.replace replaces', () => {
    for (const { re, first } of PATTERNS) {
      for (const t of all) {
        const mark = (m: RegExpExecArray | string) => `<${typeof m === 'string' ? m : m[0]}>`;
        expect(replaceLineMatches(t, re, first, mark), JSON.stringify(t)).toBe(t.replace(re, mark));
      }
    }
  });

  it('answers what RegExp.test answers, for one pattern or several', () => {
    for (const { re, first } of PATTERNS) {
      const once = new RegExp(re.source, 'm');
      for (const t of all) expect(someLineMatches(t, [re], first), JSON.stringify(t)).toBe(once.test(t));
    }
    const [a, , , d] = PATTERNS;
    const either = (c: number) => a!.first(c) || d!.first(c);
    for (const t of all) expect(someLineMatches(t, [a!.re, d!.re], either)).toBe(new RegExp(a!.re.source, 'm').test(t) || new RegExp(d!.re.source, 'm').test(t));
  });

  it('finds through a needle the matches matchAll finds', () => {
    const { re, needle } = PATTERNS[2]!;
    for (const t of all) {
      const got = needleLineMatches(t, re, needle!).map((m) => [m.index, ...m]);
      expect(got, JSON.stringify(t)).toEqual([...t.matchAll(re)].map((m) => [m.index, ...m]));
    }
  });

  it('leaves a text without matches as it is (the same string)', () => {
    const t = 'lower case only\n\tindented\n';
    expect(replaceLineMatches(t, PATTERNS[1]!.re, PATTERNS[1]!.first, () => 'x')).toBe(t);
  });
});
