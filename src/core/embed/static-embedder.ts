/**
 * The static (model2vec) embedder: a tokenizer and one table of token vectors. A text's vector
 * is the mean of its tokens' rows, each scaled by its token's weight, then L2-normalised when
 * the model's config says `normalize`. The algorithm of model2vec's StaticModel.encode
 * (github.com/MinishLab/model2vec, model.py), written here from its description:
 *   1. cut the text to maxTokens × the vocabulary's median token length (characters);
 *   2. tokenise without special tokens; drop the unknown token;
 *   3. keep the first maxTokens ids;
 *   4. row = mapping[id] (vocabulary-quantised models) or id; scale by weights[id] when given;
 *   5. mean over the tokens (no token → a zero vector), then normalise when configured.
 * Runs the same in the browser worker and in Node: plain TypeScript over typed arrays.
 *
 * Files (model2vec's layout, read through ModelFiles): config.json ({ normalize, … }),
 * model.safetensors (`embeddings` [rows × dim] as float32, float16 or int8 — int8 as the
 * integers model2vec stores, its scale dropped, which the normalisation cancels — and
 * optionally `weights` [vocab] and `mapping` [vocab]), tokenizer.json.
 *
 * Invariants:
 * - `embed(texts)` returns texts.length × dim floats, row-major, in input order; a text's
 *   vector does not depend on its batch.
 * - `info.key` names everything that changes a vector: model id, family and table dtype,
 *   maxTokens (`<id>@static-<dtype>/<maxTokens>`); dim is checked beside it.
 * - Work runs in batches of `batchSize` texts through a SessionGate: a query waits at most
 *   for the batch already running, and the thread is yielded between batches.
 * - Loading checks every id the tokenizer can produce against the table (and the mapping):
 *   a model whose files disagree fails to load, with the reason, instead of embedding garbage.
 */
import { STATIC_BATCH_SIZE, STATIC_MAX_TOKENS } from '../config.ts';
import type { EmbedderInfo, LoadProgress, SiftEmbedder } from './embedder.ts';
import type { ModelFiles } from './model-files.ts';
import { parseSafetensors, readFloat32, readInt32, type Safetensors } from './safetensors.ts';
import { SessionGate } from './session-gate.ts';
import { createStaticTokenizer, type StaticTokenizer } from './static-tokenizer.ts';
import { createRowPool, type RowPool } from './row-pool.ts';

export interface StaticModelConfig {
  normalize?: boolean;
  embedding_dtype?: string;
  [k: string]: unknown;
}

export interface StaticEmbedderOptions {
  /** Names the model in `info` and the index (a folder's name, or a Hub id). */
  modelId: string;
  /** Tokens kept per text (default STATIC_MAX_TOKENS, model2vec's 512). */
  maxTokens?: number;
  batchSize?: number;
  onProgress?: (p: LoadProgress) => void;
  /** Tests and the bench: tokenise through the library even when the fast path fits. */
  forceLibraryTokenizer?: boolean;
  /** Tests and the bench: pool rows with the plain JS loop even where WebAssembly SIMD runs. */
  forceJsPooling?: boolean;
}

/** The parsed files of a static model (what `StaticEmbedder.fromParts` builds on). */
export interface StaticModelParts {
  config: StaticModelConfig;
  tokenizer: unknown;
  safetensors: Safetensors;
}

const DTYPE_NAMES: Record<string, string> = { F32: 'float32', F16: 'float16', BF16: 'bfloat16', F64: 'float64', I8: 'int8', U8: 'uint8' };

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** model2vec's median token length: int(np.median(lengths)), lengths in code points. */
export function medianTokenLength(tokens: Iterable<string>): number {
  const lens: number[] = [];
  for (const t of tokens) {
    let n = 0;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c < 0xdc00 || c > 0xdfff || i === 0 || t.charCodeAt(i - 1) < 0xd800 || t.charCodeAt(i - 1) > 0xdbff) n++;
    }
    lens.push(n);
  }
  if (lens.length === 0) return 0;
  lens.sort((a, b) => a - b);
  const mid = lens.length >> 1;
  return Math.trunc(lens.length % 2 ? lens[mid] : (lens[mid - 1] + lens[mid]) / 2);
}

/** The first `n` code points of `text` (Python's text[:n]). */
export function firstCodePoints(text: string, n: number): string {
  if (text.length <= n) return text;
  let units = 0;
  for (let points = 0; points < n && units < text.length; points++) {
    const c = text.charCodeAt(units);
    units += c >= 0xd800 && c <= 0xdbff && units + 1 < text.length && (text.charCodeAt(units + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return text.slice(0, units);
}

/** Reads and parses a required JSON file. */
async function readJson(files: ModelFiles, name: string, onBytes?: (loaded: number, total: number) => void): Promise<unknown> {
  const bytes = await files.read(name, onBytes);
  if (!bytes) throw new Error(`${files.where}: ${name} is missing`);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new Error(`${files.where}: ${name} is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** Per-file byte progress, summed into one running total for `onProgress`. */
export function byteTotals(report: (p: LoadProgress) => void): (file: string, loaded: number, total: number) => void {
  const seen = new Map<string, { loaded: number; total: number }>();
  return (file, loaded, total) => {
    seen.set(file, { loaded, total });
    let l = 0;
    let t = 0;
    for (const f of seen.values()) {
      l += f.loaded;
      t += Math.max(f.total, f.loaded);
    }
    report({ file, loaded: l, total: t });
  };
}

/** Reads a static model's three files (`safetensors`: its table, when already read). */
export async function readStaticModel(
  files: ModelFiles,
  o: { onBytes?: (file: string, loaded: number, total: number) => void; safetensors?: Uint8Array } = {},
): Promise<StaticModelParts> {
  const progress = (file: string) => o.onBytes && ((loaded: number, total: number) => o.onBytes!(file, loaded, total));
  const config = await readJson(files, 'config.json', progress('config.json'));
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new Error(`${files.where}: config.json is not an object`);
  const tokenizer = await readJson(files, 'tokenizer.json', progress('tokenizer.json'));
  const bytes = o.safetensors ?? (await files.read('model.safetensors', progress('model.safetensors')));
  if (!bytes) throw new Error(`${files.where}: model.safetensors is missing`);
  return { config: config as StaticModelConfig, tokenizer, safetensors: parseSafetensors(bytes, `${files.where}/model.safetensors`) };
}

export class StaticEmbedder implements SiftEmbedder {
  readonly info: EmbedderInfo;
  /** The table ([rows × dim] float32) and the weighted row sum over it (row-pool.ts). */
  private readonly pool: RowPool;
  private readonly weights: Float32Array | null;
  private readonly mapping: Int32Array | null;
  private readonly normalize: boolean;
  private readonly maxChars: number;
  private readonly batchSize: number;
  private readonly gate = new SessionGate();
  /** Per-id counts of the text being pooled, and the ids touched (reset after each text). */
  private readonly counts: Int32Array;
  private readonly touched: Int32Array;

  private constructor(
    private readonly tokenizer: StaticTokenizer,
    parts: { table: Float32Array; dim: number; weights: Float32Array | null; mapping: Int32Array | null; normalize: boolean; dtype: string; vocabSize: number; medianLength: number },
    opts: StaticEmbedderOptions,
  ) {
    const maxTokens = opts.maxTokens ?? STATIC_MAX_TOKENS;
    // At most maxTokens distinct ids are pooled per text.
    this.pool = createRowPool(parts.table, parts.dim, Math.max(1, maxTokens), { forceJs: opts.forceJsPooling });
    this.weights = parts.weights;
    this.mapping = parts.mapping;
    this.normalize = parts.normalize;
    this.maxChars = maxTokens * parts.medianLength;
    this.batchSize = opts.batchSize ?? STATIC_BATCH_SIZE;
    this.counts = new Int32Array(parts.vocabSize);
    this.touched = new Int32Array(Math.max(1, maxTokens));
    this.info = {
      modelId: opts.modelId,
      device: 'cpu',
      dtype: parts.dtype,
      dim: parts.dim,
      maxTokens,
      key: `${opts.modelId}@static-${parts.dtype}/${maxTokens}`,
      family: 'static',
    };
  }

  /** Loads config.json, tokenizer.json and model.safetensors from `files`. */
  static async load(
    files: ModelFiles,
    opts: StaticEmbedderOptions & { safetensors?: Uint8Array; onBytes?: (file: string, loaded: number, total: number) => void },
  ): Promise<StaticEmbedder> {
    const onBytes = opts.onBytes ?? (opts.onProgress && byteTotals(opts.onProgress));
    return StaticEmbedder.fromParts(await readStaticModel(files, { onBytes, safetensors: opts.safetensors }), opts);
  }

  static fromParts(parts: StaticModelParts, opts: StaticEmbedderOptions): StaticEmbedder {
    const st = parts.safetensors;
    const where = st.where;
    const emb = st.tensors.get('embeddings');
    if (!emb) throw new Error(`${where}: no "embeddings" tensor (tensors: ${[...st.tensors.keys()].join(', ') || 'none'})`);
    if (emb.shape.length !== 2 || emb.shape[0] < 1 || emb.shape[1] < 1) throw new Error(`${where}: "embeddings" has shape ${JSON.stringify(emb.shape)}, expected [rows, dim]`);
    const [rows, dim] = emb.shape as [number, number];
    const tokenizer = createStaticTokenizer(parts.tokenizer, { forceLibrary: opts.forceLibraryTokenizer });
    const tokens = [...tokenizer.vocabTokens()];
    // Ids run 0..vocabSize-1 (the model's vocabulary and the added tokens).
    const vocabSize = maxIdOf(parts.tokenizer, tokens.length) + 1;
    const mapping = st.tensors.has('mapping') ? readInt32(st, 'mapping') : null;
    const weights = st.tensors.has('weights') ? readFloat32(st, 'weights') : null;
    if (mapping) {
      if (mapping.length < vocabSize) throw new Error(`${where}: "mapping" has ${mapping.length} entries for a vocabulary of ${vocabSize}`);
      for (let i = 0; i < mapping.length; i++) {
        if (mapping[i] < 0 || mapping[i] >= rows) throw new Error(`${where}: "mapping"[${i}] = ${mapping[i]} is outside the ${rows} rows of "embeddings"`);
      }
    } else if (rows < vocabSize) {
      throw new Error(`${where}: "embeddings" has ${rows} rows for a vocabulary of ${vocabSize} tokens (and no "mapping")`);
    }
    if (weights && weights.length < vocabSize) throw new Error(`${where}: "weights" has ${weights.length} entries for a vocabulary of ${vocabSize}`);
    const normalize = parts.config.normalize === true;
    return new StaticEmbedder(
      tokenizer,
      { table: readFloat32(st, 'embeddings'), dim, weights, mapping, normalize, dtype: DTYPE_NAMES[emb.dtype] ?? emb.dtype.toLowerCase(), vocabSize, medianLength: medianTokenLength(tokens) },
      opts,
    );
  }

  /** Which tokenizer path runs ('wordpiece-fast' or 'library'), for the bench and docs. */
  get tokenizerPath(): string {
    return this.tokenizer.path;
  }

  /** Ids of a text after model2vec's character cut, unknown tokens dropped, before the token cut. */
  private ids(text: string): Int32Array {
    const ids = this.tokenizer.encodeShared(this.maxChars > 0 ? firstCodePoints(text, this.maxChars) : text);
    const unk = this.tokenizer.unkId;
    if (unk === null) return ids;
    let n = 0;
    for (let i = 0; i < ids.length; i++) if (ids[i] !== unk) ids[n++] = ids[i];
    return n === ids.length ? ids : ids.subarray(0, n);
  }

  countTokens(texts: string[]): number[] {
    return texts.map((t) => this.ids(t).length);
  }

  /** One text's vector into out[at .. at+dim). */
  private embedOne(text: string, out: Float32Array, at: number): void {
    const all = this.ids(text);
    const n = Math.min(all.length, this.info.maxTokens);
    const dim = this.info.dim;
    if (n === 0) return; // zeros (out is fresh)
    // Count each id once, then add each distinct row once, scaled by count × weight.
    const counts = this.counts;
    const touched = this.touched;
    let distinct = 0;
    for (let i = 0; i < n; i++) {
      const id = all[i];
      if (counts[id]++ === 0) touched[distinct++] = id;
    }
    const pool = this.pool;
    const rows = pool.rows;
    const ws = pool.weights;
    const weights = this.weights;
    const mapping = this.mapping;
    for (let k = 0; k < distinct; k++) {
      const id = touched[k];
      ws[k] = weights ? counts[id] * weights[id] : counts[id];
      counts[id] = 0;
      rows[k] = mapping ? mapping[id] : id;
    }
    pool.sum(distinct);
    const acc = pool.acc;
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      acc[d] /= n;
      norm += acc[d] * acc[d];
    }
    // model2vec: mean / (‖mean‖ + 1e-32) when normalising.
    const scale = this.normalize ? 1 / (Math.sqrt(norm) + 1e-32) : 1;
    for (let d = 0; d < dim; d++) out[at + d] = acc[d] * scale;
  }

  /** Which loop pools rows ('wasm-simd' or 'js'), for the bench and docs. */
  get poolingPath(): string {
    return this.pool.path;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array> {
    return this.embedWith('batch', texts, signal);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return this.embedWith('query', [text]);
  }

  /** Synchronous, for callers that own the thread (the bench's query timing): no gate, no yield. */
  embedNow(texts: string[]): Float32Array {
    const dim = this.info.dim;
    const out = new Float32Array(texts.length * dim);
    for (let i = 0; i < texts.length; i++) this.embedOne(texts[i], out, i * dim);
    return out;
  }

  private async embedWith(priority: 'query' | 'batch', texts: string[], signal?: AbortSignal): Promise<Float32Array> {
    const dim = this.info.dim;
    const out = new Float32Array(texts.length * dim);
    for (let start = 0; start < texts.length; start += this.batchSize) {
      if (signal?.aborted) throw abortError(signal);
      const end = Math.min(texts.length, start + this.batchSize);
      await this.gate.run(priority, async () => {
        for (let i = start; i < end; i++) this.embedOne(texts[i], out, i * dim);
      });
    }
    if (signal?.aborted) throw abortError(signal);
    return out;
  }

  async dispose(): Promise<void> {
    // Nothing native to free: the table is garbage once this object is.
  }
}

/** The largest token id in tokenizer.json (model vocabulary and added tokens). */
function maxIdOf(json: unknown, fallback: number): number {
  const j = json as { model?: { vocab?: unknown }; added_tokens?: Array<{ id?: unknown }> };
  let max = -1;
  const vocab = j.model?.vocab;
  if (Array.isArray(vocab)) max = vocab.length - 1; // Unigram: [[piece, score], …] by id
  else if (vocab && typeof vocab === 'object') for (const v of Object.values(vocab)) if (typeof v === 'number' && v > max) max = v;
  for (const t of j.added_tokens ?? []) if (typeof t.id === 'number' && t.id > max) max = t.id;
  return max >= 0 ? max : fallback - 1;
}
