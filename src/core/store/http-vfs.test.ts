// The pack reader (issue 27) on a real index: PackPages + PackVFS over a file range source give
// the same answers as the index they were copied from, read whole pages with read-ahead, and
// refuse a changed or truncated pack with a clear error instead of a wrong answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexCodebase } from '../index/indexer.ts';
import { MemoryFileSource } from '../source/memory-source.ts';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import { nodeRuntime, openNodeStore } from './open-node.ts';
import type { Store } from './store.ts';
import { Searcher } from '../search/search.ts';
import { grep } from '../search/grep.ts';
import { openPackOn, packPages, prefetchLayout } from './open-pack.ts';
import { pageRuns, treeShape } from './btree.ts';
import { pageHashes, PackReadError, PREFETCH_CONCURRENCY, type RangeSource } from './http-vfs.ts';
import { encodeBase64, parsePackManifest, type PackManifest } from './pack.ts';
import { createHash } from 'node:crypto';
import { SCHEMA_VERSION } from './schema.ts';
import { classify } from './errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'sift-pack-vfs-'));
let source: Store;
let packBytes: Uint8Array;
const PAGE = 4096;

function files(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < 120; i++) {
    out[`src/mod${i}/handler_${i}.py`] = `"""Module ${i}: request handling."""\n\n\ndef handle_request_${i}(req):\n    """Handle a request of kind ${i}."""\n    return parse_body(req) + ${i}\n\n\nclass Worker${i}:\n    def run(self, job):\n        return job.retry_count * ${i}\n`;
    out[`lib/util${i}.ts`] = `export function formatValue${i}(v: number): string {\n  return 'value ' + v.toFixed(${i % 5});\n}\n\nexport const LIMIT_${i} = ${i * 10};\n`;
  }
  out['README.md'] = '# Demo\n\nHow requests are parsed and retried.\n';
  return out;
}

function fileSource(bytes: Uint8Array, log: Array<[number, number]>): RangeSource {
  return {
    read(start, end) {
      log.push([start, end]);
      return bytes.slice(start, Math.min(end, bytes.length));
    },
  };
}

function manifestFor(bytes: Uint8Array, name = 'demo-0123456789abcdef.sift'): PackManifest {
  return {
    format: 1, name: 'demo', commit: null, created: new Date().toISOString(), pack: name, bytes: bytes.length, sha256: '0'.repeat(64),
    pageSize: PAGE, pageHashes: encodeBase64(pageHashes(bytes, PAGE)), schemaVersion: SCHEMA_VERSION, files: 241, chunks: 0, sourceBytes: 0,
    contains: { keyword: true, text: true, definitions: true, embeddings: null },
    stats: { languages: {}, kinds: {}, chunkTypes: {}, symbols: 0, skipped: null }, sift: 'test',
  };
}

/** The root pages of the tables a search reads by rowid, and their b-trees' interior pages. */
async function rowidTables(): Promise<{ roots: Record<string, number>; interior: number[] }> {
  const probe = await openPack(packBytes);
  const roots = Object.fromEntries((await probe.store.db.all<{ name: string; rootpage: number }>("SELECT name, rootpage FROM sqlite_schema WHERE name IN ('chunks', 'chunks_fts_data', 'file_text')")).map((r) => [r.name, r.rootpage]));
  await probe.store.db.close();
  const page = (n: number) => packBytes.subarray((n - 1) * PAGE, n * PAGE);
  return { roots, interior: Object.values(roots).flatMap((r) => treeShape(r, page, packBytes.length / PAGE).interior) };
}

async function openPack(bytes: Uint8Array, log: Array<[number, number]> = [], hashesOf: Uint8Array = bytes) {
  const m = { ...manifestFor(hashesOf), bytes: bytes.length, chunks: await source.chunkCount() };
  return openPackOn(await nodeRuntime(), m, packPages(fileSource(bytes, log), m));
}

beforeAll(async () => {
  const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  source = await openNodeStore(join(dir, 'index.db'));
  await indexCodebase({ source: new MemoryFileSource(files()), store: source, chunker });
  // A small run leaves its files' trigrams pending (LAZY_PENDING_BYTES); publish flushes them (optimizeFts).
  await source.flushTrigrams();
  const packFile = join(dir, 'pack.sift');
  await source.db.exec(`VACUUM INTO '${packFile}'`);
  // A small page size gives the reader many pages to fetch (publish uses 64 KB).
  const copy = await openNodeStore(packFile);
  await copy.db.exec(`PRAGMA page_size = ${PAGE}; PRAGMA auto_vacuum = NONE; VACUUM; PRAGMA journal_mode = DELETE;`);
  await copy.db.close();
  packBytes = new Uint8Array(readFileSync(packFile));
}, 120_000);

afterAll(async () => {
  await source?.db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('pack reader', () => {
  it('answers keyword searches and exact searches like the index it was copied from', async () => {
    const { store } = await openPack(packBytes);
    for (const q of ['handle request', 'formatValue7', 'retry count worker', 'parse_body']) {
      const local = (await new Searcher(source).search(q, { limit: 10 })).results.map((r) => `${r.path}:${r.startLine}`);
      const remote = (await new Searcher(store).search(q, { limit: 10 })).results.map((r) => `${r.path}:${r.startLine}`);
      expect(remote).toEqual(local);
      expect(remote.length).toBeGreaterThan(0);
    }
    const a = await grep(source, { pattern: 'retry_count \\* 1[0-9]', mode: 'regex' });
    const b = await grep(store, { pattern: 'retry_count \\* 1[0-9]', mode: 'regex' });
    expect(b.results).toEqual(a.results);
    expect(b.results.length).toBeGreaterThan(10);
    await store.db.close();
  });

  it('reads whole pages, each once, and reads ahead on sequential runs', async () => {
    const log: Array<[number, number]> = [];
    const { store, pages } = await openPack(packBytes, log);
    await new Searcher(store).search('handle request', { limit: 10 });
    const first = pages.stats.requests;
    expect(first).toBeGreaterThan(0);
    for (const [s, e] of log) {
      expect(s % PAGE).toBe(0);
      expect(e % PAGE).toBe(0);
    }
    await new Searcher(store).search('handle request', { limit: 10 });
    expect(pages.stats.requests).toBe(first); // the same query reads nothing new
    // A scan of every file's text reads runs of pages: far fewer requests than pages.
    const before = pages.stats.requests;
    const pagesBefore = pages.stats.bytes / PAGE;
    await grep(store, { pattern: 'v', mode: 'exact', limit: 100_000 });
    const fetched = pages.stats.bytes / PAGE - pagesBefore;
    expect(fetched).toBeGreaterThan(8);
    expect(pages.stats.requests - before).toBeLessThan(fetched / 2);
    expect(pages.stats.bytes).toBeLessThanOrEqual(packBytes.length);
    await store.db.close();
  });

  it('refuses a pack whose bytes changed after publishing, with a message that says so', async () => {
    const damaged = packBytes.slice();
    // Damage a page past the schema pages so opening works and a search reads it.
    for (let p = 4; p < damaged.length / PAGE; p++) damaged[p * PAGE + 100] ^= 0xff;
    const { store } = await openPack(damaged, [], packBytes);
    const err = await new Searcher(store).search('handle request', { limit: 10 }).then(() => null, (e: unknown) => e);
    expect(err).toBeTruthy();
    expect(String((err as Error).message)).toMatch(/does not match its manifest/);
    expect(classify(err).kind).toBe('io');
    await store.db.close();
    // Prefetched pages are checked too (with WebCrypto where there is one), one by one or several per request.
    const m = { ...manifestFor(packBytes), chunks: 1 };
    const asyncSrc: RangeSource = { read: (a, b) => damaged.slice(a, b), readAsync: async (a, b) => damaged.slice(a, b) };
    await expect(packPages(asyncSrc, m).prefetch([6, 7])).rejects.toThrow(/page 7 of .* has the wrong hash/);
    const multiSrc: RangeSource = { ...asyncSrc, readRangesAsync: async (ranges) => ranges.map(([a, b]) => damaged.slice(a, b)) };
    await expect(packPages(multiSrc, m).prefetch([9, 20, 30])).rejects.toThrow(/does not match its manifest/);
  });

  it('refuses a truncated pack (the server sends fewer bytes than asked)', async () => {
    const cut = packBytes.slice(0, packBytes.length - PAGE * 3);
    const m = { ...manifestFor(packBytes), chunks: 1 };
    const pages = packPages(fileSource(cut, []), m);
    const out = new Uint8Array(PAGE);
    expect(() => pages.read(out, packBytes.length - PAGE)).toThrow(PackReadError);
    expect(() => pages.read(out, packBytes.length - PAGE)).toThrow(/ended early/);
  });

  it('with a layout, a search fetches its doclists and candidate rows ahead, several at once, and answers the same', async () => {
    const { roots, interior } = await rowidTables();
    const log: Array<[number, number]> = [];
    let async = 0;
    const src: RangeSource = { read: (a, b) => (log.push([a, b]), packBytes.slice(a, b)), readAsync: async (a, b) => (async++, packBytes.slice(a, b)) };
    const m = { ...manifestFor(packBytes), chunks: await source.chunkCount(), layout: { prefetch: pageRuns([1, ...interior]).map(([f, n]) => [f, n] as [number, number]), tables: roots } };
    const pages = packPages(src, m);
    await prefetchLayout(m, pages);
    const { store } = await openPackOn(await nodeRuntime(), m, pages);
    const before = async;
    for (const q of ['handle request', 'retry count worker']) {
      const local = (await new Searcher(source).search(q, { limit: 10 })).results.map((r) => `${r.path}:${r.startLine}`);
      expect((await new Searcher(store).search(q, { limit: 10 })).results.map((r) => `${r.path}:${r.startLine}`)).toEqual(local);
    }
    expect(async).toBeGreaterThan(before); // doclists and rows came through prefetches
    await store.db.close();
  });

  it('with a copy of the layout pages after the database (format 2), opens with one range split over the connections, and answers the same', async () => {
    const { roots, interior } = await rowidTables();
    const pageCount = packBytes.length / PAGE;
    // The interior pages, and (scattered, so that the runs outnumber the connections) every fifth page.
    const listed = [...new Set([1, ...interior, ...Array.from({ length: Math.floor(pageCount / 5) }, (_, i) => 5 * i + 3)])].sort((a, b) => a - b);
    const runs = pageRuns(listed).map(([f, n]) => [f, n] as [number, number]);
    expect(runs.length).toBeGreaterThan(PREFETCH_CONCURRENCY); // else the copy would save nothing here
    // What sift publish writes: the database, its page hashes (padded to whole pages), then its listed pages in run order.
    const table = pageHashes(packBytes, PAGE);
    const padded = Math.ceil(table.length / PAGE) * PAGE;
    const whole = new Uint8Array(Buffer.concat([packBytes, table, new Uint8Array(padded - table.length), ...runs.map(([f, n]) => packBytes.subarray((f - 1) * PAGE, (f - 1 + n) * PAGE))]));
    const { pageHashes: _, ...inline } = manifestFor(packBytes);
    const m: PackManifest = { ...inline, pack: `demo-${'0'.repeat(16)}.sift`, format: 2, bytes: whole.length, chunks: await source.chunkCount(), layout: { prefetch: runs, tables: roots, head: packBytes.length, hashes: createHash('sha256').update(table).digest('hex') } };
    expect(parsePackManifest(JSON.stringify(m), SCHEMA_VERSION).layout).toEqual(m.layout);
    const asked: Array<[number, number]> = [];
    const src: RangeSource = { read: (a, b) => (asked.push([a, b]), whole.slice(a, b)), readAsync: async (a, b) => (asked.push([a, b]), whole.slice(a, b)) };
    const pages = packPages(src, m);
    await prefetchLayout(m, pages);
    expect(asked.length).toBeLessThanOrEqual(PREFETCH_CONCURRENCY);
    expect(asked.every(([a]) => a >= packBytes.length)).toBe(true); // only the hashes and the copy were read
    expect(pages.stats.requests).toBe(asked.length);
    for (const p of listed) expect(pages.has(p - 1)).toBe(true);
    const { store } = await openPackOn(await nodeRuntime(), m, pages);
    for (const q of ['handle request', 'retry count worker']) {
      const local = (await new Searcher(source).search(q, { limit: 10 })).results.map((r) => `${r.path}:${r.startLine}`);
      expect((await new Searcher(store).search(q, { limit: 10 })).results.map((r) => `${r.path}:${r.startLine}`)).toEqual(local);
    }
    expect(asked.every(([, b]) => b <= whole.length)).toBe(true);
    await store.db.close();

    // Page hashes that do not match the manifest's SHA-256 are refused before any page.
    const badTable = whole.slice();
    badTable[packBytes.length + 3] ^= 1;
    const refused = packPages({ read: (a, b) => badTable.slice(a, b), readAsync: async (a, b) => badTable.slice(a, b) }, m);
    await expect(prefetchLayout(m, refused)).rejects.toThrow(/page hashes have the wrong SHA-256/);
    expect(refused.hasHashes).toBe(false);
    // A copied page that does not match its original's hash is refused like the original would be.
    const damaged = whole.slice();
    damaged[packBytes.length + padded + PAGE + 100] ^= 1;
    const bad = packPages({ read: (a, b) => damaged.slice(a, b), readAsync: async (a, b) => damaged.slice(a, b) }, m);
    const err = await prefetchLayout(m, bad).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(PackReadError);
    expect((err as PackReadError).problem).toBe('damaged');
    // A copy cut short is a clear error too.
    const short = packPages({ read: (a, b) => whole.slice(a, Math.min(b, whole.length - PAGE)), readAsync: async (a, b) => whole.slice(a, Math.min(b, whole.length - PAGE)) }, m);
    await expect(prefetchLayout(m, short)).rejects.toThrow(/ended early/);
  });

  it('finds the index leaves of a text key (NOCASE or BINARY) from the interior pages alone: the seek then reads nothing new', async () => {
    const probe = await openPack(packBytes);
    const roots = new Map((await probe.store.db.all<{ name: string; rootpage: number }>('SELECT name, rootpage FROM sqlite_schema')).map((r) => [r.name, r.rootpage]));
    await probe.store.db.close();
    const pageCount = packBytes.length / PAGE;
    const page = (n: number) => packBytes.subarray((n - 1) * PAGE, n * PAGE);
    const interior = ['chunks_symbol', 'chunk_names'].flatMap((n) => treeShape(roots.get(n)!, page, pageCount).interior);
    expect(treeShape(roots.get('chunks_symbol')!, page, pageCount, true).leaves.length).toBeGreaterThan(2); // several leaves to choose from
    const m = { ...manifestFor(packBytes), chunks: await source.chunkCount() };
    const pages = packPages(fileSource(packBytes, []), m);
    await pages.prefetch([0, ...interior.map((p) => p - 1)]);
    const { store } = await openPackOn(await nodeRuntime(), m, pages);
    for (const [index, key, nocase, sql] of [
      ['chunks_symbol', 'WORKER17', true, 'SELECT id FROM chunks WHERE symbol = ? COLLATE NOCASE'],
      ['chunks_symbol', 'worker99', true, 'SELECT id FROM chunks WHERE symbol = ? COLLATE NOCASE'],
      ['chunks_symbol', 'handle_request_7', true, 'SELECT id FROM chunks WHERE symbol = ? COLLATE NOCASE'],
      ['chunks_symbol', 'zz_not_defined', true, 'SELECT id FROM chunks WHERE symbol = ? COLLATE NOCASE'],
      ['chunk_names', 'limit_99', false, 'SELECT chunk_id FROM chunk_names WHERE key = ?'],
    ] as const) {
      const leaves = pages.leavesOfKey(roots.get(index)!, [key], nocase);
      expect(leaves.length, key).toBeGreaterThan(0);
      await pages.prefetch(leaves);
      const before = pages.stats.requests;
      const rows = await store.db.all(sql, [key]);
      expect(pages.stats.requests, `${index} ${key}`).toBe(before); // every page the seek read was predicted
      if (key !== 'zz_not_defined') expect(rows.length, key).toBeGreaterThan(0);
    }
    // Integer keys: the trigram postings' (seg, gram) index, and the rowids its entries lead to.
    const keyRoot = roots.get('trigram_postings_key')!;
    const sample = await store.db.all<{ seg: number; gram: number; id: number }>('SELECT seg, gram, rowid AS id FROM trigram_postings ORDER BY (gram * 7919) % 1000 LIMIT 12');
    expect(sample.length).toBe(12);
    for (const { seg, gram, id } of [...sample, { seg: sample[0]!.seg, gram: 0x7fffff, id: -1 }]) {
      await pages.prefetch(pages.leavesOfKey(keyRoot, [seg, gram], false));
      const before = pages.stats.requests;
      const want = await store.db.all<{ id: number }>('SELECT rowid AS id FROM trigram_postings WHERE seg = ? AND gram = ?', [seg, gram]);
      expect(pages.stats.requests, `gram ${gram}`).toBe(before);
      expect(pages.rowidsOfKey(keyRoot, [seg, gram], false), `gram ${gram}`).toEqual(want.map((r) => r.id));
      expect(want.length).toBe(id === -1 ? 0 : 1);
    }
    await store.db.close();
  });

  it('an exact search on a pack fetches its trigram postings ahead, and reads the same lines', async () => {
    const probe = await openPack(packBytes);
    const tables = Object.fromEntries((await probe.store.db.all<{ name: string; rootpage: number }>("SELECT name, rootpage FROM sqlite_schema WHERE name IN ('chunks', 'chunks_fts_data', 'file_text')")).map((r) => [r.name, r.rootpage]));
    const all = await probe.store.db.all<{ name: string; rootpage: number }>('SELECT name, rootpage FROM sqlite_schema WHERE rootpage > 0');
    await probe.store.db.close();
    const pageCount = packBytes.length / PAGE;
    const page = (n: number) => packBytes.subarray((n - 1) * PAGE, n * PAGE);
    // As sift publish lays it out: every interior page, and the small tables read whole.
    const whole = ['chunks_fts_docsize', 'chunks_fts_config', 'chunks_fts_idx', 'sqlite_autoindex_file_text_1'];
    const interior = all.flatMap((r) => {
      const shape = treeShape(r.rootpage, page, pageCount, whole.includes(r.name));
      return [r.rootpage, ...shape.interior, ...shape.leaves];
    });
    let sync = 0;
    const src: RangeSource = { read: (a, b) => (sync++, packBytes.slice(a, b)), readAsync: async (a, b) => packBytes.slice(a, b) };
    const m = { ...manifestFor(packBytes), chunks: await source.chunkCount(), layout: { prefetch: pageRuns([1, ...interior]).map(([f, n]) => [f, n] as [number, number]), tables } };
    const pages = packPages(src, m);
    await prefetchLayout(m, pages);
    const { store } = await openPackOn(await nodeRuntime(), m, pages);
    const cold = sync;
    await grep(store, { pattern: 'LIMIT_1', mode: 'exact' });
    // Cold: the trigram segments' first and last leaves (a skip scan) are read one by one; the
    // postings, their rows, the candidates' `files` rows and their text are fetched ahead.
    expect(sync - cold).toBeLessThanOrEqual(3);
    for (const pattern of ['return job.retry_count * 11', 'value 7', 'MAX_nothing_like_this']) {
      const before = sync;
      const a = await grep(source, { pattern, mode: 'exact', limit: 200, stopAtLimit: true });
      const b = await grep(store, { pattern, mode: 'exact', limit: 200, stopAtLimit: true });
      expect(b.results, pattern).toEqual(a.results);
      expect(sync - before, pattern).toBeLessThanOrEqual(1); // the postings, their rows and the files' text came through prefetches
    }
    await store.db.close();
  });

  it('is read-only: a write is refused and the pack is unchanged', async () => {
    const { store } = await openPack(packBytes);
    await expect(store.db.exec("INSERT INTO meta(key, value) VALUES ('x', 'y')")).rejects.toThrow();
    await store.db.close();
  });

  it('seeds pages saved earlier and skips any that fail their hash', async () => {
    const m = { ...manifestFor(packBytes), chunks: 1 };
    const pages = packPages(fileSource(packBytes, []), m);
    expect(pages.seed(0, packBytes.subarray(0, PAGE * 3))).toBe(3);
    const bad = packBytes.slice(PAGE * 5, PAGE * 6);
    bad[0] ^= 1;
    expect(pages.seed(5, bad)).toBe(0);
    expect(pages.has(1) && !pages.has(5)).toBe(true);
  });
});
