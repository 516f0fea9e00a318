/**
 * The CLI's static-model embedding threads: a page of texts is cut into one contiguous part per
 * thread (by characters, so the parts take about as long) and each thread embeds its part with
 * the same model folder (embed-worker.ts), while the main thread reads the next page and writes
 * vectors (the embedding pass keeps one page in flight). A static model needs no more than its
 * table per thread; a transformer keeps its own threads (onnxruntime) and never comes here.
 *
 * Invariants:
 * - Vectors equal the in-thread StaticEmbedder's: every thread loads the same files, and the
 *   pool refuses to start unless each thread's model key and dim are the main thread's.
 * - A thread that dies or fails fails the page it held (the pass stops; what it wrote stays) and
 *   the pool; `dispose()` ends every thread.
 */
import { Worker } from 'node:worker_threads';
import type { TextEmbedder } from '../core/embed/embed-pass.ts';
import { cliWorkerEntry, workerBootstrap } from './chunk-pool.ts';
import { trace } from './trace.ts';
import { splitByChars } from '../core/embed/split-by-chars.ts';

export { splitByChars };

type Reply = { ready: true; key: string; dim: number } | { failed: string } | { id: number; vectors: Float32Array } | { id: number; error: string };

interface Thread {
  worker: Worker;
  /** Requests waiting for this thread's reply, by id. */
  waiting: Map<number, { resolve: (v: Float32Array) => void; reject: (e: Error) => void }>;
}

export interface EmbedPool extends TextEmbedder {
  readonly size: number;
  dispose(): Promise<void>;
}

/**
 * Start `size` threads on the static model in `dir` and wait until each has loaded it; throws
 * (after ending them) when one fails or its model differs from `info`.
 */
export async function startEmbedPool(o: { dir: string; modelId: string; info: { key: string; dim: number }; size: number; bootstrap?: string }): Promise<EmbedPool> {
  const bootstrap = o.bootstrap ?? workerBootstrap(cliWorkerEntry('embed-worker'));
  const threads: Thread[] = [];
  let broken: Error | null = null;
  let nextId = 1;
  const fail = (t: Thread, why: string): void => {
    broken ??= new Error(`embedding thread ${t.worker.threadId}: ${why}`);
    for (const w of t.waiting.values()) w.reject(broken);
    t.waiting.clear();
  };
  const ready = Array.from({ length: Math.max(1, o.size) }, () => {
    const t: Thread = { worker: new Worker(bootstrap, { eval: true }), waiting: new Map() };
    threads.push(t);
    return new Promise<void>((resolve, reject) => {
      t.worker.on('message', (m: Reply) => {
        if ('ready' in m) {
          if (m.key !== o.info.key || m.dim !== o.info.dim) reject(new Error(`embedding thread loaded ${m.key} (${m.dim} dims), not ${o.info.key} (${o.info.dim})`));
          else resolve();
        } else if ('failed' in m) {
          reject(new Error(`embedding thread failed to start: ${m.failed}`));
        } else {
          const w = t.waiting.get(m.id);
          t.waiting.delete(m.id);
          if ('error' in m) w?.reject(new Error(m.error));
          else w?.resolve(m.vectors);
        }
      });
      const lost = (why: string): void => {
        reject(new Error(why));
        fail(t, why);
      };
      t.worker.on('error', (e: Error) => lost(e.message));
      t.worker.on('exit', (code: number) => lost(`exit code ${code}`));
      t.worker.on('messageerror', () => lost('a reply could not be deserialized'));
      t.worker.postMessage({ load: { dir: o.dir, modelId: o.modelId } });
    });
  });
  const dispose = async (): Promise<void> => {
    broken ??= new Error('the embedding pool was closed');
    await Promise.all(threads.map((t) => {
      t.worker.removeAllListeners('exit');
      return t.worker.terminate();
    }));
  };
  try {
    await Promise.all(ready);
  } catch (e) {
    await dispose();
    throw e;
  }
  trace(`embedding threads ready: ${threads.length}`);

  const run = (t: Thread, texts: string[]): Promise<Float32Array> => new Promise((resolve, reject) => {
    if (broken) return reject(broken);
    const id = nextId++;
    t.waiting.set(id, { resolve, reject });
    t.worker.postMessage({ id, texts });
  });

  return {
    info: o.info,
    size: threads.length,
    async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array> {
      if (signal?.aborted) throw signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
      const dim = o.info.dim;
      const starts = splitByChars(texts, threads.length);
      const parts = await Promise.all(starts.map((s, i) => run(threads[i]!, texts.slice(s, starts[i + 1] ?? texts.length))));
      const out = new Float32Array(texts.length * dim);
      parts.forEach((v, i) => out.set(v, starts[i]! * dim));
      if (signal?.aborted) throw signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
      return out;
    },
    dispose,
  };
}
