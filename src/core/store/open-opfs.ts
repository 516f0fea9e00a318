/**
 * Browser entry point: stores persisted in OPFS through wa-sqlite's OPFSCoopSyncVFS (SYNC
 * build). Runs ONLY in a dedicated worker (createSyncAccessHandle is worker-only); the wasm
 * is located through Vite's `?url` import so it works in dev and in a built app.
 *
 * Invariants: one runtime and one VFS per worker; databases live at /sift/<name>.sqlite in
 * the origin's OPFS; a second tab waits for this one's transaction (see STACK-FACTS). A quota
 * error from OPFS surfaces as StorageFullError (via the VFS's lastError).
 */
import wasmUrl from '@journeyapps/wa-sqlite/dist/wa-sqlite.wasm?url';
import { OPFSCoopSyncVFS } from '@journeyapps/wa-sqlite/src/examples/OPFSCoopSyncVFS.js';
import { createRuntime, ensureVfs, openMemoryStoreOn, type SqliteRuntime } from './open.ts';
import { Db } from './sqlite.ts';
import { Store } from './store.ts';

export const OPFS_VFS_NAME = 'sift-opfs';
export const OPFS_DIR = '/sift';

let runtime: Promise<SqliteRuntime> | null = null;

export function browserRuntime(): Promise<SqliteRuntime> {
  runtime ??= createRuntime({ locateFile: (file: string) => (file.endsWith('.wasm') ? wasmUrl : file) });
  return runtime;
}

/** Whether this context can use OPFSCoopSyncVFS (a dedicated worker with OPFS). */
export function opfsAvailable(): boolean {
  const g = globalThis as { FileSystemFileHandle?: { prototype: object }; navigator?: { storage?: { getDirectory?: unknown } } };
  return typeof g.navigator?.storage?.getDirectory === 'function'
    && !!g.FileSystemFileHandle && 'createSyncAccessHandle' in g.FileSystemFileHandle.prototype;
}

/** `name` becomes a file name: letters, digits, `.`, `_`, `-`; anything else is rejected. */
export function opfsFilename(name: string): string {
  if (!/^[\w.-]{1,128}$/.test(name) || name.startsWith('.')) throw new Error(`invalid store name: ${JSON.stringify(name)}`);
  return `${OPFS_DIR}/${name}.sqlite`;
}

/** Open (creating if needed) the OPFS store `name`. Call from a dedicated worker. */
export async function openOpfsStore(name: string): Promise<Store> {
  const filename = opfsFilename(name);
  const rt = await browserRuntime();
  const vfs = await ensureVfs(rt, OPFS_VFS_NAME, () => OPFSCoopSyncVFS.create(OPFS_VFS_NAME, rt.module));
  const db = await Db.open(rt.sqlite3, filename, OPFS_VFS_NAME, { lastVfsError: () => vfs.lastError });
  return Store.open(db);
}

/** In-memory store on the browser runtime (fallback when OPFS is unavailable). */
export async function openBrowserMemoryStore(): Promise<Store> {
  return openMemoryStoreOn(await browserRuntime());
}
