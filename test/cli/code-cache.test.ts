/**
 * The CLI bundle's V8 code cache (src/cli/code-cache.ts, issue 34): a cache is written after a
 * run that had none and used by the next; a stale (other bundle bytes), corrupt or V8-rejected
 * (other flags) one is ignored, the bundle runs all the same, and the next save replaces it; an
 * unwritable first folder falls back to the next. Then bin/sift end to end, when dist-cli is
 * fresh: the second `--help` runs from the cache, with the same output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '../../src/cli/code-cache.ts';
import { ROOT } from './run-sift.ts';

let work: string;
let bundle: string;
let dirs: string[];

// A bundle with enough code that V8 makes a real cache of it.
const SOURCE = `'use strict';
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function words(s) { return s.split(/\\s+/).filter(Boolean).map((w) => w.toLowerCase()); }
module.exports = { answer: () => fib(20) + words('A b C').length, file: __filename };
`;

function cacheFile(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.v8cache'));
  expect(files).toHaveLength(1);
  return join(dir, files[0]);
}

/** Rewrites the payload's SHA-256 in the header after an edit of the payload (so only V8's own check can refuse it). */
function resealed(file: Buffer): Buffer {
  const copy = Buffer.from(file);
  createHash('sha256').update(copy.subarray(72)).digest().copy(copy, 40);
  return copy;
}

/**
 * loadBundle in a new process: within one, V8 finds a script it compiled before in its own
 * compilation cache and never reads the cached data, so V8's verdict on a cache needs a fresh one.
 */
function loadInChild(file: string, group: string, dir: string, save = false): { state: string; answer: number; saved: string | null } {
  // The same command line every time (the loader keys a cache by Node's options too): the rest goes by the environment.
  const code = `import(${JSON.stringify(join(ROOT, 'src/cli/code-cache.ts'))}).then(({ loadBundle }) => {
    const e = process.env;
    const r = loadBundle(e.T_FILE, e.T_GROUP, [e.T_DIR]);
    const answer = r.exports.answer();
    console.log(JSON.stringify({ state: r.state, answer, saved: e.T_SAVE === '1' ? r.save() : null }));
  })`;
  const env = { ...process.env, T_FILE: file, T_GROUP: group, T_DIR: dir, T_SAVE: save ? '1' : '0' };
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', cwd: ROOT, env, timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { state: string; answer: number; saved: string | null };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sift-code-cache-'));
  bundle = join(work, 'main.cjs');
  writeFileSync(bundle, SOURCE);
  dirs = [join(work, 'beside'), join(work, 'home')];
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('code cache loader', () => {
  it('writes a cache after a run without one, and the next run uses it', () => {
    const first = loadBundle<{ answer(): number; file: string }>(bundle, 'g1', dirs);
    expect(first.state).toBe('none');
    expect(first.exports.answer()).toBe(6768);
    expect(first.exports.file).toBe(bundle);
    const written = first.save();
    expect(written).toBe(cacheFile(dirs[0]));
    const second = loadBundle<{ answer(): number }>(bundle, 'g1', dirs);
    expect(second.state).toBe('hit');
    expect(second.exports.answer()).toBe(6768);
    expect(second.save()).toBeNull(); // a used cache is kept as it is
    // Another group (command, V8 flags) has a file of its own.
    expect(loadBundle(bundle, 'g2', dirs).state).toBe('none');
  });

  it('ignores a corrupt or torn cache, runs, and replaces it', () => {
    const g = 'corrupt';
    const dir = join(work, 'corrupt');
    loadBundle(bundle, g, [dir]).save();
    const file = cacheFile(dir);
    const good = readFileSync(file);
    const bad = Buffer.from(good);
    bad[bad.length - 5] ^= 0xff; // a flipped payload byte: the header's SHA-256 no longer matches
    writeFileSync(file, bad);
    const r = loadBundle<{ answer(): number }>(bundle, g, [dir]);
    expect(r.state).toBe('corrupt');
    expect(r.exports.answer()).toBe(6768);
    expect(r.save()).toBe(file);
    expect(loadBundle(bundle, g, [dir]).state).toBe('hit');
    writeFileSync(file, good.subarray(0, 40)); // torn: shorter than its header
    expect(loadBundle(bundle, g, [dir]).state).toBe('stale');
    writeFileSync(file, Buffer.alloc(0));
    expect(loadBundle(bundle, g, [dir]).state).toBe('stale');
  });

  it('refuses a cache V8 rejects (other V8 flags) and one of other bundle bytes of the same length', () => {
    const g = 'rejected';
    const dir = join(work, 'rejected');
    expect(loadInChild(bundle, g, dir, true)).toMatchObject({ state: 'none', answer: 6768 });
    const file = cacheFile(dir);
    expect(loadInChild(bundle, g, dir)).toMatchObject({ state: 'hit', answer: 6768 });
    const good = readFileSync(file);
    const other = Buffer.from(good);
    other[72 + 12] ^= 0xff; // V8's own header: its flag hash, as if made under other V8 flags
    writeFileSync(file, resealed(other));
    expect(loadInChild(bundle, g, dir, true)).toMatchObject({ state: 'rejected', answer: 6768, saved: file });
    expect(loadInChild(bundle, g, dir)).toMatchObject({ state: 'hit', answer: 6768 });
    // The same length, other bytes: V8 alone would take the cache (of the source it checks the
    // length); the header names the bytes, so it is stale, and the other bundle's code runs.
    const edited = join(dir, 'main.cjs');
    writeFileSync(edited, SOURCE.replace('fib(20)', 'fib(21)'));
    expect(readFileSync(edited).length).toBe(Buffer.byteLength(SOURCE));
    expect(loadInChild(edited, g, dir, true)).toMatchObject({ state: 'stale', answer: 10949, saved: file });
    expect(loadInChild(bundle, g, dir)).toMatchObject({ state: 'stale', answer: 6768 });
  }, 60_000);

  it('falls back to the next folder when the first cannot be written', () => {
    const blocked = join(work, 'a-file');
    writeFileSync(blocked, 'not a folder');
    const to = [join(blocked, 'code-cache'), join(work, 'fallback')];
    const r = loadBundle(bundle, 'ro', to);
    expect(r.state).toBe('none');
    expect(r.save()).toBe(cacheFile(to[1]));
    expect(loadBundle(bundle, 'ro', to).state).toBe('hit');
  });
});

/** True when dist-cli holds a build of the current sources (bin/sift would run it). */
function distFresh(): boolean {
  const inputsFile = join(ROOT, 'dist-cli/inputs.json');
  if (!existsSync(inputsFile) || !existsSync(join(ROOT, 'dist-cli/main.cjs'))) return false;
  const { inputs } = JSON.parse(readFileSync(inputsFile, 'utf8')) as { inputs: Array<{ path: string; size: number; mtimeMs: number }> };
  return inputs.length > 0 && inputs.every((f) => {
    const s = statSync(join(ROOT, f.path), { throwIfNoEntry: false });
    return !!s && s.size === f.size && s.mtimeMs === f.mtimeMs;
  });
}

describe.skipIf(!distFresh())('bin/sift with the code cache (dist-cli fresh)', () => {
  it('runs --help from the cache on its second run, with the same output, and without it when told', () => {
    // This NODE_OPTIONS makes a cache of its own (another V8 flag set): the first run has none.
    const env = { ...process.env, SIFT_HOME: join(work, 'sift-home'), SIFT_SERVER: '0', SIFT_TRACE: '1', NODE_OPTIONS: `--max-old-space-size=${4000 + (process.pid % 5000)}` };
    const sift = (extra: Record<string, string> = {}) => spawnSync(process.execPath, [join(ROOT, 'bin/sift'), '--help'], { encoding: 'utf8', env: { ...env, ...extra } });
    const a = sift();
    const b = sift();
    const off = sift({ SIFT_CODE_CACHE: '0' });
    for (const r of [a, b, off]) expect(r.status, r.stderr).toBe(0);
    expect(a.stderr).toMatch(/modules loaded \(code cache: (none|stale|corrupt|rejected)\)/);
    expect(a.stderr).toContain('code cache written');
    expect(b.stderr).toContain('modules loaded (code cache: hit)');
    expect(b.stderr).not.toContain('code cache written');
    expect(off.stderr).toMatch(/modules loaded\n/);
    expect(b.stdout).toBe(a.stdout);
    expect(off.stdout).toBe(a.stdout);
    expect(a.stdout).toContain('sift mcp');
    const written = /code cache written \((.+)\)/.exec(a.stderr)?.[1];
    expect(written && existsSync(written)).toBe(true);
    rmSync(written!);
  });
});
