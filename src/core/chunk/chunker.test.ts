import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../types.ts';
import { Chunker } from './chunker.ts';
import type { WasmLoader } from './chunker.ts';
import { nodeWasmLoader } from './grammars-node.ts';
import { GRAMMARS, maskKotlinGaps, maskRustGaps, maskTsGaps, maskTsxGaps } from './languages.ts';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/chunk');
/** Set UPDATE_GOLDEN=1 to rewrite the golden files (then read them by eye before committing). */
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const MAX = 1500;
/** Goldens are also taken at a small limit, so every language's class splitting is pinned. */
const SMALL_MAX = 600;

let chunker: Chunker;
let small: Chunker;

beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  small = await Chunker.create({ loadWasm: nodeWasmLoader, maxChunkChars: SMALL_MAX });
});

afterAll(() => {
  chunker.dispose();
  small.dispose();
});

/** Invariants every structural result must satisfy. */
function checkInvariants(text: string, chunks: Chunk[], max: number): void {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  let lastEnd = 0;
  for (const c of chunks) {
    expect(c.startLine).toBeGreaterThan(lastEnd);
    expect(c.endLine).toBeGreaterThanOrEqual(c.startLine);
    expect(c.endLine).toBeLessThanOrEqual(lines.length);
    expect(c.content.length).toBeLessThanOrEqual(max);
    expect(c.content.trim()).not.toBe('');
    const slice = lines.slice(c.startLine - 1, c.endLine).join('\n');
    const content = c.content.replace(/\r\n/g, '\n');
    // The content contract: content is exactly the file's lines startLine..endLine, or a column piece of one line.
    if (content !== slice) expect(c.startLine === c.endLine && slice.includes(content), `${c.startLine}-${c.endLine} is the file's lines`).toBe(true);
    // Carried context is the file's own text at contextLine, before the piece, of a definition with a signature.
    if (c.context) {
      expect(c.contextLine).toBeLessThan(c.startLine);
      expect(c.signature).not.toBeNull();
      expect(c.defLine).toBe(c.contextLine);
      const ctxLines = c.context.replace(/\r\n/g, '\n').split('\n');
      expect(lines.slice(c.contextLine! - 1, c.contextLine! - 1 + ctxLines.length).join('\n').startsWith(ctxLines.join('\n'))).toBe(true);
    } else {
      expect(c.contextLine ?? null).toBeNull();
    }
    lastEnd = c.endLine;
  }
  // Nothing non-blank is lost.
  const covered = new Set<number>();
  for (const c of chunks) for (let l = c.startLine; l <= c.endLine; l++) covered.add(l);
  lines.forEach((l, i) => {
    if (l.trim() !== '') expect(covered.has(i + 1), `line ${i + 1} covered`).toBe(true);
  });
}

const golden = (chunks: Chunk[]) =>
  chunks.map(({ startLine, endLine, chunkType, symbol, parent }) => ({ startLine, endLine, chunkType, symbol, parent }));

const fixtureFiles = readdirSync(FIXTURES).flatMap((lang) =>
  readdirSync(join(FIXTURES, lang))
    .filter((f) => f.endsWith('.txt'))
    .map((f) => ({ lang, file: join(FIXTURES, lang, f), path: `${lang}/${f.slice(0, -'.txt'.length)}` })),
);

describe('golden fixtures', () => {
  it('has a fixture for every structural language', () => {
    const langs = new Set(fixtureFiles.map((f) => f.lang));
    for (const l of Object.keys(GRAMMARS)) {
      expect(langs.has(l), l).toBe(true);
    }
  });

  it.each(fixtureFiles)('$path', async ({ lang, file, path }) => {
    const text = readFileSync(file, 'utf8');
    for (const [which, c, max] of [['', chunker, MAX], [`.max${SMALL_MAX}`, small, SMALL_MAX]] as const) {
      const r = await c.chunkFile(path, text);
      expect(r.language).toBe(lang);
      expect(r.warnings).toEqual([]);
      const goldenFile = file.replace(/\.txt$/, `${which}.golden.json`);
      if (UPDATE) writeFileSync(goldenFile, JSON.stringify(golden(r.chunks), null, 1) + '\n');
      expect(golden(r.chunks)).toEqual(JSON.parse(readFileSync(goldenFile, 'utf8')));
      if (r.parsed) checkInvariants(text, r.chunks, max);
    }
  });
});

describe('definitions', () => {
  it('attaches doc comments and starts the range at the comment', async () => {
    const text = 'import x from "y";\n\n/**\n * Adds two numbers.\n * @param a first\n */\nexport function add(a, b) {\n  return a + b;\n}\n';
    const r = await chunker.chunkFile('m.js', text);
    const add = r.chunks.find((c) => c.symbol === 'add')!;
    expect(add).toMatchObject({ startLine: 3, endLine: 9, chunkType: 'function', signature: 'export function add(a, b)' });
    expect(add.doc).toBe('Adds two numbers.\n@param a first');
  });

  it('names a function or class assigned to a member (CommonJS-era JavaScript), its parent the object', async () => {
    const text = [
      "'use strict';", '', 'var app = exports = module.exports = {};', '',
      '/**', ' * Use the given middleware `fn`.', ' */',
      'app.use = function use(fn) {', '  return this;', '};', '',
      'AxiosError.from = (error, code) => {', '  return error;', '};', '',
      'Router.prototype.route = function route(path) {', '  return path;', '};', '',
      'exports.compile = function (fn) {', '  return fn;', '};', '',
      'app.settings = {};', 'foo();', '',
    ].join('\n');
    for (const file of ['m.js', 'm.ts']) {
      const r = await chunker.chunkFile(file, text);
      const byName = new Map(r.chunks.filter((c) => c.symbol).map((c) => [c.symbol, c]));
      expect(byName.get('use')).toMatchObject({ chunkType: 'function', parent: 'app', startLine: 5, endLine: 10, doc: 'Use the given middleware `fn`.' });
      expect(byName.get('from')).toMatchObject({ chunkType: 'function', parent: 'AxiosError', startLine: 12 });
      expect(byName.get('route')).toMatchObject({ parent: 'Router', startLine: 16 });
      expect(byName.get('compile')).toMatchObject({ parent: null, startLine: 20 });
      // A value that is no function or class names nothing.
      expect(byName.has('settings')).toBe(false);
      checkInvariants(text, r.chunks, 1500);
    }
  });

  it('attaches a JavaScript block doc comment one blank line above its definition (express style)', async () => {
    const text = '/**\n * Use the given middleware.\n * @public\n */\n\napp.use = function use(fn) {\n  return this;\n};\n\n// a note\n\nfunction g() {\n  return 1;\n}\n';
    const r = await chunker.chunkFile('m.js', text);
    expect(r.chunks.find((c) => c.symbol === 'use')).toMatchObject({ startLine: 1, doc: 'Use the given middleware.\n@public' });
    expect(r.chunks.find((c) => c.symbol === 'g')).toMatchObject({ startLine: 12, doc: null });
  });

  it('does not attach a comment separated by a blank line', async () => {
    const text = '// unrelated note about the module\n\nfunction f() {\n  return 1;\n}\n';
    const r = await chunker.chunkFile('m.js', text);
    const f = r.chunks.find((c) => c.symbol === 'f')!;
    expect(f.startLine).toBe(3);
    expect(f.doc).toBeNull();
  });

  it('reads Python docstrings and keeps decorators in the range but not the signature', async () => {
    const text = 'import functools\n\n\n@functools.cache\ndef fib(n: int) -> int:\n    """Fibonacci.\n\n    Slowly."""\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n';
    const r = await chunker.chunkFile('f.py', text);
    const fib = r.chunks.find((c) => c.symbol === 'fib')!;
    expect(fib).toMatchObject({ startLine: 4, endLine: 9, signature: 'def fib(n: int) -> int:', doc: 'Fibonacci.\n\nSlowly.' });
  });

  it('names methods by their class, Go methods by their receiver, C++ out-of-line methods by qualifier', async () => {
    const go = await chunker.chunkFile('a.go', 'package a\n\nfunc (s *Server) Serve(addr string) error {\n\treturn nil\n}\n');
    expect(go.chunks.find((c) => c.symbol === 'Serve')).toMatchObject({ chunkType: 'method', parent: 'Server' });
    const cpp = await chunker.chunkFile('a.cpp', 'int Matrix::rows() const {\n  return rows_;\n}\n');
    expect(cpp.chunks.find((c) => c.symbol === 'rows')).toMatchObject({ chunkType: 'method', parent: 'Matrix' });
  });

  it('merges two tiny functions under the first name but keeps a normal one alone', async () => {
    const body = Array.from({ length: 8 }, (_, i) => `  total += values[${i}] * weights[${i}];`).join('\n');
    const text = `function a() { return 1; }\nfunction b() { return 2; }\n\nfunction big(values, weights) {\n  let total = 0;\n${body}\n  return total;\n}\n`;
    const r = await chunker.chunkFile('m.js', text);
    expect(r.chunks.map((c) => [c.symbol, c.startLine, c.endLine])).toEqual([['a', 1, 2], ['big', 4, 15]]);
  });

  it('handles CRLF line endings', async () => {
    const text = 'def a():\r\n    return 1\r\n\r\n\r\nclass B:\r\n    x = 1\r\n';
    const r = await chunker.chunkFile('m.py', text);
    for (const c of r.chunks) expect(c.content).not.toMatch(/\r$/);
    checkInvariants(text, r.chunks, MAX);
  });

  it('returns no chunks for an empty or blank file', async () => {
    expect((await chunker.chunkFile('e.ts', '')).chunks).toEqual([]);
    expect((await chunker.chunkFile('e.ts', '\n\n  \n')).chunks).toEqual([]);
    expect((await chunker.chunkFile('e.md', '')).chunks).toEqual([]);
  });
});

describe('definitions inside containers', () => {
  /** symbol → [chunkType, parent] of every chunk, and of every name a merged chunk lists. */
  const defs = (chunks: Chunk[]) => Object.fromEntries(chunks.flatMap((c) => (c.names ?? (c.symbol ? [c.symbol] : [])).map((n) => [n, [c.chunkType, c.parent]])));

  it('makes the methods of a small Rust impl definitions of the type, also for a trait impl', async () => {
    const text = [
      'pub struct Utf8Error {', '    valid_up_to: usize,', '    error_len: Option<u8>,', '}', '',
      'impl Utf8Error {', '    /// Bytes that were valid UTF-8.', '    pub fn valid_up_to(&self) -> usize {', '        self.valid_up_to', '    }', '',
      '    /// Length of the invalid sequence, if known.', '    pub fn error_len(&self) -> Option<usize> {', '        self.error_len.map(|len| len as usize)', '    }', '}', '',
      'impl<T: fmt::Debug> fmt::Display for Wrapper<T> {', '    fn fmt(&self, f: &mut fmt::Formatter<\'_>) -> fmt::Result {', '        write!(f, "{:?}", self.0)', '    }', '}', '',
    ].join('\n');
    const r = await chunker.chunkFile('error.rs', text);
    expect(defs(r.chunks)).toMatchObject({ Utf8Error: ['struct', null], valid_up_to: ['method', 'Utf8Error'], error_len: ['method', 'Utf8Error'], fmt: ['method', 'Wrapper'] });
    const errorLen = r.chunks.find((c) => c.symbol === 'error_len' || c.names?.includes('error_len'))!;
    // The impl's header opens its first method's chunk, its `}` closes the last one.
    expect(r.chunks.find((c) => c.symbol === 'valid_up_to')!.startLine).toBe(6);
    expect(errorLen.endLine).toBe(16);
  });

  it('reads Kotlin members, companions and extension functions, Swift extensions, Scala objects', async () => {
    const kt = await chunker.chunkFile('Buffer.kt', [
      'class Buffer {', '  fun size(): Long {', '    return 0L', '  }', '', '  companion object {', '    fun of(vararg b: Byte): Buffer {', '      return Buffer()', '    }', '  }', '}', '',
      'fun Buffer.readUtf8(): String = ""', '',
    ].join('\n'));
    expect(defs(kt.chunks)).toMatchObject({ Buffer: ['class', null], size: ['method', 'Buffer'], of: ['method', 'Buffer'], readUtf8: ['method', 'Buffer'] });
    const swift = await chunker.chunkFile('S.swift', 'struct Point {\n    var x: Int\n}\n\nextension Point: Equatable {\n    func norm() -> Int {\n        return x\n    }\n}\n');
    expect(defs(swift.chunks)).toMatchObject({ Point: ['struct', null], norm: ['method', 'Point'] });
    const scala = await chunker.chunkFile('S.scala', 'object Store {\n  def inMemory(): Store = {\n    new InMemoryStore\n  }\n}\n');
    expect(defs(scala.chunks)).toMatchObject({ Store: ['class', null], inMemory: ['method', 'Store'] });
  });

  it('reads Elixir modules, functions (clauses grouped), @doc, protocols and implementations', async () => {
    const text = [
      'defmodule Plug.Conn do', '  @moduledoc "The connection."', '', '  @doc "Halts."', '  def halt(%{} = conn) do', '    %{conn | halted: true}', '  end', '',
      '  def put(conn, 0), do: conn', '  def put(conn, n), do: put(conn, n - 1)', 'end', '', 'defimpl Inspect, for: Plug.Conn do', '  def inspect(_conn, _opts) do', '    "conn"', '  end', 'end', '',
    ].join('\n');
    const r = await chunker.chunkFile('lib/conn.ex', text);
    expect(defs(r.chunks)).toMatchObject({ 'Plug.Conn': ['class', null], Conn: ['class', null], halt: ['function', 'Plug.Conn'], put: ['function', 'Plug.Conn'], inspect: ['function', 'Plug.Conn'] });
    expect(r.chunks.find((c) => c.symbol === 'Plug.Conn')!.doc).toBe('The connection.');
    expect(r.chunks.find((c) => c.symbol === 'halt' || c.names?.includes('halt'))!).toMatchObject({ doc: 'Halts.', startLine: 4 });
    // Both clauses of put/2 are one definition.
    expect(r.chunks.filter((c) => c.symbol === 'put' || c.names?.includes('put'))).toHaveLength(1);
  });

  it('reads Lua functions of a table, Haskell equations with their signature, Dart signatures with their body', async () => {
    const lua = await chunker.chunkFile('q.lua', 'local M = {}\n\nfunction M.new()\n  return setmetatable({}, M)\nend\n\nfunction M:push(v)\n  self[#self + 1] = v\nend\n\nreturn M\n');
    expect(defs(lua.chunks)).toMatchObject({ new: ['function', 'M'], push: ['method', 'M'] });
    const hs = await chunker.chunkFile('D.hs', '-- | Counts digits.\ndigits :: String -> Int\ndigits [] = 0\ndigits (c:cs) = 1 + digits cs\n\ninstance Show Token where\n  show _ = "t"\n');
    const digits = hs.chunks.find((c) => c.symbol === 'digits')!;
    expect(digits).toMatchObject({ startLine: 1, endLine: 4, signature: 'digits :: String -> Int', doc: 'Counts digits.' });
    expect(defs(hs.chunks)).toMatchObject({ show: ['method', 'Token'] });
    // An infix type constructor is the name of its declaration (no name field in the tree).
    const infix = await chunker.chunkFile('Alt.hs', 'module Alt where\n\n-- | Either of two APIs.\ndata a :<|> b = a :<|> b\n  deriving (Eq, Show)\n\nnewtype Wrap = Wrap Int\n');
    expect(defs(infix.chunks)).toMatchObject({ ':<|>': ['type', null], Wrap: ['type', null] });
    // A pattern binding through a constructor operator binds its variables, not the operator.
    // Call signatures one per line: the grammar reads `R\n  <T>(…)` as R's type arguments, and
    // most of the file as an error; a second reading separates them (maskTsGaps).
    const sigs = 'interface Respond {\n  <T extends string>(text: T, status?: number): Response & Typed<T>\n  <T extends string>(text: T, init?: Init): Response & Typed<T>\n  <T extends object>(value: T): Response & Typed<T>\n}\n';
    const ts = await chunker.chunkFile('respond.ts', sigs);
    expect(ts.parsed).toBe(true);
    expect(ts.warnings).toEqual([]);
    expect(defs(ts.chunks)).toMatchObject({ Respond: ['interface', null] });
    const bound = await chunker.chunkFile('Client.hs', 'module Client where\n\ngetA :<|> getB = client api\n');
    expect(bound.chunks.some((c) => c.symbol === ':<|>' || c.names?.includes(':<|>'))).toBe(false);
    // Definitions inside a top-level `if` / `try` (Python) or `if defined?(…)` (Ruby) are pieces of their own.
    const body = (n: number, pad: string) => Array.from({ length: n }, (_, i) => `${pad}x${i} = cmd * ${i}`).join('\n');
    const py = await chunker.chunkFile('spawn.py', `import sys\n\nif sys.platform == "win32":\n    def spawn(cmd):\n${body(12, '        ')}\n        return 1\nelse:\n    def spawn(cmd):\n${body(12, '        ')}\n        return 2\n\ntry:\n    from _speedups import fast\nexcept ImportError:\n    def fast(x):\n${body(12, '        ')}\n        return x\n\nif __name__ == "__main__":\n    spawn(sys.argv)\n`);
    expect(py.chunks.filter((c) => c.symbol).map((c) => [c.symbol, c.startLine])).toEqual([['spawn', 4], ['spawn', 19], ['fast', 37]]);
    const rb = await chunker.chunkFile('mailer.rb', `if defined?(ActionMailer)\n  class Devise::Mailer < Devise.parent_mailer.constantize\n    def confirmation_instructions(record, token)\n${body(12, '      ')}\n    end\n  end\nend\n`);
    expect(rb.chunks.some((c) => c.symbol === 'Devise::Mailer' || c.names?.includes('Devise::Mailer'))).toBe(true);
    // A statement with no definition in it is chunked as before: one piece of code.
    const plain = await chunker.chunkFile('main.py', 'import sys\n\nif __name__ == "__main__":\n    main(sys.argv)\n');
    expect(plain.chunks.map((c) => [c.startLine, c.endLine])).toEqual([[1, 4]]);
    // A pattern synonym defines its name: prefix with one `apply` per argument, a signature, a
    // record, an infix one (shellcheck's AST: `pattern T_Assignment id mode var indices value = …`).
    const syn = await chunker.chunkFile('Syn.hs', 'module Syn where\n\npattern T_Assignment id mode var indices value = OuterToken id (Inner mode var indices value)\n\n-- | A pair.\npattern Pair :: a -> b -> (a, b)\npattern Pair{a, b} = (a, b)\n\nfoo :: Int\nfoo = 1\n\npattern x :< xs <- (uncons -> Just (x, xs))\n');
    const synNames = syn.chunks.flatMap((c) => [c.symbol, ...(c.names ?? [])]);
    expect(synNames).toEqual(expect.arrayContaining(['T_Assignment', 'Pair', ':<', 'foo']));
    expect(synNames).not.toContain('OuterToken');
    const op = await chunker.chunkFile('Op.hs', 'module Op where\n\nx <+> y = x + y\n');
    expect(defs(op.chunks)).toMatchObject({ '<+>': ['function', null] });
    const dart = await chunker.chunkFile('a.dart', 'class A {\n  int get size => 1;\n\n  void reset() {\n    print(1);\n  }\n}\n');
    expect(defs(dart.chunks)).toMatchObject({ A: ['class', null], size: ['method', 'A'], reset: ['method', 'A'] });
    expect(dart.chunks.find((c) => c.names?.includes('reset') || c.symbol === 'reset')!.endLine).toBeGreaterThanOrEqual(6);
  });

  it('reads a C++ header as C++ (its classes are definitions) and a C header as C', async () => {
    const cpp = await chunker.chunkFile('include/widget.h', '#pragma once\nnamespace ui {\nclass Widget {\n public:\n  int width() const;\n};\n}\n');
    expect(cpp.language).toBe('cpp');
    expect(defs(cpp.chunks)).toMatchObject({ Widget: ['class', 'ui'] });
    const c = await chunker.chunkFile('include/list.h', '#ifdef __cplusplus\nextern "C" {\n#endif\nstruct list { struct list *next; };\n#ifdef __cplusplus\n}\n#endif\n');
    expect(c.language).toBe('c');
  });

  it('reads Scala 3 indentation syntax: blocks that end in the next line\'s indentation, `end Foo` markers', async () => {
    const text = 'object Main:\n  def run(): Unit =\n    println("x")\n    println("y")\n\n  def other(a: Int): Int =\n    a + 1\n\nclass Foo(x: Int):\n  def bar = x\nend Foo\n';
    const r = await chunker.chunkFile('Main.scala', text);
    checkInvariants(text, r.chunks, MAX);
    expect(defs(r.chunks)).toMatchObject({ Main: ['class', null], run: ['method', 'Main'], other: ['method', 'Main'], Foo: ['class', null], bar: ['method', 'Foo'] });
    expect(r.chunks[r.chunks.length - 1].endLine).toBe(11);
  });

  it('keeps rows the parser did not read in a chunk (C annotation lines masked, #if lines of a retried parse)', async () => {
    const text = 'extern bool no_hash_pointers;\n\n/* Helper. */\n__printf(2, 3)\nstatic void seq_con_printf(struct seq_file *seq, const char *fmt, ...)\n{\n\tva_list args;\n\n\tva_start(args, fmt);\n\tva_end(args);\n}\n';
    const r = await chunker.chunkFile('report.c', text);
    checkInvariants(text, r.chunks, MAX);
    expect(r.chunks.map((c) => c.symbol)).toContain('seq_con_printf');
  });

  it('puts the signature of a split definition with a long doc comment in its first piece', async () => {
    const doc = Array.from({ length: 20 }, (_, i) => `    /// Line ${i} of a long explanation of what this function does, with details.\n`).join('');
    const body = Array.from({ length: 40 }, (_, i) => `        let v${i} = self.items[${i}].len() * ${i};\n`).join('');
    const text = `impl Utf8Error {\n${doc}    #[inline]\n    pub fn error_len(&self) -> Option<usize> {\n${body}        None\n    }\n}\n`;
    const r = await chunker.chunkFile('error.rs', text);
    checkInvariants(text, r.chunks, MAX);
    const defLine = 23;
    const pieces = r.chunks.filter((c) => c.defLine === defLine);
    // The doc rows that do not fit beside the signature are a comment piece of the definition; its first own piece is the head.
    expect(pieces[0]).toMatchObject({ chunkType: 'comment', symbol: null });
    const head = pieces.find((c) => c.symbol === 'error_len' && !c.context)!;
    expect(head.startLine).toBeLessThan(defLine);
    expect(head.endLine).toBeGreaterThan(defLine);
    expect(head.doc).toMatch(/^Line 0 of a long explanation/);
  });

  it('names an extension-less script by its #! line', async () => {
    const r = await chunker.chunkFile('bin/deploy', '#!/usr/bin/env python3\ndef main():\n    return 0\n');
    expect(r.language).toBe('python');
    expect(r.chunks.map((c) => c.symbol)).toContain('main');
  });
});

describe('big definitions', () => {
  const method = (i: number) =>
    `  /** Handles case ${i}. */\n  handle${i}(input: string): number {\n    const trimmed = input.trim();\n    if (trimmed.length === ${i}) {\n      return ${i} * trimmed.length;\n    }\n    return trimmed.split(',').length + ${i};\n  }\n`;

  it('splits a class bigger than the max into a header and one chunk per method', async () => {
    const text = `/** A dispatcher. */\nexport class Dispatcher extends Base {\n  private count = 0;\n  readonly name: string;\n\n${Array.from({ length: 20 }, (_, i) => method(i)).join('\n')}}\n`;
    expect(text.length).toBeGreaterThan(MAX * 2);
    const r = await chunker.chunkFile('d.ts', text);
    checkInvariants(text, r.chunks, MAX);
    const [header, ...rest] = r.chunks;
    expect(header).toMatchObject({ chunkType: 'class', symbol: 'Dispatcher', startLine: 1, doc: 'A dispatcher.', signature: 'export class Dispatcher extends Base' });
    expect(header.content).toContain('private count = 0;');
    expect(rest.map((c) => c.symbol)).toEqual(Array.from({ length: 20 }, (_, i) => `handle${i}`));
    for (const [i, c] of rest.entries()) {
      expect(c).toMatchObject({ chunkType: 'method', parent: 'Dispatcher', doc: `Handles case ${i}.` });
      expect(c.content.startsWith('  /** Handles case')).toBe(true);
    }
    expect(rest[rest.length - 1].content.endsWith('}\n}') || rest[rest.length - 1].content.endsWith('}')).toBe(true);
  });

  it('splits a big Python class the same way', async () => {
    const meth = (i: number) => `    def step_${i}(self, x):\n        """Step ${i}."""\n        y = x * ${i} + self.offset\n        if y > ${i * 10}:\n            y -= ${i}\n        return self.clamp(y)\n`;
    const text = `class Pipeline(Base):\n    """Runs steps."""\n\n    offset = 3\n\n${Array.from({ length: 20 }, (_, i) => meth(i)).join('\n')}`;
    const r = await chunker.chunkFile('p.py', text);
    checkInvariants(text, r.chunks, MAX);
    expect(r.chunks[0]).toMatchObject({ chunkType: 'class', symbol: 'Pipeline', doc: 'Runs steps.', startLine: 1, endLine: 4 });
    const methods = r.chunks.filter((c) => c.chunkType === 'method');
    expect(methods.length).toBeGreaterThan(0);
    expect(new Set(methods.map((c) => c.parent))).toEqual(new Set(['Pipeline']));
    // Tiny methods merge in pairs at most when both are under the minimum; these are not tiny.
    expect(methods.map((c) => c.symbol)).toEqual(Array.from({ length: 20 }, (_, i) => `step_${i}`));
  });

  it('splits a long function at statement boundaries, later pieces carrying the signature', async () => {
    const stmts = Array.from({ length: 120 }, (_, i) => `  if (values[${i}] > limit) {\n    total += values[${i}] * ${i};\n  }`).join('\n');
    const text = `// header\n\nexport function accumulate(values: number[], limit: number): number {\n  let total = 0;\n${stmts}\n  return total;\n}\n`;
    const r = await chunker.chunkFile('acc.ts', text);
    checkInvariants(text, r.chunks, MAX);
    const pieces = r.chunks.filter((c) => c.symbol === 'accumulate');
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces[0].content.startsWith('export function accumulate(')).toBe(true);
    for (const [i, p] of pieces.entries()) {
      expect(p.chunkType).toBe('function');
      expect(p.signature).toBe('export function accumulate(values: number[], limit: number): number');
      // Every piece names the same definition line; later pieces carry its signature as context, not content.
      expect(p.defLine).toBe(3);
      if (i === 0) {
        expect(p.context ?? null).toBeNull();
        continue;
      }
      expect(p.context).toBe('export function accumulate(values: number[], limit: number): number {');
      expect(p.contextLine).toBe(3);
      // Cut at statement boundaries: each piece's lines start with an `if` and are contiguous with the previous piece.
      expect(p.content.split('\n')[0]).toMatch(/^ {2}(if|return)/);
      expect(p.startLine).toBe(pieces[i - 1].endLine + 1);
    }
    expect(pieces[pieces.length - 1].endLine).toBe(text.trimEnd().split('\n').length);
  });

  it('carries the signature of a split Python body as context with its line', async () => {
    const body = Array.from({ length: 150 }, (_, i) => `    total += values[${i}] * ${i}`).join('\n');
    const text = `def accumulate(values):\n    total = 0\n${body}\n    return total\n`;
    const r = await chunker.chunkFile('acc.py', text);
    checkInvariants(text, r.chunks, MAX);
    expect(r.chunks.length).toBeGreaterThan(1);
    expect(r.chunks[1].content.startsWith('    total += values[')).toBe(true);
    expect(r.chunks[1].context).toBe('def accumulate(values):');
    expect(r.chunks[1].contextLine).toBe(1);
  });
});

describe('text fallback and failures', () => {
  it('chunks non-code files as text', async () => {
    const r = await chunker.chunkFile('notes.txt', 'just some notes\n\nmore notes\n');
    expect(r).toMatchObject({ language: 'text', parsed: false, warnings: [] });
    expect(r.chunks).toHaveLength(1);
    expect(r.chunks[0]).toMatchObject({ chunkType: 'text', startLine: 1, endLine: 3, symbol: null });
  });

  it('falls back to text with a warning when most of the file does not parse', async () => {
    const text = Array.from({ length: 50 }, (_, i) => `)))) ${i} ]]] <<< @@ %% ((( }}} ${'#'.repeat(i % 7)}`).join('\n');
    const r = await chunker.chunkFile('broken.ts', text);
    expect(r.parsed).toBe(false);
    expect(r.language).toBe('typescript');
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/broken\.ts: syntax errors cover \d+%/);
    expect(r.chunks.length).toBeGreaterThan(0);
    expect(r.chunks.every((c) => c.chunkType === 'text' && c.language === 'typescript')).toBe(true);
  });

  it('keeps structure when only a small part has syntax errors', async () => {
    const good = Array.from({ length: 10 }, (_, i) => `function f${i}(a) {\n  // step ${i} of the pipeline, kept apart for clarity\n  const x = a * ${i} + Math.max(a, ${i});\n  return x + ${i} + a * a;\n}\n`).join('\n');
    const r = await chunker.chunkFile('m.js', `${good}\nconst = = ;\n`);
    expect(r.parsed).toBe(true);
    expect(r.chunks.some((c) => c.symbol === 'f9')).toBe(true);
  });

  it('keeps the functions of a file whose biggest part is a table the grammar cannot read', async () => {
    // A table the C grammar cannot read (macro calls that take operators, with no commas
    // between them) is one ERROR node over most of the file; the functions beside it are read.
    const fns = Array.from({ length: 12 }, (_, i) => `static int fill_case_${i}(struct test *self)\n{\n\t/* Fill the program of case ${i}: one instruction per slot, then the exit. */\n\tint n = self->len * ${i};\n\tfor (int k = 0; k < n; k++)\n\t\tself->insns[k] = make_insn(k, ${i}, self->flags);\n\tself->insns[n] = exit_insn();\n\treturn n + ${i};\n}\n`).join('\n');
    const rows = Array.from({ length: 150 }, (_, i) => `\tOP_TEST(W, ADD, +, 0x${i})\n\tOP_TEST(DW, XOR, ^, 0x${i})`).join('\n');
    const text = `${fns}\nstatic struct test tests[] = {\n${rows}\n};\n`;
    const r = await chunker.chunkFile('test_ops.c', text);
    expect(r.parsed).toBe(true);
    expect(r.chunks.filter((c) => c.chunkType === 'function').map((c) => c.symbol)).toEqual(Array.from({ length: 12 }, (_, i) => `fill_case_${i}`));
    expect(r.chunks.some((c) => c.content.includes('OP_TEST(DW, XOR, ^, 0x149)'))).toBe(true);
    // With few functions beside the table, the file is still chunked as text.
    const few = await chunker.chunkFile('few.c', `${fns.split('\n\n')[0]}\n\nstatic struct test tests[] = {\n${rows}\n};\n`);
    expect(few.parsed).toBe(false);
    expect(few.warnings[0]).toMatch(/syntax errors cover \d+% of the file/);
  });

  it('falls back to text when the parse goes over its work limit', async () => {
    const hasty = await Chunker.create({ loadWasm: nodeWasmLoader, parseBudget: 10 });
    const text = Array.from({ length: 40_000 }, (_, i) => `const v${i} = [${i}, ${i + 1}, { k: "${i}" }];`).join('\n');
    const r = await hasty.chunkFile('big.js', text);
    expect(r.parsed).toBe(false);
    expect(r.warnings[0]).toMatch(/parse stopped at its work limit \(1000 operations\)/);
    expect(r.chunks.length).toBeGreaterThan(100);
    // The parser is usable again after an aborted parse.
    const ok = await hasty.chunkFile('small.js', 'function ok() { return 1; }\n');
    expect(ok.parsed).toBe(true);
    hasty.dispose();
  });

  it('falls back to text when a grammar cannot be loaded, and caches the failure', async () => {
    let grammarLoads = 0;
    const noPython: WasmLoader = (file) => {
      if (file.includes('python')) {
        grammarLoads++;
        return Promise.reject(new Error('not shipped'));
      }
      return nodeWasmLoader(file);
    };
    const c = await Chunker.create({ loadWasm: noPython });
    for (let i = 0; i < 2; i++) {
      const r = await c.chunkFile('a.py', 'def f():\n    return 1\n');
      expect(r).toMatchObject({ language: 'python', parsed: false });
      expect(r.warnings[0]).toMatch(/grammar unavailable \(not shipped\)/);
      expect(r.chunks[0].chunkType).toBe('text');
    }
    expect(grammarLoads).toBe(1);
    c.dispose();
    await expect(c.chunkFile('a.js', '')).rejects.toThrow(/disposed/);
  });
});

describe('pathological input stays bounded', () => {
  it('5 MB minified single line', async () => {
    const unit = 'function a(b){return b&&b.c?b.c(d):e[f]||g(h,i,j)}var k=1;';
    const text = unit.repeat(Math.ceil(5e6 / unit.length));
    const t0 = performance.now();
    const r = await chunker.chunkFile('bundle.js', text);
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(10_000);
    expect(r.parsed).toBe(false);
    expect(r.warnings[0]).toMatch(/minified/);
    expect(r.chunks.length).toBeGreaterThan(3000);
    expect(Math.max(...r.chunks.map((c) => c.content.length))).toBeLessThanOrEqual(MAX);
    expect(r.chunks.every((c) => c.startLine === 1 && c.endLine === 1)).toBe(true);
  });

  it('100k-deep nested brackets on one line and on many lines', async () => {
    const depth = 100_000;
    for (const sep of ['', '\n']) {
      const text = `const x = ${'['.repeat(depth)}1${(sep + ']').repeat(depth)};\n`;
      const t0 = performance.now();
      const r = await chunker.chunkFile('deep.js', text);
      expect(performance.now() - t0).toBeLessThan(15_000);
      expect(r.chunks.length).toBeGreaterThan(0);
      expect(Math.max(...r.chunks.map((c) => c.content.length))).toBeLessThanOrEqual(MAX);
    }
  });

  it('deeply nested classes and namespaces do not overflow the stack', async () => {
    const depth = 5000;
    const text = `${'namespace a {\n'.repeat(depth)}int f() { return 1; }\n${'}\n'.repeat(depth)}`;
    const r = await chunker.chunkFile('deep.cpp', text);
    expect(r.chunks.length).toBeGreaterThan(0);
    const py = `${Array.from({ length: 300 }, (_, i) => `${' '.repeat(i)}class C${i}:\n`).join('')}${' '.repeat(300)}pass\n`;
    const rp = await chunker.chunkFile('deep.py', py);
    expect(rp.chunks.length).toBeGreaterThan(0);
  });
});

describe('UTF-16', () => {
  it('places a function correctly after emoji and CJK text', async () => {
    const text = `// 你好世界 🎉🎉 – ünïcödé 𝔘𝔫𝔦\nconst s = "日本語テキスト 😀";\n\n/** 説明 🚀 */\nfunction 名前(x) {\n  return x + "✓";\n}\n`;
    const r = await chunker.chunkFile('u.js', text);
    const fn = r.chunks.find((c) => c.chunkType === 'function')!;
    expect(fn).toMatchObject({ symbol: '名前', startLine: 4, endLine: 7, doc: '説明 🚀', signature: 'function 名前(x)' });
    expect(fn.content).toBe('/** 説明 🚀 */\nfunction 名前(x) {\n  return x + "✓";\n}');
  });

  it('never cuts a surrogate pair when splitting a long line', async () => {
    const text = '😀'.repeat(2000);
    const r = await chunker.chunkFile('e.txt', text);
    expect(r.chunks.length).toBeGreaterThan(1);
    for (const c of r.chunks) {
      expect(c.content.length).toBeLessThanOrEqual(MAX);
      expect(c.content).toMatch(/^(😀)+$/u);
    }
  });
});

describe('maskKotlinGaps', () => {
  it('blanks only the grammar\'s gaps, keeping the length and every line break', () => {
    const src = 'fun a() = also { res().contentType = x }\nval y = f()[0] == z\nfun b(): Int = 1\nfun interface F { fun g() }\nval o = object : Source by buffer {\n}\nif (ok) a.b = c\nres(\n).x = 1\n';
    const out = maskKotlinGaps(src);
    expect(out.length).toBe(src.length);
    expect(out.split('\n').length).toBe(src.split('\n').length);
    expect(out).toContain('also { res();              x }');
    expect(out).toContain('val y = f()[0] == z');
    expect(out).toContain('fun b(): Int = 1');
    expect(out).toContain('    interface F { fun g() }');
    expect(out).toContain('object : Source           {');
    expect(out).toContain('if (ok) a.b = c');
  });
});

describe('maskTsGaps', () => {
  it('puts `;` for the indent\'s first character before a member line that opens with `<`, nowhere else', () => {
    const src = 'interface R {\n  <T>(x: T): A<T>\n  <T>(y: T): T\n}\nconst f = g(\n  <T>(z: T) => z,\n)\ntype U = A |\n  <T>() => T\n';
    const out = maskTsGaps(src);
    expect(out.length).toBe(src.length);
    expect(out).toBe('interface R {\n  <T>(x: T): A<T>\n; <T>(y: T): T\n}\nconst f = g(\n  <T>(z: T) => z,\n)\ntype U = A |\n  <T>() => T\n');
  });

  it('reads `typeof this` in a type as `typeof self`, in TS and TSX, and leaves JSX lines alone', () => {
    expect(maskTsGaps('let d: (typeof this._q)[number]; const t = this;\n')).toBe('let d: (typeof self._q)[number]; const t = this;\n');
    const jsx = 'const a = x\n  <div>{typeof this.y}</div>\n';
    expect(maskTsxGaps(jsx)).toBe('const a = x\n  <div>{typeof self.y}</div>\n');
  });

  it('reads a class with `typeof this` in a type as a class with its methods', async () => {
    const body = Array.from({ length: 12 }, (_, k) => `    this.count += ${k}; // step work ${k}`).join('\n');
    const methods = Array.from({ length: 6 }, (_, i) => `  step${i}(): void {\n    let next: (typeof this.queue)[number] | undefined;\n    while ((next = this.queue.shift())) next();\n${body}\n  }\n`).join('\n');
    const r = await chunker.chunkFile('actor.ts', `export class Actor {\n  private queue: Array<() => void> = [];\n\n${methods}}\n`);
    expect(r.warnings).toEqual([]);
    const named = Object.fromEntries(r.chunks.flatMap((c) => (c.names ?? (c.symbol ? [c.symbol] : [])).map((n) => [n, [c.chunkType, c.parent]])));
    expect(named).toMatchObject({ Actor: ['class', null], step0: ['method', 'Actor'], step5: ['method', 'Actor'] });
  });
});

describe('maskRustGaps', () => {
  it('blanks ~const, box and attributes with code beside them on their line; keeps an item\'s attributes', () => {
    const src = [
      'pub struct B<', '    T: ?Sized,', '    #[unstable(feature = "a", issue = "1")] A: Alloc = Global,', '>(U<T>, A);',
      '#[inline]', '#[cfg_attr(not(x), rustc_box)]', 'pub fn new(x: T) -> Self where A: ~const Alloc {', '    let t = box x;',
      '    (#[cfg_attr(not(bootstrap), rustc_box)]', '    B::new(x))', '}', 'let toolbox = inbox(x);', '',
    ].join('\n');
    const out = maskRustGaps(src);
    expect(out.length).toBe(src.length);
    expect(out.split('\n').length).toBe(src.split('\n').length);
    const lines = out.split('\n');
    expect(lines[2]).toBe(`    ${' '.repeat('#[unstable(feature = "a", issue = "1")]'.length)} A: Alloc = Global,`);
    expect(lines[4]).toBe('#[inline]');
    expect(lines[5]).toBe('#[cfg_attr(not(x), rustc_box)]');
    expect(lines[6]).toBe('pub fn new(x: T) -> Self where A:        Alloc {');
    expect(lines[7]).toBe('    let t =     x;');
    expect(lines[8]).toBe(`    (${' '.repeat('#[cfg_attr(not(bootstrap), rustc_box)]'.length)}`);
    expect(lines[11]).toBe('let toolbox = inbox(x);');
  });
});
