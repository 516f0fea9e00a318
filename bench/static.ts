/**
 * Static (model2vec) embedding against the MiniLM-shaped transformer, in Node (issue 36).
 *
 * Same run, same chunks (bench/embed.ts loadBenchTexts: real chunks of bench/corpora/medium as
 * embedding texts), interleaved A/B rounds, medians:
 * - `onnxruntime-node q8`: the generated MiniLM-shaped model (6 layers, 384 dims, q8), a raw
 *   InferenceSession with the Embedder's pooling, 1 thread, length-bucketed batches of 32 — the
 *   reference the "≥ 300×" is a ratio to;
 * - `static`: the generated potion-shape model (30,522-token WordPiece, 256 dims, float32)
 *   through StaticEmbedder.embed (the gated, batched call the CLI and worker make), and its
 *   parts: tokenising alone (fast WordPiece path, and @huggingface/tokenizers for comparison).
 * - query embedding: embedQuery on short questions, in the core, no worker hop.
 * Full runs add the kernel subset through the CLI: `sift index --no-embed`, then `sift index
 * --model potion-shape` on the unchanged index (the embedding pass alone), its vector bytes,
 * and `sift publish --embed` (pack size).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_MODEL, BENCH_MODEL_DIR, encodeTexts, loadBenchTexts, loadBenchTokenizer, measureNative } from './embed.ts';
import { ensureGeneratedModel } from '../scripts/gen-models.ts';
import { folderModelFiles } from '../src/core/embed/model-files-node.ts';
import { StaticEmbedder, readStaticModel } from '../src/core/embed/static-embedder.ts';
import { createStaticTokenizer } from '../src/core/embed/static-tokenizer.ts';
import { fmt } from './util.ts';

const REPO_ROOT = decodeURIComponent(new URL('../', import.meta.url).pathname);
export const STATIC_BENCH_MODEL = 'potion-shape';
/** Issue 36's target for Node: the static model ≥ 300× the MiniLM-shaped q8 model through onnxruntime-node. */
export const STATIC_TARGET_RATIO = 300;
const KERNEL_DIR = `${REPO_ROOT}bench/corpora/kernel`;
const QUERIES = ['parse json config file', 'retry failed upload', 'how are http requests retried', 'free a page of memory', 'lock the inode before writing',
  'walk the directory tree', 'hash table lookup', 'validate user input', 'encrypt a block', 'schedule the next timer'];

export interface StaticBench {
  chunks: number;
  rounds: number;
  nativeQ8: number;
  staticEmbed: number;
  ratio: number;
  tokenizeFast: number;
  tokenizeLibrary: number;
  /** embedQuery, ms. */
  queryMedian: number;
  queryP95: number;
  loadMs: number;
  kernel: { chunks: number; lexicalS: number; embedS: number; embedRate: number; vectorBytes: number; packBytes: number | null; publishS: number | null } | null;
  markdown: string;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length ? (s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2) : NaN;
}

function siftJson(args: string[], home: string): { out: Record<string, unknown>; s: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [`${REPO_ROOT}bin/sift`, ...args, '--json'], { encoding: 'utf8', env: { ...process.env, SIFT_HOME: home, SIFT_OFFLINE: '1' }, maxBuffer: 1 << 28 });
  const s = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`sift ${args.join(' ')}: exit ${r.status}: ${r.stderr.slice(-500)}`);
  return { out: JSON.parse(r.stdout) as Record<string, unknown>, s };
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir)) n += statSync(join(dir, f)).size;
  return n;
}

/** The kernel subset through the CLI: keyword index, then the embedding pass alone, then a pack. */
export function benchKernelStatic(o: { publish?: boolean } = {}): StaticBench['kernel'] {
  if (!existsSync(KERNEL_DIR)) return null;
  const potion = join(BENCH_MODEL_DIR, STATIC_BENCH_MODEL);
  const work = mkdtempSync(join(tmpdir(), 'sift-static-kernel-'));
  try {
    const db = join(work, 'kernel.db');
    const lex = siftJson(['index', KERNEL_DIR, '--db', db, '--no-embed'], join(work, 'home'));
    const emb = siftJson(['index', KERNEL_DIR, '--db', db, '--model', potion], join(work, 'home'));
    const e = emb.out.embedding as { embedded: number; total: number; newlyEmbedded: number; ms: number };
    const stats = siftJson(['stats', KERNEL_DIR, '--db', db], join(work, 'home')).out as { structures: { structures: Record<string, number> } };
    const vectorBytes = stats.structures.structures.embeddings ?? 0;
    let packBytes: number | null = null;
    let publishS: number | null = null;
    if (o.publish) {
      const out = join(work, 'site');
      const p = siftJson(['publish', KERNEL_DIR, '--db', db, '--model', potion, '--embed', '--out', out], join(work, 'home'));
      publishS = p.s;
      packBytes = dirBytes(out);
    }
    return { chunks: e.total, lexicalS: lex.s, embedS: emb.s, embedRate: e.newlyEmbedded / (e.ms / 1000), vectorBytes, packBytes, publishS };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export async function benchStatic(o: { quick?: boolean; count?: number; rounds?: number; kernel?: boolean; log?: (l: string) => void } = {}): Promise<StaticBench> {
  const log = o.log ?? (() => undefined);
  const count = o.count ?? (o.quick ? 200 : 1000);
  const rounds = o.rounds ?? (o.quick ? 2 : 3);
  await ensureGeneratedModel(STATIC_BENCH_MODEL, BENCH_MODEL_DIR);
  const texts = await loadBenchTexts(count);
  // The transformer: MiniLM-shaped q8 on 1 thread, texts tokenised and truncated as the Embedder does.
  const encoded = encodeTexts(await loadBenchTokenizer(BENCH_MODEL_DIR, BENCH_MODEL), texts);
  const t0 = performance.now();
  const files = folderModelFiles(join(BENCH_MODEL_DIR, STATIC_BENCH_MODEL));
  const stat = await StaticEmbedder.load(files, { modelId: STATIC_BENCH_MODEL });
  const loadMs = performance.now() - t0;
  const parts = await readStaticModel(files);
  const fast = createStaticTokenizer(parts.tokenizer);
  const library = createStaticTokenizer(parts.tokenizer, { forceLibrary: true });
  await stat.embed(texts.slice(0, 64)); // warm-up (JIT), not counted

  const native: number[] = [];
  const embed: number[] = [];
  const tokFast: number[] = [];
  const tokLib: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // The transformer on a slice (it is ~300× slower), the static model on every text, alternating.
    native.push(await measureNative({ modelDir: BENCH_MODEL_DIR, model: BENCH_MODEL, encoded: encoded.slice(0, o.quick ? 32 : 96), dtype: 'q8', threads: 1, bucketed: true }));
    let t = performance.now();
    await stat.embed(texts);
    embed.push(texts.length / ((performance.now() - t) / 1000));
    t = performance.now();
    for (const x of texts) fast.encode(x);
    tokFast.push(texts.length / ((performance.now() - t) / 1000));
    t = performance.now();
    for (const x of texts.slice(0, 200)) library.encode(x);
    tokLib.push(Math.min(200, texts.length) / ((performance.now() - t) / 1000));
    log(`round ${r + 1}: onnxruntime-node q8 ${fmt(native[r]!, 1)} chunks/s, static ${fmt(embed[r]!, 0)} chunks/s`);
  }
  const q: number[] = [];
  for (let i = 0; i < 400; i++) {
    const t = performance.now();
    await stat.embedQuery(`${QUERIES[i % QUERIES.length]} ${i}`);
    q.push(performance.now() - t);
  }
  q.sort((a, b) => a - b);
  const kernel = o.kernel ? benchKernelStatic({ publish: true }) : null;
  const res: Omit<StaticBench, 'markdown'> = {
    chunks: texts.length, rounds, nativeQ8: median(native), staticEmbed: median(embed), ratio: median(embed) / median(native),
    tokenizeFast: median(tokFast), tokenizeLibrary: median(tokLib), queryMedian: median(q), queryP95: q[Math.floor(q.length * 0.95)]!, loadMs, kernel,
  };
  const met = res.ratio >= STATIC_TARGET_RATIO;
  const L = [
    `**Static vs MiniLM-shaped q8 in Node (the CLI's runtime), same chunks, same run: ${fmt(res.ratio, 0)}× — target ≥ ${STATIC_TARGET_RATIO}× ${met ? 'met' : 'NOT met'}** ` +
      `(${fmt(res.staticEmbed, 0)} against ${fmt(res.nativeQ8, 1)} chunks/s, one thread each).`, '',
    `Same ${res.chunks} medium-corpus chunks, ${rounds} interleaved rounds, medians (Node ${process.version}).`, '',
    '| what | chunks/s | × MiniLM-shaped q8 |', '|---|---|---|',
    `| onnxruntime-node, MiniLM-shaped q8, 1 thread, bucketed (reference) | ${fmt(res.nativeQ8, 1)} | 1 |`,
    `| static potion-shape (30,522 × 256 f32), StaticEmbedder.embed, 1 thread (tokenizer ${stat.tokenizerPath}, pooling ${stat.poolingPath}) | ${fmt(res.staticEmbed, 0)} | ${fmt(res.ratio, 0)}× |`,
    `| … its tokenising alone, fast WordPiece path | ${fmt(res.tokenizeFast, 0)} | |`,
    `| … tokenising with @huggingface/tokenizers | ${fmt(res.tokenizeLibrary, 0)} | |`, '',
    `Query embedding (embedQuery, core, no worker hop): median ${fmt(res.queryMedian, 3)} ms, p95 ${fmt(res.queryP95, 3)} ms. Model load ${fmt(res.loadMs, 0)} ms.`,
  ];
  if (kernel) {
    L.push('', `Kernel subset via the CLI: keyword index ${fmt(kernel.lexicalS, 1)} s; then \`sift index --model potion-shape\` embedded ${kernel.chunks} chunks in ${fmt(kernel.embedS, 1)} s wall ` +
      `(pass ${fmt(kernel.embedRate, 0)} chunks/s); vectors ${fmt(kernel.vectorBytes / 1e6, 1)} MB in the index` +
      (kernel.packBytes !== null ? `; \`sift publish --embed\` ${fmt(kernel.publishS!, 1)} s, pack folder ${fmt(kernel.packBytes / 1e6, 1)} MB.` : '.'));
  }
  return { ...res, markdown: L.join('\n') };
}

const proc = (globalThis as { process?: { argv: string[] } }).process;
if (proc?.argv[1] && /bench\/static\.ts$/.test(proc.argv[1])) {
  const argv = proc.argv.slice(2);
  const rounds = argv.indexOf('--rounds');
  const r = await benchStatic({ quick: argv.includes('--quick'), kernel: argv.includes('--kernel'), rounds: rounds >= 0 ? Number(argv[rounds + 1]) : undefined, log: (l) => console.error(l) });
  console.log(r.markdown);
}
