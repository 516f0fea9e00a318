/**
 * The Searcher end to end over a real in-memory store filled by the real chunker: the
 * content contract, one result per definition, definition first for identifiers (exact case,
 * head over tail, merged siblings by name) and the vector leg's relevance floor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import { embeddingText } from '../chunk/embedding-text.ts';
import { openMemoryStore } from '../store/open-node.ts';
import type { Store } from '../store/store.ts';
import { ExactIndex } from '../vector/exact.ts';
import { sha256HexSync } from '../hash/hash.ts';
import { VECTOR_MIN_SCORE } from '../config.ts';
import { writeChunkedFiles } from './test-store.ts';
import { SPEC_WORD, TEST_WORD } from '../text/file-kind.ts';
import { Searcher, reFuse } from './search.ts';
import type { SearchResult } from '../types.ts';

const body = Array.from({ length: 90 }, (_, i) => `    total += values[${i}] * weight_${i % 7}  # running accumulate step ${i}`).join('\n');
const FILES: Record<string, string> = {
  'acc.py': `import math\n\n\ndef accumulate(values):\n    """Sum weighted values."""\n    total = 0\n${body}\n    return total\n\n\ndef helper():\n    return accumulate([1, 2, 3])\n`,
  'queues.py': `def qsize(self):\n    return len(self._queue)\n\ndef maxsize(self):\n    return self._maxsize\n\ndef empty(self):\n    return not self._queue\n`,
  're_upper.go': `package regexp\n\n// Compile parses a regular expression.\nfunc Compile(expr string) (*Regexp, error) {\n\treturn compile(expr, syntax.Perl, false)\n}\n`,
  'fields.go': `package bytes\n\n// FieldsFunc splits s at each run of code points c satisfying f(c).\nfunc FieldsFunc(s []byte, f func(rune) bool) [][]byte {\n\t// A span is used to record a slice of s of the form s[start:end].\n\ttype span struct {\n\t\tstart int\n\t\tend   int\n\t}\n\tspans := make([]span, 0, 32)\n\twidth := 1\n\tfor i := 0; i < len(s); i++ {\n\t\tif f(rune(s[0])) { spans = append(spans, span{start: 0, end: 0 + width}) }\n\t\tif f(rune(s[1])) { spans = append(spans, span{start: 1, end: 1 + width}) }\n\t\tif f(rune(s[2])) { spans = append(spans, span{start: 2, end: 2 + width}) }\n\t\tif f(rune(s[3])) { spans = append(spans, span{start: 3, end: 3 + width}) }\n\t\tif f(rune(s[4])) { spans = append(spans, span{start: 4, end: 4 + width}) }\n\t\tif f(rune(s[5])) { spans = append(spans, span{start: 5, end: 5 + width}) }\n\t\tif f(rune(s[6])) { spans = append(spans, span{start: 6, end: 6 + width}) }\n\t\tif f(rune(s[7])) { spans = append(spans, span{start: 7, end: 7 + width}) }\n\t\tif f(rune(s[8])) { spans = append(spans, span{start: 8, end: 8 + width}) }\n\t\tif f(rune(s[9])) { spans = append(spans, span{start: 9, end: 9 + width}) }\n\t\tif f(rune(s[10])) { spans = append(spans, span{start: 10, end: 10 + width}) }\n\t\tif f(rune(s[11])) { spans = append(spans, span{start: 11, end: 11 + width}) }\n\t\tif f(rune(s[12])) { spans = append(spans, span{start: 12, end: 12 + width}) }\n\t\tif f(rune(s[13])) { spans = append(spans, span{start: 13, end: 13 + width}) }\n\t\tif f(rune(s[14])) { spans = append(spans, span{start: 14, end: 14 + width}) }\n\t\tif f(rune(s[15])) { spans = append(spans, span{start: 15, end: 15 + width}) }\n\t\tif f(rune(s[16])) { spans = append(spans, span{start: 16, end: 16 + width}) }\n\t\tif f(rune(s[17])) { spans = append(spans, span{start: 17, end: 17 + width}) }\n\t\tif f(rune(s[18])) { spans = append(spans, span{start: 18, end: 18 + width}) }\n\t\tif f(rune(s[19])) { spans = append(spans, span{start: 19, end: 19 + width}) }\n\t\tif f(rune(s[20])) { spans = append(spans, span{start: 20, end: 20 + width}) }\n\t\tif f(rune(s[21])) { spans = append(spans, span{start: 21, end: 21 + width}) }\n\t\tif f(rune(s[22])) { spans = append(spans, span{start: 22, end: 22 + width}) }\n\t\tif f(rune(s[23])) { spans = append(spans, span{start: 23, end: 23 + width}) }\n\t\tif f(rune(s[24])) { spans = append(spans, span{start: 24, end: 24 + width}) }\n\t\tif f(rune(s[25])) { spans = append(spans, span{start: 25, end: 25 + width}) }\n\t\tif f(rune(s[26])) { spans = append(spans, span{start: 26, end: 26 + width}) }\n\t\tif f(rune(s[27])) { spans = append(spans, span{start: 27, end: 27 + width}) }\n\t\tif f(rune(s[28])) { spans = append(spans, span{start: 28, end: 28 + width}) }\n\t\tif f(rune(s[29])) { spans = append(spans, span{start: 29, end: 29 + width}) }\n\t\tif f(rune(s[30])) { spans = append(spans, span{start: 30, end: 30 + width}) }\n\t\tif f(rune(s[31])) { spans = append(spans, span{start: 31, end: 31 + width}) }\n\t\tif f(rune(s[32])) { spans = append(spans, span{start: 32, end: 32 + width}) }\n\t\tif f(rune(s[33])) { spans = append(spans, span{start: 33, end: 33 + width}) }\n\t\tif f(rune(s[34])) { spans = append(spans, span{start: 34, end: 34 + width}) }\n\t\tif f(rune(s[35])) { spans = append(spans, span{start: 35, end: 35 + width}) }\n\t\tif f(rune(s[36])) { spans = append(spans, span{start: 36, end: 36 + width}) }\n\t\tif f(rune(s[37])) { spans = append(spans, span{start: 37, end: 37 + width}) }\n\t\tif f(rune(s[38])) { spans = append(spans, span{start: 38, end: 38 + width}) }\n\t\tif f(rune(s[39])) { spans = append(spans, span{start: 39, end: 39 + width}) }\n\t\tif f(rune(s[40])) { spans = append(spans, span{start: 40, end: 40 + width}) }\n\t\tif f(rune(s[41])) { spans = append(spans, span{start: 41, end: 41 + width}) }\n\t\tif f(rune(s[42])) { spans = append(spans, span{start: 42, end: 42 + width}) }\n\t\tif f(rune(s[43])) { spans = append(spans, span{start: 43, end: 43 + width}) }\n\t\tif f(rune(s[44])) { spans = append(spans, span{start: 44, end: 44 + width}) }\n\t}\n\treturn nil\n}\n`,
  'mm_types.h': `#ifndef MM_TYPES_H\n#define MM_TYPES_H\n\n/* Each physical page in the system has a struct page. */\nstruct page {\n\tunsigned long flags;\n\tstruct page *next;\n\tvoid *virtual;\n};\n\n#endif\n`,
  'page.c': `#include "mm_types.h"\n\n/* Returns the page after this one: every struct page links to the next struct page. */\nstruct page *page(struct page *p)\n{\n\treturn p->next;\n}\n\nstatic unsigned long page_flags(struct page *page)\n{\n\treturn page->flags;\n}\n`,
  'include/trace.h': '#ifdef CONFIG_TRACING\nvoid dump_trace(int mode);\n#else\nstatic inline void dump_trace(int mode) { }\n#endif\n',
  'kernel/trace.c': [
    '#include "trace.h"', '', '/**', ' * dump_trace - print the trace buffers to the console', ' * @mode: which CPUs to dump', ' */',
    'void dump_trace(int mode)', '{', '\tint cpu;', '', '\tif (mode < 0)', '\t\treturn;', '\tfor_each_online_cpu(cpu) {',
    '\t\tstruct trace_buffer *buf = per_cpu(buffers, cpu);', '', '\t\tif (!buf)', '\t\t\tcontinue;', '\t\tprint_buffer(buf, mode);',
    '\t\tflush_buffer(buf);', '\t}', '\tprintk("dump_trace done\\n");', '}', '',
  ].join('\n'),
  're_lower.go': `package regexp\n\nfunc compile(expr string, mode syntax.Flags, longest bool) (*Regexp, error) {\n\tre, err := syntax.Parse(expr, mode)\n\treturn re, err\n}\n\n// Uses Compile and compile a lot: Compile compile Compile compile.\nvar notes = "Compile compile"\n`,
};

let store: Store;
let chunker: Chunker;

beforeAll(async () => {
  store = await openMemoryStore();
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  await writeChunkedFiles(store, chunker, FILES);
}, 60_000);
afterAll(async () => {
  chunker.dispose();
  await store.close();
});

/** The file's lines start..end: what every result's content must be. */
const linesOf = (r: { path: string; startLine: number; endLine: number }) =>
  FILES[r.path].split('\n').slice(r.startLine - 1, r.endLine).join('\n');

/** A fresh in-memory store holding `files` (chunked as `sift index` would), closed after `use`. */
async function withFiles<T>(files: Record<string, string>, use: (s: Store) => Promise<T>): Promise<T> {
  const s = await openMemoryStore();
  try {
    await writeChunkedFiles(s, chunker, files);
    return await use(s);
  } finally {
    await s.close();
  }
}

function checkContract(results: SearchResult[]): void {
  for (const r of results) {
    expect(r.content, `${r.path}:${r.startLine}`).toBe(linesOf(r));
    for (const m of r.more) expect(m.content).toBe(linesOf({ path: r.path, ...m }));
    if (r.context) expect(FILES[r.path].split('\n')[r.contextLine! - 1]).toBe(r.context.split('\n')[0]);
  }
  const defs = results.filter((r) => r.defLine !== null).map((r) => `${r.path}:${r.defLine}`);
  expect(new Set(defs).size, 'one result per definition').toBe(defs.length);
  // Each piece once: as a result or as a `more` piece; a folded piece is of the result's file.
  const ids = results.flatMap((r) => [r.id, ...r.more.map((m) => m.id)]);
  expect(new Set(ids).size, 'each piece once').toBe(ids.length);
  // Each line once: overlapping windows of a text file are cut to the lines not shown yet.
  const seen = new Set<string>();
  for (const r of results) {
    for (const p of [r, ...r.more]) {
      for (let l = p.startLine; l <= p.endLine; l++) {
        expect(seen.has(`${r.path}:${l}`), `${r.path}:${l} shown twice`).toBe(false);
        seen.add(`${r.path}:${l}`);
      }
    }
  }
}

describe('Searcher', () => {
  it('splits the long function (fixture check)', async () => {
    const pieces = (await store.getFileChunks('acc.py')).filter((c) => c.symbol === 'accumulate');
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.slice(1).every((p) => p.context === 'def accumulate(values):' && p.contextLine === 4 && p.defLine === 4)).toBe(true);
  });

  it('returns one result per definition, content exactly the file lines, the other pieces as `more`', async () => {
    const s = new Searcher(store);
    const res = await s.search('running accumulate step weight', { limit: 5 });
    checkContract(res.results);
    const acc = res.results.filter((r) => r.symbol === 'accumulate');
    expect(acc).toHaveLength(1);
    expect(acc[0].more.length).toBeGreaterThan(0);
    // The limit counts definitions, not pieces: helper is still in a top 2.
    const two = await s.search('accumulate', { limit: 2 });
    checkContract(two.results);
    expect(two.results.map((r) => r.symbol)).toEqual(['accumulate', 'helper']);
  });

  it('shows the head of a split definition for its name, with the tails behind it', async () => {
    const res = await new Searcher(store).search('accumulate');
    const top = res.results[0];
    expect(top.symbol).toBe('accumulate');
    expect(top.context).toBeNull();
    expect(top.startLine).toBeLessThanOrEqual(4);
    expect(top.endLine).toBeGreaterThanOrEqual(4);
    expect(top.more.every((m) => m.context === 'def accumulate(values):' && m.contextLine === 4)).toBe(true);
    expect(res.explain[top.id].find((e) => e.signal === 'definition')?.value).toBe(1);
  });

  it('puts the exact-case definition before another case, and both before mentions', async () => {
    const s = new Searcher(store);
    const upper = await s.search('Compile');
    expect(upper.results.slice(0, 2).map((r) => r.symbol)).toEqual(['Compile', 'compile']);
    const lower = await s.search('compile');
    expect(lower.results.slice(0, 2).map((r) => r.symbol)).toEqual(['compile', 'Compile']);
    const tiers = lower.results.slice(0, 2).map((r) => lower.explain[r.id].find((e) => e.signal === 'definition')?.value);
    expect(tiers).toEqual([1, 0.5]);
  });

  it('reads "struct page" as the struct\'s definition: the struct first, then the function of that name, then mentions', async () => {
    const s = new Searcher(store);
    for (const mode of ['bm25', 'hybrid'] as const) {
      const res = await s.search('struct page', { mode });
      checkContract(res.results);
      expect(res.results.slice(0, 2).map((r) => `${r.path}:${r.chunkType}:${r.symbol}`), mode).toEqual(['mm_types.h:struct:page', 'page.c:function:page']);
      expect(res.explain[res.results[0].id].find((e) => e.signal === 'definition')?.value).toBe(1);
      expect(res.explain[res.results[1].id].find((e) => e.signal === 'definition')?.value).toBeCloseTo(0.2);
    }
    // The function keyword asks for the function; a plain word stays prose.
    expect((await s.search('fn page')).results[0]).toMatchObject({ path: 'page.c', symbol: 'page' });
    const prose = await s.search('page struct');
    expect(prose.explain[prose.results[0].id].find((e) => e.signal === 'definition')).toBeUndefined();
  });

  it('puts the substantial definition of a name before a stub of the same tier, in both modes', async () => {
    const s = new Searcher(store);
    for (const mode of ['bm25', 'hybrid'] as const) {
      const res = await s.search('dump_trace', { mode });
      checkContract(res.results);
      expect(res.results.slice(0, 2).map((r) => r.path), mode).toEqual(['kernel/trace.c', 'include/trace.h']);
      // Both are tier 1: the size orders them; explain still shows the tier.
      expect(res.results.slice(0, 2).map((r) => res.explain[r.id].find((e) => e.signal === 'definition')?.value)).toEqual([1, 1]);
    }
    const signals = (await s.search('dump_trace', { mode: 'bm25' })).bm25Signals;
    expect(Object.values(signals).map((x) => x.definition_size).filter((x) => x !== undefined).sort()).toEqual([0, 2]);
  });

  it('finds each of merged small siblings by name and says which matched', async () => {
    const rows = await store.getFileChunks('queues.py');
    expect(rows).toHaveLength(1);
    expect(rows[0].names).toEqual(['qsize', 'maxsize', 'empty']);
    const res = await new Searcher(store).search('maxsize');
    expect(res.results[0].path).toBe('queues.py');
    expect(res.results[0].matchedName).toBe('maxsize');
    checkContract(res.results);
  });

  it('keeps a definition nested in a function body with that function (one slot)', async () => {
    const rows = await store.getFileChunks('fields.go');
    const nested = rows.find((r) => r.symbol === 'span');
    expect(nested?.parent).toBe('FieldsFunc');
    const res = await new Searcher(store).search('span start end spans width', { limit: 10 });
    const here = res.results.filter((r) => r.path === 'fields.go');
    expect(here).toHaveLength(1);
    expect(here[0].more.length).toBeGreaterThan(0);
    checkContract(res.results);
  });

  it('folds the other definitions of a listed file below the limit into its first result, with their own lines and names', async () => {
    const s = new Searcher(store);
    const three = await s.search('the next page and its flags', { limit: 3, mode: 'bm25' });
    checkContract(three.results);
    const first = three.results[0];
    expect(first.path).toBe('page.c');
    // Below the limit of 1, page.c's other function is found at its file's rank, in `more`.
    const one = await s.search('the next page and its flags', { limit: 1, mode: 'bm25' });
    checkContract(one.results);
    expect(one.results[0].id).toBe(first.id);
    const folded = one.results[0].more.filter((m) => !m.sameDefinition);
    // At 3 it is a result of its own or, when another file is at least half as relevant
    // (DIVERSITY.factor), already folded into page.c's first result.
    const other = three.results.find((r) => r.path === 'page.c' && r.id !== first.id) ?? first.more.find((m) => !m.sameDefinition)!;
    expect(other).toBeDefined();
    expect(folded.find((m) => m.id === other.id)).toMatchObject({ symbol: other.symbol, chunkType: other.chunkType, startLine: other.startLine, defLine: other.defLine });
    expect(one.results[0].fileMore ?? 0).toBe(0);
  });

  it('re-fusing the legs gives the same grouped ranking as the search', async () => {
    const res = await new Searcher(store).search('running accumulate step weight', { limit: 5 });
    const again = reFuse(res.legs, { bm25Weight: 0.5, vectorWeight: 0.5 }, 5);
    expect(again.map((g) => g.id)).toEqual(res.results.map((r) => r.id));
    expect(again.map((g) => g.more.length)).toEqual(res.results.map((r) => r.more.length));
  });
});

describe('a list longer than its candidates make once grouped', () => {
  // 20 files of one long function each: every piece holds the words, so the keyword leg's
  // LEG_CANDIDATES pieces fold into a dozen or so results (one per function).
  const long: Record<string, string> = {};
  for (let f = 0; f < 20; f++) {
    const lines = Array.from({ length: 90 }, (_, i) => `    total += values[${i}] * weight_${i % 7}  # running accumulate step ${i} of stage ${f}`).join('\n');
    long[`stage${f}.py`] = `def stage_${f}(values):\n    total = 0\n${lines}\n    return total\n`;
  }
  let many: Store;
  beforeAll(async () => {
    many = await openMemoryStore();
    await writeChunkedFiles(many, chunker, long);
  }, 60_000);
  afterAll(async () => {
    await many.close();
  });

  it('fills the list from a wider run, keeping the first results in place', async () => {
    const s = new Searcher(many);
    const q = 'running accumulate step';
    const ten = await s.search(q, { mode: 'bm25', limit: 10 });
    expect(ten.results).toHaveLength(10);
    expect(ten.timings.fill).toBeUndefined();
    const all = await s.search(q, { mode: 'bm25', limit: 20 });
    // One result per function: all 20, though 50 candidate pieces hold fewer functions.
    expect(all.results).toHaveLength(20);
    expect(all.timings.fill).toBeGreaterThanOrEqual(0);
    expect(new Set(all.results.map((r) => r.path)).size).toBe(20);
    expect(all.results.slice(0, 10).map((r) => r.id)).toEqual(ten.results.map((r) => r.id));
    const ids = all.results.flatMap((r) => [r.id, ...r.more.map((m) => m.id)]);
    expect(new Set(ids).size, 'each piece once').toBe(ids.length);
    for (const r of all.results) expect(r.content).toBe(long[r.path].split('\n').slice(r.startLine - 1, r.endLine).join('\n'));
  });

  it('a filled list re-fused with other weights (the slider of the app) is full too', async () => {
    const all = await new Searcher(many).search('running accumulate step', { mode: 'bm25', limit: 20 });
    expect(all.timings.fill).toBeGreaterThanOrEqual(0);
    const again = reFuse(all.legs, { bm25Weight: 0.7, vectorWeight: 0.3 }, 20);
    expect(again).toHaveLength(20);
    expect(new Set(again.map((g) => g.id)).size).toBe(20);
  });
});

describe('vector leg relevance floor', () => {
  const DIM = 4;
  const unit = (v: number[]) => {
    const n = Math.hypot(...v);
    return Float32Array.from(v.map((x) => x / n));
  };

  async function searcherWith(vectorFor: (path: string) => number[], query: number[]) {
    const rows = await store.getChunks(Array.from({ length: 200 }, (_, i) => i + 1));
    const index = new ExactIndex(DIM);
    const flat = new Float32Array(rows.length * DIM);
    rows.forEach((r, i) => flat.set(unit(vectorFor(r.path)), i * DIM));
    await index.add(rows.map((r) => r.id), flat);
    return new Searcher(store, { vectors: index, embedder: { embedQuery: async () => unit(query) } });
  }

  it('counts the chunks for the embedded share only when some are embedded', async () => {
    let counted = 0;
    const counting = {
      db: store.db,
      getChunks: (ids: number[], o?: { content?: boolean }) => store.getChunks(ids, o),
      chunkCount: async () => { counted++; return store.chunkCount(); },
    };
    const plain = await new Searcher(counting).search('accumulate');
    expect(counted).toBe(0);
    expect(plain.embeddedRatio).toBe(0);
    const index = new ExactIndex(DIM);
    await index.add([1, 2], Float32Array.from([...unit([1, 0, 0, 0]), ...unit([0, 1, 0, 0])]));
    const some = await new Searcher(counting, { vectors: index, embedder: { embedQuery: async () => unit([1, 0, 0, 0]) } }).search('accumulate');
    expect(counted).toBe(1);
    expect(some.embeddedRatio).toBeCloseTo(2 / await store.chunkCount());
  });

  it('keeps only hits above the floor and says where the floor was', async () => {
    // queues.py points where the query does; everything else is orthogonal-ish.
    const s = await searcherWith((p) => (p === 'queues.py' ? [1, 0.1, 0, 0] : [0, 0, 1, 0.05]), [1, 0, 0, 0]);
    const res = await s.search('zzzz unrelated words', { mode: 'vector' });
    expect(res.results.map((r) => r.path)).toEqual(['queues.py']);
    expect(res.legs.vectorFloor).toBeGreaterThanOrEqual(VECTOR_MIN_SCORE);
    expect(res.legs.vectorDropped).toBeGreaterThan(0);
  });

  it('drops every hit when nothing is related, and fusion still ranks the keyword hits', async () => {
    const s = await searcherWith(() => [0, 0, 1, 0], [1, 0, 0, 0]);
    const vectorOnly = await s.search('accumulate', { mode: 'vector' });
    expect(vectorOnly.results).toEqual([]);
    const hybrid = await s.search('accumulate', { mode: 'hybrid' });
    expect(hybrid.strategy).toBe('hybrid');
    expect(hybrid.legs.vector).toEqual([]);
    expect(hybrid.results[0].symbol).toBe('accumulate');
    checkContract(hybrid.results);
  });
});

describe('what a Searcher and its Store keep between queries', () => {
  /** `path` written through `s` with its text (chunk content then refers into file_text). */
  const put = async (s: Store, path: string, text: string) => {
    const { chunks, language } = await chunker.chunkFile(path, text);
    await s.writeFiles([{
      file: { path, hash: sha256HexSync(text), size: text.length, mtime: 0, language }, text,
      chunks: chunks.map((c) => ({ ...c, contentHash: sha256HexSync(embeddingText(c)) })),
    }]);
  };
  const fn = (name: string, body: string) => `export function ${name}() {\n  // ${body}\n  return 1;\n}\n`;
  /** Each result as path, lines and content: what must equal a fresh Searcher's. */
  const shown = (rs: SearchResult[]) => rs.map((r) => `${r.path}:${r.startLine}-${r.endLine}\n${r.content}`);

  it('follows writes on its own connection and on another one: the next search reads the new counts and texts', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { openNodeStore } = await import('../store/open-node.ts');
    const dir = mkdtempSync(join(tmpdir(), 'sift-searcher-cache-'));
    const file = join(dir, 'index.db');
    const reader = await openNodeStore(file);
    const writer = await openNodeStore(file);
    try {
      await put(reader, 'a.ts', fn('gadgetAlpha', 'gadget wiring, first version'));
      const searcher = new Searcher(reader);
      const fresh = async () => {
        const s = await openNodeStore(file);
        try {
          return shown((await new Searcher(s).search('gadget wiring', { mode: 'bm25' })).results);
        } finally {
          await s.close();
        }
      };
      const first = await searcher.search('gadget wiring', { mode: 'bm25' });
      expect(first.results[0].content).toContain('first version');
      // Another connection rewrites a.ts and adds files: this Searcher's next search sees them.
      await put(writer, 'a.ts', fn('gadgetAlpha', 'gadget wiring, second version, longer than before'));
      for (let i = 0; i < 5; i++) await put(writer, `b${i}.ts`, fn(`gadget${i}`, 'gadget gadget wiring'));
      const second = await searcher.search('gadget wiring', { mode: 'bm25' });
      expect(second.results.find((r) => r.path === 'a.ts')?.content).toContain('second version');
      expect(shown(second.results)).toEqual(await fresh());
      expect(second.results).toHaveLength(6);
      // This connection deletes and rewrites: seen too.
      await reader.deleteFiles(['b0.ts', 'b1.ts']);
      await put(reader, 'a.ts', fn('gadgetAlpha', 'gadget wiring, third'));
      const third = await searcher.search('gadget wiring', { mode: 'bm25' });
      expect(third.results.find((r) => r.path === 'a.ts')?.content).toContain('third');
      expect(shown(third.results)).toEqual(await fresh());
      expect(third.results).toHaveLength(4);
    } finally {
      await writer.close();
      await reader.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('fusionWeights', () => {
  it('leans on the keyword leg for a name lookup and weighs both legs alike for prose', async () => {
    const { fusionWeights } = await import('./search.ts');
    const { processQuery } = await import('./query.ts');
    const { SYMBOL_FUSION_WEIGHTS, BM25_WEIGHT } = await import('../config.ts');
    expect(fusionWeights(processQuery('ArgMatches'))).toEqual(SYMBOL_FUSION_WEIGHTS);
    expect(fusionWeights(processQuery('where is the Router class defined'))).toEqual(SYMBOL_FUSION_WEIGHTS);
    expect(fusionWeights(processQuery('how are plugins discovered and loaded')).bm25Weight).toBe(BM25_WEIGHT);
  });
});

describe('test words a codebase names its own code with', () => {
  // A library that ships a mock server for its users' tests, and its own tests of it.
  const files = (shipsMock: boolean): Record<string, string> => ({
    [shipsMock ? 'retrofit-mock/src/main/NetworkBehavior.java' : 'src/main/NetworkBehavior.java']:
      'public final class NetworkBehavior {\n  /** Network delay, its variance and a failure percentage. */\n  public long calculateDelay(long delay, int variance) {\n    return delay + variance;\n  }\n}\n',
    'src/test/java/MockServerTest.java':
      'public final class MockServerTest {\n  @Test public void simulatesNetworkDelay() {\n    MockServer server = new MockServer();\n    server.setNetworkDelay(100);\n    assertEquals(100, server.networkDelay());\n  }\n}\n',
  });
  const q = 'simulating network delay, variance and failure percentage for a mock server';

  it("asks for code when a code path holds the word ('mock' in retrofit-mock/), for tests otherwise", async () => {
    for (const ships of [true, false]) {
      await withFiles(files(ships), async (s) => {
        const res = await new Searcher(s).search(q, { mode: 'bm25', limit: 5 });
        expect(res.results[0]?.path, `ships a mock: ${ships}`).toBe(ships ? 'retrofit-mock/src/main/NetworkBehavior.java' : 'src/test/java/MockServerTest.java');
      });
    }
  }, 60_000);
});

describe("a test runner's test words", () => {
  // A test runner's sequencer (its code is about tests) and its own end-to-end test of it; the
  // same files in a codebase whose code seldom writes "test" (an application with one test).
  const runner = (isRunner: boolean): Record<string, string> => {
    const files: Record<string, string> = {
      'packages/runner/src/sequencers/RandomSequencer.ts':
        'export class RandomSequencer {\n  /** Order the files to run with a seeded shuffle. */\n  sort(files: string[], seed: number): string[] {\n    return shuffle(files, seed);\n  }\n}\n',
      'test/e2e/sequence-shuffle.test.ts':
        "import { expect, test } from 'vitest';\n\ntest('test files run in a shuffled order with a seed', async () => {\n  const { stdout } = await runVitest({ sequence: { shuffle: true, seed: 101 } });\n  expect(stdout).toContain('test files');\n});\n",
    };
    const n = isRunner ? 6 : 0;
    for (let i = 0; i < n; i++) files[`packages/runner/src/collect${i}.ts`] = `/** Collect the tests of a test file (${i}). */\nexport function collectTests${i}(file: string): string[] {\n  return parseTests(file);\n}\n`;
    for (let i = 0; i < 8 - n; i++) files[`packages/runner/src/render${i}.ts`] = `/** Render the page (${i}). */\nexport function renderPage${i}(page: string): string {\n  return draw(page);\n}\n`;
    return files;
  };

  it('ask for code where the code is about tests, for tests elsewhere; "tests for …" asks for tests in both', async () => {
    for (const isRunner of [true, false]) {
      await withFiles(runner(isRunner), async (s) => {
        const searcher = new Searcher(s);
        const res = await searcher.search('run test files in a shuffled order using a seed', { mode: 'bm25', limit: 5 });
        expect(res.results[0]?.path, `a test runner: ${isRunner}`).toBe(isRunner ? 'packages/runner/src/sequencers/RandomSequencer.ts' : 'test/e2e/sequence-shuffle.test.ts');
        const tests = await searcher.search('tests for the shuffled order with a seed', { mode: 'bm25', limit: 5 });
        expect(tests.results[0]?.path, `a test runner: ${isRunner}`).toBe('test/e2e/sequence-shuffle.test.ts');
        // The rule itself, with and without a Searcher's cache (a store whose reads keep nothing).
        const { codeNamedBy, KeywordCache } = await import('./bm25.ts');
        expect(await codeNamedBy(s.db, [TEST_WORD]), `a test runner: ${isRunner}`).toBe(isRunner);
        expect(await codeNamedBy(s.db, [TEST_WORD], new KeywordCache().use(1)), `a test runner: ${isRunner}`).toBe(isRunner);
      });
    }
  }, 60_000);
});

describe("a spec framework's spec files", () => {
  // RSpec's code handles spec files (it loads them, suggests one for a mistyped path) and writes
  // "spec" throughout; elsewhere "a spec file" is a test.
  const files = (isFramework: boolean): Record<string, string> => {
    const out: Record<string, string> = {
      'lib/runner/did_you_mean.rb': "module Runner\n  # Suggest a similarly named spec file when the path given does not exist.\n  class DidYouMean\n    def call(path)\n      candidates.min_by { |c| distance(c, path) }\n    end\n  end\nend\n",
      'spec/runner/did_you_mean_spec.rb': "describe Runner::DidYouMean do\n  it 'suggests a similarly named spec file when the path does not exist' do\n    expect(subject.call('spec/a_spec.rb')).to eq 'spec/b_spec.rb'\n  end\nend\n",
    };
    for (let i = 0; i < 6; i++) out[`lib/runner/part${i}.rb`] = isFramework
      ? `module Runner\n  # Load the spec files of group ${i}.\n  class SpecLoader${i}\n    def load_specs(spec_paths)\n      spec_paths.each { |f| load f }\n    end\n  end\nend\n`
      : `module Runner\n  # Render page ${i}.\n  class Render${i}\n    def draw(page)\n      page.paint\n    end\n  end\nend\n`;
    return out;
  };

  it('ask for code where the code is about specs, for tests elsewhere; "specs for …" asks for tests in both', async () => {
    for (const isFramework of [true, false]) {
      await withFiles(files(isFramework), async (s) => {
        const searcher = new Searcher(s);
        const res = await searcher.search('where does it suggest a similarly named spec file when the path does not exist', { mode: 'bm25', limit: 5 });
        expect(res.results[0]?.path, `a spec framework: ${isFramework}`).toBe(isFramework ? 'lib/runner/did_you_mean.rb' : 'spec/runner/did_you_mean_spec.rb');
        const specs = await searcher.search('specs for suggesting a similarly named file', { mode: 'bm25', limit: 5 });
        expect(specs.results[0]?.path, `a spec framework: ${isFramework}`).toBe('spec/runner/did_you_mean_spec.rb');
        const { codeNamedBy } = await import('./bm25.ts');
        expect(await codeNamedBy(s.db, [SPEC_WORD]), `a spec framework: ${isFramework}`).toBe(isFramework);
        expect(await codeNamedBy(s.db, ['specs']), `a spec framework: ${isFramework}`).toBe(isFramework);
      });
    }
  }, 60_000);
});

describe("a test framework's examples", () => {
  // RSpec calls a test an example: its code is named for them (Example, ExampleGroup), and
  // "pending examples" asks for that code; elsewhere "examples" asks for the examples folder.
  const files = (isRunner: boolean): Record<string, string> => {
    const out: Record<string, string> = {
      'examples/pending.rb': "# An example of a pending example that passes.\ndescribe 'math' do\n  pending 'adds' do\n    expect(1 + 1).to eq 2\n  end\nend\n",
      'lib/runner/pending.rb': 'module Runner\n  # A pending example that passes is reported as a failure.\n  module Pending\n    def self.mark_fixed(example)\n      example.fail_pending_fixed\n    end\n  end\nend\n',
    };
    for (let i = 0; i < 6; i++) out[isRunner ? `lib/runner/example_group${i}.rb` : `lib/runner/render${i}.rb`] = isRunner
      ? `module Runner\n  class ExampleGroup${i}\n    def run_examples(reporter)\n      children.each { |c| c.run(reporter) }\n    end\n  end\nend\n`
      : `module Runner\n  class Render${i}\n    def draw(page)\n      page.paint\n    end\n  end\nend\n`;
    return out;
  };

  it('ask for code where the code is named for them, for examples elsewhere', async () => {
    for (const isRunner of [true, false]) {
      await withFiles(files(isRunner), async (s) => {
        const res = await new Searcher(s).search('pending examples that pass are reported as failures', { mode: 'bm25', limit: 5 });
        expect(res.results[0]?.path, `a test framework: ${isRunner}`).toBe(isRunner ? 'lib/runner/pending.rb' : 'examples/pending.rb');
      });
    }
  }, 60_000);
});

describe('a query with no letter or digit (an operator) is searched as text', () => {
  const OPS: Record<string, string> = {
    'src/Servant/API/Alternative.hs': 'module Servant.API.Alternative where\n\n-- | Union of two APIs.\ndata a :<|> b = a :<|> b\n  deriving (Eq, Show)\ninfixr 3 :<|>\n\ninstance (Semigroup a, Semigroup b) => Semigroup (a :<|> b) where\n  (a :<|> b) <> (a\' :<|> b\') = (a <> a\') :<|> (b <> b\')\n',
    'src/Server.hs': 'module Server where\n\nserver :: Server API\nserver = getUsers :<|> getUser :<|> postUser :<|> deleteUser\n\nroutes = a :<|> b :<|> c :<|> d\n',
    'test/ClientSpec.hs': 'module ClientSpec where\n\ngetA :<|> getB :<|> getC = client api\n\nspec = describe "x" (it "y" (getA :<|> getB))\n',
    'README.md': '# API\n\nCombine endpoints with `:<|>`: `a :<|> b :<|> c`.\n',
    'src/Seq.scala': 'package seq\n\nclass Chain(items: List[Int]) {\n  def ++(other: Chain): Chain = new Chain(items ++ other.items)\n  def size: Int = items.size\n}\n',
    'src/use.scala': 'package seq\n\nobject Use {\n  val c = a ++ b ++ c\n}\n',
  };
  let ops: Store;
  const lines = (p: string, s: number, e: number) => OPS[p].split('\n').slice(s - 1, e).join('\n');
  beforeAll(async () => {
    ops = await openMemoryStore();
    for (const [path, text] of Object.entries(OPS)) {
      const { chunks, language } = await chunker.chunkFile(path, text);
      await ops.writeFiles([{ file: { path, hash: `h-${path}`, size: text.length, mtime: 0, language }, chunks: chunks.map((c) => ({ ...c, contentHash: sha256HexSync(embeddingText(c)) })), text }]);
    }
    await ops.flushTrigrams();
  }, 60_000);
  afterAll(async () => {
    await ops.close();
  });

  it('finds the operator\'s definition first, then code that uses it most, then tests and docs; content is the file\'s lines', async () => {
    const res = await new Searcher(ops).search(':<|>', { mode: 'bm25', limit: 10 });
    expect(res.results.map((r) => r.path)).toEqual(['src/Servant/API/Alternative.hs', 'src/Server.hs', 'test/ClientSpec.hs', 'README.md']);
    expect(res.results[0].symbol).toBe(':<|>');
    for (const r of res.results) {
      expect(r.content).toBe(lines(r.path, r.startLine, r.endLine));
      expect(r.highlights.length).toBeGreaterThan(0);
      for (const [s, e] of r.highlights) expect(r.content.slice(s, e)).toBe(':<|>');
    }
  });

  it('takes a declaring line as a definition (`def ++(`), and keeps the filters', async () => {
    const res = await new Searcher(ops).search('  ++ ', { mode: 'bm25', limit: 10 });
    expect(res.results[0]).toMatchObject({ path: 'src/Seq.scala' });
    expect(res.results[0].content).toContain('def ++(');
    expect(res.results.map((r) => r.path).sort()).toEqual(['src/Seq.scala', 'src/use.scala']);
    const onlyUse = await new Searcher(ops).search('++', { mode: 'bm25', limit: 10, pathGlob: 'src/use.scala' });
    expect(onlyUse.results.map((r) => r.path)).toEqual(['src/use.scala']);
    const haskell = await new Searcher(ops).search(':<|>', { mode: 'bm25', limit: 10, languages: ['markdown'] });
    expect(haskell.results.map((r) => r.path)).toEqual(['README.md']);
  });

  it('answers an operator written nowhere, and a query of spaces, with no results', async () => {
    expect((await new Searcher(ops).search('<~~>', { mode: 'bm25' })).results).toEqual([]);
    expect((await new Searcher(ops).search('   ', { mode: 'bm25' })).results).toEqual([]);
  });
});

describe('a message pasted from the code', () => {
  // The message's words are the codebase's commonest (method, class, final, override): many
  // pieces hold more of them more often than the one that throws it, word for word.
  const files = (): Record<string, string> => {
    const out: Record<string, string> = {
      'src/MethodBuilder.java':
        'public final class MethodBuilder {\n  public static Builder overriding(ExecutableElement method) {\n    Element enclosingClass = method.getEnclosingElement();\n    if (enclosingClass.getModifiers().contains(Modifier.FINAL)) {\n      throw new IllegalArgumentException("Cannot override method on final class " + enclosingClass);\n    }\n    return builder(method.getSimpleName());\n  }\n}\n',
      'CHANGELOG.md': '# Change log\n\n## 1.2\n\n- Cannot override method on final class: a clear message.\n',
    };
    for (let i = 0; i < 6; i++) {
      out[`src/Override${i}.java`] = `/** A final class whose method may override a method of its class: final override method class ${i}. */\npublic final class Override${i} {\n  /** Override the method of the final class; the method cannot be final. */\n  public void overrideMethod${i}(Method method, Class<?> cls) {\n    if (isFinal(cls)) overrideFinalMethod(method, cls);\n  }\n}\n`;
    }
    return out;
  };

  it('ranks the piece that holds it word for word first (not the changelog that repeats it)', async () => {
    await withFiles(files(), async (s) => {
      const searcher = new Searcher(s);
      const res = await searcher.search('Cannot override method on final class', { mode: 'bm25', limit: 5 });
      expect(res.results[0]?.path).toBe('src/MethodBuilder.java');
      expect(res.bm25Signals[res.results[0]!.id]?.phrase).toBe(1);
      // Hybrid: the vector leg points at the other files; the piece that holds the message stays first.
      const rows = await s.getChunks(Array.from({ length: 50 }, (_, i) => i + 1));
      const index = new ExactIndex(4);
      const flat = new Float32Array(rows.length * 4);
      rows.forEach((r, i) => flat.set(r.path.startsWith('src/Override') ? [1, 0, 0, 0] : [0, 1, 0, 0], i * 4));
      await index.add(rows.map((r) => r.id), flat);
      const hybrid = await new Searcher(s, { vectors: index, embedder: { embedQuery: async () => Float32Array.from([1, 0, 0, 0]) } })
        .search('Cannot override method on final class', { mode: 'hybrid', limit: 5 });
      expect(hybrid.strategy).toBe('hybrid');
      expect(hybrid.results[0]?.path).toBe('src/MethodBuilder.java');
      // Words in double quotes are a phrase in any query.
      const quoted = await searcher.search('where is "cannot override method on final class"', { mode: 'bm25', limit: 5 });
      expect(quoted.results[0]?.path).toBe('src/MethodBuilder.java');
      // A question in the asker's own words is no quotation: no phrase is looked for.
      const q = await searcher.search('how to override a method on a final class', { mode: 'bm25', limit: 5 });
      for (const r of q.results) expect(q.bm25Signals[r.id]?.phrase).toBeUndefined();
    });
  }, 60_000);
});

describe('a query that names a file', () => {
  // The test file's words are everywhere; its name only in its path.
  const files: Record<string, string> = {
    'src/utilities/caching/sizes.ts': 'export const cacheSizes = { parser: 1000, printer: 2000 };\nexport function sizeOf(name: string): number {\n  return cacheSizes[name] ?? 0;\n}\n',
    'src/utilities/caching/__tests__/sizes.test.ts': "import { sizeOf } from '../sizes';\n\ntest('every cache has a size', () => {\n  expect(sizeOf('parser')).toBe(1000);\n});\n",
    'src/core/test.ts': '/** The sizes of the test caches, sizes and tests. */\nexport function testSizes(sizes: number[]): number {\n  return sizes.reduce((a, b) => a + b, 0);\n}\n',
    'src/core/sizes.ts': '/** Sizes, sizes: the test sizes. */\nexport function ts(sizes: number[]): number {\n  return sizes.length;\n}\n',
  };

  it('lists that file first, by its name, its stem or the end of its path', async () => {
    await withFiles(files, async (s) => {
      const searcher = new Searcher(s);
      for (const q of ['sizes.test.ts', 'sizes.test file', '__tests__/sizes.test', 'caching/__tests__/sizes.test.ts']) {
        const res = await searcher.search(q, { mode: 'bm25', limit: 5 });
        expect(res.results[0]?.path, q).toBe('src/utilities/caching/__tests__/sizes.test.ts');
      }
      // Two files end with `/sizes.ts`: the shorter path first, then the other.
      const both = await searcher.search('sizes.ts', { mode: 'bm25', limit: 5 });
      expect(both.results.slice(0, 2).map((r) => r.path)).toEqual(['src/core/sizes.ts', 'src/utilities/caching/sizes.ts']);
      // A name no file has changes nothing.
      const none = await searcher.search('nosuch/sizes.test.ts', { mode: 'bm25', limit: 5 });
      for (const r of none.results) expect(none.bm25Signals[r.id]?.file_named).toBeUndefined();
    });
  }, 60_000);
});

describe('a stack trace', () => {
  const fns = Array.from({ length: 6 }, (_, i) => `export function step${i}(input: string): string {\n${Array.from({ length: 8 }, (_, j) => `  input = input.trim() + '${i}.${j}';`).join('\n')}\n  return input;\n}\n`);
  const router = fns.join('\n');
  const files: Record<string, string> = {
    'src/server/router.ts': router,
    'src/server/other.ts': 'export function handle(request: string): string {\n  return request;\n}\n',
  };
  // The line of step3's fourth statement.
  const line = router.split('\n').findIndex((l) => l.includes("'3.3'")) + 1;

  it('lists the piece that holds the line a frame points at, from an absolute path on another machine', async () => {
    await withFiles(files, async (s) => {
      const searcher = new Searcher(s);
      for (const q of [`src/server/router.ts:${line}`, `TypeError: x is undefined\n    at handle (/home/me/app/src/server/router.ts:${line}:13)`]) {
        const res = await searcher.search(q, { mode: 'bm25', limit: 5 });
        const first = res.results[0]!;
        expect(first.path, q).toBe('src/server/router.ts');
        expect(first.startLine <= line && line <= first.endLine, `${q}: ${first.startLine}-${first.endLine}`).toBe(true);
      }
    });
  }, 60_000);
});

describe('a name lookup the parse holds no definition of', () => {
  const files: Record<string, string> = {
    // A small class: its methods are no pieces of their own.
    'src/Mailbox.ts': 'export class Mailbox<T> {\n  private queue: T[] = [];\n  public enqueue(event: T): void {\n    this.queue.push(event);\n  }\n  public flush(): T[] {\n    return this.queue.splice(0);\n  }\n}\n',
    // `enqueue` defined under another owner, and named in every line.
    'src/actions/enqueueActions.ts': 'export function enqueueActions(collect: (enqueue: (a: string) => void) => void): string[] {\n  const actions: string[] = [];\n  const enqueue = function enqueue(action: string) {\n    actions.push(action);\n  };\n  collect(enqueue);\n  return actions;\n}\n',
    // A module every file reopens (Ruby): `Shop::Mailer` is not `module Shop`.
    'lib/shop.rb': 'module Shop\n  def self.mailer\n    @mailer\n  end\nend\n',
    'lib/shop/orders.rb': 'module Shop\n  class Orders\n    def mailer_for(order)\n      Shop.mailer\n    end\n  end\nend\n',
    // A name written only in a test; its parts in code.
    'src/settle.ts': '/** Settle the ledger: the walrus count is reconciled. */\nexport function settleLedger(walrus: number): number {\n  return walrus * 2;\n}\n',
    'test/ledger.test.ts': "import { settleLedger } from '../src/settle';\n\ntest('settles', () => {\n  ledger.walrus_ledger_settle_count = settleLedger(2);\n  expect(ledger.walrus_ledger_settle_count).toBe(4);\n});\n",
    // The name's words in prose, not the name.
    'src/notes.ts': '/** The walrus ledger settle count is kept per day. */\nexport const perDay = 1;\n',
    // A name that is only an export alias.
    'src/utils.ts': 'export function getAllOwnEventDescriptors(state: string[]): string[] {\n  return state.slice();\n}\n',
    'src/index.ts': "export {\n  getAllOwnEventDescriptors as __unsafe_getAllOwnEventDescriptors,\n} from './utils';\n",
    'src/graph.ts': "import { __unsafe_getAllOwnEventDescriptors } from './index';\n\nexport function edges(s: string[]): string[] {\n  return __unsafe_getAllOwnEventDescriptors(s);\n}\n",
  };

  it('lists a member\'s type when the member is no piece of its own; a module a query names with :: is no owner', async () => {
    await withFiles(files, async (s) => {
      const searcher = new Searcher(s);
      const mailbox = await searcher.search('Mailbox.enqueue', { mode: 'bm25', limit: 5 });
      expect(mailbox.results[0]?.path).toBe('src/Mailbox.ts');
      expect(mailbox.results.map((r) => r.path)).toContain('src/actions/enqueueActions.ts');
      const shop = await searcher.search('Shop::Mailer', { mode: 'bm25', limit: 5 });
      // The module's pieces are no definition of Shop::Mailer: only `self.mailer` (another case) is.
      expect(shop.results[0]?.path).toBe('lib/shop.rb');
      expect(shop.results[0]?.startLine).toBe(2);
      expect(shop.results.some((r) => r.path === 'lib/shop/orders.rb' && r.startLine === 1 && shop.bm25Signals[r.id]?.definition_tier)).toBe(false);
    });
  }, 60_000);

  it('lists where a name nothing defines is written, before pieces that hold one of its parts', async () => {
    await withFiles(files, async (s) => {
      const searcher = new Searcher(s);
      const used = await searcher.search('walrus_ledger_settle_count', { mode: 'bm25', limit: 5 });
      expect(used.results[0]?.path).toBe('test/ledger.test.ts');
      expect(used.bm25Signals[used.results[0]!.id]?.name_written).toBe(1);
      for (const r of used.results) if (r.path === 'src/notes.ts') expect(used.bm25Signals[r.id]?.name_written).toBeUndefined();
      // An export alias is where the name is defined.
      const alias = await searcher.search('__unsafe_getAllOwnEventDescriptors', { mode: 'bm25', limit: 5 });
      expect(alias.results[0]?.path).toBe('src/index.ts');
      expect(alias.bm25Signals[alias.results[0]!.id]?.text_definition).toBe(1);
    });
  }, 60_000);
});

describe('overlapping windows of a text file', () => {
  it('shows each line once: a later window keeps only the lines not shown, with its content exactly those lines', async () => {
    // A plain-text file cut into overlapping windows, the query's words in every line.
    const text = Array.from({ length: 400 }, (_, i) => `line ${i + 1}: the quokka ledger reconcile note ${i % 7}`).join('\n') + '\n';
    await withFiles({ 'notes.txt': text }, async (s) => {
      const pieces = await s.getFileChunks('notes.txt');
      expect(pieces.some((p, i) => i > 0 && p.startLine <= pieces[i - 1]!.endLine), 'the fixture has overlapping windows').toBe(true);
      const res = await new Searcher(s).search('quokka ledger reconcile', { mode: 'bm25', limit: 10 });
      const lines = text.split('\n');
      const seen = new Set<number>();
      let shown = 0;
      for (const r of res.results) {
        for (const p of [r, ...r.more]) {
          expect(p.content).toBe(lines.slice(p.startLine - 1, p.endLine).join('\n'));
          for (let l = p.startLine; l <= p.endLine; l++) {
            expect(seen.has(l), `line ${l} twice`).toBe(false);
            seen.add(l);
          }
          shown++;
        }
      }
      expect(shown).toBeGreaterThan(1);
    });
  }, 60_000);
});

describe('a CRLF file', () => {
  it("gives each piece's lines without their \\r, as grep does", async () => {
    const text = ['def settle_ledger(walrus):', '    """Settle the walrus ledger."""', '    total = walrus * 2', '    return total', '', '', 'def reconcile_ledger(walrus):', '    """Reconcile the walrus ledger."""', '    return settle_ledger(walrus) + 1', ''].join('\r\n');
    await withFiles({ 'ledger.py': text }, async (s) => {
      const res = await new Searcher(s).search('walrus ledger', { mode: 'bm25', limit: 10 });
      const lines = text.split(/\r?\n/);
      const pieces = res.results.flatMap((r) => [r, ...r.more]);
      expect(pieces.length).toBeGreaterThan(1);
      for (const p of pieces) {
        expect(p.content).not.toContain('\r');
        expect(p.content).toBe(lines.slice(p.startLine - 1, p.endLine).join('\n'));
      }
    });
  }, 60_000);
});
