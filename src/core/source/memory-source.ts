/**
 * In-memory FileSources: `MemoryFileSource` (tests, incremental-indexing scenarios) and
 * `FileListSource` (the `<input webkitdirectory>` fallback: a `File[]` whose
 * `webkitRelativePath` starts with the picked folder's name, which is stripped).
 *
 * Invariants: directories exist only as ancestors of files (no empty directories);
 * the directory index is updated on every change, so `readDir` is O(children);
 * strings are stored as UTF-8 bytes; there are no symlinks.
 * In `MemoryFileSource`, each `set` gives the file an mtime strictly greater than any
 * mtime handed out before (a logical clock starting at `opts.mtime`), so mtime-based
 * change detection sees every write; `rename` keeps content and mtime, like a real fs.
 */
import type { DirEntry, FileInfo, FileSource } from './types.ts';
import { assertRelativePath, baseName, joinPath, notFoundError, parentPath } from './paths.ts';

const encoder = new TextEncoder();

/** Parent → child names, kept in step with the set of file paths. */
class DirIndex {
  readonly #children = new Map<string, Set<string>>([['', new Set()]]);

  add(path: string): void {
    let child = path;
    while (child !== '') {
      const parent = parentPath(child);
      let names = this.#children.get(parent);
      if (!names) this.#children.set(parent, (names = new Set()));
      names.add(baseName(child));
      child = parent;
    }
  }

  /** Remove a file path and prune directories left empty. */
  remove(path: string): void {
    let child = path;
    while (child !== '') {
      const parent = parentPath(child);
      const names = this.#children.get(parent);
      if (!names) return;
      names.delete(baseName(child));
      if (names.size > 0 || parent === '') return;
      this.#children.delete(parent);
      child = parent;
    }
  }

  isDir(path: string): boolean {
    return this.#children.has(path);
  }

  list(dir: string): DirEntry[] {
    const names = this.#children.get(dir);
    if (!names) throw notFoundError(dir);
    return [...names].map((name) => ({ name, kind: this.#children.has(joinPath(dir, name)) ? 'directory' : 'file' }));
  }
}

interface MemoryFile {
  data: Uint8Array;
  mtime: number;
}

export class MemoryFileSource implements FileSource {
  readonly name: string;
  readonly #files = new Map<string, MemoryFile>();
  readonly #index = new DirIndex();
  #clock: number;

  constructor(files: Record<string, string | Uint8Array>, opts: { mtime?: number; name?: string } = {}) {
    this.name = opts.name ?? 'memory';
    this.#clock = opts.mtime ?? Date.now();
    for (const [path, content] of Object.entries(files)) this.#put(path, content, this.#clock);
  }

  async readDir(dir: string): Promise<DirEntry[]> {
    assertRelativePath(dir);
    return this.#index.list(dir);
  }

  async stat(path: string): Promise<FileInfo> {
    const f = this.#get(path);
    return { size: f.data.length, mtime: f.mtime };
  }

  async readFile(path: string): Promise<Uint8Array> {
    return this.#get(path).data.slice();
  }

  /** Create or overwrite a file; returns the mtime it was given. */
  set(path: string, content: string | Uint8Array, mtime?: number): number {
    const t = mtime ?? ++this.#clock;
    this.#clock = Math.max(this.#clock, t);
    this.#put(path, content, t);
    return t;
  }

  /** Delete a file, or a directory with everything under it. Returns whether anything was deleted. */
  delete(path: string): boolean {
    const victims = this.#pathsUnder(path);
    for (const p of victims) {
      this.#files.delete(p);
      this.#index.remove(p);
    }
    return victims.length > 0;
  }

  /** Move a file, or a directory with everything under it; content and mtime are kept. */
  rename(from: string, to: string): void {
    assertRelativePath(to);
    const moved = this.#pathsUnder(from);
    if (moved.length === 0) throw notFoundError(from);
    if (to === '' || to === from || to.startsWith(`${from}/`)) throw new TypeError(`Cannot move ${from} to ${to}`);
    const movingDir = !this.#files.has(from);
    // Check before mutating: a failed rename changes nothing.
    if (this.#index.isDir(to) || (movingDir && this.#files.has(to))) throw new TypeError(`Destination exists: ${to}`);
    for (let p = parentPath(to); p !== ''; p = parentPath(p)) {
      if (this.#files.has(p)) throw new TypeError(`A file is in the way: ${p}`);
    }
    for (const p of moved) {
      const f = this.#files.get(p)!;
      this.#files.delete(p);
      this.#index.remove(p);
      const dest = to + p.slice(from.length);
      if (!this.#files.has(dest)) this.#index.add(dest);
      this.#files.set(dest, f);
    }
  }

  /** All file paths, sorted (handy for assertions). */
  paths(): string[] {
    return [...this.#files.keys()].sort();
  }

  #put(path: string, content: string | Uint8Array, mtime: number): void {
    assertRelativePath(path);
    if (path === '' || this.#index.isDir(path)) throw new TypeError(`Not a file path: ${path}`);
    for (let p = parentPath(path); p !== ''; p = parentPath(p)) {
      if (this.#files.has(p)) throw new TypeError(`A file is in the way: ${p}`);
    }
    const data = typeof content === 'string' ? encoder.encode(content) : content.slice();
    if (!this.#files.has(path)) this.#index.add(path);
    this.#files.set(path, { data, mtime });
  }

  #get(path: string): MemoryFile {
    assertRelativePath(path);
    const f = this.#files.get(path);
    if (!f) throw notFoundError(path);
    return f;
  }

  #pathsUnder(path: string): string[] {
    assertRelativePath(path);
    if (this.#files.has(path)) return [path];
    if (path === '') return [...this.#files.keys()];
    const prefix = `${path}/`;
    return [...this.#files.keys()].filter((p) => p.startsWith(prefix));
  }
}

/**
 * Files picked with `<input type="file" webkitdirectory>` or dropped (a `FileSnapshot`, see
 * drop.ts). Paths come from `paths[i]` when given, else `webkitRelativePath`
 * ("picked/src/a.ts" → "src/a.ts"); a File without one (e.g. a single dropped file) sits
 * at the root under its name. `name` is the picked folder.
 */
export class FileListSource implements FileSource {
  readonly name: string;
  readonly #files = new Map<string, File>();
  readonly #index = new DirIndex();

  constructor(files: Iterable<File> | ArrayLike<File>, paths?: readonly string[]) {
    let top = '';
    for (const [i, file] of Array.from(files).entries()) {
      const rel = paths?.[i] || file.webkitRelativePath || file.name;
      const slash = rel.indexOf('/');
      if (slash > 0 && top === '') top = rel.slice(0, slash);
      const path = slash > 0 ? rel.slice(slash + 1) : rel;
      try {
        assertRelativePath(path);
      } catch {
        continue; // a name the contract cannot represent; never expose it
      }
      if (path === '' || this.#files.has(path) || this.#index.isDir(path)) continue;
      this.#files.set(path, file);
      this.#index.add(path);
    }
    this.name = top || 'files';
  }

  async readDir(dir: string): Promise<DirEntry[]> {
    assertRelativePath(dir);
    return this.#index.list(dir);
  }

  async stat(path: string): Promise<FileInfo> {
    const f = this.#get(path);
    return { size: f.size, mtime: f.lastModified };
  }

  async readFile(path: string): Promise<Uint8Array> {
    return new Uint8Array(await this.#get(path).arrayBuffer());
  }

  #get(path: string): File {
    assertRelativePath(path);
    const f = this.#files.get(path);
    if (!f) throw notFoundError(path);
    return f;
  }
}
