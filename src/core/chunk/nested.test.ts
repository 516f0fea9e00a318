/**
 * Chunk granularity that search ranking depends on: definitions inside `#ifdef` blocks and
 * named functions nested in oversized code (an ESLint rule's `create()`) are chunks of their
 * own with their symbol; one-row leftovers such as `EXPORT_SYMBOL(f);` join their function.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../types.ts';
import { Chunker } from './chunker.ts';
import { nodeWasmLoader } from './grammars-node.ts';

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
