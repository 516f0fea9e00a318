/**
 * How many threads embedding uses on a device: one rule for the embedder worker and for what
 * Settings says before any model is loaded. No model code here (the app's page imports it).
 */

/** ONNX Runtime's own ceiling for wasm threads; more rarely pays for a 6-layer model. */
export const EMBED_MAX_THREADS = 4;

/**
 * Threads for the wasm backend: one core is left to the page, the store and the indexer
 * (cores − 1, at most `cap`); 1 without cross-origin isolation (no SharedArrayBuffer).
 */
export function defaultNumThreads(cores: number, isolated: boolean, cap = EMBED_MAX_THREADS): number {
  if (!isolated) return 1;
  return Math.max(1, Math.min(Math.floor(cores) - 1, cap));
}
