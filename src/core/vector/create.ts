/**
 * The vector index factory and the kind policy. Implementations are loaded lazily so the
 * WASM backends cost nothing until chosen.
 */
import { readHeader, checkDim } from './common.ts';
import { HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH, HNSW_M, HNSW_THRESHOLD } from '../config.ts';
import type { VectorIndex, VectorIndexKind, VectorIndexOptions } from './types.ts';

export function chooseIndexKind(count: number): VectorIndexKind {
  return count > HNSW_THRESHOLD ? 'hnsw' : 'exact';
}

export const HNSW_DEFAULTS = { m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, efSearch: HNSW_EF_SEARCH };

export async function createVectorIndex(
  kind: VectorIndexKind,
  dim: number,
  opts: VectorIndexOptions = {},
): Promise<VectorIndex> {
  checkDim(dim);
  switch (kind) {
    case 'exact': {
      const { ExactIndex } = await import('./exact.ts');
      return new ExactIndex(dim, opts.capacity);
    }
    case 'int8': {
      const { Int8Index } = await import('./int8.ts');
      return new Int8Index(dim, opts.capacity);
    }
    case 'hnsw': {
      const { HnswIndex } = await import('./hnsw.ts');
      return HnswIndex.create(dim, { ...HNSW_DEFAULTS, ...opts });
    }
    case 'voy': {
      const { VoyIndex } = await import('./voy.ts');
      return VoyIndex.create(dim);
    }
    case 'ivf':
      throw new Error('an ivf index is read-only: open a published pack\'s vectors with openPackVectors (vector/pack-vectors.ts)');
    default:
      throw new Error(`unknown vector index kind ${String(kind)}`);
  }
}

export async function loadVectorIndex(bytes: Uint8Array, opts: VectorIndexOptions = {}): Promise<VectorIndex> {
  const header = readHeader(bytes);
  switch (header.kind) {
    case 'exact': {
      const { ExactIndex } = await import('./exact.ts');
      return ExactIndex.fromBytes(bytes);
    }
    case 'int8': {
      const { Int8Index } = await import('./int8.ts');
      return Int8Index.fromBytes(bytes);
    }
    case 'hnsw': {
      const { HnswIndex } = await import('./hnsw.ts');
      return HnswIndex.fromBytes(bytes, { ...HNSW_DEFAULTS, ...opts });
    }
    case 'voy': {
      const { VoyIndex } = await import('./voy.ts');
      return VoyIndex.fromBytes(bytes);
    }
  }
}
