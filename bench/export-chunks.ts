/**
 * Write every chunk's text and path of a Sift index as CSV (content,path), for the native
 * sqlite3 FTS5 baseline (baselines.ts): since schema 6 a chunk's text is a slice of its
 * file's packed text, which only Sift can read. Run untimed, before the timed build.
 * Usage: tsx bench/export-chunks.ts <index.db> <out.csv>
 */
import { createWriteStream } from 'node:fs';
import { openNodeStore } from '../src/core/store/open-node.ts';
import { resolveChunkContent } from '../src/core/store/store.ts';

const PAGE = 5000;

const csv = (s: string) => `"${s.replace(/"/g, '""')}"`;

export async function exportChunks(db: string, out: string): Promise<number> {
  const store = await openNodeStore(db, { existing: true });
  const w = createWriteStream(out);
  let rows = 0;
  try {
    for (let after = 0; ;) {
      const page = await store.db.all<{ id: number; path: string; content: string; text_start: number | null; text_len: number | null }>(
        'SELECT id, path, content, text_start, text_len FROM chunks WHERE id > ? ORDER BY id LIMIT ?', [after, PAGE]);
      if (!page.length) break;
      for (const r of await resolveChunkContent(store.db, page)) {
        if (!w.write(`${csv(r.content)},${csv(r.path)}\n`)) await new Promise<void>((res) => w.once('drain', () => res()));
      }
      rows += page.length;
      after = page[page.length - 1]!.id;
    }
  } finally {
    await new Promise<void>((res, rej) => w.end((e?: Error | null) => (e ? rej(e) : res())));
    await store.close();
  }
  return rows;
}

if (process.argv[1] && /export-chunks\.ts$/.test(process.argv[1])) {
  const [db, out] = process.argv.slice(2);
  if (!db || !out) throw new Error('usage: tsx bench/export-chunks.ts <index.db> <out.csv>');
  console.log(await exportChunks(db, out));
}
