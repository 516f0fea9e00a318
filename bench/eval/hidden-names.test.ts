import { describe, expect, it } from 'vitest';
import { scanC, scanRuby } from './hidden-names.ts';

describe('scanC (the C/C++ forms of the hidden-names set)', () => {
  it('finds types behind a macro or attribute, types closed by one, macro-led functions and exported names', () => {
    const text = [
      '/* doc */', // 1
      'struct __attribute__((packed)) frame_hdr {', // 2
      '\tint len;', // 3
      '};', // 4
      'struct ring {', // 5
      '\tint n;', // 6
      '} __randomize_layout;', // 7
      'struct plain {', // 8
      '\tint n;', // 9
      '};', // 10
      'class LIB_API format_error : public std::runtime_error {', // 11
      '};', // 12
      'LIB_CONSTEXPR auto parse(int x) -> int {', // 13
      '  return x;', // 14
      '}', // 15
      'JSON_HEDLEY_WARN_UNUSED_RESULT', // 16
      'static int load(const char* s,', // 17
      '                int n) {', // 18
      '  return n;', // 19
      '}', // 20
      'int helper(int x);', // 21
      'int exported(void)', // 22
      '{', // 23
      '\treturn 0;', // 24
      '}', // 25
      'EXPORT_SYMBOL_GPL(exported);', // 26
      'struct frame_hdr hdr;', // 27
    ].join('\n');
    const s = scanC('t', ['x.h'], () => text);
    expect([...s.macroTypes].sort()).toEqual(['format_error', 'frame_hdr']);
    expect([...s.trailingTypes]).toEqual(['ring']);
    expect(s.types.get('frame_hdr')).toEqual([{ path: 'x.h', line: 2, head: 1, top: true }]);
    expect(s.types.has('plain')).toBe(true);
    expect([...s.macroFns].sort()).toEqual(['load', 'parse']);
    expect(s.fns.get('load')?.[0]).toMatchObject({ line: 17, head: 16 });
    // A declaration without a body is no definition; an exported function is.
    expect(s.fns.has('helper')).toBe(false);
    expect([...s.exported]).toEqual(['exported']);
    expect(s.fns.get('exported')?.[0]?.line).toBe(22);
  });
});

describe('scanRuby (the rb-reopened form)', () => {
  it('qualifies every module and class by its nesting, reopened or scoped', () => {
    const text = [
      'module Sinatra',
      '  module Helpers',
      '    def status; end',
      '  end',
      '  class Base',
      '    class Error < StandardError; end',
      '  end',
      'end',
      'module Rack::Protection',
      '  class JsonCsrf < Base',
      '  end',
      'end',
    ].join('\n');
    expect(scanRuby(text)).toEqual(['Sinatra', 'Sinatra::Helpers', 'Sinatra::Base', 'Sinatra::Base::Error', 'Rack::Protection', 'Rack::Protection::JsonCsrf']);
  });
});
