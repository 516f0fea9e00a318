/**
 * The static (model2vec) embedder against values computed by hand from the generated tiny
 * tables (npm run models: static-tiny, static-tiny-f16, static-tiny-int8; regenerated here when
 * missing or stale): mean of rows, weights by token id, vocabulary mapping, unk removal,
 * character and token truncation, normalize on and off, empty text.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATIC_SPECS, buildVocab, ensureGeneratedModel, staticWeights } from '../../../scripts/gen-models.ts';
import { folderModelFiles } from './model-files-node.ts';
import { parseSafetensors, readFloat32, readInt32, writeSafetensors } from './safetensors.ts';
import { StaticEmbedder, firstCodePoints, medianTokenLength } from './static-embedder.ts';
import { loadEmbedder, detectModelFamily } from './load-embedder.ts';

const MODELS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../models/generated');

interface Tables {
  vocab: Map<string, number>;
  emb: Float32Array;
  dim: number;
  weights: Float32Array | null;
  mapping: Int32Array | null;
}

function tables(name: string): Tables {
  const dir = join(MODELS, name);
  const tok = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } };
  const st = parseSafetensors(new Uint8Array(readFileSync(join(dir, 'model.safetensors'))));
  return {
    vocab: new Map(Object.entries(tok.model.vocab)),
    emb: readFloat32(st, 'embeddings'),
    dim: st.tensors.get('embeddings')!.shape[1]!,
    weights: st.tensors.has('weights') ? readFloat32(st, 'weights') : null,
    mapping: st.tensors.has('mapping') ? readInt32(st, 'mapping') : null,
  };
}

/** The reference by hand: tokens (already split into vocabulary pieces) → mean of weighted rows, normalised or not. */
function byHand(t: Tables, pieces: string[], normalize: boolean): number[] {
  const out = new Array<number>(t.dim).fill(0);
  for (const p of pieces) {
    const id = t.vocab.get(p);
    if (id === undefined) throw new Error(`test vocabulary lacks ${p}`);
    const row = t.mapping ? t.mapping[id]! : id;
    const w = t.weights ? t.weights[id]! : 1;
    for (let d = 0; d < t.dim; d++) out[d] += (w * t.emb[row * t.dim + d]!) / pieces.length;
  }
  if (!normalize) return out;
  const norm = Math.hypot(...out);
  return out.map((x) => x / (norm + 1e-32));
}

function expectClose(got: Float32Array, want: number[]): void {
  expect(got.length).toBe(want.length);
  for (let d = 0; d < want.length; d++) expect(got[d]).toBeCloseTo(want[d]!, 5);
}

describe('StaticEmbedder (generated tiny tables, by hand)', () => {
  let tiny: StaticEmbedder;
  let f16: StaticEmbedder;
  let int8: StaticEmbedder;
  let T: Tables;

  beforeAll(async () => {
    for (const n of ['static-tiny', 'static-tiny-f16', 'static-tiny-int8']) await ensureGeneratedModel(n, MODELS);
    tiny = await StaticEmbedder.load(folderModelFiles(join(MODELS, 'static-tiny')), { modelId: 'static-tiny', batchSize: 2 });
    f16 = await StaticEmbedder.load(folderModelFiles(join(MODELS, 'static-tiny-f16')), { modelId: 'static-tiny-f16' });
    int8 = await StaticEmbedder.load(folderModelFiles(join(MODELS, 'static-tiny-int8')), { modelId: 'static-tiny-int8' });
    T = tables('static-tiny');
  });

  it('reports what it loaded, and its key names family, dtype and token limit', () => {
    expect(tiny.info).toEqual({ modelId: 'static-tiny', device: 'cpu', dtype: 'float32', dim: 8, maxTokens: 512, key: 'static-tiny@static-float32/512', family: 'static' });
    expect(f16.info.key).toBe('static-tiny-f16@static-float16/512');
    expect(int8.info.key).toBe('static-tiny-int8@static-int8/512');
    expect(tiny.tokenizerPath).toBe('wordpiece-fast');
  });

  it('is the weighted mean of the mapped rows, normalised (weights + mapping)', async () => {
    // 'get' twice: counted twice. Upper case is lowercased by the tokenizer's normalizer.
    const v = await tiny.embed(['get set GET', 'file']);
    expectClose(v.subarray(0, 8), byHand(T, ['get', 'set', 'get'], true));
    expectClose(v.subarray(8, 16), byHand(T, ['file'], true));
    expect(Math.hypot(...v.subarray(0, 8))).toBeCloseTo(1, 6);
  });

  it('splits punctuation into tokens', async () => {
    const v = await tiny.embedQuery('user.name');
    expectClose(v, byHand(T, ['user', '.', 'name'], true));
  });

  it('drops unknown tokens before pooling (their rows never count)', async () => {
    // '☃' is not in the ASCII vocabulary: [UNK]; a literal "[UNK]" is the added token [UNK] too.
    const v = await tiny.embed(['get ☃ set', 'get [UNK] set', 'get set']);
    expectClose(v.subarray(0, 8), byHand(T, ['get', 'set'], true));
    expectClose(v.subarray(8, 16), byHand(T, ['get', 'set'], true));
    expect(tiny.countTokens(['get ☃ set', ''])).toEqual([2, 0]);
  });

  it('gives zeros for a text with no known token and for empty text', async () => {
    const v = await tiny.embed(['', '☃☃ ☃', '   ']);
    expect([...v]).toEqual(new Array(24).fill(0));
  });

  it('keeps the first maxTokens tokens (after unk removal)', async () => {
    const two = await StaticEmbedder.load(folderModelFiles(join(MODELS, 'static-tiny')), { modelId: 'static-tiny', maxTokens: 2 });
    // (8 characters survive the character cut: 2 × the median length 4.)
    const v = await two.embedQuery('☃ a b c');
    expectClose(v, byHand(T, ['a', 'b'], true));
    expect(two.info.key).toBe('static-tiny@static-float32/2');
  });

  it('cuts the text to maxTokens × the median token length in characters first (code points)', async () => {
    const vocab = buildVocab(STATIC_SPECS['static-tiny']!.vocabSize, false);
    const lengths = vocab.map((t) => [...t].length).sort((a, b) => a - b);
    const mid = lengths.length >> 1;
    const median = Math.trunc(lengths.length % 2 ? lengths[mid]! : (lengths[mid - 1]! + lengths[mid]!) / 2);
    expect(medianTokenLength(vocab)).toBe(median);
    expect(median).toBe(4);
    // maxTokens 1 → 4 characters: 'parse' becomes 'pars' = pa ##rs, and the one token kept is 'pa'.
    const one = await StaticEmbedder.load(folderModelFiles(join(MODELS, 'static-tiny')), { modelId: 'static-tiny', maxTokens: 1 });
    expect(['parse', 'pa', '##rs'].every((p) => T.vocab.has(p)) && !T.vocab.has('par') && !T.vocab.has('pars')).toBe(true);
    expectClose(await one.embedQuery('parse'), byHand(T, ['pa'], true));
    const two = await StaticEmbedder.load(folderModelFiles(join(MODELS, 'static-tiny')), { modelId: 'static-tiny', maxTokens: 2 });
    expectClose(await two.embedQuery('parse'), byHand(T, ['parse'], true));
    expect(firstCodePoints('a😀bc', 2)).toBe('a😀');
    expect(firstCodePoints('abc', 5)).toBe('abc');
  });

  it('float16 table without normalisation: the plain mean of the rows', async () => {
    const t = tables('static-tiny-f16');
    expect(t.weights).toBeNull();
    const v = await f16.embedQuery('get set set');
    const want = byHand(t, ['get', 'set', 'set'], false);
    expectClose(v, want);
    expect(Math.abs(Math.hypot(...v) - 1)).toBeGreaterThan(0.01);
    // The same rows as the float32 values the generator drew (to float16 precision).
    const gen = staticWeights(STATIC_SPECS['static-tiny-f16']!, t.vocab.size);
    const id = t.vocab.get('get')!;
    for (let d = 0; d < 8; d++) expect(t.emb[id * 8 + d]).toBeCloseTo(gen.table[id * 8 + d]!, 2);
  });

  it('int8 table: the stored integers, unscaled, then normalised — close to the float32 vectors', async () => {
    const t = tables('static-tiny-int8');
    expect(t.emb.every((x) => Number.isInteger(x) && Math.abs(x) <= 127)).toBe(true);
    const v = await int8.embedQuery('parse json config file');
    expectClose(v, byHand(t, ['parse', 'json', 'config', 'file'], true));
    // Against the generator's float32 table and weights: quantisation moves the vector little.
    const gen = staticWeights(STATIC_SPECS['static-tiny-int8']!, t.vocab.size);
    const exact = byHand({ ...t, emb: gen.table, weights: gen.weights }, ['parse', 'json', 'config', 'file'], true);
    let dot = 0;
    for (let d = 0; d < 8; d++) dot += v[d]! * exact[d]!;
    expect(dot).toBeGreaterThan(0.999);
  });

  it('detects the family from the files, whatever the config says', async () => {
    expect((await detectModelFamily(folderModelFiles(join(MODELS, 'static-tiny')))).family).toBe('static');
    // static-tiny-int8 has potion-code-16M's bare config: { normalize, embedding_dtype }.
    expect((await detectModelFamily(folderModelFiles(join(MODELS, 'static-tiny-int8')))).family).toBe('static');
    await ensureGeneratedModel('tiny', MODELS);
    expect((await detectModelFamily(folderModelFiles(join(MODELS, 'tiny')))).family).toBe('transformer');
    const loaded = await loadEmbedder({ files: folderModelFiles(join(MODELS, 'static-tiny')), modelId: 'static-tiny', transformer: {} });
    expect(loaded.info.family).toBe('static');
    expect(await loaded.embedQuery('get set GET')).toEqual(await tiny.embedQuery('get set GET'));
  });
});

describe('StaticEmbedder refuses inconsistent model files', () => {
  // 'truncated' stands for the real table cut short: read when the test runs, after beforeAll
  // generated the model (a clean clone has none when the file is collected).
  const files = (over: Partial<Record<string, Uint8Array | null | 'truncated'>>) => ({
    where: 'mem',
    async read(name: string) {
      const real = () => new Uint8Array(readFileSync(join(MODELS, 'static-tiny', name)));
      if (!(name in over)) return real();
      const o = over[name];
      return o === 'truncated' ? real().subarray(0, 600) : (o ?? null);
    },
  });

  beforeAll(async () => {
    await ensureGeneratedModel('static-tiny', MODELS);
  });

  it.each([
    { name: 'no table', over: { 'model.safetensors': null }, error: 'mem: model.safetensors is missing' },
    { name: 'no tokenizer', over: { 'tokenizer.json': null }, error: 'mem: tokenizer.json is missing' },
    { name: 'truncated table', over: { 'model.safetensors': 'truncated' as const }, error: /the file is truncated/ },
    { name: 'config not JSON', over: { 'config.json': new TextEncoder().encode('{') }, error: /config.json is not valid JSON/ },
  ])('$name', async ({ over, error }) => {
    await expect(StaticEmbedder.load(files(over), { modelId: 'x' })).rejects.toThrow(error);
  });
});

describe('StaticEmbedder on tables wide enough for the SIMD loop (row-pool.ts), by hand', () => {
  // static-tiny's tokenizer and config with a generated 40-wide table (two 16-column SIMD
  // blocks and an 8-column tail) and weights: built in memory when the test runs.
  const DIM = 40;
  let T: Tables;
  let simd: StaticEmbedder;
  let js: StaticEmbedder;

  beforeAll(async () => {
    await ensureGeneratedModel('static-tiny', MODELS);
    const dir = join(MODELS, 'static-tiny');
    const tok = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> }; added_tokens: Array<{ id: number }> };
    const rows = Math.max(...Object.values(tok.model.vocab), ...tok.added_tokens.map((t) => t.id)) + 1;
    let seed = 12345;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    const emb = Float32Array.from({ length: rows * DIM }, rand);
    const weights = Float32Array.from({ length: rows }, () => 0.5 + Math.abs(rand()));
    const bytes = writeSafetensors([
      { name: 'embeddings', dtype: 'F32', shape: [rows, DIM], data: emb },
      { name: 'weights', dtype: 'F32', shape: [rows], data: weights },
    ]);
    const files = {
      where: 'mem',
      async read(name: string) {
        return name === 'model.safetensors' ? bytes : new Uint8Array(readFileSync(join(dir, name)));
      },
    };
    simd = await StaticEmbedder.load(files, { modelId: 'wide' });
    js = await StaticEmbedder.load(files, { modelId: 'wide', forceJsPooling: true });
    T = { vocab: new Map(Object.entries(tok.model.vocab)), emb, dim: DIM, weights, mapping: null };
  });

  it('pools with WebAssembly SIMD in Node, and equals the mean computed by hand', async () => {
    expect(simd.poolingPath).toBe('wasm-simd');
    expect(js.poolingPath).toBe('js');
    const cases: Array<[string, string[]]> = [
      ['get set GET', ['get', 'set', 'get']],
      ['user.name', ['user', '.', 'name']],
      ['parse json config file get', ['parse', 'json', 'config', 'file', 'get']],
    ];
    for (const [text, pieces] of cases) {
      const want = byHand(T, pieces, true);
      expectClose(await simd.embedQuery(text), want);
      expectClose(await js.embedQuery(text), want);
    }
    expect([...await simd.embed(['', '☃'])]).toEqual(new Array(2 * DIM).fill(0));
  });

  it('gives the same vectors as the plain loop to float32 rounding, whatever the batch', async () => {
    const texts = Array.from({ length: 50 }, (_, i) => ['get set', 'file parse json', 'user.name config', 'a b c d'][i % 4]!.repeat(1 + (i % 7)));
    const a = await simd.embed(texts);
    const b = await js.embed(texts);
    let max = 0;
    for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
    expect(max).toBeLessThan(1e-6);
    expect(max).toBeGreaterThanOrEqual(0);
    // A text's vector does not depend on its batch.
    expect([...a.subarray(5 * DIM, 6 * DIM)]).toEqual([...await simd.embedQuery(texts[5]!)]);
  });
});
