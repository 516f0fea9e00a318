/**
 * One chunk worker's work in one thread, timed by stage: chunkFile (parse + chunker), then
 * prepareChunks, packText and fileTrigramKeys over each file, as chunkForStore runs them; a
 * first pass warms the JIT, then CPU (process.cpuUsage, this thread only runs) of later
 * passes. For comparing worker-side changes under load, where whole-index CPU is too noisy.
 *
 *   npx tsx bench/chunk-thread.ts DIR[,DIR…] [PASSES] [--all]
 *
 * Files: every .c/.h file of each DIR up to 1 MB; with --all every file the chunker has a
 * grammar for (any of ~27 languages: a mix such as a few bench/corpora/repos/* trees).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Parser } from 'web-tree-sitter';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import { GRAMMARS, detectLanguage } from '../src/core/chunk/languages.ts';
import { prepareChunks } from '../src/core/index/indexer.ts';
import { packText } from '../src/core/store/text-codec.ts';
import { nodeTextCodec } from '../src/core/store/text-codec-node.ts';
import { fileTrigramKeys } from '../src/core/text/trigram-keys.ts';
import { nativeSha256 } from '../src/cli/node-hash.ts';

const args = process.argv.slice(2).filter((a) => a !== '--all');
const all = process.argv.includes('--all');
const dirs = args[0]?.split(',');
const passes = Number(args[1] ?? 3);
if (!dirs) throw new Error('usage: bench/chunk-thread.ts DIR[,DIR…] [PASSES] [--all]');
const files: Array<{ path: string; text: string }> = [];
const walk = (dir: string, d: string): void => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) {
      if (!e.name.startsWith('.')) walk(dir, p);
    } else if (statSync(p).size <= 1 << 20) {
      const path = relative(dir, p);
      if (all ? !GRAMMARS[detectLanguage(path, '')] : !/\.[ch]$/.test(e.name)) continue;
      files.push({ path, text: readFileSync(p, 'utf8') });
    }
  }
};
for (const dir of dirs) walk(dir, dir);
const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
/** CPU inside Parser.parse (part of chunkFile). */
let parseMs = 0;
let parses = 0;
const parse = Parser.prototype.parse;
Parser.prototype.parse = function (this: Parser, ...args: Parameters<Parser['parse']>) {
  const c0 = cpu();
  try {
    return parse.apply(this, args);
  } finally {
    parseMs += cpu() - c0;
    parses++;
  }
};
function cpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
const stages = { chunk: 0, prepare: 0, pack: 0, grams: 0 };
let chunks = 0;
for (let pass = 0; pass < passes; pass++) {
  const t = { chunk: 0, prepare: 0, pack: 0, grams: 0 };
  let n = 0;
  parseMs = 0;
  parses = 0;
  for (const f of files) {
    let c0 = cpu();
    const res = await chunker.chunkFile(f.path, f.text);
    let c1 = cpu();
    t.chunk += c1 - c0;
    c0 = c1;
    n += prepareChunks(res.chunks, nativeSha256).length;
    c1 = cpu();
    t.prepare += c1 - c0;
    c0 = c1;
    await packText(f.text, nodeTextCodec);
    c1 = cpu();
    t.pack += c1 - c0;
    c0 = c1;
    fileTrigramKeys(f.text);
    t.grams += cpu() - c0;
  }
  const total = t.chunk + t.prepare + t.pack + t.grams;
  console.log(`pass ${pass + 1}: ${files.length} files, ${n} chunks, cpu ms total ${total.toFixed(0)} = chunkFile ${t.chunk.toFixed(0)} (of it ${parses} parses ${parseMs.toFixed(0)}) + prepareChunks ${t.prepare.toFixed(0)} + packText ${t.pack.toFixed(0)} + trigram keys ${t.grams.toFixed(0)}`);
  if (pass > 0) for (const k of Object.keys(t) as Array<keyof typeof t>) stages[k] += t[k];
  chunks = n;
}
void chunks;
chunker.dispose();
