/**
 * Environment-neutral opening: a wa-sqlite runtime (module + API) is created once per
 * environment by open-node.ts / open-opfs.ts, and stores open on it here. Also the
 * in-memory store (MemoryVFS), used by tests and as the browser fallback when OPFS is
 * unavailable.
 *
 * Invariants: one VFS instance per (runtime, name), registered once; each memory store gets
 * its own file in the shared MemoryVFS and deletes it on close.
 */
import * as SQLite from '@journeyapps/wa-sqlite';
import SQLiteESMFactory from '@journeyapps/wa-sqlite/dist/wa-sqlite.mjs';
import { MemoryVFS } from '@journeyapps/wa-sqlite/src/examples/MemoryVFS.js';
import { Db, type SqliteModule } from './sqlite.ts';
import { Store } from './store.ts';

export const MEMORY_VFS_NAME = 'sift-memory';

export interface SqliteRuntime {
  /** The Emscripten module (VFSes are created on it; Db binds through its exports). */
  module: SqliteModule;
  sqlite3: SQLiteAPI;
  /** VFSes registered on this runtime, by name. */
  vfs: Map<string, SQLiteVFS>;
}

/** Instantiate the SYNC wa-sqlite build. `options` go to the Emscripten factory (locateFile, wasmBinary). */
export async function createRuntime(options: Record<string, unknown> = {}): Promise<SqliteRuntime> {
  const module = (await SQLiteESMFactory(options)) as SqliteModule;
  return { module, sqlite3: SQLite.Factory(module), vfs: new Map() };
}

/** VFSes being created, per runtime and name: two opens at the same moment share one. */
const creating = new WeakMap<SqliteRuntime, Map<string, Promise<SQLiteVFS>>>();

/**
 * Register `vfs` on the runtime once, under its name. Safe to call concurrently: a second
 * registration under the same name would leave SQLite using one instance and the caller another.
 */
export async function ensureVfs<T extends SQLiteVFS>(runtime: SqliteRuntime, name: string, create: () => Promise<T>): Promise<T> {
  const existing = runtime.vfs.get(name);
  if (existing) return existing as T;
  let pending = creating.get(runtime);
  if (!pending) creating.set(runtime, (pending = new Map()));
  let p = pending.get(name);
  if (!p) {
    p = create().then((vfs) => {
      runtime.sqlite3.vfs_register(vfs, false);
      runtime.vfs.set(name, vfs);
      return vfs;
    });
    pending.set(name, p);
    p.then(() => pending.delete(name), () => pending.delete(name));
  }
  return (await p) as T;
}

interface MemoryVfsLike extends SQLiteVFS {
  jDelete(name: string, syncDir: number): number;
}
interface MemoryVfsClass {
  create(name: string, module: object): Promise<MemoryVfsLike>;
}

let memoryCounter = 0;

/** A fresh, empty in-memory store on `runtime`. */
export async function openMemoryStoreOn(runtime: SqliteRuntime): Promise<Store> {
  const vfs = await ensureVfs(runtime, MEMORY_VFS_NAME, () =>
    (MemoryVFS as unknown as MemoryVfsClass).create(MEMORY_VFS_NAME, runtime.module),
  );
  const filename = `/sift-mem-${++memoryCounter}.db`;
  const db = await Db.open(runtime.sqlite3, runtime.module, filename, MEMORY_VFS_NAME, {
    onClose: () => {
      vfs.jDelete(filename, 0);
      vfs.jDelete(`${filename}-journal`, 0);
    },
  });
  return Store.open(db);
}
