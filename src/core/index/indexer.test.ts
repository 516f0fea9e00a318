import { describe, it, expect, beforeAll } from 'vitest';
import { createHash } from 'node:crypto';
import { BULK_LOAD_FILES, diffWalk, indexCodebase, planIndex, prepareChunks, PROVISIONAL_HASH, type FileChunker, type IndexStore } from './indexer.ts';
import { FTS_AUTOMERGE, FTS_BULK_CRISISMERGE, FTS_CRISISMERGE } from '../store/store.ts';
import { identifierTokens } from '../text/identifiers.ts';
import { sha256Hex } from '../hash/hash.ts';
import { embeddingText } from '../chunk/embedding-text.ts';
import { MemoryFileSource } from '../source/memory-source.ts';
import type { FileSource } from '../source/types.ts';
import { openMemoryStore } from '../store/open-node.ts';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import type { Store } from '../store/store.ts';
import { GRAMMARS } from '../chunk/languages.ts';
import { META } from '../store/meta.ts';
import { LAZY_PENDING_BYTES } from '../store/trigram-index.ts';
import { grep } from '../search/grep.ts';

let chunker: Chunker;
beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
});

function repo(n = 30): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    files[`src/mod${i}.py`] = `def handler_${i}(request):\n    """Handle request number ${i}."""\n    return request.value * ${i}\n\n\nclass Worker${i}:\n    def run(self):\n        return handler_${i}(self)\n`;
  }
  files['README.md'] = '# Demo\n\nSome words about the demo project.\n';
  return files;
}

async function snapshot(store: Store) {
  const files = [...(await store.getFiles()).values()].map((f) => `${f.path}:${f.hash}`).sort();
  const stats = await store.stats();
  return { files, chunks: stats.chunks, integrity: await store.integrityCheck() };
}

describe('indexCodebase', () => {
  it('indexes, then recognises an unchanged folder without reading it', async () => {
    const source = new MemoryFileSource({ ...repo(), 'data/blob.txt': new Uint8Array([0, 1, 2, 0, 9, 0]) });
    const store = await openMemoryStore();
    const first = await indexCodebase({ source, store, chunker });
    expect(first.files.added).toBe(31);
    expect(first.files.skipped).toBe(1); // the binary file
    expect(first.firstSearchableMs).not.toBeNull();
    let reads = 0;
    const counting = { ...source, name: source.name, readDir: source.readDir.bind(source), stat: source.stat.bind(source), readFile: (p: string) => { reads++; return source.readFile(p); } };
    const second = await indexCodebase({ source: counting, store, chunker });
    expect(second.unchanged).toBe(true);
    expect(reads).toBe(0);
    expect(second.status.merkleRoot).toBe(first.status.merkleRoot);
  });

  it('hashFile, sha256Digest: native hashes store the files.hash WebCrypto makes and the same Merkle root, so either side finds the other\'s index unchanged', async () => {
    const source = new MemoryFileSource({ ...repo(12), 'lib/naïve.py': 'def café():\n    return "crème"\n' });
    const webcrypto = await openMemoryStore();
    const first = await indexCodebase({ source, store: webcrypto, chunker });
    const hashed: string[] = [];
    const native = await openMemoryStore();
    const viaNative = await indexCodebase({ source, store: native, chunker }, {
      hashFile: (data) => (hashed.push(createHash('sha256').update(data).digest('hex')), hashed.at(-1)!),
      sha256Digest: (data) => createHash('sha256').update(data).digest(),
    });
    expect(hashed).toHaveLength(14);
    expect(await snapshot(native)).toEqual(await snapshot(webcrypto));
    expect(viaNative.status.merkleRoot).toBe(first.status.merkleRoot);
    // Checked again file by file (verify re-reads and re-hashes): nothing changed either way.
    expect((await indexCodebase({ source, store: native, chunker }, { verify: true })).files).toMatchObject({ added: 0, changed: 0, unchanged: 14 });
    expect((await indexCodebase({ source, store: webcrypto, chunker }, { verify: true, hashFile: (d) => createHash('sha256').update(d).digest('hex') })).files).toMatchObject({ added: 0, changed: 0, unchanged: 14 });
  });

  it('handles edit, add, delete and rename incrementally', async () => {
    const source = new MemoryFileSource(repo(5));
    const store = await openMemoryStore();
    await indexCodebase({ source, store, chunker });
    const before = await store.getFiles();
    source.set('src/mod1.py', 'def edited():\n    return 1\n');
    source.set('src/added.py', 'def added_fn():\n    return 2\n');
    source.delete('README.md');
    source.rename('src/mod2.py', 'lib/mod2_moved.py');
    const res = await indexCodebase({ source, store, chunker });
    expect(res.files).toMatchObject({ added: 1, changed: 1, deleted: 1, renamed: 1 });
    const after = await store.getFiles();
    expect(after.has('README.md')).toBe(false);
    expect(after.get('lib/mod2_moved.py')?.hash).toBe(before.get('src/mod2.py')?.hash);
    // The result equals a fresh index of the same folder.
    const fresh = await openMemoryStore();
    await indexCodebase({ source, store: fresh, chunker });
    expect(await snapshot(store)).toEqual(await snapshot(fresh));
  });

  it('a run given the folder\'s files (walked) walks nothing, keeps the stored skip stats and ends as a walk would', async () => {
    const source = new MemoryFileSource({ ...repo(5), 'data/blob.txt': new Uint8Array([0, 1, 2, 0, 9, 0]), 'node_modules/x/index.js': 'x' });
    const store = await openMemoryStore();
    let files: readonly { path: string; size: number; mtime: number }[] = [];
    await indexCodebase({ source, store, chunker }, { onWalkList: (f) => (files = f) });
    expect(files.map((f) => f.path)).toContain('src/mod1.py');
    const skipStats = await store.getMeta(META.skipStats);
    source.set('src/mod1.py', 'def edited():\n    return 1\n');
    source.delete('src/mod3.py');
    const info = await source.stat('src/mod1.py');
    const given = files.filter((f) => f.path !== 'src/mod3.py').map((f) => (f.path === 'src/mod1.py' ? { path: f.path, ...info } : f));
    let listed = 0;
    const counting = { ...source, name: source.name, readDir: (d: string) => { listed++; return source.readDir(d); }, stat: source.stat.bind(source), readFile: source.readFile.bind(source) };
    let after: readonly unknown[] = [];
    const res = await indexCodebase({ source: counting, store, chunker }, { walked: async () => given, onWalkList: (f) => (after = f) });
    expect(listed).toBe(0);
    expect(after).toEqual(given);
    expect(res.files).toMatchObject({ changed: 1, deleted: 1 });
    expect(await store.getMeta(META.skipStats)).toBe(skipStats);
    const fresh = await openMemoryStore();
    await indexCodebase({ source, store: fresh, chunker });
    expect(await snapshot(store)).toEqual(await snapshot(fresh));
  });

  it('stores signatures and docs as offsets into the file text and reads them back as the chunker made them, also after a rename', async () => {
    const longBody = Array.from({ length: 120 }, (_, i) => `\tcount += step_${i}(ctx, ${i});`).join('\n');
    const files: Record<string, string> = {
      'src/api.ts': '/**\n * Frobnicates the widget.\n * @param w the widget\n */\nexport function frob(w: Widget): number {\n  return w.size;\n}\n\nexport class Shelf {\n  // Stacks a book.\n  // Twice when asked.\n  stack(b: Book,\n        twice = false): void {\n    this.books.push(b);\n  }\n}\n',
      'lib/calc.py': 'def area(r):\n    r"""Area of a circle\n    of radius r."""\n    return 3.14 * r * r\n',
      'kernel/sched.c': `/*\n * Counts the steps of a context.\n */\nstatic int count_steps(struct ctx *ctx,\n                       int step)\n{\n\tint count = 0;\n${longBody}\n\treturn count;\n}\n\n#define MAX_STEPS(x) ((x) * 2)\n`,
      'go/srv.go': 'package srv\n\n// Serve answers requests\n// until ctx is done.\nfunc Serve(ctx Context) error {\n\treturn nil\n}\n',
    };
    const source = new MemoryFileSource(files);
    const store = await openMemoryStore();
    await indexCodebase({ source, store, chunker });
    const pick = (c: { startLine: number; signature: string | null; doc: string | null; content: string }) => [c.startLine, c.signature, c.doc, c.content];
    let signatures = 0;
    let docs = 0;
    for (const [p, text] of Object.entries(files)) {
      const made = (await chunker.chunkFile(p, text)).chunks;
      expect((await store.getFileChunks(p)).map(pick), p).toEqual(made.map(pick));
      signatures += made.filter((c) => c.signature !== null).length;
      docs += made.filter((c) => c.doc !== null).length;
    }
    // Every signature and doc here (a JSDoc block, two line comments, a docstring, a C block
    // comment carried by a split body's later pieces) is kept as a span, none as text.
    const counts = await store.db.get<{ sigText: number; sigSpan: number; docText: number; docSpan: number }>(
      'SELECT sum(signature IS NOT NULL) AS sigText, sum(sig_span IS NOT NULL) AS sigSpan, sum(doc IS NOT NULL) AS docText, sum(doc_span IS NOT NULL) AS docSpan FROM chunks');
    expect(counts).toEqual({ sigText: 0, sigSpan: signatures, docText: 0, docSpan: docs });
    expect(signatures).toBeGreaterThanOrEqual(8);
    expect(docs).toBeGreaterThanOrEqual(5);
    // A rename rewrites the FTS rows from the stored rows: the doc's words are still indexed.
    const docHits = async (s: Store, word: string) => (await s.db.all<{ path: string }>(
      'SELECT c.path FROM chunks_fts f JOIN chunks c ON c.id = f.rowid WHERE chunks_fts MATCH ? ORDER BY 1', [`sig_doc : ${word}`])).map((r) => r.path);
    source.rename('src/api.ts', 'src/moved.ts');
    source.rename('kernel/sched.c', 'kernel/moved.c');
    expect((await indexCodebase({ source, store, chunker })).files.renamed).toBe(2);
    const fresh = await openMemoryStore();
    await indexCodebase({ source, store: fresh, chunker });
    for (const word of ['frobnicates', 'twice', 'steps', 'radius', 'until']) expect(await docHits(store, word), word).toEqual(await docHits(fresh, word));
    expect(await docHits(store, 'frobnicates')).toEqual(['src/moved.ts']);
    expect((await store.getFileChunks('kernel/moved.c')).map(pick)).toEqual((await fresh.getFileChunks('kernel/moved.c')).map(pick));
  });

  it('resumes an interrupted run without duplicating rows', async () => {
    const source = new MemoryFileSource(repo(60));
    const store = await openMemoryStore();
    const ac = new AbortController();
    let batches = 0;
    await expect(
      indexCodebase({ source, store, chunker }, { signal: ac.signal, onBatch: () => { if (++batches === 1) ac.abort(); } }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    const partial = (await store.getFiles()).size;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(61);
    const resumed = await indexCodebase({ source, store, chunker });
    expect(resumed.unchanged).toBe(false);
    expect(resumed.files.added).toBe(61 - partial);
    const fresh = await openMemoryStore();
    await indexCodebase({ source, store: fresh, chunker });
    expect(await snapshot(store)).toEqual(await snapshot(fresh));
  });

  it('keeps a file that fails to parse as text and counts it', async () => {
    const source = new MemoryFileSource({ 'bad.rs': 'fn broken( {{{{ struct\n'.repeat(20), 'ok.go': 'package x\n\nfunc Ok() int { return 1 }\n' });
    const store: IndexStore & Store = await openMemoryStore();
    const res = await indexCodebase({ source, store, chunker });
    expect(res.parseFallbacks).toBe(1);
    expect((await store.getFiles()).has('bad.rs')).toBe(true);
  });

  it('keeps a file as bounded text chunks when the chunker itself faults', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `line ${i} of a file the chunker cannot handle`).join('\n');
    const source = new MemoryFileSource({ 'odd.py': long });
    const store = await openMemoryStore();
    const faulty = { chunkFile: async () => { throw new Error('grammar crashed'); } };
    const res = await indexCodebase({ source, store, chunker: faulty });
    expect(res.parseFallbacks).toBe(1);
    const chunks = await store.getFileChunks('odd.py');
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.chunkType === 'text' && c.content.length <= 1500)).toBe(true);
    expect(chunks[0].startLine).toBe(1);
    expect(chunks[chunks.length - 1].endLine).toBe(400);
  });

  async function watchedRun(files: Record<string, string>, concurrency: number) {
    const store = await openMemoryStore();
    let inFlight = 0;
    let maxInFlight = 0;
    const written: string[] = [];
    const watched: IndexStore = {
      getMeta: (k) => store.getMeta(k), setMeta: (k, v) => store.setMeta(k, v), getFiles: () => store.getFiles(),
      deleteFiles: (p) => store.deleteFiles(p), renameFile: (f, t) => store.renameFile(f, t), chunkCount: () => store.chunkCount(),
      writeFiles: async (items) => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        try {
          await store.writeFiles(items);
          written.push(...items.map((i) => i.file.path));
        } finally {
          inFlight--;
        }
      },
    };
    const res = await indexCodebase({ source: new MemoryFileSource(files), store: watched, chunker }, { concurrency });
    return { store, res, written, maxInFlight };
  }

  it.each([2, 16])('gives the same index at concurrency %i as sequentially, in the same order, one write in flight', async (concurrency) => {
    const files = repo(40);
    const seq = await watchedRun(files, 1);
    const par = await watchedRun(files, concurrency);
    expect(par.res.files.added).toBe(41);
    expect(par.maxInFlight).toBe(1);
    expect(par.written).toEqual(seq.written);
    expect(await snapshot(par.store)).toEqual(await snapshot(seq.store));
    // Text stored once: every chunk refers into its file's stored text, and reads back as
    // exactly the file's lines start..end.
    const rows = await par.store.db.all<{ id: number; text_start: number | null }>('SELECT id, text_start FROM chunks');
    expect(rows.length).toBeGreaterThan(41);
    expect(rows.every((r) => r.text_start !== null)).toBe(true);
    for (const path of Object.keys(files)) {
      const lines = files[path]!.split('\n');
      for (const c of await par.store.getFileChunks(path)) expect(c.content).toBe(lines.slice(c.startLine - 1, c.endLine).join('\n'));
    }
  });

  it('prepareChunks hashes the embedding text and precomputes the tokens column, once', async () => {
    const { chunks } = await chunker.chunkFile('a.ts', 'export function getUserName(userId: string) {\n  return lookupUser(userId).displayName;\n}\n');
    const prepared = prepareChunks(chunks);
    expect(prepared.length).toBe(chunks.length);
    for (const [i, c] of prepared.entries()) {
      expect(c.contentHash).toBe((await sha256Hex(embeddingText(chunks[i]!))).slice(0, 16));
      expect(c.ftsTokens).toBe(identifierTokens(c.content));
    }
    expect(prepared[0]!.ftsTokens).toContain('display');
    // Already-prepared chunks (from a worker pool) pass through unchanged.
    expect(prepareChunks(prepared)[0]).toBe(prepared[0]);
  });

  it('plans without reading: diffWalk sorts walked files into unchanged, candidates, gone and rename sources', () => {
    const rec = (path: string, hash: string, size = 1, mtime = 1) => ({ path, hash, size, mtime, language: 'python' });
    const stored = new Map([['a.py', rec('a.py', 'h1')], ['b.py', rec('b.py', 'h2')], ['old.py', rec('old.py', 'h3')], ['old2.py', rec('old2.py', 'h3')]]);
    const walked = [
      { path: 'a.py', size: 1, mtime: 1 }, // unchanged stat
      { path: 'b.py', size: 2, mtime: 1 }, // changed size
      { path: 'new.py', size: 1, mtime: 5 }, // new (maybe a rename: decided by hash when applied)
      { path: 'bin.dat', size: 9, mtime: 9 }, // skipped as binary last time, same stat
    ];
    const d = diffWalk(walked, stored, { 'bin.dat': '9:9' });
    expect(d.candidates.map((f) => f.path)).toEqual(['b.py', 'new.py']);
    expect(d.unchanged).toBe(1);
    expect(d.gone).toEqual(['old.py', 'old2.py']);
    expect(d.goneByHash.get('h3')).toEqual(['old.py', 'old2.py']);
    expect(d.skippedNow).toEqual({ 'bin.dat': '9:9' });
    // verify: every walked file is read again, the binary too.
    expect(diffWalk(walked, stored, { 'bin.dat': '9:9' }, true).candidates.map((f) => f.path)).toEqual(['a.py', 'b.py', 'new.py', 'bin.dat']);
  });

  it('planIndex reads no file and says when the stored root still holds', async () => {
    const source = new MemoryFileSource(repo(3));
    const store = await openMemoryStore();
    await indexCodebase({ source, store, chunker });
    let reads = 0;
    const counting = { ...source, name: source.name, readDir: source.readDir.bind(source), stat: source.stat.bind(source), readFile: (p: string) => { reads++; return source.readFile(p); } };
    expect((await planIndex({ source: counting, store })).upToDate).toBe(true);
    source.set('src/mod0.py', 'def changed():\n    return 0\n');
    const plan = await planIndex({ source: counting, store });
    expect(plan.upToDate).toBe(false);
    expect(plan.candidates.map((f) => f.path)).toEqual(['src/mod0.py']);
    expect(reads).toBe(0);
  });

  it('indexes every text file (Elixir, Haskell, Zig, no extension), skips binary content under a text name and a .png unread, and stores why', async () => {
    const png = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13);
    const source = new MemoryFileSource({
      'lib/plug.ex': 'defmodule Plug.Conn do\n  def send_resp(conn), do: conn\nend\n',
      'src/Main.hs': 'module Main where\nmain :: IO ()\nmain = putStrLn "hi"\n',
      'build.zig': 'const std = @import("std");\npub fn build(b: *std.Build) void {}\n',
      'bin/deploy': '#!/bin/sh\necho deploying\n',
      'TODO': 'Ship the conn adapter.\n',
      'data/fake.py': Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0),
      'assets/logo.png': png,
      'node_modules/x/index.js': '',
    });
    const reads: string[] = [];
    const spy: FileSource = { name: source.name, readDir: (p) => source.readDir(p), stat: (p) => source.stat(p), readFile: (p) => (reads.push(p), source.readFile(p)) };
    const store = await openMemoryStore();
    const res = await indexCodebase({ source: spy, store, chunker });
    expect([...(await store.getFiles()).keys()].sort()).toEqual(['TODO', 'bin/deploy', 'build.zig', 'lib/plug.ex', 'src/Main.hs']);
    expect(reads).not.toContain('assets/logo.png');
    expect(reads).toContain('data/fake.py');
    const expected = {
      total: 3,
      by_reason: { binary: 2, ignored: 1 },
      by_extension: { '.png': 1, '.py': 1 },
      examples: [
        { path: 'assets/logo.png', reason: 'binary', detail: '.png file, not read' },
        { path: 'data/fake.py', reason: 'binary', detail: 'binary content' },
        { path: 'node_modules', reason: 'ignored' },
      ],
    };
    expect(res.skipped).toEqual(expected);
    const stats = await store.stats();
    expect(stats.skipped).toEqual(expected);
    expect(stats.languages['elixir']).toMatchObject({ files: 1, structured: Object.hasOwn(GRAMMARS, 'elixir') });
    expect(stats.languages['python']).toBeUndefined();
    expect(stats.languages['text']).toMatchObject({ structured: false });
    // Unchanged files, new rules: the stats follow the rules of the latest run; the binary is not read again.
    reads.length = 0;
    const again = await indexCodebase({ source: spy, store, chunker }, { walk: { extraIgnore: ['assets/'] } });
    expect(again.unchanged).toBe(true);
    expect(reads).toEqual([]);
    expect((await store.stats()).skipped).toMatchObject({ total: 3, by_reason: { binary: 1, ignored: 2 }, by_extension: { '.py': 1 } });
  });

  it('records the language the text says (a C++ .h, a #! script) when indexed, unchanged and renamed', async () => {
    const source = new MemoryFileSource({
      'include/widget.h': 'namespace ui {\nclass Widget {\n public:\n  int width() const;\n};\n}\n',
      'include/list.h': 'struct list { struct list *next; };\n',
      'bin/deploy': '#!/usr/bin/env python3\ndef main():\n    return 0\n',
    });
    const store = await openMemoryStore();
    const languages = async () => Object.fromEntries([...(await store.getFiles()).values()].map((f) => [f.path, f.language]));
    await indexCodebase({ source, store, chunker });
    expect(await languages()).toEqual({ 'include/widget.h': 'cpp', 'include/list.h': 'c', 'bin/deploy': 'python' });
    source.rename('include/widget.h', 'include/ui/widget.h');
    source.set('bin/deploy', '#!/usr/bin/env python3\ndef main():\n    return 1\n');
    await indexCodebase({ source, store, chunker }, { verify: true });
    expect(await languages()).toEqual({ 'include/ui/widget.h': 'cpp', 'include/list.h': 'c', 'bin/deploy': 'python' });
  });

  it('merges the keyword index at the end of a run that wrote optimizeAfterRows rows', async () => {
    const segments = async (st: Store) => (await st.db.get<{ n: number }>('SELECT count(DISTINCT segid) AS n FROM chunks_fts_idx'))?.n ?? 0;
    const plain = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(repo(60)), store: plain, chunker });
    const merged = await openMemoryStore();
    const res = await indexCodebase({ source: new MemoryFileSource(repo(60)), store: merged, chunker }, { optimizeAfterRows: 1 });
    expect(await segments(plain)).toBeGreaterThan(1); // the first batch is flushed early: at least two commits
    expect(await segments(merged)).toBe(1);
    expect(res.timings.optimize).toBeGreaterThan(0);
    expect(await snapshot(merged)).toEqual(await snapshot(plain));
  });

  it('a slow start is searchable before the 25th file: the first batch is flushed once 250 ms have passed', async () => {
    // Each file takes 60 ms to chunk (a grammar loading, a loaded machine): 25 files would take 1.5 s.
    const slowChunker: FileChunker = { chunkFile: async (path, text) => { await new Promise((r) => setTimeout(r, 60)); return chunker.chunkFile(path, text); } };
    const store = await openMemoryStore();
    const batches: number[] = [];
    const files = repo(30);
    const res = await indexCodebase({ source: new MemoryFileSource(files), store, chunker: slowChunker }, { onBatch: (b) => batches.push(b.files) });
    expect(res.files.added).toBe(Object.keys(files).length);
    expect(batches[0]).toBeGreaterThan(0);
    expect(batches[0]).toBeLessThan(25);
    expect(res.firstSearchableMs!).toBeLessThan(res.timings.total * 0.75);
  });

  it('firstFor: a small run answers first from the files holding the query\'s words (text windows, then their parsed chunks), and indexes the same', async () => {
    const files = repo(80);
    // Three files far down the walk order hold the words a person typed before picking the folder.
    for (const i of [61, 70, 79]) files[`src/mod${i}.py`] += `\n\ndef parse_header_line(raw):\n    return raw.split(':')\n`;
    // A page of prose that holds the words too: a code question's first answer is the code
    // (its kind weighs less: text/scan-terms.ts rankScanned, as `sift mcp` picks its files).
    files['docs/parsing.md'] = '# Parse header\n\nHow each header line is parsed.\n';
    const committed: string[][] = [];
    const store = await openMemoryStore();
    const seen = new Set<string>();
    /** Each commit's new files, and the three files' chunk types then. */
    const types: string[][] = [];
    const onBatch = async () => {
      const files = await store.getFiles();
      const now = [...files.keys()].filter((p) => !seen.has(p));
      now.forEach((p) => seen.add(p));
      committed.push(now);
      types.push([...new Set((await Promise.all(['src/mod61.py', 'src/mod70.py', 'src/mod79.py'].map((p) => store.getFileChunks(p)))).flat().map((c) => c.chunkType))].sort());
    };
    const order: string[] = [];
    const recording: FileChunker = { chunkFile: (path, text) => (order.push(path), chunker.chunkFile(path, text)) };
    const chunkedAtCommit: number[] = [];
    let pending = Promise.resolve();
    const res = await indexCodebase({ source: new MemoryFileSource(files), store, chunker: recording }, {
      firstFor: 'Parse header',
      onBatch: () => {
        chunkedAtCommit.push(order.length);
        pending = pending.then(onBatch);
      },
    });
    await pending;
    expect(res.files.added).toBe(Object.keys(files).length);
    await new Promise((r) => setTimeout(r, 0));
    // They are chunked first; among files read ahead at once the chunker is called as each one's
    // hash resolves, so their order among themselves is not fixed (commits keep the planned order).
    expect(order.slice(0, 3).sort()).toEqual(['src/mod61.py', 'src/mod70.py', 'src/mod79.py']);
    // The first commit is those three (the files holding the most of the words) as text
    // windows, before the parser ran; the second is the same three parsed, before any other
    // file was chunked.
    expect(chunkedAtCommit.slice(0, 2)).toEqual([0, 3]);
    expect([...committed[0]!].sort()).toEqual(['src/mod61.py', 'src/mod70.py', 'src/mod79.py']);
    expect(types[0]).toEqual(['text']);
    expect(types[1]).not.toContain('text');
    // Without it, those come last; either way the index is the same.
    const plain = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(files), store: plain, chunker });
    expect(await snapshot(store)).toEqual(await snapshot(plain));
    // A query no file holds changes nothing; nor does a run too big to read ahead (not tested here: 8 MB).
    const none = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(files), store: none, chunker }, { firstFor: 'zzqx' });
    expect(await snapshot(none)).toEqual(await snapshot(plain));
    // A run cut short after the text windows were written: the next run parses those files.
    const cut = await openMemoryStore();
    const ac = new AbortController();
    await expect(indexCodebase({ source: new MemoryFileSource(files), store: cut, chunker }, { firstFor: 'Parse header', signal: ac.signal, onBatch: () => ac.abort() })).rejects.toThrow();
    expect((await cut.getFile('src/mod61.py'))?.hash).toBe(PROVISIONAL_HASH);
    await indexCodebase({ source: new MemoryFileSource(files), store: cut, chunker });
    expect(await snapshot(cut)).toEqual(await snapshot(plain));
  });

  it('firstFor: a run of a little over BULK_LOAD_FILES files (a bulk load) still answers first from the query\'s files', async () => {
    // The bulk-load decision comes at BULK_LOAD_FILES walked files, before this walk's end: the
    // run waits for the end (FIRST_FOR_WAIT_MS) instead of dropping the query's reading. A
    // 1,022-file folder picked in the app showed no result for 5 s before (no file first, and
    // the bulk load's first batches 4 s apart).
    const files = repo(BULK_LOAD_FILES + 60);
    for (const i of [1030, 1050]) files[`src/mod${i}.py`] += `\n\ndef parse_header_line(raw):\n    return raw.split(':')\n`;
    const store = await openMemoryStore();
    const committed: string[][] = [];
    const seen = new Set<string>();
    let pending = Promise.resolve();
    await indexCodebase({ source: new MemoryFileSource(files), store, chunker }, {
      firstFor: 'Parse header',
      onBatch: () => {
        pending = pending.then(async () => {
          const now = [...(await store.getFiles()).keys()].filter((p) => !seen.has(p));
          now.forEach((p) => seen.add(p));
          committed.push(now);
        });
      },
    });
    await pending;
    expect([...committed[0]!].sort()).toEqual(['src/mod1030.py', 'src/mod1050.py']);
    expect(seen.size).toBe(Object.keys(files).length);
  }, 60_000);

  it('a small run leaves its files\' trigrams pending (grep reads them whole, the same lines); a run past LAZY_PENDING_BYTES of pending text writes the segment', async () => {
    const pending = async (st: Store) => (await st.db.get<{ n: number }>('SELECT count(*) AS n FROM trigram_pending'))!.n;
    const postings = async (st: Store) => (await st.db.get<{ n: number }>('SELECT count(*) AS n FROM trigram_postings'))!.n;
    const lines = async (st: Store, pattern: string, mode: 'exact' | 'regex', ignoreCase = false) =>
      (await grep(st, { pattern, mode, ignoreCase, limit: 1000 })).results.map((r) => `${r.path}:${r.line}:${r.content}`);
    const small = repo(40);
    const lazy = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(small), store: lazy, chunker });
    expect(await pending(lazy)).toBe(Object.keys(small).length);
    expect(await postings(lazy)).toBe(0);
    const flushed = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(small), store: flushed, chunker });
    await flushed.flushTrigrams();
    expect(await pending(flushed)).toBe(0);
    for (const [pattern, mode, ic] of [['handler_1', 'exact', false], ['Worker3\\d', 'regex', false], ['REQUEST NUMBER 2', 'exact', true]] as const) {
      const got = await lines(lazy, pattern, mode, ic);
      expect(got.length, pattern).toBeGreaterThan(0);
      expect(got, pattern).toEqual(await lines(flushed, pattern, mode, ic));
    }
    // Text that does not compress: once the pending files' packed text reaches LAZY_PENDING_BYTES, the run's end writes the segment.
    let seed = 7;
    const noise = () => Array.from({ length: 24_000 }, () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return String.fromCharCode(33 + ((seed >>> 0) % 90));
    }).join('');
    const big: Record<string, string> = { ...small };
    for (let i = 0; i < Math.ceil(LAZY_PENDING_BYTES / 20_000) + 2; i++) big[`data/blob${i}.txt`] = noise();
    await indexCodebase({ source: new MemoryFileSource(big), store: lazy, chunker });
    expect(await pending(lazy)).toBe(0);
    expect(await postings(lazy)).toBeGreaterThan(0);
    expect(await lines(lazy, 'handler_1', 'exact')).toEqual(await lines(flushed, 'handler_1', 'exact'));
  }, 60_000);

  /**
   * Files in folders of 100 (`d00/` …), the walk slowed past `slowFrom` folders (each readDir then
   * waits `delayMs`): a big folder whose walk is far from its end when the run decides its mode,
   * as a picked folder's walk in the app. `walkEnded()`: whether the last folder has been listed.
   */
  function slowWalk(files: Record<string, string>, slowFrom: number, delayMs: number): { source: FileSource; walkEnded(): boolean } {
    const inner = new MemoryFileSource(files);
    const dirs = new Set(Object.keys(files).map((p) => p.split('/')[0]!).filter((d) => /^d\d+$/.test(d)));
    let listed = 0;
    return {
      source: {
        name: inner.name,
        stat: (p: string) => inner.stat(p),
        readFile: (p: string) => inner.readFile(p),
        readDir: async (d: string) => {
          const n = Number(/^d(\d+)$/.exec(d)?.[1] ?? -1);
          if (n >= slowFrom) await new Promise((r) => setTimeout(r, delayMs));
          const out = await inner.readDir(d);
          if (n >= 0) listed++;
          return out;
        },
      },
      walkEnded: () => listed === dirs.size,
    };
  }
  const folders = (n: number): Record<string, string> => {
    const files: Record<string, string> = {};
    for (let i = 0; i < n; i++) files[`d${String(Math.floor(i / 100)).padStart(2, '0')}/mod${i}.py`] = `def handler_${i}(request):\n    return request.value * ${i}\n`;
    return files;
  };
  const header = `\n\ndef parse_header_line(raw):\n    return raw.split(':')\n`;

  it('firstFor: a big folder whose walk goes on answers at once from a file read so far that holds every word, without waiting for the walk', async () => {
    // 3,000 files: past what a query's reading takes whole (2,000), and its walk slow after the
    // 12th folder, so the run decides its mode (1,000 files) long before the walk ends. The one
    // file of the first folders with both words is written first, before the walk's end; the run
    // used to wait FIRST_FOR_WAIT_MS and then go on in walk order.
    const files = folders(3000);
    files['d04/mod450.py'] += header;
    const { source, walkEnded } = slowWalk(files, 12, 120);
    const store = await openMemoryStore();
    const committed: string[][] = [];
    const seen = new Set<string>();
    let walkDoneAtFirst: boolean | null = null;
    let pending = Promise.resolve();
    await indexCodebase({ source, store, chunker }, {
      firstFor: 'Parse header',
      onBatch: () => {
        walkDoneAtFirst ??= walkEnded();
        pending = pending.then(async () => {
          const now = [...(await store.getFiles()).keys()].filter((p) => !seen.has(p));
          now.forEach((p) => seen.add(p));
          committed.push(now);
        });
      },
    });
    await pending;
    expect(committed[0]).toEqual(['d04/mod450.py']);
    expect(walkDoneAtFirst).toBe(false);
    expect(seen.size).toBe(Object.keys(files).length);
  }, 60_000);

  it('firstFor: once the reading of a folder still being walked is whole, the files not taken yet follow it, its best first', async () => {
    // 1,500 files: the run starts (on the answer from the first folders' one file with both words)
    // while the walk goes on; the walk then ends within the reading's limits, and the last
    // folder's file with both words goes next instead of in walk order, near the run's end.
    const files = folders(1500);
    files['d02/mod250.py'] += header;
    files['d14/mod1490.py'] += header;
    const { source } = slowWalk(files, 10, 150);
    const store = await openMemoryStore();
    const seen = new Set<string>();
    let pending = Promise.resolve();
    let committedBeforeLate = -1;
    await indexCodebase({ source, store, chunker }, {
      firstFor: 'Parse header',
      onBatch: () => {
        pending = pending.then(async () => {
          const now = [...(await store.getFiles()).keys()];
          if (committedBeforeLate < 0 && now.includes('d14/mod1490.py')) committedBeforeLate = seen.size;
          now.forEach((p) => seen.add(p));
        });
      },
    });
    await pending;
    expect(committedBeforeLate).toBeGreaterThan(0);
    expect(committedBeforeLate).toBeLessThan(500);
    expect(seen.size).toBe(Object.keys(files).length);
    const plain = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(files), store: plain, chunker });
    expect(await snapshot(store)).toEqual(await snapshot(plain));
  }, 60_000);

  it('firstFor: the walk and the reading for the query go on while the store answers its first calls (a new database opening)', async () => {
    const files = repo(80);
    for (const i of [61, 70]) files[`src/mod${i}.py`] += `\n\ndef parse_header_line(raw):\n    return raw.split(':')\n`;
    const inner = new MemoryFileSource(files);
    const events: string[] = [];
    const source: FileSource = {
      name: inner.name,
      stat: (p: string) => inner.stat(p),
      readDir: (d: string) => inner.readDir(d),
      readFile: (p: string) => (events.push('read'), inner.readFile(p)),
    };
    const mem = await openMemoryStore();
    // Every store call answers 100 ms late, as a store still opening its database does.
    const slowStore = new Proxy(mem, {
      get: (t, k) => {
        const v = Reflect.get(t, k, t) as unknown;
        if (typeof v !== 'function') return v;
        return async (...a: unknown[]) => {
          await new Promise((r) => setTimeout(r, 100));
          const out = await (v as (...x: unknown[]) => unknown).apply(t, a);
          if (k === 'setMeta' && a[0] === META.runState) events.push('run state set');
          return out;
        };
      },
    }) as unknown as IndexStore;
    await indexCodebase({ source, store: slowStore, chunker }, { firstFor: 'Parse header' });
    // Every file was read for the query before the run's first write was answered.
    expect(events.indexOf('run state set')).toBeGreaterThanOrEqual(80);
    const plain = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(files), store: plain, chunker });
    expect(await snapshot(mem)).toEqual(await snapshot(plain));
  });

  it('a first index writes its first batch while the walk is still running, and indexes everything', async () => {
    // 60 folders of 20 files. The bulk-load decision waits for BULK_LOAD_FILES walked files,
    // then writing starts; the last 10 folders take 300 ms each to list, so the walk is still
    // running for ~3 s after that.
    const files: Record<string, string> = {};
    for (let d = 0; d < 60; d++) for (let f = 0; f < 20; f++) files[`d${String(d).padStart(2, '0')}/m${f}.py`] = `def fn_${d}_${f}():\n    return ${d * 20 + f}\n`;
    const inner = new MemoryFileSource(files);
    let walkDone = false;
    let slowMode = true;
    let pending = 61; // the root and 60 folders
    const slow: FileSource = {
      name: inner.name,
      stat: (p: string) => inner.stat(p),
      readFile: (p: string) => inner.readFile(p),
      readDir: async (dir: string) => {
        if (slowMode && /^d(5\d)$/.test(dir)) await new Promise((r) => setTimeout(r, 300));
        const out = await inner.readDir(dir);
        if (--pending === 0) walkDone = true;
        return out;
      },
    };
    const store = await openMemoryStore();
    const batchesBeforeWalkEnd: number[] = [];
    // A waiting query (IndexOptions.firstFor) does not hold the run for the walk's end either:
    // with the walk still going when the run decides its mode, its reading is dropped.
    const res = await indexCodebase({ source: slow, store, chunker }, { firstFor: 'fn_59_3', onBatch: (b) => { if (!walkDone) batchesBeforeWalkEnd.push(b.files); } });
    expect(walkDone).toBe(true);
    expect(batchesBeforeWalkEnd.length).toBeGreaterThan(0);
    expect(res.files.added).toBe(1200);
    expect(res.chunks.total).toBeGreaterThanOrEqual(1200);
    expect(res.firstSearchableMs!).toBeLessThan(res.timings.walk);
    // The next run is not a first index: it plans from the whole walk, and nothing changed.
    slowMode = false;
    const again = await indexCodebase({ source: slow, store, chunker });
    expect(again.unchanged).toBe(true);
    expect(await store.integrityCheck()).toBe('ok');
  }, 120_000);

  it('loads a big run in bulk mode (no merging as it goes), ends it merged with FTS5 defaults back, same rows', async () => {
    const config = async (st: Store) => Object.fromEntries((await st.db.all<{ k: string; v: number }>('SELECT k, v FROM chunks_fts_config')).map((r) => [r.k, r.v]));
    const segments = async (st: Store) => (await st.db.get<{ n: number }>('SELECT count(DISTINCT segid) AS n FROM chunks_fts_idx'))?.n ?? 0;
    const files = repo(BULK_LOAD_FILES);
    const calls: boolean[] = [];
    const bulkStore = await openMemoryStore();
    const spy = new Proxy(bulkStore, {
      get: (t, k) => (k === 'setBulkLoad' ? async (on: boolean) => {
        calls.push(on);
        await t.setBulkLoad(on);
        if (on) expect(await config(t)).toMatchObject({ automerge: 0, crisismerge: FTS_BULK_CRISISMERGE });
      } : Reflect.get(t, k, t)),
    }) as unknown as IndexStore;
    const source = new MemoryFileSource(files);
    const stages: string[] = [];
    await indexCodebase({ source, store: spy, chunker }, { onProgress: (st) => { if (stages.at(-1) !== st.currentStage) stages.push(st.currentStage); } });
    expect(calls).toEqual([true, false]);
    // The merge at the end is its own stage (seconds on a big tree), reported before complete.
    expect(stages.slice(-2)).toEqual(['optimizing', 'complete']);
    expect(await config(bulkStore)).toMatchObject({ automerge: FTS_AUTOMERGE, crisismerge: FTS_CRISISMERGE });
    expect(await segments(bulkStore)).toBe(1); // merged at the end without optimizeAfterRows
    // A small run on the same index keeps FTS5's own merging.
    calls.length = 0;
    files['extra.py'] = 'def extra():\n    return 1\n';
    source.set('extra.py', files['extra.py']);
    await indexCodebase({ source, store: spy, chunker });
    expect(calls).toEqual([false]);
    const plain = await openMemoryStore();
    await plain.setBulkLoad(false);
    await indexCodebase({ source: new MemoryFileSource(files), store: plain, chunker }, { concurrency: 1 });
    expect(await snapshot(bulkStore)).toEqual(await snapshot(plain));
    expect(await bulkStore.integrityCheck()).toBe('ok');
  }, 120_000);
});
