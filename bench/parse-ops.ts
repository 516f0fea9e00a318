/**
 * How much tree-sitter work a file's parse is, in progress callbacks (tree-sitter calls the
 * callback every 100 parse operations: deterministic for a given input and grammar), per
 * language: callbacks per KB of source (max, p99, median) and per CPU-ms. Calibrates the
 * chunker's parse budget (chunker.ts PARSE_CALLS_PER_KB), which counts work, not time.
 *
 *   npx tsx bench/parse-ops.ts DIR [DIR…] [--max-files N]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'web-tree-sitter';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import { detectLanguage } from '../src/core/chunk/languages.ts';

const args = process.argv.slice(2);
const maxAt = args.indexOf('--max-files');
const maxFiles = maxAt >= 0 ? Number(args[maxAt + 1]) : Infinity;
const dirs = args.filter((a, i) => !a.startsWith('--') && (maxAt < 0 || i !== maxAt + 1));
const files: string[] = [];
const walk = (d: string): void => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) { if (!e.name.startsWith('.') && e.name !== 'node_modules') walk(p); }
    else if (e.isFile() && statSync(p).size <= 1 << 20) files.push(p);
  }
};
for (const d of dirs) walk(d);
const cpu = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

let calls = 0;
let parseMs = 0;
const parse = Parser.prototype.parse;
Parser.prototype.parse = function (this: Parser, input: Parameters<Parser['parse']>[0], old?: Parameters<Parser['parse']>[1], opts?: Parameters<Parser['parse']>[2]) {
  const cb = opts?.progressCallback;
  const c0 = cpu();
  try {
    return parse.call(this, input, old, { ...opts, progressCallback: (s) => { calls++; return cb ? cb(s) : false; } });
  } finally { parseMs += cpu() - c0; }
};

const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
interface Row { file: string; kb: number; calls: number; ms: number }
const byLang = new Map<string, Row[]>();
let n = 0;
for (const f of files) {
  if (n >= maxFiles) break;
  const text = readFileSync(f, 'utf8');
  const lang = detectLanguage(f, text);
  if (!lang || lang === 'text') continue;
  calls = 0; parseMs = 0;
  const r = await chunker.chunkFile(f, text);
  if (!r.parsed || text.length < 256) continue;
  n++;
  const rows = byLang.get(lang) ?? [];
  rows.push({ file: f, kb: text.length / 1024, calls, ms: parseMs });
  byLang.set(lang, rows);
}
const q = (xs: number[], p: number): number => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
console.log('language | files | MB | callbacks/KB median / p99 / max (file) | callbacks per parse CPU-ms');
for (const [lang, rows] of [...byLang].sort((a, b) => b[1].length - a[1].length)) {
  const per = rows.map((r) => r.calls / r.kb).sort((a, b) => a - b);
  const worst = rows.reduce((a, b) => (b.calls / b.kb > a.calls / a.kb ? b : a));
  const mb = rows.reduce((s, r) => s + r.kb, 0) / 1024;
  const rate = rows.reduce((s, r) => s + r.calls, 0) / Math.max(1, rows.reduce((s, r) => s + r.ms, 0));
  console.log(`${lang} | ${rows.length} | ${mb.toFixed(1)} | ${q(per, 0.5).toFixed(1)} / ${q(per, 0.99).toFixed(1)} / ${per.at(-1)!.toFixed(1)} (${worst.file}, ${worst.kb.toFixed(0)} KB, ${worst.calls} calls, ${worst.ms.toFixed(0)} ms) | ${rate.toFixed(1)}`);
}
