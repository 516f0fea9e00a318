/**
 * The models the app offers for search by meaning, and how long each would take to embed the
 * open codebases on this device. Pure (no DOM, no storage): the page passes the device's
 * cores, whether it is cross-origin isolated, and any rates it has observed.
 *
 * Invariants:
 * - Every figure about a model (size, dimensions, licence) is from its model card, cited by URL.
 * - Before a model has run here, an estimate is the chunk count over a per-family rate measured
 *   in Chromium on a 2-core machine (constants below, with where they were measured). Once the
 *   model has run, the observed chunks/s of that model on this device replaces it.
 * - The fast model is recommended when MiniLM would take more than RECOMMEND_FAST_AFTER_S;
 *   a recommendation never downloads anything (the person still chooses).
 */
import type { ModelFamily } from '../../core/embed/model-files.ts';
import { DEFAULT_MODEL_ID } from '../../core/config.ts';
import { defaultNumThreads } from '../../core/embed/threads.ts';

export interface CatalogueModel {
  /** Hub id: the files are https://huggingface.co/<id>/resolve/main/<file>. */
  id: string;
  family: ModelFamily;
  /** Short name for buttons and lines. */
  name: string;
  /** What is downloaded, in MB (10^6 bytes), rounded as the offer shows it. */
  downloadMB: number;
  dim: number;
  licence: string;
  /** The model card. */
  card: string;
  /** One line: what it is good at. */
  goodAt: string;
}

/** MiniLM: the model the design names, for prose-heavy folders. */
export const PROSE_MODEL: CatalogueModel = {
  id: DEFAULT_MODEL_ID,
  family: 'transformer',
  name: 'MiniLM',
  // onnx/model_quantized.onnx 22.9 MB + tokenizer and config (what the q8 load fetches).
  downloadMB: 23,
  dim: 384,
  licence: 'Apache-2.0',
  card: 'https://huggingface.co/Xenova/all-MiniLM-L6-v2',
  goodAt: 'general English sentences: best for prose, docs and comments; slow to embed on a CPU',
};

/**
 * The code-tuned static (model2vec) model: 256-d, model.safetensors 32.5 MB + tokenizer.json
 * (https://huggingface.co/minishlab/potion-code-16M-v2/tree/main lists 33.5 MB in all),
 * distilled from nomic-ai/CodeRankEmbed and trained on code (CornStack). potion-code-16M's card
 * states MIT; the v2 card read here states no licence, so the offer says to check the card. (minishlab/blink-code-16M, 62,500 × 256, claims to supersede
 * it on CoIR; its file sizes and licence could not be verified here, so it is not offered.)
 */
export const CODE_MODEL: CatalogueModel = {
  id: 'minishlab/potion-code-16M-v2',
  family: 'static',
  name: 'potion-code',
  downloadMB: 34,
  dim: 256,
  licence: 'licence: see its card',
  card: 'https://huggingface.co/minishlab/potion-code-16M-v2',
  goodAt: 'code: trained on source code, and hundreds of times faster to embed than MiniLM',
};

export const CATALOGUE: readonly CatalogueModel[] = [CODE_MODEL, PROSE_MODEL];

export function catalogueModel(id: string): CatalogueModel | null {
  return CATALOGUE.find((m) => m.id === id) ?? null;
}

/**
 * Chunks/s of MiniLM-shaped q8 per wasm thread in Chromium: 3.91 on 1 thread and 9.17 on 2
 * (bench/results/2026-11-22-browser-full.md, 200 chunks, 2-core machine): about 4 per thread.
 */
export const TRANSFORMER_CHUNKS_PER_SEC_PER_THREAD = 4;
/**
 * Chunks/s of a static model through the app's whole embedding pass in Chromium, from choosing
 * it to every chunk embedded (the store's reads and writes are most of it; a big pass embeds on
 * one thread per core): 524, 609 and 693 on the medium corpus's 34,728 chunks
 * (bench/browser-semantic.ts --model static --cached --corpus medium, 2-core machine at load
 * 22–32, 2026-11-29), rounded down; cdf5b8c's pass gave 373–532 off the record and 1,111 with a
 * profile on disk in the same session, and 146–248 on 2026-11-28 (pages of 64). The model alone embeds 2,238 chunks/s on one thread (bench/browser.ts, same run as
 * MiniLM-shaped q8's 1.84).
 */
export const STATIC_CHUNKS_PER_SEC = 500;
/** Above this estimate for MiniLM, the offer recommends the fast model. */
export const RECOMMEND_FAST_AFTER_S = 5 * 60;

export interface Device {
  cores: number;
  isolated: boolean;
}

/** Chunks/s before the model has run here: the family's measured rate on this device's threads. */
export function familyRate(family: ModelFamily, device: Device): number {
  if (family === 'static') return STATIC_CHUNKS_PER_SEC;
  return TRANSFORMER_CHUNKS_PER_SEC_PER_THREAD * defaultNumThreads(device.cores, device.isolated);
}

export interface Estimate {
  seconds: number;
  chunksPerSec: number;
  /** 'observed': this model ran on this device; 'family': the measured per-family rate. */
  basis: 'observed' | 'family';
}

/** Seconds to embed `chunks` with `model` here; `observed` is its chunks/s on this device, if it ran. */
export function estimate(model: Pick<CatalogueModel, 'family'>, chunks: number, device: Device, observed?: number): Estimate {
  const useObserved = observed !== undefined && Number.isFinite(observed) && observed > 0;
  const chunksPerSec = useObserved ? observed : familyRate(model.family, device);
  return { seconds: Math.max(0, chunks) / chunksPerSec, chunksPerSec, basis: useObserved ? 'observed' : 'family' };
}

/** '~15 s', '~25 min', '~3 h': one significant unit, never '0 s'. */
export function formatEstimate(seconds: number): string {
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 1) return '<1 s';
  if (seconds < 90) return `~${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `~${Math.round(seconds / 60)} min`;
  return `~${Math.round(seconds / 3600)} h`;
}

/**
 * Chunks a file of a first index is expected to hold until MIN_FILES_TO_PROJECT files are chunked
 * (the medium corpus: 12 a file, the kernel subset: 23, the eval repositories' median ~10).
 */
export const CHUNKS_PER_FILE_PRIOR = 10;
/** Files chunked before their chunks per file stand for the rest. */
export const MIN_FILES_TO_PROJECT = 20;

/**
 * A codebase's chunks once its index ends: `known` (what is stored) for an index that is not
 * running; while one runs, the files found so far (`totalFiles`, a lower bound while the walk
 * goes on) at the chunks per file seen so far, or CHUNKS_PER_FILE_PRIOR before
 * MIN_FILES_TO_PROJECT files are chunked (the first answer's files come before any).
 */
export function projectChunks(known: number, run: { indexedFiles: number; totalFiles: number; totalChunks: number } | null | undefined): number {
  if (!run || run.totalFiles <= run.indexedFiles) return known;
  const perFile = run.indexedFiles >= MIN_FILES_TO_PROJECT ? run.totalChunks / run.indexedFiles : CHUNKS_PER_FILE_PRIOR;
  return Math.max(known, Math.round(perFile * run.totalFiles));
}

/** The model the offer recommends for `chunks` chunks: the fast one when MiniLM would take too long. */
export function recommended(chunks: number, device: Device, observed: Readonly<Record<string, number>> = {}): CatalogueModel {
  const prose = estimate(PROSE_MODEL, chunks, device, observed[PROSE_MODEL.id]);
  return prose.seconds > RECOMMEND_FAST_AFTER_S ? CODE_MODEL : PROSE_MODEL;
}
