/**
 * Hybrid ranking: reciprocal rank fusion of the BM25 and vector legs (Codii's formula,
 * k = 60, weights 0.5/0.5 by default), plus one named signal that puts definitions of the
 * query's identifier first, in DEFINITION_TIERS order (search/symbols.ts decides the tier).
 *
 *   combined = bm25Weight / (k + bm25Rank) + vectorWeight / (k + vectorRank) [+ definition]
 *
 * Invariants: a pure function of its inputs (the app re-fuses stored hits with new
 * weights without querying again); every item's `explain` contributions sum to its
 * `combinedScore`; the order is total and deterministic (combined score desc, then BM25
 * rank, vector rank — absent ranks last — then id); a definition outranks every item without
 * one, and a higher tier outranks a lower one, because the `definition` contribution is the
 * largest possible RRF score plus tier × a unit larger than any RRF difference. With
 * `keywordFirst` (a name lookup) and a vector leg, the keyword leg's first item gets a
 * `keyword_first` contribution larger than any other item's definition and RRF contributions
 * together, so it stays first whatever the vector leg says; every other item fuses as in any
 * question, with the caller's (per-kind) weights and the definition tiers.
 */

import type { Hit, SearchMode, SearchStrategy } from '../types.ts';
import { BM25_WEIGHT, DEFINITION_TIERS, FUSION_DEFINITION_BOOST, RRF_K, VECTOR_WEIGHT } from '../config.ts';
import { definitionRank } from './symbols.ts';

/** Kept for callers that name the fusion boost: a tier-1 definition gets at least this. */
export const EXACT_SYMBOL_BOOST = FUSION_DEFINITION_BOOST;
/** The smallest gap between two definition tiers. */
const TIER_GAP = Math.min(
  ...Object.values(DEFINITION_TIERS).flatMap((a, i, all) => all.slice(i + 1).map((b) => Math.abs(a - b))),
  ...Object.values(DEFINITION_TIERS),
);

export type Leg = 'bm25' | 'vector';

export interface FuseOptions {
  /** RRF constant, ≥ 0. */
  k?: number;
  bm25Weight?: number;
  vectorWeight?: number;
  /** Keep the best `limit` items (default: all). */
  limit?: number;
  /** Items whose symbol equals an identifier in the query (tier 1); the caller applies filters to them. */
  exactSymbolIds?: ReadonlySet<number>;
  /** Definition tier (symbols.ts) per item id; wins over exactSymbolIds for the same id. */
  definitionTiers?: ReadonlyMap<number, number>;
  /** Size step per definition (symbols.ts sizeStep): DEFINITION_SIZE_STEP each, within its tier. */
  definitionSizes?: ReadonlyMap<number, number>;
  /**
   * A name lookup (symbols.ts wantsDefinitions): the keyword leg's first item — its best
   * definition of the name when it found one — stays first; the vector leg reorders only the
   * rest, by the weights given (issue 36: hybrid changes no name lookup's answer, whatever the
   * model, and meaning still orders what follows it).
   */
  keywordFirst?: boolean;
}

export interface ExplainEntry {
  /** 'bm25_rrf' | 'vector_rrf' | 'definition' */
  signal: string;
  /** The signal's input: the leg's rank for RRF signals, the tier (DEFINITION_TIERS) for `definition`. */
  value: number;
  contribution: number;
}

export interface FusedItem {
  id: number;
  /** 1-based rank in the fused list. */
  rank: number;
  combinedScore: number;
  /** Raw leg scores, 0 when the leg did not match. */
  bm25Score: number;
  vectorScore: number;
  bm25Rank: number | null;
  vectorRank: number | null;
  legs: Leg[];
  explain: ExplainEntry[];
}

export function fuseRrf(bm25: readonly Hit[], vector: readonly Hit[], opts: FuseOptions = {}): FusedItem[] {
  const k = opts.k ?? RRF_K;
  const wb = opts.bm25Weight ?? BM25_WEIGHT;
  const wv = opts.vectorWeight ?? VECTOR_WEIGHT;
  for (const [name, v] of [['k', k], ['bm25Weight', wb], ['vectorWeight', wv]] as const) {
    if (!Number.isFinite(v) || v < 0) throw new RangeError(`fuseRrf: ${name} must be a finite number ≥ 0, got ${v}`);
  }
  const tiers = new Map<number, number>();
  for (const id of opts.exactSymbolIds ?? []) tiers.set(id, 1);
  for (const [id, t] of opts.definitionTiers ?? []) if (t > 0) tiers.set(id, t);
  const maxRrf = (wb + wv) / (k + 1);
  // Only with a vector leg to hold back: a keyword-only list keeps its scores as they were.
  const keywordFirst = opts.keywordFirst === true && vector.length > 0;
  // One tier step is worth more than any RRF difference, so tiers never swap.
  const unit = (FUSION_DEFINITION_BOOST + maxRrf) / TIER_GAP;

  const items = new Map<number, FusedItem>();
  const itemFor = (id: number): FusedItem => {
    let item = items.get(id);
    if (!item) {
      item = {
        id, rank: 0, combinedScore: 0, bm25Score: 0, vectorScore: 0, bm25Rank: null, vectorRank: null, legs: [], explain: [],
      };
      items.set(id, item);
    }
    return item;
  };
  // A leg listing an id twice counts its best rank only.
  for (const h of bm25) {
    const item = itemFor(h.id);
    if (item.bm25Rank === null || h.rank < item.bm25Rank) { item.bm25Rank = h.rank; item.bm25Score = h.score; }
  }
  for (const h of vector) {
    const item = itemFor(h.id);
    if (item.vectorRank === null || h.rank < item.vectorRank) { item.vectorRank = h.rank; item.vectorScore = h.score; }
  }
  for (const id of tiers.keys()) itemFor(id);
  // The keyword leg's first item (lowest rank, then lowest id) is the one a name lookup keeps first.
  let pinned: FusedItem | null = null;
  if (keywordFirst) {
    for (const item of items.values()) {
      if (item.bm25Rank !== null && (!pinned || item.bm25Rank < pinned.bm25Rank! || (item.bm25Rank === pinned.bm25Rank && item.id < pinned.id))) pinned = item;
    }
  }
  let topDefinition = 0;

  for (const item of items.values()) {
    if (item.bm25Rank !== null) {
      item.legs.push('bm25');
      item.explain.push({ signal: 'bm25_rrf', value: item.bm25Rank, contribution: wb / (k + item.bm25Rank) });
    }
    if (item.vectorRank !== null) {
      item.legs.push('vector');
      item.explain.push({ signal: 'vector_rrf', value: item.vectorRank, contribution: wv / (k + item.vectorRank) });
    }
    const tier = tiers.get(item.id);
    if (tier !== undefined) {
      const rankBy = definitionRank({ tier, size: opts.definitionSizes?.get(item.id) ?? 0 });
      const contribution = maxRrf + rankBy * unit;
      topDefinition = Math.max(topDefinition, contribution);
      item.explain.push({ signal: 'definition', value: tier, contribution });
    }
    item.combinedScore = item.explain.reduce((s, e) => s + e.contribution, 0);
  }
  if (pinned) {
    // Any other item scores at most maxRrf + topDefinition; the pinned one has RRF > 0 on top of this.
    const contribution = maxRrf + topDefinition;
    pinned.explain.push({ signal: 'keyword_first', value: 1, contribution });
    pinned.combinedScore += contribution;
  }

  const sorted = [...items.values()].sort(compareFused);
  const limit = opts.limit ?? sorted.length;
  const out = sorted.slice(0, Math.max(0, limit));
  out.forEach((item, i) => { item.rank = i + 1; });
  return out;
}

function compareFused(a: FusedItem, b: FusedItem): number {
  return (
    b.combinedScore - a.combinedScore ||
    (a.bm25Rank ?? Infinity) - (b.bm25Rank ?? Infinity) ||
    (a.vectorRank ?? Infinity) - (b.vectorRank ?? Infinity) ||
    a.id - b.id
  );
}

/**
 * The strategy a search actually used. `hasBm25Hits`: the keyword leg ran and can
 * contribute; `hasVectors`: the codebase has embeddings and the query was embedded.
 * A leg the mode asks for but cannot contribute drops out; nothing left → 'none'.
 */
export function strategyFor(mode: SearchMode, hasBm25Hits: boolean, hasVectors: boolean): SearchStrategy {
  const bm25 = mode !== 'vector' && hasBm25Hits;
  const vector = mode !== 'bm25' && hasVectors;
  if (bm25 && vector) return 'hybrid';
  if (bm25) return 'bm25_only';
  if (vector) return 'vector_only';
  return 'none';
}

/** Ranks a leg's scored items 1..n in the given order (vector hits → fusion input). */
export function toRankedHits(items: ReadonlyArray<{ id: number; score: number }>): Hit[] {
  return items.map((h, i) => ({ id: h.id, score: h.score, rank: i + 1 }));
}
