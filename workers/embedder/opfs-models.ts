/**
 * Model folders imported by the user live in OPFS under `sift-models/<name>/`. Transformers.js
 * reads them through its custom-cache hook: a request for `<OPFS_MODEL_PATH><name>/<file>`
 * is answered from OPFS before any network or local fetch is tried; every other key (hub
 * downloads, served models) goes to the browser's Cache Storage, as Transformers.js would.
 *
 * Static (model2vec) models are read from OPFS directly (importedModelFiles).
 *
 * Invariants: a model name is one path segment of [\w.-]; only the files a model folder of
 * either family needs are copied (config/tokenizer JSON, vocab, onnx/*.onnx for a transformer;
 * config.json, tokenizer.json, model.safetensors for a static model); an import is written to
 * a temporary folder and renamed into place only when complete.
 */
import type { ImportedModel } from './api.ts';
import { isSafeModelFileName, type ModelFiles } from '../../src/core/embed/model-files.ts';
import { HUB_CACHE } from './model-files.ts';

export const MODELS_DIR = 'sift-models';
/** The localModelPath Transformers.js is given for OPFS models (never fetched). */
export const OPFS_MODEL_PATH = '/__sift_opfs_models__/';
const NAME_RE = /^[\w.-]{1,96}$/;
const WANTED = /^(config\.json|tokenizer\.json|tokenizer_config\.json|special_tokens_map\.json|vocab\.txt|generation_config\.json|model\.safetensors|onnx\/[\w.-]+\.onnx(_data)?)$/;

interface IterableDir {
  entries(): AsyncIterableIterator<[string, FileSystemHandle]>;
}

async function modelsRoot(): Promise<FileSystemDirectoryHandle> {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(MODELS_DIR, { create: true });
}

async function collect(dir: FileSystemDirectoryHandle, prefix: string, out: Array<{ path: string; file: FileSystemFileHandle }>): Promise<void> {
  for await (const [name, h] of (dir as unknown as IterableDir).entries()) {
    const path = prefix ? `${prefix}/${name}` : name;
    if (h.kind === 'directory') {
      if (!prefix && name === 'onnx') await collect(h as FileSystemDirectoryHandle, path, out);
    } else if (WANTED.test(path)) {
      out.push({ path, file: h as FileSystemFileHandle });
    }
  }
}

async function writeFile(dir: FileSystemDirectoryHandle, path: string, data: Blob): Promise<void> {
  const parts = path.split('/');
  let d = dir;
  for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create: true });
  const fh = await d.getFileHandle(parts[parts.length - 1], { create: true });
  // Sync access handles exist in dedicated workers in every browser that has OPFS;
  // createWritable does not (Safari). Copy in slices to keep memory flat.
  const access = await (fh as unknown as { createSyncAccessHandle(): Promise<FileSystemSyncAccessHandle> }).createSyncAccessHandle();
  try {
    access.truncate(0);
    const SLICE = 8 << 20;
    for (let off = 0; off < data.size; off += SLICE) {
      const buf = new Uint8Array(await data.slice(off, off + SLICE).arrayBuffer());
      access.write(buf, { at: off });
    }
    access.flush();
  } finally {
    access.close();
  }
}

export async function importModelFolder(handle: FileSystemDirectoryHandle): Promise<ImportedModel> {
  const name = handle.name;
  if (!NAME_RE.test(name)) throw new Error(`"${name}" is not a usable model folder name (letters, digits, . _ - only)`);
  const files: Array<{ path: string; file: FileSystemFileHandle }> = [];
  await collect(handle, '', files);
  const names = new Set(files.map((f) => f.path));
  if (!names.has('config.json') || !names.has('tokenizer.json') || !(names.has('model.safetensors') || [...names].some((n) => n.startsWith('onnx/')))) {
    throw new Error(`"${name}" is not a model folder: it needs config.json, tokenizer.json and either onnx/*.onnx (Transformers.js) or model.safetensors (model2vec)`);
  }
  const root = await modelsRoot();
  const tmpName = `.tmp-${name}-${Date.now()}`;
  const tmp = await root.getDirectoryHandle(tmpName, { create: true });
  let bytes = 0;
  try {
    for (const f of files) {
      const blob = await f.file.getFile();
      bytes += blob.size;
      await writeFile(tmp, f.path, blob);
    }
    await root.removeEntry(name, { recursive: true }).catch(() => undefined);
    // No directory rename in OPFS: copy the finished folder into place, then drop the temp.
    const dest = await root.getDirectoryHandle(name, { create: true });
    const done: Array<{ path: string; file: FileSystemFileHandle }> = [];
    await collect(tmp, '', done);
    for (const f of done) await writeFile(dest, f.path, await f.file.getFile());
  } finally {
    await root.removeEntry(tmpName, { recursive: true }).catch(() => undefined);
  }
  return { name, files: files.length, bytes };
}

export async function listImportedModels(): Promise<ImportedModel[]> {
  const root = await modelsRoot();
  const out: ImportedModel[] = [];
  for await (const [name, h] of (root as unknown as IterableDir).entries()) {
    if (h.kind !== 'directory' || name.startsWith('.tmp-')) continue;
    const files: Array<{ path: string; file: FileSystemFileHandle }> = [];
    await collect(h as FileSystemDirectoryHandle, '', files);
    let bytes = 0;
    for (const f of files) bytes += (await f.file.getFile()).size;
    out.push({ name, files: files.length, bytes });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export async function removeImportedModel(name: string): Promise<void> {
  if (!NAME_RE.test(name)) return;
  await (await modelsRoot()).removeEntry(name, { recursive: true }).catch(() => undefined);
}

/** A file of an imported model (`file` relative to its folder), or null when there is none. */
export async function readImportedFile(model: string, file: string): Promise<File | null> {
  const parts = [model, ...file.split('/')];
  if (parts.some((p) => !NAME_RE.test(p))) return null;
  try {
    let d = await modelsRoot();
    for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p);
    return await (await d.getFileHandle(parts[parts.length - 1]!)).getFile();
  } catch (e) {
    // No such folder or file (or a folder where a file was expected): the model lacks it.
    if ((e as { name?: string }).name === 'NotFoundError' || (e as { name?: string }).name === 'TypeMismatchError') return null;
    throw e;
  }
}

/** An imported model's files, for the static family's loader (ModelFiles). */
export function importedModelFiles(model: string): ModelFiles {
  return {
    where: `imported model ${model}`,
    async read(file, onProgress) {
      if (!isSafeModelFileName(file)) throw new Error(`"${file}" is not a file inside the model folder`);
      const f = await readImportedFile(model, file);
      if (!f) return null;
      const bytes = new Uint8Array(await f.arrayBuffer());
      onProgress?.(bytes.byteLength, bytes.byteLength);
      return bytes;
    },
  };
}

async function opfsFile(key: string): Promise<File | null> {
  const i = key.indexOf(OPFS_MODEL_PATH);
  if (i < 0) return null;
  const parts = key.slice(i + OPFS_MODEL_PATH.length).split('?')[0]!.split('/').filter(Boolean);
  if (parts.length < 2) return null;
  return readImportedFile(parts[0]!, parts.slice(1).join('/'));
}

/** Transformers.js CacheInterface: OPFS for imported models, Cache Storage for the rest. */
export const modelCache = {
  async match(key: string): Promise<Response | undefined> {
    const file = await opfsFile(key);
    if (file) return new Response(file, { headers: { 'content-length': String(file.size) } });
    if (key.includes(OPFS_MODEL_PATH) || typeof caches === 'undefined') return undefined;
    return (await caches.open(HUB_CACHE)).match(key);
  },
  async put(key: string, response: Response): Promise<void> {
    if (key.includes(OPFS_MODEL_PATH) || typeof caches === 'undefined') return;
    await (await caches.open(HUB_CACHE)).put(key, response);
  },
};
