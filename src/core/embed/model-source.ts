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
