/**
 * FileSource over the File System Access API: a directory handle from
 * `showDirectoryPicker()` or an OPFS directory (`navigator.storage.getDirectory()`).
 *
 * Invariants: a handle can only reach its own descendants, so nothing outside the root
 * is reachable; paths are validated anyway. Directory handles are cached by path (the
 * root is ''), and `readDir` fills the cache for the child directories it lists, so a
 * walk never re-resolves a path segment by segment. It keeps the file handles it lists
 * too: a walk's stat and the later read then skip `getFileHandle` (one browser round trip
 * per file each). A cached handle names the same entry a fresh lookup would, so a file
 * deleted since still fails with NotFoundError. FSA has no symlinks: `resolveLink` is absent.
 *
 * The File a stat got is kept until that path is read, and the read takes it: one `getFile`
 * per file instead of two (kernel subset in Chromium 156: 43 s against 72 s, the reads' round
 * trips through the browser process had held the pipeline up; docs/performance.md). A file
 * changed or deleted since its stat fails that snapshot's read and is read afresh, so the
 * read sees what a fresh lookup would. Kept Files live as long as the source (one run).
 */
import type { DirEntry, FileInfo, FileSource } from './types.ts';
import { assertRelativePath, baseName, parentPath, joinPath } from './paths.ts';

/** lib.dom in TS 5.9 types async iteration only under DOM.AsyncIterable; this is the slice we use. */
interface IterableDirectoryHandle {
  entries(): AsyncIterableIterator<[string, FileSystemHandle]>;
}

export class FsaFileSource implements FileSource {
  readonly name: string;
  readonly #dirs = new Map<string, FileSystemDirectoryHandle>();
  readonly #files = new Map<string, FileSystemFileHandle>();
  /** The File each path's last stat got, until its read takes it. */
  readonly #stated = new Map<string, File>();

  constructor(root: FileSystemDirectoryHandle) {
    this.name = root.name;
    this.#dirs.set('', root);
  }

  async readDir(dir: string): Promise<DirEntry[]> {
    const handle = await this.#dir(dir);
    const out: DirEntry[] = [];
    for await (const [name, child] of (handle as unknown as IterableDirectoryHandle).entries()) {
      if (child.kind === 'directory') {
        this.#dirs.set(joinPath(dir, name), child as FileSystemDirectoryHandle);
        out.push({ name, kind: 'directory' });
      } else {
        this.#files.set(joinPath(dir, name), child as FileSystemFileHandle);
        out.push({ name, kind: 'file' });
      }
    }
    return out;
  }

  async stat(path: string): Promise<FileInfo> {
    const file = await (await this.#file(path)).getFile();
    this.#stated.set(path, file);
    return { size: file.size, mtime: file.lastModified };
  }

  async readFile(path: string): Promise<Uint8Array> {
    const kept = this.#stated.get(path);
    this.#stated.delete(path);
    if (kept) {
      try {
        return new Uint8Array(await kept.arrayBuffer());
      } catch {
        // Changed or gone since the stat (the snapshot no longer reads): a fresh lookup below.
      }
    }
    const file = await (await this.#file(path)).getFile();
    return new Uint8Array(await file.arrayBuffer());
  }

  /** Drop cached handles (e.g. after the folder changed on disk). */
  clearCache(): void {
    const root = this.#dirs.get('')!;
    this.#dirs.clear();
    this.#files.clear();
    this.#stated.clear();
    this.#dirs.set('', root);
  }

  async #file(path: string): Promise<FileSystemFileHandle> {
    assertRelativePath(path);
    if (path === '') throw new TypeError('The root is not a file');
    const cached = this.#files.get(path);
    if (cached) return cached;
    const dir = await this.#dir(parentPath(path));
    return dir.getFileHandle(baseName(path));
  }

  async #dir(path: string): Promise<FileSystemDirectoryHandle> {
    assertRelativePath(path);
    const cached = this.#dirs.get(path);
    if (cached) return cached;
    // Resolve from the nearest cached ancestor.
    const segments = path.split('/');
    let depth = segments.length - 1;
    while (depth > 0 && !this.#dirs.has(segments.slice(0, depth).join('/'))) depth--;
    let current = this.#dirs.get(segments.slice(0, depth).join('/'))!;
    for (let i = depth; i < segments.length; i++) {
      current = await current.getDirectoryHandle(segments[i]!);
      this.#dirs.set(segments.slice(0, i + 1).join('/'), current);
    }
    return current;
  }
}
