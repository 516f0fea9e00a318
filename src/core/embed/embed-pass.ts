/**
 * The embedding pass: stored chunks without a vector → the embedder → the vector cache
 * (and a live vector index when one is given). Runs after (or beside) lexical indexing,
 * so keyword search works while this catches up.
 *
 * Invariants:
 * - A chunk is never embedded twice for one model key: the cache is keyed by the chunk's
 *   content hash (sha256 of its embedding text) + model key, so identical chunks and
 *   renamed files reuse vectors.
 * - Source code is embedded before bulky data files (the store orders pending chunks), and
 *   chunks of vendored, generated, minified and test-data files after everything else
 *   (`embedTier`): they still get vectors, but the code a user wrote is searchable by
 *   meaning first.
 * - Cancelling keeps every batch already written.
 */
import type { PendingEmbedding } from '../store/store.ts';
import { embeddingText } from '../chunk/embedding-text.ts';

/**
 * Pending chunks per round trip, at first: each page's vectors are written (and searchable)
 * when it is done, so this bounds how long the first semantic results take to appear — 256
 * was ~55 s at the 4.6 chunks/s measured in Chromium on this machine; 64 is ~14 s.
 */
const PAGE = 64;
/**
 * A page that took less than PAGE_FAST_MS doubles the next one, up to PAGE_MAX: a static
 * model embeds 64 chunks in ~10 ms, and at 64 per page its store round trips (the pending
 * query, reading the chunks, one write transaction) cost more than the embedding.
 */
const PAGE_FAST_MS = 250;
const PAGE_MAX = 8192;

/**
 * Vendored / generated / test-data / lock and minified paths (zoekt's file categories,
 * plus testdata and fixtures, which are inputs rather than code anyone searches for).
 */
const LATER_PATH_RE = new RegExp(
  [
    String.raw`(^|/)(vendor|third_party|thirdparty|external|node_modules|bower_components|testdata|__snapshots__|__fixtures__)/`,
    String.raw`\.pb(\.gw)?\.go$`, String.raw`_pb2(_grpc)?\.py$`, String.raw`[._]generated\.[^/.]+$`, String.raw`\.gen\.[^/.]+$`,
    String.raw`(^|/)zz_generated[^/]*$`, String.raw`\.min\.[^/.]+$`, String.raw`\.(lock|snap|map)$`,
    String.raw`(^|/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|go\.sum)$`,
  ].join('|'),
  'i',
);
/** Go's and others' marker for generated files, in the first lines of the file. */
const GENERATED_MARK_RE = /(^|\n)\s*(\/\/|#|\/\*|--)\s*(Code generated .* DO NOT EDIT|@generated|auto-?generated|This file was automatically generated)/i;
/** A line this long reads as minified or data, not code a person wrote. */
const MINIFIED_LINE = 400;

/**
 * 0: embed first; 1: embed after every tier-0 chunk of the codebase. From the path, and
 * from the text when the store gives it (generated-file markers, minified lines).
 */
export function embedTier(path: string | undefined, text?: string): 0 | 1 {
  if (path && LATER_PATH_RE.test(path)) return 1;
  if (text !== undefined) {
    if (GENERATED_MARK_RE.test(text.slice(0, 600))) return 1;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      const end = nl < 0 ? text.length : nl;
      if (end - start > MINIFIED_LINE) return 1;
      if (nl < 0) break;
      start = nl + 1;
    }
  }
  return 0;
}

/** A chunk without a vector, with every field its embedding text is made of (Store.pendingEmbeddings). */
export type PendingChunk = Pick<PendingEmbedding, 'id' | 'contentHash' | 'path' | 'text' | 'language' | 'symbol' | 'parent' | 'signature' | 'context'>;

export interface EmbedStore {
  /**
   * Pending chunks in embedding order, each content hash once per page; `path` and `text`
   * also decide the tier. The pass reads nothing else about a chunk.
   */
  pendingEmbeddings(model: string, limit: number, afterId?: number): Promise<PendingChunk[]>;
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
  /** Chunks embedded in the late tier (vendored, generated, test data, minified). */
  deferred: number;
  /** Wall ms of each step, summed over pages: reading pending chunks, embedding, writing vectors, `onVectors`. */
  phases: { pending: number; embed: number; write: number; vectors: number };
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

  let deferred = 0;
  const phases = { pending: 0, embed: 0, write: 0, vectors: 0 };
  const embedPage = async (page: PendingChunk[]): Promise<void> => {
    let t = performance.now();
    const texts = page.map((p) => embeddingText({
      path: p.path, symbol: p.symbol, parent: p.parent, signature: p.signature, language: p.language, content: p.text, context: p.context,
    }));
    const vectors = await embedder.embed(texts, opts.signal);
    phases.embed += performance.now() - t;
    t = performance.now();
    await store.putEmbeddings(
      key,
      page.map((p, i) => ({ hash: p.contentHash, vector: vectors.slice(i * dim, (i + 1) * dim) })),
    );
    phases.write += performance.now() - t;
    if (deps.onVectors) {
      t = performance.now();
      await deps.onVectors(page.map((p) => p.id), vectors);
      phases.vectors += performance.now() - t;
    }
    fresh += page.length;
    embedded += page.length;
    opts.onProgress?.(progress());
  };

  // Tier 0 in one forward sweep (skipping tier 1), then a second sweep for tier 1. One page is
  // in flight while the next is read: an embedder on another thread (the app's worker, the
  // CLI's pool) embeds it meanwhile. Pages never overlap (keyset paging by id).
  let pageSize = PAGE;
  let scheduled = 0;
  let inFlight: Promise<void> | null = null;
  const settle = async (): Promise<void> => {
    const p = inFlight;
    inFlight = null;
    await p;
  };
  try {
    for (const tier of [0, 1] as const) {
      let after: number | undefined;
      for (;;) {
        if (opts.signal?.aborted) throw new DOMException('Embedding was cancelled', 'AbortError');
        if (opts.maxChunks !== undefined && scheduled >= opts.maxChunks) break;
        const started = performance.now();
        // (Growing pages overshoot maxChunks by less than PAGE, as fixed pages did.)
        const want = opts.maxChunks !== undefined ? Math.min(pageSize, Math.max(PAGE, opts.maxChunks - scheduled)) : pageSize;
        const page = await store.pendingEmbeddings(key, want, after);
        phases.pending += performance.now() - started;
        if (page.length === 0) break;
        after = page[page.length - 1]!.id;
        const mine = page.filter((p) => !seen.has(p.id) && embedTier(p.path, p.text) === tier);
        for (const p of mine) seen.add(p.id);
        if (mine.length === 0) continue;
        if (tier === 1) deferred += mine.length;
        await settle();
        scheduled += mine.length;
        inFlight = embedPage(mine);
        // Handled here so that a failure while the next page is read is not "unhandled"; settle() rethrows it.
        inFlight.catch(() => undefined);
        if (performance.now() - started < PAGE_FAST_MS && page.length === want) pageSize = Math.min(PAGE_MAX, pageSize * 2);
      }
      await settle();
    }
  } finally {
    // Never return (or throw) with a page still writing: the caller flushes writes after this.
    await inFlight?.catch(() => undefined);
  }
  embedded = await store.embeddedCount(key);
  return { ...progress(), embedded, newlyEmbedded: fresh, ms: performance.now() - t0, deferred, phases };
}
