/**
 * One way to load an embedding model of either family, used by the CLI and the worker:
 * the family is read from the model's files, never from its name.
 *
 * - transformer: config.json names an architecture (`hidden_size`, `architectures`, a
 *   `model_type` other than model2vec); Transformers.js loads it with its own file access
 *   (EmbedderOptions), imported only then.
 * - static (model2vec): config.json has none of those (potion-code-16M's is just
 *   { normalize, embedding_dtype, vocabulary_quantization }; older ones say
 *   model_type "model2vec" and hidden_dim) and model.safetensors is there.
 */
import type { EmbedderOptions, LoadProgress, SiftEmbedder } from './embedder.ts';
import type { ModelFamily, ModelFiles } from './model-files.ts';
import { byteTotals, StaticEmbedder, type StaticEmbedderOptions } from './static-embedder.ts';

export interface LoadEmbedderOptions {
  /** The model's files (folder, app, OPFS or Hub): read for config.json and, when static, the rest. */
  files: ModelFiles;
  /** The name recorded in `info` and the index (a folder's name or a Hub id). */
  modelId: string;
  /** How Transformers.js finds the same model when it is a transformer. */
  transformer: Omit<EmbedderOptions, 'modelId' | 'onProgress'>;
  /** Static-family settings (maxTokens, batchSize). */
  static?: Omit<StaticEmbedderOptions, 'modelId' | 'onProgress'>;
  onProgress?: (p: LoadProgress) => void;
}

export interface DetectedFamily {
  family: ModelFamily;
  config: Record<string, unknown>;
  /** The static model's table file, read while detecting (so it is read once). */
  safetensors?: Uint8Array;
}

/** What config.json says about the family: 'transformer', or 'static?' when only the files can tell. */
export function familyFromConfig(config: Record<string, unknown>): 'transformer' | 'static?' {
  if (typeof config.hidden_size === 'number' || Array.isArray(config.architectures)) return 'transformer';
  if (typeof config.model_type === 'string' && config.model_type !== 'model2vec') return 'transformer';
  return 'static?';
}

export async function detectModelFamily(files: ModelFiles, onBytes?: (file: string, loaded: number, total: number) => void): Promise<DetectedFamily> {
  const bytes = await files.read('config.json', onBytes && ((l, t) => onBytes('config.json', l, t)));
  if (!bytes) throw new Error(`${files.where}: config.json is missing (not a model folder)`);
  let config: unknown;
  try {
    config = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new Error(`${files.where}: config.json is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new Error(`${files.where}: config.json is not an object`);
  const c = config as Record<string, unknown>;
  if (familyFromConfig(c) === 'transformer') return { family: 'transformer', config: c };
  const safetensors = await files.read('model.safetensors', onBytes && ((l, t) => onBytes('model.safetensors', l, t)));
  return safetensors ? { family: 'static', config: c, safetensors } : { family: 'transformer', config: c };
}

export async function loadEmbedder(o: LoadEmbedderOptions): Promise<SiftEmbedder> {
  const report = o.onProgress ? byteTotals(o.onProgress) : undefined;
  const found = await detectModelFamily(o.files, report);
  if (found.family === 'static') {
    return StaticEmbedder.load(o.files, {
      ...o.static,
      modelId: o.modelId,
      safetensors: found.safetensors,
      onBytes: report,
    });
  }
  // Transformers.js (and onnxruntime) load only for this family.
  const { Embedder } = await import('./embedder.ts');
  return Embedder.load({ ...o.transformer, modelId: o.modelId, onProgress: o.onProgress });
}
