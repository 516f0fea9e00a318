import { describe, expect, it } from 'vitest';
import { FileListSource, MemoryFileSource } from './memory-source.ts';
import type { FileSource } from './types.ts';

const text = async (src: FileSource, path: string) => new TextDecoder().decode(await src.readFile(path));
const list = async (src: FileSource, dir: string) =>
  (await src.readDir(dir)).map((e) => `${e.name}:${e.kind}`).sort();

describe('MemoryFileSource', () => {
  it('lists implicit directories and reads strings and bytes', async () => {
    const src = new MemoryFileSource({ 'a.ts': 'A', 'src/b.ts': 'héllo', 'src/deep/c.bin': Uint8Array.of(1, 2, 3) }, { mtime: 100 });
    expect(await list(src, '')).toEqual(['a.ts:file', 'src:directory']);
    expect(await list(src, 'src')).toEqual(['b.ts:file', 'deep:directory']);
    expect(await text(src, 'src/b.ts')).toBe('héllo');
    expect(await src.stat('src/b.ts')).toEqual({ size: 6, mtime: 100 });
    expect([...(await src.readFile('src/deep/c.bin'))]).toEqual([1, 2, 3]);
  });

  it('returns copies, so callers cannot mutate the stored file', async () => {
    const src = new MemoryFileSource({ 'a.ts': 'A' });
    (await src.readFile('a.ts'))[0] = 0x5a;
    expect(await text(src, 'a.ts')).toBe('A');
  });

  it.each([
    ['missing file', (s: MemoryFileSource) => s.readFile('nope.ts'), /ENOENT|No such/],
    ['missing dir', (s: MemoryFileSource) => s.readDir('nope'), /No such/],
    ['parent traversal', (s: MemoryFileSource) => s.readFile('../etc/passwd'), /Invalid/],
    ['absolute path', (s: MemoryFileSource) => s.stat('/a.ts'), /Invalid/],
    ['dot segment', (s: MemoryFileSource) => s.readDir('./src'), /Invalid/],
  ])('rejects %s', async (_name, op, re) => {
    const src = new MemoryFileSource({ 'a.ts': 'A', 'src/b.ts': 'B' });
    await expect(op(src)).rejects.toThrow(re);
  });

  it('set bumps mtime monotonically and overwrites', async () => {
    const src = new MemoryFileSource({ 'a.ts': 'A' }, { mtime: 10 });
    const t1 = src.set('a.ts', 'AA');
    const t2 = src.set('new/x.ts', 'X');
    expect(t1).toBeGreaterThan(10);
    expect(t2).toBeGreaterThan(t1);
    expect(await src.stat('a.ts')).toEqual({ size: 2, mtime: t1 });
    expect(await list(src, '')).toEqual(['a.ts:file', 'new:directory']);
    expect(src.set('a.ts', 'A3', 5)).toBe(5);
    expect(() => src.set('a.ts/child', 'x')).toThrow(/in the way/);
    expect(() => src.set('new', 'x')).toThrow(/Not a file/);
  });

  it('delete removes files and whole directories, pruning empty parents', async () => {
    const src = new MemoryFileSource({ 'a/b/c.ts': '', 'a/b/d.ts': '', 'a/e.ts': '', 'f.ts': '' });
    expect(src.delete('a/b/c.ts')).toBe(true);
    expect(await list(src, 'a/b')).toEqual(['d.ts:file']);
    expect(src.delete('a')).toBe(true);
    expect(await list(src, '')).toEqual(['f.ts:file']);
    await expect(src.readDir('a')).rejects.toThrow();
    expect(src.delete('a')).toBe(false);
  });

  it('rename moves a file or a directory and keeps content and mtime', async () => {
    const src = new MemoryFileSource({ 'old/x.ts': 'X', 'old/sub/y.ts': 'Y', 'keep.ts': 'K' }, { mtime: 7 });
    src.rename('old/x.ts', 'moved.ts');
    expect(await text(src, 'moved.ts')).toBe('X');
    expect((await src.stat('moved.ts')).mtime).toBe(7);
    src.rename('old', 'new/place');
    expect(src.paths()).toEqual(['keep.ts', 'moved.ts', 'new/place/sub/y.ts']);
    expect(await list(src, '')).toEqual(['keep.ts:file', 'moved.ts:file', 'new:directory']);
    expect(() => src.rename('missing.ts', 'z.ts')).toThrow(/No such/);
    expect(() => src.rename('new', 'new/inner')).toThrow(/Cannot move/);
    expect(() => src.rename('moved.ts', 'new')).toThrow(/exists/);
    expect(src.paths()).toEqual(['keep.ts', 'moved.ts', 'new/place/sub/y.ts']); // failed renames change nothing
  });
});

describe('FileListSource', () => {
  const file = (rel: string, body: string, lastModified = 1234) => {
    const f = new File([body], rel.split('/').pop()!, { lastModified });
    Object.defineProperty(f, 'webkitRelativePath', { value: rel });
    return f;
  };

  it('strips the picked folder name from webkitRelativePath', async () => {
    const src = new FileListSource([file('proj/src/a.ts', 'A'), file('proj/README.md', 'R', 99), file('proj/src/lib/b.ts', 'BB')]);
    expect(src.name).toBe('proj');
    expect(await list(src, '')).toEqual(['README.md:file', 'src:directory']);
    expect(await list(src, 'src')).toEqual(['a.ts:file', 'lib:directory']);
    expect(await text(src, 'src/lib/b.ts')).toBe('BB');
    expect(await src.stat('README.md')).toEqual({ size: 1, mtime: 99 });
    await expect(src.readFile('proj/src/a.ts')).rejects.toThrow(/No such/);
  });

  it('puts a File without a relative path at the root', async () => {
    const src = new FileListSource([new File(['x'], 'lone.ts')]);
    expect(await list(src, '')).toEqual(['lone.ts:file']);
  });
});
