import { describe, expect, it } from 'vitest';
import { blankLines, extractDocFunctions, firstSentence, matchBracket, type EvalLanguage } from './extract.ts';

interface Case {
  name: string;
  lang: EvalLanguage;
  src: string;
  want: Array<{ name: string; docStart: number; docEnd: number; start: number; end: number; query: string; stub?: string }>;
}

const cases: Case[] = [
  {
    name: 'kernel-doc before a C function with a brace in a string and a comment',
    lang: 'c',
    src: [
      '/**',                                        // 1
      ' * kfree_thing() - Free a thing and its children. More text.',
      ' * @t: the thing',
      ' */',                                        // 4
      'static void __sched kfree_thing(struct thing *t,',
      '\t\t\t\tint flags)',
      '{',
      '\tprintk("}{"); /* } */',
      "\tchar c = '}';",
      '}',                                          // 10
      '',
      '/**',
      ' * struct foo - not a function',
      ' */',
      'struct foo {',
      '\tint a;',
      '};',
    ].join('\n'),
    want: [{ name: 'kfree_thing', docStart: 1, docEnd: 4, start: 5, end: 10, query: 'Free a thing and its children.' }],
  },
  {
    name: 'C prototype and name mismatch are skipped',
    lang: 'c',
    src: ['/**', ' * a() - does a thing here', ' */', 'int a(void);', '/**', ' * b() - does b things now', ' */', 'int c(void) { return 0; }'].join('\n'),
    want: [],
  },
  {
    name: 'kernel-doc brief continued on the next line',
    lang: 'c',
    src: ['/**', ' * wake_up - wake up threads blocked', ' * on a waitqueue', ' *', ' * Long text.', ' */', 'void wake_up(void)', '{', '}'].join('\n'),
    want: [{ name: 'wake_up', docStart: 1, docEnd: 6, start: 7, end: 9, query: 'wake up threads blocked on a waitqueue' }],
  },
  {
    name: 'JSDoc forms: function, const arrow, method, object property; regex and template literals',
    lang: 'javascript',
    src: [
      '/**',                                         // 1
      ' * Parse the {@link Options} given by the user. Then more.',
      ' * @param {Options} o',
      ' */',
      'export function parseOptions({ a, b } = {}) {', // 5
      '  const re = /[}{]/g;',
      '  return `${a + `}`}`;',
      '}',                                           // 8
      '/** Compute the total size in bytes. */',     // 9
      'const totalSize = (xs) => {',
      '  return xs.length / 2;',
      '};',                                          // 12
      'class A {',
      '  /**',                                       // 14
      '   * Get the value of the field.',
      '   */',
      '  static async getValue(k) {',                // 17
      '    if (k) { return 1; }',
      '  }',                                         // 19
      '  /** Only tags here.',
      '   * @returns {number} */',
      '  x() {}',
      '}',
      '/** Not followed by a function at all. */',
      'const y = 3;',
      '/** Expression arrow has no body to find. */',
      'const z = () => 1;',
    ].join('\n'),
    want: [
      { name: 'parseOptions', docStart: 1, docEnd: 4, start: 5, end: 8, query: 'Parse the Options given by the user.' },
      { name: 'totalSize', docStart: 9, docEnd: 9, start: 10, end: 12, query: 'Compute the total size in bytes.' },
      { name: 'getValue', docStart: 14, docEnd: 16, start: 17, end: 19, query: 'Get the value of the field.' },
      { name: 'x', docStart: 20, docEnd: 21, start: 22, end: 22, query: 'Only tags here.' },
    ],
  },
  {
    name: 'JS control flow after a doc comment is not a method',
    lang: 'javascript',
    src: ['/** Loop over the items one by one. */', 'for (const x of xs) {', '}'].join('\n'),
    want: [],
  },
  {
    name: 'Go doc comments: method with results, interface{} result, generics, asm stub',
    lang: 'go',
    src: [
      'package p',                                   // 1
      '// Reader reads bytes from r. It buffers.',   // 2
      '// More.',
      'func (b *Buf) Reader(r io.Reader) (n int, err error) {', // 4
      '\ts := `}`',
      '\treturn 0, nil',
      '}',                                           // 7
      '',
      '// Any returns anything at all',              // 9
      '//',
      '// Details.',
      'func Any() interface{} {',                    // 12
      '\treturn struct{}{}',
      '}',                                           // 14
      '// Map applies f to each element.',           // 15
      'func Map[T any, U any](xs []T, f func(T) U) []U {',
      '\treturn nil',
      '}',                                           // 18
      '// Stub is implemented in assembly.',
      'func Stub(x int) int',
      '',
      'func undocumented() {}',
    ].join('\n'),
    want: [
      { name: 'Reader', docStart: 2, docEnd: 3, start: 4, end: 7, query: 'Reader reads bytes from r.' },
      { name: 'Any', docStart: 9, docEnd: 11, start: 12, end: 14, query: 'Any returns anything at all' },
      { name: 'Map', docStart: 15, docEnd: 15, start: 16, end: 18, query: 'Map applies f to each element.' },
    ],
  },
  {
    name: 'Rust: attributes between doc and fn, a comment inside the doc, lifetimes, generics, where clause, trait declarations skipped',
    lang: 'rust',
    src: [
      'impl<T> Vec<T> {',
      '    /// Creates a [`Vec`] from raw parts. More.', // 2
      '    ///',
      '    // FIXME not prose',
      '    /// # Safety',                              // 5
      '    #[inline]',
      '    #[stable(feature = "rust1",',
      '             since = "1.0.0")]',
      "    pub unsafe fn from_parts<'a, F: Fn(u8) -> bool>(x: &'a str, f: F) -> &'a str",
      '    where',                                     // 10
      '        F: Iterator<Item = u8>,',
      '    {',
      "        let c = '}'; let s = \"}",
      '        {";',
      '        x',                                     // 15
      '    }',
      '    /// Returns the length.',
      '    fn len(&self) -> usize;',
      '    /// # Panics',
      '    fn f() {}',                                 // 20
      '}',
    ].join('\n'),
    want: [
      { name: 'from_parts', docStart: 2, docEnd: 5, start: 9, end: 16, query: 'Creates a `Vec` from raw parts.' },
    ],
  },
  {
    name: 'Python: docstrings of functions and methods, multi-line signatures, a docstring-only body, nested strings',
    lang: 'python',
    src: [
      'def split(s, comments=False,',                // 1
      '          posix=True):',
      '    """Split the string *s* using shell-like syntax.',
      '',
      '    More text."""',                            // 5
      '    x = """',
      'def not_a_def():',
      '"""',
      '    return x',                                 // 9
      '',
      'class A:',
      '    async def run(self):',                     // 12
      "        r'''Run it once.'''",
      '        pass',                                 // 14
      '    def abstract(self):',
      '        """Subclasses override this method."""',
      '',
      'def one(): return 1',                          // 18
      'def nodoc():',
      '    return "Not a docstring at all"',
    ].join('\n'),
    want: [
      { name: 'split', docStart: 3, docEnd: 5, start: 1, end: 9, query: 'Split the string *s* using shell-like syntax.' },
      { name: 'run', docStart: 13, docEnd: 13, start: 12, end: 14, query: 'Run it once.' },
      { name: 'abstract', docStart: 16, docEnd: 16, start: 15, end: 16, query: 'Subclasses override this method.', stub: '        ...' },
    ],
  },
];

describe('extractDocFunctions', () => {
  it.each(cases)('$name', ({ src, lang, want }) => {
    expect(extractDocFunctions(src, lang)).toEqual(want);
  });
});

describe('firstSentence', () => {
  it.each([
    ['Does a thing. And more.', 'Does a thing.'],
    ['Returns e.g. the value, i.e. x. Next', 'Returns e.g. the value, i.e. x.'],
    ['  multi\n  line   text  ', 'multi line text'],
    ['Version 1.2 is parsed. Next', 'Version 1.2 is parsed.'],
  ])('%j → %j', (input, want) => expect(firstSentence(input)).toBe(want));
});

describe('matchBracket', () => {
  it.each([
    ['c', '{ "}" /* } */ // }\n }', 20],
    ['javascript', '( a / b, /\\)/ )', 14],
    ['go', '{ `}` }', 6],
    ['c', '{ {', -1],
    ['rust', "{ '}' 'a r#\"}\"# \"}\n\" }", 21],
  ] as const)('%s %j', (lang, src, want) => expect(matchBracket(src, 0, lang)).toBe(want));
});

describe('blankLines', () => {
  it('empties the ranges and keeps the line count', () => {
    const out = blankLines('a\nb\nc\nd', [[2, 3]]);
    expect(out).toBe('a\n\n\nd');
    expect(out.split('\n')).toHaveLength(4);
  });
  it('puts a stub on the first line of a range that has one', () => {
    expect(blankLines('def f():\n    """Doc."""\nx = 1', [[2, 2, '    ...']])).toBe('def f():\n    ...\nx = 1');
  });
});
