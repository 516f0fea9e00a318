/**
 * A model's files, wherever they live: a folder (CLI), the app's served `models/`, a folder
 * imported into OPFS, or the Hugging Face Hub behind a cache. Static (model2vec) models are
 * read through this; the transformer family still loads through Transformers.js, which has
 * its own file access.
 *
 * Invariants:
 * - `read(name)` returns the file's bytes, or null when the source has no such file (a 404,
 *   a missing path). Any other failure (network, permission, a damaged cache) throws.
 * - Names are relative paths inside the model folder ('config.json', 'onnx/model.onnx');
 *   an implementation refuses names that would leave the folder ('..', absolute paths).
 * - Nothing is requested from the Hub unless the source was built with the person's
 *   consent (ModelSource.allowRemote).
 */

export type ModelFamily = 'transformer' | 'static';

export interface ModelFiles {
  /** Where the files come from, for messages: a folder path or a URL prefix. */
  readonly where: string;
  read(name: string, onProgress?: (loaded: number, total: number) => void): Promise<Uint8Array | null>;
}

/** A relative name inside a model folder: no absolute path, no '..' segment, no backslash. */
export function isSafeModelFileName(name: string): boolean {
  return name.length > 0 && !name.startsWith('/') && !name.includes('\\') && !name.split('/').some((s) => s === '' || s === '.' || s === '..');
}

/**
 * The family an index's model key names: the static embedder writes `<id>@static-<dtype>/<n>`,
 * the transformer embedder `<id>@<dtype>/<n>` (embedder.ts, static-embedder.ts).
 */
export function familyOfKey(key: string): ModelFamily {
  return key.slice(key.lastIndexOf('@') + 1).startsWith('static-') ? 'static' : 'transformer';
}
