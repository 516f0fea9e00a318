/**
 * A static-model helper of the embedder worker (static-helpers.ts): loads the same model
 * files as the embedder worker and embeds the texts it is sent with StaticEmbedder.embedNow,
 * so its vectors are the embedder worker's exactly. No queries come here (they stay on the
 * embedder worker's model, ahead of its batches).
 *
 * Protocol: `{ load: ModelConfig }` → `{ ready, key, dim }` or `{ failed }`; then
 * `{ id, texts }` → `{ id, vectors }` (the Float32Array's buffer transferred) or `{ id, error }`.
 */
import type { ModelConfig } from './api.ts';
import { StaticEmbedder } from '../../src/core/embed/static-embedder.ts';
import { modelFilesFor } from './config-files.ts';

let model: StaticEmbedder | null = null;

self.onmessage = (ev: MessageEvent<{ load: ModelConfig } | { id: number; texts: string[] }>) => {
  const m = ev.data;
  if ('load' in m) {
    StaticEmbedder.load(modelFilesFor(m.load), { modelId: m.load.modelId }).then(
      (loaded) => {
        model = loaded;
        self.postMessage({ ready: true, key: loaded.info.key, dim: loaded.info.dim });
      },
      (e: unknown) => self.postMessage({ failed: e instanceof Error ? e.message : String(e) }),
    );
    return;
  }
  try {
    if (!model) throw new Error('no model loaded');
    const vectors = model.embedNow(m.texts);
    self.postMessage({ id: m.id, vectors }, [vectors.buffer as ArrayBuffer]);
  } catch (e) {
    self.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
};
