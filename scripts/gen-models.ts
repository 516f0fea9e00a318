/**
 * Generates the offline test models: BERT-architecture ONNX files with seeded weights
 * plus a WordPiece tokenizer, in the Transformers.js folder layout
 * (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx,
 * onnx/model_quantized.onnx).
 *
 *   npm run models                      # every model into models/generated/
 *   npm run models -- --only tiny       # just one
 *   npm run models -- --out DIR         # another output root
 *
 * Also static (model2vec-format) models, STATIC_SPECS: config.json, tokenizer.json (the same
 * generated WordPiece vocabulary) and model.safetensors with `embeddings` [vocab × dim] and,
 * per spec, `weights` [vocab] and `mapping` [vocab] (vocabulary quantisation), stored as
 * float32, float16 or int8 the way model2vec stores them. `potion-shape` has the shape of
 * minishlab's potion models (30,522-token WordPiece, 256 dims, float32, normalize).
 *
 * Invariants:
 * - Output is a pure function of the spec (seeded PRNG, fixed vocabulary): two runs
 *   write byte-identical files, so tests can regenerate at will.
 * - The graph has inputs input_ids / attention_mask / token_type_ids (int64,
 *   [batch, sequence_length]) and output last_hidden_state (float32,
 *   [batch, sequence_length, hidden]) like a real BERT export; batch and sequence
 *   axes are dynamic.
 * - fp32 and q8 files carry the same weights; q8 is ONNX Runtime's dynamic
 *   quantisation pattern (DynamicQuantizeLinear + MatMulInteger for every weight
 *   MatMul, uint8 word embeddings + DequantizeLinear), which ORT CPU and wasm run.
 * - Random weights carry no meaning, so the embedding scale of positions and token
 *   types is kept below that of words: mean-pooled vectors then reflect which tokens
 *   a text contains, and texts that share tokens are closer than unrelated texts.
 *
 * The ONNX protobuf is hand-encoded (field numbers from onnx/onnx.proto); no deps.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeSafetensors, type SafetensorsDtype } from '../src/core/embed/safetensors.ts';

// ---- tuning constants -------------------------------------------------------------

export const OPSET = 14;
/** IR version 7 is what opset 14 exporters write; ORT 1.30 reads up to 10+. */
const IR_VERSION = 7;
const MAX_POSITIONS = 512;
const TYPE_VOCAB = 2;
const LAYER_NORM_EPS = 1e-12;
/** BERT's initializer_range. */
const INIT_STD = 0.02;
/** Position / token-type embeddings relative to word embeddings (see invariants). */
const POSITION_STD_SCALE = 0.1;
const TYPE_STD_SCALE = 0.1;
/** Additive attention bias for padding (classic BERT; exp underflows to exactly 0). */
const MASK_BIAS = -10000;
export const MODEL_MAX_LENGTH = 256;
const SEED = 0x5eed;
/** Bump when the output changes; ensureGeneratedModel regenerates stale folders. */
export const GENERATOR_VERSION = 1;

export interface ModelSpec {
  name: string;
  layers: number;
  hidden: number;
  heads: number;
  intermediate: number;
  /** Exact vocabulary size; the generated vocabulary is padded/clipped to it. */
  vocabSize: number;
  /** Use letter trigrams as pieces (larger, more realistic vocabulary). */
  trigrams: boolean;
}

export const MODEL_SPECS: Record<string, ModelSpec> = {
  tiny: { name: 'tiny', layers: 2, hidden: 32, heads: 2, intermediate: 64, vocabSize: 0, trigrams: false },
  'minilm-shape': {
    name: 'minilm-shape',
    layers: 6,
    hidden: 384,
    heads: 12,
    intermediate: 1536,
    vocabSize: 30522,
    trigrams: true,
  },
};

// ---- seeded PRNG ------------------------------------------------------------------

/** mulberry32 + Box–Muller: small, fast and identical on every platform. */
export class Rng {
  private state: number;
  private spare: number | null = null;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  uniform(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    const u = Math.max(this.uniform(), 1e-12);
    const v = this.uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }
  normalArray(n: number, std: number): Float32Array {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = this.normal() * std;
    return a;
  }
}

// ---- protobuf writer --------------------------------------------------------------

type Bytes = Uint8Array;
const utf8 = new TextEncoder();

function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

/** A protobuf message under construction: a list of byte parts, concatenated once. */
class Msg {
  private parts: Bytes[] = [];
  private size = 0;
  private push(b: Bytes): this {
    this.parts.push(b);
    this.size += b.length;
    return this;
  }
  private key(field: number, wire: number): this {
    return this.push(Uint8Array.from(varint((field << 3) | wire)));
  }
  int(field: number, v: number | bigint): this {
    return this.key(field, 0).push(Uint8Array.from(varint(v)));
  }
  float(field: number, v: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    return this.key(field, 5).push(b);
  }
  bytes(field: number, b: Bytes): this {
    return this.key(field, 2).push(Uint8Array.from(varint(b.length))).push(b);
  }
  str(field: number, s: string): this {
    return this.bytes(field, utf8.encode(s));
  }
  msg(field: number, m: Msg): this {
    return this.bytes(field, m.finish());
  }
  finish(): Bytes {
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

// onnx.proto TensorProto.DataType
const FLOAT = 1;
const UINT8 = 2;
const INT64 = 7;

type AttrValue = number | number[] | string | { float: number };

function attribute(name: string, v: AttrValue): Msg {
  const a = new Msg().str(1, name);
  // AttributeType: FLOAT=1 INT=2 STRING=3 INTS=7
  if (typeof v === 'number') return a.int(3, v).int(20, 2);
  if (typeof v === 'string') return a.str(4, v).int(20, 3);
  if (Array.isArray(v)) {
    for (const x of v) a.int(8, x);
    return a.int(20, 7);
  }
  return a.float(2, v.float).int(20, 1);
}

interface Tensor {
  dims: number[];
  type: number;
  data: Float32Array | Uint8Array | BigInt64Array;
}

function tensorProto(name: string, t: Tensor): Msg {
  const m = new Msg();
  for (const d of t.dims) m.int(1, d);
  m.int(2, t.type);
  m.str(8, name);
  const d = t.data;
  return m.bytes(9, new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
}

function valueInfo(name: string, elemType: number, dims: Array<number | string>): Msg {
  const shape = new Msg();
  for (const d of dims) shape.msg(1, typeof d === 'number' ? new Msg().int(1, d) : new Msg().str(2, d));
  const tensorType = new Msg().int(1, elemType).msg(2, shape);
  return new Msg().str(1, name).msg(2, new Msg().msg(1, tensorType));
}

/** Collects nodes and initializers; names are generated so the graph stays readable. */
class Graph {
  nodes: Msg[] = [];
  inits: Msg[] = [];
  private n = 0;
  private constCache = new Map<string, string>();

  op(opType: string, inputs: string[], attrs: Record<string, AttrValue> = {}, outputs = 1): string[] {
    const id = this.n++;
    const outs = Array.from({ length: outputs }, (_, i) => `${opType}_${id}${outputs > 1 ? `_${i}` : ''}`);
    const node = new Msg();
    for (const i of inputs) node.str(1, i);
    for (const o of outs) node.str(2, o);
    node.str(3, `${opType}_${id}`).str(4, opType);
    for (const [k, v] of Object.entries(attrs)) node.msg(5, attribute(k, v));
    this.nodes.push(node);
    return outs;
  }
  op1(opType: string, inputs: string[], attrs: Record<string, AttrValue> = {}): string {
    return this.op(opType, inputs, attrs, 1)[0]!;
  }
  init(name: string, t: Tensor): string {
    this.inits.push(tensorProto(name, t));
    return name;
  }
  /** Scalar / small constants, deduplicated by value. */
  constF(v: number): string {
    return this.cached(`f${v}`, () => ({ dims: [], type: FLOAT, data: Float32Array.of(v) }));
  }
  constI64(v: number[]): string {
    return this.cached(`i${v.join('_')}`, () => ({ dims: [v.length], type: INT64, data: BigInt64Array.from(v.map(BigInt)) }));
  }
  private cached(key: string, make: () => Tensor): string {
    let name = this.constCache.get(key);
    if (!name) {
      name = this.init(`const_${this.constCache.size}`, make());
      this.constCache.set(key, name);
    }
    return name;
  }
}

// ---- weights ----------------------------------------------------------------------

export type Weights = Map<string, { dims: number[]; data: Float32Array }>;

/** All parameters, drawn in a fixed order so the same spec always gives the same weights. */
export function makeWeights(spec: ModelSpec, vocabSize: number, seed = SEED): Weights {
  const rng = new Rng(seed);
  const w: Weights = new Map();
  const H = spec.hidden;
  const I = spec.intermediate;
  const normal = (name: string, dims: number[], std = INIT_STD) =>
    w.set(name, { dims, data: rng.normalArray(dims.reduce((a, b) => a * b, 1), std) });
  const fill = (name: string, dims: number[], v: number) =>
    w.set(name, { dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(v) });
  normal('embeddings.word', [vocabSize, H]);
  normal('embeddings.position', [MAX_POSITIONS, H], INIT_STD * POSITION_STD_SCALE);
  normal('embeddings.token_type', [TYPE_VOCAB, H], INIT_STD * TYPE_STD_SCALE);
  fill('embeddings.ln.gamma', [H], 1);
  fill('embeddings.ln.beta', [H], 0);
  for (let l = 0; l < spec.layers; l++) {
    const p = `layer${l}.`;
    for (const m of ['q', 'k', 'v', 'o']) {
      normal(`${p}attn.${m}.w`, [H, H]);
      fill(`${p}attn.${m}.b`, [H], 0);
    }
    fill(`${p}attn.ln.gamma`, [H], 1);
    fill(`${p}attn.ln.beta`, [H], 0);
    normal(`${p}ffn.in.w`, [H, I]);
    fill(`${p}ffn.in.b`, [I], 0);
    normal(`${p}ffn.out.w`, [I, H]);
    fill(`${p}ffn.out.b`, [H], 0);
    fill(`${p}ffn.ln.gamma`, [H], 1);
    fill(`${p}ffn.ln.beta`, [H], 0);
  }
  return w;
}

// ---- quantisation -----------------------------------------------------------------

/** Per-tensor asymmetric uint8, as onnxruntime.quantization.quantize_dynamic does. */
export function quantizeUint8(data: Float32Array): { q: Uint8Array; scale: number; zeroPoint: number } {
  let min = 0;
  let max = 0; // the range must include 0 so that 0 is exact
  for (const v of data) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const scale = (max - min) / 255 || 1;
  const zeroPoint = Math.min(255, Math.max(0, Math.round(-min / scale)));
  const q = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) q[i] = Math.min(255, Math.max(0, Math.round(data[i]! / scale) + zeroPoint));
  return { q, scale, zeroPoint };
}

// ---- the BERT graph ---------------------------------------------------------------

export function buildBertOnnx(spec: ModelSpec, weights: Weights, quantized: boolean): Uint8Array {
  const g = new Graph();
  const H = spec.hidden;
  const heads = spec.heads;
  const headDim = H / heads;
  const param = (name: string): string => {
    const t = weights.get(name);
    if (!t) throw new Error(`missing weight ${name}`);
    return g.init(name, { dims: t.dims, type: FLOAT, data: t.data });
  };
  // Inputs quantised once and shared by every MatMul that reads them (Q/K/V share one).
  const quantizedInputs = new Map<string, [string, string, string]>();

  const linear = (x: string, name: string): string => {
    let y: string;
    if (!quantized) {
      y = g.op1('MatMul', [x, param(`${name}.w`)]);
    } else {
      const t = weights.get(`${name}.w`)!;
      const { q, scale, zeroPoint } = quantizeUint8(t.data);
      const wq = g.init(`${name}.w_quantized`, { dims: t.dims, type: UINT8, data: q });
      const ws = g.init(`${name}.w_scale`, { dims: [], type: FLOAT, data: Float32Array.of(scale) });
      const wz = g.init(`${name}.w_zero_point`, { dims: [], type: UINT8, data: Uint8Array.of(zeroPoint) });
      let xq = quantizedInputs.get(x);
      if (!xq) {
        const outs = g.op('DynamicQuantizeLinear', [x], {}, 3);
        xq = [outs[0]!, outs[1]!, outs[2]!];
        quantizedInputs.set(x, xq);
      }
      const acc = g.op1('MatMulInteger', [xq[0], wq, xq[2], wz]);
      const accF = g.op1('Cast', [acc], { to: FLOAT });
      const s = g.op1('Mul', [xq[1], ws]);
      y = g.op1('Mul', [accF, s]);
    }
    return g.op1('Add', [y, param(`${name}.b`)]);
  };

  // Decomposed exactly as torch exports it, so ORT's LayerNormFusion recognises it.
  const layerNorm = (x: string, name: string): string => {
    const mean = g.op1('ReduceMean', [x], { axes: [-1] });
    const d = g.op1('Sub', [x, mean]);
    const variance = g.op1('ReduceMean', [g.op1('Pow', [d, g.constF(2)])], { axes: [-1] });
    const std = g.op1('Sqrt', [g.op1('Add', [variance, g.constF(LAYER_NORM_EPS)])]);
    const normed = g.op1('Div', [d, std]);
    return g.op1('Add', [g.op1('Mul', [normed, param(`${name}.gamma`)]), param(`${name}.beta`)]);
  };

  // Erf GELU in the torch export pattern (ORT fuses it to Gelu).
  const gelu = (x: string): string => {
    const erf = g.op1('Erf', [g.op1('Div', [x, g.constF(Math.SQRT2)])]);
    return g.op1('Mul', [g.op1('Mul', [x, g.op1('Add', [erf, g.constF(1)])]), g.constF(0.5)]);
  };

  // Embeddings.
  let words: string;
  if (quantized) {
    const t = weights.get('embeddings.word')!;
    const { q, scale, zeroPoint } = quantizeUint8(t.data);
    const wq = g.init('embeddings.word_quantized', { dims: t.dims, type: UINT8, data: q });
    const ws = g.init('embeddings.word_scale', { dims: [], type: FLOAT, data: Float32Array.of(scale) });
    const wz = g.init('embeddings.word_zero_point', { dims: [], type: UINT8, data: Uint8Array.of(zeroPoint) });
    words = g.op1('DequantizeLinear', [g.op1('Gather', [wq, 'input_ids']), ws, wz]);
  } else {
    words = g.op1('Gather', [param('embeddings.word'), 'input_ids']);
  }
  const seqLen = g.op1('Slice', [g.op1('Shape', ['input_ids']), g.constI64([1]), g.constI64([2])]);
  const positions = g.op1('Slice', [param('embeddings.position'), g.constI64([0]), seqLen, g.constI64([0])]);
  const types = g.op1('Gather', [param('embeddings.token_type'), 'token_type_ids']);
  let x = layerNorm(g.op1('Add', [g.op1('Add', [words, positions]), types]), 'embeddings.ln');

  // Attention mask → additive bias [batch, 1, 1, seq].
  const mask = g.op1('Cast', [g.op1('Unsqueeze', ['attention_mask', g.constI64([1, 2])])], { to: FLOAT });
  const bias = g.op1('Mul', [g.op1('Sub', [g.constF(1), mask]), g.constF(MASK_BIAS)]);
  const splitHeads = g.constI64([0, 0, heads, headDim]);
  const mergeHeads = g.constI64([0, 0, H]);

  for (let l = 0; l < spec.layers; l++) {
    const p = `layer${l}.`;
    const q = g.op1('Transpose', [g.op1('Reshape', [linear(x, `${p}attn.q`), splitHeads])], { perm: [0, 2, 1, 3] });
    const k = g.op1('Transpose', [g.op1('Reshape', [linear(x, `${p}attn.k`), splitHeads])], { perm: [0, 2, 3, 1] });
    const v = g.op1('Transpose', [g.op1('Reshape', [linear(x, `${p}attn.v`), splitHeads])], { perm: [0, 2, 1, 3] });
    const scores = g.op1('Add', [g.op1('Div', [g.op1('MatMul', [q, k]), g.constF(Math.sqrt(headDim))]), bias]);
    const probs = g.op1('Softmax', [scores], { axis: -1 });
    const ctx = g.op1('Transpose', [g.op1('MatMul', [probs, v])], { perm: [0, 2, 1, 3] });
    const merged = g.op1('Reshape', [ctx, mergeHeads]);
    x = layerNorm(g.op1('Add', [linear(merged, `${p}attn.o`), x]), `${p}attn.ln`);
    const ffn = linear(gelu(linear(x, `${p}ffn.in`)), `${p}ffn.out`);
    x = layerNorm(g.op1('Add', [ffn, x]), `${p}ffn.ln`);
  }
  g.nodes.push(new Msg().str(1, x).str(2, 'last_hidden_state').str(3, 'output').str(4, 'Identity'));

  const graph = new Msg();
  for (const n of g.nodes) graph.msg(1, n);
  graph.str(2, `sift-bert-${spec.name}`);
  for (const i of g.inits) graph.msg(5, i);
  for (const name of ['input_ids', 'attention_mask', 'token_type_ids']) {
    graph.msg(11, valueInfo(name, INT64, ['batch_size', 'sequence_length']));
  }
  graph.msg(12, valueInfo('last_hidden_state', FLOAT, ['batch_size', 'sequence_length', H]));

  return new Msg()
    .int(1, IR_VERSION)
    .str(2, 'sift-gen-models')
    .str(3, '1')
    .msg(8, new Msg().str(1, '').int(2, OPSET))
    .msg(7, graph)
    .finish();
}

// ---- tokenizer --------------------------------------------------------------------

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

/** Frequent code and English words; each is also added as a `##` continuation piece. */
const WORDS = `
the of and to in is it for on that this with as be are by or not from at an have was
can will if else elif then when where which while return returns function def class
struct interface enum type types const let var val static public private protected
import export default from package module use using namespace new delete null nil
none true false self this super void int float double string str bool boolean char
byte long short unsigned signed list dict map set array vec slice tuple option result
error err ok some async await yield try catch except finally throw raise panic go
defer chan select switch case break continue do loop each impl trait where mut ref
get set add remove insert update create read write open close load save parse format
print log debug info warn fatal init start stop run exec call apply bind send recv
request response http https url uri path file dir name value key index count size len
length data user users id ids config options settings params args kwargs env context
ctx handler handle event events listener callback promise future stream buffer bytes
query search find match filter sort order limit offset page token tokens auth login
logout password hash sha encode decode json xml html css yaml toml sql db database table
row column schema model view controller service client server api route router test
tests assert expect mock spec fixture setup teardown main app application cache store
queue stack node tree graph edge vertex parent child children root left right next prev
head tail first last min max sum avg total number numbers text message messages time
date timestamp timeout delay retry attempt lock mutex thread threads worker workers
pool task tasks job jobs process state status mode level kind flag flags version
source target input output result results item items element elements object objects
field fields method methods property properties attribute attributes component render
template style layout widget button form input label image file files upload download
connect connection socket port host address network packet header headers body content
memory alloc free malloc pointer ptr size_t struct union typedef include define ifdef
endif pragma macro inline extern volatile register goto sizeof template typename
virtual override final abstract extends implements instanceof typeof keyof readonly
compute calculate convert transform validate check verify sanitize escape split join
trim replace merge copy clone compare equal equals contains includes exists empty
clear reset refresh reload fetch pull push commit branch tag merge diff patch build
compile link install deploy release upload sync async lambda closure scope global local
matrix vector tensor embedding embeddings layer layers weight weights bias batch
score rank ranking fuse fusion chunk chunks walker parser lexer grammar syntax ast
git github repo repository issue issues document documents docs readme license
`;

const SUFFIXES = ['s', 'es', 'ed', 'er', 'ers', 'ing', 'ion', 'tion', 'ly', 'al', 'able', 'ment', 'ness', 'ize', 'ise', 'ity', 'or', 'ors', 'ic', 'ive'];

/**
 * The WordPiece vocabulary, in id order: specials, single characters (initial and
 * `##`), words and suffixes (initial and `##`), letter bigrams, optionally trigrams,
 * then `[unusedN]` up to `size` (0 = no padding).
 */
export function buildVocab(size: number, trigrams: boolean): string[] {
  const vocab: string[] = [];
  const seen = new Set<string>();
  const add = (t: string) => {
    if (!seen.has(t)) {
      seen.add(t);
      vocab.push(t);
    }
  };
  SPECIAL_TOKENS.forEach(add);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const alnum = letters + '0123456789';
  for (let c = 0x21; c < 0x7f; c++) {
    const ch = String.fromCharCode(c);
    if (ch >= 'A' && ch <= 'Z') continue; // lower-cased by the normalizer
    add(ch);
  }
  for (const ch of alnum) add(`##${ch}`);
  const words = WORDS.split(/\s+/).filter(Boolean);
  for (const w of words) add(w);
  for (const w of words) add(`##${w}`);
  for (const s of SUFFIXES) add(`##${s}`);
  for (const a of letters) for (const b of letters) add(a + b);
  for (const a of letters) for (const b of letters) add(`##${a}${b}`);
  if (trigrams) {
    for (const a of letters) for (const b of letters) for (const c of letters) add(a + b + c);
    for (const a of letters) for (const b of letters) for (const c of letters) {
      if (size && vocab.length >= size) break;
      add(`##${a}${b}${c}`);
    }
  }
  if (size) {
    if (vocab.length > size) vocab.length = size;
    for (let i = 0; vocab.length < size; i++) add(`[unused${i}]`);
  }
  return vocab;
}

export function tokenizerJson(vocab: string[]): unknown {
  const id = (t: string) => vocab.indexOf(t);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((t) => ({
      id: id(t), content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
    })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  };
}

const SPECIAL_MAP = { cls_token: '[CLS]', mask_token: '[MASK]', pad_token: '[PAD]', sep_token: '[SEP]', unk_token: '[UNK]' };

export function tokenizerConfigJson(): unknown {
  return {
    clean_up_tokenization_spaces: true,
    ...SPECIAL_MAP,
    do_basic_tokenize: true,
    do_lower_case: true,
    model_max_length: MODEL_MAX_LENGTH,
    never_split: null,
    strip_accents: null,
    tokenize_chinese_chars: true,
    tokenizer_class: 'BertTokenizer',
  };
}

export function configJson(spec: ModelSpec, vocabSize: number): unknown {
  return {
    _name_or_path: `sift-generated/${spec.name}`,
    sift_generator_version: GENERATOR_VERSION,
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_act: 'gelu',
    hidden_size: spec.hidden,
    num_attention_heads: spec.heads,
    num_hidden_layers: spec.layers,
    intermediate_size: spec.intermediate,
    vocab_size: vocabSize,
    max_position_embeddings: MAX_POSITIONS,
    type_vocab_size: TYPE_VOCAB,
    layer_norm_eps: LAYER_NORM_EPS,
    initializer_range: INIT_STD,
    pad_token_id: 0,
    position_embedding_type: 'absolute',
  };
}

// ---- writing ----------------------------------------------------------------------

export interface GenerateOptions {
  /** Also write onnx/model_quantized.onnx (default true). */
  quantized?: boolean;
}

/** Writes one model folder; returns the files written with their sizes in bytes. */
export async function generateModel(spec: ModelSpec, dir: string, opts: GenerateOptions = {}): Promise<Record<string, number>> {
  const vocab = buildVocab(spec.vocabSize, spec.trigrams);
  const weights = makeWeights(spec, vocab.length);
  const files: Record<string, Uint8Array | string> = {
    'tokenizer.json': JSON.stringify(tokenizerJson(vocab)),
    'tokenizer_config.json': JSON.stringify(tokenizerConfigJson(), null, 2) + '\n',
    'special_tokens_map.json': JSON.stringify(SPECIAL_MAP, null, 2) + '\n',
    'vocab.txt': vocab.join('\n') + '\n',
    'onnx/model.onnx': buildBertOnnx(spec, weights, false),
  };
  if (opts.quantized !== false) files['onnx/model_quantized.onnx'] = buildBertOnnx(spec, weights, true);
  // Written last: a config.json with the current version marks a complete folder.
  files['config.json'] = JSON.stringify(configJson(spec, vocab.length), null, 2) + '\n';
  await mkdir(join(dir, 'onnx'), { recursive: true });
  return writeModelFiles(dir, files);
}

/**
 * Writes a model folder's files in order (config.json last) and returns their sizes. Each is
 * written then renamed: a concurrent reader (another test file) never sees half a file.
 */
async function writeModelFiles(dir: string, files: Record<string, Uint8Array | string>): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const [name, body] of Object.entries(files)) {
    const tmp = join(dir, `${name}.${process.pid}.tmp`);
    await writeFile(tmp, body);
    await rename(tmp, join(dir, name));
    sizes[name] = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  }
  return sizes;
}


// ---- static (model2vec) models ------------------------------------------------------

/** Bump when a static model's output changes (independent of GENERATOR_VERSION). */
export const STATIC_GENERATOR_VERSION = 1;

export interface StaticSpec {
  name: string;
  /** Exact vocabulary size (0: the small vocabulary without padding). */
  vocabSize: number;
  trigrams: boolean;
  dim: number;
  dtype: 'float32' | 'float16' | 'int8';
  normalize: boolean;
  /** Per-token weights (model2vec's `weights`, by original token id). */
  weights: boolean;
  /** Vocabulary quantisation: this many table rows and a `mapping` from token id to row. */
  clusters?: number;
  /** config.json as old potion models write it (model_type, hidden_dim) or as potion-code-16M (neither). */
  configStyle: 'model2vec' | 'bare';
}

export const STATIC_SPECS: Record<string, StaticSpec> = {
  'potion-shape': { name: 'potion-shape', vocabSize: 30522, trigrams: true, dim: 256, dtype: 'float32', normalize: true, weights: false, configStyle: 'bare' },
  'static-tiny': { name: 'static-tiny', vocabSize: 0, trigrams: false, dim: 8, dtype: 'float32', normalize: true, weights: true, clusters: 64, configStyle: 'model2vec' },
  'static-tiny-f16': { name: 'static-tiny-f16', vocabSize: 0, trigrams: false, dim: 8, dtype: 'float16', normalize: false, weights: false, configStyle: 'model2vec' },
  'static-tiny-int8': { name: 'static-tiny-int8', vocabSize: 0, trigrams: false, dim: 8, dtype: 'int8', normalize: true, weights: true, configStyle: 'bare' },
};

/** float32 → float16 bits, round to nearest even (as numpy's astype(float16)). */
export function toHalf(x: number): number {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  let mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let r = mant >> shift;
    const rest = mant & ((1 << shift) - 1);
    if (rest > half || (rest === half && r & 1)) r++;
    return sign | r;
  }
  let r = mant >> 13;
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && r & 1)) {
    r++;
    if (r === 0x400) {
      r = 0;
      e++;
      if (e >= 0x1f) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | r;
}

/**
 * model2vec's int8 quantisation (quantization.py): scale = max|x| / 127, x / scale rounded
 * half to even and clipped to ±127; the scale is not stored (normalising cancels it).
 */
export function quantizeInt8(x: Float32Array): Int8Array {
  let max = 0;
  for (const v of x) max = Math.max(max, Math.abs(v));
  const scale = max / 127 || 1;
  const out = new Int8Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const q = x[i] / scale;
    const f = Math.floor(q);
    const r = q - f > 0.5 || (q - f === 0.5 && f % 2 !== 0) ? f + 1 : f;
    out[i] = Math.max(-127, Math.min(127, r));
  }
  return out;
}

/** The float32 values of a static spec: the table, weights and mapping (seeded). */
export function staticWeights(spec: StaticSpec, vocab: number): { table: Float32Array; rows: number; weights: Float32Array | null; mapping: Int32Array | null } {
  const rng = new Rng(SEED ^ 0x57a71c);
  const rows = spec.clusters ?? vocab;
  const table = rng.normalArray(rows * spec.dim, 1);
  const weights = spec.weights ? Float32Array.from({ length: vocab }, () => 0.25 + rng.uniform() * 1.75) : null;
  const mapping = spec.clusters ? Int32Array.from({ length: vocab }, (_, i) => (i * 7919) % rows) : null;
  return { table, rows, weights, mapping };
}

export async function generateStaticModel(spec: StaticSpec, dir: string): Promise<Record<string, number>> {
  const vocab = buildVocab(spec.vocabSize, spec.trigrams);
  const { table, rows, weights, mapping } = staticWeights(spec, vocab.length);
  const stored: { dtype: SafetensorsDtype; data: ArrayBufferView } =
    spec.dtype === 'float32' ? { dtype: 'F32', data: table }
    : spec.dtype === 'float16' ? { dtype: 'F16', data: Uint16Array.from(table, toHalf) }
    : { dtype: 'I8', data: quantizeInt8(table) };
  const tensors = [{ name: 'embeddings', shape: [rows, spec.dim], ...stored }];
  if (weights) tensors.push({ name: 'weights', dtype: 'F32', shape: [vocab.length], data: weights });
  if (mapping) tensors.push({ name: 'mapping', dtype: 'I32', shape: [vocab.length], data: mapping });
  const config: Record<string, unknown> = spec.configStyle === 'model2vec'
    ? { model_type: 'model2vec', tokenizer_name: 'sift-generated', apply_pca: spec.dim, hidden_dim: spec.dim, normalize: spec.normalize, embedding_dtype: spec.dtype }
    : { normalize: spec.normalize, embedding_dtype: spec.dtype };
  if (mapping) config.vocabulary_quantization = rows;
  config.sift_static_generator_version = STATIC_GENERATOR_VERSION;
  const files: Record<string, Uint8Array | string> = {
    'tokenizer.json': JSON.stringify(tokenizerJson(vocab)),
    'model.safetensors': writeSafetensors(tensors),
    'modules.json': JSON.stringify([{ idx: 0, name: '0', path: '.', type: 'sentence_transformers.models.StaticEmbedding' }], null, 4) + '\n',
    // Written last: a config.json with the current version marks a complete folder.
    'config.json': JSON.stringify(config, null, 4) + '\n',
  };
  await mkdir(dir, { recursive: true });
  return writeModelFiles(dir, files);
}

/**
 * Generates `<out>/<name>` unless a complete folder from this generator version is
 * there; returns the folder. For tests and scripts that need a model offline.
 */
export async function ensureGeneratedModel(name = 'tiny', out = 'models/generated'): Promise<string> {
  const spec = MODEL_SPECS[name];
  const staticSpec = STATIC_SPECS[name];
  if (!spec && !staticSpec) throw new Error(`unknown model ${name}`);
  const dir = resolve(out, name);
  try {
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as { sift_generator_version?: number; sift_static_generator_version?: number };
    if (spec && config.sift_generator_version === GENERATOR_VERSION) return dir;
    if (staticSpec && config.sift_static_generator_version === STATIC_GENERATOR_VERSION) return dir;
  } catch {
    // Missing or unreadable: generate below.
  }
  if (spec) await generateModel(spec, dir);
  else await generateStaticModel(staticSpec!, dir);
  return dir;
}

function parseArgs(argv: string[]): { only: string[]; out: string } {
  const all = [...Object.keys(MODEL_SPECS), ...Object.keys(STATIC_SPECS)];
  let only = all;
  let out = 'models/generated';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--only') {
      const v = argv[++i] ?? '';
      if (!all.includes(v)) throw new Error(`--only expects one of ${all.join(', ')}`);
      only = only === all ? [v] : [...only, v];
    } else if (a === '--out') {
      out = argv[++i] ?? out;
    } else {
      throw new Error(`unknown argument ${a}; usage: gen-models [--only NAME]... [--out DIR] (names: ${all.join(', ')})`);
    }
  }
  return { only, out };
}

async function main(): Promise<void> {
  const { only, out } = parseArgs(process.argv.slice(2));
  for (const name of only) {
    const t0 = performance.now();
    const dir = resolve(out, name);
    const mb = (n: number) => (n / 1e6).toFixed(1);
    if (STATIC_SPECS[name]) {
      const sizes = await generateStaticModel(STATIC_SPECS[name], dir);
      console.log(`${name}: ${dir} (static, ${STATIC_SPECS[name].dtype}, model.safetensors ${mb(sizes['model.safetensors']!)} MB, ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
      continue;
    }
    const sizes = await generateModel(MODEL_SPECS[name]!, dir);
    console.log(
      `${name}: ${dir} (fp32 ${mb(sizes['onnx/model.onnx']!)} MB, q8 ${mb(sizes['onnx/model_quantized.onnx']!)} MB, ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
