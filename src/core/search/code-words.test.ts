/**
 * The thesaurus's code words in a real search (bm25.ts usableCodeWords, issue 35 class 6): used for a
 * question word the codebase does not write, when the code word names few files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import { openMemoryStore } from '../store/open-node.ts';
import type { Store } from '../store/store.ts';
import { writeChunkedFiles } from './test-store.ts';
import { processQuery } from './query.ts';
import { usableCodeWords } from './bm25.ts';
import { Searcher } from './search.ts';

let chunker: Chunker;
beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
}, 60_000);
afterAll(() => chunker.dispose());

async function withFiles<T>(files: Record<string, string>, use: (s: Store) => Promise<T>): Promise<T> {
  const s = await openMemoryStore();
  try {
    await writeChunkedFiles(s, chunker, files);
    return await use(s);
  } finally {
    await s.close();
  }
}

const fn = (name: string, body: string) => `int ${name}(struct transfer *t)\n{\n  /* ${body} */\n  return t->bytes_per_second + t->speed;\n}\n`;
const TRANSFER: Record<string, string> = {
  'lib/ratelimit.c': `#include "transfer.h"\n\n${fn('limit_pause', 'pause when the window is spent')}\n${fn('limit_window', 'start a new window')}`,
  'lib/transfer.c': `${fn('transfer_speed', 'transfer speed in bytes per second, maximum transfer speed')}\n${fn('transfer_bytes', 'count the transfer bytes per second')}`,
  'lib/progress.c': `${fn('progress_speed', 'report the transfer speed, bytes per second, the maximum seen')}\n${fn('progress_meter', 'draw the meter')}`,
  'lib/connect.c': `${fn('connect_speed', 'the maximum speed of a connect')}\n`,
};
const QUESTION = 'throttle transfer speed to a maximum number of bytes per second';

describe('code words for a question word the code does not write', () => {
  it('name a file by its code word: a candidate with the path signal', async () => {
    await withFiles(TRANSFER, async (s) => {
      expect(await s.read((r) => usableCodeWords(r.db, processQuery(QUESTION)))).toEqual({ throttle: ['ratelimit', 'ratelimiter'] });
      const res = await new Searcher(s).search(QUESTION, { mode: 'bm25', limit: 10 });
      const hit = res.results.find((r) => r.path === 'lib/ratelimit.c');
      expect(hit, res.results.map((r) => r.path).join(' ')).toBeDefined();
      expect(res.bm25Signals[hit!.id]?.path).toBeGreaterThan(0);
    });
  });
  it('not when the code writes the word: it is the code\'s vocabulary then', async () => {
    const files = { ...TRANSFER, 'lib/speed.c': `${fn('throttle_speed', 'throttle the transfer when asked to throttle')}\n` };
    await withFiles(files, async (s) => {
      expect(await s.read((r) => usableCodeWords(r.db, processQuery(QUESTION)))).toEqual({});
      const res = await new Searcher(s).search(QUESTION, { mode: 'bm25', limit: 10 });
      const hit = res.results.find((r) => r.path === 'lib/ratelimit.c');
      expect(hit ? res.bm25Signals[hit.id]?.path : undefined).toBeUndefined();
    });
  });
  it('not a code word that names many files: the codebase\'s subject, not one file\'s', async () => {
    const files: Record<string, string> = {};
    for (const n of ['option', 'options', 'option_group', 'option_builder']) files[`src/${n}.c`] = fn(`${n}_parse`, 'parse the command line value');
    await withFiles(files, async (s) => {
      const q = processQuery('warn when an obsolete flag is read');
      expect(q.codeWords.flag).toContain('option');
      expect(await s.read((r) => usableCodeWords(r.db, q))).toEqual({});
    });
  });
});
