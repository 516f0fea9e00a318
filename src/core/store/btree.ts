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
function varint(b: Uint8Array, at: number): [number, number] {
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

/** The first column of an index cell's record, as far as the page holds it: [bytes, whole?]; null when it is not text. */
function firstText(b: Uint8Array, payloadAt: number, local: number): [Uint8Array, boolean] | null {
  const [hsize, n1] = varint(b, payloadAt);
  const [type] = varint(b, payloadAt + n1);
  if (type < 13 || type % 2 === 0) return null;
  const len = (type - 13) / 2;
  const from = payloadAt + hsize;
  const have = Math.max(0, Math.min(len, payloadAt + local - from));
  return [b.subarray(from, from + have), have === len];
}

/** Compares text bytes as SQLite's BINARY or NOCASE collation does (NOCASE folds ASCII only); `a` may be a prefix (whole = false): equal when it matches so far. */
function compareText(a: Uint8Array, whole: boolean, key: Uint8Array, nocase: boolean): number {
  const fold = (x: number) => (nocase && x >= 65 && x <= 90 ? x + 32 : x);
  const n = Math.min(a.length, key.length);
  for (let i = 0; i < n; i++) {
    const d = fold(a[i]!) - fold(key[i]!);
    if (d) return d;
  }
  if (!whole) return 0;
  return a.length - key.length;
}

/** At most this many leaves are returned for one key (a name defined very often is read as SQLite goes). */
const MAX_KEY_LEAVES = 8;

/**
 * The leaf pages of the index b-tree at `root` (an index, or a WITHOUT ROWID table) that may
 * hold entries whose first column is the text `key`, compared BINARY or NOCASE as the index
 * is, reading only interior pages through `page`. Entries of one key may span leaves; a cell
 * that spills (a very long key) counts as equal. A hint: SQLite's own seek decides.
 */
export function leavesOfKey(root: number, key: Uint8Array, nocase: boolean, page: PageReader, pageCount: number, usable: number): number[] {
  const maxLocal = Math.floor(((usable - 12) * 64) / 255) - 23;
  const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;
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
    let prevBelow = true; // cell i-1 < key (no cell before the first child)
    for (let i = 0; i <= cells; i++) {
      let cmp = 1; // past the last cell: the right-most child
      let child: number;
      if (i < cells) {
        const at = u16(b, h + 12 + 2 * i);
        child = u32(b, at);
        const [payload, n] = varint(b, at + 4);
        const k = minLocal + ((payload - minLocal) % (usable - 4));
        const local = payload <= maxLocal ? payload : k <= maxLocal ? k : minLocal;
        const text = firstText(b, at + 4 + n, local);
        cmp = text ? compareText(text[0], text[1], key, nocase) : 1;
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
