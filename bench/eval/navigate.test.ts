import { describe, expect, it } from 'vitest';
import { cDefs, pythonDefs, rustBlank, rustDefs, sampleNames } from './navigate.ts';

describe('pythonDefs (the python navigation set)', () => {
  it('ends a def at its body, not at a comment banner of the enclosing class after it', () => {
    const text = [
      'class Command:', // 1
      '    def debug_print(self, msg):', // 2
      '        if DEBUG:', // 3
      '            print(msg)', // 4
      '        # still the body', // 5
      '', // 6
      '    # -- Option validation methods ---', // 7
      '    # (handy in finalize_options)', // 8
      '', // 9
      '    def ensure_string(self, option):', // 10
      '        x = (1,', // 11
      '# a comment left of the body, inside it', // 12
      '             2)', // 13
      '        return x', // 14
    ].join('\n');
    const defs = pythonDefs('cmd.py', text);
    expect(defs.map((d) => [d.name, d.line, d.end])).toEqual([['Command', 1, 14], ['debug_print', 2, 5], ['ensure_string', 10, 14]]);
  });
});

describe('cDefs (the c navigation set)', () => {
  it('ends a function whose one-line body is on its own line (`{};`, an indented `{ return 0; }`) there', () => {
    const text = [
      'static inline void flash_unregister(struct device *parent,', // 1
      '\t\t\t\t\tstruct led *led)', // 2
      '{};', // 3
      '', // 4
      'static inline int flags_of(struct device *dev,', // 5
      '\t\t\t     int mask)', // 6
      '\t\t\t{ return 0; }', // 7
      'static inline int flash_register(struct device *parent)', // 8
      '{', // 9
      '\treturn 1;', // 10
      '}', // 11
      'static inline int kernfs_type(struct kernfs_node *kn)', // 12
      '{ return 0; }\t/* whatever */', // 13
      'static inline bool kernfs_ns_enabled(struct kernfs_node *kn)', // 14
      '{', // 15
      '\treturn false;', // 16
      '}', // 17
    ].join('\n');
    expect(cDefs('led.h', text).map((d) => [d.name, d.line, d.end])).toEqual([
      ['flash_unregister', 1, 3], ['flags_of', 5, 7], ['flash_register', 8, 11], ['kernfs_type', 12, 13], ['kernfs_ns_enabled', 14, 17],
    ]);
  });

  const text = [
    '#define PAGE_SHIFT 12', // 1: object-like: not a definition
    '#define min_t(type, x, y) \\', // 2
    '\t__cmp_once(min, type, x, y)', // 3
    '', // 4
    'static __always_inline', // 5
    'int page_count(const struct page *page,', // 6
    '\t       int flags)', // 7
    '{', // 8
    '\tif (flags) {', // 9
    '\t\treturn 0;', // 10
    '\t}', // 11
    '\treturn 1;', // 12
    '}', // 13
    'static inline void stub(void) { }', // 14
    'int declared_only(int x);', // 15
    'SYSCALL_DEFINE1(close, unsigned int, fd)', // 16
    '{', // 17
    '\treturn 0;', // 18
    '}', // 19
    'struct ops my_ops = {', // 20
    '\t.open = my_open,', // 21
    '};', // 22
    'void kernel_style(void) {', // 23
    '\tfor (;;) {}', // 24
    '}', // 25
  ].join('\n');

  it('finds functions (multi-line headers, one-liners) and function-like macros with their line ranges', () => {
    const defs = cDefs('a.c', text).map(({ name, line, end, kind }) => ({ name, line, end, kind }));
    expect(defs).toEqual([
      { name: 'min_t', line: 2, end: 3, kind: 'macro' },
      { name: 'page_count', line: 6, end: 13, kind: 'function' },
      { name: 'stub', line: 14, end: 14, kind: 'function' },
      { name: 'kernel_style', line: 23, end: 25, kind: 'function' },
    ]);
  });

  it('samples macros as names to navigate to', () => {
    const defs = cDefs('a.c', text);
    expect(sampleNames(defs, 10, 1).map((d) => d.name).sort()).toEqual(['kernel_style', 'min_t', 'page_count', 'stub']);
  });
});

describe('rustDefs (the rust navigation set)', () => {
  const text = [
    '/// Doc: `fn not_a_def() {}`', // 1
    'pub struct Utf8Error {', // 2
    '    valid_up_to: usize,', // 3
    '}', // 4
    'impl Utf8Error {', // 5
    '    #[inline]', // 6
    '    pub const fn error_len(&self) -> Option<usize> {', // 7
    '        let s = "fn in_a_string() {"; let c = \'{\';', // 8
    "        f::<'a>(s, c)", // 9
    '    }', // 10
    '}', // 11
    'pub trait Iterator {', // 12
    '    type Item;', // 13
    '    fn next(&mut self) -> Option<Self::Item>;', // 14
    '    fn count(self) -> usize where Self: Sized { 0 }', // 15
    '}', // 16
    'pub(crate) unsafe fn arr(x: [u8; 4]) -> u8 {', // 17
    '    /* nested /* comment */ fn nope() {} */ x[0]', // 18
    '}', // 19
    'macro_rules! int_impl {', // 20
    '    ($T:ty) => {', // 21
    '        pub const fn count_ones(self) -> u32 { 0 }', // 22
    '    };', // 23
    '}', // 24
    'type Alias = [u8; 2];', // 25
    '#[cfg(test)]', // 26
    'mod tests {', // 27
    '    fn test_it() {}', // 28
    '}', // 29
  ].join('\n');

  it('finds fn, struct, trait, type and impl/trait methods with their ranges; body-less fns are declarations; comments, strings and test modules are not read', () => {
    const defs = rustDefs('a.rs', text).map(({ name, line, end, kind, decl, inMacro }) => ({ name, line, end, kind, ...(decl ? { decl } : {}), ...(inMacro ? { inMacro } : {}) }));
    expect(defs).toEqual([
      { name: 'Utf8Error', line: 2, end: 4, kind: 'class' },
      { name: 'error_len', line: 7, end: 10, kind: 'function' },
      { name: 'Iterator', line: 12, end: 16, kind: 'class' },
      { name: 'Item', line: 13, end: 13, kind: 'class' },
      { name: 'next', line: 14, end: 14, kind: 'function', decl: true },
      { name: 'count', line: 15, end: 15, kind: 'function' },
      { name: 'arr', line: 17, end: 19, kind: 'function' },
      { name: 'count_ones', line: 22, end: 22, kind: 'function', inMacro: true },
      { name: 'Alias', line: 25, end: 25, kind: 'class' },
    ]);
  });

  it('starts an item at its doc comments and attributes (head), multi-line attributes too', () => {
    const src = [
      'fn a() {}', // 1
      '', // 2
      '/// Docs.', // 3
      '#[stable(', // 4
      '    feature = "x",', // 5
      ')]', // 6
      '#[inline]', // 7
      'pub fn b() {}', // 8
    ].join('\n');
    expect(rustDefs('a.rs', src).map((d) => [d.name, d.head, d.line])).toEqual([['a', 1, 1], ['b', 3, 8]]);
    expect(rustDefs('a.rs', text).find((d) => d.name === 'error_len')!.head).toBe(6);
  });

  it('blanks comments, strings and char literals but keeps lines and lifetimes', () => {
    const src = 'let s = r#"a "quoted" {"#; // {\nlet c = \'}\'; f::<\'a>();';
    const out = rustBlank(src);
    expect(out.length).toBe(src.length);
    expect(out.split('\n').length).toBe(2);
    expect(out).not.toMatch(/[{}]/);
    expect(out).toContain("f::<'a>();");
  });
});
