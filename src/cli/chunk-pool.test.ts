import { packText, unpackText } from '../core/store/text-codec.ts';
import { nodeTextCodec } from '../core/store/text-codec-node.ts';
import { fileTrigramKeys } from '../core/text/trigram-keys.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkPool } from './chunk-pool.ts';
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
  pool = await ChunkPool.create(2);
  local = await Chunker.create({ loadWasm: nodeWasmLoader });
});
afterAll(async () => {
  await pool.dispose();
  local.dispose();
});

describe('ChunkPool', () => {
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
    const p = await ChunkPool.create(1);
    await p.dispose();
    await expect(p.chunkFile('a.ts', 'const a = 1;\n')).rejects.toThrow(/disposed/);
  });
});
