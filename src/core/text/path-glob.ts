/**
 * Path globs for the path filter, shared by the keyword leg (as an SQL function) and the
 * vector leg (in JS), so both legs keep the same files.
 */
import picomatch from 'picomatch';

/** Compiled path globs kept per connection. */
export const GLOB_CACHE_SIZE = 32;
/** Name of the SQL function that matches a path against a glob. */
export const PATH_MATCH_FUNCTION = 'sift_path_match';

type SqlArg = string | number | bigint | Uint8Array | null;

export interface PathGlob {
  /** Literal path prefix every match starts with, or null. */
  prefix: string | null;
  test: (path: string) => boolean;
}

/**
 * Compile a gitignore-style glob matched against relative paths: a pattern without `/`
 * matches at any depth (`*.ts`), a leading `/` anchors, a trailing `/` means a directory, and
 * a pattern that matches a directory matches everything under it.
 */
export function compilePathGlob(glob: string): PathGlob | null {
  let g = glob.trim();
  if (!g) return null;
  const anchored = g.startsWith('/');
  if (anchored) g = g.replace(/^\/+/, '');
  if (g.endsWith('/')) g = g.replace(/\/+$/, '');
  if (!g) return null;
  const hasSlash = anchored || g.includes('/');
  let match: (s: string) => boolean;
  try {
    match = picomatch(g, { dot: true, basename: !hasSlash });
  } catch {
    return { prefix: null, test: () => false };
  }
  const test = (path: string): boolean => {
    if (match(path)) return true;
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) {
      if (match(path.slice(0, i))) return true;
    }
    return false;
  };
  const literal = hasSlash ? g.match(/^[^*?[\]{}()!+@\\]*/)?.[0] ?? '' : '';
  return { prefix: literal || null, test };
}

/** Install sift_path_match(glob, path) → 1/0 on `db`. */
export function registerPathMatch(db: { createFunction(name: string, nArg: number, fn: (...args: SqlArg[]) => SqlArg): void }): void {
  const cache = new Map<string, PathGlob | null>();
  db.createFunction(PATH_MATCH_FUNCTION, 2, (glob, path) => {
    if (typeof glob !== 'string' || typeof path !== 'string') return 0;
    let g = cache.get(glob);
    if (g === undefined) {
      g = compilePathGlob(glob);
      if (cache.size >= GLOB_CACHE_SIZE) cache.clear();
      cache.set(glob, g);
    }
    return !g || g.test(path) ? 1 : 0;
  });
}

