// Exact/regex search on the real store and indexer (issue 11). Parity with `rg` itself is in
// test/cli/grep-parity.test.ts; these pin the engine's own rules.
import { beforeAll, describe, expect, it } from 'vitest';
import { indexCodebase } from '../index/indexer.ts';
import { MemoryFileSource } from '../source/memory-source.ts';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import { openMemoryStore } from '../store/open-node.ts';
import type { Store } from '../store/store.ts';
import { addAsRegex, asRegexText, compileGrep, grep, grepAsRegex, GrepPatternError, TextCache, toRe2Syntax, unicodeBoundaries, withoutBoundaries } from './grep.ts';
import { anyOfTrigrams, literalTrigrams, regexLiterals, regexTrigrams, satisfies, formatTrigramQuery } from './trigram.ts';

let chunker: Chunker;
let store: Store;

const FILES: Record<string, string> = {
  'src/app.py': 'import os\n\nclass AppError(Exception):\n    pass\n\n\ndef run(x):\n    raise ValueError("bad x")\n',
  'src/win.txt': 'first line\r\nfoo\r\n\r\nlast foo\r\n',
  'src/utf8.md': '# Café\n\nnaïve résumé — 😀 emoji\nΣίσυφος and STRASSE\n\tindented\twith tabs\n',
  'src/meta.txt': 'a.b*c(d)[e]{f}|g^h$\\ literal\nplain line\n',
  'src/long.txt': `${'a'.repeat(30_000)}!\n`,
  'empty.txt': '',
};

beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  store = await openMemoryStore();
  await indexCodebase({ source: new MemoryFileSource(FILES), store, chunker });
});

const lines = async (pattern: string, mode: 'exact' | 'regex', ignoreCase = false) =>
  (await grep(store, { pattern, mode, ignoreCase, limit: 1000 })).results.map((r) => `${r.path}:${r.line}:${r.content}`);

describe('grep', () => {
  it('reports every matching line once, in path order, with ranges in UTF-16 code units', async () => {
    const res = await grep(store, { pattern: 'foo', mode: 'exact' });
    expect(res.results.map((r) => [r.path, r.line, r.content])).toEqual([['src/win.txt', 2, 'foo'], ['src/win.txt', 4, 'last foo']]);
    expect(res.results[1]!.matches).toEqual([{ start: 5, end: 8 }]);
    expect(res.totalMatches).toBe(2);
    expect(res.truncated).toBe(false);
    const emoji = (await grep(store, { pattern: 'emoji', mode: 'exact' })).results[0]!;
    expect(emoji.content.slice(emoji.matches[0]!.start, emoji.matches[0]!.end)).toBe('emoji');
  });

  it('keeps \\r out of content but in the line while matching, like rg without --crlf', async () => {
    expect(await lines('foo$', 'regex')).toEqual([]);
    expect(await lines('foo\\r$', 'regex')).toEqual(['src/win.txt:2:foo', 'src/win.txt:4:last foo']);
    expect(await lines('^$', 'regex')).toEqual(['src/app.py:2:', 'src/app.py:5:', 'src/app.py:6:', 'src/utf8.md:2:']);
  });

  it('matches \\w, \\d and \\s with Unicode meanings, and folds case with -i', async () => {
    expect(await lines('^\\w+$', 'regex')).toEqual([]);
    expect(await lines('Caf\\w$', 'regex')).toEqual(['src/utf8.md:1:# Café']);
    expect(await lines('σίσυφος', 'exact', true)).toEqual(['src/utf8.md:4:Σίσυφος and STRASSE']);
    expect(await lines('(?i)strasse', 'regex')).toEqual(['src/utf8.md:4:Σίσυφος and STRASSE']);
    expect(await lines('\\tindented\\t', 'regex')).toEqual(['src/utf8.md:5:\tindented\twith tabs']);
  });

  it('takes a literal full of metacharacters literally, and a 2-character literal by scanning', async () => {
    expect(await lines('a.b*c(d)[e]{f}|g^h$\\', 'exact')).toEqual(['src/meta.txt:1:a.b*c(d)[e]{f}|g^h$\\ literal']);
    const two = await grep(store, { pattern: 'in', mode: 'exact' });
    expect(two.prefilter).toBeNull();
    expect(two.results.map((r) => `${r.path}:${r.line}`)).toEqual(['src/meta.txt:2', 'src/utf8.md:5', 'src/win.txt:1']);
  });

  it('finishes a catastrophic pattern on a 30,000-character line', async () => {
    const res = await grep(store, { pattern: '(a+)+$', mode: 'regex' });
    // (a+)+$ means "ends in a": the 30,000 a's end in '!', so that line does not match.
    const endsInA = Object.values(FILES).flatMap((t) => t.split('\n')).filter((l) => /a\r?$/.test(l) && !/a\r$/.test(l)).length;
    expect(res.totalMatches).toBe(endsInA);
    expect(res.results.some((r) => r.path === 'src/long.txt')).toBe(false);
    expect((await grep(store, { pattern: '(a+)+!$', mode: 'regex' })).results.map((r) => r.path)).toEqual(['src/long.txt']);
  });

  it('says what and where for an invalid pattern, and refuses \\n', async () => {
    await expect(grep(store, { pattern: 'foo(bar', mode: 'regex' })).rejects.toThrow(GrepPatternError);
    const err = (await grep(store, { pattern: 'ok[a-', mode: 'regex' }).catch((e: unknown) => e)) as GrepPatternError;
    expect(err).toBeInstanceOf(GrepPatternError);
    expect(err.message).toMatch(/invalid regex/);
    expect(err.offset).toBe(2);
    // An unbalanced group or class points at the '(' left open, the stray ')' or the '[', not at column 0.
    const at = async (pattern: string) => ((await grep(store, { pattern, mode: 'regex' }).catch((e: unknown) => e)) as GrepPatternError).offset;
    expect(await at('foo(bar')).toBe(3);
    expect(await at('(a|b)c(d(e)')).toBe(6);
    expect(await at('\\(x(y')).toBe(3);
    expect(await at('ab)c')).toBe(2);
    expect(await at('x[(]y)z')).toBe(5);
    expect(await at('ab[cd')).toBe(2);
    expect(await at('x{2,1}')).toBe(1);
    await expect(grep(store, { pattern: 'a\\nb', mode: 'regex' })).rejects.toThrow(/line break/);
    // ripgrep's class set operations would silently mean something else in RE2.
    await expect(grep(store, { pattern: '[a-z&&[^aeiou]]', mode: 'regex' })).rejects.toThrow(/set operations \(&&\)/);
    expect((await grep(store, { pattern: '[a-]-x|&&', mode: 'regex' })).totalMatches).toBe(0);
  });

  it('caps returned lines at limit and counts the rest', async () => {
    const res = await grep(store, { pattern: '', mode: 'exact', limit: 3 });
    expect(res.results).toHaveLength(3);
    expect(res.truncated).toBe(true);
    const all = Object.values(FILES).reduce((n, t) => n + (t ? t.split('\n').length - (t.endsWith('\n') ? 1 : 0) : 0), 0);
    expect(res.totalMatches).toBe(all);
  });

  it('honours a path glob and a language', async () => {
    expect((await grep(store, { pattern: 'line', mode: 'exact', path: 'src/win.txt' })).results.map((r) => r.line)).toEqual([1]);
    expect((await grep(store, { pattern: 'a', mode: 'exact', languages: ['python'], limit: 1 })).results[0]!.path).toBe('src/app.py');
  });
});

describe('an exact pattern written as a regex', () => {
  it('grepAsRegex counts what regex mode finds, only for regex-shaped patterns that found nothing as text', async () => {
    // `raise ValueError\(` holds no line as text; as a regex it is src/app.py:8.
    expect(await lines('raise ValueError\\(', 'exact')).toEqual([]);
    const r = await grepAsRegex(store, { pattern: 'raise ValueError\\(', mode: 'exact' });
    expect(r).toEqual({ totalMatches: 1, filesMatched: 1, exhaustive: true });
    expect(asRegexText(r, '--mode regex')).toBe('as a regex (--mode regex) it matches 1 line in 1 file');
    expect(await grepAsRegex(store, { pattern: 'Val.*x', mode: 'exact' })).toEqual({ totalMatches: 1, filesMatched: 1, exhaustive: true });
    // Not regex-shaped, matching nothing as a regex either, an invalid regex, or already a regex: null.
    expect(await grepAsRegex(store, { pattern: 'ValueError bad', mode: 'exact' })).toBeNull();
    expect(await grepAsRegex(store, { pattern: 'nowhere\\(', mode: 'exact' })).toBeNull();
    expect(await grepAsRegex(store, { pattern: 'foo\\(', mode: 'exact' })).toBeNull();
    expect(await grepAsRegex(store, { pattern: 'ValueError\\((', mode: 'exact' })).toBeNull();
    expect(await grepAsRegex(store, { pattern: 'raise ValueError\\(', mode: 'regex' })).toBeNull();
    // Two codebases' counts add up; a lower bound stays one.
    expect(addAsRegex(r, { totalMatches: 2, filesMatched: 1, exhaustive: false })).toEqual({ totalMatches: 3, filesMatched: 2, exhaustive: false });
    expect(asRegexText(addAsRegex(r, { totalMatches: 2, filesMatched: 1, exhaustive: false }), 'x')).toBe('as a regex (x) it matches at least 3 lines in at least 2 files');
    expect(addAsRegex(null, null)).toBeNull();
  });
});

describe('TextCache', () => {
  it('serves texts across searches, never a re-indexed file\'s old text, and stays under its budget', async () => {
    const source = new MemoryFileSource({ 'a.txt': 'alpha one\n', 'b.txt': 'beta one\n' });
    const s = await openMemoryStore();
    await indexCodebase({ source, store: s, chunker });
    const cache = new TextCache(1000);
    const hits = async (p: string) => (await grep(s, { pattern: p, mode: 'exact' }, { cache })).results.map((r) => `${r.path}:${r.content}`);
    expect(await hits('one')).toEqual(['a.txt:alpha one', 'b.txt:beta one']);
    expect(cache.chars).toBe('alpha one\n'.length + 'beta one\n'.length);
    source.set('a.txt', 'alpha two\n');
    await indexCodebase({ source, store: s, chunker });
    // 'on' has no trigram: every file is scanned, so a stale cached a.txt would show up here.
    expect(await hits('on')).toEqual(['b.txt:beta one']);
    expect(await hits('two')).toEqual(['a.txt:alpha two']);
    const small = new TextCache(12);
    await grep(s, { pattern: 'one', mode: 'exact' }, { cache: small });
    expect(small.chars).toBeLessThanOrEqual(12);
    await s.close();
  });
});

describe('trigram extraction', () => {
  it('requires the trigrams of literals, alternatives and literal runs after classes', () => {
    expect(formatTrigramQuery(literalTrigrams('raise', false))).toBe('("rai" AND "ais" AND "ise")');
    expect(formatTrigramQuery(literalTrigrams('ab', false))).toBeNull();
    expect(formatTrigramQuery(regexTrigrams('TODO|FIXME', false))).toBe('(("TOD" AND "ODO") OR ("FIX" AND "IXM" AND "XME"))');
    expect(formatTrigramQuery(regexTrigrams('^class \\w+\\(Exc', false))).toContain('"(Ex"');
    expect(formatTrigramQuery(regexTrigrams('a.*b', false))).toBeNull();
    expect(formatTrigramQuery(regexTrigrams('(abc)?def', false))).toBe('"def"');
    // Case-insensitive: k and s (whose case orbits leave ASCII) break trigrams.
    expect(formatTrigramQuery(regexTrigrams('(?i)kelvin', false))).toBe('("elv" AND "lvi" AND "vin")');
    expect(formatTrigramQuery(literalTrigrams('Kelvins', true))).toBe('("elv" AND "lvi" AND "vin")');
  });

  // Soundness: every line a pattern matches satisfies the pattern's trigram query.
  const PATTERNS = [
    'raise ValueError\\(', '^class \\w+\\(Exception\\):', 'TODO|FIXME', '(foo|bar)+baz', 'ab{2,3}c', 'x[abc]yz', '[a-c]{2}de',
    '(?i)hello wor(ld|m)', 'colou?r', '\\Qa.b\\E+c', 'a\\x{41}bc', '(?:abc|abd)e', '[[:alpha:]]+123', 'ab+cd', 'a{0}bcd',
    '(?i:ABC)def', 'über|straße', 'café', '\\bdef\\b', '\\(\\)\\[\\]', '[^a]bcd', 'a|b|c', 'abc(?i)DEF', '(ab)(cd)(ef)',
  ];
  const TEXTS = [
    'raise ValueError("x")', 'class Foo(Exception):', 'TODO: later', 'FIXME now', 'foobarbaz', 'barbaz', 'abbc', 'abbbc', 'xbyz',
    'acde', 'HELLO WORM', 'color', 'colour', 'a.bbc', 'a.b.bc', 'aAbc', 'abde', 'abce', 'Z123', 'abbbcd', 'bcd', 'ABCdef',
    'ÜBER', 'straße', 'Café', 'def x', '()[]', 'xbcd', 'c', 'abcDEF', 'abcdef',
  ];
  it.each(PATTERNS)('is sound for %s', async (p) => {
    for (const ic of [false, true]) {
      const m = await compileGrep(p, 'regex', ic);
      const q = regexTrigrams(p, ic || /\(\?[a-zA-Z]*i/.test(p));
      const anyOf = anyOfTrigrams(q);
      const lits = regexLiterals(p, ic, 1);
      for (const t of TEXTS) {
        if (!m.testLine(t)) continue;
        expect(satisfies(q, t), `${p} on ${t} (ignoreCase ${ic})`).toBe(true);
        // The candidate-line scan's trigrams: a matching line holds one of them (any case).
        if (anyOf) expect(anyOf.some((x) => t.toLowerCase().includes(x.toLowerCase())), `${p} finder on ${t}`).toBe(true);
        if (lits) {
          const has = (x: string) => (lits.fold ? t.toLowerCase().includes(x.toLowerCase()) : t.includes(x));
          expect(lits.strings.some(has), `${p} literals ${lits.strings.join(',')} on ${t}`).toBe(true);
        }
      }
    }
  });

  it('picks the most selective required literals for the candidate-line scan', () => {
    expect(regexLiterals('^static int \\w+\\(', false)).toEqual({ strings: ['static int '], fold: false });
    expect(regexLiterals('TODO|FIXME|XXX', false)).toEqual({ strings: ['TODO', 'FIXME', 'XXX'], fold: false });
    expect(regexLiterals('\\w+_lock\\(&\\w+->\\w+\\)', false)?.strings).toEqual(['_lock(&']);
    expect(regexLiterals('(?i)Hello', false)).toEqual({ strings: ['hello'], fold: true });
    expect(regexLiterals('\\d{4,}', false)).toBeNull();
    expect(regexLiterals('(a+)+$', false)).toBeNull(); // 'a' is shorter than 2
  });

  it('reads \\b as ripgrep does next to letters outside ASCII, with each match\'s own range', async () => {
    const m = await compileGrep('\\bfn\\b|\\bfunc\\b|function', 'regex');
    // ö and ț are letters: no boundary inside `jöfn` or `funcționează` (RE2 alone found both).
    expect(['jöfn', 'funcționează', 'fnö', 'à la fn', 'a fn b', 'function'].map((l) => m.testLine(l))).toEqual([false, false, false, true, true, true]);
    expect(m.ranges('jöfn à fn.')).toEqual([{ start: 7, end: 9 }]);
    expect(m.ranges('é fn fn')).toEqual([{ start: 2, end: 4 }, { start: 5, end: 7 }]);
    const cafe = await compileGrep('Caf\\w\\b', 'regex');
    expect(cafe.testLine('Café ok')).toBe(true);
    expect(cafe.testLine('Cafés')).toBe(false);
    expect(cafe.ranges('# Café!')).toEqual([{ start: 2, end: 6 }]);
    // Rewritten only where a \b starts or ends an alternative next to a word character.
    expect(unicodeBoundaries(toRe2Syntax('\\bfn\\b'))?.groups).toEqual([1]);
    expect(unicodeBoundaries(toRe2Syntax('(a)\\bx|\\by(b)'))).toBeNull();
    expect(unicodeBoundaries(toRe2Syntax('\\bx(a)|\\by(b)'))?.groups).toEqual([1, 3]);
    expect(unicodeBoundaries('fn')).toBeNull();
    expect(withoutBoundaries('\\bfn\\B[\\b]\\\\b')).toBe('fn[\\b]\\\\b');
  });

  it('rewrites \\w \\d \\s to Unicode classes outside and inside brackets, nothing else', () => {
    expect(toRe2Syntax('a\\.b')).toBe('a\\.b');
    expect(toRe2Syntax('\\d+')).toBe('\\p{Nd}+');
    expect(toRe2Syntax('[\\d_]')).toBe('[\\p{Nd}_]');
    expect(toRe2Syntax('\\Q\\w\\E')).toBe('\\Q\\w\\E');
    expect(toRe2Syntax('[]\\w]')).toContain('\\p{L}');
  });
});

describe('grep with stopAtLimit (a published index read over the network)', () => {
  it('stops reading files once the limit is reached and says the totals are lower bounds', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 200; i++) many[`f/${String(i).padStart(3, '0')}.txt`] = `alpha ${i}\nbeta\nalpha again\n`;
    const s = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(many), store: s, chunker });
    const full = await grep(s, { pattern: 'alpha', mode: 'exact', limit: 10 });
    const early = await grep(s, { pattern: 'alpha', mode: 'exact', limit: 10, stopAtLimit: true });
    expect(full.exhaustive).toBe(true);
    expect(full.totalMatches).toBe(400);
    expect(early.results).toEqual(full.results); // the same first lines
    expect(early.exhaustive).toBe(false);
    expect(early.truncated).toBe(true);
    expect(early.totalMatches).toBeLessThan(400);
    expect(early.totalMatches).toBeGreaterThanOrEqual(10);
    // Below the limit nothing is cut short.
    const few = await grep(s, { pattern: 'alpha 199', mode: 'exact', limit: 10, stopAtLimit: true });
    expect(few.exhaustive).toBe(true);
    expect(few.totalMatches).toBe(1);
    await s.db.close();
  });
});
