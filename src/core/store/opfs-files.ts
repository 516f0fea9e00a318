/**
 * A store's database as whole files in OPFS (export reads it, import writes it, remove
 * deletes it with its journal). Worker-only: writing uses a sync access handle.
 *
 * Invariant: call these only while no connection has the database open (the caller closes
 * it first); names are checked by opfsFilename.
 */
import { OPFS_DIR, opfsFilename } from './open-opfs.ts';

/** Beside a database while it is loaded unjournaled (beginUnjournaledLoad). */
const BULK_MARKER = '-bulk';

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
  for (const suffix of ['', '-journal', '-wal', '-shm', BULK_MARKER]) await dir.removeEntry(base + suffix).catch(() => undefined);
}

/**
 * A first index loaded unjournaled (Store.setUnjournaled) is marked by an empty file beside
 * its database, `<name>.sqlite-bulk`, and a Web Lock held by the worker writing it. Web Locks
 * end with their holder, so a marker whose lock is free means that writer died mid-load: its
 * database may be damaged and holds nothing worth keeping (a first index), and the next open
 * deletes it (discardUnfinishedLoad). A load in another tab holds the lock: its files are kept.
 */
const bulkLockName = (name: string): string => `sift-unjournaled:${name}`;

/**
 * Take the lock and write the marker for an unjournaled load of `name`. Returns its end (remove
 * the marker, release the lock: call it once the load is synced), or null when another context
 * holds the lock (its load goes on; this one stays journaled).
 */
export async function beginUnjournaledLoad(name: string): Promise<(() => Promise<void>) | null> {
  if (!locksAvailable()) return null; // a dead load could not be told from a live one
  const release = await holdLock(bulkLockName(name));
  if (!release) return null;
  const dir = await opfsDir();
  const marker = fileName(name) + BULK_MARKER;
  try {
    await dir.getFileHandle(marker, { create: true });
  } catch (e) {
    release();
    throw e;
  }
  return async () => {
    try {
      await dir.removeEntry(marker).catch(() => undefined);
    } finally {
      release();
    }
  };
}

/** Delete `name`'s database when an unjournaled load of it was cut short by its writer's end (see above). True when deleted. */
export async function discardUnfinishedLoad(name: string): Promise<boolean> {
  const dir = await opfsDir();
  const marker = fileName(name) + BULK_MARKER;
  const marked = await dir.getFileHandle(marker).then(() => true, () => false);
  if (!marked || !locksAvailable()) return false;
  const release = await holdLock(bulkLockName(name));
  if (!release) return false; // a live load elsewhere
  try {
    // The marker goes only with the database: one another tab still holds open stays marked,
    // and the next open tries again.
    const gone = await dir.removeEntry(fileName(name)).then(
      () => true,
      (e: unknown) => (e as { name?: string })?.name === 'NotFoundError',
    );
    if (!gone) return false;
    await removeOpfsStoreFiles(name);
    return true;
  } finally {
    release();
  }
}

function locksAvailable(): boolean {
  return typeof navigator !== 'undefined' && typeof navigator.locks?.request === 'function';
}

/** Hold the Web Lock `lockName` if free; resolves to its release, or null when another holds it. */
function holdLock(lockName: string): Promise<(() => void) | null> {
  return new Promise((resolve, reject) => {
    navigator.locks
      .request(lockName, { ifAvailable: true }, (lock) => {
        if (!lock) {
          resolve(null);
          return undefined;
        }
        return new Promise<void>((done) => resolve(() => done()));
      })
      .catch(reject);
  });
}
