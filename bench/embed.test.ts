import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureGeneratedModel } from '../scripts/gen-models.ts';
import { Embedder } from '../src/core/embed/embedder.ts';
import { NativeEmbedder, benchBatches, encodeTexts, loadBenchTokenizer, truncateIds } from './embed.ts';

const MODELS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../models/generated');

describe('truncateIds', () => {
  it.each([
    { ids: [101, 5, 6, 102], max: 8, want: [101, 5, 6, 102] },
    { ids: [101, 5, 6, 7, 8, 102], max: 4, want: [101, 5, 6, 102] },
    { ids: [101, 5, 102], max: 3, want: [101, 5, 102] },
  ])('$ids to $max', ({ ids, max, want }) => {
    expect(truncateIds(ids, max)).toEqual(want);
  });
});

describe('benchBatches', () => {
  it.each([
    { lengths: [3, 9, 1, 7, 5], size: 2, bucketed: false, want: [[0, 1], [2, 3], [4]] },
    { lengths: [3, 9, 1, 7, 5], size: 2, bucketed: true, want: [[1, 3], [4, 0], [2]] },
    { lengths: [], size: 32, bucketed: false, want: [] },
  ])('bucketed=$bucketed $lengths', ({ lengths, size, bucketed, want }) => {
    expect(benchBatches(lengths, size, bucketed)).toEqual(want);
  });
});

describe('NativeEmbedder on the identical token batches', () => {
  const texts = [
    'function getUserName(user) { return user.name; }',
    'func (s *Server) ServeHTTP(w ResponseWriter, r *Request) { s.handler.ServeHTTP(w, r) }',
    'x',
    'const cache = new Map(); export function lookup(key) { return cache.get(key) ?? compute(key); }'.repeat(30),
  ];
  beforeAll(async () => {
    await ensureGeneratedModel('tiny', MODELS);
  });

  it.each(['fp32', 'q8'] as const)('matches the Embedder (Transformers.js) row for row, %s', async (dtype) => {
    const tokenizer = await loadBenchTokenizer(MODELS, 'tiny');
    const encoded = encodeTexts(tokenizer, texts, 64);
    expect(encoded[3]).toHaveLength(64); // the long text was truncated
    const embedder = await Embedder.load({ modelId: 'tiny', localModelPath: `${MODELS}/`, device: 'cpu', dtype, maxTokens: 64 });
    const native = await NativeEmbedder.load(MODELS, 'tiny', dtype, 1);
    try {
      const want = await embedder.embed(texts);
      const dim = embedder.info.dim;
      // Unbucketed: one batch in input order, padded to the longest row.
      const got = await native.embedIds(encoded);
      expect(got).toHaveLength(texts.length * dim);
      for (let i = 0; i < got.length; i++) expect(got[i]).toBeCloseTo(want[i]!, 4);
    } finally {
      await native.dispose();
      await embedder.dispose();
    }
  });
});
