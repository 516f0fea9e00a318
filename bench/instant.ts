/**
 * Issue 34's targets ("instant, measured"), beside native processes measured in the same run:
 *   - `sift index --no-embed` of small real repositories (the repos eval's checkouts with
 *     50–200 files), wall and peak RSS, process start included, fresh index each time, against
 *     Python's sqlite3 FTS5 build of 40-line windows of exactly the files Sift indexed
 *     (bench/fts5-windows.py), process start included;
 *   - one-shot `sift search --mode bm25` wall per question (the repository's hand-written
 *     questions) against one `rg` process per question (`rg -i -c -e word …`: every word of
 *     the question, as a keyword search reads them);
 *   - cold index of the medium corpus (and of the kernel subset in full runs) against the same
 *     Python FTS5 build of its files.
 * Runs of the sides alternate (sift, python, base sift, sift, …) so load hits them alike.
 * --base DIR measures another checkout's bin/sift (e.g. `git worktree add /tmp/sift-base
 * e804d1e`, node_modules symlinked, `node scripts/build-cli.mjs` there) in the same run, for
 * before/after and peak RSS.
 *
 * Usage: tsx bench/instant.ts [--quick] [--base DIR] [--runs N]   (also a hook of `npm run bench`)
 * Writes bench/results/<date>-instant.{md,json}.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openNodeStore } from '../src/core/store/open-node.ts';
import { readManifest, checkoutDir, type RepoSpec } from './eval/repos/corpus.ts';
import { readQuestions, HAND_FILE } from './eval/repos.ts';
import { CORPORA_DIR, BENCH_DIR, RESULTS_DIR, SIFT_BIN, TMP_DIR, fmt, isMain, listFiles, machineInfo, machineMarkdown, median, parseArgs, percentile, run, type MachineInfo } from './util.ts';

const PY_WINDOWS = join(BENCH_DIR, 'fts5-windows.py');
const WORK = join(TMP_DIR, 'instant');
/** Repositories of the repos eval counted as "small": files in the checkout. */
const SMALL_MIN = 50;
const SMALL_MAX = 200;
const QUESTIONS_PER_REPO = 5;
/** A measured command still running after this long is reported as hung (the bench stops). */
const HANG_S = { index: 1800, search: 60 } as const;

function log(s: string): void {
  process.stderr.write(`[bench instant] ${s}\n`);
}

interface Measured {
  ms: number;
  /** Peak resident set of the process tree, KiB (getrusage of the children). */
  rssKb: number;
  stdout: string;
}

/**
 * Wall time and peak RSS of one command, measured by a Python parent (getrusage(RUSAGE_CHILDREN)
 * holds the largest child's max RSS; Node has no per-child rusage). The wall clock is taken
 * around the child only, so the parent's own start is not counted.
 */
function measured(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env, hangS: number = HANG_S.index): Measured {
  const py = [
    'import resource, subprocess, sys, time, json',
    't = time.perf_counter()',
    'try:',
    `    r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=${hangS})`,
    'except subprocess.TimeoutExpired as e:',
    '    r = subprocess.CompletedProcess(e.cmd, "hung", e.stdout or b"", e.stderr or b"")',
    'ms = (time.perf_counter() - t) * 1000',
    'sys.stderr.write(r.stderr.decode("utf-8", "replace")[-2000:])',
    'print(json.dumps({"ms": ms, "rss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "status": r.returncode, "out": r.stdout.decode("utf-8", "replace")[-20000:]}))',
  ].join('\n');
  const r = run('python3', ['-c', py, cmd, ...args], { env });
  if (r.status !== 0) throw new Error(`timing ${cmd} failed: ${r.stderr.slice(0, 500)}`);
  const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as { ms: number; rss: number; status: number | 'hung'; out: string };
  if (j.status === 'hung') throw new Error(`${cmd} ${args.slice(0, 4).join(' ')} did not exit within ${hangS} s`);
  if (j.status !== 0) throw new Error(`${cmd} ${args.slice(0, 4).join(' ')} exited ${j.status}: ${r.stderr.slice(-500)}`);
  return { ms: j.ms, rssKb: j.rss, stdout: j.out };
}

interface Side {
  name: string;
  bin: string;
}

interface IndexRow {
  corpus: string;
  files: number;
  chunks: number;
  /** Median wall ms per side name, and the native Python FTS5 build. */
  wall: Record<string, number>;
  rssKb: Record<string, number>;
  pythonMs: number;
  windows: number;
}

interface SearchStats {
  questions: number;
  /** Wall ms per question, per side. */
  perSide: Record<string, { p50: number; p90: number; max: number; hung: number }>;
  rg: { p50: number; p90: number; max: number };
}

export interface InstantReport {
  machine: MachineInfo;
  sides: string[];
  small: IndexRow[];
  smallSummary: { repos: number; medianFiles: number; wallMedian: Record<string, number>; pythonMedian: number; rssMax: Record<string, number> };
  search: SearchStats;
  cold: IndexRow[];
  markdown: string;
}

function fileCount(dir: string): number {
  return listFiles(dir).length;
}

/** One fresh `sift index --no-embed` of `dir` into `db`. */
function siftIndexOnce(side: Side, dir: string, db: string, home: string): Measured {
  rmSync(db, { force: true });
  for (const ext of ['-wal', '-shm', '-journal', '.lock']) rmSync(db + ext, { force: true });
  return measured(process.execPath, [side.bin, 'index', dir, '--no-embed', '--db', db, '--json', '--quiet'], { ...process.env, SIFT_HOME: home, SIFT_OFFLINE: '1' });
}

async function indexedFiles(db: string): Promise<string[]> {
  const store = await openNodeStore(db);
  try {
    return [...(await store.getFiles()).keys()].sort();
  } finally {
    await store.close();
  }
}

/** Index rows for `dir`, sides and Python alternating, `runs` rounds; returns the row and each side's db. */
async function indexRow(corpus: string, dir: string, sides: readonly Side[], runs: number): Promise<{ row: IndexRow; dbs: Record<string, string> }> {
  const work = join(WORK, corpus);
  mkdirSync(work, { recursive: true });
  const home = join(work, 'home');
  const dbs = Object.fromEntries(sides.map((s) => [s.name, join(work, `${s.name}.db`)]));
  const walls: Record<string, number[]> = Object.fromEntries(sides.map((s) => [s.name, []]));
  const rss: Record<string, number[]> = Object.fromEntries(sides.map((s) => [s.name, []]));
  const py: number[] = [];
  let chunks = 0;
  let windows = 0;
  let list: string | null = null;
  for (let i = 0; i < runs; i++) {
    for (const s of sides) {
      const m = siftIndexOnce(s, dir, dbs[s.name], home);
      walls[s.name].push(m.ms);
      rss[s.name].push(m.rssKb);
      if (s === sides[0]) {
        try {
          chunks = (JSON.parse(m.stdout) as { chunks: { total: number } }).chunks.total;
        } catch {
          // --json output unreadable: the chunk count is left out
        }
      }
    }
    if (list === null) {
      list = join(work, 'files.txt');
      writeFileSync(list, (await indexedFiles(dbs[sides[0].name])).join('\n') + '\n');
    }
    const p = measured('python3', [PY_WINDOWS, dir, list, join(work, 'windows.db')]);
    py.push(p.ms);
    windows = Number(p.stdout.trim().split(/\s+/)[1] ?? 0);
  }
  const files = (await indexedFiles(dbs[sides[0].name])).length;
  return {
    row: {
      corpus, files, chunks, windows, pythonMs: median(py),
      wall: Object.fromEntries(sides.map((s) => [s.name, median(walls[s.name])])),
      rssKb: Object.fromEntries(sides.map((s) => [s.name, Math.max(...rss[s.name])])),
    },
    dbs,
  };
}

/** Words of a question as rg patterns (letters and digits, 2+ characters). */
function rgWords(q: string): string[] {
  return [...new Set((q.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? []))];
}

function spread(xs: number[]): { p50: number; p90: number; max: number } {
  return { p50: percentile(xs, 50), p90: percentile(xs, 90), max: Math.max(...xs) };
}

export async function benchInstant(o: { quick?: boolean; base?: string; runs?: number } = {}): Promise<InstantReport> {
  const runs = o.runs ?? (o.quick ? 3 : 5);
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const sides: Side[] = [{ name: 'sift', bin: SIFT_BIN }];
  if (o.base) sides.push({ name: 'base', bin: join(o.base, 'bin', 'sift') });

  // ---- small repositories ----
  const specs = readManifest()
    .filter((s) => existsSync(checkoutDir(s)))
    .map((s) => ({ spec: s, files: fileCount(checkoutDir(s)) }))
    .filter((s) => s.files >= SMALL_MIN && s.files <= SMALL_MAX)
    .sort((a, b) => Math.abs(a.files - 100) - Math.abs(b.files - 100));
  const picked: Array<{ spec: RepoSpec; files: number }> = o.quick ? specs.slice(0, 6) : specs;
  if (picked.length === 0) log('no repos eval checkouts of 50–200 files: run `npx tsx bench/eval/repos.ts prepare` first');
  const hand = readQuestions(HAND_FILE);
  const small: IndexRow[] = [];
  const searchWall: Record<string, number[]> = Object.fromEntries(sides.map((s) => [s.name, []]));
  const rgWall: number[] = [];
  const hung: Record<string, number> = Object.fromEntries(sides.map((s) => [s.name, 0]));
  for (const { spec } of picked) {
    const dir = checkoutDir(spec);
    const { row, dbs } = await indexRow(spec.name, dir, sides, runs);
    small.push(row);
    log(`${spec.name}: ${row.files} files, sift ${fmt(row.wall.sift)} ms${o.base ? `, base ${fmt(row.wall.base)} ms` : ''}, python FTS5 ${fmt(row.pythonMs)} ms`);
    const qs = hand.filter((q) => q.repo === spec.name).slice(0, QUESTIONS_PER_REPO);
    for (const q of qs) {
      for (const s of sides) {
        try {
          const m = measured(process.execPath, [s.bin, 'search', dir, q.question, '--mode', 'bm25', '--json', '--db', dbs[s.name]], { ...process.env, SIFT_HOME: join(WORK, spec.name, 'home'), SIFT_OFFLINE: '1' }, HANG_S.search);
          searchWall[s.name].push(m.ms);
        } catch (e) {
          // A process that never exits is a result too (the exit deadlock under load): counted, left out of the times.
          if (!(e instanceof Error && /did not exit/.test(e.message))) throw e;
          hung[s.name]++;
          log(`${s.name}: ${e.message}`);
        }
      }
      const words = rgWords(q.question);
      const r = run('rg', ['--no-config', '-i', '-c', '--no-messages', ...words.flatMap((w) => ['-e', w]), '--', dir]);
      if (r.status > 1) throw new Error(`rg failed: ${r.stderr}`);
      rgWall.push(r.ms);
    }
  }
  const smallSummary = {
    repos: small.length,
    medianFiles: median(small.map((r) => r.files)),
    wallMedian: Object.fromEntries(sides.map((s) => [s.name, median(small.map((r) => r.wall[s.name]))])),
    pythonMedian: median(small.map((r) => r.pythonMs)),
    rssMax: Object.fromEntries(sides.map((s) => [s.name, Math.max(...small.map((r) => r.rssKb[s.name]))])),
  };
  const search: SearchStats = {
    questions: rgWall.length,
    perSide: Object.fromEntries(sides.map((s) => [s.name, { ...spread(searchWall[s.name]), hung: hung[s.name] }])),
    rg: spread(rgWall),
  };

  // ---- cold index of larger corpora ----
  const cold: IndexRow[] = [];
  const coldCorpora = [['medium', join(CORPORA_DIR, 'medium')], ...(o.quick ? [] : [['kernel', join(CORPORA_DIR, 'kernel')]])];
  for (const [name, dir] of coldCorpora) {
    if (!existsSync(dir)) {
      log(`${name}: not prepared (npx tsx bench/corpora.ts), skipped`);
      continue;
    }
    const { row } = await indexRow(name, dir, sides, o.quick ? 1 : 2);
    cold.push(row);
    log(`${name}: ${row.files} files, sift ${fmt(row.wall.sift)} ms, python FTS5 ${fmt(row.pythonMs)} ms`);
  }

  const r: Omit<InstantReport, 'markdown'> = { machine: machineInfo(), sides: sides.map((s) => s.name), small, smallSummary, search, cold };
  return { ...r, markdown: instantMarkdown(r, o.base) };
}

function x(a: number, b: number): string {
  return b > 0 && Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : 'n/a';
}

export function instantMarkdown(r: Omit<InstantReport, 'markdown'>, base?: string): string {
  const hasBase = r.sides.includes('base');
  const s = r.smallSummary;
  const lines = [
    `Sides: \`sift\` = this checkout's bin/sift${hasBase ? `; \`base\` = ${base}` : ''}. Wall times include process start. Medians over alternating runs.`,
    '',
    '| measure | sift | ' + (hasBase ? 'base | ' : '') + 'native reference (same run) | ratio | target |',
    '|---|---|' + (hasBase ? '---|' : '') + '---|---|---|',
    `| \`sift index --no-embed\`, ${s.repos} repositories of ${SMALL_MIN}–${SMALL_MAX} files (median ${fmt(s.medianFiles)} files): median of per-repository medians | ${fmt(s.wallMedian.sift)} ms | ${hasBase ? `${fmt(s.wallMedian.base)} ms | ` : ''}Python sqlite3 FTS5, 40-line windows: ${fmt(s.pythonMedian)} ms | ${x(s.wallMedian.sift, s.pythonMedian)} | ≤ 500 ms |`,
    `| peak RSS of those runs (largest) | ${fmt(s.rssMax.sift / 1024)} MiB | ${hasBase ? `${fmt(s.rssMax.base / 1024)} MiB | ` : ''} | ${hasBase ? x(s.rssMax.sift, s.rssMax.base) + ' of base' : ''} | no higher than e804d1e |`,
    `| one-shot \`sift search --mode bm25\`, ${r.search.questions} questions: p50 / p90 / max | ${fmt(r.search.perSide.sift.p50)} / ${fmt(r.search.perSide.sift.p90)} / ${fmt(r.search.perSide.sift.max)} ms${r.search.perSide.sift.hung ? `; ${r.search.perSide.sift.hung} never exited` : ''} | ${hasBase ? `${fmt(r.search.perSide.base.p50)} / ${fmt(r.search.perSide.base.p90)} / ${fmt(r.search.perSide.base.max)} ms${r.search.perSide.base.hung ? `; ${r.search.perSide.base.hung} never exited` : ''} | ` : ''}one \`rg -i -c\` process: ${fmt(r.search.rg.p50)} / ${fmt(r.search.rg.p90)} / ${fmt(r.search.rg.max)} ms | ${x(r.search.perSide.sift.p50, r.search.rg.p50)} (p50) | ≤ 250 ms |`,
    ...r.cold.map((c) => `| cold \`sift index --no-embed\`, ${c.corpus} (${c.files.toLocaleString('en-US')} files, ${c.chunks.toLocaleString('en-US')} chunks) | ${fmt(c.wall.sift / 1000, 2)} s, ${fmt(c.rssKb.sift / 1024)} MiB | ${hasBase ? `${fmt(c.wall.base / 1000, 2)} s, ${fmt(c.rssKb.base / 1024)} MiB | ` : ''}Python FTS5 (${c.windows.toLocaleString('en-US')} windows): ${fmt(c.pythonMs / 1000, 2)} s | ${x(c.wall.sift, c.pythonMs)} | ${c.corpus === 'kernel' ? '≤ 4×' : ''} |`),
    '',
    '<details><summary>Per repository</summary>',
    '',
    '| repository | files | chunks | sift ms | ' + (hasBase ? 'base ms | ' : '') + 'python FTS5 ms | sift RSS MiB |',
    '|---|---|---|---|' + (hasBase ? '---|' : '') + '---|---|',
    ...r.small.map((row) => `| ${row.corpus} | ${row.files} | ${row.chunks} | ${fmt(row.wall.sift)} | ${hasBase ? `${fmt(row.wall.base)} | ` : ''}${fmt(row.pythonMs)} | ${fmt(row.rssKb.sift / 1024)} |`),
    '',
    '</details>',
  ];
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const { flags } = parseArgs(process.argv.slice(2), ['quick']);
  const base = typeof flags.get('base') === 'string' ? String(flags.get('base')) : undefined;
  const runs = flags.get('runs') ? Number(flags.get('runs')) : undefined;
  const r = await benchInstant({ quick: flags.has('quick'), base, runs });
  const date = r.machine.date.slice(0, 10);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${date}-instant.md`), `# Instant: small repositories, one-shot search, cold index (issue 34)\n\n${machineMarkdown(r.machine)}\n\n${r.markdown}\n`);
  writeFileSync(join(RESULTS_DIR, `${date}-instant.json`), JSON.stringify({ ...r, markdown: undefined }, null, 1) + '\n');
  console.log(r.markdown);
}
