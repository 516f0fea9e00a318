import { mkdtemp, mkdir, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryFileSource } from '../source/memory-source.ts';
import { NodeFileSource } from '../source/node-source-node.ts';
import type { FileSource } from '../source/types.ts';
import { isProbablyBinary, rebaseIgnorePatterns, walk, type WalkOptions, type WalkSkip } from './walker.ts';

async function run(source: FileSource, opts: WalkOptions = {}): Promise<{ files: string[]; skips: WalkSkip[] }> {
  const files: string[] = [];
  const skips: WalkSkip[] = [];
  for await (const f of walk(source, { ...opts, onSkip: (s) => skips.push(s) })) files.push(f.path);
  return { files, skips };
}

const reasonOf = (skips: WalkSkip[], path: string) => skips.find((s) => s.path === path)?.reason;

describe('rebaseIgnorePatterns', () => {
  it.each([
    ['foo', 'a', ['a/**/foo']],
    ['foo/', 'a', ['a/**/foo/']],
    ['/foo', 'a/b', ['a/b/foo']],
    ['x/*.js', 'a', ['a/x/*.js']],
    ['!keep.log', 'a', ['!a/**/keep.log']],
    ['**/gen', 'a', ['a/**/gen']],
    ['# comment\n\n*.tmp\r\n', 'a', ['a/**/*.tmp']],
    ['foo', '', ['foo']],
    ['foo', 'we[ir]d*', ['we\\[ir\\]d\\*/**/foo']],
    ['/', 'a', []],
  ])('%j in %j', (text, dir, expected) => {
    expect(rebaseIgnorePatterns(text, dir)).toEqual(expected);
  });
});

describe('walk: ignore semantics over a memory source', () => {
  const cases: Array<{ name: string; files: Record<string, string>; opts?: WalkOptions; yes: string[]; no: Record<string, WalkSkip['reason']> }> = [
    {
      name: 'defaults ignore node_modules, build outputs, lock files; dir reported once',
      files: { 'a.ts': '', 'node_modules/x/i.js': '', 'node_modules/y.js': '', 'dist/b.js': '', 'package-lock.json': '', 'x.min.js': '' },
      yes: ['a.ts'],
      no: { node_modules: 'ignored', dist: 'ignored', 'package-lock.json': 'ignored', 'x.min.js': 'ignored' },
    },
    {
      // Build outputs sit at the root (a nested one is in the project's .gitignore); a source
      // folder of that name deeper down is code: Go's go/build and cmd/dist, Linux's include/target.
      name: 'build output folders are skipped at the root only',
      files: { 'build/out.js': '', 'target/debug/x.rs': '', 'dist/b.js': '', 'go/build/build.go': '', 'cmd/dist/main.go': '', 'include/target/core.h': '', 'node_modules/y.js': '', 'lib/node_modules/z.js': '' },
      yes: ['cmd/dist/main.go', 'go/build/build.go', 'include/target/core.h'],
      no: { build: 'ignored', target: 'ignored', dist: 'ignored', node_modules: 'ignored', 'lib/node_modules': 'ignored' },
    },
    {
      // A folder named venv is as often a package (CPython's Lib/venv); an environment is told by
      // its pyvenv.cfg or conda-meta/, whatever its name.
      name: 'Python environments are skipped by their contents, a venv package is source',
      files: {
        'Lib/venv/__init__.py': 'def create(): pass', 'Lib/venv/scripts/common/activate': '',
        'venv/pyvenv.cfg': 'home = /usr/bin', 'venv/lib/python3.11/site-packages/x.py': '',
        'tools/env311/pyvenv.cfg': '', 'tools/env311/bin/activate': '',
        'conda/conda-meta/history': '', 'conda/lib/y.py': '', 'src/pyvenv.cfg.md': '',
        '.venv/lib/z.py': '',
      },
      yes: ['Lib/venv/__init__.py', 'Lib/venv/scripts/common/activate', 'src/pyvenv.cfg.md'],
      no: { venv: 'ignored', 'tools/env311': 'ignored', conda: 'ignored', '.venv': 'ignored' },
    },
    {
      name: 'root .gitignore with negation and dir-only pattern',
      files: {
        '.gitignore': '*.gen.ts\n!keep.gen.ts\nout/\n',
        'a.gen.ts': '', 'keep.gen.ts': '', 'src/b.gen.ts': '', 'out/c.ts': '', 'src/out': 'file named out',
        'src/out.ts': '',
      },
      yes: ['.gitignore', 'keep.gen.ts', 'src/out', 'src/out.ts'],
      no: { 'a.gen.ts': 'ignored', 'src/b.gen.ts': 'ignored', out: 'ignored' },
    },
    {
      name: 'nested .gitignore is relative to its directory, at several depths',
      files: {
        'lib/.gitignore': '/local.ts\ntmp/\n',
        'lib/deep/.gitignore': '*.py\n!ok.py\n',
        'local.ts': '', 'lib/local.ts': '', 'lib/sub/local.ts': '', 'lib/tmp/a.ts': '', 'tmp/a.ts': '',
        'lib/deep/x.py': '', 'lib/deep/ok.py': '', 'lib/deep/more/y.py': '', 'lib/z.py': '',
      },
      yes: ['lib/.gitignore', 'lib/deep/.gitignore', 'lib/deep/ok.py', 'lib/sub/local.ts', 'lib/z.py', 'local.ts', 'tmp/a.ts'],
      no: { 'lib/local.ts': 'ignored', 'lib/tmp': 'ignored', 'lib/deep/x.py': 'ignored', 'lib/deep/more/y.py': 'ignored' },
    },
    {
      name: 'deeper .gitignore re-includes what a parent excluded; parent-excluded dir stops descent',
      files: {
        '.gitignore': '*.md\ngone/\n',
        'docs/.gitignore': '!*.md\n',
        'a.md': '', 'docs/b.md': '', 'gone/.gitignore': '!*\n', 'gone/c.ts': '',
      },
      yes: ['.gitignore', 'docs/.gitignore', 'docs/b.md'],
      no: { 'a.md': 'ignored', gone: 'ignored' },
    },
    {
      name: '.siftignore applies after every .gitignore: re-includes and excludes',
      files: {
        '.gitignore': 'vendor/\n', 'sub/.gitignore': 'gen.ts\n',
        '.siftignore': '!vendor/\n!sub/gen.ts\nsub/noise.ts\n',
        'vendor/v.ts': '', 'sub/gen.ts': '', 'sub/noise.ts': '', 'sub/real.ts': '',
      },
      yes: ['.gitignore', '.siftignore', 'sub/.gitignore', 'sub/gen.ts', 'sub/real.ts', 'vendor/v.ts'],
      no: { 'sub/noise.ts': 'ignored' },
    },
    {
      name: '.siftignore can re-include a default-ignored directory',
      files: { '.siftignore': '!build/\n', 'build/gen.ts': '' },
      yes: ['.siftignore', 'build/gen.ts'],
      no: {},
    },
    {
      name: 'extraIgnore (CLI --ignore) applies last',
      files: { 'a.ts': '', 'test/b.ts': '', 'c.spec.ts': '' },
      opts: { extraIgnore: ['test/', '*.spec.ts'] },
      yes: ['a.ts'],
      no: { test: 'ignored', 'c.spec.ts': 'ignored' },
    },
    {
      name: 'secrets are skipped even when re-included, examples are not secrets',
      files: {
        '.siftignore': '!.env\n', '.env': 'K=1', '.env.local': 'K=2', '.env.example': 'K=', 'certs/site.pem': '',
        'home/id_rsa': '', 'home/id_rsa.pub': '', 'credentials.json': '{}', 'config.json': '{}',
      },
      yes: ['.env.example', '.siftignore', 'config.json'],
      no: { '.env': 'secret', '.env.local': 'secret', 'certs/site.pem': 'secret', 'home/id_rsa': 'secret', 'home/id_rsa.pub': 'secret', 'credentials.json': 'secret' },
    },
    {
      name: 'every file whatever its extension, or none; known binary extensions (any case) are skipped unread',
      files: {
        'a.TS': '', 'Makefile': '', 'makefile.bak': '', 'Dockerfile': '', 'LICENSE': '', 'lib/plug.ex': 'defmodule Plug do\nend\n',
        'src/Main.hs': 'main = pure ()\n', 'build.zig': 'const std = @import("std");\n', 'bin/run': '#!/bin/sh\necho hi\n',
        'data.unknownext': 'text', 'notes.docx': '', 'img/logo.png': '', 'Photo.JPG': '', 'fonts/a.woff2': '', 'x.tar.gz': '',
        'art/logo.ai': '%PDF-1.6\n<?xpacket begin=',
      },
      yes: ['Dockerfile', 'LICENSE', 'Makefile', 'a.TS', 'bin/run', 'build.zig', 'data.unknownext', 'lib/plug.ex', 'makefile.bak', 'src/Main.hs'],
      no: { 'notes.docx': 'binary', 'img/logo.png': 'binary', 'Photo.JPG': 'binary', 'fonts/a.woff2': 'binary', 'x.tar.gz': 'binary', 'art/logo.ai': 'binary' },
    },
    {
      name: 'include: only matching files (a pattern may name a folder); ignore rules and secrets still apply first',
      files: {
        'lib/plug.ex': '', 'lib/conn.exs': '', 'lib/deep/router.ex': '', 'README.md': '', 'docs/guide.md': '', 'docs/img/a.png': '',
        'deps/x.ex': '', '.gitignore': 'deps/\n', 'docs/.env': 'K=1', 'mix.exs': '',
      },
      opts: { include: ['*.ex', 'docs/'] },
      yes: ['docs/guide.md', 'lib/deep/router.ex', 'lib/plug.ex'],
      no: { 'lib/conn.exs': 'not-included', 'README.md': 'not-included', 'mix.exs': 'not-included', '.gitignore': 'not-included', deps: 'ignored', 'docs/.env': 'secret', 'docs/img/a.png': 'binary' },
    },
    {
      name: 'include and exclude together: exclude (extraIgnore) wins, and prunes folders',
      files: { 'src/a.go': '', 'src/gen/b.go': '', 'src/a_test.go': '', 'tools/c.go': '' },
      opts: { include: ['src/'], extraIgnore: ['src/gen/', '*_test.go'] },
      yes: ['src/a.go'],
      no: { 'src/gen': 'ignored', 'src/a_test.go': 'ignored', 'tools/c.go': 'not-included' },
    },
    {
      name: 'too-large by stat size',
      files: { 'small.ts': 'x'.repeat(10), 'big.ts': 'x'.repeat(11) },
      opts: { maxFileSize: 10 },
      yes: ['small.ts'],
      no: { 'big.ts': 'too-large' },
    },
  ];

  it.each(cases)('$name', async ({ files, opts, yes, no }) => {
    const { files: got, skips } = await run(new MemoryFileSource(files, { mtime: 1 }), opts);
    expect([...got].sort()).toEqual([...yes].sort());
    for (const [path, reason] of Object.entries(no)) expect(reasonOf(skips, path), path).toBe(reason);
  });

  it('skips a .png without reading or stat-ing it, and says why', async () => {
    const mem = new MemoryFileSource({ 'logo.png': 'not really a png', 'a.ts': '' });
    const touched: string[] = [];
    const spy: FileSource = {
      name: mem.name,
      readDir: (p) => mem.readDir(p),
      readFile: (p) => (touched.push(`read ${p}`), mem.readFile(p)),
      stat: (p) => (touched.push(`stat ${p}`), mem.stat(p)),
    };
    const { files, skips } = await run(spy);
    expect(files).toEqual(['a.ts']);
    expect(skips).toEqual([{ path: 'logo.png', reason: 'binary', detail: '.png file, not read' }]);
    expect(touched).toEqual(['stat a.ts']);
  });

  it('reports an ignored directory once, not its contents', async () => {
    const files = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`node_modules/p${i}/index.js`, '']));
    const { skips } = await run(new MemoryFileSource({ ...files, 'a.ts': '' }));
    expect(skips).toEqual([{ path: 'node_modules', reason: 'ignored', directory: true }]);
  });

  it('yields in deterministic depth-first name order with size and mtime', async () => {
    const src = new MemoryFileSource({ 'b/z.ts': '12', 'b/a.ts': '1', 'a.ts': '', 'B.ts': '', 'b.ts': '' }, { mtime: 42 });
    const out = [];
    for await (const f of walk(src)) out.push(f);
    expect(out.map((f) => f.path)).toEqual(['B.ts', 'a.ts', 'b/a.ts', 'b/z.ts', 'b.ts']);
    expect(out[3]).toEqual({ path: 'b/z.ts', size: 2, mtime: 42 });
  });

  it('throws AbortError when the signal fires', async () => {
    const src = new MemoryFileSource(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}.ts`, ''])));
    const ctl = new AbortController();
    const seen: string[] = [];
    const err = await (async () => {
      for await (const f of walk(src, { signal: ctl.signal })) {
        seen.push(f.path);
        if (seen.length === 3) ctl.abort();
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DOMException);
    expect((err as DOMException).name).toBe('AbortError');
    expect(seen).toHaveLength(3);
  });

  it('reports an unreadable directory or file and keeps walking', async () => {
    class FlakySource extends MemoryFileSource {
      override async readDir(dir: string) {
        if (dir === 'locked') throw Object.assign(new Error('permission denied'), { code: 'EACCES' });
        return super.readDir(dir);
      }
      override async stat(path: string) {
        if (path === 'gone.ts') throw Object.assign(new Error('vanished'), { code: 'ENOENT' });
        return super.stat(path);
      }
    }
    const { files, skips } = await run(new FlakySource({ 'locked/a.ts': '', 'gone.ts': '', 'z.ts': '' }));
    expect(files).toEqual(['z.ts']);
    expect(skips).toEqual([
      { path: 'gone.ts', reason: 'unreadable', detail: 'ENOENT: vanished' },
      { path: 'locked', reason: 'unreadable', detail: 'EACCES: permission denied', directory: true },
    ]);
  });

  it('throws when the root itself cannot be listed', async () => {
    await expect(run(new NodeFileSource(join(tmpdir(), 'sift-does-not-exist-' + Date.now())))).rejects.toThrow(/ENOENT/);
  });
});

describe('walk: symlinks and unreadable directories on a real temp dir', () => {
  let root: string;
  let outside: string;

  beforeAll(async () => {
    const base = await mkdtemp(join(tmpdir(), 'sift-walk-'));
    root = join(base, 'repo');
    outside = join(base, 'outside');
    await mkdir(join(root, 'src/inner'), { recursive: true });
    await mkdir(join(root, 'shared'), { recursive: true });
    await mkdir(join(root, 'node_modules/dep'), { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(root, 'src/a.ts'), 'export const a = 1;\n');
    await writeFile(join(root, 'src/inner/b.ts'), 'export const b = 2;\n');
    await writeFile(join(root, 'shared/s.ts'), 'export const s = 3;\n');
    await writeFile(join(root, 'node_modules/dep/d.ts'), 'export const d = 4;\n');
    await writeFile(join(outside, 'secret.ts'), 'export const leak = true;\n');
    await writeFile(join(root, '.env.real'), 'TOKEN=1\n');
    await symlink(join(outside, 'secret.ts'), join(root, 'src/out-file.ts')); // leaves the root
    await symlink(outside, join(root, 'src/out-dir')); // leaves the root
    await symlink(join(root, 'nope.ts'), join(root, 'src/dangling.ts')); // dangles
    await symlink('..', join(root, 'src/inner/up')); // loop to an ancestor
    await symlink('.', join(root, 'self')); // loop to the root
    await symlink('../node_modules/dep', join(root, 'src/dep-link')); // inside, target ignored where it lives
    await symlink('a.ts', join(root, 'src/a-alias.ts')); // duplicate of a real file
    await symlink('../shared', join(root, 'src/shared-link')); // duplicate of a real dir
    await symlink('.env.real', join(root, 'config.ts')); // link to a secret
    await mkdir(join(root, 'locked'));
    await writeFile(join(root, 'locked/x.ts'), '');
    await chmod(join(root, 'locked'), 0o000);
  });

  afterAll(async () => {
    await chmod(join(root, 'locked'), 0o755).catch(() => {});
    await rm(join(root, '..'), { recursive: true, force: true });
  });

  it('follows links inside the root, never outside, and terminates on loops', async () => {
    const { files, skips } = await run(new NodeFileSource(root));
    expect(files).toContain('src/dep-link/d.ts'); // followed: target inside the root
    expect(files).not.toContain('src/a-alias.ts');
    expect(files.some((f) => f.includes('out-') || f.startsWith('self/') || f.includes('/up/'))).toBe(false);
    expect(new Set(files).size).toBe(files.length);
    expect(reasonOf(skips, 'src/out-file.ts')).toBe('link-outside');
    expect(reasonOf(skips, 'src/out-dir')).toBe('link-outside');
    expect(reasonOf(skips, 'src/dangling.ts')).toBe('link-outside');
    expect(reasonOf(skips, 'src/inner/up')).toBe('link-loop');
    expect(reasonOf(skips, 'self')).toBe('link-loop');
    expect(reasonOf(skips, 'src/a-alias.ts')).toBe('link-loop');
    expect(reasonOf(skips, 'src/shared-link')).toBe('link-loop');
    expect(reasonOf(skips, 'config.ts')).toBe('secret');
    expect(reasonOf(skips, '.env.real')).toBe('secret');
    if (process.getuid?.() !== 0) {
      // root ignores permissions; as a normal user the locked dir is reported and skipped
      expect(reasonOf(skips, 'locked')).toBe('unreadable');
      expect(files).not.toContain('locked/x.ts');
    }
    // Real tree first (sorted), then links in the order met.
    expect(files.filter((f) => !f.startsWith('locked/')).slice(0, 3)).toEqual(['shared/s.ts', 'src/a.ts', 'src/inner/b.ts']);
  });
});

describe('isProbablyBinary', () => {
  const enc = new TextEncoder();
  it.each<[string, Uint8Array, boolean]>([
    ['empty', new Uint8Array(0), false],
    ['ascii code', enc.encode('function f() {\n\treturn 1;\r\n}\n'), false],
    ['utf-8 text', enc.encode('héllo wörld — ✓ 日本語'), false],
    ['ansi log', enc.encode('\x1b[31merror\x1b[0m\n'.repeat(50)), false],
    ['NUL byte', Uint8Array.of(0x61, 0x62, 0x00, 0x63), true],
    ['UTF-16LE with BOM', Uint8Array.of(0xff, 0xfe, 0x61, 0x00, 0x62, 0x00), false],
    ['UTF-16BE with BOM', Uint8Array.of(0xfe, 0xff, 0x00, 0x61, 0x00, 0x62), false],
    ['many control bytes', Uint8Array.from({ length: 100 }, (_, i) => (i % 4 === 0 ? 0x01 : 0x41)), true],
    ['few control bytes', Uint8Array.from({ length: 100 }, (_, i) => (i === 5 ? 0x01 : 0x41)), false],
    ['NUL after 8 KB is not seen', (() => { const b = new Uint8Array(9000).fill(0x41); b[8500] = 0; return b; })(), false],
  ])('%s', (_name, bytes, expected) => {
    expect(isProbablyBinary(bytes)).toBe(expected);
  });
});

describe('walk: stats ahead', () => {
  it('overlaps stats, never stats secret/ignored/binary-named files, and keeps the sequential result', async () => {
    const files: Record<string, string> = { '.gitignore': 'gen/\n*.tmp\n', '.env': 'S=1', 'gen/x.ts': '', 'a.tmp': '', 'img.png': '' };
    for (let i = 0; i < 100; i++) files[`src/f${String(i).padStart(3, '0')}.ts`] = 'x';
    const mem = new MemoryFileSource(files);
    let inFlight = 0;
    let maxInFlight = 0;
    const statted: string[] = [];
    const slow: FileSource = {
      name: mem.name,
      readDir: (p) => mem.readDir(p),
      readFile: (p) => mem.readFile(p),
      stat: async (p) => {
        statted.push(p);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return mem.stat(p);
      },
    };
    const got = await run(slow);
    const want = await run(mem);
    expect(got).toEqual(want);
    expect(got.files.length).toBe(101); // and .gitignore
    expect(maxInFlight).toBeGreaterThan(8);
    expect(statted.filter((p) => /\.env|gen\/|\.tmp|\.png/.test(p))).toEqual([]);
    expect(new Set(statted).size).toBe(statted.length); // each file stat'ed once
  });
});
