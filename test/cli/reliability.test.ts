/**
 * Reliability of `bin/sift` under real faults, every run: real processes on real files.
 * Concurrent writers, a writer with looping readers (one-shot and a long-lived --stdin),
 * SIGKILL mid-write, a full disk (a small tmpfs; needs root, skipped with a message otherwise),
 * a damaged page, --stdin after a fatal error, a newer schema, an empty --db file and control
 * characters in file names.
 *
 * What must always hold: no corrupt index (`sift check` passes), no healthy index called
 * corrupt, every failure one clear line with its documented exit code (3 no index, 4 corrupt,
 * 5 busy, 6 storage full), nothing lost (every file of the tree is in the index).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, symlinkSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, closeSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './run-sift.ts';
import { acquireSessionLock, lockNames, removeEntry, tryCreate } from '../../src/core/store/lock-node.ts';

const SIFT = join(ROOT, 'bin/sift');
const TINY = join(ROOT, 'models/generated/tiny');
/** Files in the generated tree; each defines one identifier found nowhere else. */
const FILES = 90;
const FUNCS_PER_FILE = 14;

let work: string;
let tree: string;
let home: string;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

interface Child {
  pid: number;
  /** Standard output so far. */
  output(): string;
  done: Promise<Run>;
  write(line: string): void;
  end(): void;
  kill(signal: NodeJS.Signals): void;
}

function start(args: string[], env: Record<string, string> = {}): Child {
  const p = spawn(process.execPath, [SIFT, ...args], {
    env: { ...process.env, SIFT_HOME: home, SIFT_OFFLINE: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  p.stdin.on('error', () => undefined); // the child may exit before reading
  const done = new Promise<Run>((resolve) => p.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    pid: p.pid as number,
    output: () => stdout,
    done,
    write: (line) => p.stdin.write(line),
    end: () => p.stdin.end(),
    kill: (s) => p.kill(s),
  };
}

/**
 * A one-shot command longer than this is stopped and described: what it had printed and where
 * its threads waited, so a hang says which command hung and whether its answer was complete
 * (the CLI's exit once hung under CPU load: bin/sift). Well under the tests' own timeouts.
 */
const ONE_SHOT_LIMIT_MS = 90_000;

/** Where each thread of a live process waits (Linux /proc), for a hang's report. */
function threadsOf(pid: number): string {
  try {
    return readdirSync(`/proc/${pid}/task`).map((t) => {
      const read = (f: string) => { try { return readFileSync(`/proc/${pid}/task/${t}/${f}`, 'utf8').trim(); } catch { return '?'; } };
      return `${read('comm')}:${read('wchan')}`;
    }).join(' ');
  } catch {
    return 'unknown (no /proc)';
  }
}

function sift(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const c = start(args, env);
  c.end();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stopped = new Promise<Run>((resolve) => {
    timer = setTimeout(() => {
      const threads = threadsOf(c.pid);
      const out = c.output();
      c.kill('SIGKILL');
      const report = `[test] sift ${args.join(' ')} still running after ${ONE_SHOT_LIMIT_MS / 1000} s, stopped; its stdout so far: ${out.length} bytes${out.trim() ? ` ending ${JSON.stringify(out.trim().slice(-80))}` : ''}; its threads: ${threads}`;
      console.error(report); // shown with the failing test, whichever assertion fails
      void c.done.then((r) => resolve({ ...r, stderr: `${r.stderr}${report}\n` }));
    }, ONE_SHOT_LIMIT_MS);
  });
  return Promise.race([c.done, stopped]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A generated tree: FILES Python files, file i defines `unique_marker_<i>`. */
function makeTree(dir: string): void {
  for (let i = 0; i < FILES; i++) {
    const sub = join(dir, `pkg${i % 6}`);
    mkdirSync(sub, { recursive: true });
    const funcs = Array.from({ length: FUNCS_PER_FILE }, (_, f) =>
      `def handler_${i}_${f}(request, retries=${f}):\n    """Handle request ${f} of module ${i} and retry on failure."""\n    total = 0\n    for attempt in range(retries):\n        total += attempt * ${i + f}\n    return total + len(str(request))\n`,
    );
    writeFileSync(join(sub, `mod_${i}.py`), `# module ${i}\n\ndef unique_marker_${i}():\n    return ${i}\n\n${funcs.join('\n\n')}`);
  }
}

async function statsOf(db: string): Promise<{ files: number; chunks: number }> {
  const r = await sift(['stats', tree, '--db', db, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { files: number; chunks: number };
}

async function expectHealthy(db: string, files = FILES): Promise<void> {
  const check = await sift(['check', tree, '--db', db]);
  expect(check.stderr).toBe('');
  expect(check.code).toBe(0);
  expect(check.stdout).toMatch(/: ok \(/);
  expect((await statsOf(db)).files).toBe(files);
}

/** `sift <args>` (an index run), killed with SIGKILL as soon as `ready()` holds; fails when the run ended first. */
async function killIndexWhen(args: string[], ready: () => boolean, pollMs = 2): Promise<void> {
  const c = start(args);
  c.end();
  let exited = false;
  void c.done.then(() => (exited = true));
  while (!exited && !ready()) await sleep(pollMs);
  expect(exited, 'the index finished before it could be killed; grow the tree').toBe(false);
  c.kill('SIGKILL');
  expect((await c.done).signal).toBe('SIGKILL');
}

async function buildIndex(db: string): Promise<void> {
  const r = await sift(['index', tree, '--db', db, '--no-embed', '-q']);
  expect(r.code, r.stderr).toBe(0);
}

/** No lock entries, journals or temp files left beside `db` once every process is gone. */
function leftovers(db: string): string[] {
  const dir = join(db, '..');
  const base = db.slice(dir.length + 1);
  return readdirSync(dir).filter((n) => n.startsWith(base) && n !== base && !n.endsWith('.vectors'));
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sift-rel-'));
  tree = join(work, 'tree');
  home = join(work, 'home');
  makeTree(tree);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('two processes on one index', () => {
  it('two sift index at once: both finish, nothing is lost, the index is sound', async () => {
    const db = join(work, 'two-writers', 'index.db');
    const [a, b] = await Promise.all([sift(['index', tree, '--db', db, '--no-embed', '--json']), sift(['index', tree, '--db', db, '--no-embed', '--json'])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const outs = [a, b].map((r) => JSON.parse(r.stdout) as { files: { total: number }; chunks: { total: number } });
    expect(outs.map((o) => o.files.total)).toEqual([FILES, FILES]);
    expect(outs[0].chunks.total).toBe(outs[1].chunks.total);
    await expectHealthy(db);
    expect(leftovers(db)).toEqual([]);
  }, 180_000);

  it('a second writer waits for the first, then gives up with exit 5 naming its pid', async () => {
    const db = join(work, 'busy', 'index.db');
    mkdirSync(join(work, 'busy'), { recursive: true });
    // This test process plays "another sift index" by holding the index's writer lock.
    const lock = await acquireSessionLock(db, { timeoutMs: 0, busy: () => new Error('unexpected') });
    try {
      const r = await sift(['index', tree, '--db', db, '--no-embed'], { SIFT_LOCK_TIMEOUT: '1' });
      expect(r.code).toBe(5);
      expect(r.stderr).toContain(`another sift index is writing this index (pid ${process.pid})`);
      expect(r.stderr.trim().split('\n').at(-1)).toMatch(/gave up after \d+s/);
      expect(existsSync(db)).toBe(false);
    } finally {
      lock.release();
    }
    await buildIndex(db);
    await expectHealthy(db);
  }, 120_000);

  it('a reader behind a writer\'s commit that does not end waits SIFT_BUSY_TIMEOUT_MS, then exits 5 naming the writer', async () => {
    const db = join(work, 'busy-reader', 'index.db');
    await buildIndex(db);
    // This test process plays a writer stuck in its commit: it holds the index's PENDING lock.
    const pending = lockNames(db).pending;
    expect(tryCreate(pending, 'test')).toBe(true);
    try {
      const r = await sift(['search', tree, 'unique_marker_1', '--db', db, '--mode', 'bm25'], { SIFT_BUSY_TIMEOUT_MS: '500' });
      expect(r.code).toBe(5);
      expect(r.stderr).toContain(`is busy: another sift process (pid ${process.pid}) kept it locked`);
      expect(r.stderr).not.toMatch(/corrupt|rebuild/);
    } finally {
      removeEntry(pending);
    }
    const again = await sift(['search', tree, 'unique_marker_1', '--db', db, '--mode', 'bm25', '--json']);
    expect(again.code, again.stderr).toBe(0);
  }, 120_000);

  it('a writer with looping readers: every search answers from a committed index, --stdin follows a rebuild', async () => {
    const db = join(work, 'readers', 'index.db');
    await buildIndex(db);
    const stdin = start(['search', tree, '--stdin', '--json', '--db', db, '--mode', 'bm25']);
    const writer = start(['rebuild', tree, '--db', db, '--no-embed', '-q']);
    writer.end();
    let writing = true;
    void writer.done.then(() => (writing = false));
    const searches: Run[] = [];
    let asked = 0;
    while (writing || asked < 3) {
      stdin.write(`unique_marker_${asked % FILES}\n`);
      asked++;
      searches.push(await sift(['search', tree, `unique_marker_${asked % FILES}`, '--db', db, '--mode', 'bm25', '--json']));
    }
    stdin.end();
    const [w, s] = await Promise.all([writer.done, stdin.done]);
    expect(w.code, w.stderr).toBe(0);
    for (const r of searches) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const res = JSON.parse(r.stdout) as { results: Array<{ path: string }> };
      expect(res.results.length).toBeGreaterThan(0);
    }
    expect(s.code, s.stderr).toBe(0);
    const lines = s.stdout.trim().split('\n').map((l) => JSON.parse(l) as { query: string; results: Array<{ symbol: string | null }> });
    expect(lines.length).toBe(asked);
    lines.forEach((l, i) => expect(l.results[0]?.symbol, l.query).toBe(`unique_marker_${i % FILES}`));
    await expectHealthy(db);
    expect(leftovers(db)).toEqual([]);
  }, 240_000);
});

describe('a crash mid-write', () => {
  it('SIGKILL during sift index: readers never see corruption, the next run finishes and loses nothing', async () => {
    const db = join(work, 'killed', 'index.db');
    const building = `${db}.rebuild`;
    // A new index of a small folder is built beside (db.rebuild) and renamed in when complete:
    // killed while building, there is still no index, and the next run starts afresh.
    await killIndexWhen(['index', tree, '--db', db, '--no-embed', '-q', '--workers', '0'], () => existsSync(building) && statSync(building).size > 0);
    expect(existsSync(db)).toBe(false);
    const none = await sift(['search', tree, 'unique_marker_1', '--db', db, '--mode', 'bm25', '--json']);
    expect(none.code, none.stderr).toBe(3);
    await buildIndex(db);
    expect(existsSync(building)).toBe(false);
    await expectHealthy(db);

    // In place: every file changed, killed while a write transaction is open (its rollback journal exists).
    const originals = new Map<string, string>();
    for (const sub of readdirSync(tree)) {
      for (const f of readdirSync(join(tree, sub))) {
        const file = join(tree, sub, f);
        originals.set(file, readFileSync(file, 'utf8'));
        writeFileSync(file, `${originals.get(file)}\n# edited\n`);
      }
    }
    try {
      await killIndexWhen(['index', tree, '--db', db, '--no-embed', '-q', '--workers', '0'], () => existsSync(`${db}-journal`));
      const search = await sift(['search', tree, 'unique_marker_1', '--db', db, '--mode', 'bm25', '--json']);
      expect(search.code, search.stderr).toBe(0);
      const next = await sift(['index', tree, '--db', db, '--no-embed']);
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).not.toMatch(/waiting/); // the dead writer's lock is stale, not busy
      await expectHealthy(db);
    } finally {
      for (const [file, text] of originals) writeFileSync(file, text);
    }
  }, 180_000);

  it('SIGKILL during a bulk load (1,000+ files): the next run resumes; keyword and exact search find every file; FTS5 merges as before', async () => {
    // A cold run of BULK_LOAD_FILES+ files loads the keyword index in bulk mode (no merging,
    // big batches) and defers the trigram index to its end: a kill leaves both half done.
    const big = join(work, 'bulk-tree');
    const n = 1100;
    for (let i = 0; i < n; i++) {
      const sub = join(big, `d${i % 10}`);
      mkdirSync(sub, { recursive: true });
      writeFileSync(join(sub, `m${i}.py`), `def bulk_marker_${i}():\n    return ${i}\n`);
    }
    const db = join(work, 'bulk-killed', 'index.db');
    // Kill after some batches are committed (the file grows past its first pages), mid-run.
    await killIndexWhen(['index', big, '--db', db, '--no-embed', '-q'], () => existsSync(db) && statSync(db).size > 400_000, 5);
    const next = await sift(['index', big, '--db', db, '--no-embed', '--json']);
    expect(next.code, next.stderr).toBe(0);
    const check = await sift(['check', big, '--db', db]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const exact = await sift(['search', big, 'bulk_marker_', '--mode', 'exact', '--limit', '5000', '--db', db, '--json']);
    expect(exact.code, exact.stderr).toBe(0);
    expect((JSON.parse(exact.stdout) as { total_matches: number }).total_matches).toBe(n);
    const one = await sift(['search', big, 'bulk_marker_777', '--mode', 'bm25', '--db', db, '--json']);
    expect((JSON.parse(one.stdout) as { results: Array<{ path: string }> }).results[0]?.path).toBe('d7/m777.py');
    const config = spawnSync('/usr/bin/sqlite3', ['-readonly', db, "SELECT k || '=' || v FROM chunks_fts_config WHERE k IN ('automerge', 'crisismerge') ORDER BY k"], { encoding: 'utf8' });
    expect(config.stdout.trim().split('\n')).toEqual(['automerge=4', 'crisismerge=16']);
  }, 240_000);
});

describe('a damaged page', () => {
  it('sift check and index --verify say corrupt (exit 4); searches answer or say corrupt; rebuild repairs', async () => {
    const healthy = join(work, 'damaged', 'healthy.db');
    await buildIndex(healthy);
    const db = join(work, 'damaged', 'index.db');
    copyFileSync(healthy, db);
    const size = statSync(db).size;
    const fd = openSync(db, 'r+');
    writeSync(fd, randomBytes(4096), 0, 4096, Math.floor(size / 2 / 4096) * 4096);
    closeSync(fd);
    const check = await sift(['check', tree, '--db', db]);
    expect(check.code).toBe(4);
    expect(check.stderr).toMatch(/^sift: the index at .* is corrupt \(.*\); run `sift rebuild .*`\n$/);
    const verify = await sift(['index', tree, '--db', db, '--no-embed', '--verify']);
    expect(verify.code).toBe(4);
    expect(verify.stderr).toMatch(/corrupt/);
    for (const q of ['unique_marker_3', 'handle request retry', 'total attempt']) {
      const r = await sift(['search', tree, q, '--db', db, '--mode', 'bm25', '--json']);
      expect([0, 4], r.stderr).toContain(r.code);
      if (r.code === 4) expect(r.stderr).toMatch(/corrupt/);
    }
    const rebuilt = await sift(['rebuild', tree, '--db', db, '--no-embed', '-q']);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    await expectHealthy(db);
  }, 180_000);
});

describe('--stdin after a fatal error', () => {
  it('exits at once with the error\'s code while stdin stays open', async () => {
    const garbage = join(work, 'garbage.db');
    writeFileSync(garbage, randomBytes(64 * 1024));
    const c = start(['search', tree, '--stdin', '--json', '--db', garbage]);
    c.write('unique_marker_1\n'); // stdin is never closed
    const r = await c.done;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/corrupt \(file is not a database\)/);

    const db = join(work, 'stdin', 'index.db');
    await buildIndex(db);
    const s = start(['search', tree, '--stdin', '--json', '--db', db, '--mode', 'bm25']);
    s.write('unique_marker_2\n');
    while (!s.output().includes('\n')) await sleep(10);
    expect(JSON.parse(s.output()).results[0].symbol).toBe('unique_marker_2');
    // The file is overwritten in place (same inode) while the searcher waits for its next line.
    const fd = openSync(db, 'r+');
    writeSync(fd, randomBytes(statSync(db).size), 0, statSync(db).size, 0);
    closeSync(fd);
    s.write('unique_marker_3\n');
    const r2 = await s.done;
    expect(r2.code).toBe(4);
    expect(r2.stderr).toMatch(/corrupt/);
  }, 120_000);
});

describe('misreports', () => {
  it('a newer schema says update Sift (never rebuild) and is left untouched; an empty --db is no index', async () => {
    const db = join(work, 'newer', 'index.db');
    await buildIndex(db);
    const fd = openSync(db, 'r+');
    const v = Buffer.alloc(4);
    v.writeUInt32BE(999);
    writeSync(fd, v, 0, 4, 60); // PRAGMA user_version lives at offset 60 of the header
    closeSync(fd);
    const before = readFileSync(db);
    for (const args of [['search', tree, 'unique_marker_1'], ['stats', tree], ['index', tree, '--no-embed']]) {
      const r = await sift([...args, '--db', db]);
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr).toMatch(/newer than this Sift.*update Sift/);
      expect(r.stderr).not.toMatch(/rebuild/);
    }
    expect(readFileSync(db).equals(before)).toBe(true);

    const empty = join(work, 'empty.db');
    writeFileSync(empty, '');
    const r = await sift(['search', tree, 'x', '--db', empty]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no index for .*; run `sift index/);
    expect(statSync(empty).size).toBe(0);
  }, 120_000);

  it('control characters in file names never reach the terminal raw', async () => {
    const dir = join(work, 'ctl');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'x\u001b]0;owned\u0007.go'), 'package x\n\n// Owned escapes the title.\nfunc OwnedTitle() int { return 1 }\n');
    // Odd entries are reported for what they are.
    symlinkSync('loop-b', join(dir, 'loop-a'));
    symlinkSync('loop-a', join(dir, 'loop-b'));
    spawnSync('mkfifo', [join(dir, 'pipe')]);
    symlinkSync('pipe', join(dir, 'pipe-link.go'));
    const db = join(work, 'ctl.db');
    const index = await sift(['index', dir, '--db', db, '--no-embed', '--json']);
    expect(index.code, index.stderr).toBe(0);
    const warnings = (JSON.parse(index.stdout) as { warning_details: string[] }).warning_details;
    expect(warnings).toContain('loop-a: unreadable: symlink loop (the link resolves back to itself)');
    if (existsSync(join(dir, 'pipe'))) expect(warnings).toContain('pipe-link.go: unreadable: link to a FIFO, not a regular file');
    const r = await sift(['search', dir, 'OwnedTitle', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('x\\x1b]0;owned\\x07.go');
    // eslint-disable-next-line no-control-regex
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  }, 60_000);
});

/**
 * Root can usually mount a small tmpfs; a trial mount decides (a container may deny it even
 * to root). Elsewhere the full-disk faults are skipped, and say so.
 */
function tryMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'sift-mount-probe-'));
  try {
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status !== 0) return false;
    spawnSync('umount', [probe]);
    return true;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
const canMount = tryMountTmpfs();
if (!canMount) console.warn('reliability: full-disk tests skipped (they mount a tmpfs, which needs root and permission to mount)');

describe.skipIf(!canMount)('a full disk (tmpfs)', () => {
  let mnt: string;
  beforeAll(() => {
    mnt = join(work, 'full');
    mkdirSync(mnt, { recursive: true });
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', mnt]);
    if (m.status !== 0) throw new Error(`mount failed: ${m.stderr}`);
  });
  afterAll(() => {
    spawnSync('umount', [mnt]);
  });

  const fill = (): void => {
    const fd = openSync(join(mnt, 'filler'), 'w');
    const block = Buffer.alloc(4096);
    try {
      for (;;) writeSync(fd, block);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
    } finally {
      closeSync(fd);
    }
  };

  it('a healthy index stays readable and is never called corrupt; a write says how it failed and keeps the index', async () => {
    const src = join(work, 'full-src', 'index.db');
    await buildIndex(src);
    const db = join(mnt, 'index.db');
    copyFileSync(src, db);
    fill();
    const search = await sift(['search', tree, 'unique_marker_7', '--db', db, '--mode', 'bm25', '--json']);
    expect(search.stderr).toBe('');
    expect(search.code).toBe(0);
    expect((JSON.parse(search.stdout) as { results: Array<{ symbol: string }> }).results[0].symbol).toBe('unique_marker_7');
    const stats = await sift(['stats', tree, '--db', db]);
    expect(stats.code, stats.stderr).toBe(0);
    // A change to index with no room: exit 6, a clear line, the index kept.
    writeFileSync(join(tree, 'pkg0', 'added_on_full_disk.py'), `def added_on_full_disk():\n    return "${'x'.repeat(20_000)}"\n`);
    try {
      const index = await sift(['index', tree, '--db', db, '--no-embed']);
      expect(index.code).toBe(6);
      expect(index.stderr).toMatch(/^sift: no space left on the disk of .*\(0 B free\).*the index is kept/);
      expect(index.stderr).not.toMatch(/corrupt|rebuild/);
      rmSync(join(mnt, 'filler'));
      await expectHealthy(db);
    } finally {
      rmSync(join(tree, 'pkg0', 'added_on_full_disk.py'), { force: true });
    }
  }, 180_000);

  it.skipIf(!existsSync(join(TINY, 'config.json')))('hybrid search with no room for the vector cache answers from memory and leaves no temp file', async () => {
    const small = join(work, 'small');
    mkdirSync(small, { recursive: true });
    for (let i = 0; i < 6; i++) writeFileSync(join(small, `m${i}.py`), `def upload_retry_${i}(path):\n    """Retry a failed upload ${i}."""\n    return path\n`);
    const src = join(work, 'small-src', 'index.db');
    const built = await sift(['index', small, '--db', src, '--model', TINY, '-q']);
    expect(built.code, built.stderr).toBe(0);
    const db = join(mnt, 'small.db');
    copyFileSync(src, db); // no vector cache beside it: search must build one
    fill();
    const r = await sift(['search', small, 'retry failed upload', '--db', db, '--model', TINY, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { strategy: string }).strategy).toBe('hybrid');
    expect(readdirSync(mnt).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    rmSync(join(mnt, 'filler'));
  }, 180_000);
});
