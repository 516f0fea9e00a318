/**
 * Node entry points: the wa-sqlite runtime loaded from node_modules (wasm bytes read with
 * fs, no fetch), on-disk stores through NodeFsVFS, and in-memory stores.
 *
 * Invariant: one runtime per process (cached promise); every store opens on it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { BUSY_TIMEOUT_MS, NodeFsVFS } from './node-vfs-node.ts';
import { createRuntime, ensureVfs, openMemoryStoreOn, type SqliteRuntime } from './open.ts';
import { Db } from './sqlite.ts';
import { Store } from './store.ts';
import { SCHEMA_VERSION } from './schema.ts';
import { SiftError } from './errors.ts';
import { setTextCodec } from './text-codec.ts';
import { nodeTextCodec } from './text-codec-node.ts';

// Stored file text is inflated with zlib here (store/text-codec.ts).
setTextCodec(nodeTextCodec);

export const NODE_VFS_NAME = 'sift-node-fs';

let runtime: Promise<SqliteRuntime> | null = null;

/**
 * The module bin/sift started compiling before the bundle loaded (its `precompileSqlite`), when it
 * is of the same file: instantiated instead of compiling the bytes again on this thread.
 */
const PRECOMPILED = Symbol.for('sift.sqlite-wasm');

async function precompiled(path: string): Promise<WebAssembly.Module | null> {
  const pre = (globalThis as { [PRECOMPILED]?: { path: string; module: Promise<WebAssembly.Module> } })[PRECOMPILED];
  if (pre?.path !== path) return null;
  return pre.module.catch(() => null);
}

export function nodeRuntime(): Promise<SqliteRuntime> {
  runtime ??= (async () => {
    const path = createRequire(import.meta.url).resolve('@journeyapps/wa-sqlite/dist/wa-sqlite.wasm');
    const module = await precompiled(path);
    if (!module) return createRuntime({ wasmBinary: readFileSync(path) });
    // Emscripten's hook: instantiate the compiled module with the glue's imports (a failure
    // rejects here: the glue itself would wait for `done` forever).
    return new Promise<SqliteRuntime>((resolve, reject) => {
      createRuntime({
        instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance) => void) {
          WebAssembly.instantiate(module, imports).then(done, reject);
          return {};
        },
      }).then(resolve, reject);
    });
  })();
  return runtime;
}

export interface NodeStoreOptions {
  /** Reading an index that must already exist: a file without Sift's schema is "no index" and is left untouched. */
  existing?: boolean;
  /** Longest wait for another process's lock (default SIFT_BUSY_TIMEOUT_MS or BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
  /** A file being built that no other connection opens and that is discarded unless complete (Store.open's `scratch`). */
  scratch?: boolean;
}

function envBusyTimeout(): number | undefined {
  const n = Number(process.env.SIFT_BUSY_TIMEOUT_MS);
  return Number.isFinite(n) && n >= 0 && process.env.SIFT_BUSY_TIMEOUT_MS !== '' ? n : undefined;
}

let created: NodeFsVFS | null = null;

async function nodeVfs(rt: SqliteRuntime): Promise<NodeFsVFS> {
  return ensureVfs(rt, NODE_VFS_NAME, async () => (created = await NodeFsVFS.create(NODE_VFS_NAME, rt.module)));
}

/** The process whose lock made this process's last SQLITE_BUSY (for "busy" messages), or null. */
export function lastBusyPid(): number | null {
  return created?.lastBusyPid ?? null;
}

/**
 * The wait for another process's lock that a store opened now would get (SIFT_BUSY_TIMEOUT_MS):
 * the VFS's wait is process-wide and set by each open, so a process that keeps stores open (the
 * warm server, cli/serve.ts) sets it again before each command.
 */
export async function useEnvBusyTimeout(): Promise<void> {
  (await nodeVfs(await nodeRuntime())).busyTimeoutMs = envBusyTimeout() ?? BUSY_TIMEOUT_MS;
}

/**
 * Open (creating if needed, unless `existing`) the index database at `file`. A database newer
 * than this code is refused with a `newer-schema` SiftError before anything touches it.
 */
export async function openNodeStore(file: string, o: NodeStoreOptions = {}): Promise<Store> {
  const rt = await nodeRuntime();
  const vfs = await nodeVfs(rt);
  vfs.busyTimeoutMs = o.busyTimeoutMs ?? envBusyTimeout() ?? BUSY_TIMEOUT_MS;
  const db = await Db.open(rt.sqlite3, rt.module, path.resolve(file), NODE_VFS_NAME, { lastVfsError: () => vfs.lastError });
  try {
    // RESERVED contention goes through SQLite's busy handler (xSleep); the VFS itself waits for SHARED/EXCLUSIVE.
    (rt.module as { _sqlite3_busy_timeout?: (db: number, ms: number) => number })._sqlite3_busy_timeout?.(db.handle, vfs.busyTimeoutMs);
    const version = (await db.get<{ user_version: number }>('PRAGMA user_version'))?.user_version ?? 0;
    if (version > SCHEMA_VERSION) {
      throw new SiftError('newer-schema', `the index at ${file} has schema version ${version}, newer than this Sift understands (${SCHEMA_VERSION})`);
    }
    if (o.existing && version === 0) throw new SiftError('no-index', `${file} holds no Sift index`);
    return await Store.open(db, { scratch: o.scratch });
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

/**
 * Open a published pack (store/pack.ts) read-only: SQLITE_OPEN_READONLY on the Node VFS, then
 * Store.openReadOnly (no pragma that writes, no migration; the pack must be at this code's
 * schema version). `known.chunks` (the manifest's count) answers chunkCount without counting.
 */
export async function openNodePack(file: string, known: { chunks?: number } = {}): Promise<Store> {
  const rt = await nodeRuntime();
  const vfs = await nodeVfs(rt);
  const db = await Db.open(rt.sqlite3, rt.module, path.resolve(file), NODE_VFS_NAME, { lastVfsError: () => vfs.lastError, readOnly: true });
  try {
    return await Store.openReadOnly(db, known);
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

/**
 * True once after this process rolled back a hot journal of `file` (a writer died mid-write):
 * the caller should run a quick integrity check before trusting the index.
 */
export async function takeHotJournalRecovery(file: string): Promise<boolean> {
  return (await nodeVfs(await nodeRuntime())).takeHotJournalRecovery(file);
}

/** A fresh, empty in-memory store. */
export async function openMemoryStore(): Promise<Store> {
  return openMemoryStoreOn(await nodeRuntime());
}
