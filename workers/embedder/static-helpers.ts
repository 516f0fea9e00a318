/**
 * A static model's embedding pass on more than one thread: each page is cut into contiguous
 * runs of about equal characters (splitByChars), the embedder worker embeds the first run on
 * its own model (through its SessionGate, so a query still goes first) and each helper worker
 * (static-helper.ts) one other run, with the same model files. The CLI's twin is
 * src/cli/embed-pool.ts (Node worker threads).
 *
 * Invariants:
 * - Vectors equal the embedder worker's alone: helpers load the same files, and a helper whose
 *   model key or dim differs is ended, never used.
 * - Helpers are used once loaded: until then (and after one fails) its runs are embedded on the
 *   embedder worker's thread, so a page never waits for a helper to start and never fails
 *   because one did.
 * - `dispose()` ends every helper (the embedder worker disposes when the pass ends).
 */
import type { TextEmbedder } from '../../src/core/embed/embed-pass.ts';
import { splitByChars } from '../../src/core/embed/split-by-chars.ts';

/** The part of `Worker` the helpers use. */
export interface HelperWorker {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((ev: MessageEvent) => unknown) | null;
  onerror: ((ev: ErrorEvent) => unknown) | null;
  onmessageerror: ((ev: MessageEvent) => unknown) | null;
  terminate(): void;
}

/**
 * Pending chunks from which a pass starts helpers: loading the model on a helper takes about
 * what embedding ~2,000 chunks does (reading the table and building the tokenizer again).
 */
export const HELPERS_FROM_CHUNKS = 4_000;

/** Embedding threads for a static pass: one per core, at most 4 (the embedder worker is one of them). */
export function staticHelperCount(cores: number): number {
  return Math.max(0, Math.min(Math.floor(cores), 4) - 1);
}

type Reply = { ready: true; key: string; dim: number } | { failed: string } | { id: number; vectors: Float32Array } | { id: number; error: string };

interface Helper {
  worker: HelperWorker;
  ready: boolean;
  lost: boolean;
  waiting: Map<number, { resolve: (v: Float32Array) => void; reject: (e: Error) => void }>;
}

export class StaticHelpers implements TextEmbedder {
  readonly #helpers: Helper[] = [];
  #nextId = 1;

  /**
   * Starts `count` helpers on `load` (the message a helper loads its model from) beside `main`,
   * the embedder worker's loaded model.
   */
  constructor(
    private readonly main: TextEmbedder,
    load: unknown,
    count: number,
    spawn: () => HelperWorker,
  ) {
    for (let i = 0; i < count; i++) {
      const h: Helper = { worker: spawn(), ready: false, lost: false, waiting: new Map() };
      this.#helpers.push(h);
      h.worker.onmessage = (ev: MessageEvent<Reply>) => {
        const m = ev.data;
        if ('ready' in m) {
          if (m.key === main.info.key && m.dim === main.info.dim) h.ready = true;
          else this.#lose(h, `loaded ${m.key} (${m.dim} dims), not ${main.info.key}`);
        } else if ('failed' in m) {
          this.#lose(h, m.failed);
        } else {
          const w = h.waiting.get(m.id);
          h.waiting.delete(m.id);
          if ('error' in m) w?.reject(new Error(m.error));
          else w?.resolve(m.vectors);
        }
      };
      h.worker.onerror = (ev) => this.#lose(h, ev.message || 'error event');
      h.worker.onmessageerror = () => this.#lose(h, 'a reply could not be deserialized');
      h.worker.postMessage({ load });
    }
  }

  get info() {
    return this.main.info;
  }

  /** Threads embedding now: the embedder worker's and each loaded helper's. */
  get threads(): number {
    return 1 + this.#helpers.filter((h) => h.ready && !h.lost).length;
  }

  #lose(h: Helper, why: string): void {
    if (h.lost) return;
    h.lost = true;
    h.ready = false;
    const e = new Error(`embedding helper: ${why}`);
    for (const w of h.waiting.values()) w.reject(e);
    h.waiting.clear();
    h.worker.terminate();
  }

  #run(h: Helper, texts: string[]): Promise<Float32Array> {
    return new Promise((resolve, reject) => {
      const id = this.#nextId++;
      h.waiting.set(id, { resolve, reject });
      h.worker.postMessage({ id, texts });
    });
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array> {
    const ready = this.#helpers.filter((h) => h.ready && !h.lost);
    if (!ready.length || texts.length < 2) return this.main.embed(texts, signal);
    const dim = this.main.info.dim;
    const starts = splitByChars(texts, ready.length + 1);
    const parts = starts.map((s, i) => {
      const run = texts.slice(s, starts[i + 1] ?? texts.length);
      if (i === 0) return this.main.embed(run, signal);
      // A helper that fails hands its run back to the embedder worker's thread.
      return this.#run(ready[i - 1]!, run).catch(() => this.main.embed(run, signal));
    });
    // Helpers' runs are posted before the first await: they embed while this thread does.
    const vectors = await Promise.all(parts);
    const out = new Float32Array(texts.length * dim);
    vectors.forEach((v, i) => out.set(v, starts[i]! * dim));
    return out;
  }

  dispose(): void {
    for (const h of this.#helpers) this.#lose(h, 'the pass ended');
  }
}
