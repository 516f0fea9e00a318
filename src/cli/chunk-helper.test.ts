import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EarlyChunkThread, HELPER_MIN_ENTRIES, helperWanted } from './chunk-helper.ts';
import { workerBootstrap } from './chunk-pool.ts';
import { HelpedChunker } from '../core/index/chunk-pool.ts';
import { Chunker } from '../core/chunk/chunker.ts';
import { nodeWasmLoader } from '../core/chunk/grammars-node.ts';
import { chunkForStore, indexCodebase, type FileChunker } from '../core/index/indexer.ts';
import { MemoryFileSource } from '../core/source/memory-source.ts';
import { openMemoryStore } from '../core/store/open-node.ts';
import { nodeTextCodec } from '../core/store/text-codec-node.ts';
import { nativeSha256 } from './node-hash.ts';

/** Files of several languages, enough for both threads to take some. */
const FILES: Record<string, string> = {};
for (let i = 0; i < 24; i++) {
  FILES[`src/user${i}.ts`] = `export class UserStore${i} {\n  /** Finds a user. */\n  getUserName(id: string): string {\n    return this.byId(id).displayName + ${i};\n  }\n}\n`.repeat(1 + (i % 4));
  FILES[`lib/alloc${i}.c`] = `#include <stdlib.h>\n\nstatic void *kmallocBuffer${i}(size_t n) {\n  return malloc(n + ${i});\n}\n`;
  FILES[`doc/notes${i}.md`] = `# Title ${i}\n\nSome prose about parseOptions and HTTPServer.\n`;
}
FILES['bad.rs'] = 'fn broken( {{{{ struct\n'.repeat(20);

let local: Chunker;
const opts = { codec: nodeTextCodec, sha256Hex: nativeSha256 };
/** The in-thread chunker the CLI uses (cmd-index.ts): chunkForStore with Node's hash and codec. */
const inThread: FileChunker = { chunkFile: (path, text) => chunkForStore(local, path, text, opts) };
beforeAll(async () => {
  local = await Chunker.create({ loadWasm: nodeWasmLoader });
});
afterAll(() => local.dispose());

/** A HelpedChunker over a real thread started by EarlyChunkThread (the worker module from the sources). */
function helped(thread: EarlyChunkThread, lost: string[] = [], aheadChars?: number): HelpedChunker {
  return new HelpedChunker({ spawn: (events) => thread.adopt(events), local: async () => inThread, defer: setImmediate, onWorkerLost: (w) => lost.push(w), aheadChars });
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Wait (up to 20 s: the thread loads the TypeScript sources through tsx) until `done()`. */
async function until(done: () => boolean): Promise<void> {
  for (let t = 0; !done() && t < 400; t++) await settle(50);
  expect(done()).toBe(true);
}

describe('helperWanted', () => {
  it('wants a free core and a folder that is not tiny', () => {
    expect(helperWanted(100, {}, 2, 0.4)).toBe(true);
    expect(helperWanted(100, {}, 2, 1.6)).toBe(false);
    expect(helperWanted(100, {}, 8, 6.9)).toBe(true);
    expect(helperWanted(100, {}, 1, 0)).toBe(false);
    expect(helperWanted(HELPER_MIN_ENTRIES - 1, {}, 2, 0)).toBe(false);
    expect(helperWanted(HELPER_MIN_ENTRIES, {}, 2, 0)).toBe(true);
  });

  it('follows SIFT_CHUNK_HELPER and SIFT_CHUNK_WORKERS=0', () => {
    expect(helperWanted(100, { SIFT_CHUNK_HELPER: '1' }, 2, 9)).toBe(true);
    expect(helperWanted(100, { SIFT_CHUNK_HELPER: '0' }, 2, 0)).toBe(false);
    expect(helperWanted(100, { SIFT_CHUNK_WORKERS: '0', SIFT_CHUNK_HELPER: '1' }, 2, 0)).toBe(false);
    expect(helperWanted(1, { SIFT_CHUNK_HELPER: '1' }, 2, 0)).toBe(false);
  });
});

describe('HelpedChunker over an early chunk thread', () => {
  it('returns what the in-thread chunker returns, with files chunked on both threads', async () => {
    const thread = new EarlyChunkThread(workerBootstrap());
    const lost: string[] = [];
    const c = helped(thread, lost, 2_000);
    await until(() => c.helperReady);
    const entries = Object.entries(FILES);
    const got = await Promise.all(entries.map(([p, t]) => c.chunkFile(p, t)));
    for (const [i, [p, t]] of entries.entries()) expect(got[i]).toEqual(await inThread.chunkFile(p, t));
    expect(c.helperFiles + c.localFiles).toBe(entries.length);
    expect(c.helperFiles).toBeGreaterThan(0);
    expect(c.localFiles).toBeGreaterThan(0);
    expect(lost).toEqual([]);
    await c.dispose();
    await expect(c.chunkFile('a.ts', 'const a = 1;\n')).rejects.toThrow(/disposed/);
  });

  it('indexes a folder to the same rows as the in-thread chunker', async () => {
    const viaHelper = await openMemoryStore();
    const viaLocal = await openMemoryStore();
    const c = helped(new EarlyChunkThread(workerBootstrap()), [], 2_000);
    await until(() => c.helperReady);
    await indexCodebase({ source: new MemoryFileSource(FILES), store: viaHelper, chunker: c }, { concurrency: 64 });
    expect(c.helperFiles).toBeGreaterThan(0);
    await indexCodebase({ source: new MemoryFileSource(FILES), store: viaLocal, chunker: inThread }, { concurrency: 1 });
    await c.dispose();
    const rows = (s: typeof viaLocal) => s.db.all('SELECT id, path, start_line, end_line, content, symbol, text_start, text_len, content_hash FROM chunks ORDER BY id');
    expect(await rows(viaHelper)).toEqual(await rows(viaLocal));
    const files = (s: typeof viaLocal) => s.db.all('SELECT path, hash, language, chunk_lo, chunk_hi FROM files ORDER BY path');
    expect(await files(viaHelper)).toEqual(await files(viaLocal));
    const postings = (s: typeof viaLocal) => s.db.all('SELECT seg, gram, hex(ids) AS ids FROM trigram_postings ORDER BY rowid');
    expect(await postings(viaHelper)).toEqual(await postings(viaLocal));
  });

  it('chunks every file in-thread when the thread cannot load its module', async () => {
    const thread = new EarlyChunkThread(workerBootstrap(new URL('./no-such-chunk-worker.ts', import.meta.url).href));
    const lost: string[] = [];
    const c = helped(thread, lost);
    const entries = Object.entries(FILES).slice(0, 6);
    const got = await Promise.all(entries.map(([p, t]) => c.chunkFile(p, t)));
    for (const [i, [p, t]] of entries.entries()) expect(got[i]).toEqual(await inThread.chunkFile(p, t));
    expect(c.helperFiles).toBe(0);
    await until(() => lost.length > 0);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(/^failed to start: .*no-such-chunk-worker/s);
    await c.dispose();
  });

  it('chunks in-thread the files of a thread that exits, and every file after', async () => {
    // A "worker" that says it is ready, then dies on its first file.
    const thread = new EarlyChunkThread(`const { parentPort } = require('node:worker_threads'); parentPort.postMessage({ ready: true }); parentPort.on('message', () => process.exit(3));`);
    await settle(200);
    const lost: string[] = [];
    const c = helped(thread, lost);
    const entries = Object.entries(FILES);
    const got = await Promise.all(entries.map(([p, t]) => c.chunkFile(p, t)));
    for (const [i, [p, t]] of entries.entries()) expect(got[i]).toEqual(await inThread.chunkFile(p, t));
    expect(lost).toEqual(['exit code 3']);
    expect(c.helperFiles).toBe(0);
    expect(c.localFiles).toBe(entries.length);
    await c.dispose();
  });

  it('rejects only the file the thread reports an error for', async () => {
    const thread = new EarlyChunkThread(
      `const { parentPort } = require('node:worker_threads'); parentPort.postMessage({ ready: true });`
      + `parentPort.on('message', (r) => parentPort.postMessage(r.path === 'bad.c' ? { id: r.id, error: 'cannot chunk ' + r.path } : { id: r.id, result: { language: 'c', chunks: [], parsed: true, warnings: [], packed: new Uint8Array(1), grams: new Uint32Array(0) } }));`,
    );
    await settle(200);
    const c = helped(thread);
    // The thread is ready, so the first file goes to it.
    await expect(c.chunkFile('bad.c', 'int a;\n')).rejects.toThrow('cannot chunk bad.c');
    expect((await c.chunkFile('ok.c', 'int b;\n')).chunks).toEqual([]);
    expect(c.helperFiles).toBe(2);
    await c.dispose();
  });

  it('terminates once however often asked, and is adopted at most once', async () => {
    const thread = new EarlyChunkThread(workerBootstrap());
    const stopped = thread.terminate();
    expect(thread.terminate()).toBe(stopped);
    expect(typeof (await stopped)).toBe('number');
    expect(() => thread.adopt({ message: () => undefined, lost: () => undefined })).not.toThrow();
    expect(() => thread.adopt({ message: () => undefined, lost: () => undefined })).toThrow(/twice/);
  });
});
