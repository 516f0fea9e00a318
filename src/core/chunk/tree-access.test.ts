import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Chunker } from './chunker.ts';
import { nodeWasmLoader } from './grammars-node.ts';
import { treeRuntimeBound, unbindTreeRuntime } from './tree-access.ts';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/chunk');
const files = readdirSync(FIXTURES).flatMap((lang) =>
  readdirSync(join(FIXTURES, lang))
    .filter((f) => f.endsWith('.txt'))
    .map((f) => ({ path: `${lang}/${f.slice(0, -'.txt'.length)}`, text: readFileSync(join(FIXTURES, lang, f), 'utf8') })),
);

// Syntax errors: errorShares walks into the subtrees that hold ERROR nodes (one file is mostly
// errors and falls back to text, one is not).
const broken = 'int ok(void) {\n  return 1;\n}\n';
const garbage = '#define X(a) a ) ) ( {\n@@ $$ )) int ;; ] [ } } struct {{{\n';
files.push({ path: 'broken/some.c', text: `${broken.repeat(20)}${garbage}${broken.repeat(20)}` });
files.push({ path: 'broken/most.c', text: `${broken}${garbage.repeat(30)}${broken}` });
files.push({ path: 'broken/some.py', text: 'def f(:\n  return )\nclass A:\n  def g(self): pass\n' });

let chunker: Chunker;
let small: Chunker;
beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  small = await Chunker.create({ loadWasm: nodeWasmLoader, maxChunkChars: 300 });
});
afterAll(() => {
  chunker.dispose();
  small.dispose();
});

it('binds the runtime exports, so the chunker takes the direct path', () => {
  expect(treeRuntimeBound()).toBe(true);
});

it('chunks every fixture exactly as through the public web-tree-sitter API', async () => {
  // Small chunks force the walks (break scores, nested definitions, class members) everywhere.
  for (const c of [chunker, small]) {
    const fast = await Promise.all(files.map((f) => c.chunkFile(f.path, f.text)));
    const restore = unbindTreeRuntime();
    let slow;
    try {
      expect(treeRuntimeBound()).toBe(false);
      slow = await Promise.all(files.map((f) => c.chunkFile(f.path, f.text)));
    } finally {
      restore();
    }
    expect(fast.filter((r) => r.parsed).length).toBeGreaterThanOrEqual(10);
    expect(fast).toEqual(slow);
  }
});
