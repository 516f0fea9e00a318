/**
 * A Store holding small in-memory source files as the indexer would chunk them, for the search
 * tests (search, hidden-names). Test code only: nothing outside *.test.ts imports it.
 */
import type { Chunker } from '../chunk/chunker.ts';
import { embeddingText } from '../chunk/embedding-text.ts';
import { sha256HexSync } from '../hash/hash.ts';
import type { Store } from '../store/store.ts';

/** Chunk each of `files` (path → text) and write it to `store`, one file per write, without its text. */
export async function writeChunkedFiles(store: Store, chunker: Chunker, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const { chunks, language } = await chunker.chunkFile(path, text);
    await store.writeFiles([{
      file: { path, hash: `h-${path}`, size: text.length, mtime: 0, language },
      chunks: chunks.map((c) => ({ ...c, contentHash: sha256HexSync(embeddingText(c)) })),
    }]);
  }
}
