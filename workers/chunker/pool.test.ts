import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkWorkerPool, defaultPoolSize, type ChunkWorkerLike } from './pool.ts';
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

type Listener = (ev: { data?: ChunkReply | ChunkerStartup; message?: string }) => void;

/**
 * A chunker worker in this thread: the same code as workers/chunker/index.ts (Chunker +
 * prepareChunks + packText + fileTrigramKeys), answering asynchronously. `hold` keeps replies back until `die()`.
 */
class FakeWorker implements ChunkWorkerLike {
  readonly listeners = new Map<string, Listener[]>();
  received = 0;
  terminated = false;
  constructor(private readonly behaviour: { failStart?: boolean; hold?: boolean } = {}) {
    queueMicrotask(() => this.emit('message', { data: behaviour.failStart ? { failed: 'no wasm' } : { ready: true } }));
  }
  addEventListener(type: string, l: (ev: never) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), l as Listener]);
  }
  emit(type: string, ev: Parameters<Listener>[0]): void {
    for (const l of this.listeners.get(type) ?? []) l(ev);
  }
  postMessage(req: ChunkRequest): void {
    this.received++;
    if (this.behaviour.failStart || this.behaviour.hold) return;
    void local.chunkFile(req.path, req.text).then(async (res) => {
      const result = { ...res, chunks: prepareChunks(res.chunks), packed: await packText(req.text), grams: fileTrigramKeys(req.text) };
      if (!this.terminated) this.emit('message', { data: { id: req.id, result } });
    });
  }
  die(): void {
    this.emit('error', { message: 'boom' });
  }
  terminate(): void {
    this.terminated = true;
  }
}

/** A pool answer as the indexer uses it: chunks prepared; packed text and keys set aside. */
function norm(r: Awaited<ReturnType<ChunkWorkerPool['chunkFile']>>) {
  const { packed: _p, grams: _g, ...rest } = r;
  return { ...rest, chunks: prepareChunks(rest.chunks) };
}

async function inThread(path: string, text: string) {
  const res = await local.chunkFile(path, text);
  return { ...res, chunks: prepareChunks(res.chunks) };
}

describe('ChunkWorkerPool', () => {
  it('starts no worker before the first file, then answers what the in-thread chunker answers', async () => {
    const workers: FakeWorker[] = [];
    const pool = new ChunkWorkerPool({ size: 2, spawn: () => (workers.push(new FakeWorker()), workers.at(-1)!), fallback: async () => local });
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
    // Spread over both workers (least busy first), nothing chunked in-thread.
    expect(workers.map((w) => w.received)).toEqual([3, 2]);
    expect(pool.fallbackFiles).toBe(0);
    pool.dispose();
    expect(workers.every((w) => w.terminated)).toBe(true);
    await expect(pool.chunkFile('a.ts', 'const a = 1;\n')).rejects.toThrow(/disposed/);
  });

  it('chunks a dead worker\'s files in-thread, and uses only the live workers after', async () => {
    const workers = [new FakeWorker({ hold: true }), new FakeWorker()];
    let n = 0;
    const lost: string[] = [];
    const pool = new ChunkWorkerPool({ size: 2, spawn: () => workers[n++]!, fallback: async () => local, onWorkerLost: (w) => lost.push(w) });
    const entries = Object.entries(FILES);
    const pending = entries.map(([p, t]) => pool.chunkFile(p, t));
    await Promise.resolve();
    workers[0]!.die();
    const got = await Promise.all(pending);
    for (const [i, [p, t]] of entries.entries()) expect(norm(got[i]!)).toEqual(await inThread(p, t));
    expect(lost).toEqual(['boom']);
    expect(workers[0]!.terminated).toBe(true);
    expect(pool.liveWorkers).toBe(1);
    expect(pool.fallbackFiles).toBe(workers[0]!.received);
    const before = workers[1]!.received;
    await pool.chunkFile('src/user.ts', FILES['src/user.ts']!);
    expect(workers[1]!.received).toBe(before + 1);
    pool.dispose();
  });

  it('falls back to in-thread chunking when no worker can start', async () => {
    const pool = new ChunkWorkerPool({ size: 2, spawn: () => new FakeWorker({ failStart: true }), fallback: async () => local });
    const entries = Object.entries(FILES);
    const first = pool.chunkFile(entries[0]![0], entries[0]![1]);
    // Both workers report `failed` before answering: the request moves in-thread.
    expect(norm(await first)).toEqual(await inThread(entries[0]![0], entries[0]![1]));
    expect(pool.liveWorkers).toBe(0);
    await pool.chunkFile(entries[1]![0], entries[1]![1]);
    expect(pool.fallbackFiles).toBe(2);
    pool.dispose();
  });

  it('indexes a folder to the same rows as the in-thread chunker', async () => {
    const pool = new ChunkWorkerPool({ size: 2, spawn: () => new FakeWorker(), fallback: async () => local });
    const viaPool = await openMemoryStore();
    const viaLocal = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(FILES), store: viaPool, chunker: pool }, { concurrency: 8 });
    await indexCodebase({ source: new MemoryFileSource(FILES), store: viaLocal, chunker: local }, { concurrency: 1 });
    const rows = (s: typeof viaPool) => s.db.all('SELECT id, path, start_line, content, text_start, text_len, content_hash FROM chunks ORDER BY path, start_line');
    expect((await rows(viaPool)).length).toBeGreaterThan(5);
    expect(await rows(viaPool)).toEqual(await rows(viaLocal));
    const texts = (s: typeof viaPool) => s.db.all('SELECT path, data FROM file_text ORDER BY path');
    expect(await texts(viaPool)).toEqual(await texts(viaLocal));
    pool.dispose();
  });

  it('sizes the pool at all cores but one, at least 2', () => {
    expect(defaultPoolSize(2)).toBe(2);
    expect(defaultPoolSize(8)).toBe(7);
    expect(defaultPoolSize(undefined)).toBe(2);
  });
});
