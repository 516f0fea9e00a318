/**
 * The contract every embedding family keeps (SiftEmbedder), run against both: the generated
 * tiny transformer (Transformers.js over onnxruntime-node) and the generated tiny static model,
 * each loaded through loadEmbedder from its folder.
 */
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureGeneratedModel } from '../../../scripts/gen-models.ts';
import type { SiftEmbedder } from './embedder.ts';
import { loadEmbedder } from './load-embedder.ts';
import { folderModelFiles } from './model-files-node.ts';
import { SAMPLE_TEXTS as TEXTS } from './test-fixtures.ts';

const MODELS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../models/generated');


const FAMILIES = [
  { family: 'transformer', model: 'tiny', dim: 32 },
  { family: 'static', model: 'static-tiny', dim: 8 },
] as const;

describe.each(FAMILIES)('embedding family contract: $family ($model)', ({ family, model, dim }) => {
  let e: SiftEmbedder;
  beforeAll(async () => {
    const dir = await ensureGeneratedModel(model, MODELS);
    e = await loadEmbedder({
      files: folderModelFiles(dir),
      modelId: model,
      transformer: { localModelPath: MODELS, device: 'cpu', dtype: 'fp32', batchSize: 2 },
      static: { batchSize: 2 },
    });
  });
  afterAll(async () => {
    await e?.dispose();
  });

  it('names its family, dimension and a key that changes with the family', () => {
    expect(e.info.family).toBe(family);
    expect(e.info.dim).toBe(dim);
    expect(e.info.modelId).toBe(model);
    expect(e.info.key.startsWith(`${model}@`)).toBe(true);
    expect(e.info.key.includes('static')).toBe(family === 'static');
  });

  it('returns one unit vector per text, in input order', async () => {
    const v = await e.embed(TEXTS);
    expect(v).toBeInstanceOf(Float32Array);
    expect(v.length).toBe(TEXTS.length * dim);
    for (let i = 0; i < TEXTS.length; i++) expect(Math.hypot(...v.subarray(i * dim, (i + 1) * dim))).toBeCloseTo(1, 5);
    expect((await e.embed([])).length).toBe(0);
    const counts = e.countTokens(TEXTS);
    expect(counts.length).toBe(TEXTS.length);
    expect(counts[4]).toBeGreaterThan(counts[3]!);
  });

  it('gives a text the same vector alone, as a query, and in any batch', async () => {
    const batch = await e.embed(TEXTS);
    const reversed = await e.embed([...TEXTS].reverse());
    for (let i = 0; i < TEXTS.length; i++) {
      const alone = await e.embedQuery(TEXTS[i]!);
      const j = TEXTS.length - 1 - i;
      for (let d = 0; d < dim; d++) {
        expect(Math.abs(alone[d]! - batch[i * dim + d]!)).toBeLessThan(1e-5);
        expect(Math.abs(reversed[j * dim + d]! - batch[i * dim + d]!)).toBeLessThan(1e-5);
      }
    }
  });

  it('runs a query before the indexing batches still waiting', async () => {
    const many = Array.from({ length: 40 }, (_, i) => `${TEXTS[i % TEXTS.length]} ${i}`);
    const order: string[] = [];
    const pass = e.embed(many).then(() => order.push('pass'));
    await new Promise((r) => setTimeout(r, 0));
    const query = e.embedQuery('parse json config').then(() => order.push('query'));
    await Promise.all([pass, query]);
    expect(order).toEqual(['query', 'pass']);
  });

  it('stops at the next batch when aborted', async () => {
    const ac = new AbortController();
    const many = Array.from({ length: 40 }, (_, i) => `${TEXTS[i % TEXTS.length]} ${i}`);
    const p = e.embed(many, ac.signal);
    ac.abort();
    await expect(p).rejects.toThrow(/abort/i);
    // Still usable afterwards.
    expect((await e.embedQuery('x')).length).toBe(dim);
  });
});
