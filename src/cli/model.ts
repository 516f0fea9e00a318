/**
 * Which embedding model the CLI uses, in order: `--model DIR` (a Transformers.js folder:
 * config.json, tokenizer.json, onnx/model*.onnx), then ~/.sift/models/all-MiniLM-L6-v2,
 * then the Hugging Face Hub (cached under ~/.sift/models/hub). The choice is recorded in
 * the index (meta `model_source`) so `sift search` embeds queries with the same model.
 * No model → a value saying why, never an exception: search then runs keyword-only.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Embedder } from '../lib/embed/embedder.ts';
import { DEFAULT_MODEL_ID } from '../lib/config.ts';
import { siftHome } from './context.ts';

/** Give up on the hub quickly when offline instead of hanging the CLI. */
const HUB_TIMEOUT_MS = 20_000;

interface MetaStore {
  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
}

type ModelSource = { kind: 'dir'; path: string } | { kind: 'hub'; id: string };

export interface ModelChoice {
  embedder: Embedder;
  source: ModelSource;
}

function dtypeFor(dir: string): 'q8' | 'fp32' {
  return existsSync(join(dir, 'onnx', 'model_quantized.onnx')) ? 'q8' : 'fp32';
}

async function load(source: ModelSource): Promise<Embedder> {
  if (source.kind === 'dir') {
    if (!existsSync(join(source.path, 'config.json'))) throw new Error(`${source.path} is not a model folder (no config.json)`);
    return Embedder.load({
      modelId: basename(source.path),
      localModelPath: dirname(source.path),
      allowRemote: false,
      device: 'cpu',
      dtype: dtypeFor(source.path),
    });
  }
  const loading = Embedder.load({ modelId: source.id, allowRemote: true, device: 'cpu', dtype: 'q8', cacheDir: join(siftHome(), 'models', 'hub') });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`could not reach the Hugging Face Hub within ${HUB_TIMEOUT_MS / 1000}s`)), HUB_TIMEOUT_MS);
  });
  try {
    return await Promise.race([loading, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function candidates(modelDir?: string): ModelSource[] {
  if (modelDir) return [{ kind: 'dir', path: resolve(modelDir) }];
  const local = join(siftHome(), 'models', 'all-MiniLM-L6-v2');
  const out: ModelSource[] = [];
  if (existsSync(join(local, 'config.json'))) out.push({ kind: 'dir', path: local });
  if (process.env.SIFT_OFFLINE !== '1') out.push({ kind: 'hub', id: DEFAULT_MODEL_ID });
  return out;
}

/** For `sift index`: pick and load a model, and record it in the index. */
export async function loadCliEmbedder(o: { modelDir?: string; store: MetaStore }): Promise<ModelChoice | { unavailable: string }> {
  const reasons: string[] = [];
  const recorded = await o.store.getMeta('model_source');
  const tried = o.modelDir ? candidates(o.modelDir) : recorded ? [JSON.parse(recorded) as ModelSource, ...candidates()] : candidates();
  for (const source of tried) {
    try {
      const embedder = await load(source);
      await o.store.setMeta('model_source', JSON.stringify(source));
      await o.store.setMeta('model_key', embedder.info.key);
      return { embedder, source };
    } catch (e) {
      reasons.push(`${source.kind === 'dir' ? source.path : source.id}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { unavailable: reasons.length ? reasons.join('; ') : 'no model folder given and none in ~/.sift/models' };
}

/** For `sift search`: the model the index was built with (or an override). */
export async function loadSearchEmbedder(o: { modelDir?: string; store: MetaStore }): Promise<ModelChoice | { unavailable: string }> {
  const recorded = await o.store.getMeta('model_source');
  if (!o.modelDir && !recorded) return { unavailable: 'the index has no embeddings' };
  const source: ModelSource = o.modelDir ? { kind: 'dir', path: resolve(o.modelDir) } : (JSON.parse(recorded!) as ModelSource);
  try {
    return { embedder: await load(source), source };
  } catch (e) {
    return { unavailable: e instanceof Error ? e.message : String(e) };
  }
}
