/**
 * A store's database as whole files in OPFS (export reads it, import writes it, remove
 * deletes it with its journal). Worker-only: writing uses a sync access handle.
 *
 * Invariant: call these only while no connection has the database open (the caller closes
 * it first); names are checked by opfsFilename.
 */
import { OPFS_DIR, opfsFilename } from './open-opfs.ts';

async function opfsDir(): Promise<FileSystemDirectoryHandle> {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(OPFS_DIR.replace(/^\//, ''), { create: true });
}

function fileName(name: string): string {
  const path = opfsFilename(name);
  return path.slice(path.lastIndexOf('/') + 1);
}

export async function readOpfsStoreFile(name: string): Promise<Uint8Array> {
  const fh = await (await opfsDir()).getFileHandle(fileName(name));
  return new Uint8Array(await (await fh.getFile()).arrayBuffer());
}

export async function writeOpfsStoreFile(name: string, bytes: Uint8Array): Promise<void> {
  await overwriteOpfsFile(await (await opfsDir()).getFileHandle(fileName(name), { create: true }), bytes);
}

/** Replace an OPFS file's whole content with `bytes` (a sync access handle: workers only). */
export async function overwriteOpfsFile(fh: FileSystemFileHandle, bytes: Uint8Array): Promise<void> {
  const access = await fh.createSyncAccessHandle();
  try {
    access.truncate(0);
    access.write(bytes, { at: 0 });
    access.flush();
  } finally {
    access.close();
  }
}

/** Deletes the database file and any journal/WAL beside it; missing files are fine. */
export async function removeOpfsStoreFiles(name: string): Promise<void> {
  const dir = await opfsDir();
  const base = fileName(name);
  for (const suffix of ['', '-journal', '-wal', '-shm']) await dir.removeEntry(base + suffix).catch(() => undefined);
}
