/**
 * Embedding throughput benchmark (Node-only: it drives onnxruntime-node and reads the bench
 * corpus; run.ts calls `benchEmbed`, bench/browser.ts reuses the inputs and the native leg).
 *
 * What is compared, on the SAME inputs: a fixed set of real code chunks (the Chunker over a
 * slice of bench/corpora/medium, embedded as `embeddingText(chunk)`), tokenised once by the
 * model's own tokenizer and truncated exactly as the Embedder does (maxTokens incl. the final
 * [SEP]), cut into the SAME batches (planBatches when bucketed, input order otherwise):
 * - `onnxruntime-node`: a raw InferenceSession, plus the Embedder's mean pooling in JS — the
 *   native reference every other row is a ratio to (same dtype, threads and bucketing);
 * - `transformers.js (node)`: the real Embedder (Transformers.js over onnxruntime-node).
 * Invariants: the chunk set is a pure function of the corpus and `count` (sorted walk, fixed
 * stride); a warm-up batch runs before every timed run and is not counted.
 */
import { AutoTokenizer, type PreTrainedTokenizer } from '@huggingface/transformers';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import { NodeFileSource } from '../src/core/source/node-source-node.ts';
import { walk } from '../src/core/walk/walker.ts';
import { decodeText } from '../src/core/index/indexer.ts';
import { EMBED_BATCH_SIZE, EMBED_MAX_TOKENS } from '../src/core/config.ts';
import { Embedder, embeddingText, planBatches, type EmbedDtype } from '../src/core/embed/embedder.ts';
import { ensureGeneratedModel } from '../scripts/gen-models.ts';

/** Chunks in the fixed set: full and --quick runs. */
export const BENCH_CHUNKS_FULL = 200;
export const BENCH_CHUNKS_QUICK = 64;
/** Every FILE_STRIDE-th file of the sorted walk is chunked, until the pool holds POOL_FACTOR × count. */
const FILE_STRIDE = 7;
const POOL_FACTOR = 3;
/** Texts in the untimed warm-up run (first inference allocates and JIT-fuses). */
const WARMUP_TEXTS = 4;

const REPO_ROOT = decodeURIComponent(new URL('../', import.meta.url).pathname);
export const BENCH_CORPUS_DIR = `${REPO_ROOT}bench/corpora/medium`;
export const BENCH_MODEL_DIR = `${REPO_ROOT}models/generated`;
export const BENCH_MODEL = 'minilm-shape';

export type BenchRuntime = 'onnxruntime-node' | 'transformers.js (node)' | 'chromium wasm' | 'chromium webgpu';

export interface EmbedBenchRow {
  runtime: BenchRuntime;
  /** Batch size (default EMBED_BATCH_SIZE). */
  batchSize?: number;
  /** What the row stands for, e.g. 'app default' (the settings a user gets). */
  note?: string;
  dtype: 'fp32' | 'q8';
  threads: number;
  bucketed: boolean;
  chunksPerSec: number;
  /** chunksPerSec ÷ onnxruntime-node's with the same dtype, threads and bucketing (1 for native). */
  ratioToNative: number;
}

export interface BenchEmbedOptions {
  quick?: boolean;
  /** Chunks in the set (default BENCH_CHUNKS_QUICK / BENCH_CHUNKS_FULL). */
  count?: number;
  /** Folder holding `<model>/` (Transformers.js layout). */
  modelDir?: string;
  model?: string;
  corpusDir?: string;
  dtypes?: Array<'fp32' | 'q8'>;
  /** Native thread counts (Transformers.js rows run at the first). */
  threads?: number[];
  log?: (line: string) => void;
}

/**
 * The fixed chunk set as embedding texts: every FILE_STRIDE-th file of the sorted walk is
 * chunked until the pool holds POOL_FACTOR × count chunks, then `count` are taken at an even
 * stride (so short and long chunks, Go and JS, all appear).
 */
export async function loadBenchTexts(count: number, corpusDir = BENCH_CORPUS_DIR): Promise<string[]> {
  const source = new NodeFileSource(corpusDir);
  const paths: string[] = [];
  for await (const f of walk(source)) paths.push(f.path);
  paths.sort();
  if (paths.length === 0) throw new Error(`no files under ${corpusDir} (run: npx tsx bench/corpora.ts medium)`);
  const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  const pool: string[] = [];
  try {
    for (let i = 0; i < paths.length && pool.length < count * POOL_FACTOR; i += FILE_STRIDE) {
      const r = await chunker.chunkFile(paths[i]!, decodeText(await source.readFile(paths[i]!)));
      for (const c of r.chunks) pool.push(embeddingText(c));
    }
  } finally {
    chunker.dispose();
  }
  if (pool.length < count) throw new Error(`only ${pool.length} chunks found in ${corpusDir}, wanted ${count}`);
  const step = pool.length / count;
  return Array.from({ length: count }, (_, i) => pool[Math.floor(i * step)]!);
}

/** Token ids with specials, truncated to maxTokens keeping the final [SEP] (as Embedder.encode). */
export function truncateIds(ids: number[], maxTokens: number): number[] {
  if (ids.length <= maxTokens) return ids;
  const kept = ids.slice(0, maxTokens);
  kept[maxTokens - 1] = ids[ids.length - 1]!;
  return kept;
}

/** Batches of row indices: length-bucketed (planBatches) or consecutive in input order. */
export function benchBatches(lengths: number[], batchSize: number, bucketed: boolean): number[][] {
  if (bucketed) return planBatches(lengths, batchSize);
  const out: number[][] = [];
  for (let i = 0; i < lengths.length; i += batchSize) out.push(Array.from({ length: Math.min(batchSize, lengths.length - i) }, (_, j) => i + j));
  return out;
}

type Ort = typeof import('onnxruntime-node');

/** A raw onnxruntime-node session over the model's ONNX file, with the Embedder's pooling. */
export class NativeEmbedder {
  private constructor(private readonly ort: Ort, private readonly session: import('onnxruntime-node').InferenceSession) {}

  static async load(modelDir: string, model: string, dtype: 'fp32' | 'q8', threads: number): Promise<NativeEmbedder> {
    const ort = await import('onnxruntime-node');
    const file = `${modelDir}/${model}/onnx/${dtype === 'q8' ? 'model_quantized' : 'model'}.onnx`;
    const session = await ort.InferenceSession.create(file, { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
    return new NativeEmbedder(ort, session);
  }

  /** rows × dim unit vectors (mean over real tokens, L2-normalised), rows in the given order. */
  async embedIds(rows: number[][]): Promise<Float32Array> {
    const seq = Math.max(...rows.map((r) => r.length));
    const n = rows.length;
    const ids = new BigInt64Array(n * seq);
    const mask = new BigInt64Array(n * seq);
    rows.forEach((r, b) => r.forEach((t, i) => {
      ids[b * seq + i] = BigInt(t);
      mask[b * seq + i] = 1n;
    }));
    const T = this.ort.Tensor;
    const feeds: Record<string, import('onnxruntime-node').Tensor> = {
      input_ids: new T('int64', ids, [n, seq]), attention_mask: new T('int64', mask, [n, seq]),
    };
    if (this.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new T('int64', new BigInt64Array(n * seq), [n, seq]);
    const out = await this.session.run(feeds);
    const hidden = out.last_hidden_state ?? out[this.session.outputNames[0]!]!;
    const h = hidden.data as Float32Array;
    const dim = hidden.dims[2]!;
    const vecs = new Float32Array(n * dim);
    rows.forEach((r, b) => {
      const row = vecs.subarray(b * dim, (b + 1) * dim);
      for (let t = 0; t < r.length; t++) for (let d = 0; d < dim; d++) row[d] += h[(b * seq + t) * dim + d]!;
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += row[d]! * row[d]!;
      const s = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let d = 0; d < dim; d++) row[d] *= s;
    });
    return vecs;
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}

/** The model's tokenizer, loaded the way the Embedder loads it (offline, from `modelDir`). */
export async function loadBenchTokenizer(modelDir: string, model: string): Promise<PreTrainedTokenizer> {
  // The bench's own model is generated (scripts/gen-models.ts, seeded: the same bytes every
  // time) when a fresh clone has not made it yet; the embedding and browser hooks need it.
  if (modelDir === BENCH_MODEL_DIR) await ensureGeneratedModel(model, modelDir);
  // Embedder.load is the one writer of Transformers.js' env: let it configure, then reuse.
  const e = await Embedder.load({ modelId: model, localModelPath: `${modelDir}/`, device: 'cpu', dtype: 'q8' });
  await e.dispose();
  return AutoTokenizer.from_pretrained(model);
}

/** Token ids per text, truncated as the Embedder truncates. */
export function encodeTexts(tokenizer: PreTrainedTokenizer, texts: string[], maxTokens = EMBED_MAX_TOKENS): number[][] {
  return texts.map((t) => truncateIds(tokenizer.encode(t), maxTokens));
}

/** Native chunks/s over `encoded` in the given batching; a warm-up batch first. */
export async function measureNative(
  o: { modelDir: string; model: string; encoded: number[][]; dtype: 'fp32' | 'q8'; threads: number; bucketed: boolean; batchSize?: number },
): Promise<number> {
  const native = await NativeEmbedder.load(o.modelDir, o.model, o.dtype, o.threads);
  try {
    await native.embedIds(o.encoded.slice(0, WARMUP_TEXTS));
    const t0 = performance.now();
    for (const batch of benchBatches(o.encoded.map((e) => e.length), o.batchSize ?? EMBED_BATCH_SIZE, o.bucketed)) {
      await native.embedIds(batch.map((i) => o.encoded[i]!));
    }
    return o.encoded.length / ((performance.now() - t0) / 1000);
  } finally {
    await native.dispose();
  }
}

/** Transformers.js (the real Embedder) chunks/s: one embed() call when bucketed, else one per consecutive batch. */
async function measureTransformers(
  o: { modelDir: string; model: string; texts: string[]; dtype: EmbedDtype; threads: number; bucketed: boolean },
): Promise<number> {
  const e = await Embedder.load({ modelId: o.model, localModelPath: `${o.modelDir}/`, device: 'cpu', dtype: o.dtype, numThreads: o.threads });
  try {
    await e.embed(o.texts.slice(0, WARMUP_TEXTS));
    const t0 = performance.now();
    if (o.bucketed) await e.embed(o.texts);
    else for (let i = 0; i < o.texts.length; i += EMBED_BATCH_SIZE) await e.embed(o.texts.slice(i, i + EMBED_BATCH_SIZE));
    return o.texts.length / ((performance.now() - t0) / 1000);
  } finally {
    await e.dispose();
  }
}

export function nativeKey(dtype: string, threads: number, bucketed: boolean): string {
  return `${dtype}/${threads}/${bucketed ? 'b' : 'u'}`;
}

/** Rows for `npm run bench`: native and Transformers.js in Node, bucketed and not. */
export async function benchEmbed(opts: BenchEmbedOptions = {}): Promise<EmbedBenchRow[]> {
  const count = opts.count ?? (opts.quick ? BENCH_CHUNKS_QUICK : BENCH_CHUNKS_FULL);
  const modelDir = opts.modelDir ?? BENCH_MODEL_DIR;
  const model = opts.model ?? BENCH_MODEL;
  const dtypes = opts.dtypes ?? ['q8', 'fp32'];
  const threads = opts.threads ?? [1, 2];
  const log = opts.log ?? (() => undefined);
  const texts = await loadBenchTexts(count, opts.corpusDir);
  const encoded = encodeTexts(await loadBenchTokenizer(modelDir, model), texts);
  const native = new Map<string, number>();
  const rows: EmbedBenchRow[] = [];
  for (const dtype of dtypes) {
    for (const bucketed of [true, false]) {
      // Unbucketed runs only at the first thread count: bucketing does not depend on threads.
      for (const t of bucketed ? threads : threads.slice(0, 1)) {
        const cps = await measureNative({ modelDir, model, encoded, dtype, threads: t, bucketed });
        native.set(nativeKey(dtype, t, bucketed), cps);
        rows.push({ runtime: 'onnxruntime-node', dtype, threads: t, bucketed, chunksPerSec: cps, ratioToNative: 1 });
        log(`onnxruntime-node ${dtype} ${t}t ${bucketed ? 'bucketed' : 'input order'}: ${cps.toFixed(1)} chunks/s`);
      }
      const t = threads[0]!;
      const cps = await measureTransformers({ modelDir, model, texts, dtype, threads: t, bucketed });
      rows.push({ runtime: 'transformers.js (node)', dtype, threads: t, bucketed, chunksPerSec: cps, ratioToNative: cps / native.get(nativeKey(dtype, t, bucketed))! });
      log(`transformers.js ${dtype} ${t}t ${bucketed ? 'bucketed' : 'input order'}: ${cps.toFixed(1)} chunks/s`);
    }
  }
  return rows;
}

const proc = (globalThis as { process?: { argv: string[] } }).process;
if (proc?.argv[1] && /bench-embed\.ts$/.test(proc.argv[1])) {
  const rows = await benchEmbed({ quick: proc.argv.includes('--quick'), log: (l) => console.error(l) });
  console.table(rows);
}
