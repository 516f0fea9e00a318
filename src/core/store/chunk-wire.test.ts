import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import { chunkForStore, prepareChunks, type StoredChunkInput } from '../index/indexer.ts';
import { chunkArray, chunkListLength, decodeChunks, encodeChunks, isChunkWire } from './chunk-wire.ts';
import { openMemoryStore } from './open-node.ts';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/chunk');

/** Every language's fixture: `[name, text]`, the name carrying the extension (arena.c.txt → arena.c). */
function fixtures(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const lang of readdirSync(FIXTURES)) {
    for (const f of readdirSync(join(FIXTURES, lang))) if (f.endsWith('.txt')) out.push([`${lang}/${f.slice(0, -4)}`, readFileSync(join(FIXTURES, lang, f), 'utf8')]);
  }
  return out;
}

function chunk(over: Partial<StoredChunkInput> = {}): StoredChunkInput {
  return {
    path: 'a/b.ts', startLine: 1, endLine: 2, language: 'typescript', chunkType: 'function', symbol: 'f', parent: null,
    signature: 'function f()', doc: null, content: 'function f() {\n}', contentHash: '0123456789abcdef', ...over,
  };
}

describe('chunk wire', () => {
  let chunker: Chunker;
  beforeAll(async () => {
    chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  });

  it("gives back a real chunker's prepared chunks exactly, in every fixture language", async () => {
    let total = 0;
    for (const [path, text] of fixtures()) {
      const chunks = prepareChunks((await chunker.chunkFile(path, text)).chunks);
      const wire = encodeChunks(chunks);
      expect(wire, path).not.toBeNull();
      expect(wire!.count).toBe(chunks.length);
      // structuredClone: what postMessage does to it on the way.
      expect(decodeChunks(structuredClone(wire!)), path).toStrictEqual(chunks);
      total += chunks.length;
    }
    expect(total).toBeGreaterThan(200);
  });

  it('keeps absent apart from null, empty strings, lists and any UTF-16', () => {
    const chunks: StoredChunkInput[] = [
      chunk(),
      chunk({ symbol: null, signature: null, content: '', ftsTokens: '', context: null, contextLine: null, defLine: null, names: null, defines: null, signatureSpan: null, docSpan: null }),
      chunk({ path: 'a/c.ts', content: 'x \ud800 y \udfff \u{1f600} é', doc: '\u0000', context: 'class A {', contextLine: 3, defLine: 0, names: ['f', '', 'g'], defines: [], signatureSpan: [0, 12], docSpan: [5, 5] }),
      chunk({ path: 'a/c.ts', language: 'text', chunkType: 'text', ftsTokens: 'function f' }),
    ];
    const back = decodeChunks(structuredClone(encodeChunks(chunks)!));
    expect(back).toStrictEqual(chunks);
    expect('context' in back[0]!).toBe(false);
    expect(back[1]!.context).toBeNull();
  });

  it('refuses what it cannot carry, so the objects go as they are', () => {
    expect(encodeChunks([chunk({ signatureSpan: [-1, 3] })])).toBeNull();
    expect(encodeChunks([chunk({ contextLine: -2 })])).toBeNull();
    expect(encodeChunks([chunk({ defLine: Number.NaN })])).toBeNull();
    expect(encodeChunks([])).toEqual({ count: 0, strings: '', nums: new Float64Array(0) });
  });

  it('fails loudly on a damaged wire instead of writing wrong rows', () => {
    const wire = encodeChunks([chunk(), chunk()])!;
    expect(() => decodeChunks({ ...wire, count: 1 })).toThrow(/left after 1 chunks/);
    expect(() => decodeChunks({ ...wire, strings: `${wire.strings}x` })).toThrow(/left after/);
  });

  it('helpers see both forms alike', () => {
    const chunks = [chunk(), chunk({ startLine: 3, endLine: 4 })];
    const wire = encodeChunks(chunks)!;
    expect(isChunkWire(wire)).toBe(true);
    expect(isChunkWire(chunks)).toBe(false);
    expect(chunkListLength(wire)).toBe(2);
    expect(chunkArray(wire)).toStrictEqual(chunks);
    expect(chunkArray(chunks)).toBe(chunks);
  });

  it('a store written from the flat form holds the same rows as from the objects', async () => {
    const rows = async (wire: boolean) => {
      const store = await openMemoryStore();
      try {
        for (const [path, text] of fixtures().slice(0, 8)) {
          const p = await chunkForStore(chunker, path, text, { wire });
          expect(isChunkWire(p.chunks)).toBe(wire);
          await store.writeFiles([{ file: { path, hash: 'h', size: text.length, mtime: 0, language: p.language }, chunks: p.chunks, text, packed: p.packed, grams: p.grams }]);
        }
        return await store.db.all('SELECT * FROM chunks ORDER BY id');
      } finally {
        await store.close();
      }
    };
    const plain = await rows(false);
    expect(plain.length).toBeGreaterThan(20);
    expect(await rows(true)).toEqual(plain);
  });
});
