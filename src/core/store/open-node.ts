/**
 * Node entry points: the wa-sqlite runtime loaded from node_modules (wasm bytes read with
 * fs, no fetch), on-disk stores through NodeFsVFS, and in-memory stores.
 *
 * Invariant: one runtime per process (cached promise); every store opens on it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { NodeFsVFS } from './node-vfs-node.ts';
import { createRuntime, ensureVfs, openMemoryStoreOn, type SqliteRuntime } from './open.ts';
import { Db } from './sqlite.ts';
import { Store } from './store.ts';

export const NODE_VFS_NAME = 'sift-node-fs';

let runtime: Promise<SqliteRuntime> | null = null;

export function nodeRuntime(): Promise<SqliteRuntime> {
  runtime ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasmBinary = readFileSync(require.resolve('@journeyapps/wa-sqlite/dist/wa-sqlite.wasm'));
    return createRuntime({ wasmBinary });
  })();
  return runtime;
}

/** Open (creating if needed) the index database at `file`. */
export async function openNodeStore(file: string): Promise<Store> {
  const rt = await nodeRuntime();
  const vfs = await ensureVfs(rt, NODE_VFS_NAME, () => NodeFsVFS.create(NODE_VFS_NAME, rt.module));
  const db = await Db.open(rt.sqlite3, path.resolve(file), NODE_VFS_NAME, { lastVfsError: () => vfs.lastError });
  return Store.open(db);
}

/** A fresh, empty in-memory store. */
export async function openMemoryStore(): Promise<Store> {
  return openMemoryStoreOn(await nodeRuntime());
}
