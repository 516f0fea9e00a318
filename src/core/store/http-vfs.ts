/**
 * Reading a published pack (store/pack.ts) in place, page by page: `PackPages` turns SQLite's
 * reads into byte-range reads of a `RangeSource` (an HTTP server in the app, a file in tests),
 * with a page cache and read-ahead for sequential runs; `PackVFS` is the read-only wa-sqlite VFS
 * over it. Synchronous, for the SYNC wa-sqlite build the store worker runs: in the browser the
 * range source is a synchronous XMLHttpRequest, which dedicated workers may make.
 *
 * Invariants:
 * - Reads are whole pages: a page is fetched once and kept (LRU bounded by bytes); a run of
 *   missing pages is one request.
 * - Every fetched page is checked against the manifest's page hash before SQLite sees it: a
 *   changed, truncated or damaged pack is a clear PackReadError, never a wrong answer.
 * - The VFS never writes: it reports SQLITE_IOCAP_IMMUTABLE, so SQLite takes no locks and looks
 *   for no journal; a write or truncate answers SQLITE_READONLY.
 * - Read-ahead grows while SQLite reads consecutive pages (a table scan, a long doclist, an
 *   overflow chain) and falls back to one page on a jump; it never crosses a cached page.
 */
import { FacadeVFS } from '@journeyapps/wa-sqlite/src/FacadeVFS.js';
import * as VFS from '@journeyapps/wa-sqlite/src/VFS.js';
import { sha256Hex, sha256HexSync, sha256Sync } from '../hash/hash.ts';
import { SiftError } from './errors.ts';
import { leafOfRowid, leavesOfKey, overflowOf, rowidsOfKey, type KeyValue, type PageReader } from './btree.ts';
import { PAGE_HASH_BYTES } from './pack.ts';

export { PAGE_HASH_BYTES };
/** Pages kept in memory per pack, in bytes. */
export const PACK_CACHE_BYTES = 48 * 1024 * 1024;
/** Longest read-ahead, in bytes (a run of consecutive pages doubles up to this). */
export const PACK_READ_AHEAD_BYTES = 1024 * 1024;
/** Sequential runs followed at once (least recently used dropped). */
const READ_HEADS = 4;

/** `[start, end)` of the pack, synchronously; throws a PackReadError when it cannot. */
export interface RangeSource {
  read(start: number, end: number): Uint8Array;
  /** The same, asynchronously: several at once for prefetching (absent: prefetching reads synchronously). */
  readAsync?(start: number, end: number): Promise<Uint8Array>;
  /**
   * Several `[start, end)` ranges in one request (a host that answers multipart/byteranges):
   * each entry the bytes of its range, or null where the answer did not hold it (then it is
   * read alone). Absent: one request per range.
   */
  readRangesAsync?(ranges: ReadonlyArray<readonly [number, number]>): Promise<Array<Uint8Array | null>>;
}

/** Requests in flight at once when prefetching (browsers open 6 connections per HTTP/1.1 host). */
export const PREFETCH_CONCURRENCY = 6;
/**
 * The same over HTTP/2 or HTTP/3, where every request shares one connection (servers allow 100
 * or more streams at once): a prefetch's runs all go at once, one round trip instead of one
 * per six.
 */
export const MULTIPLEXED_CONCURRENCY = 64;
/** Missing pages closer than this are fetched in one request when prefetching (fewer round trips for a few more bytes). */
const PREFETCH_GAP_PAGES = 2;
/** Ranges asked for in one request at most, when the source reads several at once (keeps the Range header near 2 KB). */
export const MAX_RANGES_PER_REQUEST = 96;

/** Why a pack could not be read: the host, the network or the pack itself. */
export type PackProblem = 'no-ranges' | 'compressed' | 'network' | 'http' | 'size' | 'damaged' | 'cors';

/** A pack read failed; `message` is for a person, `problem` for code. Classified as `io`. */
export class PackReadError extends SiftError {
  readonly problem: PackProblem;
  constructor(problem: PackProblem, message: string) {
    super('io', message);
    this.problem = problem;
  }
}

/** A read of bytes start..stop that returned `got` bytes. */
function endedEarly(start: number, stop: number, got: number): PackReadError {
  return new PackReadError('size', `The index pack ended early: asked for bytes ${start}–${stop - 1}, got ${got} bytes. The pack on the server is truncated or was replaced.`);
}

/** The first PAGE_HASH_BYTES of SHA-256 of every page of `pack`, concatenated (what `sift publish` writes). */
export function pageHashes(pack: Uint8Array, pageSize: number): Uint8Array {
  const pages = Math.ceil(pack.length / pageSize);
  const out = new Uint8Array(pages * PAGE_HASH_BYTES);
  for (let p = 0; p < pages; p++) out.set(sha256Sync(pack.subarray(p * pageSize, (p + 1) * pageSize)).subarray(0, PAGE_HASH_BYTES), p * PAGE_HASH_BYTES);
  return out;
}

export interface PackPagesOptions {
  /** The pack's size in bytes (a multiple of pageSize). */
  size: number;
  pageSize: number;
  /**
   * PAGE_HASH_BYTES per page (manifest `pageHashes`); every fetched page is checked. null: kept
   * in the pack (format 2), loaded by prefetchCopy before any page is read.
   */
  hashes: Uint8Array | null;
  /** Called with the page hashes once prefetchCopy has loaded and checked them: to persist them. */
  onHashes?: (table: Uint8Array) => void;
  cacheBytes?: number;
  readAheadBytes?: number;
  /** Called with every run of pages fetched (first page number, bytes): to persist them. */
  onFetched?: (firstPage: number, bytes: Uint8Array) => void;
}

export interface PackReadStats {
  requests: number;
  bytes: number;
  /** Pages served from memory. */
  hits: number;
}

export class PackPages {
  readonly size: number;
  readonly pageSize: number;
  readonly pageCount: number;
  readonly #source: RangeSource;
  #hashes: Uint8Array | null;
  readonly #onHashes: PackPagesOptions['onHashes'];
  readonly #maxPages: number;
  readonly #maxAhead: number;
  readonly #onFetched: PackPagesOptions['onFetched'];
  /** Page number → bytes, in least-recently-used order (Map iteration order). */
  readonly #cache = new Map<number, Uint8Array>();
  /** Read heads: SQLite interleaves sequential runs (a table's leaves, an index's) with jumps. */
  readonly #heads: Array<{ last: number; ahead: number }> = [];
  readonly stats: PackReadStats = { requests: 0, bytes: 0, hits: 0 };
  /** Prefetch requests in flight at once: PREFETCH_CONCURRENCY, or MULTIPLEXED_CONCURRENCY once the host is known to speak HTTP/2 or 3. */
  concurrency = PREFETCH_CONCURRENCY;
  /** SQLite page `n` (1-based) if in memory, for the b-tree walks (btree.ts); never fetches. */
  readonly #page: PageReader = (n) => this.#cache.get(n - 1) ?? null;

  constructor(source: RangeSource, o: PackPagesOptions) {
    if (!(o.pageSize >= 512 && (o.pageSize & (o.pageSize - 1)) === 0)) throw new RangeError(`bad page size ${o.pageSize}`);
    if (o.size % o.pageSize !== 0) throw new RangeError(`pack size ${o.size} is not a multiple of its page size ${o.pageSize}`);
    this.#source = source;
    this.size = o.size;
    this.pageSize = o.pageSize;
    this.pageCount = o.size / o.pageSize;
    this.#hashes = null;
    if (o.hashes) this.setHashes(o.hashes);
    this.#onHashes = o.onHashes;
    this.#maxPages = Math.max(8, Math.floor((o.cacheBytes ?? PACK_CACHE_BYTES) / o.pageSize));
    this.#maxAhead = Math.max(1, Math.floor((o.readAheadBytes ?? PACK_READ_AHEAD_BYTES) / o.pageSize));
    this.#onFetched = o.onFetched;
  }

  /** Whether the page hashes are at hand (always, unless the pack keeps them and they were not loaded yet). */
  get hasHashes(): boolean {
    return this.#hashes !== null;
  }

  /** The page hashes, PAGE_HASH_BYTES per page, checked by the caller (the manifest, or their SHA-256). */
  setHashes(table: Uint8Array): void {
    if (table.length !== this.pageCount * PAGE_HASH_BYTES) throw new RangeError(`${table.length / PAGE_HASH_BYTES} page hashes for ${this.pageCount} pages`);
    this.#hashes = table;
  }

  /** Whether page `p` is in memory. */
  has(p: number): boolean {
    return this.#cache.has(p);
  }

  /**
   * Fetches the given pages (0-based) that are not in memory, several requests at once: what
   * a query is about to read (the leaves of its candidate rows), or what every query reads
   * (fetched when the pack opens). Near pages share a request.
   */
  async prefetch(pageNos: Iterable<number>): Promise<void> {
    const missing = [...new Set(pageNos)].filter((p) => p >= 0 && p < this.pageCount && !this.#cache.has(p)).sort((a, b) => a - b);
    if (!missing.length) return;
    // With several ranges per request, or requests all at once (HTTP/2), a gap costs bytes and
    // saves nothing: only touching pages share a range.
    const multi = this.#source.readRangesAsync;
    const gap = multi || this.concurrency > PREFETCH_CONCURRENCY ? 1 : PREFETCH_GAP_PAGES;
    const runs: Array<[number, number]> = [];
    for (const p of missing) {
      const last = runs[runs.length - 1];
      if (last && p - (last[0] + last[1] - 1) <= gap) last[1] = p - last[0] + 1;
      else runs.push([p, 1]);
    }
    // Requests: one run each, or (several ranges per request) the runs split evenly over the connections.
    const per = multi ? Math.min(MAX_RANGES_PER_REQUEST, Math.ceil(runs.length / this.concurrency)) : 1;
    const requests: Array<Array<[number, number]>> = [];
    for (let i = 0; i < runs.length; i += per) requests.push(runs.slice(i, i + per));
    const one = async ([first, n]: [number, number], count: boolean) => {
      const start = first * this.pageSize;
      const stop = (first + n) * this.pageSize;
      const bytes = this.#source.readAsync ? await this.#source.readAsync(start, stop) : this.#source.read(start, stop);
      await this.#acceptAsync(first, first + n - 1, start, stop, bytes, count);
    };
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const group = requests[next++]!;
        if (group.length === 1 || !multi) {
          await one(group[0]!, true);
          continue;
        }
        const answers = await multi.call(this.#source, group.map(([f, n]) => [f * this.pageSize, (f + n) * this.pageSize] as const));
        this.stats.requests++;
        for (let i = 0; i < group.length; i++) {
          const [first, n] = group[i]!;
          const bytes = answers[i];
          if (bytes) await this.#acceptAsync(first, first + n - 1, first * this.pageSize, (first + n) * this.pageSize, bytes, false);
          else await one([first, n], true);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, requests.length) }, worker));
  }

  /**
   * Fetches pages `list` (0-based) from a copy of them stored in that order at byte `at` of the
   * source (a pack's layout.head), and first, when `table` says the pack keeps them there and
   * they are not loaded, the page hashes (`table.bytes` of them, padded to `table.padded`):
   * one contiguous range, split evenly over the connections. The hashes are checked against
   * `table.sha256`, then each page against its hash, and kept as if read from its place.
   */
  async prefetchCopy(list: readonly number[], at: number, table?: { bytes: number; padded: number; sha256: string }): Promise<void> {
    const needTable = !!table && !this.#hashes;
    if (!needTable && list.every((p) => this.#cache.has(p))) return;
    const skip = table && !needTable ? table.padded : 0;
    const start = at + skip;
    const total = (needTable ? table.padded : 0) + list.length * this.pageSize;
    const parts = Math.max(1, Math.min(PREFETCH_CONCURRENCY, Math.ceil(total / this.pageSize)));
    const per = Math.ceil(total / parts / this.pageSize) * this.pageSize;
    const pieces = await Promise.all(Array.from({ length: parts }, async (_, k) => {
      const a = start + k * per;
      const b = Math.min(start + total, a + per);
      if (a >= b) return new Uint8Array(0);
      const bytes = this.#source.readAsync ? await this.#source.readAsync(a, b) : this.#source.read(a, b);
      this.stats.requests++;
      if (bytes.length !== b - a) throw endedEarly(a, b, bytes.length);
      return bytes;
    }));
    const all = new Uint8Array(total);
    let off = 0;
    for (const piece of pieces) {
      all.set(piece, off);
      off += piece.length;
    }
    let pos = 0;
    if (needTable) {
      const hashes = all.slice(0, table.bytes);
      this.stats.bytes += table.padded;
      // WebCrypto where there is one (not on a plain-HTTP page of another host).
      const hex = globalThis.crypto?.subtle ? await sha256Hex(hashes) : sha256HexSync(hashes);
      if (hex !== table.sha256) throw new PackReadError('damaged', 'The index pack on the server does not match its manifest (its page hashes have the wrong SHA-256): it was changed or damaged after publishing. Publish it again.');
      this.setHashes(hashes);
      this.#onHashes?.(hashes);
      pos = table.padded;
    }
    // Pages that are neighbours in the database too are kept as one run.
    for (let i = 0; i < list.length; ) {
      let j = i;
      while (j + 1 < list.length && list[j + 1] === list[j]! + 1) j++;
      const a = pos + i * this.pageSize;
      const b = pos + (j + 1) * this.pageSize;
      await this.#acceptAsync(list[i]!, list[j]!, start + a, start + b, all.subarray(a, b), false);
      i = j + 1;
    }
  }

  /**
   * The leaf pages (0-based) holding `rowids` in the table tree whose root is SQLite page
   * `root`, found through the interior pages in memory (fetched when the pack opened).
   */
  leavesOf(root: number, rowids: readonly number[]): number[] {
    const out = new Set<number>();
    for (const id of rowids) {
      const leaf = leafOfRowid(root, id, this.#page, this.pageCount);
      if (leaf !== null) out.add(leaf - 1);
    }
    return [...out];
  }

  /** The leaf pages (0-based) of the index tree at SQLite page `root` that may hold entries led by `key` (btree.ts leavesOfKey). */
  leavesOfKey(root: number, key: ReadonlyArray<string | number>, nocase: boolean): number[] {
    return leavesOfKey(root, keyValues(key), nocase, this.#page, this.pageCount, this.#usable()).map((p) => p - 1);
  }

  /** The table rowids of the entries led by `key` in the index tree at `root`, from its leaves in memory (fetch leavesOfKey first). */
  rowidsOfKey(root: number, key: ReadonlyArray<string | number>, nocase: boolean): number[] {
    const k = keyValues(key);
    const out: number[] = [];
    for (const leaf of leavesOfKey(root, k, nocase, this.#page, this.pageCount, this.#usable())) {
      const b = this.#cache.get(leaf - 1);
      if (b) out.push(...rowidsOfKey(b, leaf, k, nocase, this.#usable()));
    }
    return out;
  }

  #usable(): number {
    return this.pageSize - (this.#cache.get(0)?.[20] ?? 0); // header byte 20: reserved bytes per page
  }

  /**
   * The overflow pages (0-based) of those `rowids` whose rows spill past their leaf (a long
   * file's text), guessed as the run after each chain's first page (btree.ts overflowOf);
   * rows whose leaf is not in memory are skipped.
   */
  overflowOf(root: number, rowids: readonly number[]): number[] {
    const usable = this.#usable();
    const out: number[] = [];
    for (const id of rowids) {
      const leaf = leafOfRowid(root, id, this.#page, this.pageCount);
      const b = leaf === null ? null : this.#page(leaf);
      const o = b ? overflowOf(b, leaf!, id, usable) : null;
      if (o) for (let i = 0; i < o.pages && o.first + i <= this.pageCount; i++) out.push(o.first - 1 + i);
    }
    return out;
  }

  /** Puts pages read earlier (Cache Storage) back into memory; a page that fails its hash is ignored. */
  seed(firstPage: number, bytes: Uint8Array): number {
    if (!this.#hashes) return 0; // nothing can be checked yet
    let n = 0;
    for (let i = 0; i * this.pageSize < bytes.length; i++) {
      const p = firstPage + i;
      const page = bytes.subarray(i * this.pageSize, (i + 1) * this.pageSize);
      if (p >= this.pageCount || page.length !== this.pageSize || !this.#hashOk(p, page)) continue;
      this.#put(p, page.slice());
      n++;
    }
    return n;
  }

  /** Copy `[offset, offset + out.length)` of the pack into `out`; throws PackReadError. */
  read(out: Uint8Array, offset: number): void {
    if (offset < 0 || offset + out.length > this.size) throw new RangeError(`read past the pack's end (${offset}+${out.length} of ${this.size})`);
    const first = Math.floor(offset / this.pageSize);
    const last = Math.floor((offset + out.length - 1) / this.pageSize);
    this.#sequence(first, last);
    for (let p = first; p <= last; p++) {
      let page = this.#cache.get(p);
      if (page) {
        this.stats.hits++;
        this.#cache.delete(p);
        this.#cache.set(p, page); // most recently used
      } else {
        page = this.#fetch(p, last);
      }
      const pageStart = p * this.pageSize;
      const from = Math.max(offset, pageStart);
      const to = Math.min(offset + out.length, pageStart + this.pageSize);
      out.set(page.subarray(from - pageStart, to - pageStart), from - offset);
    }
  }

  /** How far to read ahead: a read just after one of the recent heads doubles that head's run; a jump starts a new head. */
  #sequence(first: number, last: number): void {
    let head = this.#heads.find((h) => first >= h.last && first <= h.last + 2);
    if (head) {
      head.ahead = Math.min(this.#maxAhead, head.ahead * 2);
      this.#heads.splice(this.#heads.indexOf(head), 1);
    } else {
      head = { last, ahead: 1 };
      if (this.#heads.length >= READ_HEADS) this.#heads.pop();
    }
    head.last = last;
    this.#heads.unshift(head);
    this.#ahead = head.ahead;
  }
  #ahead = 1;

  /** Fetches page `p` and the missing pages after it (up to `last` and the read-ahead); returns page p. */
  #fetch(p: number, last: number): Uint8Array {
    let end = Math.min(this.pageCount - 1, Math.max(last, p + this.#ahead - 1));
    for (let q = p + 1; q <= end; q++) {
      if (this.#cache.has(q)) {
        end = q - 1;
        break;
      }
    }
    const start = p * this.pageSize;
    const stop = (end + 1) * this.pageSize;
    this.#accept(p, end, start, stop, this.#source.read(start, stop));
    return this.#cache.get(p)!;
  }

  /** Checks fetched pages p..end against their hashes and keeps them. */
  #accept(p: number, end: number, start: number, stop: number, bytes: Uint8Array, countRequest = true, digests?: Uint8Array[]): void {
    if (countRequest) this.stats.requests++;
    this.stats.bytes += bytes.length;
    if (bytes.length !== stop - start) throw endedEarly(start, stop, bytes.length);
    for (let q = p; q <= end; q++) {
      const page = bytes.subarray((q - p) * this.pageSize, (q - p + 1) * this.pageSize);
      if (!this.#hashOk(q, page, digests?.[q - p])) {
        throw new PackReadError('damaged', `The index pack on the server does not match its manifest (page ${q + 1} of ${this.pageCount} has the wrong hash): it was changed or damaged after publishing. Publish it again.`);
      }
    }
    for (let q = p; q <= end; q++) if (!this.#cache.has(q)) this.#put(q, bytes.slice((q - p) * this.pageSize, (q - p + 1) * this.pageSize));
    this.#onFetched?.(p, bytes);
  }

  /**
   * #accept for prefetched pages: the hashes are checked with WebCrypto where there is one (it
   * runs off this thread, several at once: the layout's megabytes at open cost no JavaScript
   * SHA-256), then the pages are kept exactly as #accept keeps them.
   */
  async #acceptAsync(p: number, end: number, start: number, stop: number, bytes: Uint8Array, countRequest = true): Promise<void> {
    const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
    if (!subtle || bytes.length !== stop - start) return this.#accept(p, end, start, stop, bytes, countRequest);
    const digests = await Promise.all(Array.from({ length: end - p + 1 }, (_, i) => subtle.digest('SHA-256', bytes.subarray(i * this.pageSize, (i + 1) * this.pageSize) as Uint8Array<ArrayBuffer>)));
    this.#accept(p, end, start, stop, bytes, countRequest, digests.map((d) => new Uint8Array(d)));
  }

  #hashOk(p: number, page: Uint8Array, digest?: Uint8Array): boolean {
    if (!this.#hashes) throw new PackReadError('damaged', 'The index pack was read before its page hashes were loaded.');
    const h = digest ?? sha256Sync(page);
    const at = p * PAGE_HASH_BYTES;
    for (let i = 0; i < PAGE_HASH_BYTES; i++) if (h[i] !== this.#hashes[at + i]) return false;
    return true;
  }

  #put(p: number, page: Uint8Array): void {
    this.#cache.delete(p);
    this.#cache.set(p, page);
    while (this.#cache.size > this.#maxPages) this.#cache.delete(this.#cache.keys().next().value!);
  }
}

const utf8 = new TextEncoder();
function keyValues(key: ReadonlyArray<string | number>): KeyValue[] {
  return key.map((v) => (typeof v === 'string' ? utf8.encode(v) : v));
}

/**
 * The read-only VFS over registered packs: `add(name, pages)`, then open `name` with
 * SQLITE_OPEN_READONLY on this VFS. Any other name does not exist.
 */
export class PackVFS extends FacadeVFS {
  readonly #packs = new Map<string, PackPages>();
  readonly #open = new Map<number, PackPages>();
  /** The last read failure (a PackReadError), for Db's error messages. */
  lastError: unknown = null;

  static async create(name: string, module: object): Promise<PackVFS> {
    const vfs = new PackVFS(name, module);
    await vfs.isReady();
    return vfs;
  }

  add(name: string, pages: PackPages): void {
    this.#packs.set(this.#key(name), pages);
  }

  remove(name: string): void {
    this.#packs.delete(this.#key(name));
  }

  #key(name: string): string {
    return new URL(name, 'file://').pathname;
  }

  override jOpen(filename: string | null, fileId: number, flags: number, pOutFlags: DataView): number {
    const pages = filename ? this.#packs.get(this.#key(filename)) : undefined;
    if (!pages || !(flags & VFS.SQLITE_OPEN_MAIN_DB)) return VFS.SQLITE_CANTOPEN;
    this.#open.set(fileId, pages);
    pOutFlags.setInt32(0, VFS.SQLITE_OPEN_READONLY | VFS.SQLITE_OPEN_MAIN_DB, true);
    return VFS.SQLITE_OK;
  }

  override jClose(fileId: number): number {
    this.#open.delete(fileId);
    return VFS.SQLITE_OK;
  }

  override jRead(fileId: number, pData: Uint8Array, iOffset: number): number {
    const pages = this.#open.get(fileId);
    if (!pages) return VFS.SQLITE_IOERR_READ;
    const n = Math.max(0, Math.min(pData.length, pages.size - iOffset));
    this.lastError = null;
    try {
      if (n > 0) pages.read(pData.subarray(0, n), iOffset);
    } catch (e) {
      this.lastError = e;
      return VFS.SQLITE_IOERR_READ;
    }
    if (n < pData.length) {
      pData.fill(0, n);
      return VFS.SQLITE_IOERR_SHORT_READ;
    }
    return VFS.SQLITE_OK;
  }

  override jWrite(): number {
    return VFS.SQLITE_READONLY;
  }

  override jTruncate(): number {
    return VFS.SQLITE_READONLY;
  }

  override jFileSize(fileId: number, pSize64: DataView): number {
    const pages = this.#open.get(fileId);
    if (!pages) return VFS.SQLITE_IOERR_FSTAT;
    pSize64.setBigInt64(0, BigInt(pages.size), true);
    return VFS.SQLITE_OK;
  }

  override jAccess(name: string, _flags: number, pResOut: DataView): number {
    pResOut.setInt32(0, this.#packs.has(this.#key(name)) ? 1 : 0, true);
    return VFS.SQLITE_OK;
  }

  override jDelete(): number {
    return VFS.SQLITE_READONLY;
  }

  override jDeviceCharacteristics(): number {
    return VFS.SQLITE_IOCAP_IMMUTABLE;
  }
}
