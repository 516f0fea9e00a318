/**
 * Seeded synthetic embeddings for tests and the benchmark: Gaussian clusters on the unit
 * sphere, which is how real code embeddings look (near-duplicates and topics), unlike
 * uniform random vectors where every neighbour is equally far and ANN recall is
 * meaningless. Same seed → same vectors on every platform (mulberry32 + Box–Muller).
 */

/** Per-dimension spread of a member around its centre, before normalisation. */
const CLUSTER_SPREAD = 0.06;
const QUERY_SPREAD = 0.06;

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussian(rand: () => number): () => number {
  return () => {
    const u = 1 - rand();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
}

export function normalise(v: Float32Array, off = 0, dim = v.length - off): void {
  let s = 0;
  for (let i = 0; i < dim; i++) s += v[off + i] * v[off + i];
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < dim; i++) v[off + i] *= inv;
}

export interface ClusteredSet {
  dim: number;
  /** count × dim, row-major, L2-normalised. */
  vectors: Float32Array;
  /** queries × dim, each near a random cluster centre. */
  queries: Float32Array;
  centres: Float32Array;
}

export function clusteredVectors(opts: {
  count: number; dim: number; clusters: number; queries: number; seed: number;
}): ClusteredSet {
  const { count, dim, clusters, seed } = opts;
  const rand = mulberry32(seed);
  const gauss = gaussian(rand);
  const centres = new Float32Array(clusters * dim);
  for (let i = 0; i < centres.length; i++) centres[i] = gauss();
  for (let c = 0; c < clusters; c++) normalise(centres, c * dim, dim);
  const around = (out: Float32Array, row: number, spread: number) => {
    const c = Math.floor(rand() * clusters);
    for (let i = 0; i < dim; i++) out[row * dim + i] = centres[c * dim + i] + spread * gauss();
    normalise(out, row * dim, dim);
  };
  const vectors = new Float32Array(count * dim);
  for (let r = 0; r < count; r++) around(vectors, r, CLUSTER_SPREAD);
  const queries = new Float32Array(opts.queries * dim);
  for (let r = 0; r < opts.queries; r++) around(queries, r, QUERY_SPREAD);
  return { dim, vectors, queries, centres };
}

/** Share of `truth`'s ids found in `got` (recall@k with k = truth.length). */
export function recallAt(truth: ReadonlyArray<{ id: number }>, got: ReadonlyArray<{ id: number }>): number {
  if (truth.length === 0) return 1;
  const want = new Set(truth.map((h) => h.id));
  let hit = 0;
  for (const h of got) if (want.has(h.id)) hit++;
  return hit / truth.length;
}
