import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Language, Parser } from 'web-tree-sitter';
import { ALL_WASM_FILES, GRAMMARS, LANGUAGE_SPECS, RUNTIME_WASM, detectLanguage, languageNeedsText } from './languages.ts';
import { nodeWasmLoader } from './grammars-node.ts';
import { Chunker } from './chunker.ts';

describe('detectLanguage', () => {
  it.each([
    ['src/app.js', 'javascript'], ['a/b.mjs', 'javascript'], ['x.jsx', 'javascript'],
    ['lib/store.ts', 'typescript'], ['x.d.mts', 'typescript'], ['ui/Box.tsx', 'tsx'],
    ['tool.py', 'python'], ['stubs.pyi', 'python'], ['main.go', 'go'], ['lib.rs', 'rust'],
    ['A.java', 'java'], ['arena.c', 'c'], ['arena.h', 'c'], ['m.cpp', 'cpp'], ['m.hpp', 'cpp'],
    ['m.cc', 'cpp'], ['R.cs', 'csharp'], ['x.rb', 'ruby'], ['i.php', 'php'], ['run.sh', 'bash'],
    ['.zshrc', 'bash'], ['README.md', 'markdown'], ['p.json', 'json'], ['ci.yml', 'yaml'],
    ['Cargo.toml', 'toml'], ['i.html', 'html'], ['s.css', 'css'], ['s.scss', 'scss'],
    ['q.sql', 'sql'], ['notes.txt', 'text'], ['Makefile', 'make'], ['docker/Dockerfile', 'dockerfile'],
    ['Gemfile', 'ruby'], ['CMakeLists.txt', 'cmake'], ['LICENSE', 'text'], ['noext', 'text'],
    ['A.kt', 'kotlin'], ['b.kts', 'kotlin'], ['S.swift', 'swift'], ['build.sbt', 'scala'], ['m.dart', 'dart'], ['init.lua', 'lua'],
    ['lib/conn.ex', 'elixir'], ['mix.exs', 'elixir'], ['Main.hs', 'haskell'], ['build.zig', 'zig'], ['Counter.pm', 'perl'],
    ['plot.R', 'r'], ['Main.elm', 'elm'], ['app.gleam', 'gleam'], ['core.clj', 'clojure'], ['ui.cljs', 'clojure'],
    ['weird.', 'text'], ['.hidden', 'text'], ['UPPER.PY', 'python'], ['a.b/c', 'text'],
  ])('%s → %s', (path, lang) => {
    expect(detectLanguage(path)).toBe(lang);
  });

  it.each([
    ['#!/usr/bin/env python3\nprint(1)\n', 'python'], ['#!/usr/bin/python3.11 -u\n', 'python'],
    ['#!/usr/bin/env node\n', 'javascript'], ['#!/bin/sh\nset -e\n', 'bash'], ['#! /bin/bash\n', 'bash'],
    ['#!/usr/bin/env -S deno run --allow-net\n', 'typescript'], ['#!/usr/bin/env ruby\n', 'ruby'],
    ['#!/usr/bin/perl -w\n', 'perl'], ['#!/usr/bin/env php\n', 'php'], ['#!/usr/bin/env lua5.4\n', 'lua'],
    ['#!/usr/bin/env elixir\n', 'elixir'], ['#!/usr/bin/env LANG=C zsh\n', 'bash'], ['#!/usr/bin/env Rscript\n', 'r'],
    ['#!/usr/bin/env fish\n', 'text'], ['echo hi\n', 'text'], ['', 'text'],
  ])('a file without an extension is named by its #! line: %j → %s', (text, lang) => {
    expect(detectLanguage('bin/tool', text)).toBe(lang);
    expect(detectLanguage('scripts/run.cgi', text)).toBe(lang);
  });

  it('keeps the extension over a #! line, and a known file name over both', () => {
    expect(detectLanguage('x.py', '#!/bin/sh\n')).toBe('python');
    expect(detectLanguage('Makefile', '#!/usr/bin/env python\n')).toBe('make');
    expect(detectLanguage('bin/tool')).toBe('text');
  });

  it('reads a .h as C++ only when it holds C++, outside comments, strings and __cplusplus blocks', () => {
    const c = '#ifndef A_H\n#define A_H\n/* this class of errors; see std::vector */\nstruct a { int b : 3; };\nconst char *s = "ns::name";\nint f(int x);\n#endif\n';
    const guarded = '#ifdef __cplusplus\nextern "C" {\nnamespace x {}\n#endif\nint f(void);\n#ifdef __cplusplus\n}\n#endif\n';
    const negated = '#ifndef __cplusplus\ntypedef int bool;\n#else\ntemplate <class T> struct X;\n#endif\n';
    for (const text of [c, guarded, negated, 'asm volatile("" ::: "memory");\n', 'int class_id;\nint public_x;\n', '#ifdef CPP_PROTO\nextern "C++" int *f(int *);\n#endif\n']) {
      expect(detectLanguage('include/a.h', text), text).toBe('c');
    }
    for (const text of [
      'namespace fmt {\nint f();\n}\n', 'template <typename T>\nT max(T a, T b);\n', 'class Widget {\n public:\n  int x;\n};\n',
      'struct Point : public Base {};\n', 'std::string name();\n', 'int Matrix::rows() const;\n', '#include <vector>\n',
      'auto f() noexcept -> int;\n', 'bool operator==(const A&, const A&);\n',
    ]) {
      expect(detectLanguage('include/a.h', text), text).toBe('cpp');
    }
    expect(detectLanguage('include/a.h')).toBe('c');
    expect(detectLanguage('include/a.hpp', 'int f(void);\n')).toBe('cpp');
    expect(detectLanguage('src/a.c', 'class X {};\n')).toBe('c');
  });

  it('says which paths need the text', () => {
    expect(['a.h', 'bin/tool', 'x.cgi'].map(languageNeedsText)).toEqual([true, true, true]);
    expect(['a.c', 'a.py', 'Makefile', 'README'].map(languageNeedsText)).toEqual([false, false, false, false]);
  });
});

describe('tables', () => {
  it('GRAMMARS and LANGUAGE_SPECS cover the same languages, including the required ones', () => {
    expect(Object.keys(GRAMMARS).sort()).toEqual(Object.keys(LANGUAGE_SPECS).sort());
    for (const lang of [
      'javascript', 'typescript', 'tsx', 'python', 'go', 'rust', 'java', 'c', 'cpp', 'csharp', 'ruby', 'php', 'bash',
      'kotlin', 'swift', 'scala', 'dart', 'lua', 'elixir', 'haskell', 'zig', 'perl', 'r', 'elm', 'gleam', 'clojure',
    ]) {
      expect(GRAMMARS[lang]).toMatch(/^tree-sitter-[a-z_]+\.wasm$/);
    }
  });

  it('ALL_WASM_FILES lists the runtime and every grammar once', () => {
    expect(ALL_WASM_FILES[0]).toBe(RUNTIME_WASM);
    expect(new Set(ALL_WASM_FILES).size).toBe(ALL_WASM_FILES.length);
    for (const f of Object.values(GRAMMARS)) expect(ALL_WASM_FILES).toContain(f);
  });

  it('the browser loader bundles exactly the grammars in GRAMMARS', () => {
    const src = readFileSync(join(import.meta.dirname, '../../../workers/indexer/wasm-loader.ts'), 'utf8');
    const list = /tree-sitter-\{([a-z_,]+)\}\.wasm/.exec(src)?.[1]?.split(',') ?? [];
    expect(list.map((l) => `tree-sitter-${l}.wasm`).sort()).toEqual([...new Set(Object.values(GRAMMARS))].sort());
  });

  it('nodeWasmLoader refuses paths', async () => {
    await expect(nodeWasmLoader('../package.json')).rejects.toThrow(/invalid/);
  });
});

/** One small snippet per language with a definition the chunker must name. */
const SNIPPETS: Record<string, { path: string; code: string; symbol: string }> = {
  javascript: { path: 'a.js', code: 'function hello(name) {\n  return `hi ${name}`;\n}\n', symbol: 'hello' },
  typescript: { path: 'a.ts', code: 'export function hello(name: string): string {\n  return name;\n}\n', symbol: 'hello' },
  tsx: { path: 'a.tsx', code: 'export const Hello = () => <div>hi</div>;\n', symbol: 'Hello' },
  python: { path: 'a.py', code: 'def hello(name):\n    return name\n', symbol: 'hello' },
  go: { path: 'a.go', code: 'package a\n\nfunc Hello(name string) string {\n\treturn name\n}\n', symbol: 'Hello' },
  rust: { path: 'a.rs', code: 'pub fn hello(name: &str) -> &str {\n    name\n}\n', symbol: 'hello' },
  java: { path: 'A.java', code: 'class Hello {\n  String hi() { return "hi"; }\n}\n', symbol: 'Hello' },
  c: { path: 'a.c', code: 'int hello(int x) {\n  return x;\n}\n', symbol: 'hello' },
  cpp: { path: 'a.cpp', code: 'namespace n {\nint hello(int x) {\n  return x;\n}\n}\n', symbol: 'hello' },
  csharp: { path: 'A.cs', code: 'class Hello {\n  void Hi() {}\n}\n', symbol: 'Hello' },
  ruby: { path: 'a.rb', code: 'def hello(name)\n  name\nend\n', symbol: 'hello' },
  php: { path: 'a.php', code: '<?php\nfunction hello($name) {\n  return $name;\n}\n', symbol: 'hello' },
  bash: { path: 'a.sh', code: 'hello() {\n  echo "hi $1"\n}\n', symbol: 'hello' },
  kotlin: { path: 'A.kt', code: 'fun hello(name: String): String {\n  return name\n}\n', symbol: 'hello' },
  swift: { path: 'a.swift', code: 'func hello(_ name: String) -> String {\n    return name\n}\n', symbol: 'hello' },
  scala: { path: 'A.scala', code: 'object A {\n  def hello(name: String): String = name\n}\n', symbol: 'A' },
  dart: { path: 'a.dart', code: 'String hello(String name) {\n  return name;\n}\n', symbol: 'hello' },
  lua: { path: 'a.lua', code: 'local function hello(name)\n  return name\nend\n', symbol: 'hello' },
  elixir: { path: 'a.ex', code: 'defmodule Greeter do\n  def hello(name), do: name\nend\n', symbol: 'Greeter' },
  haskell: { path: 'A.hs', code: 'hello :: String -> String\nhello name = name\n', symbol: 'hello' },
  zig: { path: 'a.zig', code: 'pub fn hello(x: u32) u32 {\n    return x;\n}\n', symbol: 'hello' },
  perl: { path: 'a.pl', code: 'sub hello {\n    my ($name) = @_;\n    return $name;\n}\n', symbol: 'hello' },
  r: { path: 'a.R', code: 'hello <- function(name) {\n  name\n}\n', symbol: 'hello' },
  elm: { path: 'A.elm', code: 'hello : String -> String\nhello name =\n    name\n', symbol: 'hello' },
  gleam: { path: 'a.gleam', code: 'pub fn hello(name: String) -> String {\n  name\n}\n', symbol: 'hello' },
  clojure: { path: 'a.clj', code: '(defn hello\n  [name]\n  name)\n', symbol: 'hello' },
};

describe('every grammar', () => {
  it('has a snippet here', () => {
    expect(Object.keys(SNIPPETS).sort()).toEqual(Object.keys(GRAMMARS).sort());
  });

  it.each(Object.entries(GRAMMARS))('%s loads and parses without errors', async (lang, file) => {
    await Parser.init({ wasmBinary: await nodeWasmLoader(RUNTIME_WASM) } as unknown as Parameters<typeof Parser.init>[0]);
    const language = await Language.load(await nodeWasmLoader(file));
    const parser = new Parser();
    parser.setLanguage(language);
    const tree = parser.parse(SNIPPETS[lang].code);
    expect(tree).not.toBeNull();
    expect(tree!.rootNode.hasError).toBe(false);
    tree!.delete();
    parser.delete();
  });

  it.each(Object.keys(GRAMMARS))('%s is chunked structurally', async (lang) => {
    const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
    const { path, code, symbol } = SNIPPETS[lang];
    const r = await chunker.chunkFile(path, code);
    chunker.dispose();
    expect(r.language).toBe(lang);
    expect(r.parsed).toBe(true);
    expect(r.warnings).toEqual([]);
    expect(r.chunks.map((c) => c.symbol)).toContain(symbol);
  });
});
