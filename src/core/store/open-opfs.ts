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

interface WritableVfs {
  lastError: unknown;
  jWrite(fileId: number, pData: Uint8Array, iOffset: number): number;
}

/**
 * Chromium's sync access handle writes fewer bytes than asked when the origin's quota runs
 * out; OPFSCoopSyncVFS then records Error('short write') and SQLite says "disk I/O error".
 * Record it as the QuotaExceededError it is, so the store reports StorageFullError (seen in
 * test/e2e/app-faults.spec.ts with a real quota set through DevTools).
 */
function reportShortWrites<T extends object>(vfs: T): T {
  const v = vfs as unknown as WritableVfs;
  const write = v.jWrite.bind(v);
  v.jWrite = (fileId, pData, iOffset) => {
    const rc = write(fileId, pData, iOffset);
    const e = v.lastError as { message?: unknown } | null;
    if (rc !== 0 && e?.message === 'short write') v.lastError = new DOMException('OPFS write cut short: the storage quota is used up', 'QuotaExceededError');
    return rc;
  };
  return vfs;
}

export interface OpfsStoreOptions {
  /** Page cache of this connection in KiB (SQLite's cache_size); default: Store.open's. */
  cacheSizeKiB?: number;
}

/** Open (creating if needed) the OPFS store `name`. Call from a dedicated worker. */
export async function openOpfsStore(name: string, opts: OpfsStoreOptions = {}): Promise<Store> {
  const filename = opfsFilename(name);
  const rt = await browserRuntime();
  const vfs = await ensureVfs(rt, OPFS_VFS_NAME, async () => reportShortWrites(await OPFSCoopSyncVFS.create(OPFS_VFS_NAME, rt.module)));
  const db = await Db.open(rt.sqlite3, rt.module, filename, OPFS_VFS_NAME, { lastVfsError: () => vfs.lastError });
  const store = await Store.open(db);
  const kib = opts.cacheSizeKiB;
  if (kib !== undefined) {
    if (!(Number.isInteger(kib) && kib > 0)) throw new RangeError(`cacheSizeKiB must be a positive integer, got ${kib}`);
    await db.exec(`PRAGMA cache_size = -${kib}`);
  }
  return store;
}

/** In-memory store on the browser runtime (fallback when OPFS is unavailable). */
export async function openBrowserMemoryStore(): Promise<Store> {
  return openMemoryStoreOn(await browserRuntime());
}
