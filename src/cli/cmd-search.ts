/**
 * `sift search`: one query from the arguments, or one per stdin line (`--stdin --json`).
 * The JSON shape is the evaluation contract — keep its field names exactly as they are.
 */
import { Searcher, type FullSearchResponse } from '../core/search/search.ts';
import type { IndexContext } from './context.ts';
import { loadSearchEmbedder } from './model.ts';
import { openVectorIndex } from './vectors.ts';
import type { SearchMode, SearchOptions } from '../core/types.ts';

const SNIPPET_LINES = 6;

export interface PreparedSearch {
  search(query: string, opts: SearchOptions): Promise<FullSearchResponse>;
  note: string | null;
  close(): Promise<void>;
}

async function prepare(ctx: IndexContext, o: { modelDir?: string; mode?: SearchMode }): Promise<PreparedSearch> {
  const searcher = new Searcher(ctx.store);
  let note: string | null = null;
  let dispose: (() => Promise<void>) | null = null;
  if (o.mode !== 'bm25') {
    const choice = await loadSearchEmbedder({ modelDir: o.modelDir, store: ctx.store });
    if ('unavailable' in choice) {
      note = `semantic search unavailable (${choice.unavailable}); keyword results only`;
    } else {
      const vectors = await openVectorIndex(ctx.store, ctx.paths, choice.embedder.info.key);
      if (vectors) searcher.setVectorLeg(choice.embedder, vectors);
      else note = 'no embeddings for this model yet; keyword results only';
      dispose = async () => {
        vectors?.dispose();
        await choice.embedder.dispose();
      };
    }
  }
  return {
    note,
    search: (q, opts) => searcher.search(q, opts),
    close: async () => {
      await dispose?.();
      await ctx.store.close();
    },
  };
}

export const runSearch = { prepare };

export function formatSearchJson(res: FullSearchResponse, explain: boolean): Record<string, unknown> {
  return {
    query: res.query,
    strategy: res.strategy,
    embedded_ratio: Number(res.embeddedRatio.toFixed(4)),
    timings: Object.fromEntries(Object.entries(res.timings).map(([k, v]) => [k, Number(v.toFixed(2))])),
    results: res.results.map((r) => ({
      path: r.path,
      start_line: r.startLine,
      end_line: r.endLine,
      language: r.language,
      chunk_type: r.chunkType,
      symbol: r.symbol,
      content: r.content,
      bm25_score: r.bm25Score,
      vector_score: r.vectorScore,
      combined_score: r.combinedScore,
      rank: r.rank,
      ...(explain
        ? { explain: { legs: r.legs, bm25_rank: r.bm25Rank, vector_rank: r.vectorRank, signals: res.explain[r.id] ?? [], bm25_signals: res.bm25Signals[r.id] ?? null } }
        : {}),
    })),
  };
}

export function formatSearchHuman(res: FullSearchResponse, explain: boolean): string {
  if (res.results.length === 0) return `no results for "${res.query}" (${res.strategy})\n`;
  const out: string[] = [];
  for (const r of res.results) {
    const sym = r.symbol ? (r.parent ? `${r.parent}.${r.symbol}` : r.symbol) : `(${r.chunkType})`;
    out.push(`${r.path}:${r.startLine}-${r.endLine}  ${sym}  ${r.combinedScore.toFixed(4)}`);
    if (explain) {
      const sig = (res.explain[r.id] ?? []).map((s) => `${s.signal}=${s.value.toFixed(3)}→${s.contribution.toFixed(4)}`).join('  ');
      out.push(`    [${r.legs.join('+')}] bm25 rank ${r.bm25Rank ?? '-'}  vector rank ${r.vectorRank ?? '-'}  ${sig}`);
      const inner = res.bm25Signals[r.id];
      if (inner) out.push(`    keyword leg: ${Object.entries(inner).map(([k, v]) => `${k}=${v.toFixed(3)}`).join('  ')}`);
    }
    const lines = r.content.split('\n').slice(0, SNIPPET_LINES);
    for (const l of lines) out.push(`    ${l.length > 160 ? l.slice(0, 157) + '…' : l}`);
    out.push('');
  }
  out.push(`${res.results.length} results · ${res.strategy} · ${Math.round(res.embeddedRatio * 100)}% embedded · ${res.timings.total?.toFixed(1)} ms`);
  return out.join('\n') + '\n';
}
