/**
 * The one order in which embedding work runs, for both families (transformer: one ONNX session
 * run at a time; static: one batch of table lookups at a time): a waiting query goes before
 * any waiting indexing batch, so a query waits at most for the batch already running.
 * Pure; no model code (the static embedder uses it without loading Transformers.js).
 */
/**
 * Serialises session runs with two priorities: a waiting query goes before any waiting
 * indexing batch. ONNX Runtime runs one inference per session at a time anyway; the gate
 * decides the order instead of arrival.
 */
export class SessionGate {
  #busy = false;
  readonly #queries: Array<() => void> = [];
  readonly #batches: Array<() => void> = [];

  async run<T>(priority: 'query' | 'batch', fn: () => Promise<T>): Promise<T> {
    // A session run can resolve without yielding to the event loop, so batch after batch
    // would chain on microtasks and a query's message (a macrotask) would wait for the whole
    // pass. Yielding one macrotask before each batch lets a waiting query in.
    if (priority === 'batch') await new Promise<void>((go) => setTimeout(go, 0));
    if (this.#busy) await new Promise<void>((go) => (priority === 'query' ? this.#queries : this.#batches).push(go));
    this.#busy = true;
    try {
      return await fn();
    } finally {
      const next = this.#queries.shift() ?? this.#batches.shift();
      if (next) next(); // hands the gate over without releasing it
      else this.#busy = false;
    }
  }
}
