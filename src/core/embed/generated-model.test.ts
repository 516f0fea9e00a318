// The generator (scripts/gen-models.ts) checked through the real runtimes: the ONNX files
// load in onnxruntime-node directly, the tokenizer loads in Transformers.js, output is
// byte-for-byte reproducible.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AutoTokenizer, env } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { MODEL_SPECS, SPECIAL_TOKENS, buildVocab, ensureGeneratedModel, generateModel, quantizeUint8 } from '../../../scripts/gen-models.ts';

const MODELS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../models/generated');
let tiny: string;

beforeAll(async () => {
  tiny = await ensureGeneratedModel('tiny', MODELS);
});

function feeds(ids: number[][]): Record<string, ort.Tensor> {
  const b = ids.length;
  const s = Math.max(...ids.map((r) => r.length));
  const input = new BigInt64Array(b * s);
  const mask = new BigInt64Array(b * s);
  ids.forEach((r, i) => r.forEach((id, t) => {
    input[i * s + t] = BigInt(id);
    mask[i * s + t] = 1n;
  }));
  return {
    input_ids: new ort.Tensor('int64', input, [b, s]),
    attention_mask: new ort.Tensor('int64', mask, [b, s]),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(b * s), [b, s]),
  };
}

describe.each(['model.onnx', 'model_quantized.onnx'])('onnxruntime-node loads onnx/%s', (file) => {
  it('with BERT input/output names and dynamic batch × sequence', async () => {
    const session = await ort.InferenceSession.create(join(tiny, 'onnx', file));
    try {
      expect(session.inputNames).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
      expect(session.outputNames).toEqual(['last_hidden_state']);
      for (const ids of [[[2, 40, 3]], [[2, 40, 41, 42, 3], [2, 50, 3]]]) {
        const out = (await session.run(feeds(ids))).last_hidden_state!;
        expect(out.dims).toEqual([ids.length, Math.max(...ids.map((r) => r.length)), 32]);
        const data = out.data as Float32Array;
        expect(data.every(Number.isFinite)).toBe(true);
        // Post-LayerNorm rows: mean ≈ 0, variance ≈ 1 (gamma 1, beta 0 in the last layer).
        const first = Array.from(data.subarray(0, 32));
        const mean = first.reduce((a, x) => a + x, 0) / 32;
        expect(mean).toBeCloseTo(0, 4);
        expect(first.reduce((a, x) => a + (x - mean) ** 2, 0) / 32).toBeCloseTo(1, 2);
      }
    } finally {
      await session.release();
    }
  });
});

describe('generator', () => {
  it('writes the Transformers.js layout, byte-identical across runs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sift-gen-'));
    try {
      const sizes = await generateModel(MODEL_SPECS.tiny!, dir);
      expect(Object.keys(sizes).sort()).toEqual([
        'config.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx', 'special_tokens_map.json',
        'tokenizer.json', 'tokenizer_config.json', 'vocab.txt',
      ]);
      for (const f of Object.keys(sizes)) {
        expect(Buffer.compare(await readFile(join(dir, f)), await readFile(join(tiny, f)))).toBe(0);
      }
      expect(sizes['onnx/model_quantized.onnx']!).toBeLessThan(sizes['onnx/model.onnx']! / 2);
      const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
      expect(config).toMatchObject({ model_type: 'bert', hidden_size: 32, num_hidden_layers: 2, num_attention_heads: 2, intermediate_size: 64 });
      const tokConfig = JSON.parse(await readFile(join(dir, 'tokenizer_config.json'), 'utf8'));
      expect(tokConfig).toMatchObject({ model_max_length: 256, do_lower_case: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    { size: 0, trigrams: false },
    { size: 30522, trigrams: true },
  ])('builds a vocabulary (size $size)', ({ size, trigrams }) => {
    const vocab = buildVocab(size, trigrams);
    if (size) expect(vocab.length).toBe(size);
    else expect(vocab.length).toBeGreaterThan(2000);
    expect(vocab.slice(0, 5)).toEqual([...SPECIAL_TOKENS]);
    expect(new Set(vocab).size).toBe(vocab.length);
  });

  it('quantises to uint8 with 0 exact and error ≤ scale/2', () => {
    const data = Float32Array.from([-0.1, -0.05, 0, 0.02, 0.3]);
    const { q, scale, zeroPoint } = quantizeUint8(data);
    expect(q[2]).toBe(zeroPoint);
    data.forEach((x, i) => expect(Math.abs((q[i]! - zeroPoint) * scale - x)).toBeLessThanOrEqual(scale / 2 + 1e-9));
  });

  it('tokenizes code into WordPiece pieces with [CLS]/[SEP]', async () => {
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    env.localModelPath = MODELS;
    const tok = await AutoTokenizer.from_pretrained('tiny');
    expect(tok.tokenize('getUserName(path)')).toEqual(['get', '##user', '##name', '(', 'path', ')']);
    expect(tok.tokenize('Zebra')).toEqual(['ze', '##br', '##a']);
    const ids = tok.encode('hello');
    expect(ids[0]).toBe(tok.convert_tokens_to_ids('[CLS]'));
    expect(ids.at(-1)).toBe(tok.convert_tokens_to_ids('[SEP]'));
    expect(tok.model_max_length).toBe(256);
  });
});
