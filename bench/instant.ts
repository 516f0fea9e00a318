/**
 * Issue 34's targets ("instant, measured"), beside native processes measured in the same run:
 *   - `sift index --no-embed` of small real repositories (the repos eval's checkouts with
 *     50–200 files), wall and peak RSS, process start included, fresh index each time, against
 *     Python's sqlite3 FTS5 build of 40-line windows of exactly the files Sift indexed
 *     (bench/fts5-windows.py), process start included;
 *   - one-shot `sift search --mode bm25` wall and CPU per question (the repository's hand-written
 *     questions; on the medium corpus bench/queries.txt) against one `rg` process per question
 *     (`rg -i -c -e word …`: every word of the question, as a keyword search reads them), cold
 *     (SIFT_SERVER=0: the whole CLI in the process) and warm (through a `sift serve` this bench
 *     starts and stops, after one untimed search of that index; the server's CPU per question
 *     is read from /proc and reported beside the client's), and `node -e 0` for Node's own start;
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
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ask } from '../src/cli/serve-client.ts';
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
/** Questions of bench/queries.txt asked of the medium corpus in a quick run (a full run asks all 30). */
const MEDIUM_QUESTIONS_QUICK = 10;
/** A measured command still running after this long is reported as hung (the bench stops). */
const HANG_S = { index: 1800, search: 60 } as const;

function log(s: string): void {
  process.stderr.write(`[bench instant] ${s}\n`);
}

interface Measured {
  ms: number;
  /** CPU of the process tree (user + sys, ms; getrusage of the children). */
  cpuMs: number;
  /** Peak resident set of the process tree, KiB (getrusage of the children). */
  rssKb: number;
  stdout: string;
}

/**
 * Wall time and peak RSS of one command, measured by a Python parent (getrusage(RUSAGE_CHILDREN)
 * holds the largest child's max RSS; Node has no per-child rusage). The wall clock is taken
 * around the child only, so the parent's own start is not counted.
 */
function measured(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env, hangS: number = HANG_S.index, okStatus: readonly number[] = [0]): Measured {
  const py = [
    'import resource, subprocess, sys, time, json',
    // A delta: python3 may be a shim (pyenv) whose own helper processes are already counted here.
    'u0 = resource.getrusage(resource.RUSAGE_CHILDREN)',
    't = time.perf_counter()',
    'try:',
    `    r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=${hangS})`,
    'except subprocess.TimeoutExpired as e:',
    '    r = subprocess.CompletedProcess(e.cmd, "hung", e.stdout or b"", e.stderr or b"")',
    'ms = (time.perf_counter() - t) * 1000',
    'sys.stderr.write(r.stderr.decode("utf-8", "replace")[-2000:])',
    'u = resource.getrusage(resource.RUSAGE_CHILDREN)',
    'print(json.dumps({"ms": ms, "cpu": (u.ru_utime + u.ru_stime - u0.ru_utime - u0.ru_stime) * 1000, "rss": u.ru_maxrss, "status": r.returncode, "out": r.stdout.decode("utf-8", "replace")[-20000:]}))',
  ].join('\n');
  const r = run('python3', ['-c', py, cmd, ...args], { env });
  if (r.status !== 0) throw new Error(`timing ${cmd} failed: ${r.stderr.slice(0, 500)}`);
  const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as { ms: number; cpu: number; rss: number; status: number | 'hung'; out: string };
  if (j.status === 'hung') throw new Error(`${cmd} ${args.slice(0, 4).join(' ')} did not exit within ${hangS} s`);
  if (!okStatus.includes(j.status)) throw new Error(`${cmd} ${args.slice(0, 4).join(' ')} exited ${j.status}: ${r.stderr.slice(-500)}`);
  return { ms: j.ms, cpuMs: j.cpu, rssKb: j.rss, stdout: j.out };
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
  /** Through the warm server (`wall.warm`): the server's CPU ms per index, median. */
  serverCpuMs?: number | null;
}

interface Spread {
  p50: number;
  p90: number;
  max: number;
}

interface SearchStats {
  questions: number;
  /** Wall ms per question, per side (`warm`: this checkout's sift through its server). */
  perSide: Record<string, Spread & { hung: number; cpuP50: number }>;
  rg: Spread & { cpuP50: number };
  /** The warm server's own CPU per question (ms), and commands it answered out of those sent. */
  server: { cpuPerQuestion: number; served: number; sent: number } | null;
  /** Node's own start (`node -e 0`), the floor of any one-shot `sift`, measured in the same rounds. */
  node: Spread & { cpuP50: number };
}

export interface InstantReport {
  machine: MachineInfo;
  sides: string[];
  small: IndexRow[];
  smallSummary: { repos: number; medianFiles: number; wallMedian: Record<string, number>; serverCpuMedian: number; pythonMedian: number; rssMax: Record<string, number> };
  search: SearchStats;
  /** One-shot search on the medium corpus (bench/queries.txt), when it is prepared. */
  mediumSearch: SearchStats | null;
  cold: IndexRow[];
  markdown: string;
}

function fileCount(dir: string): number {
  return listFiles(dir).length;
}

/** One fresh `sift index --no-embed` of `dir` into `db`: in its own process (SIFT_SERVER=0), or through `warm`'s server. */
function siftIndexOnce(side: Side, dir: string, db: string, home: string, warm: WarmServer | null = null): Measured {
  rmSync(db, { force: true });
  for (const ext of ['-wal', '-shm', '-journal', '.lock', '.rebuild']) rmSync(db + ext, { force: true });
  const env = warm ? warm.env : { ...process.env, SIFT_HOME: home, SIFT_OFFLINE: '1', SIFT_SERVER: '0' };
  return measured(process.execPath, [side.bin, 'index', dir, '--no-embed', '--db', db, '--json', '--quiet'], env);
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
async function indexRow(corpus: string, dir: string, sides: readonly Side[], runs: number, warm: WarmServer | null = null): Promise<{ row: IndexRow; dbs: Record<string, string> }> {
  const work = join(WORK, corpus);
  mkdirSync(work, { recursive: true });
  const home = join(work, 'home');
  const dbs = Object.fromEntries(sides.map((s) => [s.name, join(work, `${s.name}.db`)]));
  const names = [...sides.map((s) => s.name), ...(warm ? ['warm'] : [])];
  const walls: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const rss: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const serverCpu: number[] = [];
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
    if (warm) {
      // This checkout's index through its warm server (a small folder's index is served): the
      // client's wall and RSS, and the server's CPU from /proc.
      const cpu0 = procCpuMs(warm.pid);
      const m = siftIndexOnce(sides[0], dir, join(work, 'warm.db'), home, warm);
      const cpu1 = procCpuMs(warm.pid);
      walls.warm.push(m.ms);
      rss.warm.push(m.rssKb);
      if (cpu0 !== null && cpu1 !== null) serverCpu.push(cpu1 - cpu0);
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
      wall: Object.fromEntries(names.map((n) => [n, median(walls[n])])),
      rssKb: Object.fromEntries(names.map((n) => [n, Math.max(...rss[n])])),
      serverCpuMs: serverCpu.length ? median(serverCpu) : null,
    },
    dbs,
  };
}

/** Words of a question as rg patterns (letters and digits, 2+ characters). */
function rgWords(q: string): string[] {
  return [...new Set((q.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? []))];
}

function spread(xs: number[]): Spread {
  return { p50: percentile(xs, 50), p90: percentile(xs, 90), max: Math.max(...xs) };
}

/** CPU ms (user + sys) of process `pid` so far, from /proc (clock ticks of 10 ms); null when unreadable. */
function procCpuMs(pid: number): number | null {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime, stime (USER_HZ = 100 on Linux)
  } catch {
    return null;
  }
}

/**
 * A `sift serve` of `bin` for the bench's own short home (the socket path must stay short), started
 * and stopped here; the searches run through it leave SIFT_SERVER unset (use it) in their env.
 */
class WarmServer {
  readonly home = mkdtempSync(join(tmpdir(), 'sift-bench-serve-'));
  #child: ChildProcess | null = null;
  readonly #kill = (): void => void this.#child?.kill('SIGKILL');

  constructor(readonly bin: string) {}

  get env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, SIFT_HOME: this.home, SIFT_OFFLINE: '1' };
    delete env.SIFT_SERVER;
    return env;
  }

  async status(): Promise<{ pid: number; commands: number } | null> {
    const a = await ask(join(this.home, 'run', 'server.sock'), { op: 'status', version: '', argv: [], cwd: '/', env: {}, tty: { stdout: false, stderr: false, columns: null } });
    return a.kind === 'status' ? a.status : null;
  }

  async start(): Promise<void> {
    this.#child = spawn(process.execPath, [this.bin, 'serve'], { env: { ...this.env, SIFT_SERVER_IDLE_S: '3600' }, stdio: 'ignore' });
    process.on('exit', this.#kill);
    for (let i = 0; i < 600; i++) {
      if ((await this.status())?.pid === this.#child.pid) return;
      if (this.#child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`sift serve (${this.bin}) did not answer`);
  }

  get pid(): number {
    return this.#child?.pid ?? -1;
  }

  stop(): void {
    this.#kill();
    process.off('exit', this.#kill);
    this.#child = null;
    rmSync(this.home, { recursive: true, force: true });
  }
}

interface SearchSample {
  wall: Record<string, number[]>;
  cpu: Record<string, number[]>;
  hung: Record<string, number>;
  rgWall: number[];
  rgCpu: number[];
  nodeWall: number[];
  nodeCpu: number[];
  serverCpu: number;
  served: number;
  sent: number;
}

function newSample(names: string[]): SearchSample {
  return {
    wall: Object.fromEntries(names.map((n) => [n, []])), cpu: Object.fromEntries(names.map((n) => [n, []])),
    hung: Object.fromEntries(names.map((n) => [n, 0])), rgWall: [], rgCpu: [], nodeWall: [], nodeCpu: [], serverCpu: 0, served: 0, sent: 0,
  };
}

/**
 * One question on one index, every side in turn (cold per side, then warm through `warm`), then
 * one rg process: the sides alternate per question so load hits them alike.
 */
async function searchRound(q: string, dir: string, dbs: Record<string, string>, home: string, sides: readonly Side[], warm: WarmServer | null, acc: SearchSample): Promise<void> {
  const args = (db: string) => ['search', dir, q, '--mode', 'bm25', '--json', '--db', db];
  const timed = (name: string, bin: string, db: string, env: NodeJS.ProcessEnv): void => {
    try {
      const m = measured(process.execPath, [bin, ...args(db)], env, HANG_S.search);
      acc.wall[name].push(m.ms);
      acc.cpu[name].push(m.cpuMs);
    } catch (e) {
      // A process that never exits is a result too (the exit deadlock under load): counted, left out of the times.
      if (!(e instanceof Error && /did not exit/.test(e.message))) throw e;
      acc.hung[name]++;
      log(`${name}: ${e.message}`);
    }
  };
  for (const s of sides) timed(s.name, s.bin, dbs[s.name], { ...process.env, SIFT_HOME: home, SIFT_OFFLINE: '1', SIFT_SERVER: '0' });
  if (warm) {
    const before = await warm.status();
    const cpu0 = procCpuMs(warm.pid);
    timed('warm', warm.bin, dbs.sift, warm.env);
    const after = await warm.status();
    const cpu1 = procCpuMs(warm.pid);
    acc.sent++;
    if (before && after) acc.served += after.commands - before.commands;
    if (cpu0 !== null && cpu1 !== null) acc.serverCpu += cpu1 - cpu0;
  }
  const words = rgWords(q);
  const r = measured('rg', ['--no-config', '-i', '-c', '--no-messages', ...words.flatMap((w) => ['-e', w]), '--', dir], process.env, HANG_S.search, [0, 1]);
  acc.rgWall.push(r.ms);
  acc.rgCpu.push(r.cpuMs);
  const n = measured(process.execPath, ['-e', '0'], process.env, HANG_S.search);
  acc.nodeWall.push(n.ms);
  acc.nodeCpu.push(n.cpuMs);
}

function searchStats(acc: SearchSample, names: string[]): SearchStats {
  return {
    questions: acc.rgWall.length,
    perSide: Object.fromEntries(names.map((n) => [n, { ...spread(acc.wall[n]), hung: acc.hung[n], cpuP50: percentile(acc.cpu[n], 50) }])),
    rg: { ...spread(acc.rgWall), cpuP50: percentile(acc.rgCpu, 50) },
    node: { ...spread(acc.nodeWall), cpuP50: percentile(acc.nodeCpu, 50) },
    server: names.includes('warm') ? { cpuPerQuestion: acc.sent ? acc.serverCpu / acc.sent : NaN, served: acc.served, sent: acc.sent } : null,
  };
}

/** Prime the warm server with one untimed search of `db` (it opens and keeps that index). */
function primeWarm(warm: WarmServer | null, dir: string, db: string, q: string): void {
  if (warm) run(process.execPath, [warm.bin, 'search', dir, q, '--mode', 'bm25', '--json', '--db', db], { env: warm.env });
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
  const names = [...sides.map((s) => s.name), 'warm'];
  const warm = new WarmServer(SIFT_BIN);
  await warm.start();
  const acc = newSample(names);
  let mediumSearch: SearchStats | null = null;
  const cold: IndexRow[] = [];
  try {
    for (const { spec } of picked) {
      const dir = checkoutDir(spec);
      const { row, dbs } = await indexRow(spec.name, dir, sides, runs, warm);
      small.push(row);
      log(`${spec.name}: ${row.files} files, sift ${fmt(row.wall.sift)} ms${o.base ? `, base ${fmt(row.wall.base)} ms` : ''}, python FTS5 ${fmt(row.pythonMs)} ms`);
      const qs = hand.filter((q) => q.repo === spec.name).slice(0, QUESTIONS_PER_REPO);
      if (qs.length) primeWarm(warm, dir, dbs.sift, qs[0].question);
      for (const q of qs) await searchRound(q.question, dir, dbs, join(WORK, spec.name, 'home'), sides, warm, acc);
    }

    // ---- cold index of larger corpora; one-shot search on the medium corpus ----
    const coldCorpora = [['medium', join(CORPORA_DIR, 'medium')], ...(o.quick ? [] : [['kernel', join(CORPORA_DIR, 'kernel')]])];
    for (const [name, dir] of coldCorpora) {
      if (!existsSync(dir)) {
        log(`${name}: not prepared (npx tsx bench/corpora.ts), skipped`);
        continue;
      }
      const { row, dbs } = await indexRow(name, dir, sides, o.quick ? 1 : 2);
      cold.push(row);
      log(`${name}: ${row.files} files, sift ${fmt(row.wall.sift)} ms, python FTS5 ${fmt(row.pythonMs)} ms`);
      if (name === 'medium') {
        const qs = readFileSync(join(BENCH_DIR, 'queries.txt'), 'utf8').split('\n').map((l) => l.trim()).filter(Boolean).slice(0, o.quick ? MEDIUM_QUESTIONS_QUICK : undefined);
        const m = newSample(names);
        primeWarm(warm, dir, dbs.sift, qs[0]);
        for (const q of qs) await searchRound(q, dir, dbs, join(WORK, name, 'home'), sides, warm, m);
        mediumSearch = searchStats(m, names);
      }
    }
  } finally {
    warm.stop();
  }
  const smallSummary = {
    repos: small.length,
    medianFiles: median(small.map((r) => r.files)),
    wallMedian: Object.fromEntries([...sides.map((s) => s.name), 'warm'].map((n) => [n, median(small.map((r) => r.wall[n]).filter((v) => v !== undefined))])),
    serverCpuMedian: median(small.map((r) => r.serverCpuMs).filter((v): v is number => typeof v === 'number')),
    pythonMedian: median(small.map((r) => r.pythonMs)),
    rssMax: Object.fromEntries(sides.map((s) => [s.name, Math.max(...small.map((r) => r.rssKb[s.name]))])),
  };
  const search = searchStats(acc, names);
  const r: Omit<InstantReport, 'markdown'> = { machine: machineInfo(), sides: sides.map((s) => s.name), small, smallSummary, search, mediumSearch, cold };
  return { ...r, markdown: instantMarkdown(r, o.base) };
}

function x(a: number, b: number): string {
  return b > 0 && Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : 'n/a';
}

/** Table rows of one-shot search: cold (and base), warm, each beside one rg process per question. */
function searchRows(what: string, st: SearchStats, hasBase: boolean): string[] {
  const cell = (v: Spread & { hung: number; cpuP50: number }) =>
    `${fmt(v.p50)} / ${fmt(v.p90)} / ${fmt(v.max)} ms, CPU ${fmt(v.cpuP50)} ms${v.hung ? `; ${v.hung} never exited` : ''}`;
  const rg = `one \`rg -i -c\` process: ${fmt(st.rg.p50)} / ${fmt(st.rg.p90)} / ${fmt(st.rg.max)} ms, CPU ${fmt(st.rg.cpuP50)} ms`;
  const rows = [
    `| one-shot \`sift search --mode bm25\`, cold (no server), ${what}: wall p50 / p90 / max, CPU p50 | ${cell(st.perSide.sift)} | ${hasBase ? `${cell(st.perSide.base)} | ` : ''}${rg} | ${x(st.perSide.sift.p50, st.rg.p50)} (p50) | ≤ 250 ms |`,
  ];
  const w = st.perSide.warm;
  if (w && st.server) {
    rows.push(`| the same, warm (\`sift serve\` running; ${st.server.served} of ${st.server.sent} answered by it): client's wall and CPU; the server's CPU ${fmt(st.server.cpuPerQuestion)} ms per question | ${cell(w)} | ${hasBase ? '| ' : ''}${rg}; Node's own start (\`node -e 0\`): ${fmt(st.node.p50)} / ${fmt(st.node.p90)} / ${fmt(st.node.max)} ms, CPU ${fmt(st.node.cpuP50)} ms | ${x(w.p50, st.rg.p50)} (p50) | ≤ 250 ms |`);
  }
  return rows;
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
    `| the same, warm (\`sift index\` of a small folder runs in the warm server when one runs): client's wall; the server's CPU ${fmt(s.serverCpuMedian)} ms per index | ${fmt(s.wallMedian.warm)} ms | ${hasBase ? '| ' : ''}the same Python build | ${x(s.wallMedian.warm, s.pythonMedian)} | ≤ 500 ms |`,
    `| peak RSS of those runs (largest) | ${fmt(s.rssMax.sift / 1024)} MiB | ${hasBase ? `${fmt(s.rssMax.base / 1024)} MiB | ` : ''} | ${hasBase ? x(s.rssMax.sift, s.rssMax.base) + ' of base' : ''} | no higher than e804d1e |`,
    ...searchRows(`${r.search.questions} questions of ${s.repos} repositories`, r.search, hasBase),
    ...(r.mediumSearch ? searchRows(`${r.mediumSearch.questions} questions (bench/queries.txt) of the medium corpus`, r.mediumSearch, hasBase) : []),
    ...r.cold.map((c) => `| cold \`sift index --no-embed\`, ${c.corpus} (${c.files.toLocaleString('en-US')} files, ${c.chunks.toLocaleString('en-US')} chunks) | ${fmt(c.wall.sift / 1000, 2)} s, ${fmt(c.rssKb.sift / 1024)} MiB | ${hasBase ? `${fmt(c.wall.base / 1000, 2)} s, ${fmt(c.rssKb.base / 1024)} MiB | ` : ''}Python FTS5 (${c.windows.toLocaleString('en-US')} windows): ${fmt(c.pythonMs / 1000, 2)} s | ${x(c.wall.sift, c.pythonMs)} | ${c.corpus === 'kernel' ? '≤ 4×' : ''} |`),
    '',
    '<details><summary>Per repository</summary>',
    '',
    '| repository | files | chunks | sift ms | warm ms | ' + (hasBase ? 'base ms | ' : '') + 'python FTS5 ms | sift RSS MiB |',
    '|---|---|---|---|---|' + (hasBase ? '---|' : '') + '---|---|',
    ...r.small.map((row) => `| ${row.corpus} | ${row.files} | ${row.chunks} | ${fmt(row.wall.sift)} | ${fmt(row.wall.warm)} | ${hasBase ? `${fmt(row.wall.base)} | ` : ''}${fmt(row.pythonMs)} | ${fmt(row.rssKb.sift / 1024)} |`),
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
