import { describe, expect, it } from 'vitest';
import { codeLines, normaliseMarks, tokenize } from './code-segments.ts';

const join = (lines: ReturnType<typeof codeLines>) => lines.map((l) => l.map((s) => s.text).join('')).join('\n');

describe('code-segments', () => {
  const samples: Array<[string, string]> = [
    ['typescript', 'export function slugify(t: string) {\n  return t.toLowerCase(); // <b>\n}\n'],
    ['python', 'def f(x):\n    """doc <script>"""\n    return x\n'],
    ['html', '<script>alert(1)</script>\n<img src=x onerror="alert(1)">'],
    ['unknown-lang', 'plain\ntext\n\n'],
    ['go', ''],
  ];
  it.each(samples)('keeps the %s input exactly', (lang, code) => {
    expect(join(codeLines(code, lang, [[0, 3], [5, 9]]))).toBe(code);
  });

  it('classes keywords and strings in typescript', () => {
    const toks = tokenize('const a = "x";', 'typescript');
    expect(toks.find((t) => t.text === 'const')?.cls).toBe('tok-keyword');
    expect(toks.find((t) => t.text === '"x"')?.cls).toBe('tok-string');
  });

  it.each([
    ['elixir', 'defmodule Plug.Conn do\n  def halt(conn), do: conn\nend'],
    ['haskell', 'module Parser where\nparse :: String -> Int'],
    ['dart', 'class Client {\n  void close() {}\n}'],
    ['clojure', '(defn parse [s] s)'],
  ])('highlights %s, a language indexed with a grammar', (language, code) => {
    expect(tokenize(code, language).some((t) => t.cls === 'tok-keyword' || t.cls === 'tok-built_in')).toBe(true);
  });

  it('never produces markup: html stays as text segments', () => {
    const lines = codeLines('<img src=x onerror="alert(1)">', 'html');
    expect(lines.flat().map((s) => s.text).join('')).toBe('<img src=x onerror="alert(1)">');
  });

  it('marks exactly the given ranges across token and line boundaries', () => {
    const code = 'foo bar\nbaz foo';
    const lines = codeLines(code, 'text', [[0, 3], [6, 9], [12, 15]]);
    const marked = lines.map((l) => l.filter((s) => s.mark).map((s) => s.text));
    expect(marked).toEqual([['foo', 'r'], ['b', 'foo']]);
  });

  it.each([
    [[[5, 2]], 10, []],
    [[[-3, 2], [8, 20]], 10, [[0, 2], [8, 10]]],
    [[[4, 6], [1, 5], [9, 10]], 10, [[1, 6], [9, 10]]],
  ] as Array<[Array<[number, number]>, number, Array<[number, number]>]>)('normalises %j', (marks, len, want) => {
    expect(normaliseMarks(marks, len)).toEqual(want);
  });
});
