/**
 * Where a codebase's index lives on disk and how the CLI opens it. One folder per
 * codebase under ~/.sift/indexes/<first 16 hex of sha256(absolute dir)>/ holding
 * `index.db` (SQLite: files, chunks, FTS5, embeddings, meta) and `vectors.bin` (the
 * serialized vector index, a cache rebuildable from the embeddings table).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { openNodeStore } from '../core/store/open-node.ts';
import type { Store } from '../core/store/store.ts';

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

export function siftHome(): string {
  return process.env.SIFT_HOME ? resolve(process.env.SIFT_HOME) : join(homedir(), '.sift');
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

function corrupt(paths: IndexPaths, e: unknown): CliError {
  const why = e instanceof Error ? e.message : String(e);
  return new CliError(`the index at ${paths.db} is corrupt or unreadable (${why}); run \`sift rebuild ${paths.dir}\``, 4);
}

export async function openIndex(paths: IndexPaths, opts: { fresh?: boolean } = {}): Promise<IndexContext> {
  if (opts.fresh) {
    for (const f of [paths.db, `${paths.db}-journal`, `${paths.db}-wal`, paths.vectors]) rmSync(f, { force: true });
  }
  mkdirSync(dirname(paths.db), { recursive: true });
  try {
    const store = await openNodeStore(paths.db);
    return { dir: paths.dir, paths, store };
  } catch (e) {
    throw corrupt(paths, e);
  }
}

export async function openExistingIndex(dir: string, paths: IndexPaths): Promise<IndexContext> {
  if (!existsSync(paths.db)) throw new CliError(`no index for ${dir}; run \`sift index ${dir}\` first`, 3);
  let ctx: IndexContext;
  try {
    ctx = await openIndex(paths);
    // A quick read proves the file is a database with our schema.
    await ctx.store.chunkCount();
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw corrupt(paths, e);
  }
  return ctx;
}
