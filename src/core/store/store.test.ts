import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Chunk, FileRecord } from '../types.ts';
import { openMemoryStore, openNodeStore } from './open-node.ts';
import { migrate, MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
import { StorageFullError, StoreError } from './sqlite.ts';
import { literalTrigrams } from '../search/trigram.ts';
import { embeddingText } from '../chunk/embedding-text.ts';
import { blobToVector, PAGE_SIZE, readFileSizes, vectorToBlob, vectorToInt8Blob, type Store } from './store.ts';
import { META } from './meta.ts';

type Item = { file: FileRecord; chunks: Array<Chunk & { contentHash: string }> };

function file(p: string, n: number, opts: { language?: string; hash?: string } = {}): Item {
  const language = opts.language ?? 'typescript';
  return {
    file: { path: p, hash: opts.hash ?? `hash-${p}`, size: 100 * n, mtime: 1_700_000_000_000, language },
    chunks: Array.from({ length: n }, (_, i) => ({
      path: p, startLine: i * 10 + 1, endLine: i * 10 + 9, language, chunkType: 'function' as const,
      symbol: `fn${i}`, parent: null, signature: `function fn${i}()`, doc: null,
      content: `function fn${i}() { return "${p} chunk ${i}" }`, contentHash: `${p}#${i}`,
    })),
  };
}

async function ftsConsistent(store: Store): Promise<void> {
  const chunks = await store.chunkCount();
  const fts = await store.db.get<{ n: number }>('SELECT count(*) AS n FROM chunks_fts');
  expect(fts?.n).toBe(chunks);
  expect(await store.integrityCheck()).toBe('ok');
}

describe('Store (memory)', () => {
  let store: Store;
  beforeEach(async () => { store = await openMemoryStore(); });
  afterEach(async () => { await store.close(); });

  it('migrations are idempotent', async () => {
    expect(await migrate(store.db)).toBe(SCHEMA_VERSION);
    expect(await migrate(store.db)).toBe(SCHEMA_VERSION);
    expect(await store.getMeta('schema_version')).toBe(String(SCHEMA_VERSION));
    await store.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    await expect(migrate(store.db)).rejects.toThrow(/newer/);
  });

  it('meta round-trips and overwrites', async () => {
    expect(await store.getMeta('merkle_root')).toBeNull();
    await store.setMeta('merkle_root', 'abc');
    await store.setMeta('merkle_root', 'def');
    expect(await store.getMeta('merkle_root')).toBe('def');
  });

  it('getFile returns one record (null for unknown or deleted paths); hasSiftTables sees a missing table', async () => {
    await store.writeFiles([file('src/a.ts', 2), file('b.py', 1, { language: 'python' })]);
    expect(await store.getFile('b.py')).toEqual({ path: 'b.py', hash: 'hash-b.py', size: 100, mtime: 1_700_000_000_000, language: 'python' });
    expect(await store.getFile('src/a.ts')).toEqual((await store.getFiles()).get('src/a.ts'));
    expect(await store.getFile('nope.ts')).toBeNull();
    await store.deleteFiles(['b.py']);
    expect(await store.getFile('b.py')).toBeNull();
    expect(await store.hasSiftTables()).toBe(true);
    await store.db.exec('DROP TABLE files');
    expect(await store.hasSiftTables()).toBe(false);
  });

  it('keeps FTS equal to chunks through insert, replace, rename and delete', async () => {
    await store.writeFiles([file('a.ts', 3), file('b.ts', 2)]);
    await ftsConsistent(store);
    await store.writeFiles([file('a.ts', 1)]); // replace: old chunks of a.ts gone
    expect(await store.chunkCount()).toBe(3);
    await ftsConsistent(store);
    await store.db.run(`UPDATE chunks SET content = 'changed body text' WHERE path = 'b.ts'`);
    await ftsConsistent(store);
    await store.renameFile('b.ts', { ...file('c/moved.ts', 0).file, hash: 'hash-b.ts' });
    const files = await store.getFiles();
    expect([...files.keys()].sort()).toEqual(['a.ts', 'c/moved.ts']);
    expect((await store.getFileChunks('c/moved.ts')).length).toBe(2);
    await ftsConsistent(store);
    const moved = await store.db.all('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?', ['"moved"']);
    expect(moved.length).toBe(2);
    await store.deleteFiles(['a.ts', 'c/moved.ts']);
    expect(await store.chunkCount()).toBe(0);
    await ftsConsistent(store);
  });


  it('keeps chunk_names equal to every chunk\'s merged names and defined constants through write, rewrite, rename and delete', async () => {
    const named = (p: string, defines: string[][]): Item => {
      const it = file(p, defines.length, { language: 'c' });
      it.chunks.forEach((c, i) => { c.defines = defines[i]!.length ? defines[i] : null; });
      it.chunks[0]!.names = ['fn0', 'helper0'];
      return it;
    };
    const expected = async () => {
      const rows: string[] = [];
      for (const f of (await store.getFiles()).keys()) {
        for (const c of await store.getFileChunks(f)) for (const n of new Set([...(c.names ?? []), ...(c.defines ?? [])].map((x) => x.toLowerCase()))) rows.push(`${c.id} ${n}`);
      }
      return rows.sort();
    };
    const actual = async () => (await store.db.all<{ chunk_id: number; key: string }>('SELECT chunk_id, key FROM chunk_names')).map((r) => `${r.chunk_id} ${r.key}`).sort();
    await store.writeFiles([named('a.h', [['PAGE_SIZE', 'PAGE_SHIFT'], []]), named('b.h', [[], ['HZ']])]);
    expect((await store.getFileChunks('a.h'))[0]).toMatchObject({ names: ['fn0', 'helper0'], defines: ['PAGE_SIZE', 'PAGE_SHIFT'] });
    expect(await actual()).toHaveLength(7);
    expect(await actual()).toEqual(await expected());
    await store.writeFiles([named('a.h', [['PAGE_MASK']])]);
    await store.renameFile('b.h', { ...named('c.h', [[]]).file, hash: 'hash-b.h' });
    expect(await actual()).toEqual(await expected());
    expect((await store.db.all('SELECT key FROM chunk_names WHERE key = ?', ['page_size']))).toEqual([]);
    expect((await store.db.all('SELECT key FROM chunk_names WHERE key = ?', ['page_mask']))).toHaveLength(1);
    await store.deleteFiles(['a.h']);
    expect(await actual()).toEqual(await expected());
    expect((await actual()).map((r) => r.split(' ')[1]).sort()).toEqual(['fn0', 'helper0', 'hz']);
    await ftsConsistent(store);
  });

  it('writes batches of any size row for row (many rows per statement), and a path named twice keeps its later item', async () => {
    // 24 chunk rows and 64 FTS rows go in one statement: sizes around and past both, plus a remainder.
    const sizes = [1, 23, 24, 25, 63, 64, 65, 130];
    await store.writeFiles(sizes.map((n, i) => file(`f${i}.ts`, n)));
    await ftsConsistent(store);
    for (const [i, n] of sizes.entries()) {
      const chunks = await store.getFileChunks(`f${i}.ts`);
      expect(chunks.map((c) => c.symbol)).toEqual(Array.from({ length: n }, (_, k) => `fn${k}`));
      expect(chunks.map((c) => c.content)).toEqual(file(`f${i}.ts`, n).chunks.map((c) => c.content));
      // Each FTS row carries its own chunk's text: the row id that matches the chunk's words is the chunk's.
      const last = chunks.at(-1)!;
      const hit = await store.db.all<{ id: number }>('SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH ?', [`"f${i}" AND "chunk ${n - 1}"`]);
      expect(hit.map((h) => h.id)).toEqual([last.id]);
    }
    // Texts, file records and trigram staging also go in many per statement: 150 files (two
    // full statements of 64 and a remainder), each text found back under its own path.
    const texted = Array.from({ length: 150 }, (_, i) => {
      const text = `function only${i}() {\n  return ${i};\n}\n`;
      const it = file(`t/${i}.ts`, 1, { hash: `h${i}` });
      it.chunks[0] = { ...it.chunks[0]!, startLine: 1, endLine: 3, content: text.slice(0, -1) };
      return { ...it, text };
    });
    await store.writeFiles(texted);
    for (const i of [0, 63, 64, 127, 128, 149]) {
      expect(await store.getFileText(`t/${i}.ts`)).toBe(texted[i]!.text);
      expect((await store.getFileChunks(`t/${i}.ts`))[0]?.content).toBe(texted[i]!.chunks[0]!.content);
      expect((await store.getFile(`t/${i}.ts`))?.hash).toBe(`h${i}`);
    }
    await store.flushTrigrams();
    expect((await store.grepFiles(literalTrigrams('only128()', false))).map((f) => f.path)).toEqual(['t/128.ts']);
    await store.writeFiles([file('dup.ts', 30), file('other.ts', 2), { ...file('dup.ts', 3), file: { ...file('dup.ts', 3).file, hash: 'later' } }]);
    expect((await store.getFileChunks('dup.ts')).length).toBe(3);
    expect((await store.getFile('dup.ts'))?.hash).toBe('later');
    await ftsConsistent(store);
  });
  it('uses a chunk\'s precomputed ftsTokens as the tokens column', async () => {
    const item = file('t.ts', 2);
    item.chunks[0] = { ...item.chunks[0]!, content: 'const x = lookupAccount();', ftsTokens: 'get user name' } as typeof item.chunks[0];
    await store.writeFiles([item]);
    // 'user' is in no column but the given tokens: the FTS row was written from them.
    const hits = await store.db.all<{ id: number }>(`SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH '"user"'`);
    expect(hits.length).toBe(1);
    expect((await store.getChunks(hits.map((h) => h.id)))[0]?.content).toBe('const x = lookupAccount();');
    await ftsConsistent(store);
  });

  it('stores chunk text once: rows given the file text refer into it and read back exactly', async () => {
    const text = 'line one\nfunction fn0() {\n  return "😀 wide";\n}\nline five\n';
    const item = { ...file('w.ts', 1), text };
    item.chunks[0] = { ...item.chunks[0]!, startLine: 2, endLine: 4, content: 'function fn0() {\n  return "😀 wide";\n}' };
    const stale = { ...file('x.ts', 1), text: 'not what the chunk says\n' }; // content not found in text → kept inline
    await store.writeFiles([item, stale]);
    const rows = await store.db.all<{ path: string; content: string; text_start: number | null }>('SELECT path, content, text_start FROM chunks ORDER BY path');
    expect(rows).toEqual([
      { path: 'w.ts', content: '', text_start: 9 },
      { path: 'x.ts', content: stale.chunks[0]!.content, text_start: null },
    ]);
    expect((await store.getFileChunks('w.ts'))[0]?.content).toBe(item.chunks[0]!.content);
    expect((await store.pendingEmbeddings('m', 10)).map((p) => p.text)).toEqual([item.chunks[0]!.content, stale.chunks[0]!.content]);
    expect((await store.db.all(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH '"wide"'`)).length).toBe(1);
    // A rename keeps the reference (file_text moves with it) and rewrites the FTS path words.
    await store.renameFile('w.ts', { ...item.file, path: 'lib/renamed.ts' });
    expect((await store.getFileChunks('lib/renamed.ts'))[0]?.content).toBe(item.chunks[0]!.content);
    expect((await store.db.all(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH '"renamed" AND "wide"'`)).length).toBe(1);
    expect((await store.db.all(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'path_words:"w"'`)).length).toBe(0);
    await ftsConsistent(store);
    // A missing FTS row is caught by the integrity check.
    await store.db.run(`DELETE FROM chunks_fts WHERE rowid = (SELECT min(id) FROM chunks)`);
    expect(await store.integrityCheck()).toMatch(/1 chunks have no FTS row/);
  });

  it('finds a file by its chunk range and reports a range that lost its rows', async () => {
    await store.writeFiles([file('a.ts', 3), file('b.ts', 2), file('c.ts', 4)]);
    await store.writeFiles([file('b.ts', 5)]); // new ids, after c.ts's
    await store.renameFile('a.ts', { ...file('a.ts', 3).file, path: 'z.ts' });
    await ftsConsistent(store);
    const symbols = async (p: string) => (await store.getFileChunks(p)).map((c) => c.symbol);
    expect([await symbols('z.ts'), await symbols('b.ts'), await symbols('c.ts'), await symbols('a.ts')])
      .toEqual([['fn0', 'fn1', 'fn2'], ['fn0', 'fn1', 'fn2', 'fn3', 'fn4'], ['fn0', 'fn1', 'fn2', 'fn3'], []]);
    await store.db.run(`UPDATE files SET chunk_hi = chunk_hi + 1 WHERE path = 'c.ts'`);
    expect(await store.integrityCheck()).toMatch(/1 files' chunk ranges hold other rows or gaps/);
    await store.db.run(`UPDATE files SET chunk_lo = chunk_lo + 1, chunk_hi = chunk_hi - 1 WHERE path = 'c.ts'`);
    expect(await store.integrityCheck()).toMatch(/1 chunks lie outside their file's chunk range/);
  });

  it("readFileSizes gives each known file's bytes and pieces, after a file is written again", async () => {
    await store.writeFiles([file('a.ts', 3), file('b.ts', 2), file('empty.ts', 0)]);
    await store.writeFiles([file('b.ts', 5)]);
    expect(await readFileSizes(store.db, ['a.ts', 'b.ts', 'b.ts', 'empty.ts', 'nope.ts'])).toEqual({
      'a.ts': { bytes: 300, pieces: 3 }, 'b.ts': { bytes: 500, pieces: 5 }, 'empty.ts': { bytes: 0, pieces: 0 },
    });
    expect(await readFileSizes(store.db, [])).toEqual({});
  });

  it('optimizeFts merges the index without changing what matches', async () => {
    for (let i = 0; i < 6; i++) await store.writeFiles([file(`f${i}.ts`, 3)]); // one FTS segment per commit
    const segments = async () => (await store.db.get<{ n: number }>('SELECT count(*) AS n FROM chunks_fts_idx'))?.n ?? 0;
    const match = () => store.db.all(`SELECT rowid, bm25(chunks_fts) AS r FROM chunks_fts WHERE chunks_fts MATCH '"fn1" OR "chunk"*' ORDER BY r, rowid`);
    const before = await match();
    const segsBefore = await segments();
    await store.optimizeFts();
    expect(await segments()).toBeLessThan(segsBefore);
    expect(await match()).toEqual(before);
    await ftsConsistent(store);
  });

  it('writeFiles is atomic: a failing batch stores nothing', async () => {
    await store.writeFiles([file('keep.ts', 2)]);
    const bad = file('bad.ts', 2);
    (bad.chunks[1] as { startLine: unknown }).startLine = null; // NOT NULL violation mid-batch
    await expect(store.writeFiles([file('new.ts', 3), bad])).rejects.toBeInstanceOf(StoreError);
    const thrower = file('thrower.ts', 2);
    (thrower.chunks[1] as { content: unknown }).content = null; // fails in JS, mid-transaction
    await expect(store.writeFiles([file('new.ts', 3), thrower])).rejects.toThrow();
    expect([...(await store.getFiles()).keys()]).toEqual(['keep.ts']);
    expect(await store.chunkCount()).toBe(2);
    await ftsConsistent(store);
    await store.writeFiles([file('new.ts', 1)]); // the Db is usable after a rollback
    expect(await store.chunkCount()).toBe(3);
  });

  it('getChunks returns chunks in the order given and skips unknown ids', async () => {
    await store.writeFiles([file('a.ts', 3)]);
    const ids = (await store.getFileChunks('a.ts')).map((c) => c.id);
    const got = await store.getChunks([ids[2], 999, ids[0]]);
    expect(got.map((c) => c.id)).toEqual([ids[2], ids[0]]);
    expect(got[0]).toMatchObject({ path: 'a.ts', symbol: 'fn2', chunkType: 'function', contentHash: 'a.ts#2', startLine: 21 });
  });

  it('pending chunks carry what their embedding text is made of: the same text as the stored chunk', async () => {
    const item = file('a.ts', 3);
    item.chunks[1] = { ...item.chunks[1]!, parent: 'Outer', context: 'class Outer {', signature: 'function fn1(a: number)' };
    await store.writeFiles([item, file('README.md', 2, { language: 'markdown' })]);
    const pending = await store.pendingEmbeddings('m1', 10);
    expect(pending.length).toBe(5);
    const stored = new Map((await store.getChunks(pending.map((p) => p.id))).map((c) => [c.id, c]));
    for (const p of pending) {
      expect(embeddingText({ ...p, content: p.text })).toBe(embeddingText(stored.get(p.id)!));
    }
    expect(pending.find((p) => p.parent === 'Outer')).toMatchObject({ context: 'class Outer {', signature: 'function fn1(a: number)', symbol: 'fn1' });
  });

  it('putEmbeddings writes many vectors, in any order, in one go', async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ hash: ((i * 7919) % 1000).toString(16).padStart(16, '0'), vector: new Float32Array([i, 1, -i]) }));
    await store.putEmbeddings('m1', items);
    const got = await store.getEmbeddings('m1', items.map((x) => x.hash));
    expect(got.size).toBe(300);
    for (const { hash, vector } of items) expect([...got.get(hash)!]).toEqual([...blobToVector(vectorToInt8Blob(vector))]);
  });

  it('putEncodedEmbeddings stores blobs encoded elsewhere (views into one buffer) as putEmbeddings would', async () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ hash: ((i * 7919) % 1000).toString(16).padStart(16, '0'), vector: new Float32Array([i, 1, -i, 0.5]) }));
    const stride = vectorToInt8Blob(items[0]!.vector).byteLength;
    const buffer = new Uint8Array(items.length * stride);
    items.forEach((it, i) => buffer.set(vectorToInt8Blob(it.vector), i * stride));
    await store.putEncodedEmbeddings('m2', items.map((it, i) => [it.hash, buffer.subarray(i * stride, (i + 1) * stride)] as const));
    await store.putEmbeddings('m3', items);
    const encoded = await store.getEmbeddings('m2', items.map((x) => x.hash));
    const plain = await store.getEmbeddings('m3', items.map((x) => x.hash));
    expect(encoded.size).toBe(50);
    for (const { hash } of items) expect([...encoded.get(hash)!]).toEqual([...plain.get(hash)!]);
  });

  it('caches embeddings by content hash and model; pending puts code before data', async () => {
    await store.writeFiles([file('README.md', 2, { language: 'markdown' }), file('a.ts', 2), file('b.ts', 1)]);
    // b.ts shares a hash with a.ts chunk 0: one embedding serves both chunks.
    await store.db.run(`UPDATE chunks SET content_hash = 'a.ts#0' WHERE path = 'b.ts'`);
    const pending = await store.pendingEmbeddings('m1', 10);
    expect(pending.map((p) => p.path)).toEqual(['a.ts', 'a.ts', 'README.md', 'README.md']);
    const page1 = await store.pendingEmbeddings('m1', 2);
    const page2 = await store.pendingEmbeddings('m1', 10, page1[page1.length - 1].id);
    const paged = [...page1, ...page2];
    expect(new Set(paged.map((p) => p.id)).size).toBe(paged.length); // keyset paging: no id twice
    expect(new Set(paged.map((p) => p.contentHash))).toEqual(new Set(pending.map((p) => p.contentHash)));
    // One at a time, from code into data and through the data: every chunk once, code first.
    const single: string[] = [];
    for (let page = await store.pendingEmbeddings('m1', 1); page.length; page = await store.pendingEmbeddings('m1', 1, page[0]!.id)) single.push(page[0]!.path);
    expect(single).toEqual(['a.ts', 'a.ts', 'b.ts', 'README.md', 'README.md']);

    const v = new Float32Array([0.5, -1.25, 3]);
    await store.putEmbeddings('m1', [{ hash: 'a.ts#0', vector: v }]);
    expect(await store.embeddedCount('m1')).toBe(2);
    expect(await store.embeddedCount('m2')).toBe(0);
    expect([...(await store.getEmbeddings('m1', ['a.ts#0', 'nope'])).get('a.ts#0')!]).toEqual([...blobToVector(vectorToInt8Blob(v))]);
    expect((await store.pendingEmbeddings('m1', 10)).map((p) => p.contentHash)).toEqual(['a.ts#1', 'README.md#0', 'README.md#1']);

    await store.putEmbeddings('m1', [{ hash: 'a.ts#1', vector: new Float32Array([1, 2, 3]) }]);
    const { ids, vectors, dim } = await store.loadVectors('m1');
    expect(dim).toBe(3);
    expect(ids.length).toBe(3);
    expect(vectors.length).toBe(9);
    const chunks = await store.getChunks([...ids]);
    chunks.forEach((c, i) => {
      const expected = c.contentHash === 'a.ts#0' ? v : new Float32Array([1, 2, 3]);
      // int8 with a per-vector scale: each component within half a step (max|x| / 254).
      const step = Math.max(...expected.map(Math.abs)) / 127;
      vectors.subarray(i * 3, i * 3 + 3).forEach((x, k) => expect(Math.abs(x - expected[k])).toBeLessThanOrEqual(step / 2 + 1e-6));
    });

    await store.deleteFiles(['a.ts', 'b.ts']);
    expect(await store.pruneEmbeddings()).toBe(2);
  });

  it('reads little-endian float32 vector blobs (schema v1/v2)', () => {
    const blob = vectorToBlob(new Float32Array([1]));
    expect([...blob]).toEqual([0, 0, 0x80, 0x3f]);
    expect(blobToVector(blob)).toEqual(new Float32Array([1]));
  });

  it('stores vectors as int8 with a per-vector scale, never a multiple of 4 bytes long', () => {
    // [scale f32 LE = 2/127][codes][tail]: 2 → 127, -1.5 → -95.25 → -95, 0.5 → 31.75 → 32.
    const blob = vectorToInt8Blob(new Float32Array([2, -1.5, 0.5, 0]));
    expect(blob.length).toBe(4 + 4 + 1);
    expect(new DataView(blob.buffer).getFloat32(0, true)).toBeCloseTo(2 / 127, 7);
    expect([...new Int8Array(blob.buffer, 4, 4)]).toEqual([127, -95, 32, 0]);
    expect(blob[blob.length - 1]).toBe(1);
    const three = vectorToInt8Blob(new Float32Array([1, 2, 3])); // 4 + 3 + 1 = 8: one pad byte
    expect([three.length, three[7], three[8]]).toEqual([9, 0, 2]);
    for (const dim of [1, 2, 3, 4, 5, 7, 8, 383, 384]) {
      const v = Float32Array.from({ length: dim }, (_, i) => Math.sin(i + 1));
      const b = vectorToInt8Blob(v);
      expect(b.length % 4).not.toBe(0);
      expect(b.length).toBeLessThanOrEqual(dim + 6);
      expect(blobToVector(b).length).toBe(dim);
    }
    expect([...blobToVector(vectorToInt8Blob(new Float32Array(4)))]).toEqual([0, 0, 0, 0]);
    expect(() => blobToVector(new Uint8Array([1, 2, 3, 9, 9]))).toThrow(/neither float32 nor int8/);
  });

  it('int8 vectors keep cosine similarity within ~1e-3 (384 dims)', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const unit = () => {
      const v = Float32Array.from({ length: 384 }, rand);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const cos = (a: Float32Array, b: Float32Array) => {
      let d = 0, na = 0, nb = 0;
      for (let i = 0; i < a.length; i++) { d += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
      return d / Math.sqrt(na * nb);
    };
    let worst = 0;
    for (let t = 0; t < 50; t++) {
      const q = unit(), x = unit();
      const back = blobToVector(vectorToInt8Blob(x));
      expect(cos(x, back)).toBeGreaterThan(0.999);
      worst = Math.max(worst, Math.abs(cos(q, x) - cos(q, back)));
    }
    expect(worst).toBeLessThan(3e-3);
    expect(worst).toBeGreaterThan(0); // it is lossy: this test would notice float32 storage
  });

  it('stats and chunkTypes describe the index', async () => {
    await store.writeFiles([file('a.ts', 2), file('doc.md', 1, { language: 'markdown' }), file('test/a.test.ts', 1)]);
    await store.putEmbeddings('m1', [{ hash: 'a.ts#0', vector: new Float32Array(4) }]);
    const s = await store.stats();
    expect(s).toMatchObject({
      files: 3, chunks: 4, bytes: 400, symbols: 4, model: 'm1', embeddedChunks: 1, schemaVersion: SCHEMA_VERSION,
      languages: { typescript: { files: 2, bytes: 300, chunks: 3 }, markdown: { files: 1, bytes: 100, chunks: 1 } },
      chunkTypes: { function: 4 },
    });
    // By file kind (text/file-kind.ts): files and bytes from the files' paths, chunks from chunks.kind.
    expect(s.kinds).toEqual({ code: { files: 1, bytes: 200, chunks: 2 }, docs: { files: 1, bytes: 100, chunks: 1 }, test: { files: 1, bytes: 100, chunks: 1 } });
    expect(s.dbBytes).toBeGreaterThan(0);
    expect(s.lastIndexed).toMatch(/^\d{4}-/);
    expect(await store.chunkTypes()).toEqual(['function']);
    // Kept while nothing is written; any write (files, embeddings, metas) is seen at the next call.
    expect(await store.stats()).toBe(s);
    await store.writeFiles([file('b.ts', 1)]);
    expect(await store.stats()).toMatchObject({ files: 4, chunks: 5 });
    await store.putEmbeddings('m1', [{ hash: 'b.ts#0', vector: new Float32Array(4) }]);
    expect((await store.stats()).embeddedChunks).toBe(2);
    await store.deleteFiles(['doc.md']);
    expect(await store.stats()).toMatchObject({ files: 3, chunks: 4 });
  });

  it('structureBytes splits the index file into its structures and the rest', async () => {
    await store.writeFiles([file('a.ts', 40), file('doc.md', 5, { language: 'markdown' })]);
    await store.putEmbeddings('m1', [{ hash: 'a.ts#0', vector: new Float32Array(384) }]);
    await store.flushTrigrams();
    const st = await store.structureBytes();
    expect(st.total).toBe((await store.stats()).dbBytes);
    expect(Object.values(st.structures).reduce((a, b) => a + b, 0)).toBe(st.total);
    for (const k of ['keyword', 'chunks', 'embeddings', 'files'] as const) expect(st.structures[k], k).toBeGreaterThan(0);
    // 384 int8 codes and a scale: the vector's row is most of its structure.
    expect(st.structures.embeddings).toBeGreaterThanOrEqual(384);
    expect(st.freeBytes).toBeGreaterThanOrEqual(0);
  });

  it('maps SQLITE_FULL to StorageFullError', async () => {
    await store.db.exec('PRAGMA max_page_count = 20');
    const big = file('big.ts', 50);
    for (const c of big.chunks) c.content = 'x'.repeat(4000) + c.content;
    const err = await store.writeFiles([big]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageFullError);
    expect((err as StorageFullError).message).toMatch(/storage is full/i);
    expect((err as StorageFullError).code & 0xff).toBe(13);
  });
});

describe('Store (Node file VFS)', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sift-store-')); });
  afterEach(() => { fs.rmSync(dir, { recursive: true, force: true }); });

  it('counts chunks once per change, seeing changes made here and by another connection', async () => {
    const f = path.join(dir, 'count.sqlite');
    const a = await openNodeStore(f);
    const counts: string[] = [];
    const get = a.db.get.bind(a.db);
    a.db.get = (async (sql: string, params?: unknown[]) => {
      if (/count\(\*\)/.test(sql)) counts.push(sql);
      return get(sql, params as never);
    }) as typeof a.db.get;
    await a.writeFiles([file('a.ts', 3)]);
    expect(await a.chunkCount()).toBe(3);
    expect(await a.chunkCount()).toBe(3);
    expect(counts).toHaveLength(1);
    await a.deleteFiles(['a.ts']);
    expect(await a.chunkCount()).toBe(0);
    expect(counts).toHaveLength(2);
    // Another connection's commit (a second tab, a CLI process) is seen too.
    const b = await openNodeStore(f);
    await b.writeFiles([file('b.ts', 2)]);
    await b.close();
    expect(await a.chunkCount()).toBe(2);
    expect(counts).toHaveLength(3);
    await a.close();
  });

  it('a scratch file is built without a journal on disk from its first page: the new file\'s first commit (auto_vacuum) included', async () => {
    const f = path.join(dir, 'scratch.sqlite');
    const names: string[] = [];
    const watcher = fs.watch(dir, (_event, name) => {
      if (name) names.push(String(name));
    });
    try {
      const s = await openNodeStore(f, { scratch: true });
      await s.writeFiles([file('a.ts', 3)]);
      expect((await s.db.get<{ page_size: number }>('PRAGMA page_size'))?.page_size).toBe(PAGE_SIZE);
      expect((await s.db.get<{ auto_vacuum: number }>('PRAGMA auto_vacuum'))?.auto_vacuum).toBe(2);
      await s.close();
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      watcher.close();
    }
    expect(names).toContain('scratch.sqlite');
    expect(names.filter((n) => n.includes('journal'))).toEqual([]);
  });

  it('an unjournaled load writes no journal file, still rolls back a failed batch, and ends journaled, synced and whole', async () => {
    const f = path.join(dir, 'bulk.sqlite');
    const s = await openNodeStore(f);
    const mode = async () => [
      (await s.db.get<{ journal_mode: string }>('PRAGMA journal_mode'))?.journal_mode,
      (await s.db.get<{ synchronous: number }>('PRAGMA synchronous'))?.synchronous,
    ];
    expect(await mode()).toEqual(['delete', 1]);
    expect(await s.hasFiles()).toBe(false);
    const journals: string[] = [];
    const watcher = fs.watch(dir, (_e, name) => { if (name?.endsWith('-journal')) journals.push(name); });
    try {
      // Journaled, a commit makes a journal file (what the watch sees)...
      await s.setMeta(META.runState, 'indexing');
      await new Promise((r) => setTimeout(r, 50));
      expect(journals.length).toBeGreaterThan(0);
      journals.length = 0;
      // ...unjournaled, none.
      await s.setUnjournaled(true);
      expect(await mode()).toEqual(['memory', 0]);
      for (let i = 0; i < 20; i++) await s.writeFiles([file(`f${i}.ts`, 50)]);
      const bad = file('bad.ts', 2);
      (bad.chunks[1] as { startLine: unknown }).startLine = null; // NOT NULL violation mid-batch
      await expect(s.writeFiles([file('new.ts', 3), bad])).rejects.toBeInstanceOf(StoreError);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      watcher.close();
    }
    expect(journals).toEqual([]);
    expect(await s.hasFiles()).toBe(true);
    expect(await s.chunkCount()).toBe(1000);
    await s.setUnjournaled(false);
    expect(await mode()).toEqual(['delete', 1]);
    await ftsConsistent(s);
    await s.close();
    const again = await openNodeStore(f);
    expect(await again.chunkCount()).toBe(1000);
    expect(await again.getMeta(META.runState)).toBe('indexing');
    await ftsConsistent(again);
    await again.close();
  });

  it('persists across close and reopen, readable by native sqlite3', async () => {
    const file1 = path.join(dir, 'index.sqlite');
    const a = await openNodeStore(file1);
    await a.writeFiles([file('a.ts', 3)]);
    await a.setMeta('merkle_root', 'r1');
    await a.close();
    const b = await openNodeStore(file1);
    expect(await b.chunkCount()).toBe(3);
    expect(await b.getMeta('merkle_root')).toBe('r1');
    expect(await b.integrityCheck()).toBe('ok');
    await b.close();
    const native = execFileSync('/usr/bin/sqlite3', [file1, 'SELECT count(*) FROM chunks; PRAGMA integrity_check;']).toString();
    expect(native.trim().split('\n')).toEqual(['3', 'ok']);
  });

  it('migrates a version-1 index (external-content FTS, triggers) to the current schema: emptied for a cold re-index, embeddings kept', async () => {
    const f = path.join(dir, 'v1.sqlite');
    const row = (p: string, i: number) => `('${p}', ${i * 10 + 1}, ${i * 10 + 9}, 'typescript', 'function', 'fn${i}', NULL, 'function fn${i}()', NULL,
      'function fn${i}() { return "${p} chunk ${i}" }', '${p}#${i}', 'fn${i}', '${p.replace('.', ' ')}', '')`;
    execFileSync('/usr/bin/sqlite3', [f, `${MIGRATIONS[0]}
      INSERT INTO chunks (path, start_line, end_line, language, chunk_type, symbol, parent, signature, doc, content, content_hash, names, path_words, tokens)
        VALUES ${[row('a.ts', 0), row('a.ts', 1), row('b.ts', 0)].join(', ')};
      INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES ('a.ts', 'h', 1, 1, 'typescript', 'x'), ('b.ts', 'h', 1, 1, 'typescript', 'x');
      INSERT INTO embeddings (content_hash, model, vector) VALUES ('a.ts#0', 'm', x'0000803f'), ('${'ab'.repeat(32)}', 'm', x'00000040');
      PRAGMA user_version = 1;`]);
    const s = await openNodeStore(f);
    const sql = await s.db.get<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'`);
    expect(sql?.sql).toContain(`content=''`);
    expect(sql?.sql).not.toContain('prefix');
    // Schema 6 stores file text packed; chunks referred into the old text, so the index is
    // emptied and the next run is a cold index. Cached embeddings survive (keyed by content hash).
    expect(await s.chunkCount()).toBe(0);
    expect((await s.getFiles()).size).toBe(0);
    expect((await s.getEmbeddings('m', ['a.ts#0'])).size).toBe(1);
    // A 64-character hash of older versions is found under its 16-character prefix (CONTENT_HASH_CHARS).
    expect([...(await s.getEmbeddings('m', ['ab'.repeat(8)])).get('ab'.repeat(8))!]).toEqual([2]);
    await ftsConsistent(s);
    await s.writeFiles([file('c.ts', 2), file('a.ts', 1)]);
    await s.deleteFiles(['a.ts']);
    await ftsConsistent(s);
    expect((await s.db.all(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH '"chunk"'`)).length).toBe(2);
    expect(await s.integrityCheck()).toBe('ok');
    await s.close();
  });

  it('migrates a version-6 index: merged names move to chunk_names, C/C++ files are re-chunked, the rest kept', async () => {
    const f = path.join(dir, 'v6.sqlite');
    // A schema-6 file: today's schema rewound (Debian's sqlite3 predates contentless_delete).
    const old = await openNodeStore(f);
    const row = (p: string, lang: string, symbol: string, symbols: string | null) => `('${p}', 1, 9, '${lang}', 'function', '${symbol}', NULL, NULL, NULL, 'int ${symbol}(void);', 'h-${p}', ${symbols ? `'${symbols}'` : 'NULL'})`;
    await old.db.exec(`ALTER TABLE chunks DROP COLUMN kind; DROP TABLE chunk_names; ALTER TABLE chunks DROP COLUMN defines;
      ALTER TABLE chunks DROP COLUMN sig_span; ALTER TABLE chunks DROP COLUMN doc_span;
      ALTER TABLE files DROP COLUMN chunk_lo; ALTER TABLE files DROP COLUMN chunk_hi; CREATE INDEX chunks_path ON chunks(path);
      DROP INDEX chunks_data; CREATE INDEX chunks_embed_order ON chunks(is_data, id);
      CREATE INDEX chunks_symbols ON chunks(symbols) WHERE symbols IS NOT NULL;
      INSERT INTO chunks (path, start_line, end_line, language, chunk_type, symbol, parent, signature, doc, content, content_hash, symbols)
        VALUES ${[row('a.ts', 'typescript', 'qsize', 'qsize maxSize'), row('b.ts', 'typescript', 'one', null), row('c.h', 'c', 'list_add', 'list_add list_del')].join(', ')};
      INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES ('a.ts', 'h', 1, 1, 'typescript', 'x'), ('b.ts', 'h', 1, 1, 'typescript', 'x'), ('c.h', 'h', 1, 1, 'c', 'x'), ('d.py', 'h', 1, 1, 'python', 'x'), ('e.md', 'h', 1, 1, 'markdown', 'x');
      PRAGMA user_version = 6;`);
    await old.close();
    const s = await openNodeStore(f);
    const names = await s.db.all<{ name: string }>('SELECT c.path || \' \' || n.key AS name FROM chunk_names n JOIN chunks c ON c.id = n.chunk_id ORDER BY 1');
    expect(names.map((r) => r.name)).toEqual(['a.ts maxsize', 'a.ts qsize', 'c.h list_add', 'c.h list_del']);
    expect(await s.db.get(`SELECT name FROM sqlite_master WHERE name = 'chunks_symbols'`)).toBeUndefined();
    const files = await s.getFiles();
    expect(files.get('e.md')?.hash).toBe('h');
    expect(files.get('c.h')?.hash).toBe('');
    expect(files.get('a.ts')?.hash).toBe(''); // schema 8: enum members
    expect(files.get('d.py')?.hash).toBe(''); // schema 9: module constants
    await s.close();
  });

  it('migrates a version-9 index: Python, Java and C# files are re-read (class constants), the rest kept', async () => {
    const f = path.join(dir, 'v9.sqlite');
    const old = await openNodeStore(f);
    await old.db.exec(`ALTER TABLE chunks DROP COLUMN kind; INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES
      ('a.py', 'h', 1, 1, 'python', 'x'), ('B.java', 'h', 1, 1, 'java', 'x'), ('C.cs', 'h', 1, 1, 'csharp', 'x'),
      ('d.go', 'h', 1, 1, 'go', 'x'), ('e.ts', 'h', 1, 1, 'typescript', 'x'), ('f.c', 'h', 1, 1, 'c', 'x');
      PRAGMA user_version = 9;`);
    await old.close();
    const s = await openNodeStore(f);
    const files = await s.getFiles();
    // f.c: schema 11 re-reads C files (a header may be C++).
    expect(Object.fromEntries([...files].map(([p, r]) => [p, r.hash]))).toEqual({ 'a.py': '', 'B.java': '', 'C.cs': '', 'd.go': 'h', 'e.ts': '' /* schema 17: JavaScript and TypeScript re-read */, 'f.c': '' });
    await s.close();
  });

  it('migrates a version-10 index: every chunk gets its file kind, Rust and newly structured languages are re-read', async () => {
    const f = path.join(dir, 'v10.sqlite');
    const old = await openNodeStore(f);
    const row = (id: number, p: string, lang: string) => `(${id}, '${p}', 1, 1, '${lang}', 'text', NULL, NULL, NULL, NULL, 'x', 'h${id}')`;
    await old.db.exec(`ALTER TABLE chunks DROP COLUMN kind;
      INSERT INTO chunks (id, path, start_line, end_line, language, chunk_type, symbol, parent, signature, doc, content, content_hash)
        VALUES ${[row(1, 'src/a.go', 'go'), row(2, 'src/a_test.go', 'go'), row(3, 'README.md', 'markdown'), row(4, 'vendor/x/y.go', 'go'), row(5, 'go.mod', 'text')].join(', ')};
      INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES
        ('src/a.go', 'h', 1, 1, 'go', 'x'), ('lib.rs', 'h', 1, 1, 'rust', 'x'), ('A.kt', 'h', 1, 1, 'kotlin', 'x'), ('e.py', 'h', 1, 1, 'python', 'x');
      PRAGMA user_version = 10;`);
    await old.close();
    const s = await openNodeStore(f);
    const kinds = await s.db.all<{ id: number; kind: string }>('SELECT id, kind FROM chunks ORDER BY id');
    expect(kinds.map((r) => r.kind)).toEqual(['code', 'test', 'docs', 'generated', 'config']);
    const files = await s.getFiles();
    // src/a.go: schema 13 re-reads a file of a grammar's language that has only text chunks; e.py:
    // schema 21 re-reads Python (typed module-level names defined).
    expect(Object.fromEntries([...files].map(([p, r]) => [p, r.hash]))).toEqual({ 'src/a.go': '', 'lib.rs': '', 'A.kt': '', 'e.py': '' });
    await s.close();
  });

  it('migrates a version-12 index: files of a grammar\'s language chunked wholly as text are re-read, the rest kept', async () => {
    const f = path.join(dir, 'v12.sqlite');
    const old = await openNodeStore(f);
    const row = (id: number, p: string, lang: string, type: string) => `(${id}, '${p}', ${id}, ${id}, '${lang}', '${type}', 'x', 'h${id}')`;
    await old.db.exec(`INSERT INTO chunks (id, path, start_line, end_line, language, chunk_type, content, content_hash)
        VALUES ${[row(1, 'test_bpf.c', 'c', 'text'), row(2, 'test_bpf.c', 'c', 'text'), row(3, 'ok.go', 'go', 'function'), row(4, 'ok.go', 'go', 'text'),
    row(5, 'README.md', 'markdown', 'text'), row(6, 'big.py', 'python', 'text'), row(7, 'notes.txt', 'text', 'text')].join(', ')};
      INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES ('test_bpf.c', 'h', 1, 1, 'c', 'x'), ('ok.go', 'h', 1, 1, 'go', 'x'),
        ('README.md', 'h', 1, 1, 'markdown', 'x'), ('big.py', 'h', 1, 1, 'python', 'x'), ('notes.txt', 'h', 1, 1, 'text', 'x'), ('empty.go', 'h', 1, 1, 'go', 'x');
      PRAGMA user_version = 12;`);
    await old.close();
    const s = await openNodeStore(f);
    const files = await s.getFiles();
    // test_bpf.c: schema 13 (text only in a grammar's language), and schema 14 re-reads every C and C++ file.
    expect(Object.fromEntries([...files].map(([p, r]) => [p, r.hash]))).toEqual({ 'test_bpf.c': '', 'ok.go': 'h', 'README.md': 'h', 'big.py': '', 'notes.txt': 'h', 'empty.go': 'h' });
    await s.close();
  });

  it('migrates a version-13 index: C and C++ files are re-read (schema 14: macros that open a declaration), the rest kept', async () => {
    const f = path.join(dir, 'v13.sqlite');
    const old = await openNodeStore(f);
    const row = (id: number, p: string, lang: string) => `(${id}, '${p}', ${id}, ${id}, '${lang}', 'function', 'x', 'h${id}')`;
    await old.db.exec(`INSERT INTO chunks (id, path, start_line, end_line, language, chunk_type, content, content_hash)
        VALUES ${[row(1, 'a.c', 'c'), row(2, 'b.hpp', 'cpp'), row(3, 'c.go', 'go'), row(4, 'd.rb', 'ruby')].join(', ')};
      INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES ('a.c', 'h', 1, 1, 'c', 'x'), ('b.hpp', 'h', 1, 1, 'cpp', 'x'),
        ('c.go', 'h', 1, 1, 'go', 'x'), ('d.rb', 'h', 1, 1, 'ruby', 'x');
      PRAGMA user_version = 13;`);
    await old.close();
    const s = await openNodeStore(f);
    const files = await s.getFiles();
    expect(Object.fromEntries([...files].map(([p, r]) => [p, r.hash]))).toEqual({ 'a.c': '', 'b.hpp': '', 'c.go': 'h', 'd.rb': '' /* schema 25: Ruby */ });
    await s.close();
  });

  it('migrates a version-14 index: chunks whose file kind the rules now judge otherwise get it (schema 15), files and rows kept', async () => {
    const f = path.join(dir, 'v14.sqlite');
    const old = await openNodeStore(f);
    const row = (id: number, p: string, lang: string, kind: string) => `(${id}, '${p}', ${id}, ${id}, '${lang}', 'function', 'x', 'h${id}', '${kind}')`;
    await old.db.exec(`INSERT INTO chunks (id, path, start_line, end_line, language, chunk_type, content, content_hash, kind)
        VALUES ${[row(1, 'src/history.ts', 'typescript', 'docs'), row(2, 'go/doc/reader.go', 'go', 'docs'), row(3, 'testing/testing.go', 'go', 'test'),
    row(4, 'unittest/case.py', 'python', 'test'), row(5, 'README.md', 'markdown', 'docs'), row(6, 'a_test.go', 'go', 'test'), row(7, 'LICENSE', 'text', 'docs')].join(', ')};
      INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES ('src/history.ts', 'h', 1, 1, 'typescript', 'x'), ('a_test.go', 'h', 1, 1, 'go', 'x');
      PRAGMA user_version = 14;`);
    await old.close();
    const s = await openNodeStore(f);
    const kinds = await s.db.all<{ kind: string }>('SELECT kind FROM chunks ORDER BY id');
    expect(kinds.map((r) => r.kind)).toEqual(['code', 'code', 'code', 'code', 'docs', 'test', 'docs']);
    const files = await s.getFiles();
    expect(Object.fromEntries([...files].map(([p, r]) => [p, r.hash]))).toEqual({ 'src/history.ts': '' /* schema 17 */, 'a_test.go': 'h' });
    await s.close();
  });

  it('migrates a version-15 index: TypeScript declaration files become generated (schema 16), files and rows kept', async () => {
    const f = path.join(dir, 'v15.sqlite');
    const old = await openNodeStore(f);
    const row = (id: number, p: string, lang: string, kind: string) => `(${id}, '${p}', ${id}, ${id}, '${lang}', 'function', 'x', 'h${id}', '${kind}')`;
    await old.db.exec(`INSERT INTO chunks (id, path, start_line, end_line, language, chunk_type, content, content_hash, kind)
        VALUES ${[row(1, 'index.d.ts', 'typescript', 'code'), row(2, 'src/a.ts', 'typescript', 'code'), row(3, 'types/x.d.cts', 'typescript', 'code')].join(', ')};
      INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES ('main.go', 'h', 1, 1, 'go', 'x');
      PRAGMA user_version = 15;`);
    await old.close();
    const s = await openNodeStore(f);
    const kinds = await s.db.all<{ kind: string }>('SELECT kind FROM chunks ORDER BY id');
    expect(kinds.map((r) => r.kind)).toEqual(['generated', 'code', 'generated']);
    expect((await s.getFiles()).get('main.go')?.hash).toBe('h');
    await s.close();
  });

  it('migrates a version-17 index: a bundled/ folder is code again, Haskell, Kotlin, TypeScript and Rust files are re-chunked on the next run (schema 18), others kept', async () => {
    const f = path.join(dir, 'v17.sqlite');
    const old = await openNodeStore(f);
    const row = (id: number, p: string, lang: string, kind: string) => `(${id}, '${p}', ${id}, ${id}, '${lang}', 'function', 'x', 'h${id}', '${kind}')`;
    await old.db.exec(`INSERT INTO chunks (id, path, start_line, end_line, language, chunk_type, content, content_hash, kind)
        VALUES ${[row(1, 'src/plugin/bundled/CorsPlugin.kt', 'kotlin', 'generated'), row(2, 'pip/_vendor/rich/console.py', 'python', 'generated'), row(3, 'index.d.ts', 'typescript', 'generated')].join(', ')};
      INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES ('A.hs', 'h', 1, 1, 'haskell', 'x'), ('C.kt', 'h', 1, 1, 'kotlin', 'x'), ('d.ts', 'h', 1, 1, 'typescript', 'x'), ('e.tsx', 'h', 1, 1, 'tsx', 'x'), ('f.rs', 'h', 1, 1, 'rust', 'x'), ('main.go', 'h', 1, 1, 'go', 'x');
      PRAGMA user_version = 17;`);
    await old.close();
    const s = await openNodeStore(f);
    const kinds = await s.db.all<{ kind: string }>('SELECT kind FROM chunks ORDER BY id');
    expect(kinds.map((r) => r.kind)).toEqual(['code', 'generated', 'generated']);
    const files = await s.getFiles();
    expect(Object.fromEntries([...files].map(([p, r]) => [p, r.hash]))).toEqual({ 'A.hs': '', 'C.kt': '', 'd.ts': '', 'e.tsx': '', 'f.rs': '', 'main.go': 'h' });
    await s.close();
  });

  it('migrates a version-16 index: JavaScript and TypeScript files are re-chunked on the next run (schema 17), others kept', async () => {
    const f = path.join(dir, 'v16.sqlite');
    const old = await openNodeStore(f);
    await old.db.exec(`INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES
        ('a.js', 'h', 1, 1, 'javascript', 'x'), ('b.ts', 'h', 1, 1, 'typescript', 'x'), ('c.tsx', 'h', 1, 1, 'tsx', 'x'), ('d.go', 'h', 1, 1, 'go', 'x');
      PRAGMA user_version = 16;`);
    await old.close();
    const s = await openNodeStore(f);
    const files = await s.getFiles();
    expect(Object.fromEntries([...files].map(([p, r]) => [p, r.hash]))).toEqual({ 'a.js': '', 'b.ts': '', 'c.tsx': '', 'd.go': 'h' });
    await s.close();
  });

  it('migrates a version-7 index: rows keep their text, files get their chunk ranges, rows of no run of ids are dropped and their files re-read', async () => {
    const f = path.join(dir, 'v7.sqlite');
    const old = await openNodeStore(f);
    const row = (id: number, p: string, sym: string) => `(${id}, '${p}', ${id}, ${id}, 'typescript', 'function', '${sym}', NULL, 'function ${sym}()', 'Says hi.', 'function ${sym}() {}', 'h${id}')`;
    await old.db.exec(`ALTER TABLE chunks DROP COLUMN kind; ALTER TABLE chunks DROP COLUMN sig_span; ALTER TABLE chunks DROP COLUMN doc_span;
      ALTER TABLE files DROP COLUMN chunk_lo; ALTER TABLE files DROP COLUMN chunk_hi; CREATE INDEX chunks_path ON chunks(path);
      DROP INDEX chunks_data; CREATE INDEX chunks_embed_order ON chunks(is_data, id);
      INSERT INTO chunks (id, path, start_line, end_line, language, chunk_type, symbol, parent, signature, doc, content, content_hash)
        VALUES ${[row(1, 'a.ts', 'f'), row(2, 'a.ts', 'g'), row(3, 'b.ts', 'h'), row(4, 'c.ts', 'i'), row(5, 'b.ts', 'j'), row(6, 'gone.ts', 'k')].join(', ')};
      INSERT INTO chunks_fts (rowid, names, path_words, sig_doc, content, tokens) VALUES (1, 'f', '', '', '', ''), (2, 'g', '', '', '', ''), (3, 'h', '', '', '', ''), (4, 'i', '', '', '', ''), (5, 'j', '', '', '', ''), (6, 'k', '', '', '', '');
      INSERT INTO chunk_names (key, chunk_id) VALUES ('j', 5);
      INSERT INTO files (path, hash, size, mtime, language, indexed_at) VALUES ('a.ts', 'h', 1, 1, 'typescript', 'x'), ('b.ts', 'h', 1, 1, 'typescript', 'x'), ('c.ts', 'h', 1, 1, 'typescript', 'x'), ('empty.ts', 'h', 1, 1, 'typescript', 'x');
      PRAGMA user_version = 7;`);
    await old.close();
    const s = await openNodeStore(f);
    const [c] = await s.getFileChunks('a.ts');
    expect([c?.signature, c?.doc, c?.content]).toEqual(['function f()', 'Says hi.', 'function f() {}']);
    expect((await s.getFileChunks('a.ts')).map((x) => x.symbol)).toEqual(['f', 'g']);
    expect((await s.getFileChunks('c.ts')).map((x) => x.symbol)).toEqual(['i']);
    // b.ts's rows (ids 3 and 5, c.ts's between them) and gone.ts's (no file) are dropped; b.ts is re-read.
    expect(await s.getFileChunks('b.ts')).toEqual([]);
    expect((await s.db.all<{ id: number }>('SELECT id FROM chunks ORDER BY id')).map((r) => r.id)).toEqual([1, 2, 4]);
    const files = await s.getFiles();
    // Every TypeScript file is re-read once (enum members became constants); b.ts would be anyway.
    expect([files.get('a.ts')?.hash, files.get('b.ts')?.hash, files.get('c.ts')?.hash, files.get('empty.ts')?.hash]).toEqual(['', '', '', '']);
    expect(await s.db.get(`SELECT name FROM sqlite_master WHERE name = 'chunks_path'`)).toBeUndefined();
    expect(await s.integrityCheck()).toBe('ok');
    // Deleting c.ts by its range leaves a.ts alone.
    await s.deleteFiles(['c.ts']);
    expect((await s.db.all<{ id: number }>('SELECT id FROM chunks ORDER BY id')).map((r) => r.id)).toEqual([1, 2]);
    expect(await s.integrityCheck()).toBe('ok');
    await s.close();
  });

  it('creates new files with PAGE_SIZE pages and incremental auto-vacuum; releaseFreePages shrinks them', async () => {
    const f = path.join(dir, 'new.sqlite');
    const s = await openNodeStore(f);
    expect((await s.db.get<{ page_size: number }>('PRAGMA page_size'))?.page_size).toBe(PAGE_SIZE);
    expect((await s.db.get<{ auto_vacuum: number }>('PRAGMA auto_vacuum'))?.auto_vacuum).toBe(2); // INCREMENTAL
    const big = file('big.ts', 40);
    for (const c of big.chunks) c.content += ' x'.repeat(3000);
    await s.writeFiles([big, file('small.ts', 2)]);
    const grown = fs.statSync(f).size;
    await s.deleteFiles(['big.ts']);
    expect((await s.db.get<{ freelist_count: number }>('PRAGMA freelist_count'))?.freelist_count).toBeGreaterThan(0);
    await s.optimizeFts(); // merges, then releases the free pages
    expect((await s.db.get<{ freelist_count: number }>('PRAGMA freelist_count'))?.freelist_count).toBe(0);
    expect(fs.statSync(f).size).toBeLessThan(grown / 2);
    expect(await s.releaseFreePages()).toBe(0);
    expect(await s.integrityCheck()).toBe('ok');
    await s.close();
  });

  it('keeps working on an older file (4 KB pages, no auto-vacuum, float32 vectors)', async () => {
    const f = path.join(dir, 'old.sqlite');
    execFileSync('/usr/bin/sqlite3', [f, 'PRAGMA page_size = 4096; CREATE TABLE t(x); DROP TABLE t;']);
    const s = await openNodeStore(f);
    expect((await s.db.get<{ page_size: number }>('PRAGMA page_size'))?.page_size).toBe(4096);
    expect((await s.db.get<{ auto_vacuum: number }>('PRAGMA auto_vacuum'))?.auto_vacuum).toBe(0);
    await s.writeFiles([file('a.ts', 2)]);
    const old = new Float32Array([0.25, -0.5, 0.125]);
    await s.db.run('INSERT INTO embeddings (content_hash, model, vector) VALUES (?, ?, ?)', ['a.ts#0', 'm', vectorToBlob(old)]);
    await s.putEmbeddings('m', [{ hash: 'a.ts#1', vector: new Float32Array([1, 0, -1]) }]);
    const lengths = await s.db.all<{ n: number }>('SELECT length(vector) AS n FROM embeddings ORDER BY content_hash');
    expect(lengths.map((r) => r.n)).toEqual([12, 9]); // float32 (v2) beside int8
    const { vectors, dim } = await s.loadVectors('m');
    expect(dim).toBe(3);
    expect([...vectors.subarray(0, 3)]).toEqual([...old]); // exact: float32 read as float32
    expect([...vectors.subarray(3, 6)].map((x) => Math.round(x * 1e6) / 1e6)).toEqual([1, 0, -1]);
    await s.deleteFiles(['a.ts']);
    expect(await s.releaseFreePages()).toBe(0); // no auto-vacuum: nothing to release, no error
    expect(await s.integrityCheck()).toBe('ok');
    await s.close();
  });

  it('survives a crash: committed batches stay, the torn one rolls back', async () => {
    const dbFile = path.join(dir, 'crash.sqlite');
    // A child process commits one batch, then dies in the middle of the next transaction.
    const script = `
      import { openNodeStore } from ${JSON.stringify(path.resolve('src/core/store/open-node.ts'))};
      const s = await openNodeStore(${JSON.stringify(dbFile)});
      const chunk = (p, i) => ({ path: p, startLine: i, endLine: i, language: 'ts', chunkType: 'text', symbol: null,
        parent: null, signature: null, doc: null, content: 'body ' + p + ' ' + i + ' ' + 'y'.repeat(3000), contentHash: p + i });
      await s.writeFiles([{ file: { path: 'one.ts', hash: 'h1', size: 1, mtime: 1, language: 'ts' },
        chunks: Array.from({ length: 50 }, (_, i) => chunk('one.ts', i)) }]);
      await s.db.exec('BEGIN IMMEDIATE');
      for (let i = 0; i < 400; i++) await s.db.run("INSERT INTO chunks(path, start_line, end_line, language, chunk_type, content, content_hash) VALUES ('two.ts', 1, 1, 'ts', 'text', ?, 'h')", ['z'.repeat(3000) + i]);
      process.kill(process.pid, 'SIGKILL');
    `;
    const scriptFile = path.join(dir, 'crash.mts');
    fs.writeFileSync(scriptFile, script);
    try {
      execFileSync(process.execPath, ['--import', 'tsx', scriptFile], { stdio: 'pipe' });
    } catch (e) {
      expect((e as { signal?: string }).signal).toBe('SIGKILL');
    }
    expect(fs.existsSync(`${dbFile}-journal`)).toBe(true); // hot journal left behind
    const s = await openNodeStore(dbFile);
    expect(await s.chunkCount()).toBe(50);
    expect([...(await s.getFiles()).keys()]).toEqual(['one.ts']);
    expect(await s.integrityCheck()).toBe('ok');
    await s.close();
  });
});
