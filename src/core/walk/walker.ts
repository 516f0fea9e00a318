/**
 * The walker: lists the files of a codebase that should be indexed, over any FileSource.
 *
 * What always holds:
 * - Order is deterministic: entries are sorted by name (UTF-16 code units) and walked
 *   depth first; symlinks are deferred and followed after the whole real tree (below).
 * - Ignore rules are gitignore semantics, evaluated as ONE ordered rule list per
 *   directory, last match wins: DEFAULT_IGNORE_PATTERNS, then every `.gitignore` from
 *   the root down to the directory, then every `.siftignore` from the root down (so a
 *   `.siftignore` can re-include what any `.gitignore` excluded, or exclude more).
 *   Patterns from a nested file are rebased onto its directory (`foo` in `a/` becomes
 *   `a/**\/foo`, `/foo` or `x/foo` becomes `a/foo`, `a/x/foo`). An ignored directory is
 *   never entered, and is reported once. So is a Python environment below the root, told by
 *   its listing (VIRTUAL_ENV_MARKERS), whatever its name.
 * - Files matching SECRET_PATTERNS are never read or yielded, whatever the ignore files
 *   say; they are reported as 'secret'.
 * - Every other file is yielded whatever its extension (the indexer sniffs its first bytes
 *   and skips binary content), except: files the ignore rules exclude ('ignored'), files no
 *   `include` pattern matches when there are some ('not-included'), files with a known
 *   binary extension (BINARY_EXTENSIONS: 'binary', never read) and files over the size
 *   limit ('too-large'). The checks run in that order, and before any stat.
 * - Nothing outside the root is yielded: a symlink is followed only when the source
 *   resolves it to a target inside the root. Every real directory is walked at most once
 *   (visited set of real paths) and every real file yielded at most once, so link loops
 *   terminate and links never duplicate content: a link whose target was already walked
 *   is reported as 'link-loop' (detail says "duplicate of …"). Links are resolved after
 *   the real tree so that the real path, not the link, is the one that is indexed.
 * - An unreadable directory or file is reported and skipped; an unreadable ROOT throws
 *   (an empty listing must never be mistaken for "all files deleted").
 * - Cancelling `signal` throws a DOMException named 'AbortError'.
 * - Stats run ahead: while one file is admitted, the stats of up to STAT_AHEAD following
 *   files of the same directory that pass the name checks are already in flight (a sequential
 *   await per file left the walk waiting on the fs ~90% of the time). Order, skips and
 *   results are exactly those of a sequential walk; no secret or ignored file is stat'ed.
 */
import ignore from 'ignore';
import { BINARY_EXTENSIONS, DEFAULT_IGNORE_PATTERNS, DEFAULT_MAX_FILE_SIZE, SECRET_PATTERNS } from '../config.ts';
import type { DirEntry, FileSource, LinkTarget } from '../source/types.ts';
import { baseName, joinPath } from '../source/paths.ts';

/** Ignore files read in every directory, in the order their rules apply. */
export const IGNORE_FILES = ['.gitignore', '.siftignore'] as const;
/** Stats of following files in flight while one is admitted (see the module comment). */
export const STAT_AHEAD = 32;
/** How much of a file `isProbablyBinary` looks at. */
export const BINARY_SNIFF_BYTES = 8192;
/** Share of control bytes (other than whitespace/ESC) above which a sample counts as binary. */
export const BINARY_CONTROL_RATIO = 0.1;

export interface WalkOptions {
  /** Files larger than this (bytes, by stat) are skipped as 'too-large'. Default DEFAULT_MAX_FILE_SIZE. */
  maxFileSize?: number;
  /**
   * Gitignore-syntax patterns, relative to the root (CLI --include, app settings): when
   * there are any, only files one of them matches (the file or a folder above it) are
   * yielded; the others are reported as 'not-included'. Folders are still walked.
   */
  include?: readonly string[];
  /** Extra gitignore-syntax patterns, relative to the root, applied after all ignore files (CLI --exclude / --ignore). */
  extraIgnore?: readonly string[];
  signal?: AbortSignal;
  onSkip?: (skip: WalkSkip) => void;
}

export interface WalkedFile {
  path: string;
  size: number;
  mtime: number;
}

export interface WalkSkip {
  path: string;
  reason: WalkSkipReason;
  detail?: string;
  /** The path is a folder (skipped with everything in it). */
  directory?: true;
}

/** Why a path was not yielded. 'binary' here is by extension; the indexer adds 'binary' by content. */
export type WalkSkipReason = 'ignored' | 'not-included' | 'secret' | 'binary' | 'too-large' | 'link-outside' | 'link-loop' | 'unreadable';

const BINARY_EXTENSION_SET: ReadonlySet<string> = new Set(BINARY_EXTENSIONS);

/**
 * Entries that make a folder a Python environment, skipped as 'ignored' whatever its name
 * (`venv/`, `env/`, `py311/`): `pyvenv.cfg` (venv and virtualenv ≥ 20) and `conda-meta/` (conda).
 * Told from the listing the walk reads anyway: no extra call per folder.
 */
const VIRTUAL_ENV_MARKERS: readonly { name: string; kind: DirEntry['kind'] }[] = [
  { name: 'pyvenv.cfg', kind: 'file' },
  { name: 'conda-meta', kind: 'directory' },
];

function isVirtualEnv(entries: readonly DirEntry[]): boolean {
  return entries.some((e) => VIRTUAL_ENV_MARKERS.some((m) => m.name === e.name && m.kind === e.kind));
}

type Ignore = ReturnType<typeof ignore>;

/** The ignore rules in force in one directory. Immutable; shared by descendants until one adds rules. */
interface Scope {
  readonly git: readonly string[];
  readonly sift: readonly string[];
  readonly matcher: Ignore;
}

/** A directory to walk: `path` as seen from the root, `real` its link-free path. */
interface DirTask {
  path: string;
  real: string;
  scope: Scope;
}

interface PendingLink {
  path: string;
  target: LinkTarget;
  scope: Scope;
}

/** Escape glob metacharacters in a literal directory path used as a pattern prefix. */
function escapeGlob(literal: string): string {
  return literal.replace(/[\\*?[\]]/g, '\\$&').replace(/^[!#]/, '\\$&');
}

/**
 * Rebase the lines of an ignore file that lives in `dir` onto the root, keeping
 * gitignore meaning. Blank lines and comments are dropped.
 */
export function rebaseIgnorePatterns(text: string, dir: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === '' || raw.startsWith('#')) continue;
    if (dir === '') {
      out.push(raw);
      continue;
    }
    const negate = raw.startsWith('!');
    let body = negate ? raw.slice(1) : raw;
    // A slash anywhere but at the end anchors the pattern to the file's directory.
    const anchored = body.replace(/\/+\s*$/, '').includes('/');
    if (body.startsWith('/')) body = body.slice(1);
    if (body.trim() === '') continue;
    const prefix = escapeGlob(dir);
    out.push(`${negate ? '!' : ''}${prefix}/${anchored ? '' : '**/'}${body}`);
  }
  return out;
}

function makeScope(git: readonly string[], sift: readonly string[], extra: readonly string[]): Scope {
  const matcher = ignore().add([...DEFAULT_IGNORE_PATTERNS]).add([...git]).add([...sift]).add([...extra]);
  return { git, sift, matcher };
}

function compareNames(a: DirEntry, b: DirEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Lower-case extension of a file name, with the dot; '' for none ('Makefile', '.bashrc'). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot).toLowerCase() : '';
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    // Node's messages already start with the code ("EACCES: permission denied, …"): never say it twice.
    if (typeof code === 'string') return err.message.startsWith(`${code}:`) ? err.message : `${code}: ${err.message}`;
    return err.name === 'Error' ? err.message : `${err.name}: ${err.message}`;
  }
  return String(err);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new DOMException('The walk was aborted', 'AbortError');
}

/** True when the first 8 KB hold a NUL byte or mostly control bytes. A UTF-16 BOM means text. */
export function isProbablyBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  if (n >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) return false;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return true;
    // \t \n \v \f \r and ESC (ANSI colour codes in logs) are normal in text.
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0b && b !== 0x0c && b !== 0x0d && b !== 0x1b) || b === 0x7f) control++;
  }
  return n > 0 && control / n > BINARY_CONTROL_RATIO;
}

/**
 * Yield every file of `source` that should be indexed (see the module comment for the
 * rules), with its stat size and mtime. Skips are reported through `opts.onSkip`.
 */
export async function* walk(source: FileSource, opts: WalkOptions = {}): AsyncGenerator<WalkedFile> {
  const maxFileSize = opts.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
  const included = opts.include && opts.include.length > 0 ? ignore().add([...opts.include]) : null;
  const extra = opts.extraIgnore ?? [];
  const secrets = ignore().add([...SECRET_PATTERNS]);
  const { signal } = opts;
  const skip = (path: string, reason: WalkSkipReason, detail?: string, directory = false): void => {
    const s: WalkSkip = detail === undefined ? { path, reason } : { path, reason, detail };
    if (directory) s.directory = true;
    opts.onSkip?.(s);
  };

  const visitedDirs = new Set<string>(); // real paths of walked directories
  const yieldedFiles = new Map<string, string>(); // real path → path it was yielded under
  const pendingLinks: PendingLink[] = [];

  const isIgnored = (scope: Scope, path: string, isDir: boolean): boolean =>
    scope.matcher.ignores(isDir ? `${path}/` : path);

  const notIncluded = (path: string): boolean => included !== null && !included.ignores(path);
  const binaryByName = (path: string): boolean => BINARY_EXTENSION_SET.has(extensionOf(baseName(path)));

  /** The name checks of admitFile, without reporting: would this file be stat'ed? */
  const wouldStat = (path: string, scope: Scope): boolean =>
    !secrets.ignores(path) && !isIgnored(scope, path, false) && !notIncluded(path) && !binaryByName(path);
  /** path → stat started ahead of its turn; consumed (deleted) by admitFile. */
  const statAhead = new Map<string, Promise<Awaited<ReturnType<FileSource['stat']>>>>();

  /** Checks shared by real files and file links; returns the WalkedFile or null when skipped. */
  const admitFile = async (path: string, real: string, scope: Scope): Promise<WalkedFile | null> => {
    if (secrets.ignores(path) || (real !== path && secrets.ignores(real))) {
      skip(path, 'secret');
      return null;
    }
    if (isIgnored(scope, path, false)) {
      skip(path, 'ignored');
      return null;
    }
    if (notIncluded(path)) {
      skip(path, 'not-included');
      return null;
    }
    if (binaryByName(path)) {
      skip(path, 'binary', `${extensionOf(baseName(path))} file, not read`);
      return null;
    }
    const seenAs = yieldedFiles.get(real);
    if (seenAs !== undefined) {
      skip(path, 'link-loop', `duplicate of ${seenAs}`);
      return null;
    }
    let info;
    const ahead = statAhead.get(path);
    statAhead.delete(path);
    try {
      info = await (ahead ?? source.stat(path));
    } catch (err) {
      skip(path, 'unreadable', describe(err));
      return null;
    }
    if (info.size > maxFileSize) {
      skip(path, 'too-large', `${info.size} bytes > ${maxFileSize}`);
      return null;
    }
    yieldedFiles.set(real, path);
    return { path, size: info.size, mtime: info.mtime };
  };

  /** Read the ignore files listed in `entries` and return the scope for `dir`. */
  const scopeFor = async (dir: string, entries: DirEntry[], parent: Scope): Promise<Scope> => {
    const found: Record<(typeof IGNORE_FILES)[number], string[]> = { '.gitignore': [], '.siftignore': [] };
    let changed = false;
    for (const file of IGNORE_FILES) {
      if (!entries.some((e) => e.name === file && e.kind === 'file')) continue;
      const path = joinPath(dir, file);
      try {
        const text = new TextDecoder().decode(await source.readFile(path));
        found[file] = rebaseIgnorePatterns(text, dir);
        changed ||= found[file].length > 0;
      } catch (err) {
        skip(path, 'unreadable', describe(err));
      }
    }
    if (!changed) return parent;
    return makeScope([...parent.git, ...found['.gitignore']], [...parent.sift, ...found['.siftignore']], extra);
  };

  /** Depth-first walk of one real directory tree; links met on the way are queued. */
  async function* walkTree(start: DirTask, isRoot: boolean): AsyncGenerator<WalkedFile> {
    // Each frame is a directory being listed; `next` is the index of its next entry.
    // `ahead`: entries before this index have been considered for a stat ahead.
    interface Frame { task: DirTask; entries: DirEntry[]; next: number; ahead: number }
    const stack: Frame[] = [];

    const enter = async (task: DirTask, root: boolean): Promise<void> => {
      throwIfAborted(signal);
      visitedDirs.add(task.real);
      let entries: DirEntry[];
      try {
        entries = await source.readDir(task.path);
      } catch (err) {
        if (root) throw err;
        skip(task.path, 'unreadable', describe(err), true);
        return;
      }
      if (!root && isVirtualEnv(entries)) {
        skip(task.path, 'ignored', 'a Python environment', true);
        return;
      }
      entries.sort(compareNames);
      const scope = await scopeFor(task.path, entries, task.scope);
      stack.push({ task: { ...task, scope }, entries, next: 0, ahead: 0 });
    };

    /** Start the stats of the next files of `frame` (up to STAT_AHEAD past the current one). */
    const statFilesAhead = (frame: Frame): void => {
      const end = Math.min(frame.entries.length, frame.next + STAT_AHEAD);
      for (frame.ahead = Math.max(frame.ahead, frame.next); frame.ahead < end; frame.ahead++) {
        const entry = frame.entries[frame.ahead]!;
        if (entry.kind !== 'file') continue;
        const path = joinPath(frame.task.path, entry.name);
        if (statAhead.has(path) || !wouldStat(path, frame.task.scope)) continue;
        const p = source.stat(path);
        p.catch(() => undefined); // reported when admitFile awaits it
        statAhead.set(path, p);
      }
    };

    await enter(start, isRoot);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next >= frame.entries.length) {
        stack.pop();
        continue;
      }
      const entry = frame.entries[frame.next++]!;
      const { scope } = frame.task;
      const path = joinPath(frame.task.path, entry.name);
      const real = joinPath(frame.task.real, entry.name);
      switch (entry.kind) {
        case 'directory':
          if (isIgnored(scope, path, true)) skip(path, 'ignored', undefined, true);
          else await enter({ path, real, scope }, false);
          break;
        case 'file': {
          statFilesAhead(frame);
          const file = await admitFile(path, real, scope);
          if (file) {
            throwIfAborted(signal);
            yield file;
          }
          break;
        }
        case 'symlink': {
          if (!source.resolveLink) {
            skip(path, 'unreadable', 'symlink, and the source cannot resolve links');
            break;
          }
          let target: LinkTarget | null;
          try {
            target = await source.resolveLink(path);
          } catch (err) {
            skip(path, 'unreadable', describe(err));
            break;
          }
          if (target === null) skip(path, 'link-outside', 'target is outside the root or missing');
          else pendingLinks.push({ path, target, scope });
          break;
        }
        default:
          skip(path, 'unreadable', 'not a regular file or directory');
      }
    }
  }

  yield* walkTree({ path: '', real: '', scope: makeScope([], [], extra) }, true);

  // Links, in the order they were met (FIFO keeps the output deterministic).
  for (let i = 0; i < pendingLinks.length; i++) {
    throwIfAborted(signal);
    const { path, target, scope } = pendingLinks[i]!;
    if (target.kind === 'file') {
      const file = await admitFile(path, target.path, scope);
      if (file) {
        throwIfAborted(signal);
        yield file;
      }
    } else if (isIgnored(scope, path, true)) {
      skip(path, 'ignored', undefined, true);
    } else if (visitedDirs.has(target.path)) {
      skip(path, 'link-loop', `target already walked: ${target.path === '' ? '(root)' : target.path}`, true);
    } else {
      yield* walkTree({ path, real: target.path, scope }, false);
    }
  }
}
