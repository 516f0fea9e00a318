/**
 * Exact/regex search bench (issue 11): p50/p95 of `sift search --mode exact|regex` over a
 * literal and a regex query set, next to ripgrep on exactly the files Sift indexed, in the
 * same run; whether every query's (file, line) set equals rg's; and the index size by
 * structure (file text, trigram index, …) against the source size.
 *
 * Sift's time is the in-process search time the CLI reports (timings.total: trigram prefilter
 * + reading candidate texts + matching), measured warm in one process per query set; rg's is
 * the wall time of one `rg` process per query (its real cost to a user), page cache warm.
 *
 * Usage: tsx bench/grep.ts [--quick] [--corpus medium|scale]  (also a hook of `npm run bench`)
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { prepareMedium, prepareScale, type CorpusInfo } from './corpora.ts';
import { siftIndex, siftSearchBatch } from './sift.ts';
import { LITERALS, REGEXES, indexStructures } from './shared.ts';
import { latencyStats } from './baselines.ts';
import { TMP_DIR, fmt, isMain, mb, median, parseArgs, run, runOk } from './util.ts';
import { SQLITE3 } from './eval/seed-baseline.ts';

const RUNS = 3;

export interface GrepQueryRow {
  corpus: string;
  mode: 'exact' | 'regex';
  pattern: string;
  lines: number;
  siftMs: number;
  rgMs: number;
  parity: boolean;
}

export interface GrepCorpusResult {
  corpus: string;
  files: number;
  sourceMB: number;
  indexMB: number;
  structures: Record<string, number>;
  modes: Array<{ mode: string; siftP50: number; siftP95: number; rgP50: number; rgP95: number; parity: string }>;
  rows: GrepQueryRow[];
}

function indexedFiles(db: string): string[] {
  return runOk(SQLITE3, ['-readonly', db, 'SELECT path FROM file_text ORDER BY path;']).stdout.split('\n').filter(Boolean);
}

function rgLines(dir: string, files: string[], pattern: string, fixed: boolean): { ms: number; lines: string[] } {
  const r = run('rg', ['--no-config', '-n', '--no-heading', '-H', '--no-messages', ...(fixed ? ['-F'] : []), '-e', pattern, '--', ...files], { cwd: dir, maxBuffer: 1 << 30 });
  if (r.status > 1) throw new Error(`rg ${pattern}: ${r.stderr.slice(0, 300)}`);
  const lines = r.stdout.split('\n').filter(Boolean).map((l) => {
    const m = /^(.*?):(\d+):/.exec(l);
    return m ? `${m[1]}:${m[2]}` : l;
  });
  return { ms: r.ms, lines };
}

function benchCorpus(c: CorpusInfo): GrepCorpusResult {
  const work = join(TMP_DIR, `grep-${c.name}`);
  mkdirSync(work, { recursive: true });
  const db = join(work, 'sift.db');
  siftIndex(c.dir, db); // incremental: an existing index of the same tree returns at once
  const files = indexedFiles(db);
  const structures = indexStructures(db);
  const rows: GrepQueryRow[] = [];
  const modes: GrepCorpusResult['modes'] = [];
  for (const [mode, patterns] of [['exact', LITERALS], ['regex', REGEXES]] as const) {
    const siftRuns: number[][] = patterns.map(() => []);
    let answers: string[][] = [];
    let totals: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const res = siftSearchBatch(c.dir, db, patterns, { mode, limit: 100_000 });
      res.value.forEach((x, i) => siftRuns[i]!.push(x.timings?.total ?? NaN));
      if (r === 0) {
        answers = res.value.map((x) => x.results.map((y) => `${y.path}:${y.start_line}`));
        totals = res.value.map((x) => (x as unknown as { total_matches: number }).total_matches);
      }
    }
    const rgRuns: number[][] = patterns.map(() => []);
    const rgAnswers: string[][] = [];
    patterns.forEach((p, i) => {
      for (let r = 0; r < RUNS; r++) {
        const got = rgLines(c.dir, files, p, mode === 'exact');
        rgRuns[i]!.push(got.ms);
        if (r === 0) rgAnswers.push(got.lines);
      }
    });
    patterns.forEach((p, i) => {
      // Past --limit (100,000) Sift returns the first lines and counts the rest: then every
      // returned line must be one of rg's and total_matches must equal rg's line count.
      const b = new Set(rgAnswers[i]!);
      const parity = totals[i] === b.size && answers[i]!.every((x) => b.has(x)) && (answers[i]!.length === b.size || answers[i]!.length === 100_000);
      rows.push({ corpus: c.name, mode, pattern: p, lines: b.size, siftMs: median(siftRuns[i]!), rgMs: median(rgRuns[i]!), parity });
    });
    const s = latencyStats(siftRuns.map(median));
    const g = latencyStats(rgRuns.map(median));
    const ok = rows.filter((r) => r.mode === mode && r.corpus === c.name && r.parity).length;
    modes.push({ mode, siftP50: s.p50, siftP95: s.p95, rgP50: g.p50, rgP95: g.p95, parity: `${ok}/${patterns.length}` });
  }
  const indexBytes = Object.values(structures).reduce((a, b) => a + b, 0);
  return { corpus: c.name, files: files.length, sourceMB: mb(c.bytes), indexMB: mb(indexBytes), structures, modes, rows };
}

function markdown(results: GrepCorpusResult[]): string {
  const out: string[] = [];
  out.push('| corpus | mode | Sift p50 / p95 ms (in-process) | rg p50 / p95 ms (process) | lines equal rg |', '|---|---|---|---|---|');
  for (const r of results) for (const m of r.modes) out.push(`| ${r.corpus} (${r.files} files) | ${m.mode} | ${fmt(m.siftP50)} / ${fmt(m.siftP95)} | ${fmt(m.rgP50)} / ${fmt(m.rgP95)} | ${m.parity} |`);
  out.push('', '| corpus | structure | MB | share of index | × source |', '|---|---|---|---|---|');
  for (const r of results) {
    const total = Object.values(r.structures).reduce((a, b) => a + b, 0);
    for (const [k, v] of Object.entries(r.structures).sort((a, b) => b[1] - a[1])) {
      out.push(`| ${r.corpus} | ${k} | ${fmt(mb(v))} | ${fmt((100 * v) / total)}% | ${fmt(mb(v) / r.sourceMB, 2)}× |`);
    }
    out.push(`| ${r.corpus} | **whole index** | ${fmt(r.indexMB)} | 100% | ${fmt(r.indexMB / r.sourceMB, 2)}× (source ${fmt(r.sourceMB)} MB) |`);
  }
  out.push('', '| corpus | mode | pattern | lines | Sift ms | rg ms | equal |', '|---|---|---|---|---|---|---|');
  for (const r of results) for (const q of r.rows) out.push(`| ${r.corpus} | ${q.mode} | \`${q.pattern.replace(/\|/g, '\\|')}\` | ${q.lines} | ${fmt(q.siftMs)} | ${fmt(q.rgMs)} | ${q.parity ? 'yes' : '**no**'} |`);
  return out.join('\n');
}

export async function benchGrep(o: { quick: boolean; corpora?: Array<'medium' | 'scale'> }): Promise<{ markdown: string; results: GrepCorpusResult[] }> {
  const names = o.corpora ?? (o.quick ? ['medium'] : ['medium', 'scale']);
  const results = names.map((n) => benchCorpus(n === 'scale' ? prepareScale() : prepareMedium()));
  return { markdown: markdown(results), results };
}

if (isMain(import.meta.url)) {
  const { flags } = parseArgs(process.argv.slice(2), ['quick']);
  const corpus = flags.get('corpus');
  const corpora = typeof corpus === 'string' ? [corpus as 'medium' | 'scale'] : undefined;
  if (!existsSync(TMP_DIR)) mkdirSync(TMP_DIR, { recursive: true });
  const r = await benchGrep({ quick: flags.has('quick'), corpora });
  console.log(r.markdown);
}
