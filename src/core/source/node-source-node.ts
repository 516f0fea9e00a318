/**
 * FileSource over Node's fs (Node-only adapter; the CLI uses it).
 *
 * Invariants: nothing outside the root is ever read or listed — every access resolves
 * the real path (following symlinks) and refuses it unless it stays inside the real
 * root; relative paths are validated (no `..`, `.`, empty or absolute segments).
 * `readDir` reports symlinks as kind 'symlink' without following them; the walker asks
 * `resolveLink` and decides.
 * Directories' real paths are resolved once per source and cached; a file's own path is
 * lstat'ed and followed only when it is a link (a realpath per file was ~60% of a rescan), and
 * read without an lstat: opened with O_NOFOLLOW in its real directory, so a link fails that open
 * and only then is resolved and checked.
 * `{ sync: true }`: the same calls made with Node's synchronous fs (one walk and read runs
 * through without waiting for the event loop: `sift mcp` answering grep from disk while its
 * index run keeps the main thread busy).
 */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';
import type { Stats } from 'node:fs';
import * as nodePath from 'node:path';
import type { DirEntry, EntryKind, FileInfo, FileSource, LinkTarget } from './types.ts';
import { assertRelativePath } from './paths.ts';

/** The fs calls a NodeFileSource makes. */
interface FsCalls {
  lstat(p: string): Promise<Stats>;
  stat(p: string): Promise<Stats>;
  readdir(p: string, o: { withFileTypes: true }): Promise<fs.Dirent[]>;
  readFile(p: string): Promise<Buffer>;
  /** `p` read unless it is a symbolic link (then it rejects: ELOOP, or EMLINK on some BSDs). */
  readFileNoFollow(p: string): Promise<Buffer>;
  /** `use` of readFileNoFollow's bytes, which may be a buffer reused by the next read (NodeFileSource.readFileWith). */
  withFileNoFollow<T>(p: string, use: (bytes: Uint8Array) => T): Promise<T>;
  realpath(p: string): Promise<string>;
}

/** open(2) flags that refuse a symbolic link as the last component; undefined where Node has no O_NOFOLLOW (Windows). */
const NO_FOLLOW = fs.constants.O_NOFOLLOW === undefined ? undefined : fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW;
function noFollow(): number {
  if (NO_FOLLOW === undefined) throw new Error('no O_NOFOLLOW on this platform');
  return NO_FOLLOW;
}

const ASYNC_FS: FsCalls = {
  lstat: fsp.lstat,
  stat: fsp.stat,
  readdir: fsp.readdir,
  readFile: fsp.readFile,
  readFileNoFollow: async (p) => {
    const handle = await fsp.open(p, noFollow());
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  },
  withFileNoFollow: async (p, use) => use(await ASYNC_FS.readFileNoFollow(p)),
  realpath: fsp.realpath,
};

/**
 * The buffer synchronous reads through withFileNoFollow share (nothing runs between such a
 * read and its `use`): a file's bytes without a new buffer each, which on 2 cores was ~20-40 ms
 * of a 900-file, 8 MB read and decode (the allocation and its external-memory accounting). It
 * grows to the largest file read.
 */
let scratch = Buffer.allocUnsafe(1 << 16);

/** The bytes of the open file `fd`, in `scratch` (grown as needed). */
function readIntoScratch(fd: number): Uint8Array {
  const size = fs.fstatSync(fd).size;
  if (scratch.length <= size) scratch = Buffer.allocUnsafe(Math.max(size + 1, scratch.length * 2));
  let n = 0;
  for (;;) {
    const got = fs.readSync(fd, scratch, n, scratch.length - n, null);
    if (got === 0) break;
    n += got;
    if (n === scratch.length) {
      // The file grew since its stat: room for the rest.
      const bigger = Buffer.allocUnsafe(scratch.length * 2);
      scratch.copy(bigger, 0, 0, n);
      scratch = bigger;
    }
  }
  return new Uint8Array(scratch.buffer, scratch.byteOffset, n);
}

const SYNC_FS: FsCalls = {
  lstat: async (p) => fs.lstatSync(p),
  stat: async (p) => fs.statSync(p),
  readdir: async (p, o) => fs.readdirSync(p, o),
  readFile: async (p) => fs.readFileSync(p),
  readFileNoFollow: async (p) => {
    const fd = fs.openSync(p, noFollow());
    try {
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  withFileNoFollow: async (p, use) => {
    const fd = fs.openSync(p, noFollow());
    try {
      return use(readIntoScratch(fd));
    } finally {
      fs.closeSync(fd);
    }
  },
  realpath: async (p) => fs.realpathSync(p),
};

export class NodeFileSource implements FileSource {
  readonly name: string;
  readonly #root: string;
  readonly #fs: FsCalls;
  #realRoot: Promise<string> | null = null;
  readonly #realDirs = new Map<string, Promise<string>>();

  constructor(rootAbsPath: string, o: { sync?: boolean } = {}) {
    this.#root = nodePath.resolve(rootAbsPath);
    this.name = this.#root;
    this.#fs = o.sync ? SYNC_FS : ASYNC_FS;
  }

  async readDir(dir: string): Promise<DirEntry[]> {
    const abs = await this.#inside(dir);
    const dirents = await this.#fs.readdir(abs, { withFileTypes: true });
    return dirents.map((d) => {
      const kind: EntryKind = d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'directory' : d.isFile() ? 'file' : 'other';
      return { name: d.name, kind };
    });
  }

  async stat(path: string): Promise<FileInfo> {
    const { real, lst } = await this.#resolve(path);
    const s = lst && !lst.isSymbolicLink() ? lst : await this.#fs.stat(real);
    return { size: s.size, mtime: Math.trunc(s.mtimeMs) };
  }

  async readFile(path: string): Promise<Uint8Array> {
    const buf = await this.#read(path, (leaf) => this.#fs.readFileNoFollow(leaf));
    // A plain Uint8Array view: callers never depend on Buffer's API.
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /**
   * `use` applied to the bytes of `path` (readFile's rules), which are valid only during the call:
   * a synchronous source reads them into a buffer its next read reuses. `use` must not read.
   */
  async readFileWith<T>(path: string, use: (bytes: Uint8Array) => T): Promise<T> {
    return this.#read(path, (leaf) => this.#fs.withFileNoFollow(leaf, use), use);
  }

  async resolveLink(path: string): Promise<LinkTarget | null> {
    assertRelativePath(path);
    let real: string;
    try {
      real = await this.#fs.realpath(nodePath.join(this.#root, path));
    } catch (e) {
      // A loop is reported as one (the walker skips it as unreadable); dangling → null ("missing").
      if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new Error('symlink loop (the link resolves back to itself)');
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      return null;
    }
    const rel = this.#relativeToRoot(real, await this.#getRealRoot());
    if (rel === null) return null;
    const s = await this.#fs.stat(real);
    if (s.isDirectory()) return { path: rel, kind: 'directory' };
    if (s.isFile()) return { path: rel, kind: 'file' };
    throw new Error(`link to a ${s.isFIFO() ? 'FIFO' : s.isSocket() ? 'socket' : 'device'}, not a regular file`);
  }

  #getRealRoot(): Promise<string> {
    this.#realRoot ??= this.#fs.realpath(this.#root);
    return this.#realRoot;
  }

  /** `/`-separated path of `real` relative to `realRoot`, or null when outside. */
  #relativeToRoot(real: string, realRoot: string): string | null {
    const rel = nodePath.relative(realRoot, real);
    if (rel === '') return '';
    if (rel === '..' || rel.startsWith(`..${nodePath.sep}`) || nodePath.isAbsolute(rel)) return null;
    return rel.split(nodePath.sep).join('/');
  }

  /**
   * The bytes of `rel`: opened in its real directory without following a link (no lstat first:
   * ~20 µs a file); a link is resolved and checked as #inside does, then read.
   */
  async #read<T>(rel: string, noFollow: (leaf: string) => Promise<T>, use?: (bytes: Buffer) => T): Promise<T> {
    assertRelativePath(rel);
    if (rel !== '' && NO_FOLLOW !== undefined) {
      const slash = rel.lastIndexOf('/');
      const leaf = nodePath.join(await this.#realDir(slash < 0 ? '' : rel.slice(0, slash)), rel.slice(slash + 1));
      try {
        return await noFollow(leaf);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ELOOP' && code !== 'EMLINK') throw e;
      }
    }
    const bytes = await this.#fs.readFile(await this.#inside(rel));
    return use ? use(bytes) : (bytes as T);
  }

  /** Absolute real path for `rel`, refusing anything that resolves outside the root. */
  async #inside(rel: string): Promise<string> {
    return (await this.#resolve(rel)).real;
  }

  /** Real path of `rel` (and its lstat when `rel` is a file or link in a real directory). */
  async #resolve(rel: string): Promise<{ real: string; lst: Stats | null }> {
    assertRelativePath(rel);
    if (rel === '') return { real: await this.#getRealRoot(), lst: null };
    const slash = rel.lastIndexOf('/');
    const realDir = await this.#realDir(slash < 0 ? '' : rel.slice(0, slash));
    const leaf = nodePath.join(realDir, rel.slice(slash + 1));
    const lst = await this.#fs.lstat(leaf);
    if (!lst.isSymbolicLink()) return { real: leaf, lst };
    return { real: await this.#checked(rel, await this.#fs.realpath(leaf)), lst };
  }

  #realDir(dir: string): Promise<string> {
    if (dir === '') return this.#getRealRoot();
    let p = this.#realDirs.get(dir);
    if (!p) {
      p = this.#fs.realpath(nodePath.join(this.#root, dir)).then((real) => this.#checked(dir, real));
      p.catch(() => this.#realDirs.delete(dir));
      this.#realDirs.set(dir, p);
    }
    return p;
  }

  async #checked(rel: string, real: string): Promise<string> {
    if (this.#relativeToRoot(real, await this.#getRealRoot()) === null) {
      throw Object.assign(new Error(`Path leaves the source root: ${rel}`), { name: 'PathOutsideRootError', code: 'EOUTSIDE' });
    }
    return real;
  }
}
