/**
 * The embedding pass: stored chunks without a vector → the embedder → the vector cache
 * (and a live vector index when one is given). Runs after (or beside) lexical indexing,
 * so keyword search works while this catches up.
 *
 * Invariants:
 * - A chunk is never embedded twice for one model key: the cache is keyed by the chunk's
 *   content hash (sha256 of its embedding text) + model key, so identical chunks and
 *   renamed files reuse vectors.
 * - Source code is embedded before bulky data files (the store orders pending chunks).
 * - Cancelling keeps every batch already written.
 */
import type { StoredChunk } from '../types.ts';
import { embeddingText } from '../chunk/embedding-text.ts';

const PAGE = 256;

export interface EmbedStore {
  pendingEmbeddings(model: string, limit: number, afterId?: number): Promise<Array<{ id: number; contentHash: string }>>;
  getChunks(ids: number[]): Promise<StoredChunk[]>;
  putEmbeddings(model: string, items: Array<{ hash: string; vector: Float32Array }>): Promise<void>;
  embeddedCount(model: string): Promise<number>;
  chunkCount(): Promise<number>;
}

export interface TextEmbedder {
  readonly info: { key: string; dim: number };
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array>;
}

export interface EmbedProgress {
  embedded: number;
  total: number;
  /** chunks per second over this run */
  rate: number;
}

export interface EmbedSummary extends EmbedProgress {
  newlyEmbedded: number;
  ms: number;
}

export async function embedPending(
  deps: { store: EmbedStore; embedder: TextEmbedder; onVectors?: (ids: number[], vectors: Float32Array) => void | Promise<void> },
  opts: { signal?: AbortSignal; onProgress?: (p: EmbedProgress) => void; maxChunks?: number } = {},
): Promise<EmbedSummary> {
  const { store, embedder } = deps;
  const key = embedder.info.key;
  const dim = embedder.info.dim;
  const t0 = performance.now();
  const total = await store.chunkCount();
  let embedded = await store.embeddedCount(key);
  let fresh = 0;
  const seen = new Set<number>();
  const progress = (): EmbedProgress => {
    const s = (performance.now() - t0) / 1000;
    return { embedded, total, rate: s > 0 ? fresh / s : 0 };
  };
  opts.onProgress?.(progress());

  for (;;) {
    if (opts.signal?.aborted) throw new DOMException('Embedding was cancelled', 'AbortError');
    if (opts.maxChunks !== undefined && fresh >= opts.maxChunks) break;
    const page = (await store.pendingEmbeddings(key, PAGE)).filter((p) => !seen.has(p.id));
    if (page.length === 0) break;
    for (const p of page) seen.add(p.id);
    const chunks = await store.getChunks(page.map((p) => p.id));
    // One embedding per distinct content hash; every chunk sharing it gets the vector.
    const byHash = new Map<string, StoredChunk[]>();
    for (const c of chunks) {
      const list = byHash.get(c.contentHash);
      if (list) list.push(c);
      else byHash.set(c.contentHash, [c]);
    }
    const hashes = [...byHash.keys()];
    const texts = hashes.map((h) => embeddingText(byHash.get(h)![0]));
    const vectors = await embedder.embed(texts, opts.signal);
    await store.putEmbeddings(
      key,
      hashes.map((hash, i) => ({ hash, vector: vectors.slice(i * dim, (i + 1) * dim) })),
    );
    if (deps.onVectors) {
      const ids: number[] = [];
      const out = new Float32Array(chunks.length * dim);
      let row = 0;
      hashes.forEach((h, i) => {
        for (const c of byHash.get(h)!) {
          ids.push(c.id);
          out.set(vectors.subarray(i * dim, (i + 1) * dim), row * dim);
          row++;
        }
      });
      await deps.onVectors(ids, out);
    }
    fresh += chunks.length;
    embedded += chunks.length;
    opts.onProgress?.(progress());
  }
  embedded = await store.embeddedCount(key);
  return { ...progress(), embedded, newlyEmbedded: fresh, ms: performance.now() - t0 };
}
