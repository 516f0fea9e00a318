/**
 * Contract of the embedder worker (types only). It owns the model session (Transformers.js
 * on ONNX Runtime Web), the copy of imported model folders in OPFS, and the embedding pass
 * (pending chunks → vectors), which writes through a port to the store worker.
 */
import type { CancelToken } from '../../src/core/cancel.ts';
import type { EmbedProgress, EmbedSummary } from '../../src/core/embed/embed-pass.ts';
import type { LoadProgress } from '../../src/core/embed/embedder.ts';
import type { ModelFamily } from '../../src/core/embed/model-files.ts';

export type { LoadProgress };

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
  /** `served`: the files the build's manifest lists for it (nothing else is requested). */
  files?: string[];
  dtype?: 'fp32' | 'fp16' | 'q8';
  /** Default: min(cores − 1, 4) when cross-origin isolated, else 1. */
  numThreads?: number;
  /** Default 'auto': WebGPU when the browser has an adapter, else wasm. */
  device?: 'auto' | 'wasm' | 'webgpu';
}

export interface ModelInfo {
  modelId: string;
  /** Found from the model's files: a transformer (Transformers.js) or a static (model2vec) table. */
  family: ModelFamily;
  device: string;
  dtype: string;
  dim: number;
  /** Cache key of the vectors this model produces (model id + dtype + …). */
  key: string;
  loadMs: number;
  /** wasm threads in use (1 unless cross-origin isolated); 0 on WebGPU. */
  threads: number;
  /** Why WebGPU is not used, when it is not (no navigator.gpu, no adapter, …). */
  webgpu: string;
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
  /** `onProgress` reports bytes read (Hub downloads and cache reads). */
  loadModel(cfg: ModelConfig, token: CancelToken, onProgress?: (p: LoadProgress) => void): Promise<ModelLoadResult>;
  unloadModel(): Promise<void>;
  embedQuery(text: string): Promise<Float32Array>;
  /** Serves `embedQuery` on `port` (for the store worker's vector leg). */
  serveQueries(port: MessagePort): void;
  /**
   * Embeds every pending chunk of the store behind `storePort` (a WriterPortApi port); `threads`:
   * how many threads embedded at the end (a static model's big pass runs on helpers too).
   */
  embedPending(storePort: MessagePort, token: CancelToken, onProgress: (p: EmbedProgress) => void): Promise<EmbedSummary & { threads: number }>;
  /** Copies a model folder (config.json, tokenizer*.json, onnx/*.onnx or model.safetensors) into OPFS. */
  importModelFolder(handle: FileSystemDirectoryHandle): Promise<ImportedModel>;
  listImportedModels(): Promise<ImportedModel[]>;
  removeImportedModel(name: string): Promise<void>;
  cancel(token: CancelToken): void;
}
