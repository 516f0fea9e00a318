/**
 * What a chunker change does to C/C++ files, this checkout against another (a base worktree):
 * the parse errors of the readings the chunker chooses between (parseInput, and parseAlternative
 * on top of it: the fewer errors counted, as the chunker keeps), and the names its chunks record
 * (head pieces' symbols; a name counted once per definition).
 *
 *   npx tsx bench/chunk-ab.ts --base DIR [--max-files 2500] DIR [DIR…]
 *
 * Files are every C/C++ file of each DIR (a header is C under a kernel or hiredis tree, else
 * C++), every n-th one past --max-files. Prints, per DIR: errors base → now, files whose whole
 * tree is an ERROR node, files better / worse, and names gained / lost with examples.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Language, Parser, type Node } from 'web-tree-sitter';
import * as now from '../src/core/chunk/languages.ts';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import { isMain, listFiles, parseArgs } from './util.ts';

type Languages = typeof now;
type ChunkerClass = typeof Chunker;

function countErrors(n: Node): number {
  let c = n.type === 'ERROR' || n.isMissing ? 1 : 0;
  if (n.hasError) for (const ch of n.children) if (ch) c += countErrors(ch);
  return c;
}

/** Errors of the reading the chunker would keep (fewer of parseInput and parseAlternative), and whether its root is an ERROR. */
function readingErrors(mod: Languages, parser: Parser, lang: 'c' | 'cpp', text: string): { errors: number; rootError: boolean } {
  const spec = mod.LANGUAGE_SPECS[lang]!;
  const input = spec.parseInput ? spec.parseInput(text) : text;
  const readings = [input, ...(spec.parseAlternative ? [spec.parseAlternative(input)] : [])];
  let best = { errors: Infinity, rootError: false };
  for (const r of readings) {
    const tree = parser.parse(r)!;
    const errors = countErrors(tree.rootNode);
    if (errors < best.errors) best = { errors, rootError: tree.rootNode.type === 'ERROR' };
    tree.delete();
  }
  return best;
}

function headNames(chunks: readonly { symbol: string | null; context?: string | null }[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const c of chunks) if (c.symbol && !c.context) m.set(c.symbol, (m.get(c.symbol) ?? 0) + 1);
  return m;
}

if (isMain(import.meta.url)) {
  const { flags, positional } = parseArgs(process.argv.slice(2), []);
  const baseDir = flags.get('base');
  if (!baseDir || positional.length === 0) throw new Error('usage: tsx bench/chunk-ab.ts --base DIR [--max-files N] DIR [DIR…]');
  const maxFiles = Number(flags.get('max-files') ?? 2500);
  const base = await import(resolve(String(baseDir), 'src/core/chunk/languages.ts')) as Languages;
  const BaseChunker = (await import(resolve(String(baseDir), 'src/core/chunk/chunker.ts')) as { Chunker: ChunkerClass }).Chunker;
  await Parser.init({ wasmBinary: await nodeWasmLoader(now.RUNTIME_WASM) } as unknown as Parameters<typeof Parser.init>[0]);
  const parsers = { c: new Parser(), cpp: new Parser() };
  for (const l of ['c', 'cpp'] as const) parsers[l].setLanguage(await Language.load(await nodeWasmLoader(now.GRAMMARS[l]!)));
  const chunkers = { now: await Chunker.create({ loadWasm: nodeWasmLoader }), base: await BaseChunker.create({ loadWasm: nodeWasmLoader }) };
  for (const dir of positional) {
    const all = listFiles(dir, (r) => /\.(c|h|cc|cpp|hpp)$/.test(r) && !r.split('/').some((p) => p.startsWith('.')));
    const step = Math.max(1, Math.ceil(all.length / maxFiles));
    const files = all.filter((_, i) => i % step === 0);
    const cHeaders = /kernel|hiredis/.test(dir);
    const e = { base: 0, now: 0, rootBase: 0, rootNow: 0, better: 0, worse: 0 };
    const names = { gained: 0, lost: 0, gainedEx: [] as string[], lostEx: [] as string[] };
    for (const f of files) {
      const text = readFileSync(`${dir}/${f}`, 'utf8');
      if (text.length > 500_000) continue;
      const lang = f.endsWith('.c') || (f.endsWith('.h') && cHeaders) ? 'c' : 'cpp';
      const b = readingErrors(base, parsers[lang], lang, text);
      const n = readingErrors(now, parsers[lang], lang, text);
      e.base += b.errors; e.now += n.errors; e.rootBase += +b.rootError; e.rootNow += +n.rootError;
      if (n.errors < b.errors) e.better++;
      if (n.errors > b.errors) e.worse++;
      const bn = headNames((await chunkers.base.chunkFile(f, text)).chunks);
      const nn = headNames((await chunkers.now.chunkFile(f, text)).chunks);
      for (const [k, v] of bn) if ((nn.get(k) ?? 0) < v) { names.lost++; if (names.lostEx.length < 12) names.lostEx.push(`${f}:${k.slice(0, 40)}`); }
      for (const [k, v] of nn) if ((bn.get(k) ?? 0) < v) { names.gained++; if (names.gainedEx.length < 12) names.gainedEx.push(`${f}:${k.slice(0, 40)}`); }
    }
    console.log(`${dir}: ${files.length} of ${all.length} files; parse errors ${e.base} → ${e.now} (whole-file ERROR ${e.rootBase} → ${e.rootNow}; ${e.better} files better, ${e.worse} worse); ` +
      `names gained ${names.gained}, lost ${names.lost}\n  lost: ${names.lostEx.join(' ')}\n  gained: ${names.gainedEx.join(' ')}`);
  }
  chunkers.now.dispose();
  chunkers.base.dispose();
}
