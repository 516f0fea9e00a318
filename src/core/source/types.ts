/**
 * The file source contract. The walker and everything after it see only this, so the
 * same core runs over Node's fs, a File System Access directory handle, or memory.
 *
 * Paths are relative to the source root, `/`-separated, with no leading slash; the root
 * itself is ''. Implementations must never expose anything outside the root.
 */

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

export interface DirEntry {
  name: string;
  kind: EntryKind;
}

export interface FileInfo {
  size: number;
  /** Milliseconds since epoch (0 when unknown). */
  mtime: number;
}

/** Where a symbolic link points, relative to the root; null when it leaves the root or dangles. */
export interface LinkTarget {
  path: string;
  kind: 'file' | 'directory';
}

export interface FileSource {
  /** Human-readable identity (absolute path, folder name, …). */
  readonly name: string;
  readDir(dir: string): Promise<DirEntry[]>;
  stat(path: string): Promise<FileInfo>;
  readFile(path: string): Promise<Uint8Array>;
  /** Resolve a symlink entry. Sources without links (FSA, memory) may omit this. */
  resolveLink?(path: string): Promise<LinkTarget | null>;
}
