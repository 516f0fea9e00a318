/**
 * The message loop of a thread that embeds with a static model beside another one: the CLI's
 * pool (src/cli/embed-worker.ts) and the app's helpers (workers/embedder/static-helper.ts). It
 * loads the same model files as the thread that started it and embeds the texts it is sent with
 * StaticEmbedder.embedNow, so its vectors are that thread's exactly.
 *
 * Protocol: `{ load: L }` → `{ ready, key, dim }` or `{ failed }`; then `{ id, texts }` →
 * `{ id, vectors }` (the Float32Array's buffer transferred) or `{ id, error }`.
 */
import type { ModelFiles } from './model-files.ts';
import { StaticEmbedder } from './static-embedder.ts';

export type StaticThreadRequest<L> = { load: L } | { id: number; texts: string[] };
type Post = (message: unknown, transfer?: ArrayBuffer[]) => void;

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** A handler for the thread's messages: `files` says where a load request's model is, `post` answers. */
export function staticThreadHandler<L extends { modelId: string }>(files: (load: L) => ModelFiles, post: Post): (m: StaticThreadRequest<L>) => void {
  let model: StaticEmbedder | null = null;
  return (m) => {
    if ('load' in m) {
      StaticEmbedder.load(files(m.load), { modelId: m.load.modelId }).then(
        (loaded) => {
          model = loaded;
          post({ ready: true, key: loaded.info.key, dim: loaded.info.dim });
        },
        (e: unknown) => post({ failed: messageOf(e) }),
      );
      return;
    }
    try {
      if (!model) throw new Error('no model loaded');
      const vectors = model.embedNow(m.texts);
      post({ id: m.id, vectors }, [vectors.buffer as ArrayBuffer]);
    } catch (e) {
      post({ id: m.id, error: messageOf(e) });
    }
  };
}
