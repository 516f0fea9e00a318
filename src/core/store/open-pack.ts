/**
 * Opening a published pack (store/pack.ts) read-only on a wa-sqlite runtime, through PackVFS
 * (store/http-vfs.ts) over any RangeSource: HTTP in the app's store worker (pack-http.ts), a
 * file in Node (tests, benches).
 *
 * Invariants: one PackVFS per runtime; each open pack is registered under its own name (the
 * pack's content-addressed file name) and unregistered when its connection closes.
 */
import { ensureVfs, type SqliteRuntime } from './open.ts';
import { Db } from './sqlite.ts';
import { Store } from './store.ts';
import { PackPages, PackVFS, type PackPagesOptions, type RangeSource } from './http-vfs.ts';
import { decodeBase64, type PackManifest } from './pack.ts';

export const PACK_VFS_NAME = 'sift-pack';

export interface OpenPack {
  store: Store;
  pages: PackPages;
}

/** The PackPages of `manifest`'s pack over `source`. */
export function packPages(source: RangeSource, manifest: PackManifest, o: Omit<PackPagesOptions, 'size' | 'pageSize' | 'hashes'> = {}): PackPages {
  return new PackPages(source, { ...o, size: manifest.bytes, pageSize: manifest.pageSize, hashes: decodeBase64(manifest.pageHashes) });
}

/** Bytes fetched at most when a pack opens (its layout's prefetch list; past this, pages are read on demand). */
export const OPEN_PREFETCH_MAX_BYTES = 24 * 1024 * 1024;

/** Fetches what every search reads (the manifest's layout.prefetch), several requests at once. */
export async function prefetchLayout(manifest: PackManifest, pages: PackPages): Promise<void> {
  const runs = manifest.layout?.prefetch ?? [];
  const list: number[] = [];
  for (const [first, n] of runs) for (let i = 0; i < n; i++) list.push(first - 1 + i);
  if (list.length * manifest.pageSize > OPEN_PREFETCH_MAX_BYTES) return;
  await pages.prefetch(list);
}

/** Open the pack that `pages` reads as a read-only Store. */
export async function openPackOn(runtime: SqliteRuntime, manifest: PackManifest, pages: PackPages): Promise<OpenPack> {
  const vfs = await ensureVfs(runtime, PACK_VFS_NAME, () => PackVFS.create(PACK_VFS_NAME, runtime.module));
  // One name per open (a pack opened twice, e.g. after a failed open, gets its own entry).
  const name = `/${manifest.pack}#${Math.random().toString(36).slice(2)}`;
  const file = name.replace('#', '-');
  vfs.add(file, pages);
  let db: Db;
  try {
    const roots = manifest.layout?.tables ?? {};
    const prefetchRows = async (table: string, rowids: readonly number[]) => {
      const root = roots[table];
      if (root) await pages.prefetch(pages.leavesOf(root, rowids));
    };
    db = await Db.open(runtime.sqlite3, runtime.module, file, PACK_VFS_NAME, { readOnly: true, lastVfsError: () => vfs.lastError, onClose: () => vfs.remove(file), prefetchRows });
  } catch (e) {
    vfs.remove(file);
    throw e;
  }
  try {
    return { store: await Store.openReadOnly(db, { chunks: manifest.chunks }), pages };
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}
