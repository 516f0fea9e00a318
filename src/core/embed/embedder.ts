/**
 * The embedder: chunk text → L2-normalised sentence vectors (mean pooling over
 * last_hidden_state, as sentence-transformers does for all-MiniLM-L6-v2). Runs the same
 * in a browser worker (onnxruntime-web: wasm / webgpu) and in Node (onnxruntime-node).
 *
 * Invariants:
 * - `embed(texts)` returns texts.length × info.dim floats, row-major, in input order;
 *   every row has unit L2 norm (or is all zeros for a model that outputs zeros).
 * - A text is tokenised once, truncated to `maxTokens` including [CLS]/[SEP], and its
 *   vector does not depend on which other texts share its batch (padding is masked).
 * - `info.key` names everything that changes a vector (model, dtype, maxTokens): the
 *   index records it and re-embeds when it changes. The per-chunk cache key is
 *   contentHashOf(chunk) (a prefix of sha256(embeddingText(chunk))).
 * - All Transformers.js global settings are written in `configureEnv`, nowhere else.
 * - One session run at a time, and a waiting query runs before the next indexing batch
 *   (`SessionGate`): a query waits at most for the batch already running.
 */
import { AutoModel, AutoTokenizer, Tensor, env } from '@huggingface/transformers';
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { EMBED_BATCH_SIZE, EMBED_MAX_TOKENS, HUB_URL } from '../config.ts';
import { SessionGate } from './session-gate.ts';
import type { ModelFamily } from './model-files.ts';

export { SessionGate };

// The embedding text lives in its own module so the indexer (and its workers) can compute
// content hashes without loading Transformers.js.
export { embeddingText, type EmbeddingSource } from '../chunk/embedding-text.ts';

export type EmbedDevice = 'webgpu' | 'wasm' | 'cpu' | 'auto';
export type EmbedDtype = 'fp32' | 'q8' | 'fp16' | 'auto';

export interface EmbedderOptions {
  /** Hub id like 'Xenova/all-MiniLM-L6-v2', or a folder name under localModelPath. */
  modelId: string;
  /** Folder (Node) or URL path (browser, e.g. '/models/') holding `<modelId>/`. */
  localModelPath?: string;
  /** Allow downloads from the Hugging Face hub (default false: nothing leaves the machine). */
  allowRemote?: boolean;
  /**
   * Look under localModelPath first (default true). False for a hub model in the browser:
   * the app's own origin has no copy, and asking for one is a request that 404s.
   */
  allowLocal?: boolean;
  /** Download/load progress (Transformers.js progress events, reduced to bytes per file). */
  onProgress?: (p: LoadProgress) => void;
  /** Node only: where hub downloads are kept (Transformers.js file cache). */
  cacheDir?: string;
  device?: EmbedDevice;
  dtype?: EmbedDtype;
  /** wasm: env threads (needs cross-origin isolation); Node: ORT intra-op threads. */
  numThreads?: number;
  maxTokens?: number;
  batchSize?: number;
  /** The Hub's address (default Transformers.js' https://huggingface.co/); tests point it at a local server. */
  remoteHost?: string;
  /** Browser: where the app serves onnxruntime-web's .mjs and .wasm (offline use). */
  wasmPaths?: { mjs: string; wasm: string };
}

export interface LoadProgress {
  /** File being fetched (e.g. 'onnx/model_quantized.onnx'). */
  file: string;
  /** Bytes read of all files seen so far, and their announced total. */
  loaded: number;
  total: number;
}

export interface EmbedderInfo {
  modelId: string;
  device: string;
  dtype: string;
  dim: number;
  maxTokens: number;
  /** modelId + dtype + maxTokens (+ family): recorded in the index; a change re-embeds. */
  key: string;
  /** 'transformer' (this class) or 'static' (static-embedder.ts). */
  family: ModelFamily;
}

/**
 * What every embedder offers, whatever its family: the CLI, the worker and the embedding pass
 * use this, and load one through load-embedder.ts.
 */
export interface SiftEmbedder {
  readonly info: EmbedderInfo;
  /** Tokens per text before truncation (count > maxTokens ⇒ truncated). */
  countTokens(texts: string[]): number[];
  /** texts.length × dim floats, row-major, in input order; batches wait behind waiting queries. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array>;
  /** A query's vector: runs before any indexing batch still waiting. */
  embedQuery(text: string): Promise<Float32Array>;
  dispose(): Promise<void>;
}

/** The fields of a chunk that go into its embedding text. */

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/** Resolves 'auto': WebGPU when an adapter exists, else wasm in the browser, cpu in Node. */
async function resolveDevice(device: EmbedDevice): Promise<Exclude<EmbedDevice, 'auto'>> {
  if (device !== 'auto') return device;
  if (isNode) return 'cpu';
  const gpu = (globalThis.navigator as (Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }) | undefined)?.gpu;
  if (gpu) {
    try {
      if (await gpu.requestAdapter()) return 'webgpu';
    } catch {
      // No adapter (headless, blocklisted GPU): fall through to wasm.
    }
  }
  return 'wasm';
}

/** Resolves 'auto' the way Transformers.js does (q8 on wasm, fp32 elsewhere), so info is exact. */
function resolveDtype(dtype: EmbedDtype, device: Exclude<EmbedDevice, 'auto'>): Exclude<EmbedDtype, 'auto'> {
  if (dtype !== 'auto') return dtype;
  return device === 'wasm' ? 'q8' : 'fp32';
}

/**
 * The one place that writes Transformers.js' global `env`. It is process-wide, so it is
 * set right before each load; loads of different sources must not run concurrently.
 */
function configureEnv(opts: EmbedderOptions): void {
  // Local folders are the default source: the app serves /models/, the CLI passes a dir.
  env.allowLocalModels = opts.allowLocal ?? true;
  // A path, not a URL: with an http URL the browser tokenizer silently fails to load.
  if (opts.localModelPath !== undefined) env.localModelPath = opts.localModelPath;
  // Private by default: no request leaves the machine unless the caller opts in.
  env.allowRemoteModels = opts.allowRemote ?? false;
  // Node: hub downloads land here (laid out as <cacheDir>/<modelId>/…, so it can double
  // as a localModelPath on the next run).
  if (opts.cacheDir !== undefined) env.cacheDir = opts.cacheDir;
  const host = opts.remoteHost ?? HUB_URL;
  env.remoteHost = host.endsWith('/') ? host : `${host}/`;
  // Transformers.js otherwise re-imports ORT's .mjs from a blob: URL, which the app's
  // Content-Security-Policy (script-src 'self') refuses: "no available backend found".
  (env as { useWasmCache?: boolean }).useWasmCache = false;
  const wasm = env.backends.onnx.wasm;
  if (wasm) {
    // Without cross-origin isolation ORT silently uses 1 thread; the caller knows better.
    if (opts.numThreads !== undefined) wasm.numThreads = opts.numThreads;
    // Offline browser use: load ORT's runtime from the app, not from a CDN. Mutate the
    // existing env object; ORT holds a reference to it.
    if (opts.wasmPaths) wasm.wasmPaths = { mjs: opts.wasmPaths.mjs, wasm: opts.wasmPaths.wasm };
  }
}

/** Length-bucketed batches: indices sorted by token length (longest first), cut every batchSize. */
export function planBatches(lengths: number[], batchSize: number): number[][] {
  if (!(batchSize >= 1)) throw new RangeError(`batchSize must be ≥ 1, got ${batchSize}`);
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b]! - lengths[a]! || a - b);
  const batches: number[][] = [];
  for (let i = 0; i < order.length; i += batchSize) batches.push(order.slice(i, i + batchSize));
  return batches;
}


/** Transformers.js progress events → one running byte count over every file fetched. */
function byteProgress(report: (p: LoadProgress) => void): (e: unknown) => void {
  const files = new Map<string, { loaded: number; total: number }>();
  return (e: unknown) => {
    const ev = e as { status?: string; file?: string; loaded?: number; total?: number };
    if (ev.status !== 'progress' || typeof ev.file !== 'string') return;
    files.set(ev.file, { loaded: ev.loaded ?? 0, total: ev.total ?? 0 });
    let loaded = 0;
    let total = 0;
    for (const f of files.values()) {
      loaded += f.loaded;
      total += Math.max(f.total, f.loaded);
    }
    report({ file: ev.file, loaded, total });
  };
}

export class Embedder implements SiftEmbedder {
  readonly info: EmbedderInfo;
  private readonly batchSize: number;
  private readonly gate = new SessionGate();

  private constructor(
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly model: PreTrainedModel,
    info: EmbedderInfo,
    batchSize: number,
  ) {
    this.info = info;
    this.batchSize = batchSize;
  }

  static async load(opts: EmbedderOptions): Promise<Embedder> {
    const device = await resolveDevice(opts.device ?? 'auto');
    const dtype = resolveDtype(opts.dtype ?? 'auto', device);
    const maxTokens = opts.maxTokens ?? EMBED_MAX_TOKENS;
    configureEnv(opts);
    const progress_callback = opts.onProgress ? byteProgress(opts.onProgress) : undefined;
    const tokenizer = await AutoTokenizer.from_pretrained(opts.modelId, { progress_callback });
    const model = await AutoModel.from_pretrained(opts.modelId, {
      device,
      dtype,
      progress_callback,
      ...(isNode && opts.numThreads !== undefined ? { session_options: { intraOpNumThreads: opts.numThreads } } : {}),
    });
    const config = model.config as unknown as { hidden_size?: number };
    const dim = config.hidden_size;
    if (typeof dim !== 'number') throw new Error(`${opts.modelId}: config.json has no hidden_size`);
    const info: EmbedderInfo = {
      modelId: opts.modelId,
      device,
      dtype,
      dim,
      maxTokens,
      key: `${opts.modelId}@${dtype}/${maxTokens}`,
      family: 'transformer',
    };
    return new Embedder(tokenizer, model, info, opts.batchSize ?? EMBED_BATCH_SIZE);
  }

  /** Token counts including [CLS]/[SEP], before truncation (count > maxTokens ⇒ truncated). */
  countTokens(texts: string[]): number[] {
    return texts.map((t) => this.tokenizer.encode(t).length);
  }

  /** Token ids with specials, truncated to maxTokens keeping the final [SEP]. */
  private encode(text: string): number[] {
    const ids = this.tokenizer.encode(text);
    const max = this.info.maxTokens;
    if (ids.length <= max) return ids;
    const last = ids[ids.length - 1]!;
    const kept = ids.slice(0, max);
    kept[max - 1] = last;
    return kept;
  }

  /** Embeds chunk texts; each batch waits behind any waiting query (see SessionGate). */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array> {
    return this.embedWith('batch', texts, signal);
  }

  /** A query's vector: runs before any indexing batch still waiting. */
  async embedQuery(text: string): Promise<Float32Array> {
    return this.embedWith('query', [text]);
  }

  private async embedWith(priority: 'query' | 'batch', texts: string[], signal?: AbortSignal): Promise<Float32Array> {
    const dim = this.info.dim;
    const out = new Float32Array(texts.length * dim);
    const encoded = texts.map((t) => this.encode(t));
    for (const batch of planBatches(encoded.map((e) => e.length), this.batchSize)) {
      if (signal?.aborted) throw abortError(signal);
      await this.gate.run(priority, () => this.embedBatch(batch.map((i) => encoded[i]!), batch, out));
    }
    if (signal?.aborted) throw abortError(signal);
    return out;
  }

  private async embedBatch(rows: number[][], targets: number[], out: Float32Array): Promise<void> {
    const dim = this.info.dim;
    const seq = Math.max(...rows.map((r) => r.length));
    const n = rows.length;
    const ids = new BigInt64Array(n * seq);
    const mask = new BigInt64Array(n * seq);
    rows.forEach((r, b) => {
      for (let t = 0; t < r.length; t++) {
        ids[b * seq + t] = BigInt(r[t]!);
        mask[b * seq + t] = 1n;
      }
    });
    const inputs = { input_ids: new Tensor('int64', ids, [n, seq]), attention_mask: new Tensor('int64', mask, [n, seq]) };
    const output = (await this.model(inputs)) as { last_hidden_state?: Tensor };
    const hidden = output.last_hidden_state;
    if (!hidden) throw new Error(`${this.info.modelId}: model has no last_hidden_state output`);
    try {
      const h = hidden.data as Float32Array;
      if (hidden.dims[2] !== dim) throw new Error(`${this.info.modelId}: hidden size ${hidden.dims[2]} ≠ ${dim}`);
      rows.forEach((r, b) => {
        // Mean over the real tokens (mask = 1), then L2-normalise.
        const o = targets[b]! * dim;
        const row = out.subarray(o, o + dim);
        for (let t = 0; t < r.length; t++) {
          const base = (b * seq + t) * dim;
          for (let d = 0; d < dim; d++) row[d] += h[base + d];
        }
        let norm = 0;
        for (let d = 0; d < dim; d++) norm += row[d] * row[d];
        const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0; // the mean's 1/len cancels out
        for (let d = 0; d < dim; d++) row[d] *= scale;
      });
    } finally {
      hidden.dispose();
    }
  }

  async dispose(): Promise<void> {
    await this.model.dispose();
  }
}
