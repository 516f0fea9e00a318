/**
 * Shared helpers for the benchmark scripts (Node-only): paths, process runs, timing
 * statistics and the machine description. Nothing here knows about Sift's internals;
 * the CLI is driven as a black box through `bin/sift`.
 *
 * Invariant: statistics are computed over the samples given, never extrapolated;
 * `percentile` uses the nearest-rank method so p50 of an odd sample is its median.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_DIR = resolve(BENCH_DIR, '..');
export const CORPORA_DIR = join(BENCH_DIR, 'corpora');
export const RESULTS_DIR = join(BENCH_DIR, 'results');
export const TMP_DIR = join(BENCH_DIR, 'tmp');
export const SIFT_BIN = join(REPO_DIR, 'bin', 'sift');

// Every benchmark times one-shot `sift` processes as they run without a warm server (docs/cli.md
// "Warm server"): none is used or started unless a benchmark starts one itself (instant.ts).
process.env.SIFT_SERVER ??= '0';

/** Largest output a child may write before we treat it as a fault (bytes). */
const MAX_CHILD_OUTPUT = 1024 * 1024 * 1024;

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run a command synchronously and time it (wall clock, ms). Never throws on non-zero exit. */
export function run(cmd: string, args: string[], opts: SpawnSyncOptions = {}): RunResult {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: MAX_CHILD_OUTPUT, ...opts });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), ms };
}

/** Run and throw with the child's stderr when it fails. */
export function runOk(cmd: string, args: string[], opts: SpawnSyncOptions = {}): RunResult {
  const r = run(cmd, args, opts);
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ').slice(0, 200)} exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
  }
  return r;
}

/** Nearest-rank percentile (p in 0..100) of the samples; NaN for none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Round for tables: 3 significant-ish digits, keeping integers whole. */
export function fmt(n: number | null | undefined, digits = 1): string {
  if (n === null || n === undefined || Number.isNaN(n)) return 'n/a';
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(digits);
}

export function mb(bytes: number): number {
  return bytes / (1024 * 1024);
}

/** Files and bytes under a directory (regular files only, links not followed). */
export function dirSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile()) {
        files++;
        bytes += statSync(p).size;
      }
    }
  }
  return { files, bytes };
}

/** Every regular file under `dir`, as paths relative to it, `/`-separated, sorted. */
export function listFiles(dir: string, keep: (rel: string) => boolean = () => true): string[] {
  const out: string[] = [];
  const stack = [''];
  while (stack.length) {
    const rel = stack.pop()!;
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) stack.push(r);
      else if (e.isFile() && keep(r)) out.push(r);
    }
  }
  return out.sort();
}

/** Whether dist-cli was built from the sources as they are now (dist-cli/inputs.json: size and mtime of each). */
export function bundleFresh(): boolean {
  try {
    const { inputs } = JSON.parse(readFileSync(join(REPO_DIR, 'dist-cli/inputs.json'), 'utf8')) as { inputs: Array<{ path: string; size: number; mtimeMs: number }> };
    return inputs.length > 0 && inputs.every((f) => {
      const s = statSync(join(REPO_DIR, f.path));
      return s.size === f.size && s.mtimeMs === f.mtimeMs;
    });
  } catch {
    return false;
  }
}

/**
 * Builds the CLI bundle when a source changed since it was built: bin/sift otherwise runs the
 * sources through tsx (a one-shot search ~2× slower), and `sift serve` refuses to start (a
 * server runs only from a fresh bundle), so every CLI number after an edit would be the slow path's.
 */
export function ensureFreshBundle(): void {
  if (!bundleFresh()) runOk(process.execPath, [join(REPO_DIR, 'scripts/build-cli.mjs')]);
}

export function siftAvailable(): boolean {
  return existsSync(SIFT_BIN);
}

export interface MachineInfo {
  date: string;
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  chromium: string;
  sqlite3: string;
  ripgrep: string;
  gitCommit: string;
}

function firstLine(cmd: string, args: string[]): string {
  try {
    const r = run(cmd, args);
    return (r.stdout || r.stderr).split('\n')[0].trim() || 'unknown';
  } catch {
    return 'not installed';
  }
}

export function machineInfo(): MachineInfo {
  return {
    date: new Date().toISOString(),
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    ramGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    chromium: firstLine('/usr/bin/chromium', ['--version']),
    sqlite3: firstLine('sqlite3', ['--version']).split(' ')[0],
    ripgrep: firstLine('rg', ['--version']),
    gitCommit: firstLine('git', ['-C', REPO_DIR, 'rev-parse', '--short', 'HEAD']),
  };
}

export function machineMarkdown(m: MachineInfo): string {
  return [
    `- Date: ${m.date}`,
    `- CPU: ${m.cpu}, ${m.cores} cores; RAM ${m.ramGiB} GiB`,
    `- Node ${m.node}; ${m.chromium}; sqlite3 ${m.sqlite3}; ${m.ripgrep}; commit ${m.gitCommit}`,
  ].join('\n');
}

/** Parse `--flag value`, `--flag=value` and boolean `--flag` (those named in `booleans`). */
export function parseArgs(
  argv: readonly string[],
  booleans: readonly string[] = [],
): { flags: Map<string, string | true>; positional: string[] } {
  const flags = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else if (!booleans.includes(a.slice(2)) && i + 1 < argv.length && !argv[i + 1].startsWith('--')) {
        flags.set(a.slice(2), argv[++i]);
      }
      else flags.set(a.slice(2), true);
    } else positional.push(a);
  }
  return { flags, positional };
}

/** True when the module at `metaUrl` is the script node was started with. */
export function isMain(metaUrl: string): boolean {
  return process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(metaUrl);
}
