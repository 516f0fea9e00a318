import { describe, expect, it } from 'vitest';
import {
  CATALOGUE, CODE_MODEL, PROSE_MODEL, RECOMMEND_FAST_AFTER_S, STATIC_CHUNKS_PER_SEC, TRANSFORMER_CHUNKS_PER_SEC_PER_THREAD,
  CHUNKS_PER_FILE_PRIOR, MIN_FILES_TO_PROJECT, estimate, familyRate, formatEstimate, projectChunks, recommended,
} from './model-catalogue.ts';

const twoCores = { cores: 2, isolated: false };

describe('model catalogue', () => {
  it('offers one model of each family, MiniLM the design default', () => {
    expect(CATALOGUE.map((m) => m.family).sort()).toEqual(['static', 'transformer']);
    expect(PROSE_MODEL.id).toBe('Xenova/all-MiniLM-L6-v2');
    expect(CODE_MODEL.dim).toBe(256);
  });

  it('estimates from the family rate and the device threads before a model has run', () => {
    // Not isolated: one wasm thread; isolated on 4 cores: 3 threads.
    expect(familyRate('transformer', twoCores)).toBe(TRANSFORMER_CHUNKS_PER_SEC_PER_THREAD);
    expect(familyRate('transformer', { cores: 4, isolated: true })).toBe(3 * TRANSFORMER_CHUNKS_PER_SEC_PER_THREAD);
    expect(familyRate('static', { cores: 8, isolated: true })).toBe(STATIC_CHUNKS_PER_SEC);
    const e = estimate(PROSE_MODEL, 6000, twoCores);
    expect(e).toEqual({ seconds: 6000 / TRANSFORMER_CHUNKS_PER_SEC_PER_THREAD, chunksPerSec: TRANSFORMER_CHUNKS_PER_SEC_PER_THREAD, basis: 'family' });
  });

  it('uses the observed rate once the model has run here', () => {
    expect(estimate(PROSE_MODEL, 600, twoCores, 12)).toEqual({ seconds: 50, chunksPerSec: 12, basis: 'observed' });
    // A bad observation is ignored.
    expect(estimate(PROSE_MODEL, 600, twoCores, 0).basis).toBe('family');
    expect(estimate(PROSE_MODEL, 600, twoCores, Number.NaN).basis).toBe('family');
  });

  it('recommends the fast model only where MiniLM would take more than about 5 minutes', () => {
    const limit = RECOMMEND_FAST_AFTER_S * TRANSFORMER_CHUNKS_PER_SEC_PER_THREAD;
    expect(recommended(0, twoCores).id).toBe(PROSE_MODEL.id);
    expect(recommended(limit, twoCores).id).toBe(PROSE_MODEL.id);
    expect(recommended(limit + 1, twoCores).id).toBe(CODE_MODEL.id);
    // A device where MiniLM was measured fast enough keeps it for the same folder.
    expect(recommended(limit + 1, twoCores, { [PROSE_MODEL.id]: 100 }).id).toBe(PROSE_MODEL.id);
  });

  it('writes estimates as the offer shows them', () => {
    expect(formatEstimate(0.4)).toBe('<1 s');
    expect(formatEstimate(15.2)).toBe('~15 s');
    expect(formatEstimate(25 * 60)).toBe('~25 min');
    expect(formatEstimate(3 * 3600 + 100)).toBe('~3 h');
    expect(formatEstimate(Number.POSITIVE_INFINITY)).toBe('—');
  });

  it('projects a first index\'s chunks from the files found, before its first files are chunked too', () => {
    // Not running: what is stored.
    expect(projectChunks(5000, null)).toBe(5000);
    // The first answer's files are stored before any file is chunked: the prior stands for them
    // (it offered MiniLM on the kernel subset's first 1,000 files, then the static model).
    expect(projectChunks(0, { indexedFiles: 0, totalFiles: 1000, totalChunks: 0 })).toBe(1000 * CHUNKS_PER_FILE_PRIOR);
    expect(projectChunks(0, { indexedFiles: 3, totalFiles: 1000, totalChunks: 9 })).toBe(1000 * CHUNKS_PER_FILE_PRIOR);
    // Enough files chunked: their chunks per file.
    expect(projectChunks(0, { indexedFiles: MIN_FILES_TO_PROJECT, totalFiles: 1000, totalChunks: 23 * MIN_FILES_TO_PROJECT })).toBe(23_000);
    // Never below what is stored (a rescan), and the stored count once every file is done.
    expect(projectChunks(40_000, { indexedFiles: 100, totalFiles: 1000, totalChunks: 1000 })).toBe(40_000);
    expect(projectChunks(700, { indexedFiles: 100, totalFiles: 100, totalChunks: 1000 })).toBe(700);
    // A folder of a thousand files or more gets the fast model from its first answer on, as at its end.
    expect(recommended(projectChunks(0, { indexedFiles: 0, totalFiles: 1000, totalChunks: 0 }), twoCores).id).toBe(CODE_MODEL.id);
  });
});
