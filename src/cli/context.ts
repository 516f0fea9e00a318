/**
 * Where a codebase's index lives on disk and how the CLI opens it. One folder per
 * codebase under ~/.sift/indexes/<first 16 hex of sha256(absolute dir)>/ holding
 * `index.db` (SQLite: files, chunks, FTS5, embeddings, meta) and `vectors.bin` (the
 * serialized vector index, a cache rebuildable from the embeddings table).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, statfsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { lastBusyPid, openNodeStore, takeHotJournalRecovery } from '../core/store/open-node.ts';
import { classify, EXIT_CODE, formatBytes, SiftError, type Classified } from '../core/store/errors.ts';
import type { Store } from '../core/store/store.ts';
import { siftHome } from './home.ts';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface IndexPaths {
  dir: string;
  db: string;
  vectors: string;
}

export function indexPaths(dir: string, dbOverride?: string): IndexPaths {
  if (dbOverride) {
    const db = resolve(dbOverride);
    return { dir, db, vectors: `${db}.vectors` };
  }
  const key = createHash('sha256').update(dir).digest('hex').slice(0, 16);
  const base = join(siftHome(), 'indexes', key);
  return { dir, db: join(base, 'index.db'), vectors: join(base, 'vectors.bin') };
}

export interface IndexContext {
  dir: string;
  paths: IndexPaths;
  store: Store;
}

/**
 * Control characters (ESC, BEL, CR, C1 …) shown as \xNN so file names and snippets can never
 * drive the terminal (a file named `x\e]0;owned\a.go` retitled it). Tabs stay.
 */
export function safeText(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Free bytes on the file system holding `file` (its folder), null when unknown. */
export function freeBytes(file: string): number | null {
  let dir = dirname(file);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

/** One clear line (and exit code) for any failure around the index of `paths`. */
export function describeFailure(e: unknown, paths: IndexPaths | null): CliError {
  if (e instanceof CliError) return e;
  const c: Classified = classify(e);
  const db = paths?.db ?? 'the index';
  const dir = paths?.dir ?? '<dir>';
  const code = EXIT_CODE[c.kind];
  switch (c.kind) {
    case 'no-index':
      return new CliError(`no index for ${dir}; run \`sift index ${dir}\` first`, code);
    case 'corrupt':
      return new CliError(`the index at ${db} is corrupt (${c.message}); run \`sift rebuild ${dir}\``, code);
    case 'newer-schema':
      return new CliError(`${c.message}; update Sift to use it (the index was left as it is)`, code);
    case 'storage-full': {
      const free = paths ? freeBytes(paths.db) : null;
      const need = c.neededBytes ? `at least ${formatBytes(c.neededBytes)}` : 'some space';
      return new CliError(
        `no space left on the disk of ${db}${free !== null ? ` (${formatBytes(free)} free)` : ''}: free ${need} and run the command again — the index is kept as it was (${c.message})`,
        code,
      );
    }
    case 'busy': {
      const pid = lastBusyPid();
      return new CliError(`the index at ${db} is busy: another sift process${pid ? ` (pid ${pid})` : ''} kept it locked (${c.message}); try again when it finishes`, code);
    }
    case 'permission-lost':
      return new CliError(`permission denied (${c.message}); the index at ${db} was not changed`, code);
    case 'cancelled':
      return new CliError('cancelled', code);
    case 'io':
      return new CliError(`cannot read or write the index at ${db} (${c.message}); it was not changed`, code);
    default:
      return new CliError(c.message, code);
  }
}

export async function openIndex(paths: IndexPaths, o: { scratch?: boolean } = {}): Promise<IndexContext> {
  mkdirSync(dirname(paths.db), { recursive: true });
  try {
    const store = await openNodeStore(paths.db, { scratch: o.scratch });
    return { dir: paths.dir, paths, store };
  } catch (e) {
    throw describeFailure(e, paths);
  }
}

/** Open the index of `dir` for reading: never creates one (missing or empty file → exit 3). */
export async function openExistingIndex(dir: string, paths: IndexPaths): Promise<IndexContext> {
  if (!existsSync(paths.db) || statSync(paths.db).size === 0) throw describeFailure(new SiftError('no-index', 'no index'), paths);
  try {
    const store = await openNodeStore(paths.db, { existing: true });
    // A quick read proves the file is a database with our schema.
    await store.chunkCount();
    if (await takeHotJournalRecovery(paths.db)) {
      // This reader rolled back a crashed writer's journal: check the structure before answering.
      const problems = (await store.db.all<{ quick_check: string }>('PRAGMA quick_check')).map((r) => r.quick_check).filter((m) => m !== 'ok');
      if (problems.length) throw new SiftError('corrupt', `quick check after crash recovery: ${problems.slice(0, 3).join('; ')}`);
    }
    return { dir, paths, store };
  } catch (e) {
    throw describeFailure(e, paths);
  }
}
