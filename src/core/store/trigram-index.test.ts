// Sift's trigram index (issue 12): soundness against a brute-force scan on random texts and
// patterns, through pending rows, flushes, a crash (pending rows left, memory lost), a second
// connection and merges; and exactness of the postings after a full merge.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileGrep, grepText, type LineMatcher } from '../search/grep.ts';
import { fileTrigramKeys, trigramKey, type TrigramQuery } from '../text/trigram-keys.ts';
import { openNodeStore } from './open-node.ts';
import type { Store } from './store.ts';
import { buildPostings, decodeIds, DIRECTORY, encodeIds, intersect, MAX_SEGMENTS, segments, TrigramIndex, union } from './trigram-index.ts';

const work = mkdtempSync(join(tmpdir(), 'sift-trigram-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const WORDS = ['foo', 'Foo', 'FOO', 'bar', 'kelvin', 'KELVIN', '\u212aelvin', 'strasse', 'STRAßE', 'ſtrasse', 'café', 'CAFÉ', 'naïve', '😀x', 'err', 'Err', 'x(y)', 'a.b', '\t', ' ', '\r', 'qq', 'zz9', '\0z'];

function randomText(rand: () => number): string {
  const lines: string[] = [];
  const n = Math.floor(rand() * 6);
  for (let l = 0; l < n; l++) {
    let line = '';
    const w = Math.floor(rand() * 5);
    for (let i = 0; i < w; i++) line += WORDS[Math.floor(rand() * WORDS.length)]! + (rand() < 0.5 ? ' ' : '');
    lines.push(line);
  }
  return lines.join(rand() < 0.3 ? '\r\n' : '\n') + (rand() < 0.5 ? '\n' : '');
}

const REGEX_PARTS = ['foo', 'bar', 'k', 's', 'elvin', 'tra', 'ss', 'é', 'É', 'caf', '.', '\\w', '\\s', '[a-c]', '[kK]', '(foo|bar)', '(err|Err)', 'x\\(y\\)', 'a\\.b', '\\x{212A}', '😀', '\\r', '^', '$', '(?i)', 'z+', 'q?', 'ß'];

function randomPattern(rand: () => number, texts: string[]): { pattern: string; mode: 'exact' | 'regex'; ignoreCase: boolean } {
  const ignoreCase = rand() < 0.4;
  if (rand() < 0.5) {
    // A literal: a slice of some text's line (so it often matches), maybe re-cased.
    const t = texts[Math.floor(rand() * texts.length)] ?? 'foo';
    const line = t.split('\n')[0] ?? '';
    const cps = Array.from(line);
    const s = Math.floor(rand() * cps.length);
    let lit = cps.slice(s, s + 2 + Math.floor(rand() * 8)).join('');
    if (rand() < 0.3) lit = lit.toUpperCase();
    return { pattern: lit || 'foo', mode: 'exact', ignoreCase };
  }
  let p = '';
  const n = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) p += REGEX_PARTS[Math.floor(rand() * REGEX_PARTS.length)];
  return { pattern: p, mode: 'regex', ignoreCase };
}

function matchesSomeLine(text: string, m: LineMatcher): boolean {
  return grepText(text, m, () => {}) > 0;
}

/** The query evaluated on a file's keys (the index's exact answer for a fully merged index). */
function satisfied(q: TrigramQuery, keys: Set<number>): boolean {
  switch (q.op) {
    case 'true': return true;
    case 'tri': {
      const k = trigramKey(q.t);
      return k < 0 || keys.has(k);
    }
    case 'all': return q.parts.every((p) => satisfied(p, keys));
    case 'any': return q.parts.some((p) => satisfied(p, keys));
  }
}

async function write(store: Store, files: Map<string, string>, paths: string[], withGrams: boolean): Promise<void> {
  await store.writeFiles(paths.map((path) => {
    const text = files.get(path)!;
    return { file: { path, hash: String(text.length), size: text.length, mtime: 1, language: 'text' }, chunks: [], text, ...(withGrams ? { grams: fileTrigramKeys(text) } : {}) };
  }));
}

/** Every file a brute-force scan matches is a candidate; after a full merge, candidates = the query's exact answer. */
async function checkSound(store: Store, files: Map<string, string>, rand: () => number, exact: boolean, patterns = 60): Promise<number> {
  const texts = [...files.values()];
  let filtered = 0;
  for (let i = 0; i < patterns; i++) {
    const { pattern, mode, ignoreCase } = randomPattern(rand, texts);
    let m: LineMatcher;
    try {
      m = await compileGrep(pattern, mode, ignoreCase);
    } catch {
      continue;
    }
    const candidates = new Set((await store.grepFiles(m.trigrams)).map((f) => f.path));
    for (const [path, text] of files) {
      if (matchesSomeLine(text, m)) expect(candidates.has(path), `${mode} ${JSON.stringify(pattern)} -i=${ignoreCase} must find ${path}: ${JSON.stringify(text)}`).toBe(true);
      if (exact && m.trigrams) {
        expect(candidates.has(path), `${JSON.stringify(pattern)} on ${JSON.stringify(text)}`).toBe(satisfied(m.trigrams, new Set(fileTrigramKeys(text))));
      }
    }
    if (candidates.size < files.size) filtered++;
  }
  return filtered;
}

describe('posting lists', () => {
  it('round-trip ids through delta varints and reject damage', () => {
    const ids = Uint32Array.from([0, 1, 2, 127, 128, 300, 16384, 2 ** 21 + 5, 2 ** 32 - 1]);
    expect([...decodeIds(encodeIds(ids))]).toEqual([...ids]);
    // Each delta at a varint length's edges: the list is sized exactly (a spare byte would decode as a 0 delta).
    for (const d of [1, 0x7f, 0x80, 0x3fff, 0x4000, 0x1fffff, 0x200000, 0xfffffff, 0x10000000, 2 ** 32 - 2]) {
      const two = Uint32Array.from([0, d]);
      expect([...decodeIds(encodeIds(two))]).toEqual([0, d]);
      expect(encodeIds(two).length).toBe(1 + Math.ceil(Math.log2(d + 1) / 7));
    }
    // Dense lists are bitmaps (first byte 0), smaller than one byte per id.
    const dense = Uint32Array.from({ length: 900 }, (_, i) => 1000 + i + (i % 3 === 0 ? 0 : 100)).sort().filter((x, i, a) => i === 0 || a[i - 1] !== x);
    const enc = encodeIds(dense);
    expect(enc[0]).toBe(0);
    expect(enc.length).toBeLessThan(dense.length / 4);
    expect([...decodeIds(enc)]).toEqual([...dense]);
    expect([...decodeIds(encodeIds(Uint32Array.from([7])))]).toEqual([7]);
    expect(decodeIds(encodeIds(new Uint32Array(0)))).toHaveLength(0);
    expect(() => decodeIds(Uint8Array.from([0x80]))).toThrow(/truncated/);
    expect(() => decodeIds(Uint8Array.from([5, 0]))).toThrow(/ascend/);
    expect([...intersect(Uint32Array.from([1, 3, 5, 7]), Uint32Array.from([3, 4, 7]))]).toEqual([3, 7]);
    expect([...union(Uint32Array.from([1, 5]), Uint32Array.from([2, 5, 9]))]).toEqual([1, 2, 5, 9]);
  });

  it('builds rows in key order with ascending ids', () => {
    // A big segment counting-sorts keys below 2^21 and radix-sorts the hashed ones, a small one
    // radix-sorts every pair: both keep ids ascending and give the same rows.
    const entries: Array<[number, Uint32Array]> = [[9, Uint32Array.from([5, 70000, 2 ** 22, 2 ** 32 - 1])], [2, Uint32Array.from([5, 6, 2 ** 32 - 1])], [4, Uint32Array.from([6, 70000, 2 ** 22 + 1])]];
    const expected = [[5, [2, 9]], [6, [2, 4]], [70000, [4, 9]], [2 ** 22, [9]], [2 ** 22 + 1, [4]], [2 ** 32 - 1, [2, 9]]];
    expect(buildPostings(entries).map(([g, b]) => [g, [...decodeIds(b)]])).toEqual(expected);
    expect(buildPostings(entries, 0).map(([g, b]) => [g, [...decodeIds(b)]])).toEqual(expected);
    const rand = rng(5);
    const many: Array<[number, Uint32Array]> = [];
    for (let id = 1; id <= 40; id++) {
      const keys = new Set<number>();
      for (let i = 0; i < 200; i++) keys.add(rand() < 0.8 ? Math.floor(rand() * 2 ** 21) : Math.floor(rand() * 2 ** 32));
      many.push([id * 3, Uint32Array.from(keys)]);
    }
    const counted = buildPostings(many, 0);
    const radixed = buildPostings(many, Infinity);
    expect(radixed.length).toBe(counted.length);
    radixed.forEach(([g, b], i) => {
      expect(g).toBe(counted[i]![0]);
      expect([...b]).toEqual([...counted[i]![1]]);
    });
    // Keys all below 2^22 (an ASCII range's) take two radix passes, not three: the same rows.
    const small = many.map(([id, keys]) => [id, keys.filter((k) => k < 2 ** 21)] as [number, Uint32Array]);
    expect(buildPostings(small, Infinity).map(([g, b]) => [g, [...b]])).toEqual(buildPostings(small, 0).map(([g, b]) => [g, [...b]]));
    // One key range counted over its own keys (writeSegment's ranges): the same rows as the
    // whole segment's for those keys, the keys above the range radix-sorted after them.
    const lo = 2 ** 19;
    const span = 2 ** 18;
    const above = many.map(([id, keys]) => [id, keys.filter((k) => k >= lo)] as [number, Uint32Array]);
    const ranged = buildPostings(above, 0, lo, span);
    const whole = counted.filter(([g]) => g >= lo);
    expect(ranged.some(([g]) => g < lo + span) && ranged.some(([g]) => g >= lo + span)).toBe(true);
    expect(ranged.map(([g, b]) => [g, [...b]])).toEqual(whole.map(([g, b]) => [g, [...b]]));
    expect(buildPostings(above, Infinity, lo, span).map(([g, b]) => [g, [...b]])).toEqual(whole.map(([g, b]) => [g, [...b]]));
  });
});

describe('trigram index', () => {
  it('never hides a matching file: pending, flushed, edited, deleted, crashed, merged', async () => {
    const rand = rng(12);
    const db = join(work, 'a.db');
    let a = await openNodeStore(db);
    const files = new Map<string, string>();
    for (let i = 0; i < 60; i++) files.set(`f${String(i).padStart(3, '0')}.txt`, randomText(rand));
    await write(a, files, [...files.keys()].slice(0, 30), true);
    await write(a, files, [...files.keys()].slice(30), false); // keys computed in the store
    // 1. everything pending
    await checkSound(a, files, rand, false);
    // 2. flushed into one segment, nothing pending: the answer is exact
    await a.flushTrigrams();
    expect(await a.db.get('SELECT count(*) AS n FROM trigram_pending')).toEqual({ n: 0 });
    expect(await checkSound(a, files, rand, true)).toBeGreaterThan(0);
    // 3. edits and deletes, some flushed, some pending
    const keys = [...files.keys()];
    for (let i = 0; i < 20; i++) files.set(keys[Math.floor(rand() * keys.length)]!, randomText(rand));
    const gone = keys.filter(() => rand() < 0.1);
    await a.deleteFiles(gone);
    for (const p of gone) files.delete(p);
    await write(a, files, [...files.keys()].slice(0, 20), true);
    await a.flushTrigrams();
    await write(a, files, [...files.keys()].slice(20), true);
    await checkSound(a, files, rand, false);
    // 4. crash: close without a flush (the keys in memory are lost, the pending rows stay)
    await a.close();
    a = await openNodeStore(db);
    expect((await a.db.get<{ n: number }>('SELECT count(*) AS n FROM trigram_pending'))!.n).toBeGreaterThan(0);
    await checkSound(a, files, rand, false);
    await a.flushTrigrams(); // reads the pending texts back from file_text
    expect(await a.db.get('SELECT count(*) AS n FROM trigram_pending')).toEqual({ n: 0 });
    await checkSound(a, files, rand, false);
    // 5. a second connection writes; the first one's flush must not use its own stale keys
    const b = await openNodeStore(db);
    const p0 = [...files.keys()][0]!;
    files.set(p0, 'brand new zebra text\n');
    await write(a, files, [p0], true);
    files.set(p0, 'other quokka words\n');
    await write(b, files, [p0], true);
    await a.flushTrigrams(); // a's memory holds "zebra" for p0, but b wrote p0 last
    expect((await a.grepFiles((await compileGrep('quokka', 'exact')).trigrams)).map((f) => f.path)).toEqual([p0]);
    await checkSound(a, files, rand, false);
    await b.close();
    // 6. many small flushes: more than MAX_SEGMENTS segments get merged automatically, all but
    //    the oldest (the big one of a cold index is not rewritten by small runs)
    const oldest = (await segments(a.db))[0];
    for (let i = 0; i < MAX_SEGMENTS + 3; i++) {
      const p = [...files.keys()][Math.floor(rand() * files.size)]!;
      files.set(p, randomText(rand));
      await write(a, files, [p], true);
      await a.flushTrigrams();
      expect((await segments(a.db)).length).toBeLessThanOrEqual(MAX_SEGMENTS);
    }
    expect((await segments(a.db))[0]).toBe(oldest);
    await checkSound(a, files, rand, false);
    // 7. a full merge: no stale ids, no deleted ids; the answer is exact again
    await a.optimizeTrigrams();
    expect(await segments(a.db)).toHaveLength(1);
    const dir = await a.db.get<{ ids: Uint8Array }>('SELECT ids FROM trigram_postings WHERE gram = ?', [DIRECTORY]);
    const live = (await a.db.all<{ id: number }>('SELECT id FROM file_text ORDER BY id')).map((r) => r.id);
    expect([...decodeIds(dir!.ids)]).toEqual(live);
    expect(await checkSound(a, files, rand, true, 150)).toBeGreaterThan(0);
    expect(await a.integrityCheck()).toBe('ok');
    await a.close();
  });

  it('a bulk load keeps its keys until the run flushes them as ONE segment, the rows buildPostings makes', async () => {
    const rand = rng(31);
    const s = await openNodeStore(join(work, 'bulk.db'));
    await s.setBulkLoad(true);
    const files = new Map<string, string>();
    for (let i = 0; i < 90; i++) files.set(`g${String(i).padStart(3, '0')}.txt`, randomText(rand) + String.fromCodePoint(0x4e00 + i) + 'zz' + i);
    const paths = [...files.keys()];
    // Three batches, keys from the chunker's thread or computed by the store; never due.
    for (let b = 0; b < 3; b++) {
      await write(s, files, paths.slice(b * 30, b * 30 + 30), b !== 1);
      expect(await segments(s.db)).toHaveLength(0);
    }
    await checkSound(s, files, rand, false); // all pending: still sound
    await s.flushTrigrams();
    await s.setBulkLoad(false);
    expect(await segments(s.db)).toHaveLength(1);
    const ids = await s.db.all<{ id: number; path: string }>('SELECT id, path FROM file_text ORDER BY id');
    const expected = buildPostings(ids.map((r) => [r.id, fileTrigramKeys(files.get(r.path)!)] as [number, Uint32Array]));
    const rows = await s.db.all<{ gram: number; ids: Uint8Array }>('SELECT gram, ids FROM trigram_postings ORDER BY rowid');
    expect(rows[0]!.gram).toBe(DIRECTORY);
    expect([...decodeIds(rows[0]!.ids)]).toEqual(ids.map((r) => r.id));
    expect(rows.slice(1).map((r) => [r.gram, [...r.ids]])).toEqual(expected.map(([g, b]) => [g, [...b]]));
    expect(expected.some(([g]) => g >= 2 ** 21)).toBe(true); // hashed keys (the CJK ones) too
    // The closing optimize has nothing to merge.
    await s.optimizeTrigrams();
    expect(await segments(s.db)).toHaveLength(1);
    expect(await checkSound(s, files, rand, true)).toBeGreaterThan(0);
    await s.close();
  });

  it('past its flushKeys keys a normal run writes a segment at once, a bulk load one at its flush', async () => {
    const rand = rng(7);
    const files = new Map<string, string>();
    for (let i = 0; i < 40; i++) files.set(`k${String(i).padStart(2, '0')}.txt`, randomText(rand) + 'tail' + i);
    const paths = [...files.keys()];
    for (const bulk of [false, true]) {
      const s = await openNodeStore(join(work, `keys-${bulk}.db`));
      // The store's index, with a threshold a few files reach (FLUSH_KEYS is 4M keys).
      const index = new TrigramIndex(60);
      (s as unknown as { trigrams: TrigramIndex }).trigrams = index;
      await s.setBulkLoad(bulk);
      expect(index.bulk).toBe(bulk);
      for (let b = 0; b < 4; b++) await write(s, files, paths.slice(b * 10, b * 10 + 10), true);
      const mid = (await segments(s.db)).length;
      if (bulk) expect(mid).toBe(0);
      else expect(mid).toBeGreaterThan(1);
      await s.flushTrigrams();
      await s.setBulkLoad(false);
      if (bulk) expect(await segments(s.db)).toHaveLength(1);
      await s.optimizeTrigrams();
      expect(await checkSound(s, files, rand, true)).toBeGreaterThan(0);
      await s.close();
    }
  });

  it('reports a posting list that does not decode', async () => {
    const s = await openNodeStore(join(work, 'b.db'));
    await write(s, new Map([['a.txt', 'hello world\n']]), ['a.txt'], true);
    await s.flushTrigrams();
    expect(await s.integrityCheck()).toBe('ok');
    await s.db.run('UPDATE trigram_postings SET ids = ? WHERE gram = ?', [Uint8Array.from([0x80]), trigramKey('hel')]);
    expect(await s.integrityCheck()).toMatch(/trigram_postings: 1 posting lists do not decode/);
    await s.close();
  });
});
