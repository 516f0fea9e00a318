import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeFileSource } from './node-source-node.ts';

describe('NodeFileSource', () => {
  let base: string;
  let root: string;
  let src: NodeFileSource;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'sift-src-'));
    root = join(base, 'repo');
    await mkdir(join(root, 'dir/sub'), { recursive: true });
    await mkdir(join(base, 'outside'));
    await writeFile(join(root, 'dir/a.ts'), 'const a = 1;\n');
    await writeFile(join(base, 'outside/leak.txt'), 'secret');
    await symlink('a.ts', join(root, 'dir/link-file'));
    await symlink('sub', join(root, 'dir/link-dir'));
    await symlink('..', join(root, 'dir/link-root'));
    await symlink(join(base, 'outside/leak.txt'), join(root, 'dir/link-out'));
    await symlink(join(base, 'outside'), join(root, 'dir/link-out-dir'));
    await symlink('missing', join(root, 'dir/link-dangling'));
    src = new NodeFileSource(root);
  });

  afterAll(() => rm(base, { recursive: true, force: true }));

  it('lists entries with kinds, symlinks unfollowed', async () => {
    const entries = (await src.readDir('dir')).map((e) => `${e.name}:${e.kind}`).sort();
    expect(entries).toEqual([
      'a.ts:file', 'link-dangling:symlink', 'link-dir:symlink', 'link-file:symlink', 'link-out-dir:symlink',
      'link-out:symlink', 'link-root:symlink', 'sub:directory',
    ]);
    expect(src.name).toBe(root);
  });

  it('reads and stats files as plain Uint8Array', async () => {
    const bytes = await src.readFile('dir/a.ts');
    expect(Object.getPrototypeOf(bytes)).toBe(Uint8Array.prototype);
    expect(new TextDecoder().decode(bytes)).toBe('const a = 1;\n');
    const info = await src.stat('dir/a.ts');
    expect(info.size).toBe(13);
    expect(Number.isInteger(info.mtime) && info.mtime > 0).toBe(true);
  });

  it.each([false, true])('reads through links that stay inside and refuses those that leave (sync %s)', async (sync) => {
    const s = new NodeFileSource(root, { sync });
    expect(new TextDecoder().decode(await s.readFile('dir/link-file'))).toBe('const a = 1;\n');
    expect(new TextDecoder().decode(await s.readFile('dir/link-root/dir/a.ts'))).toBe('const a = 1;\n');
    await expect(s.readFile('dir/link-out')).rejects.toThrow(/leaves the source root/);
    await expect(s.readFile('dir/link-out-dir/leak.txt')).rejects.toThrow(/leaves the source root/);
    await expect(s.readFile('dir/link-dangling')).rejects.toThrow(/ENOENT/);
    await expect(s.readFile('dir/sub')).rejects.toThrow(/EISDIR/);
  });

  it.each([false, true])('readFileWith hands each file\'s own bytes to its use, small after big after small (sync %s)', async (sync) => {
    const s = new NodeFileSource(root, { sync });
    const big = 'x'.repeat(300_000) + 'END';
    await writeFile(join(root, 'dir/sub/big.txt'), big);
    const text = (path: string) => s.readFileWith(path, (b) => new TextDecoder().decode(b));
    for (let round = 0; round < 2; round++) {
      expect(await text('dir/a.ts')).toBe('const a = 1;\n');
      expect(await text('dir/sub/big.txt')).toBe(big);
      expect(await text('dir/link-file')).toBe('const a = 1;\n');
    }
    // Reads started together each see their own file.
    expect(await Promise.all(['dir/sub/big.txt', 'dir/a.ts', 'dir/sub/big.txt'].map(text))).toEqual([big, 'const a = 1;\n', big]);
    await expect(s.readFileWith('dir/link-out', (b) => b.length)).rejects.toThrow(/leaves the source root/);
    await expect(s.readFileWith('dir/nope.ts', (b) => b.length)).rejects.toThrow(/ENOENT/);
  });

  it.each([
    ['dir/link-file', { path: 'dir/a.ts', kind: 'file' }],
    ['dir/link-dir', { path: 'dir/sub', kind: 'directory' }],
    ['dir/link-root', { path: '', kind: 'directory' }],
    ['dir/link-out', null],
    ['dir/link-out-dir', null],
    ['dir/link-dangling', null],
  ])('resolveLink(%s)', async (path, expected) => {
    expect(await src.resolveLink(path)).toEqual(expected);
  });

  it.each([
    ['read through a link that leaves the root', () => src.readFile('dir/link-out'), /leaves the source root/],
    ['list through a link that leaves the root', () => src.readDir('dir/link-out-dir'), /leaves the source root/],
    ['parent traversal', () => src.readFile('../outside/leak.txt'), /Invalid/],
    ['absolute path', () => src.stat('/etc/passwd'), /Invalid/],
    ['missing file', () => src.readFile('dir/nope.ts'), /ENOENT/],
  ])('refuses: %s', async (_name, op, re) => {
    await expect(op()).rejects.toThrow(re);
  });
});
