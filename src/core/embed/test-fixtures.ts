/**
 * Inputs the embedding tests share (embedder, model-family, embed-pass, write-behind): a few
 * texts of different shapes, and files of numbered function chunks as the indexer stores them.
 * Test code only: nothing outside *.test.ts imports it.
 */
import type { Chunk, FileRecord } from '../types.ts';

/** Code and prose of different lengths, one of a single character. */
export const SAMPLE_TEXTS = [
  'function getUserName(user) { return user.name; }',
  'def parse_config(path):\n    with open(path) as f:\n        return json.load(f)',
  'SELECT count(*) FROM orders WHERE total > 100',
  'x',
  'class HttpClient { async fetch(url: string): Promise<Response> { return await request(url, { timeout: 30 }); } }',
];

/** A TypeScript file at `path` with `n` function chunks (`fn0`…), each with its own content hash. */
export function fileOfFunctions(path: string, n: number): { file: FileRecord; chunks: Array<Chunk & { contentHash: string }> } {
  return {
    file: { path, hash: `h-${path}`, size: 100, mtime: 1_700_000_000_000, language: 'typescript' },
    chunks: Array.from({ length: n }, (_, i) => ({
      path, startLine: i * 10 + 1, endLine: i * 10 + 9, language: 'typescript', chunkType: 'function' as const,
      symbol: `fn${i}`, parent: null, signature: `function fn${i}()`, doc: null,
      content: `function fn${i}() { return "${path} ${i}" }`, contentHash: `${path}#${i}`,
    })),
  };
}
