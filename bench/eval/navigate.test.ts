import { describe, expect, it } from 'vitest';
import { cDefs, sampleNames } from './navigate.ts';

describe('cDefs (the c navigation set)', () => {
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
