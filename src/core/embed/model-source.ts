/**
 * Where a model comes from, as plain data the Embedder can load. Pure: runs in the
 * browser and in Node; filesystem probing lives in model-source-node.ts.
 *
 * Transformers.js loads `<localModelPath>/<modelId>/…` when modelId is a valid hub id
 * (`name` or `owner/name`), so a local folder is split into its parent and its base name;
 * the base name then becomes the model's id in `EmbedderInfo.key`.
 */
import { DEFAULT_MODEL_ID } from '../config.ts';
import type { EmbedderOptions } from './embedder.ts';

/** The hub's repo-id rule, as Transformers.js checks it (REPO_ID_REGEX). */
const REPO_ID = /^(\b[\w\-.]+\b\/)?\b[\w\-.]{1,96}\b$/;
/** URL path the web app serves models from (see STACK-FACTS: a path, not a URL). */
export const BROWSER_MODEL_PATH = '/models/';

export type ModelOrigin = 'local-dir' | 'user-cache' | 'hub' | 'served';

export interface ModelSource {
  origin: ModelOrigin;
  modelId: string;
  localModelPath: string;
  allowRemote: boolean;
  /** Node: where hub downloads are written. */
  cacheDir?: string;
}

export function isHubId(id: string): boolean {
  return REPO_ID.test(id) && !id.includes('..') && !id.includes('--');
}

/** True when a `--model` value names a folder rather than a hub id. */
export function looksLikePath(spec: string): boolean {
  return /^(\.{1,2}|~)?[/\\]/.test(spec) || /^[A-Za-z]:[/\\]/.test(spec) || spec === '.' || spec === '..' ||
    spec.split(/[/\\]/).length > 2 || !isHubId(spec);
}

/** '/a/b/tiny/' → { localModelPath: '/a/b/', modelId: 'tiny' }; null when the base name is no valid id. */
export function splitModelDir(dir: string): { localModelPath: string; modelId: string } | null {
  const trimmed = dir.replace(/[/\\]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  const modelId = trimmed.slice(cut + 1);
  if (!modelId || !isHubId(modelId) || modelId.includes('/')) return null;
  return { localModelPath: cut >= 0 ? trimmed.slice(0, cut + 1) : './', modelId };
}

/** Browser: models are served by the app under BROWSER_MODEL_PATH; the hub only when allowed. */
export function browserModelSource(modelId = DEFAULT_MODEL_ID, allowRemote = false): ModelSource {
  return { origin: 'served', modelId, localModelPath: BROWSER_MODEL_PATH, allowRemote };
}

/** The Embedder options a source stands for (device, dtype, … are added by the caller). */
export function sourceOptions(source: ModelSource): Pick<EmbedderOptions, 'modelId' | 'localModelPath' | 'allowRemote' | 'cacheDir'> {
  return {
    modelId: source.modelId,
    localModelPath: source.localModelPath,
    allowRemote: source.allowRemote,
    ...(source.cacheDir !== undefined ? { cacheDir: source.cacheDir } : {}),
  };
}

/**
 * The build writes this file next to index.html (vite-plugins/sift-pwa.ts), always, listing
 * the models it bundled under `models/`. The app reads it instead of probing `models/…`
 * paths, so a deploy without a bundled model makes no request that 404s.
 */
export const BUNDLED_MODELS_FILE = 'sift-models.json';

export interface BundledModel {
  /** Path under `models/`, e.g. 'Xenova/all-MiniLM-L6-v2'. */
  id: string;
  /** Files under `models/<id>/`, e.g. ['config.json', 'onnx/model_quantized.onnx']. */
  files: string[];
  bytes: number;
}

/** The manifest's models; anything malformed is dropped (a missing model is keyword search, not an error). */
export function parseBundledModels(json: unknown): BundledModel[] {
  const models = (json as { models?: unknown } | null)?.models;
  if (!Array.isArray(models)) return [];
  return models.filter(
    (m): m is BundledModel =>
      typeof m === 'object' && m !== null && typeof (m as BundledModel).id === 'string' && isHubId((m as BundledModel).id) &&
      Array.isArray((m as BundledModel).files) && typeof (m as BundledModel).bytes === 'number',
  );
}

/**
 * `SIFT_BUNDLE_MODEL` values: `DIR` or `ID=DIR`, several separated by commas. Without an
 * id, the folder's last two path segments name it when they form a hub id
 * (`…/Xenova/all-MiniLM-L6-v2` → 'Xenova/all-MiniLM-L6-v2'), else its base name.
 */
export function parseBundleSpec(spec: string): Array<{ id: string; dir: string }> {
  const out: Array<{ id: string; dir: string }> = [];
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq > 0) {
      const id = part.slice(0, eq);
      if (!isHubId(id)) throw new Error(`SIFT_BUNDLE_MODEL: "${id}" is not a valid model id`);
      out.push({ id, dir: part.slice(eq + 1) });
      continue;
    }
    const segs = part.replace(/[/\\]+$/, '').split(/[/\\]/).filter(Boolean);
    const two = segs.slice(-2).join('/');
    const id = segs.length >= 2 && isHubId(two) ? two : (segs[segs.length - 1] ?? '');
    if (!isHubId(id)) throw new Error(`SIFT_BUNDLE_MODEL: cannot name a model after "${part}"; write ID=DIR`);
    out.push({ id, dir: part });
  }
  return out;
}
