/**
 * Chunk granularity that search ranking depends on: definitions inside `#ifdef` blocks and
 * named functions nested in oversized code (an ESLint rule's `create()`) are chunks of their
 * own with their symbol; one-row leftovers such as `EXPORT_SYMBOL(f);` join their function;
 * C function-like macros are definitions a user looks up by name, and object-like ones are
 * listed as the constants their chunk defines, as are enumerators and Go / Rust consts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../types.ts';
import { Chunker } from './chunker.ts';
import { nodeWasmLoader } from './grammars-node.ts';
import { blankCConditionals, blankCMacros, maskCAnnotations } from './languages.ts';

let chunker: Chunker;
beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
});
afterAll(() => chunker.dispose());

const body = (name: string, n: number) =>
  Array.from({ length: n }, (_, i) => `\tint ${name}_v${i} = compute_${name}(${i}, ${i + 1}, ${i + 2});`).join('\n');

function find(chunks: Chunk[], symbol: string): Chunk | undefined {
  return chunks.find((c) => c.symbol === symbol);
}

function checkDisjointAndCovering(text: string, chunks: Chunk[]): void {
  let last = 0;
  const covered = new Set<number>();
  for (const c of chunks) {
    expect(c.startLine).toBeGreaterThan(last);
    expect(c.content.length).toBeLessThanOrEqual(1500);
    last = c.endLine;
    for (let l = c.startLine; l <= c.endLine; l++) covered.add(l);
  }
  text.split('\n').forEach((l, i) => {
    if (l.trim()) expect(covered.has(i + 1), `line ${i + 1}`).toBe(true);
  });
}

/** A small C function `name(arg)` and a blank row after it. */
const cFunction = (name: string, arg: string) => [`static int ${name}(${arg})`, '{', body(name, 5), '\treturn 0;', '}', ''];

/** Chunks a file that must parse: no warning, every line covered, each content its lines. */
async function chunkParsed(path: string, text: string): Promise<Chunk[]> {
  const { chunks, parsed, warnings } = await chunker.chunkFile(path, text);
  expect(warnings).toEqual([]);
  expect(parsed).toBe(true);
  checkDisjointAndCovering(text, chunks);
  const lines = text.split('\n');
  for (const c of chunks) expect(c.content).toBe(lines.slice(c.startLine - 1, c.endLine).join('\n'));
  return chunks;
}

describe('C conditional compilation is transparent', () => {
  const text = [
    '#include <linux/cpu.h>',
    '',
    '#ifdef CONFIG_HOTPLUG_CPU',
    'void clear_tasks_mm_cpumask(int cpu)',
    '{',
    body('clear', 12),
    '}',
    'EXPORT_SYMBOL_GPL(clear_tasks_mm_cpumask);',
    '',
    'static int take_cpu_down(void *param)',
    '{',
    body('take', 12),
    '\treturn 0;',
    '}',
    '#else',
    'static inline int take_cpu_down(void *param) { return 0; }',
    '#endif /* CONFIG_HOTPLUG_CPU */',
    '',
  ].join('\n');

  it('gives each function inside #ifdef/#else its own named chunk', async () => {
    const { chunks, parsed } = await chunker.chunkFile('kernel/cpu.c', text);
    expect(parsed).toBe(true);
    checkDisjointAndCovering(text, chunks);
    const clear = find(chunks, 'clear_tasks_mm_cpumask');
    expect(clear).toMatchObject({ chunkType: 'function', startLine: 4, parent: null });
    // The one-row EXPORT_SYMBOL after it joins it rather than becoming a chunk of its own.
    expect(clear?.endLine).toBe(19); // 12 body rows: the EXPORT_SYMBOL row is 19
    expect(chunks.filter((c) => c.symbol === 'take_cpu_down').length).toBeGreaterThanOrEqual(1);
    expect(chunks.some((c) => c.chunkType === 'module' && c.content.trim() === 'EXPORT_SYMBOL_GPL(clear_tasks_mm_cpumask);')).toBe(false);
  });
});

describe('named functions nested in oversized code', () => {
  const helper = (name: string) => [
    `\t\tfunction ${name}(node) {`,
    ...Array.from({ length: 8 }, (_, i) => `\t\t\tconst ${name}Part${i} = node.parent && node.parent.type === 'Kind${i}' ? node.range[${i % 2}] : null;`),
    `\t\t\treturn node.type === '${name}';`,
    '\t\t}',
  ];
  const text = [
    "'use strict';",
    'module.exports = {',
    "\tmeta: { type: 'suggestion', docs: { description: 'Disallow unused expressions' } },",
    '\tcreate(context) {',
    '\t\tconst options = context.options[0] || {};',
    '',
    ...helper('isDirective'),
    '',
    ...helper('looksLikeDirective'),
    '',
    '\t\treturn {',
    '\t\t\tExpressionStatement(node) {',
    "\t\t\t\tif (!isDirective(node)) context.report({ node, messageId: 'unusedExpression' });",
    '\t\t\t},',
    '\t\t};',
    '\t},',
    '};',
    '',
  ].join('\n');

  it('makes them chunks with their symbol and the enclosing function as parent', async () => {
    const { chunks } = await chunker.chunkFile('eslint/rules/no-unused-expressions.js', text);
    checkDisjointAndCovering(text, chunks);
    const d = find(chunks, 'isDirective');
    expect(d).toMatchObject({ chunkType: 'function', parent: 'create', startLine: 7 });
    expect(d?.endLine).toBeGreaterThanOrEqual(16);
    expect(find(chunks, 'looksLikeDirective')).toMatchObject({ chunkType: 'function', parent: 'create' });
  });

  it('leaves small code alone (nothing is hoisted out of a chunk that fits)', async () => {
    const small = "module.exports = {\n\tcreate(context) {\n\t\tfunction isDirective(node) { return !!node; }\n\t\treturn {};\n\t},\n};\n";
    const { chunks } = await chunker.chunkFile('rule.js', small);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ startLine: 1, endLine: 6 });
  });
});

describe('C function-like macros are definitions', () => {
  const text = [
    '#ifndef _LINUX_LIST_H',
    '#define _LINUX_LIST_H',
    '#define LIST_POISON1  ((void *) 0x100)',
    '#define LIST_POISON2  ((void *) 0x122)',
    '',
    '/**',
    ' * list_entry - get the struct for this entry',
    ' * @ptr:	the &struct list_head pointer.',
    ' */',
    '#define list_entry(ptr, type, member) \\',
    '\tcontainer_of(ptr, type, member)',
    '',
    '/**',
    ' * list_for_each_entry - iterate over list of given type',
    ' * @pos:	the type * to use as a loop cursor.',
    ' * @head:	the head for your list.',
    ' * @member:	the name of the list_head within the struct.',
    ' */',
    '#define list_for_each_entry(pos, head, member)\t\t\t\t\\',
    '\tfor (pos = list_first_entry(head, typeof(*pos), member);\t\\',
    '\t     !list_entry_is_head(pos, head, member);\t\t\t\\',
    '\t     pos = list_next_entry(pos, member))',
    '',
    'static inline int list_empty(const struct list_head *head)',
    '{',
    body('empty', 6),
    '\treturn READ_ONCE(head->next) == head;',
    '}',
    '#endif',
    '',
  ].join('\n');

  it('gives a macro its own chunk, named, with its doc comment and signature', async () => {
    const chunks = await chunkParsed('include/linux/list.h', text);
    const each = find(chunks, 'list_for_each_entry');
    expect(each).toMatchObject({ chunkType: 'function', startLine: 13, endLine: 22, parent: null });
    // The signature is the macro's first row without its line continuation.
    expect(each?.signature).toBe('#define list_for_each_entry(pos, head, member)');
    expect(each?.doc).toContain('iterate over list of given type');
    // A small macro is a definition too: its own chunk, or merged with a neighbour that names it.
    expect(chunks.some((c) => c.symbol === 'list_entry' || c.names?.includes('list_entry'))).toBe(true);
    expect(find(chunks, 'list_empty')).toMatchObject({ chunkType: 'function', startLine: 24 });
    // Object-like #defines are not definitions.
    expect(chunks.some((c) => c.symbol === 'LIST_POISON1' || c.names?.includes('LIST_POISON1'))).toBe(false);
  });
});

describe('C annotation macros do not hide a definition', () => {
  const text = [
    '/**',
    ' * foo_init - set up foo; called once from an __init path',
    ' */',
    'static int __init foo_init(void)',
    '{',
    body('init', 4),
    '\treturn 0;',
    '}',
    '',
    'asmlinkage __visible void __sched schedule(void)',
    '{',
    body('sched', 4),
    '}',
    '',
    'static __always_inline __alloc_size(1) void *kmalloc(size_t size, gfp_t flags)',
    '{',
    body('kmalloc', 4),
    '\treturn __kmalloc(size, flags);',
    '}',
    '',
    '__printf(2, 3) int dev_printk_emit(int level, const char *fmt, ...)',
    '{',
    body('emit', 4),
    '\treturn 0;',
    '}',
    '',
  ].join('\n');

  it('names each function as the file defines it, with the file\'s own lines, doc and signature', async () => {
    const chunks = await chunkParsed('kernel/foo.c', text);
    expect(find(chunks, 'foo_init')).toMatchObject({ chunkType: 'function', startLine: 1 });
    expect(find(chunks, 'foo_init')?.doc).toContain('called once from an __init path');
    expect(find(chunks, 'foo_init')?.signature).toBe('static int __init foo_init(void)');
    expect(find(chunks, 'schedule')).toMatchObject({ chunkType: 'function', startLine: 13 });
    expect(find(chunks, 'kmalloc')).toMatchObject({ chunkType: 'function', startLine: 21 });
    expect(find(chunks, 'kmalloc')?.signature).toContain('__alloc_size(1) void *kmalloc(size_t size, gfp_t flags)');
    expect(find(chunks, 'dev_printk_emit')).toMatchObject({ chunkType: 'function', startLine: 30 });
    expect(chunks.map((c) => c.symbol)).not.toContain('__alloc_size');
    expect(chunks.map((c) => c.symbol)).not.toContain('__printf');
  });

  it('blanks annotations only in column-0 code lines, keeping every index', () => {
    const src = 'static int __init f(void)\n/* __init stays */\n\tint __init x;\n} __packed;\n';
    const masked = maskCAnnotations(src);
    expect(masked).toHaveLength(src.length);
    expect(masked).toBe('static int        f(void)\n/* __init stays */\n\tint __init x;\n}         ;\n');
    expect(maskCAnnotations('int __u32_sum(__u32 a);\n')).toBe('int __u32_sum(__u32 a);\n');
  });

  it('after a type\'s closing brace, any reserved name is an annotation; a variable stays', () => {
    /** The masked line with each run of spaces shown as one (every index is kept: same length). */
    const masked = (line: string) => {
      const m = maskCAnnotations(line);
      expect(m).toHaveLength(line.length);
      return m.replace(/ +/g, ' ');
    };
    expect(masked('} __randomize_layout\n')).toBe('} \n');
    expect(masked('} ____cacheline_aligned_in_smp; /* hot */\n')).toBe('} ; /* hot */\n');
    expect(masked('} __ec_align4 __aligned(4);\n')).toBe('} ;\n');
    expect(masked('} __attribute__((packed));\n')).toBe('} __attribute__((packed));\n');
    expect(masked('} __table = { 1 };\n')).toBe('} __table = { 1 };\n');
    expect(masked('}\n\tx = __y;\n')).toBe('}\n\tx = __y;\n');
  });

  it('a struct closed by a project\'s own annotation macro is the struct, by its name', async () => {
    const src = ['struct file {', '\tstruct path f_path;', '\tunsigned int f_flags;', '\tvoid *private_data;', '} __randomize_layout', '  __attribute__((aligned(4)));', '', 'struct rq {', '\tint nr_running;', '\tint cpu;', '} ____cacheline_aligned;', ''].join('\n');
    const chunks = await chunkParsed('include/linux/fs.h', src);
    expect(find(chunks, 'file')).toMatchObject({ chunkType: 'struct', startLine: 1, endLine: 6 });
    expect(find(chunks, 'rq')).toMatchObject({ chunkType: 'struct', startLine: 8, endLine: 11 });
    expect(chunks.map((c) => c.symbol)).not.toContain('__randomize_layout');
  });
});

describe('C++ macros around a definition do not rename it (issue 35)', () => {
  const pad = (name: string) => Array.from({ length: 4 }, (_, i) => `  int ${name}_field_${i};`);
  it('an export macro between class and the name: the class is named, not its macro or base', async () => {
    const src = [
      'namespace proto {', 'class PROTOBUF_EXPORT Message : public MessageLite {', ' public:', ...pad('m'), '};',
      'class LIB_VISIBILITY("default") format_error : public std::runtime_error {', ' public:', ...pad('f'), '};',
      'class TEST_API_ Mutex {', ' public:', ...pad('x'), '};',
      'struct PACKED wire_hdr {', ...pad('h'), '};', '}', '',
    ].join('\n');
    const chunks = await chunkParsed('src/message.h', src);
    expect(chunks.map((c) => c.symbol)).toEqual(expect.arrayContaining(['Message', 'format_error', 'Mutex', 'wire_hdr']));
    expect(chunks.map((c) => c.symbol)).not.toContain('MessageLite');
    expect(chunks.map((c) => c.symbol)).not.toContain('runtime_error');
    expect(chunks.map((c) => c.symbol)).not.toContain('PROTOBUF_EXPORT');
  });

  it('macro statement lines (namespace begin/end, a template head, an access specifier) are blanked', async () => {
    const src = [
      '#include <vector>', 'JSONLIB_NAMESPACE_BEGIN', 'namespace detail {', '',
      '/// doc of the iterator', 'JSONLIB_TPL_DECLARATION', 'class iter_impl', '{', '  public:',
      '    iter_impl() = default;', '    int get() const { return m_v; }',
      '  JSONLIB_PRIVATE_UNLESS_TESTED:', '    int m_v = 0;', '    void set_end() noexcept { m_v = -1; }', '};',
      '}  // namespace detail', 'JSONLIB_NAMESPACE_END', '',
    ].join('\n');
    const chunks = await chunkParsed('include/iter_impl.hpp', src);
    const cls = chunks.find((c) => c.symbol === 'iter_impl' && c.chunkType === 'class');
    expect(cls).toBeDefined();
    expect(cls!.parent).toBe('detail');
    expect(chunks.map((c) => c.parent)).not.toContain('namespace detail');
  });

  it('keeps an enumerator alone on its line, labels\' code and every index', () => {
    const src = 'enum e {\n  FIRST, /* one */\n  LAST\n};\nenum f {\n  ONLY\n};\nFOO_BEGIN\nint x;\n';
    const m = blankCMacros(src);
    expect(m).toHaveLength(src.length);
    expect(m).toBe('enum e {\n  FIRST, /* one */\n  LAST\n};\nenum f {\n  ONLY\n};\n         \nint x;\n');
    // `struct TAG var;` declares a variable of type struct TAG: not a macro.
    expect(blankCMacros('struct FOO bar;\nstruct FOO *p;\n')).toBe('struct FOO bar;\nstruct FOO *p;\n');
  });

  it('blanks upper-case macros that open a declaration before a specifier or a built-in type, then the same words before a name', () => {
    /** The masked text with each run of spaces shown as one (every index is kept: same length). */
    const masked = (src: string) => {
      const m = maskCAnnotations(src);
      expect(m).toHaveLength(src.length);
      return m.replace(/ +/g, ' ');
    };
    expect(masked('LIB_CONSTEXPR auto parse(ctx& c) -> const char* {\n')).toBe(' auto parse(ctx& c) -> const char* {\n');
    expect(masked('  LIB_NODISCARD LIB_INLINE auto size() const -> int { return n; }\n')).toBe(' auto size() const -> int { return n; }\n');
    expect(masked('template <typename T> LIB_API(1) void print(T v);\n')).toBe('template <typename T> void print(T v);\n');
    expect(masked('STATIC int INIT unpack(void)\n')).toBe(' int INIT unpack(void)\n');
    // A known annotation after it is still blanked (read on column-0 lines, before the head macro).
    expect(masked('STATIC int __init\nxfs_init_caches(void)\n')).toBe(' int \nxfs_init_caches(void)\n');
    // Learned from the first line: the same word before a constructor or a user-defined type.
    expect(masked('LIB_CONSTEXPR void f();\nstruct v {\n  LIB_CONSTEXPR v(int b) : b_(b) {}\n  LIB_CONSTEXPR buffer<char> get();\n};\n'))
      .toBe(' void f();\nstruct v {\n v(int b) : b_(b) {}\n buffer<char> get();\n};\n');
    // `if constexpr` spelled as a macro; a preprocessor condition stays.
    expect(masked('  if LIB_CONSTEXPR20 (n > 4) {\n#if IS_ENABLED(CONFIG_X)\n')).toBe(' if (n > 4) {\n#if IS_ENABLED(CONFIG_X)\n');
    // Not a macro: an upper-case type before a name, east const, a template parameter, a call.
    for (const src of ['DWORD WINAPI ThreadProc(LPVOID p);\n', 'HRESULT Open(void);\n', '  T const& value;\n', '  FOO(int) x;\n', 'MAX_LEN + 1;\n']) {
      expect(maskCAnnotations(src)).toBe(src);
    }
  });

  it('names the definitions of a file whose macros before declarations broke its parse', async () => {
    // fmt's ranges.h shape: `FMT_CONSTEXPR` before constructors and `auto`, `if FMT_CONSTEXPR20 (`.
    const src = [
      'template <typename R, typename Char>', 'struct range_formatter {', ' public:',
      '  LIB_CONSTEXPR auto parse(parse_context<Char>& ctx) -> const Char* {', '    return ctx.begin();', '  }',
      '  template <typename Context>', '  auto format(R& range, Context& ctx) const -> decltype(ctx.out()) {', '    auto out = ctx.out();',
      '    if LIB_CONSTEXPR20 (range_kind<R, Char>::value == range_kind::debug) {', "      *out++ = '\"';", '    }', '    return out;', '  }', '};', '',
      'template <typename It, typename Sentinel, typename Char = char>', 'struct join_view : detail::view {', '  It begin;', '  Sentinel end;',
      '  LIB_CONSTEXPR join_view(It b, Sentinel e) : begin(b), end(e) {}', '};', '',
    ].join('\n');
    const chunks = await chunkParsed('include/lib/ranges.h', src);
    expect(find(chunks, 'join_view')).toMatchObject({ chunkType: 'struct', startLine: 17 });
    expect(find(chunks, 'range_formatter')).toMatchObject({ chunkType: 'struct', startLine: 1 });
  });

  it('keeps the first reading when blanking a macro would break the file', async () => {
    // Reduced (delta debugging) from fmt's ranges.h, whose macros read blanked left 67% of the
    // file in ERROR nodes: the tree with fewer errors is the one kept.
    const src = [
      '#ifndef LIB_RANGES_H_', '#include "format.h"', '#if LIB_HAS_CPP_ATTRIBUTE(clang::lifetimebound)', '#endif', 'LIB_EXPORT',
      'template <typename Tuple, typename Char> struct tuple_join_view : detail::view {',
      '  LIB_CONSTEXPR tuple_join_view(const Tuple& t, basic_string_view<Char> s)', '#endif',
      'struct formatter<tuple_join_view<Tuple, Char>, Char,', '                 enable_if_t<is_tuple_like<Tuple>::value>> {',
      '  LIB_CONSTEXPR auto parse(parse_context<Char>& ctx) -> const Char* {', '    out = detail::copy<Char>(value.sep, out);',
      '    return do_format(value, ctx, std::integral_constant<size_t, N - 1>());', '  }', '};',
      'namespace detail {', 'template <typename Container> struct all {', '  const Container& c;',
      '  auto begin() const -> typename Container::const_iterator { return c.begin(); }',
      '  auto end() const -> typename Container::const_iterator { return c.end(); }', '};', '}', '',
    ].join('\n');
    const { chunks, parsed } = await chunker.chunkFile('include/lib/ranges.h', src);
    expect(parsed).toBe(true);
    expect(chunks.map((c) => c.symbol)).toContain('all');
  });
});

describe('Ruby modules define their names (issue 35)', () => {
  it('a constant assigned at a module level defines its name, qualified by the modules around it', async () => {
    const src = ['module Sidekiq', '  # Sidekiq::Job is the new name.', '  Worker = Job', '', '  Point = Struct.new(:x, :y)', '  def self.same?(a, b)', '    a == b', '  end', 'end', ''].join('\n');
    const chunks = await chunkParsed('lib/sidekiq/worker_compatibility_alias.rb', src);
    const defines = chunks.flatMap((c) => c.defines ?? []);
    expect(defines).toEqual(['Sidekiq', 'Worker', 'Sidekiq::Worker', 'Point', 'Sidekiq::Point']);
    // A comparison is no assignment.
    expect(defines).not.toContain('a');
  });
  it('a module, reopened or nested or scoped, is listed (also qualified) in the defines of the chunk holding its line', async () => {
    const src = ['require "x"', '', 'module Sinatra', '  # doc', '  module MultiRoute', '    def head(path, opts = {}, &block)', '      route(:HEAD, path, opts, &block)', '    end', '  end', '  register MultiRoute', 'end', 'module Rack::Protection', '  X = 1', 'end', ''].join('\n');
    const chunks = await chunkParsed('lib/sinatra/multi_route.rb', src);
    const defines = chunks.flatMap((c) => c.defines ?? []);
    expect(defines).toEqual(['Sinatra', 'MultiRoute', 'Sinatra::MultiRoute', 'Protection', 'Rack::Protection', 'X', 'Rack::Protection::X']);
    expect(chunks.find((c) => c.defines?.includes('MultiRoute'))!.startLine).toBeLessThanOrEqual(5);
    expect(find(chunks, 'head')).toMatchObject({ parent: 'MultiRoute' });
  });
});

describe('Lua type annotations define their names (issue 35)', () => {
  it('a ---@class, ---@alias or ---@enum line is listed in the defines of the chunk holding it', async () => {
    const src = [
      '---@alias PluginKind "normal"|"clean"', '', '---@class (exact) PluginState', '---@field dir? string', '',
      '---@class LazyPlugin: PluginBase,PluginState', '---@field name string', '', '---@class vim.lsp.Client', '---@class telescope.builtin.find_files.opts : base_opts', '',
      '---@param plugin LazyPlugin', 'local function load(plugin)', '  return plugin.name', 'end', '',
      '-- @class NotAnnotation', 'return { load = load }', '',
    ].join('\n');
    const chunks = await chunkParsed('lua/lazy/types.lua', src);
    const defines = chunks.flatMap((c) => c.defines ?? []);
    expect(defines).toEqual(['PluginKind', 'PluginState', 'LazyPlugin', 'Client', 'vim.lsp.Client', 'telescope.builtin.find_files.opts']);
    const holder = chunks.find((c) => c.defines?.includes('LazyPlugin'))!;
    expect(holder.startLine).toBeLessThanOrEqual(6);
    expect(holder.endLine).toBeGreaterThanOrEqual(6);
    expect(find(chunks, 'load')?.defines ?? []).toEqual([]);
  });
});

describe('C conditional compilation inside an expression', () => {
  // tree-sitter cannot read an #ifdef in the middle of an expression: the rest of the file
  // becomes one ERROR node. The chunker reads it again with the conditional lines blanked.
  const fn = (name: string) => cFunction(name, 'struct task_struct *p');
  const text = [
    ...fn('before_it'),
    'int copy_creds(struct task_struct *p, unsigned long clone_flags)',
    '{',
    '\tif (',
    '#ifdef CONFIG_KEYS',
    '\t\t!p->cred->thread_keyring &&',
    '#endif',
    '\t\tclone_flags & CLONE_THREAD',
    '\t    ) {',
    '\t\treturn 0;',
    '\t}',
    '\treturn 1;',
    '}',
    '',
    ...fn('after_one'),
    ...fn('after_two'),
    ...fn('after_three'),
  ].join('\n');

  it('still chunks the file by definition, with the file\'s own lines', async () => {
    const chunks = await chunkParsed('kernel/cred.c', text);
    for (const name of ['before_it', 'copy_creds', 'after_one', 'after_two', 'after_three']) {
      expect(find(chunks, name), name).toMatchObject({ chunkType: 'function' });
    }
    expect(find(chunks, 'copy_creds')?.content).toContain('#ifdef CONFIG_KEYS');
  });

  it('blanks only conditional lines, keeping every index', () => {
    const src = '#ifdef A\nint a;\n  # else\n#define B 1\n#endif /* A */\n#include <x.h>\n';
    const out = blankCConditionals(src);
    expect(out).toHaveLength(src.length);
    expect(out.split('\n')).toEqual(['        ', 'int a;', '        ', '#define B 1', '              ', '#include <x.h>', '']);
  });
});

describe('definitions inside an ERROR node', () => {
  // A function-local #define whose uses tree-sitter cannot read (net/core/dev.c): its error
  // recovery wraps the rest of the file, whole functions and all, in one ERROR node (with
  // these 20 uses; with 6 it recovers at the next function).
  const fn = (name: string) => cFunction(name, 'struct net_device *dev');
  const text = [
    ...fn('before_it'),
    'const char *netdev_cmd_to_name(enum netdev_cmd cmd)',
    '{',
    '#define N(val) \t\t\t\t\t\t\\',
    '\tcase NETDEV_##val:\t\t\t\t\\',
    '\t\treturn "NETDEV_" __stringify(val);',
    '\tswitch (cmd) {',
    '\tN(UP) N(DOWN) N(REBOOT) N(CHANGE) N(REGISTER) N(UNREGISTER)',
    '\tN(CHANGEMTU) N(CHANGEADDR) N(GOING_DOWN) N(CHANGENAME) N(FEAT_CHANGE)',
    '\tN(BONDING_FAILOVER) N(PRE_UP) N(PRE_TYPE_CHANGE) N(POST_TYPE_CHANGE)',
    '\tN(POST_INIT) N(RELEASE) N(NOTIFY_PEERS) N(JOIN) N(CHANGEUPPER)',
    '\t}',
    '#undef N',
    '\treturn "UNKNOWN_NETDEV_EVENT";',
    '}',
    'EXPORT_SYMBOL_GPL(netdev_cmd_to_name);',
    '',
    ...['one', 'two', 'three', 'four', 'five', 'six'].flatMap((n) => fn(`after_${n}`)),
  ].join('\n');

  it('chunks the definitions it holds as definitions, with the file\'s own lines', async () => {
    const chunks = await chunkParsed('net/core/dev.c', text);
    for (const n of ['one', 'two', 'three', 'four', 'five', 'six']) {
      expect(find(chunks, `after_${n}`), n).toMatchObject({ chunkType: 'function' });
    }
  });
});

describe('typedefs of names tree-sitter-c reads as primitive types', () => {
  // tree-sitter-c parses size_t, ssize_t, uint32_t … as primitive_type, even as the name a
  // typedef defines (include/linux/types.h, stdint.h): those typedefs had no name.
  const guarded = (name: string, type: string) => [`#ifndef _${name.toUpperCase()}`, `#define _${name.toUpperCase()}`, `typedef ${type}\t${name};`, '#endif', ''];
  const text = [
    '/* The following typedefs are also protected by individual ifdefs. */',
    ...guarded('size_t', '__kernel_size_t'),
    ...guarded('ptrdiff_t', '__kernel_ptrdiff_t'),
    ...guarded('clock_t', '__kernel_clock_t'),
    'typedef unsigned int uint32_t;',
    '',
    '/* sparse\'s __bitwise is an annotation: the typedef still names gfp_t */',
    'typedef unsigned int __bitwise gfp_t;',
  ].join('\n');

  it('names each typedef by the name it defines', async () => {
    const chunks = await chunkParsed('include/linux/types.h', text);
    const named = new Set(chunks.flatMap((c) => [c.symbol, ...(c.names ?? [])]));
    for (const name of ['size_t', 'ptrdiff_t', 'clock_t', 'uint32_t', 'gfp_t']) expect(named.has(name), name).toBe(true);
  });
});

describe('C object-like #defines are listed as the constants a chunk defines', () => {
  const text = [
    '#ifndef _ASM_GENERIC_PAGE_H',
    '#define _ASM_GENERIC_PAGE_H',
    '',
    '/* PAGE_SHIFT determines the page size */',
    '#define PAGE_SHIFT\t12',
    '# define PAGE_SIZE\t(1UL << PAGE_SHIFT)',
    '#define PAGE_MASK\t(~(PAGE_SIZE-1))',
    '#define page_align(x) (((x) + PAGE_SIZE - 1) & PAGE_MASK)',
    '',
    '#ifndef HZ',
    '#define HZ 100',
    '#endif',
    '#define CONFIG_FLAG',
    '',
    ...cFunction('first', 'int a'),
    'static int with_local(int a)',
    '{',
    '#define LOCAL_LIMIT \\',
    '\t(16)',
    body('local', 3),
    '\treturn a < LOCAL_LIMIT;',
    '}',
    '#endif /* _ASM_GENERIC_PAGE_H */',
    '',
  ].join('\n');

  it('names every object-like macro on the chunk that holds its line, never an include guard or a function-like macro', async () => {
    const chunks = await chunkParsed('include/asm-generic/page.h', text);
    const lineOf = (name: string) => text.split('\n').findIndex((l) => new RegExp(`#\\s*define\\s+${name}\\b`).test(l)) + 1;
    const defined = chunks.flatMap((c) => c.defines ?? []);
    expect(defined.sort()).toEqual(['CONFIG_FLAG', 'HZ', 'LOCAL_LIMIT', 'PAGE_MASK', 'PAGE_SHIFT', 'PAGE_SIZE']);
    for (const name of defined) {
      const holder = chunks.filter((c) => c.defines?.includes(name));
      expect(holder, name).toHaveLength(1);
      expect(holder[0].startLine <= lineOf(name) && lineOf(name) <= holder[0].endLine, name).toBe(true);
    }
    // A constant defined inside a function is listed by the function's chunk.
    expect(find(chunks, 'with_local')?.defines).toEqual(['LOCAL_LIMIT']);
    // Chunks that define none have no list.
    expect(find(chunks, 'first')?.defines ?? null).toBeNull();
  });

  it('lists them in text chunks too (a file that falls back to text)', async () => {
    const broken = ['#define MAX_THINGS 8', ...Array.from({ length: 30 }, (_, i) => `)) ]] oops ${i} {{ ((`), '#define MIN_THINGS 1', ''].join('\n');
    const { chunks, parsed } = await chunker.chunkFile('lib/broken.c', broken);
    expect(parsed).toBe(false);
    expect(chunks.flatMap((c) => c.defines ?? [])).toEqual(expect.arrayContaining(['MAX_THINGS', 'MIN_THINGS']));
  });
});

describe('enumerators and Go / Rust consts are listed as the constants a chunk defines', () => {
  const defines = (chunks: Chunk[]) => chunks.map((c) => [c.symbol, c.defines ?? null]).filter(([, d]) => d);

  it('C: named, anonymous and typedef enums, in text order and merged with #defines', async () => {
    const text = [
      '#define ZONE_FLAG 1',
      'enum zone_stat_item {',
      '	/* First 128 byte cacheline */',
      '	NR_FREE_PAGES,',
      '	NR_ZONE_LRU_BASE = 1, /* Used only for compaction and reclaim retry */',
      '	NR_VM_ZONE_STAT_ITEMS };',
      '',
      ...cFunction('zone_user', 'int a'),
      'enum {',
      '	SB_UNFROZEN = 0,',
      '	SB_FREEZE_WRITE = 1,',
      '};',
      '',
      'typedef enum { BLK_STS_OK, BLK_STS_NOTSUPP } blk_status_t;',
      '',
    ].join('\n');
    const chunks = await chunkParsed('include/linux/mmzone.h', text);
    const all = chunks.flatMap((c) => c.defines ?? []);
    expect(all).toEqual(['ZONE_FLAG', 'NR_FREE_PAGES', 'NR_ZONE_LRU_BASE', 'NR_VM_ZONE_STAT_ITEMS', 'SB_UNFROZEN', 'SB_FREEZE_WRITE', 'BLK_STS_OK', 'BLK_STS_NOTSUPP']);
    const holder = chunks.find((c) => c.defines?.includes('NR_FREE_PAGES'))!;
    expect(holder.content).toContain('enum zone_stat_item {');
    expect(find(chunks, 'zone_user')?.defines ?? null).toBeNull();
    expect(chunks.find((c) => c.defines?.includes('BLK_STS_OK'))?.content).toContain('} blk_status_t;');
  });

  it('Go consts, Rust variants and consts, Java / C# / TypeScript enum members', async () => {
    const cases: Array<[string, string, string[]]> = [
      ['p/consts.go', 'package p\n\nconst (\n\tModeRead = iota\n\tModeWrite\n)\n\nconst MaxDepth, MinDepth = 8, 1\n\nfunc Use() int { return MaxDepth }\n', ['ModeRead', 'ModeWrite', 'MaxDepth', 'MinDepth']],
      ['src/kind.rs', 'pub enum Kind {\n    Plain,\n    Tuple(u8),\n}\n\npub const MAX_LEN: usize = 4;\nstatic GREETING: &str = "hi";\n\nfn use_it() -> usize { MAX_LEN }\n', ['Plain', 'Tuple', 'MAX_LEN', 'GREETING']],
      ['src/Planet.java', 'enum Planet {\n    MERCURY(1),\n    VENUS(2);\n    final int n;\n    Planet(int n) { this.n = n; }\n}\n', ['MERCURY', 'VENUS']],
      ['src/Day.cs', 'enum Day\n{\n    Mon,\n    Tue = 2\n}\n', ['Mon', 'Tue']],
      ['src/dir.ts', 'export enum Direction {\n  Up,\n  Down = 2,\n}\n\nexport function flip(d: Direction): Direction {\n  return d === Direction.Up ? Direction.Down : Direction.Up;\n}\n', ['Up', 'Down']],
    ];
    for (const [path, text, names] of cases) {
      const { chunks, parsed } = await chunker.chunkFile(path, text);
      expect(parsed, path).toBe(true);
      expect(chunks.flatMap((c) => c.defines ?? []), path).toEqual(names);
    }
    // The function that uses a constant does not list it.
    const go = (await chunker.chunkFile(cases[0][0], cases[0][1])).chunks;
    expect(defines(go).some(([symbol]) => symbol === 'Use')).toBe(false);
  });
});

describe('module-level JS / TS consts and Python UPPER_CASE or typed names are constants a chunk defines', () => {
  it('JavaScript and TypeScript: module-level and exported consts, not locals, requires or functions', async () => {
    const ts = [
      "import { x } from './x';",
      "const fs = require('fs');",
      'export const DEFAULT_TIMEOUT_MS = 5000;',
      "const RETRY_LIMIT = 3, backoff = 2 ** 3, { destructured } = x;",
      'export const routes = Object.freeze({ home: "/" }) as const;',
      'let mutable = 1;',
      'export const handler = () => mutable;',
      '',
      'export function fetchWithRetry(url: string) {',
      '  const local = 10;',
      '  for (let i = 0; i < RETRY_LIMIT + local; i++) console.log(url, DEFAULT_TIMEOUT_MS);',
      '}',
      '',
    ].join('\n');
    const r = await chunker.chunkFile('src/net.ts', ts);
    expect(r.parsed).toBe(true);
    expect(r.chunks.flatMap((c) => c.defines ?? [])).toEqual(['DEFAULT_TIMEOUT_MS', 'RETRY_LIMIT', 'backoff', 'routes']);
    expect(find(r.chunks, 'fetchWithRetry')?.defines ?? null).toBeNull();
    // JavaScript: the same, without TypeScript's `as const`.
    const js = await chunker.chunkFile('lib/a.js', "const path = require('path');\nexport const LIMITS = [1, 2];\nfunction f() { const inner = 1; return inner; }\n");
    expect(js.chunks.flatMap((c) => c.defines ?? [])).toEqual(['LIMITS']);
  });

  it('Python: module-level UPPER_CASE assignments, typed or not, and typed lower-case ones; not locals, untyped lower-case names or tuples', async () => {
    const py = [
      'import os',
      '',
      'MAX_RETRIES = 5',
      'DEFAULT_HOST: str = "localhost"',
      '_PRIVATE_LIMIT = 2',
      'logger = object()',
      'current_app: AppProxy = LocalProxy(_cv_app)',
      'A, B = 1, 2',
      '',
      'def connect(host=DEFAULT_HOST):',
      '    TIMEOUT = 3',
      '    for i in range(MAX_RETRIES):',
      '        print(host, TIMEOUT)',
      '',
      'class Config:',
      '    LEVEL = 1',
      '    name = "x"',
      '',
      '    def f(self):',
      '        INNER = 2',
      '',
      '@unique',
      'class Color(Enum):',
      '    RED = 1',
      '    GREEN: int = 2',
      '',
      'def g():',
      '    class Local:',
      '        HIDDEN = 3',
      '',
    ].join('\n');
    const r = await chunker.chunkFile('pkg/net.py', py);
    expect(r.parsed).toBe(true);
    // Module-level UPPER_CASE names and typed module-level names (session 18: Flask's
    // `current_app`), UPPER_CASE names of module-level classes (decorated too); not an untyped
    // lower-case binding (`logger`), a method's locals, a tuple's names, lower-case class
    // attributes or a class inside a function.
    expect(r.chunks.flatMap((c) => c.defines ?? [])).toEqual(['MAX_RETRIES', 'DEFAULT_HOST', '_PRIVATE_LIMIT', 'current_app', 'LEVEL', 'RED', 'GREEN']);
    const lines = py.split('\n');
    for (const c of r.chunks) {
      for (const name of c.defines ?? []) {
        const at = lines.findIndex((l) => l.trimStart().startsWith(`${name} `) || l.trimStart().startsWith(`${name}:`)) + 1;
        expect(at >= c.startLine && at <= c.endLine, `${name} on line ${at} in ${c.startLine}-${c.endLine}`).toBe(true);
      }
    }
  });

  it('Java static final (either order) and C# const and static readonly fields, not instance fields or locals', async () => {
    const java = 'class Limits {\n  public static final int MAX_SIZE = 10, MIN_SIZE = 1;\n  private final int width = 1;\n  static final String NAME = "a";\n  private final static long SERIAL = 1L;\n  static int counter = 0;\n  void f() { final int local = 2; }\n}\n';
    const j = await chunker.chunkFile('src/Limits.java', java);
    expect(j.parsed).toBe(true);
    expect(j.chunks.flatMap((c) => c.defines ?? [])).toEqual(['MAX_SIZE', 'MIN_SIZE', 'NAME', 'SERIAL']);
    const iface = await chunker.chunkFile('src/ZipConstants.java', 'interface ZipConstants {\n    static final int LOCNAM = 26;\n    int LOCEXT = 28;\n    void f();\n}\n');
    expect(iface.chunks.flatMap((c) => c.defines ?? [])).toEqual(['LOCNAM', 'LOCEXT']);
    const cs = 'class Limits\n{\n    public const int Max = 5;\n    const string Name = "x", Other = "y";\n    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(30);\n    private readonly int width = 1;\n    static int counter;\n    void F() { const int local = 2; }\n}\n';
    const c = await chunker.chunkFile('src/Limits.cs', cs);
    expect(c.parsed).toBe(true);
    expect(c.chunks.flatMap((x) => x.defines ?? [])).toEqual(['Max', 'Name', 'Other', 'DefaultTimeout']);
  });

  it('Go: package-level vars, one or a block of them, not a function\'s', async () => {
    const go = [
      'package rpc',
      '',
      'var ErrShutdown = errors.New("connection is shut down")',
      '',
      'var (',
      '\tdebugLog = false',
      '\tA, B int = 1, 2',
      '\thandler = func() { var inner = 1; _ = inner }',
      ')',
      '',
      'func Call() error {',
      '\tvar local = ErrShutdown',
      '\treturn local',
      '}',
      '',
    ].join('\n');
    const r = await chunker.chunkFile('net/rpc/client.go', go);
    expect(r.parsed).toBe(true);
    expect(r.chunks.flatMap((c) => c.defines ?? [])).toEqual(['ErrShutdown', 'debugLog', 'A', 'B', 'handler']);
  });
});
