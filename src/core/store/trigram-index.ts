/**
 * Sift's own trigram index over file texts (schema 6; replaces FTS5's trigram tokenizer,
 * which was half the store thread's time of a cold index). File level: for each trigram key
 * (text/trigram-keys.ts) the sorted file_text ids of the files that contain it.
 *
 * Tables (store/schema.ts migration 6):
 *   trigram_postings(seg, gram, ids)  one row per (segment, key): ids ascending (encodeIds);
 *                                     gram = DIRECTORY (-1): every id the segment indexed
 *   trigram_pending(id, token)        file_text ids whose keys are in no segment yet
 *
 * Writing: `stage` (in the writer's transaction) upserts the file's id into trigram_pending and
 * keeps its keys in memory; `flush` turns pending ids into ONE new segment and deletes them
 * from trigram_pending in ONE transaction. A pending id whose keys are not in this object's
 * memory (a crash, another connection's write — told apart by `token`, one per connection) is
 * read back from file_text. More than MAX_SEGMENTS segments: all but the oldest are merged into
 * one (optimize merges all), keeping each id's postings only from the newest segment whose
 * directory lists it (an edited file's old keys go) and only ids still in file_text (a deleted
 * file goes).
 *
 * Invariant (soundness): for every file_text row, either its id is pending or every key of its
 * CURRENT text lists it in some segment. So `candidates` = (query over the postings) ∪ pending
 * is a superset of the files whose text satisfies the query. Stale postings (a file changed or
 * deleted, an id reused) only add candidates, which grep re-checks. The pending ids and the
 * postings are read by ONE statement (one snapshot), so a concurrent flush or merge of another
 * connection cannot hide a file between two reads.
 *
 * Measured (replaying 3,000 kernel files, 75k chunks, 49 MB, into fresh stores, same run,
 * load ~2.3): store thread 10.6 s without trigram work, 11.7 s with it (keys made off the
 * thread; flushes 1.0 s); FTS5's trigram table took the old store from 10.3 to 20.8 s. Whole
 * kernel subset (11,597 files): 14.7 MB (table 13.0 + key index 1.7) vs FTS5's 20.2 MB, same
 * candidate files for every bench/grep.ts pattern.
 */
import { ASCII_KEY_SPACE, fileTrigramKeys, trigramKey, type TrigramQuery } from '../text/trigram-keys.ts';
import { insertRows, type Queryable } from './sqlite.ts';
import { unpackText } from './text-codec.ts';

/**
 * Keys held in memory before a flush writes a segment, outside a bulk load (TrigramIndex.bulk).
 * 4M keys = 16 MB of Uint32Array, about 36 MB of kernel source (0.11 distinct keys per file per
 * character: 15.7M keys for the subset's 143 M characters).
 */
export const FLUSH_KEYS = 4_000_000;
/**
 * A run's end leaves its files pending (no segment) while every pending file's stored text is
 * under this many packed bytes in all (Store.flushTrigrams's `unlessFew`, TrigramIndex.few): grep then reads them
 * whole, ~1 MB of text at most, where building and writing a segment costs a small index's run
 * ~10% of its time. Go's go/ast, go/parser … (65 files, 212 KB packed): a cold `sift index` 630 ->
 * 600 ms (CPU 835 -> 775), a one-shot exact search's own time 16.7 -> 22.4 ms.
 */
export const LAZY_PENDING_BYTES = 256 * 1024;
/** More segments than this are merged into one (each query reads every segment). */
export const MAX_SEGMENTS = 8;
/** Key ranges a segment of a bulk load is built in (writeSegment): bounds its sort arrays and rows. */
const SEGMENT_KEY_RANGES = 8;
/** Rows per multi-row INSERT (3 parameters each; SQLite's limit is 32766). */
const ROWS_PER_INSERT = 256;
/** Ids read back from file_text per statement. */
const READBACK_BATCH = 64;
/** The `gram` of a segment's directory row: the ids it indexed (no query key is negative). */
export const DIRECTORY = -1;
/** Rows read per segment cursor step while merging. */
const MERGE_PAGE = 4096;
/** Parameters per IN list when reading posting lists. */
const KEYS_PER_READ = 400;

const EMPTY = new Uint32Array(0);

// ---- posting list codec ----------------------------------------------------------------

/**
 * Ascending ids → a posting list. Two forms, whichever is smaller:
 *   varints: LEB128 of id[0] + 1, then of id[i] − id[i−1] (so the first byte is never 0)
 *   bitmap:  0, LEB128 of id[0], then one bit per id from id[0] to the last (LSB first)
 * Lists of ids in more than ~1/8 of the id range (common trigrams) are bitmaps: on the kernel
 * subset that took the payload from 16.5 to 11.2 MB.
 */
export function encodeIds(ids: ArrayLike<number>, n = ids.length): Uint8Array {
  if (n === 0) return new Uint8Array(0);
  const first = ids[0]!;
  const span = ids[n - 1]! - first + 1;
  if (span / 8 + 6 < n) {
    const head = varint(first);
    const out = new Uint8Array(1 + head.length + Math.ceil(span / 8));
    out.set(head, 1);
    const base = 1 + head.length;
    for (let i = 0; i < n; i++) {
      const d = ids[i]! - first;
      out[base + (d >>> 3)]! |= 1 << (d & 7);
    }
    return out;
  }
  // Sized exactly first (one allocation per list: a small index's lists are mostly 1–3 bytes).
  let size = 0;
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const d = ids[i]! - prev;
    prev = ids[i]!;
    size += d < 0x80 ? 1 : d < 0x4000 ? 2 : d < 0x200000 ? 3 : d < 0x10000000 ? 4 : 5;
  }
  const out = new Uint8Array(size);
  let o = 0;
  prev = -1;
  for (let i = 0; i < n; i++) {
    let d = ids[i]! - prev;
    prev = ids[i]!;
    while (d >= 0x80) {
      out[o++] = (d & 0x7f) | 0x80;
      d = Math.floor(d / 128);
    }
    out[o++] = d;
  }
  return out;
}

function varint(x: number): Uint8Array {
  const out: number[] = [];
  while (x >= 0x80) {
    out.push((x & 0x7f) | 0x80);
    x = Math.floor(x / 128);
  }
  out.push(x);
  return Uint8Array.from(out);
}

/** Inverse of encodeIds; throws on a truncated varint or ids that do not strictly ascend. */
export function decodeIds(b: Uint8Array): Uint32Array {
  let i = 0;
  const next = (): number => {
    let d = 0;
    let mul = 1;
    let byte: number;
    do {
      if (i >= b.length || mul > 2 ** 28) throw new Error('trigram posting list: truncated or overlong varint');
      byte = b[i++]!;
      d += (byte & 0x7f) * mul;
      mul *= 128;
    } while (byte & 0x80);
    return d;
  };
  if (b.length && b[0] === 0) {
    i = 1;
    const first = next();
    const bits = b.length - i;
    if (first + bits * 8 > 2 ** 32) throw new Error('trigram posting list: id out of range');
    let n = 0;
    for (let j = i; j < b.length; j++) {
      let x = b[j]!;
      while (x) {
        x &= x - 1;
        n++;
      }
    }
    const out = new Uint32Array(n);
    n = 0;
    for (let j = i; j < b.length; j++) {
      const x = b[j]!;
      if (!x) continue;
      const at = first + (j - i) * 8;
      for (let k = 0; k < 8; k++) if (x & (1 << k)) out[n++] = at + k;
    }
    return out;
  }
  const out = new Uint32Array(b.length);
  let n = 0;
  let prev = -1;
  while (i < b.length) {
    const d = next();
    if (d === 0) throw new Error('trigram posting list: ids do not ascend');
    prev += d;
    if (prev > 0xffffffff) throw new Error('trigram posting list: id out of range');
    out[n++] = prev;
  }
  return out.subarray(0, n);
}

// ---- sorted id set operations -------------------------------------------------------

export function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (a.length > b.length) [a, b] = [b, a];
  const out = new Uint32Array(a.length);
  let n = 0;
  let j = 0;
  for (let i = 0; i < a.length && j < b.length; i++) {
    const x = a[i]!;
    while (j < b.length && b[j]! < x) j++;
    if (j < b.length && b[j] === x) out[n++] = x;
  }
  return out.subarray(0, n);
}

export function union(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (!a.length) return b;
  if (!b.length) return a;
  const out = new Uint32Array(a.length + b.length);
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x < y) { out[n++] = x; i++; } else if (y < x) { out[n++] = y; j++; } else { out[n++] = x; i++; j++; }
  }
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out.subarray(0, n);
}

/** Keys (≥ 0) a query needs, deduplicated. */
export function queryKeys(q: TrigramQuery): number[] {
  const keys = new Set<number>();
  const walk = (x: TrigramQuery): void => {
    if (x.op === 'tri') {
      const k = trigramKey(x.t);
      if (k >= 0) keys.add(k);
    } else if (x.op === 'all' || x.op === 'any') x.parts.forEach(walk);
  };
  walk(q);
  return [...keys];
}

/** Evaluate `q` over posting lists (absent key = no file): the matching ids, or null for "every file". */
export function evaluate(q: TrigramQuery, lists: ReadonlyMap<number, Uint32Array>): Uint32Array | null {
  switch (q.op) {
    case 'true': return null;
    case 'tri': {
      const k = trigramKey(q.t);
      return k < 0 ? null : lists.get(k) ?? EMPTY;
    }
    case 'all': {
      const parts = q.parts.map((p) => evaluate(p, lists)).filter((p): p is Uint32Array => p !== null);
      if (!parts.length) return null;
      parts.sort((x, y) => x.length - y.length);
      let acc = parts[0]!;
      for (let i = 1; i < parts.length && acc.length; i++) acc = intersect(acc, parts[i]!);
      return acc;
    }
    case 'any': {
      let acc: Uint32Array = EMPTY;
      for (const p of q.parts) {
        const r = evaluate(p, lists);
        if (r === null) return null;
        acc = union(acc, r);
      }
      return acc;
    }
  }
}

// ---- building segments -----------------------------------------------------------------

/** Bits per radix pass: 3 passes of 11 bits cover a 32-bit key with 2,048 buckets. */
const RADIX_BITS = 11;

/**
 * Rows of one segment from (id, keys) pairs: keys ascending, each with its ids ascending.
 * With at least `countingSortMinPairs` pairs (default: as many as the range has keys) it
 * counting-sorts the keys of the range [lo, lo + span) (by default the exact ASCII keys,
 * < ASCII_KEY_SPACE, nearly all of them in source code) straight into their lists, fed in
 * ascending id order, and radix-sorts the other keys as (key, id) pairs, which must all be
 * ≥ lo + span; with fewer it radix-sorts every pair, as the counting sort touches a counter per
 * key of the range whatever the input (over the whole ASCII space 2M counters, 3 × 8 MB, ~100–
 * 300 ms on a loaded 2-core machine: most of the store time of a one-file `sift index`).
 * Same rows either way (`countingSortMinPairs`: tests take both paths). 3,000 kernel files (4.8M pairs), same process:
 * 0.52–0.63 s CPU when every pair went through the 16-bit radix sort, 0.28–0.34 s counting.
 */
export function buildPostings(
  entries: ReadonlyArray<readonly [number, Uint32Array]>,
  countingSortMinPairs?: number,
  lo = 0,
  span = ASCII_KEY_SPACE,
): Array<[number, Uint8Array]> {
  const sorted = [...entries].sort((x, y) => x[0] - y[0]);
  let pairs = 0;
  for (const [, keys] of sorted) pairs += keys.length;
  const rows: Array<[number, Uint8Array]> = [];
  if (pairs < (countingSortMinPairs ?? span)) {
    const hk = new Uint32Array(pairs);
    const hi = new Uint32Array(pairs);
    let h = 0;
    for (const [id, keys] of sorted) {
      hk.set(keys, h);
      hi.fill(id, h, h + keys.length);
      h += keys.length;
    }
    pushSortedPairs(rows, hk, hi);
    return rows;
  }
  // k - lo as an unsigned 32-bit number: below span exactly when lo <= k < lo + span.
  const count = new Uint32Array(span + 1);
  let hashed = 0;
  for (const [, keys] of sorted) {
    for (let i = 0; i < keys.length; i++) {
      const d = (keys[i]! - lo) >>> 0;
      if (d < span) count[d + 1]!++;
      else hashed++;
    }
  }
  for (let d = 1; d <= span; d++) count[d]! += count[d - 1]!;
  const start = count.slice(0, span);
  const ids = new Uint32Array(count[span]!);
  const hk = new Uint32Array(hashed);
  const hi = new Uint32Array(hashed);
  let h = 0;
  for (const [id, keys] of sorted) {
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const d = (k - lo) >>> 0;
      if (d < span) ids[start[d]!++] = id;
      else {
        hk[h] = k;
        hi[h++] = id;
      }
    }
  }
  for (let d = 0; d < span; d++) {
    const s = count[d]!;
    const e = count[d + 1]!;
    if (e > s) rows.push([lo + d, encodeIds(ids.subarray(s, e))]);
  }
  pushSortedPairs(rows, hk, hi);
  return rows;
}

/**
 * Append the rows of (key, id) pairs given in ascending id order: a stable LSD radix sort by
 * key (RADIX_BITS per pass) keeps each key's ids ascending; one row per key, keys ascending.
 */
function pushSortedPairs(rows: Array<[number, Uint8Array]>, keys: Uint32Array, ids: Uint32Array): void {
  const n = keys.length;
  let hk: Uint32Array = keys;
  let hi: Uint32Array = ids;
  let hk2: Uint32Array = new Uint32Array(n);
  let hi2: Uint32Array = new Uint32Array(n);
  const mask = (1 << RADIX_BITS) - 1;
  const buckets = new Uint32Array(1 << RADIX_BITS);
  // Passes only up to the highest key's bits: 2 for keys below 2^22 (an ASCII range's), else 3.
  let max = 0;
  for (let i = 0; i < n; i++) if (hk[i]! > max) max = hk[i]!;
  for (let shift = 0; shift < 32 && (shift === 0 || max >>> shift > 0); shift += RADIX_BITS) {
    buckets.fill(0);
    for (let i = 0; i < n; i++) buckets[(hk[i]! >>> shift) & mask]!++;
    let sum = 0;
    for (let d = 0; d <= mask; d++) {
      const c = buckets[d]!;
      buckets[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const p = buckets[(hk[i]! >>> shift) & mask]!++;
      hk2[p] = hk[i]!;
      hi2[p] = hi[i]!;
    }
    [hk, hk2] = [hk2, hk];
    [hi, hi2] = [hi2, hi];
  }
  for (let s = 0; s < n;) {
    let e = s + 1;
    while (e < n && hk[e] === hk[s]) e++;
    rows.push([hk[s]!, encodeIds(hi.subarray(s, e))]);
    s = e;
  }
}

function ascending(keys: Uint32Array): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}

/** First index in ascending `keys` of a key >= `k`. */
function lowerBound(keys: Uint32Array, k: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Write ONE segment `seg` of `entries` (id, its distinct keys ascending, as fileTrigramKeys
 * makes them): its directory row, then its rows built and inserted one key range at a time
 * (SEGMENT_KEY_RANGES of the ASCII keys, then the hashed ones), so only one range's sort
 * arrays and rows are held at once. The ranges are consecutive and ascending, so the rows are
 * exactly buildPostings(entries)'s, in the same order.
 */
async function writeSegment(tx: Queryable, seg: number, entries: ReadonlyArray<readonly [number, Uint32Array]>): Promise<void> {
  const sorted = entries.map(([id, keys]) => [id, ascending(keys) ? keys : keys.slice().sort()] as const).sort((x, y) => x[0] - y[0]);
  await insertPostings(tx, seg, [[DIRECTORY, encodeIds(Uint32Array.from(sorted, ([id]) => id))]]);
  const step = ASCII_KEY_SPACE / SEGMENT_KEY_RANGES;
  for (let lo = 0; lo <= ASCII_KEY_SPACE; lo += step) {
    const hi = lo < ASCII_KEY_SPACE ? lo + step : 2 ** 32;
    const part: Array<[number, Uint32Array]> = [];
    for (const [id, keys] of sorted) {
      const a = lowerBound(keys, lo);
      const b = hi > 0xffffffff ? keys.length : lowerBound(keys, hi);
      if (b > a) part.push([id, keys.subarray(a, b)]);
    }
    // Each ASCII range counted over its own keys (a counter per key of the range, not of the
    // whole ASCII space): the kernel subset's ~2M pairs a range were radix-sorted before (3
    // passes), 466–621 → 338–374 ms CPU for 13M pairs. The hashed keys: radix-sorted.
    if (part.length) await insertPostings(tx, seg, lo < ASCII_KEY_SPACE ? buildPostings(part, undefined, lo, step) : buildPostings(part));
  }
}

/** One segment's posting rows (gram, ids), ROWS_PER_INSERT per statement (sqlite.ts insertRows). */
function insertPostings(tx: Queryable, seg: number, rows: ReadonlyArray<readonly [number, Uint8Array]>): Promise<void> {
  return insertRows(tx, 'INSERT INTO trigram_postings (seg, gram, ids) VALUES (?, ?, ?)', ROWS_PER_INSERT, rows.map(([gram, ids]) => [seg, gram, ids]));
}

/** Segment numbers, ascending (a skip scan over trigram_postings_key: one lookup per segment). */
export async function segments(db: Queryable): Promise<number[]> {
  const rows = await db.all<{ seg: number }>(`WITH RECURSIVE s(seg) AS (
      SELECT min(seg) FROM trigram_postings
      UNION ALL SELECT (SELECT min(seg) FROM trigram_postings WHERE seg > s.seg) FROM s WHERE s.seg IS NOT NULL)
    SELECT seg FROM s WHERE seg IS NOT NULL`);
  return rows.map((r) => r.seg);
}

// ---- the index of one connection -----------------------------------------------------

export class TrigramIndex {
  /** This connection's writes: pending rows carrying it have their keys in #memory. */
  readonly token = 1 + Math.floor(Math.random() * 0x7ffffffe);
  /** file_text id → distinct keys of the text this connection last wrote (null: compute at flush). */
  #memory = new Map<number, Uint32Array | null>();
  #keys = 0;
  /** Ids staged by the transaction in progress (dropped from memory if it fails). */
  #tx: number[] = [];

  /**
   * A bulk load (Store.setBulkLoad): keys stay in memory until the run's flush, which writes
   * them as ONE segment (writeSegment, range by range) instead of a segment per FLUSH_KEYS keys
   * that the run's closing optimize then reads back, merges and deletes. Cold kernel subset:
   * 4 segments and a forced merge before (15.7M keys, ~62 MB of them held at the end now).
   * Until then a bulk load's files are pending: grep reads their stored text (still exact).
   */
  bulk = false;

  /** Keys per segment outside a bulk load (FLUSH_KEYS; tests use fewer). */
  constructor(readonly flushKeys = FLUSH_KEYS) {}

  /** Enough keys in memory that the writer should call `flush` (never during a bulk load). */
  get flushDue(): boolean {
    return !this.bulk && this.#keys >= this.flushKeys;
  }

  /**
   * In the transaction that wrote file_text row `id`: mark it pending and keep its keys (given,
   * computed from the text, or null: read back at flush).
   */
  async stage(tx: Queryable, id: number, keysOrText: Uint32Array | string | null): Promise<void> {
    await tx.run('INSERT INTO trigram_pending (id, token) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET token = excluded.token', [id, this.token]);
    const keys = typeof keysOrText === 'string' ? fileTrigramKeys(keysOrText) : keysOrText;
    this.#keys += (keys?.length ?? 0) - (this.#memory.get(id)?.length ?? 0);
    this.#memory.set(id, keys);
    this.#tx.push(id);
  }

  /** The staging transaction committed. */
  committed(): void {
    this.#tx = [];
  }

  /** The staging transaction failed: forget what it staged (those ids, if pending, are read back). */
  rolledBack(): void {
    for (const id of this.#tx) {
      this.#keys -= this.#memory.get(id)?.length ?? 0;
      this.#memory.delete(id);
    }
    this.#tx = [];
  }

  /**
   * Whether the pending files are few enough to leave pending: their stored text, which grep
   * reads whole meanwhile, is under LAZY_PENDING_BYTES packed (length() reads no overflow page).
   */
  async few(db: Queryable): Promise<boolean> {
    const row = await db.get<{ bytes: number }>('SELECT coalesce(sum(length(f.data)), 0) AS bytes FROM trigram_pending p JOIN file_text f ON f.id = p.id');
    return (row?.bytes ?? 0) < LAZY_PENDING_BYTES;
  }

  /**
   * Index every pending id into new segment(s) and clear trigram_pending (one transaction, in
   * `tx`). Returns the number of files indexed. Memory is cleared afterwards by `flushed`.
   */
  async flush(tx: Queryable): Promise<number> {
    const pending = await tx.all<{ id: number; token: number }>('SELECT id, token FROM trigram_pending ORDER BY id');
    if (!pending.length) return 0;
    let seg = ((await tx.get<{ s: number | null }>('SELECT max(seg) AS s FROM trigram_postings'))?.s ?? 0) + 1;
    let batch: Array<[number, Uint32Array]> = [];
    let batchKeys = 0;
    const write = async (): Promise<void> => {
      if (!batch.length) return;
      await writeSegment(tx, seg++, batch);
      batch = [];
      batchKeys = 0;
    };
    const add = async (id: number, keys: Uint32Array, readBack: boolean): Promise<void> => {
      batch.push([id, keys]);
      batchKeys += keys.length;
      // A bulk load's keys are in memory already: one segment for all of them. Keys read back
      // (a run that crashed, another connection's) still go FLUSH_KEYS at a time.
      if (batchKeys >= this.flushKeys && (readBack || !this.bulk)) await write();
    };
    const readBack: number[] = [];
    for (const { id, token } of pending) {
      const keys = token === this.token ? this.#memory.get(id) : undefined;
      if (keys) await add(id, keys, false);
      else readBack.push(id);
    }
    for (let i = 0; i < readBack.length; i += READBACK_BATCH) {
      const part = readBack.slice(i, i + READBACK_BATCH);
      const rows = await tx.all<{ id: number; data: Uint8Array }>(`SELECT id, data FROM file_text WHERE id IN (${part.map(() => '?').join(', ')})`, part);
      for (const r of rows) await add(r.id, fileTrigramKeys(await unpackText(r.data)), true);
    }
    await write();
    await tx.run('DELETE FROM trigram_pending');
    return pending.length;
  }

  /** After `flush` committed: nothing in memory is needed any more. */
  flushed(): void {
    this.#memory.clear();
    this.#keys = 0;
  }

  /**
   * Merge all segments into one (in `tx`). An id's postings are kept only from the newest
   * segment whose directory lists it (older ones hold an earlier text of that file) and only
   * while the id is in file_text. A k-way merge of per-segment cursors in key order; memory
   * stays at a few pages per segment plus the directories.
   */
  async merge(tx: Queryable, force = false): Promise<boolean> {
    const all = await segments(tx);
    if (all.length === 0 || (!force && all.length <= MAX_SEGMENTS)) return false;
    // Unforced (too many segments after small runs), the oldest segment — normally the cold
    // index's, by far the biggest — is left alone: rewriting it on every ninth small run held
    // the store's thread for seconds on a big tree. Only the newer ones merge (their union is
    // newer than it, so the newest-listing rule below stays right); optimize merges everything.
    const segs = force ? all : all.slice(1);
    const inText = (await tx.all<{ id: number }>('SELECT id FROM file_text INDEXED BY sqlite_autoindex_file_text_1')).map((r) => r.id);
    const dirs: Uint32Array[] = [];
    let maxId = 0;
    for (const seg of segs) {
      const row = await tx.get<{ ids: Uint8Array }>('SELECT ids FROM trigram_postings WHERE seg = ? AND gram = ?', [seg, DIRECTORY]);
      const d = row ? decodeIds(row.ids) : EMPTY;
      dirs.push(d);
      if (d.length) maxId = Math.max(maxId, d[d.length - 1]!);
    }
    // owner[id] = 1 + the index of the newest segment listing id, when id is still in file_text;
    // 0 = drop. (At most MAX_SEGMENTS + 1 segments unless forced, never near 255.)
    const owner = new Uint8Array(maxId + 1);
    for (let i = 0; i < segs.length; i++) for (const id of dirs[i]!) owner[id] = Math.min(255, i + 1);
    const keep = new Uint8Array(maxId + 1);
    for (const id of inText) if (id <= maxId) keep[id] = 1;
    for (let id = 0; id <= maxId; id++) if (!keep[id]) owner[id] = 0;
    const dir: number[] = [];
    for (let id = 0; id <= maxId; id++) if (owner[id]) dir.push(id);
    if (segs.length === 1 && dir.length === dirs[0]!.length) return false; // one segment, nothing to drop
    const target = segs[segs.length - 1]! + 1;
    const cursors = segs.map((seg, i) => ({ seg, own: Math.min(255, i + 1), rows: [] as Array<{ gram: number; ids: Uint8Array }>, at: 0, after: DIRECTORY, done: false }));
    const fill = async (c: (typeof cursors)[number]): Promise<void> => {
      c.rows = await tx.all<{ gram: number; ids: Uint8Array }>('SELECT gram, ids FROM trigram_postings WHERE seg = ? AND gram > ? ORDER BY gram LIMIT ?', [c.seg, c.after, MERGE_PAGE]);
      c.at = 0;
      if (c.rows.length < MERGE_PAGE) c.done = true;
      if (c.rows.length) c.after = c.rows[c.rows.length - 1]!.gram;
    };
    for (const c of cursors) await fill(c);
    let out: Array<[number, Uint8Array]> = [[DIRECTORY, encodeIds(dir)]];
    for (;;) {
      let gram = Infinity;
      for (const c of cursors) {
        if (c.at >= c.rows.length && !c.done) await fill(c);
        if (c.at < c.rows.length) gram = Math.min(gram, c.rows[c.at]!.gram);
      }
      if (gram === Infinity) break;
      let ids: Uint32Array = EMPTY;
      for (const c of cursors) {
        if (c.at < c.rows.length && c.rows[c.at]!.gram === gram) {
          const got = decodeIds(c.rows[c.at++]!.ids);
          let n = 0;
          for (let j = 0; j < got.length; j++) if (owner[got[j]!] === c.own) got[n++] = got[j]!;
          ids = union(ids, got.subarray(0, n));
        }
      }
      if (ids.length) out.push([gram, encodeIds(ids)]);
      if (out.length >= ROWS_PER_INSERT * 16) {
        await insertPostings(tx, target, out);
        out = [];
      }
    }
    await insertPostings(tx, target, out);
    await tx.run(`DELETE FROM trigram_postings WHERE seg >= ? AND seg < ?`, [segs[0]!, target]);
    return true;
  }

  /**
   * The file_text ids that may satisfy `q` (ascending): the postings' answer plus every pending
   * id; null when `q` constrains nothing (every file).
   */
  async candidates(db: Queryable, q: TrigramQuery): Promise<Uint32Array | null> {
    const keys = queryKeys(q);
    if (!keys.length) return null;
    // A pack over HTTP: the postings' index leaves, rows and overflow pages, each in one round.
    if (db.prefetchTerms) {
      const segs = await segments(db);
      await db.prefetchTerms([], segs.flatMap((seg) => keys.map((gram) => ({ index: 'trigram_postings_key', key: [seg, gram], table: 'trigram_postings' }))));
    }
    // One statement: pending ids (seg = -1) and the postings of every segment, one snapshot.
    const lists = new Map<number, Uint32Array>();
    let pending: number[] = [];
    for (let i = 0; i < keys.length; i += KEYS_PER_READ) {
      const part = keys.slice(i, i + KEYS_PER_READ);
      const rows = await db.all<{ seg: number; gram: number; ids: Uint8Array | number }>(`WITH RECURSIVE s(seg) AS (
          SELECT min(seg) FROM trigram_postings
          UNION ALL SELECT (SELECT min(seg) FROM trigram_postings WHERE seg > s.seg) FROM s WHERE s.seg IS NOT NULL)
        SELECT -1 AS seg, 0 AS gram, id AS ids FROM trigram_pending
        UNION ALL
        SELECT p.seg, p.gram, p.ids FROM trigram_postings p WHERE p.seg IN (SELECT seg FROM s WHERE seg IS NOT NULL) AND p.gram IN (${part.map(() => '?').join(', ')})`, part);
      const ids: number[] = [];
      for (const r of rows) {
        if (r.seg === -1) ids.push(r.ids as number);
        else {
          const got = decodeIds(r.ids as Uint8Array);
          const had = lists.get(r.gram);
          lists.set(r.gram, had ? union(had, got) : got);
        }
      }
      // Several statements: a later one may miss what an earlier one saw pending (flushed in
      // between); the union of every statement's pending ids covers it.
      pending = pending.concat(ids);
    }
    const hit = evaluate(q, lists);
    if (hit === null) return null;
    return union(hit, Uint32Array.from(new Set(pending)).sort());
  }

  /** Problems with the trigram tables ('' when none): every posting list decodes and ascends. */
  async check(db: Queryable): Promise<string[]> {
    const problems: string[] = [];
    let bad = 0;
    for (const seg of await segments(db)) {
      let after = -1;
      for (;;) {
        const rows = await db.all<{ gram: number; ids: Uint8Array }>('SELECT gram, ids FROM trigram_postings WHERE seg = ? AND gram > ? ORDER BY gram LIMIT ?', [seg, after, MERGE_PAGE]);
        for (const r of rows) {
          try {
            if (!decodeIds(r.ids).length) bad++;
          } catch {
            bad++;
          }
        }
        if (rows.length < MERGE_PAGE) break;
        after = rows[rows.length - 1]!.gram;
      }
    }
    if (bad) problems.push(`trigram_postings: ${bad} posting lists do not decode`);
    return problems;
  }
}
