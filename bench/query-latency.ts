/**
 * In-process keyword query latency (issue 34): opens existing indexes (the CLI's, under
 * SIFT_HOME) and times `Searcher.search(q, { mode: 'bm25', limit: 10 })` — what `sift search
 * --mode bm25` runs after opening the index — per question, next to native sqlite3 FTS5 over
 * the same index file's chunks_fts.
 *
 * Questions: on each repository of bench/eval/repos.json, its questions (bench/eval/repos
 * hand.json + commits.json); on bench/corpora/medium, bench/queries.txt plus every repository
 * question's text (so p99 rests on 1,000+ questions there too).
 *
 * Sides: `--root DIR` (repeatable) loads Searcher and the store from another checkout of Sift
 * (a baseline worktree); every side answers each question in turn, so a before/after comparison
 * shares the machine's load. With two sides the ranked lists
 * (every result's path and lines, and its more-pieces' lines, in order) are compared.
 * Native: Debian's sqlite3 (3.40: it cannot open Sift's contentless_delete table) over a copy
 * of the index's FTS5 table — the same five columns of the same rows, remade from the chunks as
 * Store writes them (store.ts storedFtsRows), same tokenizer — with `.timer on`: each question's
 * full processed MATCH (query.ts ftsQuery: the OR of every phrase) ordered by the keyword leg's
 * weighted bm25, LIMIT 10, i.e. what FTS5 alone costs for the question (`--no-native`: skip).
 * Windows (issue 34's reference for the ratio): Python's sqlite3 FTS5 over 40-line windows of
 * exactly the files the index holds (bench/fts5-windows.py), queried by sqlite3 with each
 * question's terms as prefixes OR-ed (seed-baseline.ts seedQuery), ORDER BY bm25, LIMIT 10 —
 * what a plain FTS5 tool runs for the question. The target (Sift ≤ 1.5× its p50) is reported
 * as CPU and wall ratios.
 * The copies are kept under bench/tmp/query-latency/ while the index file is unchanged.
 *
 * Passes: `--runs` passes over all questions (each side in turn per question); per question
 * the median of its passes, or with `--first-pass` its first (the question new to the Searcher:
 * what the Searcher and Store keep between queries then comes from other questions only).
 * `--cold`: a new Store and Searcher for every search (nothing kept between queries; opening
 * is not timed).
 *
 * Usage: npx tsx bench/query-latency.ts [--corpora medium,repos|name,…] [--root DIR]… [--runs 3]
 *   [--first-pass] [--cold] [--max N] [--no-native] [--out FILE.json]
 * Every corpus must be indexed first (`bin/sift index <dir> --no-embed`, same SIFT_HOME).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readBenchQueries, sqliteTimes } from './baselines.ts';
import { SQLITE3, seedQuery } from './eval/seed-baseline.ts';
import { BENCH_DIR, CORPORA_DIR, REPO_DIR, TMP_DIR, fmt, isMain, median, percentile, runOk } from './util.ts';
import { openNodeStore } from '../src/core/store/open-node.ts';
import { storedFtsRows } from '../src/core/store/store.ts';
import { siftIndex } from './sift.ts';

interface Question { repo: string; question: string }

interface Corpus { name: string; dir: string; questions: string[] }

/** What a side needs from a checkout of Sift. */
interface SideApi {
  root: string;
  openNodeStore(file: string, o: { existing?: boolean }): Promise<{ db: unknown; close(): Promise<void> } & Record<string, unknown>>;
  Searcher: new (store: never) => { search(q: string, o: Record<string, unknown>): Promise<SearchOut> };
  processQuery(q: string): { ftsQuery: string };
  BM25_EXPR: string;
  indexPaths(dir: string): { db: string };
}

interface SearchOut {
  results: Array<{ path: string; startLine: number; endLine: number; more: Array<{ startLine: number; endLine: number }> }>;
  timings: Record<string, number>;
}

export interface SideStats {
  root: string;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  /** CPU time of this process per search (user + system, ms): what a loaded machine's waits do not inflate. */
  cpu: { p50: number; p90: number; p99: number; mean: number };
  /** Median per stage over questions (Searcher timings). */
  stages: Record<string, { p50: number; p99: number }>;
  perQuery: number[];
  perQueryCpu: number[];
}

interface NativeStats { p50: number; p90: number; p99: number; mean: number; cpu: { p50: number; p90: number; p99: number; mean: number } }

export interface CorpusLatency {
  corpus: string;
  questions: number;
  sides: SideStats[];
  /** Wall time, and `cpu` (user + sys) as sqlite3's timer reports them, per question the median of its runs (at least 3). */
  native: NativeStats | null;
  /** The same for a plain FTS5 query over 40-line windows of the same files (issue 34's reference). */
  windows: (NativeStats & { rows: number }) | null;
  /** Questions whose ranked lists differ between the first side and another (two sides or more). */
  differences: Array<{ question: string; side: string; a: string[]; b: string[] }>;
}

async function loadSide(root: string): Promise<SideApi> {
  const imp = (p: string) => import(pathToFileURL(join(root, p)).href);
  const [store, search, query, bm25, context] = await Promise.all([
    imp('src/core/store/open-node.ts'), imp('src/core/search/search.ts'), imp('src/core/search/query.ts'), imp('src/core/search/bm25.ts'), imp('src/cli/context.ts'),
  ]);
  return { root, openNodeStore: store.openNodeStore, Searcher: search.Searcher, processQuery: query.processQuery, BM25_EXPR: bm25.BM25_EXPR, indexPaths: context.indexPaths };
}

function repoQuestions(): Question[] {
  const read = (f: string) => (JSON.parse(readFileSync(join(REPO_DIR, 'bench', 'eval', 'repos', f), 'utf8')) as { questions: Question[] }).questions;
  return [...read('hand.json'), ...read('commits.json')];
}

export function corporaFor(names: readonly string[]): Corpus[] {
  const qs = repoQuestions();
  const repos = (JSON.parse(readFileSync(join(REPO_DIR, 'bench', 'eval', 'repos.json'), 'utf8')) as { repos: Array<{ name: string }> }).repos.map((r) => r.name);
  const want = names.flatMap((n) => (n === 'repos' ? repos : [n]));
  return want.map((name) => (name === 'medium'
    ? { name, dir: join(CORPORA_DIR, 'medium'), questions: [...readBenchQueries(), ...qs.map((q) => q.question)] }
    : { name, dir: join(CORPORA_DIR, 'repos', name), questions: qs.filter((q) => q.repo === name).map((q) => q.question) }));
}

/** A ranked list as comparable lines: each result's path and lines, with its more-pieces' lines. */
function signature(r: SearchOut): string[] {
  return r.results.map((x) => `${x.path}:${x.startLine}-${x.endLine}${x.more.map((m) => ` +${m.startLine}-${m.endLine}`).join('')}`);
}

function stats(perQuery: number[]): { p50: number; p90: number; p99: number; mean: number } {
  return { p50: percentile(perQuery, 50), p90: percentile(perQuery, 90), p99: percentile(perQuery, 99), mean: perQuery.reduce((a, b) => a + b, 0) / Math.max(1, perQuery.length) };
}

const csv = (v: unknown) => (typeof v === 'number' ? String(v) : `"${String(v ?? '').replace(/"/g, '""')}"`);

/** A native FTS5 copy of `indexDb`'s chunks_fts (same columns, rows, tokenizer), built once per index version. */
export async function nativeCopy(indexDb: string, name: string): Promise<string> {
  const work = join(TMP_DIR, 'query-latency');
  mkdirSync(work, { recursive: true });
  const db = join(work, `${name}.fts.db`);
  const stamp = `${db}.stamp`;
  const st = statSync(indexDb);
  const want = `${st.size} ${st.mtimeMs}`;
  if (existsSync(db) && existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return db;
  rmSync(db, { force: true });
  const csvFile = join(work, `${name}.csv`);
  const w = createWriteStream(csvFile);
  const store = await openNodeStore(indexDb, { existing: true });
  try {
    for (let after = 0; ;) {
      const rows = await storedFtsRows(store.db, after, 2000);
      if (!rows.length) break;
      for (const r of rows) if (!w.write(`${r.map(csv).join(',')}\n`)) await new Promise<void>((res) => w.once('drain', () => res()));
      after = rows[rows.length - 1][0] as number;
    }
  } finally {
    await new Promise<void>((res, rej) => w.end((e?: Error | null) => (e ? rej(e) : res())));
    await store.close();
  }
  runOk(SQLITE3, [db], {
    input: [
      'PRAGMA journal_mode=OFF;', 'PRAGMA synchronous=OFF;', `PRAGMA page_size=16384;`,
      'CREATE TEMP TABLE x(id INTEGER, names TEXT, path_words TEXT, sig_doc TEXT, content TEXT, tokens TEXT);',
      '.mode csv', `.import '${csvFile.replace(/'/g, "''")}' x`, '.mode list',
      "CREATE VIRTUAL TABLE chunks_fts USING fts5(names, path_words, sig_doc, content, tokens, tokenize='unicode61 remove_diacritics 2');",
      'INSERT INTO chunks_fts(rowid, names, path_words, sig_doc, content, tokens) SELECT id, names, path_words, sig_doc, content, tokens FROM x;',
      "INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize');",
    ].join('\n'),
  });
  rmSync(csvFile, { force: true });
  writeFileSync(stamp, want);
  return db;
}

/**
 * Python sqlite3 FTS5 over 40-line windows of the files `indexDb` holds (bench/fts5-windows.py:
 * table `windows`), built once per index version; returns the file and its rows.
 */
export async function windowsCopy(indexDb: string, dir: string, name: string): Promise<{ db: string; rows: number }> {
  const work = join(TMP_DIR, 'query-latency');
  mkdirSync(work, { recursive: true });
  const db = join(work, `${name}.windows.db`);
  const stamp = `${db}.stamp`;
  const st = statSync(indexDb);
  const want = `${st.size} ${st.mtimeMs}`;
  const rows = () => Number(runOk(SQLITE3, ['-readonly', db, 'SELECT count(*) FROM windows;']).stdout.trim());
  if (existsSync(db) && existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return { db, rows: rows() };
  const list = join(work, `${name}.files.txt`);
  const store = await openNodeStore(indexDb, { existing: true });
  try {
    writeFileSync(list, [...(await store.getFiles()).keys()].sort().join('\n') + '\n');
  } finally {
    await store.close();
  }
  runOk('python3', [join(BENCH_DIR, 'fts5-windows.py'), dir, list, db]);
  rmSync(list, { force: true });
  writeFileSync(stamp, want);
  return { db, rows: rows() };
}

/** Native FTS5 over the windows: each question's terms as prefixes OR-ed, bm25, LIMIT 10 (seedQuery, as bench/baselines.ts ftsBaseline). */
function windowsTimes(db: string, questions: readonly string[], runs: number): { real: number[]; cpu: number[] } {
  const statements = questions.map((q) => `SELECT count(*) FROM (SELECT rowid, path FROM windows WHERE windows MATCH '${(seedQuery(q) || '""').replace(/'/g, "''")}' ORDER BY bm25(windows) LIMIT 10);`);
  return sqliteTimes(db, statements, runs);
}

/** Native FTS5 on the index file: the processed OR, the keyword leg's weighted bm25, LIMIT 10. */
function nativeTimes(db: string, matches: readonly string[], bm25Expr: string, runs: number): { real: number[]; cpu: number[] } {
  const statements = matches.map((m) => `SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH '${(m || '""').replace(/'/g, "''")}' ORDER BY ${bm25Expr} LIMIT 10);`);
  return sqliteTimes(db, statements, runs);
}

export async function measureCorpus(corpus: Corpus, sides: readonly SideApi[], o: { runs: number; native: boolean; max?: number; cold?: boolean; firstPass?: boolean; db?: string }): Promise<CorpusLatency> {
  const questions = o.max ? corpus.questions.slice(0, o.max) : corpus.questions;
  const dbFile = o.db ?? sides[0].indexPaths(resolve(corpus.dir)).db;
  if (!existsSync(dbFile)) throw new Error(`${corpus.name}: no index at ${dbFile} (run bin/sift index ${corpus.dir} --no-embed with this SIFT_HOME)`);
  const open = async (s: SideApi) => {
    const store = await s.openNodeStore(dbFile, { existing: true });
    return { side: s, store, searcher: new s.Searcher(store as never) };
  };
  const opened = [];
  for (const s of sides) opened.push(await open(s));
  const times = sides.map(() => [] as number[][]);
  const cpuTimes = sides.map(() => [] as number[][]);
  const stageTimes = sides.map(() => new Map<string, number[][]>());
  const differences: CorpusLatency['differences'] = [];
  // Untimed: each side's first search (statement preparation, the first page reads).
  for (const x of opened) await x.searcher.search(questions[0] ?? 'x', { mode: 'bm25', limit: 10 });
  // Pass after pass over all questions, each side in turn per question: a question is new to
  // the Searcher in the first pass (what it kept is from other questions), and both sides
  // share the machine's load. `cold`: a new Store and Searcher per question (nothing kept).
  for (let pass = 0; pass < o.runs; pass++) {
    for (const [qi, q] of questions.entries()) {
      const sigs: string[] = [];
      for (const [i, x] of opened.entries()) {
        if (o.cold) {
          await x.store.close();
          opened[i] = await open(x.side);
        }
        const c0 = process.cpuUsage();
        const t = performance.now();
        const res = await opened[i].searcher.search(q, { mode: 'bm25', limit: 10 });
        (times[i][qi] ??= []).push(performance.now() - t);
        const c = process.cpuUsage(c0);
        (cpuTimes[i][qi] ??= []).push((c.user + c.system) / 1000);
        for (const [k, v] of Object.entries(res.timings)) {
          const per = stageTimes[i].get(k) ?? [];
          (per[qi] ??= []).push(v);
          stageTimes[i].set(k, per);
        }
        sigs[i] = signature(res).join('\n');
      }
      for (let i = 1; i < sides.length; i++) {
        if (pass === 0 && sigs[i] !== sigs[0]) differences.push({ question: q, side: sides[i].root, a: sigs[0].split('\n'), b: sigs[i].split('\n') });
      }
    }
  }
  for (const x of opened) await x.store.close();
  /** Per question: its first pass (o.firstPass) or the median of its passes. */
  const pick = (xs: number[]) => (o.firstPass ? xs[0] : median(xs));
  const nat = o.native ? nativeTimes(await nativeCopy(dbFile, corpus.name), questions.map((q) => sides[0].processQuery(q).ftsQuery), sides[0].BM25_EXPR, Math.max(3, o.runs)) : null;
  const native = nat ? { ...stats(nat.real), cpu: stats(nat.cpu) } : null;
  const win = o.native ? await windowsCopy(dbFile, resolve(corpus.dir), corpus.name) : null;
  const winTimes = win ? windowsTimes(win.db, questions, Math.max(3, o.runs)) : null;
  const windows = win && winTimes ? { ...stats(winTimes.real), cpu: stats(winTimes.cpu), rows: win.rows } : null;
  return {
    corpus: corpus.name,
    questions: questions.length,
    sides: sides.map((s, i) => ({
      root: s.root,
      ...stats(times[i].map(pick)),
      cpu: stats(cpuTimes[i].map(pick)),
      // A stage a question did not go through (no count to make, say) took 0 ms.
      stages: Object.fromEntries([...stageTimes[i]].map(([k, v]) => {
        const per = questions.map((_, qi) => (v[qi] ? pick(v[qi]) : 0));
        return [k, { p50: percentile(per, 50), p99: percentile(per, 99) }];
      })),
      perQuery: times[i].map(pick),
      perQueryCpu: cpuTimes[i].map(pick),
    })),
    native,
    windows,
    differences,
  };
}

const x = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');

/** Per corpus and side: p50 ratios (CPU, wall) against the native runs (issue 34: ≤ 1.5× the windows' p50). */
export function ratioLines(all: readonly CorpusLatency[]): string[] {
  const out: string[] = [];
  for (const c of all) {
    for (const s of c.sides) {
      const parts: string[] = [];
      if (c.windows) parts.push(`vs FTS5 over 40-line windows: CPU p50 ${x(s.cpu.p50, c.windows.cpu.p50)}, wall p50 ${x(s.p50, c.windows.p50)}`);
      if (c.native) parts.push(`vs FTS5 over Sift's chunks (its query): CPU p50 ${x(s.cpu.p50, c.native.cpu.p50)}, wall p50 ${x(s.p50, c.native.p50)}`);
      if (parts.length) out.push(`- ${c.corpus} ${s.root} (${c.questions} questions): ${parts.join('; ')}`);
    }
  }
  return out;
}

function row(name: string, n: number, s: { p50: number; p90: number; p99: number; mean: number }, extra = ''): string {
  return `| ${name} | ${n} | ${fmt(s.p50, 2)} | ${fmt(s.p90, 2)} | ${fmt(s.p99, 2)} | ${fmt(s.mean, 2)} |${extra}`;
}

export function latencyMarkdown(all: readonly CorpusLatency[]): string {
  const lines = ['| corpus / side | questions | p50 ms | p90 ms | p99 ms | mean ms | CPU p50 / p99 ms | stages p50 (p99) ms |', '|---|---|---|---|---|---|---|---|'];
  for (const c of all) {
    for (const s of c.sides) {
      const stages = Object.entries(s.stages).map(([k, v]) => `${k} ${fmt(v.p50, 2)} (${fmt(v.p99, 1)})`).join(', ');
      lines.push(row(`${c.corpus} ${s.root}`, c.questions, s, ` ${fmt(s.cpu.p50, 2)} / ${fmt(s.cpu.p99, 2)} | ${stages} |`));
    }
    if (c.native) lines.push(row(`${c.corpus} native sqlite3 FTS5`, c.questions, c.native, ` ${fmt(c.native.cpu.p50, 2)} / ${fmt(c.native.cpu.p99, 2)} | |`));
    if (c.windows) lines.push(row(`${c.corpus} sqlite3 FTS5, 40-line windows`, c.questions, c.windows, ` ${fmt(c.windows.cpu.p50, 2)} / ${fmt(c.windows.cpu.p99, 2)} | ${c.windows.rows} windows, prefix-OR, bm25 |`));
  }
  lines.push('', ...ratioLines(all));
  if (all.length > 1) {
    const pooled = all[0].sides.map((_, i) => all.flatMap((c) => c.sides[i].perQuery));
    const pooledCpu = all[0].sides.map((_, i) => all.flatMap((c) => c.sides[i].perQueryCpu));
    all[0].sides.forEach((s, i) => {
      const cpu = stats(pooledCpu[i]);
      lines.push(row(`all ${s.root}`, pooled[i].length, stats(pooled[i]), ` ${fmt(cpu.p50, 2)} / ${fmt(cpu.p99, 2)} | |`));
    });
  }
  const diffs = all.reduce((n, c) => n + c.differences.length, 0);
  if (all[0]?.sides.length > 1) lines.push('', `Ranked lists that differ between sides: ${diffs} of ${all.reduce((n, c) => n + c.questions, 0)} questions.`);
  return lines.join('\n');
}

/** Questions the `npm run bench` hook asks on medium in a quick run: issue 34's minimum for a p99. */
export const QUICK_QUESTIONS = 300;

/**
 * `npm run bench` hook (bench/run.ts 'query'): this checkout's in-process keyword latency on
 * the medium corpus, every question (1,233; --quick: the first QUICK_QUESTIONS), three passes,
 * beside both native runs; the index is made by this checkout's `bin/sift index --no-embed`
 * under bench/tmp/query-latency/.
 */
export async function benchQueryLatency(o: { quick: boolean }): Promise<{ latency: CorpusLatency; markdown: string }> {
  const [corpus] = corporaFor(['medium']);
  const work = join(TMP_DIR, 'query-latency');
  mkdirSync(work, { recursive: true });
  const db = join(work, 'medium.index.db');
  rmSync(db, { force: true });
  siftIndex(corpus.dir, db);
  const latency = await measureCorpus(corpus, [await loadSide(REPO_DIR)], { runs: 3, native: true, db, max: o.quick ? QUICK_QUESTIONS : undefined });
  const markdown = ['In-process `Searcher.search(q, { mode: \'bm25\', limit: 10 })` per question (median of 3 passes; CPU = user + sys of this process), beside native sqlite3 FTS5 (bench/query-latency.ts).', '', latencyMarkdown([latency])].join('\n');
  return { latency, markdown };
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  const roots: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const [k, v] = a.includes('=') ? [a.slice(2, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a.slice(2), ['no-native', 'cold', 'first-pass'].includes(a.slice(2)) ? 'true' : argv[++i]];
    if (k === 'root') roots.push(resolve(v));
    else flags.set(k, v);
  }
  if (!roots.length) roots.push(REPO_DIR);
  const sides = [];
  for (const r of roots) sides.push(await loadSide(r));
  const corpora = corporaFor((flags.get('corpora') ?? 'medium,repos').split(','));
  const out: CorpusLatency[] = [];
  for (const c of corpora) {
    const r = await measureCorpus(c, sides, { runs: Number(flags.get('runs') ?? 3), native: !flags.has('no-native'), cold: flags.has('cold'), firstPass: flags.has('first-pass'), max: flags.has('max') ? Number(flags.get('max')) : undefined });
    out.push(r);
    const s = r.sides.map((x) => `${fmt(x.p50, 2)}/${fmt(x.p90, 2)}/${fmt(x.p99, 2)}`).join(' vs ');
    const cpu = r.sides.map((x) => `${fmt(x.cpu.p50, 2)}/${fmt(x.cpu.p99, 2)}`).join(' vs ');
    console.error(`${c.name}: ${r.questions} questions, p50/p90/p99 ${s}, CPU p50/p99 ${cpu}${r.native ? `; native ${fmt(r.native.p50, 2)}/${fmt(r.native.p90, 2)}/${fmt(r.native.p99, 2)}, CPU ${fmt(r.native.cpu.p50, 2)}/${fmt(r.native.cpu.p99, 2)}` : ''}${r.windows ? `; windows ${fmt(r.windows.p50, 2)}/${fmt(r.windows.p90, 2)}/${fmt(r.windows.p99, 2)}, CPU ${fmt(r.windows.cpu.p50, 2)}/${fmt(r.windows.cpu.p99, 2)}` : ''}${r.differences.length ? `; ${r.differences.length} lists differ` : ''}`);
  }
  console.log(latencyMarkdown(out));
  if (flags.has('out')) writeFileSync(flags.get('out')!, JSON.stringify(out, null, 1));
}
