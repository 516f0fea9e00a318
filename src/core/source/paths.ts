/**
 * Helpers for source-relative paths: `/`-separated, no leading slash, root is ''.
 * Every FileSource validates incoming paths with `assertRelativePath`, which is what
 * keeps `..` and absolute paths from ever reaching a backend.
 */

/** Throws a TypeError unless `path` is '' or clean `a/b/c` segments (no '', '.', '..', '\\' or NUL). */
export function assertRelativePath(path: string): void {
  if (path === '') return;
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.' || seg === '..' || seg.includes('\\') || seg.includes('\0')) {
      throw new TypeError(`Invalid source-relative path: ${JSON.stringify(path)}`);
    }
  }
}

export function joinPath(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** Parent directory ('' for top-level entries and for the root). */
export function parentPath(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Error for a missing entry, shaped like Node's (code ENOENT) and named like the DOM's. */
export function notFoundError(path: string): Error {
  return Object.assign(new Error(`No such file or directory: ${path}`), { name: 'NotFoundError', code: 'ENOENT' });
}
