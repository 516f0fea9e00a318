/**
 * `npm run bench` — one command for Sift's performance numbers, measured side by side
 * with native tools in the same run (ratios over absolute times; these machines are noisy).
 *
 * Sections: corpora → cold index by stage (via `sift index --json`) → incremental rescans
 * (no change, 1 edit, 100 edits, 1 rename, on a copy) → search latency per mode (in-process
 * per-query `timings.total` from `sift search --stdin --json`, median of RUNS batches) →
 * baselines (ripgrep over the folder, native sqlite3 FTS5 over Sift's own chunks) →
 * footprint (index bytes per source byte, CLI peak RSS) → optional hooks (vector index,
 * embedding, Chromium app, sift mcp, grep, published pack over HTTP) → full mode only: the
 * search-quality eval.
 * Writes bench/results/<date>-<quick|full>.{md,json}; prints the key ratios at the end.
 *
 * Usage: tsx bench/run.ts [--quick] [--embed] [--corpora medium,scale] [--no-eval] [--no-hooks]
 *        tsx bench/run.ts --smoke [--out DIR]
 * --smoke walks the whole sequence in seconds, measuring nothing worth keeping: the small
 * corpus with one run of 3 queries, and every hook's module loaded (not run); the report goes
 * to --out (default bench/tmp/smoke/), never to bench/results/. bench/run.test.ts runs it.
 * Timed assertions do not belong in tests; the targets from the benchmark issue are
 * reported here against the measurements, never asserted.
 */
import { cpSync, existsSync, mkdirSync, renameSync, appendFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { rgBaseline, ftsBaseline, readBenchQueries, latencyStats, type FtsBaseline, type LatencyStats, type RgBaseline } from './baselines.ts';
import { prepareCorpora, type CorpusInfo } from './corpora.ts';
import { SQLITE3 } from './eval/seed-baseline.ts';
import { indexStructures } from './shared.ts';
import { siftIndex, siftSearchBatch, type SiftIndexSummary } from './sift.ts';
import type { CorpusLatency } from './query-latency.ts';
import {
  REPO_DIR, RESULTS_DIR, TMP_DIR, fmt, isMain, listFiles, machineInfo, machineMarkdown, mb, median, parseArgs, runOk,
  siftAvailable, bundleFresh, ensureFreshBundle, type MachineInfo,
} from './util.ts';

/** Search batches per mode (per-query latency is the median over them) and baseline runs. */
interface Runs { search: number; baseline: number }
const RUNS: Runs = { search: 3, baseline: 3 };
const SMOKE_RUNS: Runs = { search: 1, baseline: 1 };
const SMOKE_QUERIES = 3;
const EDITS_MANY = 100;
const EDIT_TOKEN = 'siftbencheditmarker';
/** Extensions whose files the incremental bench edits (a comment line is appended). */
const EDITABLE: Record<string, string> = { '.c': '/* ', '.h': '/* ', '.go': '// ', '.js': '// ', '.ts': '// ' };
const COMMENT_END: Record<string, string> = { '/* ': ' */', '// ': '' };

export interface IndexRun {
  label: string;
  wallMs: number;
  maxRssKiB: number | null;
  summary: SiftIndexSummary;
}

export interface ColdIndex extends IndexRun {
  filesPerS: number;
  mbPerS: number;
  chunksPerS: number;
  stageMs: Record<string, number>;
}

export interface ModeLatency extends LatencyStats {
  mode: string;
  strategies: string[];
  /** Wall time of one whole batch process divided by the queries (includes startup). */
  wallPerQueryMs: number;
}

export interface CorpusBench {
  corpus: CorpusInfo;
  cold?: ColdIndex;
  incremental: Array<IndexRun & { searchable?: boolean; searchWallMs?: number }>;
  search: ModeLatency[];
  rg?: RgBaseline;
  fts?: FtsBaseline;
  indexBytes?: number;
  /** Index bytes by structure (dbstat pages via native sqlite3), see indexStructures. */
  structures?: Record<string, number>;
  notes: string[];
}

export interface HookResult {
  key: string;
  title: string;
  status: 'ok' | 'failed';
  detail?: string;
  data?: unknown;
  markdown?: string;
}

export interface BenchReport {
  mode: 'quick' | 'full' | 'smoke';
  machine: MachineInfo;
  queries: string[];
  corpora: CorpusBench[];
  hooks: HookResult[];
  eval?: unknown;
  targets: Array<{ target: string; measured: string }>;
}

function toIndexRun(label: string, r: ReturnType<typeof siftIndex>): IndexRun {
  return { label, wallMs: r.wallMs, maxRssKiB: r.maxRssKiB, summary: r.value };
}

function ext(p: string): string {
  const i = p.lastIndexOf('.');
  return i < 0 ? '' : p.slice(i);
}

function editFile(path: string, n: number): void {
  const open = EDITABLE[ext(path)];
  appendFileSync(path, `\n${open}${EDIT_TOKEN}${n}${COMMENT_END[open]}\n`);
}

function benchCorpus(c: CorpusInfo, queries: string[], o: { embed: boolean; runs: Runs }): CorpusBench {
  const out: CorpusBench = { corpus: c, incremental: [], search: [], notes: [] };
  const work = join(TMP_DIR, c.name);
  const copy = join(work, 'tree');
  const db = join(work, 'sift.db');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  // The copy is both the cold-index input and the incremental playground.
  cpSync(c.dir, copy, { recursive: true });
  if (!siftAvailable()) {
    out.notes.push('bin/sift not found: Sift not measured');
  } else {
    const extra = o.embed ? [] : ['--no-embed'];
    const cold = siftIndex(copy, db, extra);
    const s = cold.value;
    const secs = s.timings.total / 1000;
    out.cold = {
      ...toIndexRun('cold', cold), stageMs: s.timings,
      filesPerS: s.files.total / secs, mbPerS: mb(s.bytes) / secs, chunksPerS: s.chunks.total / secs,
    };
    out.indexBytes = statSync(db).size + (existsSync(`${db}.vectors`) ? statSync(`${db}.vectors`).size : 0);
    try {
      out.structures = indexStructures(db);
    } catch (e) {
      out.notes.push(`index size by structure unavailable: ${(e as Error).message.slice(0, 200)}`);
    }

    out.incremental.push(toIndexRun('no change', siftIndex(copy, db, extra)));
    // Edit only files Sift indexed (the index is a plain SQLite file): an ignored file's edit is no change.
    const indexed = new Set(runOk(SQLITE3, ['-readonly', db, 'SELECT path FROM files;']).stdout.split('\n'));
    const editable = listFiles(copy, (p) => ext(p) in EDITABLE && indexed.has(p));
    const stride = Math.max(1, Math.floor(editable.length / (EDITS_MANY + 2)));
    const picks = editable.filter((_, i) => i % stride === 0).slice(0, EDITS_MANY + 1);
    if (picks.length > 0) {
      editFile(join(copy, picks[0]), 0);
      const one = toIndexRun('1 file edited', siftIndex(copy, db, extra));
      const found = siftSearchBatch(copy, db, [`${EDIT_TOKEN}0`], { mode: 'bm25', limit: 1 });
      out.incremental.push({ ...one, searchable: found.value[0].results[0]?.path === picks[0], searchWallMs: found.wallMs });
      picks.slice(1).forEach((p, i) => editFile(join(copy, p), i + 1));
      out.incremental.push(toIndexRun(`${picks.length - 1} files edited`, siftIndex(copy, db, extra)));
      const from = picks[picks.length - 1];
      renameSync(join(copy, from), join(copy, from.replace(/(\.[^.]+)$/, '-renamed$1')));
      out.incremental.push(toIndexRun('1 file renamed', siftIndex(copy, db, extra)));
    }

    const modes = o.embed ? ['bm25', 'vector', 'hybrid'] : ['bm25'];
    if (!o.embed) out.notes.push('vector/hybrid latency needs embeddings: run with --embed (small/medium corpora)');
    for (const mode of modes) {
      const perQueryRuns: number[][] = queries.map(() => []);
      const walls: number[] = [];
      const strategies = new Set<string>();
      for (let r = 0; r < o.runs.search; r++) {
        const res = siftSearchBatch(copy, db, queries, { mode, limit: 10 });
        walls.push(res.wallMs / queries.length);
        res.value.forEach((x, i) => {
          if (x.strategy) strategies.add(x.strategy);
          const t = x.timings ?? {};
          perQueryRuns[i].push(t.total ?? Object.values(t).reduce((a, b) => a + b, 0));
        });
      }
      out.search.push({ mode, strategies: [...strategies], ...latencyStats(perQueryRuns.map(median)), wallPerQueryMs: median(walls) });
    }
  }
  out.rg = rgBaseline(c.dir, queries, o.runs.baseline);
  out.fts = ftsBaseline(c.dir, queries, { siftDb: out.cold ? db : undefined, runs: o.runs.baseline, work });
  // The copy may hold .ts files that `tsc` (which includes bench/) would check; indexes are large.
  rmSync(work, { recursive: true, force: true });
  return out;
}

export interface HookSpec {
  key: string;
  title: string;
  /**
   * Loads the hook's module and returns its measurement. Imports are literal, so tsc fails
   * when a bench module moves; a hook module must not import run.ts (see bench/shared.ts).
   */
  load: () => Promise<(quick: boolean) => Promise<unknown>>;
}

/** Measurements from the other bench modules, loaded only when the bench runs. */
export const HOOKS: HookSpec[] = [
  {
    key: 'vectors', title: 'Vector index (synthetic clustered 384-d)',
    load: async () => {
      const { benchVectors } = await import('./vectors.ts');
      return (quick) => benchVectors(quick ? { sizes: [10_000], kinds: ['exact', 'int8', 'hnsw'], queries: 50 } : { sizes: [10_000, 50_000] });
    },
  },
  {
    // --quick: the app's dtype (q8) only, fp32 in full runs.
    key: 'embedding', title: 'Embedding throughput',
    load: async () => { const { benchEmbed } = await import('./embed.ts'); return (quick) => benchEmbed(quick ? { quick, dtypes: ['q8'] } : { quick }); },
  },
  {
    // Issue 36: the static (model2vec) family vs the MiniLM-shaped q8 model, same chunks, same run;
    // full runs add the kernel subset through the CLI (embedding pass, vector bytes, pack size).
    key: 'static', title: 'Static (model2vec) embedding vs MiniLM-shaped q8, Node (issue 36)',
    load: async () => { const { benchStatic } = await import('./static.ts'); return (quick) => benchStatic({ quick, kernel: !quick }); },
  },
  { key: 'browser', title: 'Chromium app on OPFS', load: async () => { const { benchBrowser } = await import('./browser.ts'); return (quick) => benchBrowser({ quick }); } },
  {
    // Issue 34: small repositories' index and one-shot search walls, cold index, against Python FTS5 and rg in the same run.
    key: 'instant', title: 'Instant: small repositories, one-shot search, cold index (issue 34)',
    load: async () => { const { benchInstant } = await import('./instant.ts'); return (quick) => benchInstant({ quick }); },
  },
  {
    // Issue 34: in-process keyword latency on medium, ≥ 300 questions, against native FTS5 in the same run.
    key: 'query', title: 'In-process keyword query latency, medium corpus (issue 34)',
    load: async () => { const { benchQueryLatency } = await import('./query-latency.ts'); return (quick) => benchQueryLatency({ quick }); },
  },
  { key: 'mcp', title: 'sift mcp (warm grep vs rg, first answer) and CLI start', load: async () => { const { benchMcp } = await import('./mcp.ts'); return (quick) => benchMcp({ quick }); } },
  { key: 'grep', title: 'Exact and regex search vs ripgrep (issue 11)', load: async () => { const { benchGrep } = await import('./grep.ts'); return (quick) => benchGrep({ quick }); } },
  {
    // --quick: kernel mm + block; full: the whole kernel subset. Fails while the app cannot open a pack.
    key: 'pack', title: 'Published index over HTTP vs local OPFS (issue 27)',
    load: async () => { const { benchPackHook } = await import('./pack.ts'); return (quick) => benchPackHook(quick); },
  },
];

/** Render a hook's result: its own `markdown`, or a table of an array of flat rows. */
export function hookMarkdown(data: unknown): string {
  if (data && typeof data === 'object' && 'markdown' in data && typeof data.markdown === 'string') return data.markdown;
  if (Array.isArray(data) && data.length && typeof data[0] === 'object') {
    const keys = Object.keys(data[0] as object);
    const cell = (v: unknown) => (typeof v === 'number' ? fmt(v, 2) : String(v));
    return [`| ${keys.join(' | ')} |`, `|${keys.map(() => '---').join('|')}|`,
      ...data.map((row) => `| ${keys.map((k) => cell((row as Record<string, unknown>)[k])).join(' | ')} |`)].join('\n');
  }
  return '```json\n' + JSON.stringify(data, null, 1) + '\n```';
}

/**
 * Runs the hooks in order; one that throws is reported 'failed' and the rest still run.
 * `loadOnly` (--smoke) loads every hook's module without measuring.
 */
export async function runHooks(quick: boolean, hooks: HookSpec[] = HOOKS, o: { loadOnly?: boolean } = {}): Promise<HookResult[]> {
  const out: HookResult[] = [];
  for (const h of hooks) {
    try {
      const measure = await h.load();
      if (o.loadOnly) {
        out.push({ key: h.key, title: h.title, status: 'ok', detail: 'loaded, not run (--smoke)', markdown: 'loaded, not run (--smoke)' });
        continue;
      }
      const data: unknown = await measure(quick);
      out.push({ key: h.key, title: h.title, status: 'ok', data, markdown: hookMarkdown(data) });
    } catch (e) {
      out.push({ key: h.key, title: h.title, status: 'failed', detail: (e as Error).message.slice(0, 500) });
    }
  }
  return out;
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a !== undefined && b !== undefined && b > 0 && Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : 'n/a';
}

export function targets(r: BenchReport): BenchReport['targets'] {
  const scale = r.corpora.find((c) => c.corpus.name === 'scale');
  // Targets are stated for the kernel subset; otherwise report the largest corpus measured.
  const any = [...r.corpora].filter((c) => c.cold).sort((a, b) => b.corpus.bytes - a.corpus.bytes)[0];
  const label = any ? ` (${any.corpus.name}, Node)` : '';
  const inc = (l: string) => any?.incremental.find((x) => x.label.startsWith(l));
  const bm25 = any?.search.find((s) => s.mode === 'bm25');
  const hybrid = any?.search.find((s) => s.mode === 'hybrid');
  // The Chromium half (hook 'browser'): in full mode it indexes the whole kernel subset.
  const browser = r.hooks.find((h) => h.key === 'browser' && h.status === 'ok')?.data as
    | { corpus?: { name: string } | null; index?: { summary: { timings: { total: number }; chunks: { total: number }; bytes: number }; dbBytes: number } | null; search?: { modes: Array<{ mode: string; p95: number }> } | null }
    | undefined;
  const bIndex = browser?.index;
  const bKeyword = browser?.search?.modes.find((m) => m.mode === 'bm25');
  const bLabel = browser?.corpus ? ` (${browser.corpus.name}, ${bIndex?.summary.chunks.total ?? '?'} chunks)` : '';
  const query = (r.hooks.find((h) => h.key === 'query' && h.status === 'ok')?.data as { latency?: CorpusLatency } | undefined)?.latency;
  const qSide = query?.sides[0];
  return [
    {
      target: 'in-process keyword query on medium: p50 ≤ 5 ms, p99 ≤ 50 ms, ≤ 1.5× sqlite3 FTS5\'s p50 (40-line windows), ≥ 300 questions',
      measured: qSide && query?.windows
        ? `p50 ${fmt(qSide.p50, 2)} / p99 ${fmt(qSide.p99, 1)} ms wall, CPU ${fmt(qSide.cpu.p50, 2)} / ${fmt(qSide.cpu.p99, 1)} ms (${query.questions} questions); FTS5 windows p50 ${fmt(query.windows.p50, 2)} ms wall, CPU ${fmt(query.windows.cpu.p50, 2)} ms: ${ratio(qSide.p50, query.windows.p50)} wall, ${ratio(qSide.cpu.p50, query.windows.cpu.p50)} CPU`
        : 'not measured (query hook)',
    },
    { target: 'cold index of the kernel subset ≤ 60 s in Chromium', measured: bIndex ? `${fmt(bIndex.summary.timings.total / 1000)} s in Chromium${bLabel}` : 'not measured (browser hook)' },
    { target: 'CLI cold index within 6× the native FTS5 build (goal 4×), kernel subset', measured: scale?.cold && scale.fts ? `${ratio(scale.cold.summary.timings.total, scale.fts.buildMs)} (${fmt(scale.cold.summary.timings.total / 1000)} s vs ${fmt(scale.fts.buildMs / 1000)} s)` : 'not measured (full mode)' },
    { target: 'index ≤ 2.0× source (goal 1.5×), kernel subset, without vectors', measured: scale?.indexBytes ? `${(scale.indexBytes / scale.corpus.bytes).toFixed(2)}× in Node` + (bIndex ? `; Chromium OPFS ${(bIndex.dbBytes / bIndex.summary.bytes).toFixed(2)}×${bLabel}` : '') : 'not measured (full mode)' },
    { target: 'keyword p95 ≤ 50 ms at the kernel\'s size in Chromium', measured: bKeyword ? `p95 ${fmt(bKeyword.p95)} ms${bLabel}` : 'not measured (browser hook)' },
    { target: 'rescan with no change < 2 s', measured: inc('no change') ? `${fmt(inc('no change')!.summary.timings.total / 1000, 2)} s in-process, ${fmt(inc('no change')!.wallMs / 1000, 2)} s wall${label}` : 'n/a' },
    { target: 'one edited file searchable < 1 s', measured: inc('1 file') ? `${fmt(inc('1 file')!.summary.timings.total / 1000, 2)} s in-process, ${fmt((inc('1 file')!.wallMs) / 1000, 2)} s wall${label}; found: ${inc('1 file')!.searchable}` : 'n/a' },
    { target: 'keyword p95 < 50 ms at 100k chunks (browser)', measured: bm25 ? `p95 ${fmt(bm25.p95)} ms in Node${label}, ${any?.cold?.summary.chunks.total ?? '?'} chunks` : 'n/a' },
    { target: 'hybrid p95 < 100 ms at 100k chunks', measured: hybrid ? `p95 ${fmt(hybrid.p95)} ms${label}` : 'not measured (needs --embed)' },
    { target: 'index size < 1.5× source', measured: any?.indexBytes ? `${(any.indexBytes / any.corpus.bytes).toFixed(2)}× (${fmt(mb(any.indexBytes))} MiB for ${fmt(mb(any.corpus.bytes))} MiB)${label}` : 'n/a' },
  ];
}

export function reportMarkdown(r: BenchReport): string {
  const L: string[] = [`# Sift benchmark (${r.mode})`, '', machineMarkdown(r.machine), `- Queries: ${r.queries.length} from bench/queries.txt`, ''];
  L.push('## Corpora', '', '| corpus | files | MiB | path |', '|---|---|---|---|');
  for (const c of r.corpora) L.push(`| ${c.corpus.name} | ${c.corpus.files} | ${fmt(mb(c.corpus.bytes))} | ${relative(REPO_DIR, c.corpus.dir)} |`);
  L.push('', '## Cold index (Node CLI, no embeddings)', '',
    '| corpus | files | chunks | total s | first searchable s | walk | read | hash | chunk | store | files/s | MiB/s | chunks/s | peak RSS MiB |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of r.corpora) {
    const x = c.cold;
    if (!x) continue;
    const t = x.stageMs;
    const s = (k: string) => fmt((t[k] ?? NaN) / 1000, 2);
    L.push(`| ${c.corpus.name} | ${x.summary.files.total} | ${x.summary.chunks.total} | ${s('total')} | ${fmt((x.summary.first_searchable_ms ?? NaN) / 1000, 2)} | ${s('walk')} | ${s('read')} | ${s('hash')} | ${s('chunk')} | ${s('store')} | ${fmt(x.filesPerS)} | ${fmt(x.mbPerS, 2)} | ${fmt(x.chunksPerS)} | ${fmt(x.maxRssKiB ? x.maxRssKiB / 1024 : NaN)} |`);
  }
  L.push('', '## Incremental (copy of the corpus)', '', '| corpus | step | in-process s | wall s | added | changed | renamed | deleted | chunks written | notes |', '|---|---|---|---|---|---|---|---|---|---|');
  for (const c of r.corpora) {
    for (const x of c.incremental) {
      const f = x.summary.files;
      const note = x.searchable === undefined ? '' : `edit found by bm25 search: ${x.searchable} (search wall ${fmt(x.searchWallMs! / 1000, 2)} s)`;
      L.push(`| ${c.corpus.name} | ${x.label} | ${fmt(x.summary.timings.total / 1000, 2)} | ${fmt(x.wallMs / 1000, 2)} | ${f.added} | ${f.changed} | ${f.renamed} | ${f.deleted} | ${x.summary.chunks.written} | ${note} |`);
    }
  }
  L.push('', '## Search latency (ms per query)', '', 'Sift: in-process `timings.total` per query (median of runs); ripgrep: wall per process; sqlite3: `.timer` inside one process.', '',
    '| corpus | system | p50 | p95 | mean | notes |', '|---|---|---|---|---|---|');
  for (const c of r.corpora) {
    for (const s of c.search) L.push(`| ${c.corpus.name} | sift --mode ${s.mode} | ${fmt(s.p50, 2)} | ${fmt(s.p95, 2)} | ${fmt(s.mean, 2)} | strategy ${s.strategies.join(',') || '?'}; batch wall/query ${fmt(s.wallPerQueryMs, 1)} |`);
    if (c.fts) L.push(`| ${c.corpus.name} | sqlite3 FTS5 prefix-OR (${c.fts.source}) | ${fmt(c.fts.p50, 2)} | ${fmt(c.fts.p95, 2)} | ${fmt(c.fts.mean, 2)} | ${c.fts.rows} rows, build ${fmt(c.fts.buildMs / 1000, 2)} s, ${fmt(mb(c.fts.dbBytes))} MiB |`);
    if (c.rg) L.push(`| ${c.corpus.name} | ${c.rg.tool} (folder scan) | ${fmt(c.rg.p50, 2)} | ${fmt(c.rg.p95, 2)} | ${fmt(c.rg.mean, 2)} | |`);
  }
  L.push('', '## Footprint', '', '| corpus | source MiB | index MiB | index/source | sqlite3 FTS5 MiB |', '|---|---|---|---|---|');
  for (const c of r.corpora) {
    if (c.indexBytes) L.push(`| ${c.corpus.name} | ${fmt(mb(c.corpus.bytes))} | ${fmt(mb(c.indexBytes))} | ${(c.indexBytes / c.corpus.bytes).toFixed(2)} | ${c.fts ? fmt(mb(c.fts.dbBytes)) : 'n/a'} |`);
  }
  const withStructures = r.corpora.filter((c) => c.structures);
  if (withStructures.length) {
    L.push('', 'Index size by structure (MiB, and × source bytes):', '', '| corpus | structure | MiB | × source |', '|---|---|---|---|');
    for (const c of withStructures) {
      for (const [k, v] of Object.entries(c.structures!).sort((a, b) => b[1] - a[1])) L.push(`| ${c.corpus.name} | ${k} | ${fmt(mb(v))} | ${(v / c.corpus.bytes).toFixed(3)} |`);
    }
  }
  for (const h of r.hooks) {
    L.push('', `## ${h.title}`, '', h.status === 'ok' ? h.markdown ?? '' : `${h.status}${h.detail ? `: ${h.detail}` : ''}`);
  }
  if (r.eval) L.push('', '## Search quality', '', 'See the eval section in the JSON and bench/results/eval-*.md.');
  L.push('', '## Targets (benchmark issue)', '', '| target | measured |', '|---|---|', ...r.targets.map((t) => `| ${t.target} | ${t.measured} |`));
  L.push('', '## Ratios', '', ...ratioLines(r).map((l) => `- ${l}`));
  const notes = r.corpora.flatMap((c) => c.notes.map((n) => `- ${c.corpus.name}: ${n}`));
  if (notes.length) L.push('', '## Notes', '', ...notes);
  return L.join('\n') + '\n';
}

export function ratioLines(r: BenchReport): string[] {
  const out: string[] = [];
  for (const c of r.corpora) {
    const bm25 = c.search.find((s) => s.mode === 'bm25');
    if (bm25 && c.fts) out.push(`${c.corpus.name}: sift bm25 p50/p95 vs sqlite3 FTS5 = ${ratio(bm25.p50, c.fts.p50)} / ${ratio(bm25.p95, c.fts.p95)} (lower is better for Sift)`);
    if (bm25 && c.rg) out.push(`${c.corpus.name}: sift bm25 p50/p95 vs ripgrep = ${ratio(bm25.p50, c.rg.p50)} / ${ratio(bm25.p95, c.rg.p95)}`);
    if (c.cold && c.fts) out.push(`${c.corpus.name}: sift cold index vs sqlite3 FTS5 build over the same chunks = ${ratio(c.cold.summary.timings.total, c.fts.buildMs)}`);
    if (c.indexBytes && c.fts) out.push(`${c.corpus.name}: sift index size vs plain FTS5 = ${ratio(c.indexBytes, c.fts.dbBytes)}`);
  }
  return out;
}

async function main(): Promise<void> {
  const { flags } = parseArgs(process.argv.slice(2), ['quick', 'embed', 'no-eval', 'no-hooks', 'smoke']);
  const smoke = flags.has('smoke');
  const quick = flags.has('quick') || smoke;
  const names = typeof flags.get('corpora') === 'string' ? String(flags.get('corpora')).split(',') : smoke ? ['small'] : quick ? ['small', 'medium'] : ['small', 'medium', 'scale'];
  const log = (s: string) => console.error(`[bench] ${s}`);
  const queries = smoke ? readBenchQueries().slice(0, SMOKE_QUERIES) : readBenchQueries();
  // The CLI's numbers are the bundle's: one built from older sources would time the tsx path, and
  // the warm server would not start. Not in a smoke run (a test: other tests run bin/sift meanwhile).
  if (!smoke && !bundleFresh()) {
    log('dist-cli is older than its sources: building it');
    ensureFreshBundle();
  }
  log(`corpora: ${names.join(', ')}`);
  const corpora = prepareCorpora(names);
  const report: BenchReport = { mode: smoke ? 'smoke' : quick ? 'quick' : 'full', machine: machineInfo(), queries, corpora: [], hooks: [], targets: [] };
  for (const c of corpora) {
    if (c.files === 0) {
      log(`${c.name}: empty, skipped`);
      continue;
    }
    log(`${c.name}: ${c.files} files, ${fmt(mb(c.bytes))} MiB`);
    report.corpora.push(benchCorpus(c, queries, { embed: flags.has('embed'), runs: smoke ? SMOKE_RUNS : RUNS }));
  }
  if (!flags.has('no-hooks')) {
    log(smoke ? 'hooks (load only)' : 'hooks');
    report.hooks = await runHooks(quick, HOOKS, { loadOnly: smoke });
    for (const h of report.hooks) log(`${h.key}: ${h.status}${h.status === 'failed' ? ` (${h.detail})` : ''}`);
    // A smoke run exists to catch a broken sequence: a hook that fails to load fails it.
    if (smoke && report.hooks.some((h) => h.status === 'failed')) process.exitCode = 1;
  }
  if (!quick && !flags.has('no-eval')) {
    log('eval');
    const { evalSet } = await import('./eval/run-eval.ts');
    report.eval = ['kernel', 'js', 'go'].map((n) => evalSet(n, { modes: ['bm25'], sift: true }));
  }
  report.targets = targets(report);
  const outDir = smoke ? (typeof flags.get('out') === 'string' ? String(flags.get('out')) : join(TMP_DIR, 'smoke')) : RESULTS_DIR;
  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, `${report.machine.date.slice(0, 10)}-${report.mode}`);
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 1) + '\n');
  writeFileSync(`${base}.md`, reportMarkdown(report));
  console.log(ratioLines(report).join('\n'));
  for (const t of report.targets) console.log(`${t.target}: ${t.measured}`);
  console.log(`wrote ${base}.md`);
}

if (isMain(import.meta.url)) {
  process.on('exit', (code) => {
    if (code === 13) console.error('[bench] exit 13: a top-level await never settled. Does a hook module import run.ts back? (bench/imports.test.ts)');
  });
  await main();
}
