/**
 * Native baselines measured in the same run as Sift, for ratios:
 *   ripgrep — `rg -F -i -c <query> <dir>` (the literal query over the folder), warm page
 *             cache (one untimed pass first), per query the median of RUNS runs; p50/p95
 *             over the query list. Wall time includes process start, as a user sees it.
 *   sqlite3 — native FTS5 over the same chunks as Sift (each chunk's text and path exported
 *             from Sift's index file first, untimed: export-chunks.ts), or over 40-line windows when no Sift index is
 *             given; build time, DB size, and naive prefix-OR queries (`"term"* OR …`,
 *             ORDER BY bm25, LIMIT 10) timed inside one sqlite3 process with `.timer on`.
 * Usage: tsx bench/baselines.ts <dir> [--sift-db FILE] [--runs 3]
 */
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SQLITE3, buildWindowsDb, seedQuery } from './eval/seed-baseline.ts';
import { BENCH_DIR, TMP_DIR, fmt, isMain, median, parseArgs, percentile, run, runOk } from './util.ts';

export const DEFAULT_RUNS = 3;
export const QUERIES_FILE = join(BENCH_DIR, 'queries.txt');

export function readBenchQueries(file = QUERIES_FILE): string[] {
  return readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
}

export interface LatencyStats {
  p50: number;
  p95: number;
  mean: number;
  /** Per-query median latency (ms), in query order. */
  perQuery: number[];
}

export function latencyStats(perQuery: number[]): LatencyStats {
  return {
    p50: percentile(perQuery, 50), p95: percentile(perQuery, 95),
    mean: perQuery.reduce((a, b) => a + b, 0) / Math.max(1, perQuery.length), perQuery,
  };
}

export interface RgBaseline extends LatencyStats {
  tool: string;
  /** Files with at least one match, per query. */
  matchingFiles: number[];
}

export function rgBaseline(dir: string, queries: readonly string[], runs = DEFAULT_RUNS): RgBaseline {
  const args = (q: string) => ['-F', '-i', '-c', '--no-messages', '--', q, dir];
  run('rg', args(queries[0] ?? 'warm')); // warm the page cache
  const perQuery: number[] = [];
  const matchingFiles: number[] = [];
  for (const q of queries) {
    const times: number[] = [];
    let files = 0;
    for (let i = 0; i < runs; i++) {
      const r = run('rg', args(q));
      if (r.status > 1) throw new Error(`rg failed: ${r.stderr}`);
      times.push(r.ms);
      files = r.stdout.split('\n').filter(Boolean).length;
    }
    perQuery.push(median(times));
    matchingFiles.push(files);
  }
  return { tool: 'rg -F -i -c', ...latencyStats(perQuery), matchingFiles };
}

export interface FtsBaseline extends LatencyStats {
  tool: string;
  source: 'sift-chunks' | '40-line windows';
  rows: number;
  buildMs: number;
  dbBytes: number;
}

/** Query times (ms) of `sql` statements run `runs` times each in one sqlite3 process. */
export function timedQueries(db: string, statements: readonly string[], runs: number): number[] {
  return sqliteTimes(db, statements, runs).real;
}

/**
 * Per statement, the median of `runs` runs in one sqlite3 process (`.timer on`): wall time and
 * CPU time (user + sys, which a loaded machine's waits do not inflate), in ms.
 */
export function sqliteTimes(db: string, statements: readonly string[], runs: number): { real: number[]; cpu: number[] } {
  // Statements return one count(*) row each, so printing results costs nothing measurable.
  const script = ['.timer on'];
  for (const s of statements) for (let i = 0; i < runs; i++) script.push(s);
  const r = runOk(SQLITE3, ['-readonly', db], { input: script.join('\n') });
  const times = [...r.stdout.matchAll(/Run Time: real ([\d.]+) user ([\d.]+) sys ([\d.]+)/g)].map((m) => ({ real: Number(m[1]) * 1000, cpu: (Number(m[2]) + Number(m[3])) * 1000 }));
  if (times.length !== statements.length * runs) throw new Error(`sqlite3 timer: expected ${statements.length * runs} timings, got ${times.length}`);
  const real: number[] = [];
  const cpu: number[] = [];
  for (let q = 0; q < statements.length; q++) {
    const mine = times.slice(q * runs, (q + 1) * runs);
    real.push(median(mine.map((t) => t.real)));
    cpu.push(median(mine.map((t) => t.cpu)));
  }
  return { real, cpu };
}

export function ftsBaseline(
  dir: string,
  queries: readonly string[],
  o: { siftDb?: string; runs?: number; work?: string } = {},
): FtsBaseline {
  const work = o.work ?? join(TMP_DIR, 'fts-baseline');
  mkdirSync(work, { recursive: true });
  const db = join(work, 'fts.db');
  rmSync(db, { force: true });
  let buildMs: number;
  let rows: number;
  let table: string;
  let source: FtsBaseline['source'];
  if (o.siftDb) {
    // Untimed: the chunks' texts (slices of packed file text since schema 6, readable only by
    // Sift) exported to CSV. Timed, in one sqlite3 process: reading them in (as a build reads
    // its files; schema 5's baseline read them from file_text) and the FTS5 build.
    const csvFile = join(work, 'chunks.csv');
    runOk(process.execPath, ['--import', 'tsx', join(BENCH_DIR, 'export-chunks.ts'), o.siftDb, csvFile]);
    const r = runOk(SQLITE3, [db], {
      input: [
        'PRAGMA journal_mode=OFF;', 'PRAGMA synchronous=OFF;',
        'CREATE TEMP TABLE x(content TEXT, path TEXT);', '.mode csv', `.import '${csvFile.replace(/'/g, "''")}' x`, '.mode list',
        'CREATE VIRTUAL TABLE c USING fts5(content, path);',
        'INSERT INTO c(content, path) SELECT content, path FROM x;',
        'SELECT count(*) FROM c;',
      ].join('\n'),
    });
    rmSync(csvFile, { force: true });
    buildMs = r.ms;
    rows = Number(r.stdout.trim().split('\n').pop());
    table = 'c';
    source = 'sift-chunks';
  } else {
    const w = buildWindowsDb(dir, db);
    buildMs = w.buildMs;
    rows = w.windows;
    table = 'windows_fts';
    source = '40-line windows';
  }
  const statements = queries.map((q) => {
    const expr = seedQuery(q).replace(/'/g, "''");
    return `SELECT count(*) FROM (SELECT rowid, path FROM ${table} WHERE ${table} MATCH '${expr || '""'}' ORDER BY bm25(${table}) LIMIT 10);`;
  });
  const perQuery = timedQueries(db, statements, o.runs ?? DEFAULT_RUNS);
  return { tool: 'sqlite3 FTS5 prefix-OR', source, rows, buildMs, dbBytes: statSync(db).size, ...latencyStats(perQuery) };
}

if (isMain(import.meta.url)) {
  const { flags, positional } = parseArgs(process.argv.slice(2));
  const dir = positional[0];
  if (!dir) throw new Error('usage: tsx bench/baselines.ts <dir> [--sift-db FILE] [--runs N]');
  const runs = Number(flags.get('runs') ?? DEFAULT_RUNS);
  const queries = readBenchQueries();
  const rg = rgBaseline(dir, queries, runs);
  console.log(`ripgrep: p50 ${fmt(rg.p50)} ms, p95 ${fmt(rg.p95)} ms over ${queries.length} queries`);
  const siftDb = typeof flags.get('sift-db') === 'string' ? String(flags.get('sift-db')) : undefined;
  const fts = ftsBaseline(dir, queries, { siftDb, runs });
  console.log(`sqlite3 FTS5 (${fts.source}, ${fts.rows} rows): build ${fmt(fts.buildMs / 1000)} s, ` +
    `${fmt(fts.dbBytes / 2 ** 20)} MiB, p50 ${fmt(fts.p50)} ms, p95 ${fmt(fts.p95)} ms`);
}
