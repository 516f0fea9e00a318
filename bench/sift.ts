/**
 * Drives `bin/sift` as a black box for the benches: index (with `--json` summary),
 * batched searches over `--stdin --json`, stats. Every call names its index file with
 * `--db`, so benches never touch the user's ~/.sift. Runs under /usr/bin/time -v when
 * available so peak RSS comes for free.
 */
import { existsSync } from 'node:fs';
import { SIFT_BIN, run, runOk, type RunResult } from './util.ts';
import type { ResultSpan } from './eval/score.ts';

const GNU_TIME = '/usr/bin/time';

export interface SiftIndexSummary {
  files: { total: number; added: number; changed: number; deleted: number; renamed: number; unchanged: number; skipped: number };
  chunks: { written: number; total: number };
  bytes: number;
  unchanged: boolean;
  warnings: number;
  timings: Record<string, number>;
  first_searchable_ms: number | null;
  db: string;
  embedding?: unknown;
}

export interface SiftResult {
  path: string;
  start_line: number;
  end_line: number;
  language: string;
  chunk_type: string;
  symbol: string | null;
  bm25_score: number;
  vector_score: number;
  combined_score: number;
  rank: number;
  /** Other pieces shown with the result (their own lines). */
  more?: Array<{ start_line: number; end_line: number }>;
}

export interface SiftResponse {
  query: string;
  strategy?: string;
  timings?: Record<string, number>;
  results: SiftResult[];
}

export interface Timed<T> {
  value: T;
  wallMs: number;
  /** Peak resident set of the CLI process (KiB), when /usr/bin/time is installed. */
  maxRssKiB: number | null;
}

/** Run bin/sift (or another checkout's, `bin`) with args, measuring wall time and peak RSS. Throws with stderr on failure. */
export function sift(args: string[], input?: string, bin = SIFT_BIN): Timed<RunResult> {
  const timed = existsSync(GNU_TIME);
  const cmd = timed ? GNU_TIME : bin;
  const argv = timed ? ['-v', bin, ...args] : args;
  const r = run(cmd, argv, input === undefined ? {} : { input });
  if (r.status !== 0) throw new Error(`sift ${args.slice(0, 3).join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  let maxRssKiB: number | null = null;
  let stderr = r.stderr;
  if (timed) {
    const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
    maxRssKiB = m ? Number(m[1]) : null;
    stderr = r.stderr.slice(0, r.stderr.indexOf('\tCommand being timed:') >>> 0);
  }
  return { value: { ...r, stderr }, wallMs: r.ms, maxRssKiB };
}

export function siftIndex(dir: string, db: string, extra: string[] = ['--no-embed'], bin = SIFT_BIN): Timed<SiftIndexSummary> {
  const r = sift(['index', dir, '--db', db, '--json', ...extra], undefined, bin);
  return { ...r, value: JSON.parse(r.value.stdout) as SiftIndexSummary };
}

/** All queries in one process; returns one response per query, in order. */
export function siftSearchBatch(
  dir: string,
  db: string,
  queries: readonly string[],
  opts: { mode?: string; limit?: number; extra?: string[]; bin?: string } = {},
): Timed<SiftResponse[]> {
  const flat = queries.map((q) => q.replace(/[\r\n]+/g, ' '));
  const args = ['search', dir, '--stdin', '--json', '--db', db, '--limit', String(opts.limit ?? 10)];
  if (opts.mode) args.push('--mode', opts.mode);
  const r = sift([...args, ...(opts.extra ?? [])], flat.join('\n') + '\n', opts.bin);
  const lines = r.value.stdout.split('\n').filter((l) => l.trim());
  if (lines.length !== queries.length) {
    throw new Error(`sift search returned ${lines.length} lines for ${queries.length} queries`);
  }
  return { ...r, value: lines.map((l) => JSON.parse(l) as SiftResponse) };
}

export function siftStats(dir: string, db: string): Record<string, unknown> {
  return JSON.parse(runOk(SIFT_BIN, ['stats', dir, '--db', db, '--json']).stdout) as Record<string, unknown>;
}

/** Each result's own lines and its `more` pieces' lines. */
export function toSpans(res: SiftResponse): ResultSpan[] {
  return res.results.map((r) => ({
    path: r.path, start: r.start_line, end: r.end_line,
    more: (r.more ?? []).map((m) => ({ start: m.start_line, end: m.end_line })),
  }));
}
