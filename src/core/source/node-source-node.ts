/**
 * FileSource over Node's fs (Node-only adapter; the CLI uses it).
 *
 * Invariants: nothing outside the root is ever read or listed — every access resolves
 * the real path (following symlinks) and refuses it unless it stays inside the real
 * root; relative paths are validated (no `..`, `.`, empty or absolute segments).
 * `readDir` reports symlinks as kind 'symlink' without following them; the walker asks
 * `resolveLink` and decides.
 * Directories' real paths are resolved once per source and cached; a file's own path is
 * lstat'ed and followed only when it is a link (a realpath per file was ~60% of a rescan).
 */
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import * as nodePath from 'node:path';
import type { DirEntry, EntryKind, FileInfo, FileSource, LinkTarget } from './types.ts';
import { assertRelativePath } from './paths.ts';

export class NodeFileSource implements FileSource {
  readonly name: string;
  readonly #root: string;
  #realRoot: Promise<string> | null = null;
  readonly #realDirs = new Map<string, Promise<string>>();

  constructor(rootAbsPath: string) {
    this.#root = nodePath.resolve(rootAbsPath);
    this.name = this.#root;
  }

  async readDir(dir: string): Promise<DirEntry[]> {
    const abs = await this.#inside(dir);
    const dirents = await readdir(abs, { withFileTypes: true });
    return dirents.map((d) => {
      const kind: EntryKind = d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'directory' : d.isFile() ? 'file' : 'other';
      return { name: d.name, kind };
    });
  }

  async stat(path: string): Promise<FileInfo> {
    const { real, lst } = await this.#resolve(path);
    const s = lst && !lst.isSymbolicLink() ? lst : await stat(real);
    return { size: s.size, mtime: Math.trunc(s.mtimeMs) };
  }

  async readFile(path: string): Promise<Uint8Array> {
    const buf = await readFile(await this.#inside(path));
    // A plain Uint8Array view: callers never depend on Buffer's API.
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  async resolveLink(path: string): Promise<LinkTarget | null> {
    assertRelativePath(path);
    let real: string;
    try {
      real = await realpath(nodePath.join(this.#root, path));
    } catch (e) {
      // A loop is reported as one (the walker skips it as unreadable); dangling → null ("missing").
      if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new Error('symlink loop (the link resolves back to itself)');
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      return null;
    }
    const rel = this.#relativeToRoot(real, await this.#getRealRoot());
    if (rel === null) return null;
    const s = await stat(real);
    if (s.isDirectory()) return { path: rel, kind: 'directory' };
    if (s.isFile()) return { path: rel, kind: 'file' };
    throw new Error(`link to a ${s.isFIFO() ? 'FIFO' : s.isSocket() ? 'socket' : 'device'}, not a regular file`);
  }

  #getRealRoot(): Promise<string> {
    this.#realRoot ??= realpath(this.#root);
    return this.#realRoot;
  }

  /** `/`-separated path of `real` relative to `realRoot`, or null when outside. */
  #relativeToRoot(real: string, realRoot: string): string | null {
    const rel = nodePath.relative(realRoot, real);
    if (rel === '') return '';
    if (rel === '..' || rel.startsWith(`..${nodePath.sep}`) || nodePath.isAbsolute(rel)) return null;
    return rel.split(nodePath.sep).join('/');
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
    const lst = await lstat(leaf);
    if (!lst.isSymbolicLink()) return { real: leaf, lst };
    return { real: await this.#checked(rel, await realpath(leaf)), lst };
  }

  #realDir(dir: string): Promise<string> {
    if (dir === '') return this.#getRealRoot();
    let p = this.#realDirs.get(dir);
    if (!p) {
      p = realpath(nodePath.join(this.#root, dir)).then((real) => this.#checked(dir, real));
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
