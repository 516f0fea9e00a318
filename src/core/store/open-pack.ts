/**
 * Opening a published pack (store/pack.ts) read-only on a wa-sqlite runtime, through PackVFS
 * (store/http-vfs.ts) over any RangeSource: HTTP in the app's store worker (pack-http.ts), a
 * file in Node (tests, benches).
 *
 * Invariants: one PackVFS per runtime; each open pack is registered under its own name (the
 * pack's content-addressed file name) and unregistered when its connection closes.
 */
import { ensureVfs, type SqliteRuntime } from './open.ts';
import { Db, type KeyLookup, type Queryable } from './sqlite.ts';
import { Store } from './store.ts';
import { PackPages, PackVFS, type PackPagesOptions, type RangeSource } from './http-vfs.ts';
import { decodeBase64, packDatabaseBytes, packHashTable, type PackManifest } from './pack.ts';

export const PACK_VFS_NAME = 'sift-pack';

export interface OpenPack {
  store: Store;
  pages: PackPages;
}

/** The PackPages of `manifest`'s pack over `source`. */
export function packPages(source: RangeSource, manifest: PackManifest, o: Omit<PackPagesOptions, 'size' | 'pageSize' | 'hashes'> = {}): PackPages {
  // Format 2 keeps the page hashes in the pack: prefetchLayout loads them (openPackOn makes sure).
  return new PackPages(source, { ...o, size: packDatabaseBytes(manifest), pageSize: manifest.pageSize, hashes: manifest.pageHashes ? decodeBase64(manifest.pageHashes) : null });
}

/** FTS5 leaves read ahead per query token, at most (its doclist and, for a prefix, those of the words it prefixes). */
export const DOCLIST_PREFETCH_LEAVES = 1024;
/**
 * A prefix token's other terms are fetched only when their doclists span at most this many
 * FTS5 leaves: the planner (fts-plan.ts) searches a common word as typed, without its prefix,
 * so a wide prefix is usually never read (`"atomic"*` covers every `atomic_*` name).
 */
export const PREFIX_PREFETCH_LEAVES = 24;

/**
 * The tokens of FTS5 phrases as the unicode61 tokenizer makes them (lower case, split at
 * anything but letters and digits; ASCII-exact, a miss only costs reads later), each marked
 * when it is a prefix: the last token of a phrase written `"…"*`. Only the quoted strings of a
 * phrase are its words: a column filter (`path_words : "de"`, `{names tokens} : ("a" OR "b")`)
 * names columns, not tokens to read.
 */
export function phraseTokens(phrases: readonly string[]): Array<{ token: string; prefix: boolean }> {
  const out: Array<{ token: string; prefix: boolean }> = [];
  const push = (text: string, prefix: boolean) => {
    const words = text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    words.forEach((w, i) => out.push({ token: w, prefix: prefix && i === words.length - 1 }));
  };
  for (const raw of phrases) {
    const quoted = [...raw.matchAll(QUOTED_PHRASE)];
    if (!quoted.length) push(raw, false);
    for (const q of quoted) push(q[1]!.replace(/""/g, '"'), q[2] === '*');
  }
  return out;
}

/** A quoted FTS5 string (`""` inside is a quote) and its prefix marker. */
const QUOTED_PHRASE = /"((?:[^"]|"")*)"\s*(\*?)/g;

/**
 * The `chunks_fts_data` rowids of the leaves holding the doclists of the phrases' tokens, from
 * the FTS5 index's `%_idx` table (fetched whole when the pack opened): a token's doclist
 * starts on the leaf of the last idx entry at or before it and ends on the leaf of the first
 * entry past it (past every term it prefixes, for a prefix token whose span is small). idx.pgno
 * is `leaf << 1 | has-doclist-index`; rowids are FTS5's `(segid << 37) + pgno`, and a leaf's
 * doclist index (a long doclist's skip list) is at `(segid << 37) + (1 << 36) + pgno`.
 */
async function doclistRowids(db: Queryable, phrases: readonly string[]): Promise<number[]> {
  const tokens = new Map<string, boolean>();
  for (const t of phraseTokens(phrases)) tokens.set(t.token, (tokens.get(t.token) ?? false) || t.prefix);
  if (!tokens.size) return [];
  const enc = new TextEncoder();
  const out: number[] = [];
  const segs = await db.all<{ segid: number }>('SELECT DISTINCT segid FROM chunks_fts_idx');
  const leafAt = async (segid: number, op: '<=' | '>' | '>=', key: Uint8Array) =>
    (await db.get<{ pgno: number }>(`SELECT pgno FROM chunks_fts_idx WHERE segid = ? AND term ${op} ? ORDER BY term ${op === '<=' ? 'DESC' : ''} LIMIT 1`, [segid, key]))?.pgno;
  for (const { segid } of segs) {
    for (const [token, prefix] of tokens) {
      const k = enc.encode(`0${token}`);
      const from = await leafAt(segid, '<=', k);
      if (from === undefined) continue;
      const first = from >> 1;
      // The token's own doclist ends on the leaf where the next term starts.
      const next = await leafAt(segid, '>', k);
      let last = next === undefined ? first + DOCLIST_PREFETCH_LEAVES : next >> 1;
      if (prefix) {
        // Every term with this prefix (`"page"*` reads pages, pagevec, …), when they are few.
        const after = k.slice();
        after[after.length - 1]!++;
        const end = await leafAt(segid, '>=', after);
        const wide = end === undefined ? first + DOCLIST_PREFETCH_LEAVES : end >> 1;
        if (wide - last <= PREFIX_PREFETCH_LEAVES) last = wide;
      }
      last = Math.min(last, first + DOCLIST_PREFETCH_LEAVES);
      for (let p = first; p <= last; p++) out.push(segid * 2 ** 37 + p, segid * 2 ** 37 + 2 ** 36 + p);
    }
  }
  return out;
}

/** Bytes fetched at most when a pack opens (its layout's prefetch list; past this, pages are read on demand). */
export const OPEN_PREFETCH_MAX_BYTES = 24 * 1024 * 1024;

/**
 * Fetches what every search reads (the manifest's layout.prefetch): from the pack's copy of
 * those pages after the database when it has one (one range, split over the connections), else
 * run by run, several requests at once.
 */
export async function prefetchLayout(manifest: PackManifest, pages: PackPages): Promise<void> {
  const runs = manifest.layout?.prefetch ?? [];
  let list: number[] = [];
  for (const [first, n] of runs) for (let i = 0; i < n; i++) list.push(first - 1 + i);
  const table = packHashTable(manifest);
  if (list.length * manifest.pageSize > OPEN_PREFETCH_MAX_BYTES) {
    if (!table) return;
    list = []; // the page hashes alone
  }
  const head = manifest.layout?.head;
  if (head !== undefined) await pages.prefetchCopy(list, head, table ?? undefined);
  else await pages.prefetch(list);
}

/** Open the pack that `pages` reads as a read-only Store. */
export async function openPackOn(runtime: SqliteRuntime, manifest: PackManifest, pages: PackPages): Promise<OpenPack> {
  const table = packHashTable(manifest);
  if (table && !pages.hasHashes) await pages.prefetchCopy([], table.at, table); // the page hashes before any page
  const vfs = await ensureVfs(runtime, PACK_VFS_NAME, () => PackVFS.create(PACK_VFS_NAME, runtime.module));
  // One name per open (a pack opened twice, e.g. after a failed open, gets its own entry).
  const name = `/${manifest.pack}#${Math.random().toString(36).slice(2)}`;
  const file = name.replace('#', '-');
  vfs.add(file, pages);
  let db: Db;
  try {
    const roots = manifest.layout?.tables ?? {};
    /** The rows `rowids` of the table tree at `root`: their leaves, then (long rows, a file's text) their overflow pages, once the leaves say where. */
    const fetchRows = async (root: number, rowids: readonly number[]) => {
      await pages.prefetch(pages.leavesOf(root, rowids));
      await pages.prefetch(pages.overflowOf(root, rowids));
    };
    const prefetchRows = async (table: string, rowids: readonly number[]) => {
      const root = roots[table];
      if (root) await fetchRows(root, rowids);
    };
    let schemaRoots: Map<string, number> | null = null;
    // `opened`: the Db, or the handle of the read it runs in (DbOptions.prefetchTerms).
    const prefetchTerms = async (terms: readonly string[], lookups: readonly KeyLookup[] = [], opened: Queryable) => {
      const want: number[] = [];
      const root = roots.chunks_fts_data;
      if (root && terms.length) want.push(...pages.leavesOf(root, await doclistRowids(opened, terms)));
      if (lookups.length) {
        // Index and table roots from the schema (page 1, in memory since the pack opened).
        schemaRoots ??= new Map((await opened.all<{ name: string; rootpage: number }>("SELECT name, rootpage FROM sqlite_schema WHERE type IN ('index', 'table')")).map((r) => [r.name, r.rootpage]));
        for (const l of lookups) {
          const at = schemaRoots.get(l.index);
          if (at) want.push(...pages.leavesOfKey(at, l.key, !!l.nocase));
        }
      }
      if (want.length) await pages.prefetch(want); // one round: the doclists and the seeks' leaves together
      // Then the rows the seeks lead to, where the statement reads them (their leaves, then overflow).
      const rows = new Map<string, number[]>();
      for (const l of lookups) {
        const at = l.table ? schemaRoots?.get(l.index) : undefined;
        if (!at || !l.table) continue;
        const ids = pages.rowidsOfKey(at, l.key, !!l.nocase);
        if (ids.length) rows.set(l.table, [...(rows.get(l.table) ?? []), ...ids]);
      }
      for (const [table, ids] of rows) {
        const tableRoot = schemaRoots?.get(table);
        if (tableRoot) await fetchRows(tableRoot, ids);
      }
    };
    db = await Db.open(runtime.sqlite3, runtime.module, file, PACK_VFS_NAME, { readOnly: true, lastVfsError: () => vfs.lastError, onClose: () => vfs.remove(file), prefetchRows, prefetchTerms });
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
