/**
 * Names behind macros, attributes and sigils, and names written with their namespace (issue 35,
 * classes 2 and 3), through the real chunker, store and searcher: a lookup of the name finds its
 * definition first, not a file that uses it more often. One small file pair per form and language.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import { openMemoryStore } from '../store/open-node.ts';
import type { Store } from '../store/store.ts';
import { writeChunkedFiles } from './test-store.ts';
import { Searcher } from './search.ts';

/** A user of `name`: many mentions, no definition. */
const user = (name: string, call: (i: number) => string) =>
  Array.from({ length: 12 }, (_, i) => call(i)).join('\n') + `\n// ${name} ${name} ${name}\n`;

const FILES: Record<string, string> = {
  // C: an attribute between `struct` and the name, and after the closing brace.
  'include/wire.h': [
    '#ifndef WIRE_H', '#define WIRE_H', '', '/* On-the-wire header of a frame. */',
    'struct __attribute__((packed)) frame_hdr {', '\tunsigned char type;', '\tunsigned short len;', '};', '',
    '/* Ring descriptor, laid out by the device. */', 'struct ring_desc {', '\tunsigned long addr;', '\tunsigned int len;',
    '} __packed __randomize_layout;', '', '#endif', '',
  ].join('\n'),
  'drivers/net.c': '#include "wire.h"\n\n' +
    user('frame_hdr ring_desc', (i) => `static int parse_${i}(struct frame_hdr *h, struct ring_desc *d) { return h->len + d->len + ${i}; }`),
  // C++: export macros on functions and constructors, `if constexpr` as a macro.
  'include/lib/view.h': [
    '#define LIB_CONSTEXPR constexpr', '#define LIB_CONSTEXPR20', '#define LIB_EXPORT', '', 'namespace lib {',
    'template <typename T>', 'LIB_CONSTEXPR auto count_digits(T n) -> int {', '  if LIB_CONSTEXPR20 (sizeof(T) > 4) {', '    n /= 10;', '  }',
    '  int d = 1;', '  while (n >= 10) { n /= 10; ++d; }', '  return d;', '}', '',
    'template <typename It, typename Char = char>', 'struct join_view {', '  It begin;', '  It end;',
    '  LIB_CONSTEXPR join_view(It b, It e) : begin(b), end(e) {}', '};', '',
    'LIB_EXPORT', 'template <typename T> struct is_adaptor {', '  static constexpr bool value = false;', '};',
    '}  // namespace lib', '',
  ].join('\n'),
  'src/use_view.cc': '#include "lib/view.h"\n\n' +
    user('join_view count_digits is_adaptor', (i) => `int use_${i}() { auto v = lib::join_view<int*>(nullptr, nullptr); return lib::count_digits(${i}) + lib::is_adaptor<int>::value; }`),
  // Ruby: a module reopened in many files; `Sinatra::Helpers` is base.rb's.
  'lib/sinatra/base.rb': [
    'module Sinatra', '  # Methods available to routes, before and after filters, and views.', '  module Helpers',
    '    def status(value = nil)', '      response.status = value', '    end', '  end', '', '  class Base', '    include Helpers',
    '    def call(env)', '      dup.call!(env)', '    end', '  end', 'end', '',
  ].join('\n'),
  'lib/sinatra/json.rb': ['module Sinatra', '  module JSON', '    def json(object)', '      object.to_json', '    end', '  end',
    '  helpers JSON', 'end', ''].join('\n'),
  'lib/sinatra/respond_with.rb': ['module Sinatra', '  module RespondWith', '    module Helpers', '      def respond_with(template)',
    '        Sinatra::Helpers.status(200)', '      end', '    end', '  end', 'end', ''].join('\n'),
  // TypeScript: a `$` name, and a namespace's function next to a method of the same name.
  'src/core/schemas.ts': [
    'export interface $ZodType {', '  _zod: { def: unknown };', '}', '',
    'export const $ZodType = $constructor("$ZodType", (inst, def) => {', '  inst._zod.def = def;', '});', '',
  ].join('\n'),
  'src/classic/schemas.ts': [
    'import * as core from "../core/schemas.ts";', '', 'export interface ZodType extends core.$ZodType {', '  array(): ZodArray<this>;', '}', '',
    // zod's shape: an object of many small methods, each calling the function of its name.
    'function methods(): MethodsOf<ZodType> {', '  return {',
    ...['check', 'refine', 'brand', 'optional', 'nullable', 'nullish', 'array', 'or', 'and', 'pipe', 'describe', 'meta', 'default', 'catch',
      'transform', 'prefault', 'readonly', 'promise', 'superRefine', 'overwrite', 'register', 'clone', 'spa', 'safeParse']
      .flatMap((m) => [`    ${m}(arg) {`, `      const inst = this; // the schema this method is called on`, `      return ${m}(inst, arg ?? inst._zod.def.${m});`, '    },']),
    '  };', '}', '',
    'export function array(element) {', '  return new ZodArray({ type: "array", element });', '}', '',
  ].join('\n'),
  'src/use_zod.ts': 'import { z } from "./index.ts";\n\n' +
    user('ZodType $ZodType array', (i) => `export const schema${i}: z.ZodType = z.array(z.string()); // $ZodType array ${i}`),
  // Rust: an exported macro written with its crate (`tokio::select!`), next to a method `select`.
  'tokio/src/macros/select.rs': [
    '/// Waits on multiple concurrent branches.', '#[macro_export]', 'macro_rules! select {',
    '    ($($t:tt)*) => { $crate::select_internal!($($t)*) };', '}', '',
  ].join('\n'),
  'tokio/src/runtime/poll.rs': [
    'pub struct Poller { ready: Vec<u32> }', '', 'impl Poller {', '    /// Picks the next ready branch.', '    pub fn select(&mut self) -> Option<u32> {',
    '        let first = self.ready.pop();', '        let second = self.ready.pop();', '        first.or(second)', '    }', '}', '',
  ].join('\n'),
  // Python: a decorated class and a function behind two decorators.
  'pkg/config.py': [
    'import dataclasses', '', '', '@dataclasses.dataclass(frozen=True)', 'class RetryPolicy:', '    """How often to retry."""',
    '    attempts: int = 3', '    backoff: float = 0.5', '', '', '@functools.cache', '@typing.final', 'def load_policy(path):',
    '    return RetryPolicy()', '',
  ].join('\n'),
  'pkg/client.py': 'from .config import RetryPolicy, load_policy\n\n' +
    user('RetryPolicy load_policy', (i) => `policy_${i} = load_policy("p${i}") or RetryPolicy()  # RetryPolicy`),
};

let store: Store;
let chunker: Chunker;
let searcher: Searcher;

beforeAll(async () => {
  store = await openMemoryStore();
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  await writeChunkedFiles(store, chunker, FILES);
  searcher = new Searcher(store);
}, 60_000);
afterAll(async () => {
  chunker.dispose();
  await store.close();
});

/** The first result of a keyword search: its file and first line's text. */
async function first(query: string): Promise<{ path: string; line: string; content: string }> {
  const { results } = await searcher.search(query, { mode: 'bm25', limit: 10 });
  const r = results[0];
  expect(r, query).toBeDefined();
  const lines = FILES[r!.path]!.split('\n');
  expect(r!.content).toBe(lines.slice(r!.startLine - 1, r!.endLine).join('\n'));
  return { path: r!.path, line: lines[r!.startLine - 1]!, content: r!.content };
}

describe('names behind macros, attributes and sigils', () => {
  it.each([
    ['frame_hdr', 'include/wire.h', 'struct __attribute__((packed)) frame_hdr {'],
    ['ring_desc', 'include/wire.h', 'struct ring_desc {'],
    ['count_digits', 'include/lib/view.h', 'LIB_CONSTEXPR auto count_digits(T n) -> int {'],
    ['join_view', 'include/lib/view.h', 'struct join_view {'],
    ['is_adaptor', 'include/lib/view.h', 'template <typename T> struct is_adaptor {'],
    ['$ZodType', 'src/core/schemas.ts', null],
    ['RetryPolicy', 'pkg/config.py', null],
    ['load_policy', 'pkg/config.py', null],
  ])('%s: its definition first', async (query, path, head) => {
    const r = await first(query);
    expect(r.path).toBe(path);
    if (head) expect(r.content).toContain(head);
  });

  it('a Ruby module reopened in many files: the qualified name finds the one it names', async () => {
    const r = await first('Sinatra::Helpers');
    expect(r.path).toBe('lib/sinatra/base.rb');
    expect(r.content).toContain('module Helpers');
  });
});

describe('names written with their namespace', () => {
  it('z.array: the function the namespace exports, not the method of the same name', async () => {
    const r = await first('z.array');
    expect(r.path).toBe('src/classic/schemas.ts');
    expect(r.line).toBe('export function array(element) {');
  });

  it('tokio::select!: the crate macro, not a method named select', async () => {
    const r = await first('tokio::select!');
    expect(r.path).toBe('tokio/src/macros/select.rs');
  });

  it('lib::count_digits in a question finds the definition', async () => {
    const r = await first('how does lib::count_digits count');
    expect(r.path).toBe('include/lib/view.h');
  });
});
