import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureGeneratedModel } from '../../scripts/gen-models.ts';
import { StaticEmbedder } from '../core/embed/static-embedder.ts';
import { folderModelFiles } from '../core/embed/model-files-node.ts';
import { splitByChars, startEmbedPool } from './embed-pool.ts';

const MODELS = resolve(dirname(fileURLToPath(import.meta.url)), '../../models/generated');
const DIR = `${MODELS}/potion-shape`;

describe('splitByChars', () => {
  it('cuts contiguous runs of about equal characters', () => {
    expect(splitByChars(['aaaa', 'b', 'c', 'dddd'], 2)).toEqual([0, 2]);
    expect(splitByChars(['a'.repeat(100), 'b', 'c'], 2)).toEqual([0, 1]);
    expect(splitByChars(['x'], 4)).toEqual([0]);
    expect(splitByChars([], 2)).toEqual([0]);
    expect(splitByChars(Array.from({ length: 9 }, () => 'abc'), 3)).toEqual([0, 3, 6]);
  });
});

describe('embedding pool (real worker threads, generated potion-shape model)', () => {
  let local: StaticEmbedder;
  beforeAll(async () => {
    await ensureGeneratedModel('potion-shape', MODELS);
    local = await StaticEmbedder.load(folderModelFiles(DIR), { modelId: 'potion-shape' });
  }, 120_000);

  it('embeds exactly what the in-thread embedder embeds, in order', async () => {
    const pool = await startEmbedPool({ dir: DIR, modelId: 'potion-shape', info: local.info, size: 2 });
    try {
      expect(pool.size).toBe(2);
      const source = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
      const texts = Array.from({ length: 300 }, (_, i) => source.slice(i % source.length, (i % source.length) + 1 + (i % 7)).join('\n'));
      texts.push('', 'ünïcödé and emoji 🚀', 'x'.repeat(5000));
      const got = await pool.embed(texts);
      expect(got.length).toBe(texts.length * local.info.dim);
      expect([...got]).toEqual([...local.embedNow(texts)]);
    } finally {
      await pool.dispose();
    }
  }, 120_000);

  it('refuses to start when a thread loads another model than the main thread', async () => {
    await expect(startEmbedPool({ dir: DIR, modelId: 'potion-shape', info: { ...local.info, key: 'other@static-float32/512' }, size: 1 }))
      .rejects.toThrow(/loaded potion-shape@static-float32\/512/);
  }, 120_000);

  it('fails to start, with the reason, on a folder that is not a model', async () => {
    await expect(startEmbedPool({ dir: `${MODELS}/no-such-model`, modelId: 'x', info: local.info, size: 1 })).rejects.toThrow(/failed to start: .*config\.json/);
  }, 120_000);
});
