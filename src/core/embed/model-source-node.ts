/**
 * Node-only model resolution for the CLI:
 *   1. `--model DIR` (an existing folder with config.json) → that folder, offline;
 *   2. `~/.sift/models/<id>/` when it holds the model → offline;
 *   3. otherwise the hub (only if remote is allowed), downloading into ~/.sift/models so
 *      the next run takes branch 2.
 * Expected conditions are values: a missing offline model is `{ ok: false, reason }`.
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_MODEL_ID } from '../config.ts';
import { isHubId, looksLikePath, splitModelDir, type ModelSource } from './model-source.ts';

export const SIFT_MODELS_DIR = join('.sift', 'models');

export type ResolvedModel = { ok: true; source: ModelSource } | { ok: false; reason: string };

export interface ResolveModelOptions {
  /** The `--model` value: a folder or a hub id (default DEFAULT_MODEL_ID). */
  model?: string;
  /** Permit hub downloads when the model is not on disk. */
  allowRemote?: boolean;
  /** Override for ~ (tests). */
  home?: string;
  /** Base for relative folders (default process.cwd()). */
  cwd?: string;
  /** Where downloaded/installed models live (default ~/.sift/models; the CLI passes $SIFT_HOME/models). */
  modelsDir?: string;
}

async function isModelDir(dir: string): Promise<boolean> {
  try {
    return (await stat(join(dir, 'config.json'))).isFile();
  } catch {
    return false;
  }
}

/**
 * A downloaded model is complete: its config, tokenizer and weights (model.safetensors for a
 * static model, onnx/ for a transformer) are there. A download cut after config.json is
 * fetched again (when downloads are allowed) instead of failing offline.
 */
async function isCompleteModelDir(dir: string): Promise<boolean> {
  if (!(await isModelDir(dir))) return false;
  const has = async (name: string) => stat(join(dir, name)).then(() => true, () => false);
  return (await has('tokenizer.json')) && ((await has('model.safetensors')) || (await has('onnx')));
}

export function userModelsDir(home = homedir()): string {
  return join(home, SIFT_MODELS_DIR);
}

export async function resolveModelSource(opts: ResolveModelOptions = {}): Promise<ResolvedModel> {
  const spec = opts.model ?? DEFAULT_MODEL_ID;
  const home = opts.home ?? homedir();
  const expanded = spec.startsWith('~/') ? join(home, spec.slice(2)) : spec;
  const asDir = resolve(opts.cwd ?? process.cwd(), expanded);

  if (looksLikePath(spec) || (await isModelDir(asDir))) {
    if (!(await isModelDir(asDir))) return { ok: false, reason: `${asDir}: no model folder (config.json missing)` };
    const split = splitModelDir(asDir);
    if (!split) return { ok: false, reason: `${asDir}: folder name must be a plain name (letters, digits, - _ .)` };
    return { ok: true, source: { origin: 'local-dir', ...split, allowRemote: false } };
  }

  if (!isHubId(spec)) return { ok: false, reason: `${spec}: neither a model folder nor a hub id` };
  const models = opts.modelsDir ?? userModelsDir(home);
  if (await isCompleteModelDir(join(models, spec))) {
    return { ok: true, source: { origin: 'user-cache', modelId: spec, localModelPath: models, allowRemote: false } };
  }
  if (!opts.allowRemote) {
    return { ok: false, reason: `${spec} is not in ${models} and downloads are off (pass --model DIR or allow downloads)` };
  }
  return { ok: true, source: { origin: 'hub', modelId: spec, localModelPath: models, allowRemote: true, cacheDir: models } };
}
