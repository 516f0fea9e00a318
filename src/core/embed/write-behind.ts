/**
 * The embedding pass's vector writes, grouped into big transactions (the app's embedder worker
 * and `sift index`). On OPFS a transaction's
 * commit costs hundreds of milliseconds whatever it holds: with the pass's pages of 64
 * chunks, a static model spent 12.9 of 15.2 s of a 2,069-chunk pass in putEmbeddings
 * (bench/browser-semantic.ts --model static, 2026-11-28), against 1.2 s when 1,024 went
 * per commit. A transformer's pages take seconds to embed, so its commits never mattered.
 * In the CLI, transactions of up to 8,192 vectors rewrote pages all over the randomly keyed
 * embeddings table again and again (kernel subset: 43–70 s of writes in a 267k-chunk pass);
 * growing groups (4,096 doubling to 131,072) took 6.9 s.
 *
 * Invariants:
 * - Every vector handed to putEmbeddings is written before embeddedCount answers and before
 *   `flush()` resolves (the worker flushes when the pass ends, cancelled or not).
 * - Vectors reach the live vector index at once (the pass's onVectors, not this), so search
 *   by meaning sees them before they are on disk; a crash loses at most one group, which the
 *   next pass embeds again (pending = no stored vector).
 * - The pass pages by chunk id (pendingEmbeddings' afterId) and skips ids it has seen, so
 *   vectors not yet written are never asked for again in the same pass.
 */
import type { EmbedStore } from './embed-pass.ts';

/** Vectors per transaction, at first. */
export const WRITE_GROUP = 1024;

type Item = { hash: string; vector: Float32Array };

export class WriteBehindStore implements EmbedStore {
  #model: string | null = null;
  #items: Item[] = [];

  /**
   * `group`: vectors per transaction at first; each full group doubles the next, up to
   * `maxGroup` (default: `group`, fixed groups). The embeddings table is keyed by a random
   * hash, so a transaction rewrites (and journals) pages all over it: fewer, bigger ones write
   * far less in all, while the first groups still land within seconds.
   */
  constructor(
    private readonly store: EmbedStore,
    private group = WRITE_GROUP,
    private readonly maxGroup = group,
  ) {}

  pendingEmbeddings(model: string, limit: number, afterId?: number) {
    return this.store.pendingEmbeddings(model, limit, afterId);
  }

  chunkCount() {
    return this.store.chunkCount();
  }

  async embeddedCount(model: string) {
    await this.flush();
    return this.store.embeddedCount(model);
  }

  async putEmbeddings(model: string, items: Item[]): Promise<void> {
    if (this.#model !== null && this.#model !== model) await this.flush();
    this.#model = model;
    for (const it of items) this.#items.push(it);
    if (this.#items.length >= this.group) {
      await this.flush();
      this.group = Math.min(this.maxGroup, this.group * 2);
    }
  }

  /** Writes what is waiting, in one transaction. */
  async flush(): Promise<void> {
    if (!this.#items.length || this.#model === null) return;
    const items = this.#items;
    this.#items = [];
    await this.store.putEmbeddings(this.#model, items);
  }
}
