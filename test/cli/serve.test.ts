/**
 * The warm server (`sift serve`, src/cli/serve.ts) and its client in bin/sift
 * (src/cli/serve-client.ts): the real bin/sift, the real server process on its Unix socket.
 *
 * What must hold: a served command prints the same bytes and exits with the same code as the
 * same command in-process (SIFT_SERVER=0), timings aside; a server of another version, one that
 * died, one that went idle, or none at all never changes an answer; concurrent clients each get
 * their own answer; an index changed by another process between two searches is answered from
 * its new state; only the user can reach the socket; no server outlives these tests.
 *
 * Every other test runs with SIFT_SERVER=0 (vite.config.ts); here clients run with SIFT_SERVER=use
 * (use a running server, start none) unless a test says otherwise: servers are started on purpose
 * and stopped in afterAll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './run-sift.ts';
import { ask } from '../../src/cli/serve-client.ts';
import { FRAME, frame, type ServeRequest, type ServeStatus } from '../../src/cli/serve-protocol.ts';
import { acquireSessionLock } from '../../src/core/store/lock-node.ts';

const SIFT = join(ROOT, 'bin/sift');
const FIXTURE = join(ROOT, 'test/fixtures/sample-repo');
const TINY = join(ROOT, 'models/generated/tiny');

let work: string;
let home: string;
let repo: string;
/** A copy indexed with the tiny test model: hybrid search with a vector leg. */
let embedded: string;
/** Every server process these tests started or found: killed in afterAll. */
const pids = new Set<number>();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function env(o: { served: boolean; home?: string; extra?: Record<string, string> }): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, SIFT_HOME: o.home ?? home, SIFT_OFFLINE: '1' };
  if (o.served) e.SIFT_SERVER = 'use'; // use a running server, never start one
  else e.SIFT_SERVER = '0';
  return { ...e, ...o.extra };
}

function sift(args: string[], o: { served: boolean; home?: string; extra?: Record<string, string>; cwd?: string }): Run {
  const r = spawnSync(process.execPath, [SIFT, ...args], { encoding: 'utf8', env: env(o), cwd: o.cwd ?? work, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Same as `sift`, without blocking: for concurrent clients. */
function siftAsync(args: string[], o: { served: boolean; home?: string }): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [SIFT, ...args], { env: env(o), cwd: work });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Timings differ from run to run, in-process or not: the JSON `timings` object and the summary's "· N ms". */
function normalized(r: Run): Run {
  const t = (s: string) => s.replace(/"timings": ?\{[^}]*\}/g, '"timings":{}').replace(/· \d+(\.\d+)? ms/g, '· N ms');
  return { code: r.code, stdout: t(r.stdout), stderr: t(r.stderr) };
}

const sockOf = (h: string) => join(h, 'run', 'server.sock');

function req(op: ServeRequest['op'], version = ''): ServeRequest {
  return { op, version, argv: [], cwd: work, env: {}, tty: { stdout: false, stderr: false, columns: null } };
}

async function status(h = home): Promise<ServeStatus | null> {
  if (!existsSync(sockOf(h))) return null;
  const a = await ask(sockOf(h), req('status'));
  return a.kind === 'status' ? a.status : null;
}

async function until<T>(what: string, f: () => Promise<T | null | false> | T | null | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `sift serve` for `h`, in the foreground of a child; resolves when it answers. */
async function startServer(h = home, extra: Record<string, string> = {}): Promise<{ child: ChildProcess; status: ServeStatus }> {
  const child = spawn(process.execPath, [SIFT, 'serve'], { env: env({ served: true, home: h, extra: { SIFT_SERVER_IDLE_S: '300', ...extra } }), stdio: 'ignore' });
  pids.add(child.pid!);
  const s = await until('the server to answer', async () => {
    const st = await status(h);
    return st && st.pid === child.pid ? st : null;
  });
  return { child, status: s };
}

/** The server running for `home`, started when there is none. */
async function ensureServer(): Promise<ServeStatus> {
  return (await status()) ?? (await startServer()).status;
}

function exited(child: ChildProcess, ms = 30_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`server ${child.pid} did not exit within ${ms} ms`)), ms);
    child.on('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}

async function stopAll(): Promise<void> {
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  pids.clear();
}

beforeAll(() => {
  // Clients and servers run from the bundle only: build it when a source changed since.
  const fresh = spawnSync(process.execPath, ['--input-type=module', '-e', `import(${JSON.stringify(join(ROOT, 'dist-cli/client.mjs'))}).then(() => 0, () => process.exit(1))`]);
  const inputs = existsSync(join(ROOT, 'dist-cli/inputs.json'))
    ? (JSON.parse(readFileSync(join(ROOT, 'dist-cli/inputs.json'), 'utf8')) as { inputs: Array<{ path: string; size: number; mtimeMs: number }> }).inputs
    : [];
  const stale = fresh.status !== 0 || inputs.length === 0 || inputs.some((f) => {
    const s = statSync(join(ROOT, f.path), { throwIfNoEntry: false });
    return !s || s.size !== f.size || s.mtimeMs !== f.mtimeMs;
  });
  if (stale) {
    const b = spawnSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs')], { encoding: 'utf8', timeout: 180_000 });
    expect(b.status, b.stderr).toBe(0);
  }
  work = mkdtempSync(join(tmpdir(), 'sift-serve-'));
  home = join(work, 'home');
  repo = join(work, 'repo');
  embedded = join(work, 'embedded');
  cpSync(FIXTURE, repo, { recursive: true });
  cpSync(FIXTURE, embedded, { recursive: true });
  expect(sift(['index', repo, '--no-embed', '-q'], { served: false }).code).toBe(0);
  expect(sift(['index', embedded, '--model', TINY, '-q'], { served: false }).code).toBe(0);
  mkdirSync(join(work, 'unindexed'));
  writeFileSync(join(work, 'garbage.db'), Buffer.alloc(8192, 7));
}, 240_000);

afterAll(async () => {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
});

/** `sift search` argument lists after the folder: text and --json, ranked, exact and regex, errors. */
const MATRIX: Array<{ dir?: () => string; args: string[] }> = [
  { args: ['getUserName'] }, // hybrid asked, no embeddings: a note on stderr
  { args: ['getUserName', '--mode', 'bm25'] },
  { args: ['getUserName', '--mode', 'bm25', '--json'] },
  { args: ['user session token', '--mode', 'bm25', '--explain'] },
  { args: ['user session token', '--mode', 'bm25', '--json', '--explain'] },
  { args: ['parse', '--mode', 'bm25', '--limit', '2'] },
  { args: ['parse', '--lang', 'go', '--json'] },
  { args: ['alloc', '--mode', 'bm25', '--path', 'lib/*'] },
  { args: ['tests for session', '--kind', 'code', '--intent', 'test'] },
  { args: ['zzqqxx nothing here', '--mode', 'bm25'] },
  { args: ['x', '--mode', 'nope'] }, // exit 2
  { args: ['x', '--kind', 'nope'] }, // exit 2
  { args: ['--limit', '-1', 'x'] }, // exit 2 (parseArgs)
  { args: [] }, // missing query: exit 2
  { args: ['func', '--mode', 'exact'] },
  { args: ['func', '--mode', 'exact', '--json'] },
  { args: ['FUNC', '--mode', 'exact', '-i', '--limit', '2'] },
  { args: ['fn\\s+\\w+', '--mode', 'regex'] },
  { args: ['fn\\s+\\w+', '--mode', 'regex', '--json', '--limit', '1'] },
  { args: ['(unclosed', '--mode', 'regex'] }, // bad pattern: exit 2, with a caret
  { args: ['(unclosed', '--mode', 'regex', '--json'] },
  { args: ['user\\.name', '--mode', 'exact'] }, // no match; the regex reading says what it finds
  { args: ['--mode', 'exact', '--', '-> x'] },
  { args: ['--help'] },
  { dir: () => embedded, args: ['getUserName'] }, // hybrid: the vector leg (tiny model)
  { dir: () => embedded, args: ['where is the session user name read', '--json'] },
  { dir: () => embedded, args: ['getUserName', '--mode', 'vector', '--explain'] },
  { dir: () => join(work, 'unindexed'), args: ['x'] }, // no index: exit 3
  { dir: () => join(work, 'unindexed'), args: ['x', '--mode', 'exact'] },
  { dir: () => join(work, 'nope'), args: ['x'] }, // no such folder: exit 2
  { args: ['x', '--db', 'garbage.db'] }, // corrupt: exit 4 (a relative --db: the client's folder)
  { args: ['x', '--mode', 'regex', '--db', 'garbage.db'] },
];

describe('sift serve', () => {
  it('answers every command of the matrix with the bytes and exit code of an in-process run', async () => {
    const { status: before } = await startServer();
    const seen = new Set<number | null>();
    for (const c of MATRIX) {
      const args = ['search', c.dir?.() ?? repo, ...c.args];
      const inProcess = sift(args, { served: false });
      const served = sift(args, { served: true });
      expect(normalized(served), args.join(' ')).toEqual(normalized(inProcess));
      seen.add(inProcess.code);
    }
    expect([...seen].sort()).toEqual([0, 2, 3, 4]);
    // Every one of them was answered by the server (none fell back to running in-process).
    const after = await status();
    expect(after?.pid).toBe(before.pid);
    expect(after!.commands - before.commands).toBe(MATRIX.length);
    expect(after!.indexes.reused).toBeGreaterThan(10);
  }, 600_000);

  it('answers concurrent clients, each its own answer', async () => {
    await ensureServer();
    const before = (await status())!.commands;
    const queries = ['getUserName', 'parse', 'alloc', 'session', 'deploy', 'token'];
    const expected = queries.map((q) => normalized(sift(['search', repo, q, '--mode', 'bm25', '--json'], { served: false })));
    const runs = await Promise.all(queries.map((q) => siftAsync(['search', repo, q, '--mode', 'bm25', '--json'], { served: true })));
    expect(runs.map(normalized)).toEqual(expected);
    expect((await status())!.commands - before).toBe(queries.length);
  }, 120_000);

  it('indexes a small folder as in-process (same summary, same index), and leaves a big folder to the client', async () => {
    await ensureServer();
    const folder = join(work, 'small-index');
    cpSync(FIXTURE, folder, { recursive: true });
    const servedDb = join(work, 'small-served', 'index.db');
    const ownDb = join(work, 'small-own', 'index.db');
    const fresh = () => {
      for (const db of [servedDb, ownDb]) rmSync(join(db, '..'), { recursive: true, force: true });
    };
    // Timings and the index's path differ between the two runs; nothing else may.
    const same = (r: Run, db: string): Run => {
      const t = (x: string) => x.split(db).join('<db>').replace(/in \d+(\.\d+)?s/g, 'in Ns').replace(/"(\w*_ms|ms|seconds|timings)": ?(\{[^}]*\}|[\d.]+)/g, '"$1":0');
      return { code: r.code, stdout: t(r.stdout), stderr: t(r.stderr) };
    };
    const commands = async () => (await status())!.commands;
    for (const extra of [[], ['--json']]) {
      fresh();
      const before = await commands();
      const served = sift(['index', folder, '--no-embed', '--db', servedDb, ...extra], { served: true });
      expect(await commands()).toBe(before + 1);
      const inProcess = sift(['index', folder, '--no-embed', '--db', ownDb, ...extra], { served: false });
      expect(same(served, servedDb)).toEqual(same(inProcess, ownDb));
      expect(served.code).toBe(0);
      for (const q of ['getUserName', 'session token']) {
        const a = sift(['search', folder, q, '--mode', 'bm25', '--json', '--db', servedDb], { served: false });
        const b = sift(['search', folder, q, '--mode', 'bm25', '--json', '--db', ownDb], { served: false });
        expect(normalized(a)).toEqual(normalized(b));
      }
    }
    // A client on a terminal gets the progress lines as they come, apart from the output.
    fresh();
    const lines: string[] = [];
    const st = (await status())!;
    const a = await ask(sockOf(home), { ...req('run', st.version), argv: ['index', folder, '--no-embed', '--db', servedDb], env: { SIFT_HOME: home, SIFT_OFFLINE: '1' }, tty: { stdout: true, stderr: true, columns: 80 } }, { onProgress: (l) => lines.push(l) });
    expect(a.kind).toBe('done');
    expect(lines.some((l) => /files \d+\/\d+/.test(l))).toBe(true);
    expect(lines.at(-1)).toBe('');
    if (a.kind === 'done') expect(Buffer.concat(a.writes.map((w) => w.bytes)).toString()).not.toMatch(/\r|files \d+\/\d+ +chunks/);
    // Indexed again through the server: unchanged.
    expect(sift(['index', folder, '--no-embed', '--db', servedDb], { served: true }).stdout).toMatch(/unchanged/);
    // Another process writing that index: the server does not wait in its queue; the client
    // waits itself, as without a server (here 1 s, then exit 5).
    const lock = await acquireSessionLock(servedDb, { timeoutMs: 0, busy: () => new Error('busy') });
    try {
      const waited = sift(['index', folder, '--no-embed', '--db', servedDb], { served: true, extra: { SIFT_LOCK_TIMEOUT: '1' } });
      expect(waited.code).toBe(5);
      expect(waited.stderr).toContain(`another sift index is writing this index (pid ${process.pid}); waiting up to 1s`);
    } finally {
      lock.release();
    }
    // Over 1,000 entries: run by the client itself (its progress shown as it goes).
    const big = join(work, 'big-index');
    mkdirSync(big);
    for (let i = 0; i < 1001; i++) writeFileSync(join(big, `f${i}.txt`), `line ${i}\n`);
    const before = await commands();
    const r = sift(['index', big, '--no-embed', '-q', '--db', join(work, 'big-own', 'index.db')], { served: true });
    expect(r.code, r.stderr).toBe(0);
    expect(await commands()).toBe(before);
  }, 180_000);

  it('answers from the index as another process left it: updated in place, rebuilt, removed', async () => {
    await ensureServer();
    const search = (q: string) => sift(['search', repo, q, '--mode', 'bm25', '--json'], { served: true });
    const grep = (q: string) => sift(['search', repo, q, '--mode', 'exact'], { served: true });
    expect(JSON.parse(search('zebraFrobnicate').stdout).results).toEqual([]);
    expect(grep('zebraFrobnicate').stdout).toBe('');
    // Another process indexes a new file (the index changes in place).
    writeFileSync(join(repo, 'src', 'zebra.ts'), 'export function zebraFrobnicate(x: number) {\n  return x * 2;\n}\n');
    expect(sift(['index', repo, '--no-embed', '-q'], { served: false }).code).toBe(0);
    expect(JSON.parse(search('zebraFrobnicate').stdout).results[0]).toMatchObject({ path: 'src/zebra.ts', symbol: 'zebraFrobnicate' });
    expect(grep('zebraFrobnicate').stdout).toBe('src/zebra.ts:1:export function zebraFrobnicate(x: number) {\n');
    // `sift rebuild` swaps a new file in.
    writeFileSync(join(repo, 'src', 'zebra.ts'), 'export function mangoWhistle() {}\n');
    expect(sift(['rebuild', repo, '--no-embed', '-q'], { served: false }).code).toBe(0);
    expect(JSON.parse(search('zebraFrobnicate').stdout).results.map((r: { symbol: string }) => r.symbol)).not.toContain('zebraFrobnicate');
    expect(grep('zebraFrobnicate').stdout).toBe('');
    expect(grep('mangoWhistle').stdout).toBe('src/zebra.ts:1:export function mangoWhistle() {}\n');
    for (const q of ['mangoWhistle', 'getUserName']) expect(normalized(search(q))).toEqual(normalized(sift(['search', repo, q, '--mode', 'bm25', '--json'], { served: false })));
    // The index removed: no index (exit 3), as in-process.
    const db = join(home, 'indexes', readdirSync(join(home, 'indexes')).find((d) => existsSync(join(home, 'indexes', d, 'index.db')) && readFileSync(join(home, 'indexes', d, 'index.db')).includes('mangoWhistle'))!, 'index.db');
    rmSync(db);
    const gone = search('mangoWhistle');
    expect(gone.code).toBe(3);
    expect(normalized(gone)).toEqual(normalized(sift(['search', repo, 'mangoWhistle', '--mode', 'bm25', '--json'], { served: false })));
    expect(sift(['index', repo, '--no-embed', '-q'], { served: false }).code).toBe(0);
  }, 180_000);

  it('is reachable by this user only: folder 0700, socket 0600, no TCP listener', async () => {
    const s = (await ensureServer());
    expect(statSync(join(home, 'run')).mode & 0o777).toBe(0o700);
    expect(statSync(sockOf(home)).mode & 0o777).toBe(0o600);
    // Its sockets are none of the system's TCP sockets (listening or not).
    const inodes = readdirSync(`/proc/${s.pid}/fd`).map((fd) => {
      try {
        return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${s.pid}/fd/${fd}`))?.[1];
      } catch {
        return undefined;
      }
    }).filter((x): x is string => !!x);
    expect(inodes.length).toBeGreaterThan(0);
    const tcp = ['tcp', 'tcp6'].flatMap((f) => {
      try {
        return readFileSync(`/proc/net/${f}`, 'utf8').split('\n').slice(1).map((l) => l.trim().split(/\s+/)[9]);
      } catch {
        return [];
      }
    });
    expect(inodes.filter((i) => tcp.includes(i))).toEqual([]);
  });

  it('SIFT_SERVER=0 runs in-process even with a server running', async () => {
    const before = (await ensureServer()).commands;
    expect(sift(['search', repo, 'parse', '--mode', 'bm25'], { served: false }).code).toBe(0);
    expect((await status())!.commands).toBe(before);
  });

  it('a client of another version gets "run it yourself", and the server exits', async () => {
    await stopAll();
    const { child } = await startServer();
    const a = await ask(sockOf(home), { ...req('run', 'another build'), argv: ['search', repo, 'parse'] });
    expect(a).toMatchObject({ kind: 'fallback', restart: true });
    await exited(child);
    expect(existsSync(sockOf(home))).toBe(false);
    // The next client finds no server and answers in-process, the same bytes.
    const r = sift(['search', repo, 'parse', '--mode', 'bm25', '--json'], { served: true });
    expect(normalized(r)).toEqual(normalized(sift(['search', repo, 'parse', '--mode', 'bm25', '--json'], { served: false })));
  }, 120_000);

  it('exits after SIFT_SERVER_IDLE_S without a command, and removes its socket', async () => {
    await stopAll();
    const { child } = await startServer(home, { SIFT_SERVER_IDLE_S: '1' });
    await exited(child, 20_000);
    expect(existsSync(sockOf(home))).toBe(false);
  }, 60_000);

  it('a socket left by a server that died: clients answer in-process, a new server takes it over', async () => {
    await stopAll();
    const { child } = await startServer();
    child.kill('SIGKILL');
    await exited(child);
    expect(existsSync(sockOf(home))).toBe(true); // nobody listens on it now
    const t0 = Date.now();
    const r = sift(['search', repo, 'parse', '--mode', 'exact'], { served: true });
    expect(normalized(r)).toEqual(normalized(sift(['search', repo, 'parse', '--mode', 'exact'], { served: false })));
    expect(Date.now() - t0).toBeLessThan(30_000);
    const { status: s } = await startServer();
    expect(alive(s.pid)).toBe(true);
    expect(normalized(sift(['search', repo, 'parse', '--mode', 'exact'], { served: true }))).toEqual(normalized(r));
    expect((await status())!.commands).toBe(1);
  }, 120_000);

  it('a second server for the same home exits at once and leaves the first serving', async () => {
    const first = (await ensureServer());
    const second = spawn(process.execPath, [SIFT, 'serve'], { env: env({ served: true }), stdio: 'ignore' });
    pids.add(second.pid!);
    expect(await exited(second)).toBe(0);
    expect((await status())!.pid).toBe(first.pid);
  }, 60_000);

  it('a socket path that is not a server (another program listening) is never answered as one', async () => {
    await stopAll();
    const other = join(work, 'other-home');
    mkdirSync(join(other, 'run'), { recursive: true, mode: 0o700 });
    // Something else listens there and never answers: the client gives up and runs the command.
    const squatter = createServer(() => undefined);
    await new Promise<void>((resolve) => squatter.listen(sockOf(other), resolve));
    try {
      const r = sift(['search', repo, 'parse', '--mode', 'bm25'], { served: true, home: other });
      expect(r.code).toBe(3); // this home has no index of repo: answered in-process
      expect(r.stderr).toMatch(/no index for/);
    } finally {
      squatter.close();
    }
  }, 60_000);

  it('a socket in a folder others may enter is never asked, even one that answers like a server', async () => {
    const other = join(work, 'open-home');
    mkdirSync(join(other, 'run'), { recursive: true });
    chmodSync(join(other, 'run'), 0o755);
    // Another user's "server" there would answer anything: it is never asked.
    let asked = 0;
    const spoof = createServer((c) => {
      asked++;
      c.end(Buffer.concat([frame(FRAME.accepted), frame(FRAME.out, 'spoofed\n'), frame(FRAME.exit, JSON.stringify({ code: 0, ms: 1 }))]));
    });
    await new Promise<void>((resolve) => spoof.listen(sockOf(other), resolve));
    try {
      // Not spawnSync: this process must be free to answer if it were asked.
      const r = await siftAsync(['search', repo, 'parse', '--mode', 'bm25'], { served: true, home: other });
      expect(r.stdout).not.toContain('spoofed');
      expect(r.code).toBe(3); // this home has no index of repo: answered in-process
      expect(asked).toBe(0);
    } finally {
      spoof.close();
    }
  }, 60_000);

  it('a client that finds none starts one (SIFT_SERVER=1), detached: the command returns at once', async () => {
    await stopAll();
    const t0 = Date.now();
    const r = sift(['search', repo, 'parse', '--mode', 'bm25'], { served: true, extra: { SIFT_SERVER: '1', SIFT_SERVER_IDLE_S: '300' } });
    expect(r.code).toBe(0);
    // spawnSync returns when the client's stdout/stderr close: the server holds neither.
    expect(Date.now() - t0).toBeLessThan(60_000);
    const s = await until('the started server', () => status());
    pids.add(s.pid);
    // It warmed up with that command (one run), then serves the next one.
    await until('its warm-up', async () => ((await status())?.commands ?? 0) >= 1);
    expect(normalized(sift(['search', repo, 'parse', '--mode', 'bm25'], { served: true }))).toEqual(normalized(r));
    expect((await status())!.commands).toBe(2);
  }, 120_000);
});
