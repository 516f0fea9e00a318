/**
 * Embedding worker thread for the CLI's static-model pool (embed-pool.ts): loads the same
 * model folder as the main thread and embeds the texts it is sent with StaticEmbedder.embedNow,
 * so its vectors are the in-thread embedder's exactly.
 *
 * Protocol: `{ load: { dir, modelId } }` → `{ ready, key, dim }` or `{ failed }`; then
 * `{ id, texts }` → `{ id, vectors }` (the Float32Array's buffer transferred) or `{ id, error }`.
 */
import { parentPort } from 'node:worker_threads';
import { StaticEmbedder } from '../core/embed/static-embedder.ts';
import { folderModelFiles } from '../core/embed/model-files-node.ts';

const port = parentPort;
if (!port) throw new Error('embed-worker.ts must run in a worker thread');

let model: StaticEmbedder | null = null;

port.on('message', (m: { load: { dir: string; modelId: string } } | { id: number; texts: string[] }) => {
  if ('load' in m) {
    StaticEmbedder.load(folderModelFiles(m.load.dir), { modelId: m.load.modelId }).then(
      (loaded) => {
        model = loaded;
        port.postMessage({ ready: true, key: loaded.info.key, dim: loaded.info.dim });
      },
      (e: unknown) => port.postMessage({ failed: e instanceof Error ? e.message : String(e) }),
    );
    return;
  }
  try {
    if (!model) throw new Error('no model loaded');
    const vectors = model.embedNow(m.texts);
    port.postMessage({ id: m.id, vectors }, [vectors.buffer as ArrayBuffer]);
  } catch (e) {
    port.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
