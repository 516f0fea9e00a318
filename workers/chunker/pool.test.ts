import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adaptWorker, createChunkWorkerPool, defaultPoolSize, type ChunkWorkerLike } from './pool.ts';
import type { ChunkPool } from '../../src/core/index/chunk-pool.ts';
import type { ChunkReply, ChunkRequest, ChunkerStartup } from './api.ts';
import { Chunker } from '../../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../../src/core/chunk/grammars-node.ts';
import { indexCodebase, prepareChunks } from '../../src/core/index/indexer.ts';
import { MemoryFileSource } from '../../src/core/source/memory-source.ts';
import { openMemoryStore } from '../../src/core/store/open-node.ts';
import { packText, unpackText } from '../../src/core/store/text-codec.ts';
import { fileTrigramKeys } from '../../src/core/text/trigram-keys.ts';

const FILES: Record<string, string> = {
  'src/user.ts': 'export class UserStore {\n  /** Finds a user. */\n  getUserName(id: string): string {\n    return this.byId(id).displayName;\n  }\n}\n',
  'lib/alloc.c': '#include <stdlib.h>\n\nstatic void *kmallocBuffer(size_t n) {\n  return malloc(n);\n}\n',
  'README.md': '# Title\n\nSome prose about parseOptions and HTTPServer.\n',
  'bad.rs': 'fn broken( {{{{ struct\n'.repeat(20),
  'mm/slab.c': 'struct kmem_cache;\n\nvoid *kmem_cache_alloc(struct kmem_cache *s, int flags)\n{\n\treturn 0;\n}\n'.repeat(3),
};

let local: Chunker;
beforeAll(async () => {
  local = await Chunker.create({ loadWasm: nodeWasmLoader });
});
afterAll(() => local.dispose());

/**
 * A chunker worker in this thread: the same code as workers/chunker/index.ts (Chunker +
 * prepareChunks + packText + fileTrigramKeys), answering asynchronously through `onmessage`
 * as a Worker does. `hold` keeps replies back (until `die()` fires `onerror`).
 */
class FakeWorker implements ChunkWorkerLike {
  onmessage: ((ev: MessageEvent) => unknown) | null = null;
  onerror: ((ev: ErrorEvent) => unknown) | null = null;
  onmessageerror: ((ev: MessageEvent) => unknown) | null = null;
  received = 0;
  /** Characters of text received. */
  chars = 0;
  terminated = false;
  constructor(private readonly behaviour: { failStart?: boolean; hold?: boolean } = {}) {
    queueMicrotask(() => this.reply(behaviour.failStart ? { failed: 'no wasm' } : { ready: true }));
  }
  reply(data: ChunkReply | ChunkerStartup): void {
    this.onmessage?.({ data } as MessageEvent);
  }
  postMessage(message: unknown): void {
    const req = message as ChunkRequest;
    this.received++;
    this.chars += req.text.length;
    if (this.behaviour.failStart || this.behaviour.hold) return;
    void local.chunkFile(req.path, req.text).then(async (res) => {
      const result = { ...res, chunks: prepareChunks(res.chunks), packed: await packText(req.text), grams: fileTrigramKeys(req.text) };
      if (!this.terminated) this.reply({ id: req.id, result });
    });
  }
  die(): void {
    this.onerror?.({ message: 'boom' } as ErrorEvent);
  }
  terminate(): void {
    this.terminated = true;
  }
}

/** A pool answer as the indexer uses it: chunks prepared; packed text and keys set aside. */
function norm(r: Awaited<ReturnType<ChunkPool['chunkFile']>>) {
  const { packed: _p, grams: _g, ...rest } = r;
  return { ...rest, chunks: prepareChunks(rest.chunks) };
}

async function inThread(path: string, text: string) {
  const res = await local.chunkFile(path, text);
  return { ...res, chunks: prepareChunks(res.chunks) };
}

describe('chunker worker pool (core ChunkPool over Worker)', () => {
  it('starts no worker before the first file, then answers what the in-thread chunker answers', async () => {
    const workers: FakeWorker[] = [];
    const pool = createChunkWorkerPool(2, () => (workers.push(new FakeWorker()), workers.at(-1)!), async () => local);
    expect(workers).toHaveLength(0);
    const entries = Object.entries(FILES);
    const got = await Promise.all(entries.map(([p, t]) => pool.chunkFile(p, t)));
    for (const [i, [p, t]] of entries.entries()) {
      const { packed, grams, ...rest } = got[i]!;
      expect(rest).toEqual(await inThread(p, t));
      expect(await unpackText(packed!)).toBe(t);
      expect(grams).toEqual(fileTrigramKeys(t));
    }
    expect(workers).toHaveLength(2);
    // Spread over both workers, nothing chunked in-thread.
    expect(workers.every((w) => w.received > 0)).toBe(true);
    expect(pool.fallbackFiles).toBe(0);
    await pool.dispose();
    expect(workers.every((w) => w.terminated)).toBe(true);
    await expect(pool.chunkFile('a.ts', 'const a = 1;\n')).rejects.toThrow(/disposed/);
  });

  it('sends a file to the worker with the fewest characters in flight, not the fewest files', async () => {
    const workers: FakeWorker[] = [];
    const pool = createChunkWorkerPool(2, () => (workers.push(new FakeWorker({ hold: true })), workers.at(-1)!), async () => local);
    void pool.chunkFile('big.c', 'int x;\n'.repeat(500)).catch(() => undefined);
    void pool.chunkFile('a.c', 'int a;\n').catch(() => undefined);
    void pool.chunkFile('b.c', 'int b;\n').catch(() => undefined);
    void pool.chunkFile('c.c', 'int c;\n').catch(() => undefined);
    // big.c alone on the first worker; the three small files on the second (3 × 7 < 3,500 chars).
    expect(workers.map((w) => w.received)).toEqual([1, 3]);
    expect(workers.map((w) => w.chars)).toEqual([3500, 21]);
    await pool.dispose();
  });

  it('a worker\'s reply frees its characters: the next file goes where the work is done', async () => {
    const workers: FakeWorker[] = [];
    const pool = createChunkWorkerPool(2, () => (workers.push(new FakeWorker()), workers.at(-1)!), async () => local);
    await pool.chunkFile('big.c', 'int x;\n'.repeat(500));
    await pool.chunkFile('a.c', 'int a;\n');
    // Nothing in flight on either: the first worker (ties go to the first) takes both.
    expect(workers.map((w) => w.received)).toEqual([2, 0]);
    await pool.dispose();
  });

  it('chunks a dead worker\'s files in-thread, and uses only the live workers after', async () => {
    const workers = [new FakeWorker({ hold: true }), new FakeWorker()];
    let n = 0;
    const lost: string[] = [];
    const pool = createChunkWorkerPool(2, () => workers[n++]!, async () => local, (w) => lost.push(w));
    const entries = Object.entries(FILES);
    const pending = entries.map(([p, t]) => pool.chunkFile(p, t));
    await Promise.resolve();
    workers[0]!.die();
    const got = await Promise.all(pending);
    for (const [i, [p, t]] of entries.entries()) expect(norm(got[i]!)).toEqual(await inThread(p, t));
    expect(lost).toEqual(['boom']);
    expect(workers[0]!.terminated).toBe(true);
    expect(workers[0]!.received).toBeGreaterThan(0);
    expect(pool.liveWorkers).toBe(1);
    expect(pool.fallbackFiles).toBe(workers[0]!.received);
    const before = workers[1]!.received;
    await pool.chunkFile('src/user.ts', FILES['src/user.ts']!);
    expect(workers[1]!.received).toBe(before + 1);
    await pool.dispose();
  });

  it('falls back to in-thread chunking when no worker can start', async () => {
    const pool = createChunkWorkerPool(2, () => new FakeWorker({ failStart: true }), async () => local);
    const entries = Object.entries(FILES);
    const first = pool.chunkFile(entries[0]![0], entries[0]![1]);
    // Both workers report `failed` before answering: the request moves in-thread.
    expect(norm(await first)).toEqual(await inThread(entries[0]![0], entries[0]![1]));
    expect(pool.liveWorkers).toBe(0);
    await pool.chunkFile(entries[1]![0], entries[1]![1]);
    expect(pool.fallbackFiles).toBe(2);
    await pool.dispose();
  });

  it('a worker that cannot be constructed is skipped; the others take the files', async () => {
    let n = 0;
    const lost: string[] = [];
    const ok = new FakeWorker();
    const pool = createChunkWorkerPool(2, () => {
      if (n++ === 0) throw new Error('no Worker here');
      return ok;
    }, async () => local, (w) => lost.push(w));
    const [p, t] = Object.entries(FILES)[0]!;
    expect(norm(await pool.chunkFile(p, t))).toEqual(await inThread(p, t));
    expect(lost).toEqual(['could not start: no Worker here']);
    expect(pool.liveWorkers).toBe(1);
    expect(ok.received).toBe(1);
    expect(pool.fallbackFiles).toBe(0);
    await pool.dispose();
  });

  it('indexes a folder to the same rows as the in-thread chunker', async () => {
    const pool = createChunkWorkerPool(2, () => new FakeWorker(), async () => local);
    const viaPool = await openMemoryStore();
    const viaLocal = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(FILES), store: viaPool, chunker: pool }, { concurrency: 8 });
    await indexCodebase({ source: new MemoryFileSource(FILES), store: viaLocal, chunker: local }, { concurrency: 1 });
    const rows = (s: typeof viaPool) => s.db.all('SELECT id, path, start_line, content, text_start, text_len, content_hash FROM chunks ORDER BY path, start_line');
    expect((await rows(viaPool)).length).toBeGreaterThan(5);
    expect(await rows(viaPool)).toEqual(await rows(viaLocal));
    const texts = (s: typeof viaPool) => s.db.all('SELECT path, data FROM file_text ORDER BY path');
    expect(await texts(viaPool)).toEqual(await texts(viaLocal));
    await pool.dispose();
  });

  it('start() starts the workers before any file', async () => {
    const workers: FakeWorker[] = [];
    const pool = createChunkWorkerPool(2, () => (workers.push(new FakeWorker()), workers.at(-1)!), async () => local);
    pool.start();
    expect(workers).toHaveLength(2);
    expect(workers.every((w) => w.received === 0)).toBe(true);
    await pool.dispose();
  });

  it('answers a worker\'s WASM request with the parent\'s module, and reports ready workers', async () => {
    const asked: string[] = [];
    const module = new WebAssembly.Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    const posted: unknown[] = [];
    const w: ChunkWorkerLike = { onmessage: null, onerror: null, onmessageerror: null, postMessage: (m) => posted.push(m), terminate: () => undefined };
    let ready = 0;
    const messages: unknown[] = [];
    adaptWorker(w, { message: (m) => messages.push(m), lost: () => undefined }, {
      provideWasm: async (file) => {
        asked.push(file);
        if (file === 'missing.wasm') throw new Error('no grammar bundled for missing.wasm');
        return module;
      },
      onReady: () => ready++,
    });
    w.onmessage!({ data: { wasmRequest: 'web-tree-sitter.wasm' } } as MessageEvent);
    w.onmessage!({ data: { wasmRequest: 'missing.wasm' } } as MessageEvent);
    await new Promise((r) => setTimeout(r, 0));
    expect(asked).toEqual(['web-tree-sitter.wasm', 'missing.wasm']);
    expect(posted).toEqual([{ wasmReply: 'web-tree-sitter.wasm', module }, { wasmReply: 'missing.wasm', error: 'no grammar bundled for missing.wasm' }]);
    // WASM traffic is the shell's: the pool hears only the protocol's messages.
    expect(messages).toEqual([]);
    w.onmessage!({ data: { ready: true } } as MessageEvent);
    expect(ready).toBe(1);
    expect(messages).toEqual([{ ready: true }]);
  });

  it('a Chunker fed compiled grammar modules chunks exactly as one fed bytes (the runtime, per realm, is instantiated from a module in the browser e2e)', async () => {
    const compiled = async (file: string) => new WebAssembly.Module(new Uint8Array(await nodeWasmLoader(file)));
    const fromModules = await Chunker.create({ loadWasm: compiled });
    try {
      for (const [p, t] of Object.entries(FILES)) expect(await fromModules.chunkFile(p, t)).toEqual(await local.chunkFile(p, t));
    } finally {
      fromModules.dispose();
    }
  });

  it('sizes the pool at all cores but one, at least 2, never more than the cores', () => {
    expect(defaultPoolSize(1)).toBe(1);
    expect(defaultPoolSize(2)).toBe(2);
    expect(defaultPoolSize(8)).toBe(7);
    expect(defaultPoolSize(undefined)).toBe(2);
    expect(defaultPoolSize(0)).toBe(2);
  });
});
