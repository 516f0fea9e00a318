import { describe, expect, it } from 'vitest';
import { Language, Parser } from 'web-tree-sitter';
import { ALL_WASM_FILES, GRAMMARS, LANGUAGE_SPECS, RUNTIME_WASM, detectLanguage } from './languages.ts';
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
    ['weird.', 'text'], ['.hidden', 'text'], ['UPPER.PY', 'python'], ['a.b/c', 'text'],
  ])('%s → %s', (path, lang) => {
    expect(detectLanguage(path)).toBe(lang);
  });
});

describe('tables', () => {
  it('GRAMMARS and LANGUAGE_SPECS cover the same languages, including the required ones', () => {
    expect(Object.keys(GRAMMARS).sort()).toEqual(Object.keys(LANGUAGE_SPECS).sort());
    for (const lang of ['javascript', 'typescript', 'tsx', 'python', 'go', 'rust', 'java', 'c', 'cpp', 'csharp', 'ruby', 'php', 'bash']) {
      expect(GRAMMARS[lang]).toMatch(/^tree-sitter-[a-z_]+\.wasm$/);
    }
  });

  it('ALL_WASM_FILES lists the runtime and every grammar once', () => {
    expect(ALL_WASM_FILES[0]).toBe(RUNTIME_WASM);
    expect(new Set(ALL_WASM_FILES).size).toBe(ALL_WASM_FILES.length);
    for (const f of Object.values(GRAMMARS)) expect(ALL_WASM_FILES).toContain(f);
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
