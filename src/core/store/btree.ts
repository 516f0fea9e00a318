/**
 * Just enough of SQLite's file format to read a pack's b-tree shape (issue 27): which pages are
 * interior pages, which pages hold a table's leaves, and which leaf holds a rowid. `sift
 * publish` lists the pages worth fetching when a pack opens; the reader maps the candidate
 * rowids of a query to the leaf pages it will need, so it can fetch them all at once instead
 * of one round trip each. See https://www.sqlite.org/fileformat2.html §1.6 (b-tree pages).
 *
 * Invariants: pages are numbered from 1 as SQLite does; `page(n)` returns the page's bytes or
 * null when they are not at hand, and a walk never follows a pointer outside 1..pageCount.
 */

const INTERIOR_INDEX = 0x02;
const INTERIOR_TABLE = 0x05;
const LEAF_INDEX = 0x0a;
const LEAF_TABLE = 0x0d;

export type PageReader = (pageNo: number) => Uint8Array | null;

function headerOffset(pageNo: number): number {
  return pageNo === 1 ? 100 : 0;
}

function u16(b: Uint8Array, at: number): number {
  return (b[at]! << 8) | b[at + 1]!;
}
function u32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!;
}

/** A varint at `at`: [value, bytes used] (values past 2^53 lose precision; rowids here are small). */
export function varint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const x = b[at + i]!;
    v = v * 128 + (x & 0x7f);
    if (!(x & 0x80)) return [v, i + 1];
  }
  return [v * 256 + b[at + 8]!, 9];
}

export function pageType(b: Uint8Array, pageNo: number): number {
  return b[headerOffset(pageNo)]!;
}

export function isInterior(b: Uint8Array, pageNo: number): boolean {
  const t = pageType(b, pageNo);
  return t === INTERIOR_TABLE || t === INTERIOR_INDEX;
}

/** The child pages of an interior page, left to right, with each child's largest rowid (table trees; Infinity for the right-most). */
export function children(b: Uint8Array, pageNo: number): Array<{ page: number; maxRowid: number }> {
  const h = headerOffset(pageNo);
  const type = b[h];
  if (type !== INTERIOR_TABLE && type !== INTERIOR_INDEX) return [];
  const cells = u16(b, h + 3);
  const out: Array<{ page: number; maxRowid: number }> = [];
  for (let i = 0; i < cells; i++) {
    const at = u16(b, h + 12 + 2 * i);
    const page = u32(b, at);
    out.push({ page, maxRowid: type === INTERIOR_TABLE ? varint(b, at + 4)[0] : NaN });
  }
  out.push({ page: u32(b, h + 8), maxRowid: Infinity });
  return out;
}

export interface TreeShape {
  /** Interior pages of the tree, root first. */
  interior: number[];
  /** Leaf pages, left to right (only when asked for). */
  leaves: number[];
}

/** Walk the tree at `root` through `page`; pages not at hand end the walk there. */
export function treeShape(root: number, page: PageReader, pageCount: number, withLeaves = false): TreeShape {
  const interior: number[] = [];
  const leaves: number[] = [];
  let level = [root];
  const seen = new Set<number>();
  while (level.length) {
    const next: number[] = [];
    for (const p of level) {
      if (p < 1 || p > pageCount || seen.has(p)) continue;
      seen.add(p);
      const b = page(p);
      if (!b) continue;
      const t = pageType(b, p);
      if (t === LEAF_TABLE || t === LEAF_INDEX) {
        if (withLeaves) leaves.push(p);
        continue;
      }
      if (t !== INTERIOR_TABLE && t !== INTERIOR_INDEX) continue;
      interior.push(p);
      for (const c of children(b, p)) next.push(c.page);
    }
    level = next;
  }
  return { interior, leaves };
}

/**
 * The leaf page that holds `rowid` in the table tree at `root`, reading only interior pages
 * through `page`. A child page that is not at hand is taken to be the leaf (a pack reader
 * keeps every interior page); null when the root is not at hand.
 */
export function leafOfRowid(root: number, rowid: number, page: PageReader, pageCount: number): number | null {
  let p = root;
  for (let depth = 0; depth < 20; depth++) {
    if (p < 1 || p > pageCount) return null;
    const b = page(p);
    if (!b) return depth > 0 ? p : null;
    const t = pageType(b, p);
    if (t === LEAF_TABLE) return p;
    if (t !== INTERIOR_TABLE) return null;
    const kids = children(b, p);
    // The first child whose largest rowid is at least the one sought.
    let lo = 0;
    let hi = kids.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (kids[mid]!.maxRowid >= rowid) hi = mid;
      else lo = mid + 1;
    }
    p = kids[lo]!.page;
  }
  return null;
}

/**
 * Where the row `rowid` of table leaf page `b` (number `pageNo`) spills: its first overflow
 * page and how many overflow pages its payload fills, or null when it fits on the leaf (or is
 * not there). `usable` is the page size less the reserved bytes. The chain's pages are linked
 * one to the next; `sift publish` writes them in order (VACUUM), so they are usually the run
 * starting at `first` — a guess a reader may fetch ahead, never trust (SQLite follows the links).
 */
export function overflowOf(b: Uint8Array, pageNo: number, rowid: number, usable: number): { first: number; pages: number } | null {
  const h = headerOffset(pageNo);
  if (b[h] !== LEAF_TABLE) return null;
  const cells = u16(b, h + 3);
  // Cells are in rowid order: binary search.
  let lo = 0;
  let hi = cells - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = u16(b, h + 8 + 2 * mid);
    const [payload, n1] = varint(b, at);
    const [id, n2] = varint(b, at + n1);
    if (id < rowid) lo = mid + 1;
    else if (id > rowid) hi = mid - 1;
    else {
      const maxLocal = usable - 35;
      if (payload <= maxLocal) return null;
      // fileformat2 §1.6: the part kept on the leaf.
      const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;
      const k = minLocal + ((payload - minLocal) % (usable - 4));
      const local = k <= maxLocal ? k : minLocal;
      const first = u32(b, at + n1 + n2 + local);
      return { first, pages: Math.ceil((payload - local) / (usable - 4)) };
    }
  }
  return null;
}

/** A key's column: text (UTF-8 bytes) or an integer. */
export type KeyValue = Uint8Array | number;

/** Signed big-endian integer of `n` bytes (serial types 1–6). */
function intAt(b: Uint8Array, at: number, n: number): number {
  let v = b[at]! & 0x80 ? -1 : 0;
  for (let i = 0; i < n; i++) v = v * 256 + b[at + i]!;
  return v;
}

const INT_BYTES = [0, 1, 2, 3, 4, 6, 8];

/**
 * The leading columns of a record, as far as `local` bytes of it are on the page: text as
 * bytes (`partial` when cut short), integers as numbers, anything else null. Stops at the
 * first column it cannot read.
 */
function recordColumns(b: Uint8Array, at: number, local: number, count: number): { values: Array<KeyValue | null>; partial: boolean } {
  const end = at + local;
  const [hsize, n0] = varint(b, at);
  let h = at + n0;
  let body = at + hsize;
  const values: Array<KeyValue | null> = [];
  while (values.length < count && h < at + hsize) {
    const [type, n] = varint(b, h);
    h += n;
    if (type >= 13 && type % 2 === 1) {
      const len = (type - 13) / 2;
      const have = Math.max(0, Math.min(len, end - body));
      values.push(b.subarray(body, body + have));
      if (have < len) return { values, partial: true };
      body += len;
    } else if (type >= 1 && type <= 6) {
      if (body + INT_BYTES[type]! > end) return { values, partial: true };
      values.push(intAt(b, body, INT_BYTES[type]!));
      body += INT_BYTES[type]!;
    } else if (type === 8 || type === 9) values.push(type - 8);
    else return { values: [...values, null], partial: true };
  }
  return { values, partial: false };
}

/**
 * Compares a record's leading columns with `key` as SQLite orders them (integers before text;
 * text BINARY, or NOCASE on ASCII). A column that is cut short (`partial`) or unreadable
 * compares equal as far as it goes: the answer is a hint, never a miss.
 */
function compareKey(values: ReadonlyArray<KeyValue | null>, partial: boolean, key: readonly KeyValue[], nocase: boolean): number {
  const fold = (x: number) => (nocase && x >= 65 && x <= 90 ? x + 32 : x);
  for (let i = 0; i < key.length; i++) {
    if (i >= values.length) return 0; // not on the page: undecided
    const a = values[i]!;
    const k = key[i]!;
    if (a === null) return 0;
    if (typeof a === 'number' || typeof k === 'number') {
      if (typeof a !== typeof k) return typeof a === 'number' ? -1 : 1;
      if (a !== k) return (a as number) < (k as number) ? -1 : 1;
      continue;
    }
    const n = Math.min(a.length, k.length);
    for (let j = 0; j < n; j++) {
      const d = fold(a[j]!) - fold(k[j]!);
      if (d) return d;
    }
    const last = i === values.length - 1;
    if (partial && last) return 0;
    if (a.length !== k.length) return a.length - k.length;
  }
  return 0;
}

/** Bytes of an index cell's payload kept on its page (fileformat2 §1.6, index pages). */
function indexLocal(payload: number, usable: number): number {
  const maxLocal = Math.floor(((usable - 12) * 64) / 255) - 23;
  const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;
  if (payload <= maxLocal) return payload;
  const k = minLocal + ((payload - minLocal) % (usable - 4));
  return k <= maxLocal ? k : minLocal;
}

/** At most this many leaves are returned for one key (a name defined very often is read as SQLite goes). */
const MAX_KEY_LEAVES = 8;

/**
 * The leaf pages of the index b-tree at `root` (an index, or a WITHOUT ROWID table) that may
 * hold entries whose leading columns are `key` (text compared BINARY or NOCASE as the index
 * is, integers), reading only interior pages through `page`. Entries of one key may span
 * leaves; a cell cut short by overflow counts as equal. A hint: SQLite's own seek decides.
 */
export function leavesOfKey(root: number, key: readonly KeyValue[], nocase: boolean, page: PageReader, pageCount: number, usable: number): number[] {
  const out: number[] = [];
  const visit = (p: number, depth: number) => {
    if (out.length >= MAX_KEY_LEAVES || depth > 20 || p < 1 || p > pageCount) return;
    const b = page(p);
    if (!b) {
      out.push(p); // not at hand: the leaf (a pack keeps every interior page; a one-page tree's root is its leaf)
      return;
    }
    const h = headerOffset(p);
    if (b[h] === LEAF_INDEX) return void out.push(p);
    if (b[h] !== INTERIOR_INDEX) return;
    const cells = u16(b, h + 3);
    // Child i holds the entries between cell i-1 and cell i; the right-most child those after the last cell.
    let prevBelow = true; // cell i-1 <= key (no cell before the first child)
    for (let i = 0; i <= cells; i++) {
      let cmp = 1; // past the last cell: the right-most child
      let child: number;
      if (i < cells) {
        const at = u16(b, h + 12 + 2 * i);
        child = u32(b, at);
        const [payload, n] = varint(b, at + 4);
        const r = recordColumns(b, at + 4 + n, indexLocal(payload, usable), key.length);
        cmp = compareKey(r.values, r.partial, key, nocase);
      } else child = u32(b, h + 8);
      // The child may hold the key when cell i-1 <= key <= cell i.
      if (prevBelow && cmp >= 0) visit(child, depth + 1);
      prevBelow = cmp <= 0;
      if (cmp > 0) break;
    }
  };
  visit(root, 0);
  return out;
}

/**
 * The rowids of the entries of index leaf `b` whose leading columns are `key` (an index's
 * record ends with its table's rowid). Entries cut short by overflow are skipped.
 */
export function rowidsOfKey(b: Uint8Array, pageNo: number, key: readonly KeyValue[], nocase: boolean, usable: number): number[] {
  const h = headerOffset(pageNo);
  if (b[h] !== LEAF_INDEX) return [];
  const out: number[] = [];
  const cells = u16(b, h + 3);
  for (let i = 0; i < cells; i++) {
    const at = u16(b, h + 8 + 2 * i);
    const [payload, n] = varint(b, at);
    const local = indexLocal(payload, usable);
    if (local < payload) continue;
    const r = recordColumns(b, at + n, local, 64);
    if (r.partial || r.values.length <= key.length) continue;
    if (compareKey(r.values.slice(0, key.length), false, key, nocase) !== 0) continue;
    const rowid = r.values[r.values.length - 1];
    if (typeof rowid === 'number') out.push(rowid);
  }
  return out;
}

/** Page numbers as runs `[first, count]` (sorted, merged when adjacent). */
export function pageRuns(pages: Iterable<number>): Array<[number, number]> {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const runs: Array<[number, number]> = [];
  for (const p of sorted) {
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === p) last[1]++;
    else runs.push([p, 1]);
  }
  return runs;
}
