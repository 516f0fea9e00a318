/**
 * `sift search`: one query from the arguments, or one per stdin line (`--stdin --json`).
 * The JSON shape is the evaluation contract — keep its field names exactly as they are.
 */
import { Searcher, type FullSearchResponse } from '../core/search/search.ts';
import { foldedDefinitions, moreCounts, showsConstant } from '../core/search/results.ts';
import type { IndexContext } from './context.ts';
import type { OpenedVectors } from './vectors.ts';
import type { ModelChoice } from './model.ts';
import { NO_EMBEDDINGS, searchModelSpec } from './model-spec.ts';
import { safeText } from './context.ts';
import { classify, messageOf } from '../core/store/errors.ts';
import type { SearchMode, SearchOptions } from '../core/types.ts';
import { snippet, type SnippetBlock } from '../core/text/snippet.ts';

/** Lines of a result shown (the app's card shows more; the same rule folds a long doc). */
const SNIPPET_LINES = 6;

export interface PreparedSearch {
  search(query: string, opts: SearchOptions): Promise<FullSearchResponse>;
  note: string | null;
  /** Called with a line when the vector leg fails and search goes on with keywords only. */
  onFault: ((message: string) => void) | null;
  close(): Promise<void>;
}

/** Store failures that must surface (exit 3/4/5/6), never be hidden by a keyword-only fallback. */
const STORE_KINDS = new Set(['corrupt', 'busy', 'no-index', 'newer-schema', 'cancelled']);

async function prepare(ctx: IndexContext, o: { modelDir?: string; mode?: SearchMode }): Promise<PreparedSearch> {
  const searcher = new Searcher(ctx.store);
  let note: string | null = null;
  let dispose: (() => Promise<void>) | null = null;
  const prepared: PreparedSearch = {
    note: null,
    onFault: null,
    search: async (q, opts) => {
      try {
        return await searcher.search(q, opts);
      } catch (e) {
        // A vector-leg fault (model file, vector cache): answer from the keyword leg, and say so.
        if (!dispose || STORE_KINDS.has(classify(e).kind)) throw e;
        searcher.setVectorLeg(null, null);
        await dispose();
        dispose = null;
        prepared.onFault?.(`semantic search failed (${messageOf(e)}); keyword results only`);
        return searcher.search(q, opts);
      }
    },
    close: async () => {
      await dispose?.();
      await ctx.store.close();
    },
  };
  if (o.mode !== 'bm25') {
    // The model's and the vectors' modules (the tokenizer, safetensors, the vector index) load
    // only for a search that has a model to use: a keyword search starts without parsing them.
    const spec = await searchModelSpec({ modelDir: o.modelDir, store: ctx.store });
    const choice: ModelChoice | { unavailable: string } = spec ? await (await import('./model.ts')).loadSearchModel(spec, ctx.store) : { unavailable: NO_EMBEDDINGS };
    if ('unavailable' in choice) {
      note = `semantic search unavailable (${choice.unavailable}); keyword results only`;
    } else {
      const { openVectorIndex } = await import('./vectors.ts');
      let vectors: OpenedVectors | null = null;
      try {
        vectors = await openVectorIndex(ctx.store, ctx.paths, choice.embedder.info.key);
        if (vectors) searcher.setVectorLeg(choice.embedder, vectors.index);
        else note = 'no embeddings for this model yet; keyword results only';
        if (vectors?.note) note = vectors.note;
      } catch (e) {
        if (STORE_KINDS.has(classify(e).kind)) throw e;
        note = `vector index unavailable (${messageOf(e)}); keyword results only`;
      }
      dispose = async () => {
        vectors?.index.dispose();
        await choice.embedder.dispose();
      };
    }
  }
  prepared.note = note;
  return prepared;
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
      kind: r.kind ?? null,
      symbol: r.symbol,
      // Exactly the file's lines start_line..end_line; a later piece of a split definition
      // carries the definition's signature rows in `context`, which starts at `context_line`.
      content: r.content,
      context: r.context,
      context_line: r.contextLine,
      def_line: r.defLine,
      ...(r.names ? { names: r.names } : {}),
      // Constants defined on these lines (C/C++ object-like #defines).
      ...(r.defines ? { defines: r.defines } : {}),
      ...(r.names || r.defines ? { matched_name: r.matchedName } : {}),
      // Other matching pieces, each exactly its lines: the same definition's (one result per
      // definition), then other definitions of this file folded in by diversity (same_definition false).
      more: r.more.map((m) => ({
        start_line: m.startLine, end_line: m.endLine, content: m.content, context: m.context, context_line: m.contextLine,
        same_definition: m.sameDefinition, ...(m.sameDefinition ? {} : { symbol: m.symbol, chunk_type: m.chunkType, def_line: m.defLine }),
      })),
      // Other matching definitions or pieces of this file that did not make the list.
      file_more: r.fileMore ?? 0,
      bm25_score: r.bm25Score,
      vector_score: r.vectorScore,
      combined_score: r.combinedScore,
      rank: r.rank,
      ...(explain
        ? {
            explain: {
              legs: r.legs, bm25_rank: r.bm25Rank, vector_rank: r.vectorRank, signals: res.explain[r.id] ?? [], bm25_signals: res.bm25Signals[r.id] ?? null,
              vector_floor: res.legs.vectorFloor, vector_dropped: res.legs.vectorDropped,
            },
          }
        : {}),
    })),
  };
}

export function formatSearchHuman(res: FullSearchResponse, explain: boolean): string {
  if (res.results.length === 0) return `no results for "${safeText(res.query)}" (${res.strategy})\n`;
  const out: string[] = [];
  for (const r of res.results) {
    const name = r.matchedName ?? r.symbol;
    const sym = name ? (r.parent && !showsConstant(r) ? `${r.parent}.${name}` : name) : `(${r.chunkType})`;
    const counts = moreCounts(r);
    const more = counts.definition ? `  (+${counts.definition} more in this definition)` : '';
    const fileMore = counts.inFile ? `  (+${counts.inFile} more in this file)` : '';
    const kind = r.kind && r.kind !== 'code' ? `  [${r.kind}]` : '';
    out.push(safeText(`${r.path}:${r.startLine}-${r.endLine}  ${sym}${kind}  ${r.combinedScore.toFixed(4)}${more}${fileMore}`));
    // Where the file's folded definitions are (as the agent tools' also_in_file).
    const folded = foldedDefinitions(r);
    if (folded.length) out.push(safeText(`    also in this file: ${folded.map((m) => `${m.startLine}-${m.endLine} ${m.symbol ?? `(${m.chunkType})`}`).join('; ')}`));
    if (explain) {
      const sig = (res.explain[r.id] ?? []).map((s) => `${s.signal}=${s.value.toFixed(3)}→${s.contribution.toFixed(4)}`).join('  ');
      out.push(`    [${r.legs.join('+')}] bm25 rank ${r.bm25Rank ?? '-'}  vector rank ${r.vectorRank ?? '-'}  ${sig}`);
      const inner = res.bm25Signals[r.id];
      if (inner) out.push(`    keyword leg: ${Object.entries(inner).map(([k, v]) => `${k}=${v.toFixed(3)}`).join('  ')}`);
      if (res.legs.vectorFloor !== null) out.push(`    vector floor ${res.legs.vectorFloor.toFixed(3)} (cosine; ${res.legs.vectorDropped} hits below it dropped)`);
    }
    // The carried context, numbered with its own line, above the body's first line.
    if (r.context && r.contextLine) {
      const first = r.context.split('\n')[0];
      out.push(`    ${String(r.contextLine).padStart(5)}  ${safeText(first.length > 150 ? first.slice(0, 147) + '…' : first)}`, '           …');
    }
    // The definition line is shown: a long doc above it is folded (core/text/snippet.ts).
    const s = snippet({ content: r.content, startLine: r.startLine, defLine: r.defLine, highlights: [] }, { whole: false, maxLines: SNIPPET_LINES });
    const print = (b: SnippetBlock) => b.code.split('\n').forEach((l, i) => out.push(`    ${String(b.firstLine + i).padStart(5)}  ${safeText(l.length > 150 ? l.slice(0, 147) + '…' : l)}`));
    if (s.head) {
      print(s.head);
      out.push(`           ⋯ ${s.folded} more doc line${s.folded === 1 ? '' : 's'}`);
    }
    print(s.body);
    out.push('');
  }
  out.push(`${res.results.length} results · ${res.strategy} · ${Math.round(res.embeddedRatio * 100)}% embedded · ${res.timings.total?.toFixed(1)} ms`);
  return out.join('\n') + '\n';
}
