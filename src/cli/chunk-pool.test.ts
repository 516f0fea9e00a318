import { packText, unpackText } from '../core/store/text-codec.ts';
import { nodeTextCodec } from '../core/store/text-codec-node.ts';
import { fileTrigramKeys } from '../core/text/trigram-keys.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChunkPool, spawnChunkThread, workerBootstrap } from './chunk-pool.ts';
import { ChunkPool } from '../core/index/chunk-pool.ts';
import { Chunker } from '../core/chunk/chunker.ts';
import { nodeWasmLoader } from '../core/chunk/grammars-node.ts';
import { indexCodebase, prepareChunks } from '../core/index/indexer.ts';
import { MemoryFileSource } from '../core/source/memory-source.ts';
import { openMemoryStore } from '../core/store/open-node.ts';

const FILES: Record<string, string> = {
  'src/user.ts': 'export class UserStore {\n  /** Finds a user. */\n  getUserName(id: string): string {\n    return this.byId(id).displayName;\n  }\n}\n',
  'lib/alloc.c': '#include <stdlib.h>\n\nstatic void *kmallocBuffer(size_t n) {\n  return malloc(n);\n}\n',
  'README.md': '# Title\n\nSome prose about parseOptions and HTTPServer.\n',
  'bad.rs': 'fn broken( {{{{ struct\n'.repeat(20),
};

let pool: ChunkPool;
let local: Chunker;
beforeAll(async () => {
  local = await Chunker.create({ loadWasm: nodeWasmLoader });
  pool = createChunkPool(2, async () => local);
});
afterAll(async () => {
  await pool.dispose();
  local.dispose();
});

describe('CLI chunk pool (core ChunkPool over worker threads)', () => {
  it('returns exactly what the in-thread chunker + prepareChunks return', async () => {
    expect(pool.size).toBe(2);
    const entries = Object.entries(FILES);
    const fromPool = await Promise.all(entries.map(([p, t]) => pool.chunkFile(p, t)));
    for (const [i, [p, t]] of entries.entries()) {
      const res = await local.chunkFile(p, t);
      // The worker also packs the text for file_text (store/text-codec.ts), off the main thread.
      expect(fromPool[i]).toEqual({ ...res, chunks: prepareChunks(res.chunks), packed: await packText(t, nodeTextCodec), grams: fileTrigramKeys(t) });
      expect(await unpackText(fromPool[i]!.packed!)).toBe(t);
    }
    expect(fromPool[3]!.parsed).toBe(false);
    expect(pool.liveWorkers).toBe(2);
    expect(pool.fallbackFiles).toBe(0);
  });

  it('indexes a folder to the same rows as the in-thread chunker', async () => {
    const viaPool = await openMemoryStore();
    const viaLocal = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(FILES), store: viaPool, chunker: pool }, { concurrency: 8 });
    await indexCodebase({ source: new MemoryFileSource(FILES), store: viaLocal, chunker: local }, { concurrency: 1 });
    const rows = (s: typeof viaPool) => s.db.all('SELECT id, path, start_line, content, text_start, text_len, content_hash FROM chunks ORDER BY path, start_line');
    expect(await rows(viaPool)).toEqual(await rows(viaLocal));
    // The FTS rows (names, path words, tokens are only in the index now) rank the same.
    const words = [...new Set(Object.values(FILES).join(' ').match(/[A-Za-z]{3,}/g) ?? [])].slice(0, 40);
    const ranked = (s: typeof viaPool) => s.db.all(`SELECT rowid, round(bm25(chunks_fts, 10, 4, 3, 1, 1.5), 6) AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid`, [words.map((w) => `"${w}"`).join(' OR ')]);
    expect((await ranked(viaPool)).length).toBeGreaterThan(0);
    expect(await ranked(viaPool)).toEqual(await ranked(viaLocal));
    expect(await viaPool.integrityCheck()).toBe('ok');
  });

  it('rejects work after dispose', async () => {
    const p = createChunkPool(1, async () => local);
    await p.chunkFile('a.ts', 'const a = 1;\n');
    await p.dispose();
    await expect(p.chunkFile('a.ts', 'const a = 1;\n')).rejects.toThrow(/disposed/);
  });

  /** A real worker thread running `code` (plain JS) instead of chunk-worker.ts. */
  const threadPool = (code: string, lost: string[]) =>
    new ChunkPool({ size: 1, fallback: async () => local, onWorkerLost: (w) => lost.push(w), spawn: (events) => spawnChunkThread(events, code) });
  const inThread = async (p: string, t: string) => {
    const res = await local.chunkFile(p, t);
    return { ...res, chunks: prepareChunks(res.chunks) };
  };

  it('chunks in-thread the files of a thread that exits, and every file after', async () => {
    const lost: string[] = [];
    const p = threadPool(`require('node:worker_threads').parentPort.on('message', () => process.exit(3));`, lost);
    const entries = Object.entries(FILES);
    const got = await Promise.all(entries.map(([path, t]) => p.chunkFile(path, t)));
    for (const [i, [path, t]] of entries.entries()) expect({ ...got[i]!, chunks: prepareChunks(got[i]!.chunks) }).toEqual(await inThread(path, t));
    expect(lost).toEqual(['exit code 3']);
    expect(p.liveWorkers).toBe(0);
    expect(p.fallbackFiles).toBe(entries.length);
    await p.dispose();
  });

  it('chunks in-thread when the worker module cannot load', async () => {
    const lost: string[] = [];
    const p = threadPool(workerBootstrap(new URL('./no-such-chunk-worker.ts', import.meta.url).href), lost);
    const [path, t] = Object.entries(FILES)[0]!;
    expect(await p.chunkFile(path, t)).toEqual(await local.chunkFile(path, t));
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(/^failed to start: .*no-such-chunk-worker/s);
    await p.dispose();
  });

  it('rejects only the file a worker reports an error for, and keeps using the worker', async () => {
    const lost: string[] = [];
    const p = threadPool(
      `const { parentPort } = require('node:worker_threads');`
      + `parentPort.on('message', (r) => parentPort.postMessage(r.path === 'bad.c' ? { id: r.id, error: 'cannot chunk ' + r.path } : { id: r.id, result: { language: 'c', chunks: [], parsed: true, warnings: [], packed: new Uint8Array(1), grams: new Uint32Array(0) } }));`,
      lost,
    );
    await expect(p.chunkFile('bad.c', 'int a;\n')).rejects.toThrow('cannot chunk bad.c');
    expect((await p.chunkFile('ok.c', 'int b;\n')).chunks).toEqual([]);
    expect(lost).toEqual([]);
    expect(p.liveWorkers).toBe(1);
    expect(p.fallbackFiles).toBe(0);
    await p.dispose();
  });
});
