/**
 * Contract of the embedder worker (types only). It owns the model session (Transformers.js
 * on ONNX Runtime Web), the copy of imported model folders in OPFS, and the embedding pass
 * (pending chunks → vectors), which writes through a port to the store worker.
 */
import type { CancelToken } from '../../src/core/cancel.ts';
import type { EmbedProgress, EmbedSummary } from '../../src/core/embed/embed-pass.ts';

/**
 * Where model files come from: `served` = the app's own `models/` folder, `opfs` = a folder
 * the user imported (copied into OPFS), `hub` = downloaded from the Hugging Face Hub and
 * cached by the browser (only when the user asked for it).
 */
export type ModelSourceKind = 'served' | 'opfs' | 'hub';

export interface ModelConfig {
  source: ModelSourceKind;
  /** e.g. `Xenova/all-MiniLM-L6-v2`, or the imported folder's name for `opfs`. */
  modelId: string;
  dtype?: 'fp32' | 'fp16' | 'q8';
  numThreads?: number;
}

export interface ModelInfo {
  modelId: string;
  device: string;
  dtype: string;
  dim: number;
  /** Cache key of the vectors this model produces (model id + dtype + …). */
  key: string;
  loadMs: number;
}

export type ModelLoadResult =
  | { ok: true; info: ModelInfo }
  | { ok: false; reason: 'missing' | 'unsupported' | 'failed'; message: string };

export interface ImportedModel {
  name: string;
  files: number;
  bytes: number;
}

export interface EmbedderWorkerApi {
  loadModel(cfg: ModelConfig, token: CancelToken): Promise<ModelLoadResult>;
  unloadModel(): Promise<void>;
  embedQuery(text: string): Promise<Float32Array>;
  /** Serves `embedQuery` on `port` (for the store worker's vector leg). */
  serveQueries(port: MessagePort): void;
  /** Embeds every pending chunk of the store behind `storePort` (a WriterPortApi port). */
  embedPending(storePort: MessagePort, token: CancelToken, onProgress: (p: EmbedProgress) => void): Promise<EmbedSummary>;
  /** Copies a model folder (config.json, tokenizer*.json, onnx/*.onnx) into OPFS. */
  importModelFolder(handle: FileSystemDirectoryHandle): Promise<ImportedModel>;
  listImportedModels(): Promise<ImportedModel[]>;
  removeImportedModel(name: string): Promise<void>;
  cancel(token: CancelToken): void;
}
