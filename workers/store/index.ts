/**
 * Store worker: every SQLite connection of this tab (one per codebase, OPFSCoopSyncVFS),
 * each codebase's in-memory vector index, and search. Writers (indexer, embedder workers)
 * reach a codebase over a MessagePort served here, so rows never cross the page.
 *
 * Invariants:
 * - One Store per codebase per worker; `open` is idempotent (cached promise).
 * - The vector index of a codebase holds exactly the vectors of the connected model; it is
 *   rebuilt from the database when the model changes or another tab wrote.
 * - Removing a codebase closes its connection before deleting its files.
 */
import { expose, transfer, transferHandlers, wrap, type Remote } from 'comlink';
import type { AgentCodebase, AppGrepLine, AppGrepRequest, AppGrepResponse, AppSearchRequest, AppSearchResponse, AppSearchResult, CodebaseInfo, CodebaseLegs, ImportResult, StoreWorkerApi, VectorModel, WriterPortApi } from './api.ts';
import type { FileRecord } from '../../src/core/types.ts';
import { openOpfsStore } from '../../src/core/store/open-opfs.ts';
import type { Store } from '../../src/core/store/store.ts';
import { checkImportedStore, isSqliteFile, NOT_SQLITE, openProblem } from '../../src/core/store/import-check.ts';
import { readOpfsStoreFile, removeOpfsStoreFiles, writeOpfsStoreFile } from '../../src/core/store/opfs-files.ts';
import { Searcher, type QueryEmbedder } from '../../src/core/search/search.ts';
import { mergeRanked } from '../../src/core/search/results.ts';
import { BM25_WEIGHT, DEFAULT_SEARCH_LIMIT, VECTOR_WEIGHT } from '../../src/core/config.ts';
import { createVectorIndex, chooseIndexKind } from '../../src/core/vector/create.ts';
import type { VectorIndex } from '../../src/core/vector/types.ts';
import { TieredIndex } from '../../src/core/vector/tiered.ts';
import { CancelRegistry, abortError, type CancelToken } from '../../src/core/cancel.ts';
import { META } from '../../src/core/store/meta.ts';
import { errorFields } from '../../src/core/store/errors.ts';
import { callTool, type ToolAnswer, type ToolCodebase } from '../../src/core/tools/run.ts';
import { grep, GrepPatternError, DEFAULT_GREP_LIMIT, DEFAULT_TEXT_CACHE_CHARS, MAX_GREP_LIMIT, TextCache } from '../../src/core/search/grep.ts';

interface Open {
  store: Store;
  searcher: Searcher;
  vectors: VectorIndex | null;
  vectorsKey: string | null;
  /** File texts kept between exact/regex searches (keyed by content hash: never stale). */
  texts: TextCache;
}

// Errors sent to the page keep `code` and `kind` besides name/message (Comlink's default
// drops them), so the page's classify() sees a corrupt index or a full quota as this worker did.
const thrown = transferHandlers.get('throw');
if (thrown) {
  transferHandlers.set('throw', {
    canHandle: thrown.canHandle,
    deserialize: thrown.deserialize,
    serialize: (v) => {
      const [out, transfers] = thrown.serialize(v);
      const o = out as { isError?: boolean; value?: Record<string, unknown> };
      if (o.isError && o.value) Object.assign(o.value, errorFields((v as { value?: unknown }).value));
      return [out, transfers];
    },
  });
}

const cancels = new CancelRegistry();
const opened = new Map<string, Promise<Open>>();
let queryEmbedder: Remote<QueryEmbedder> | null = null;
let model: VectorModel | null = null;

function embedderForSearch(): QueryEmbedder | null {
  const q = queryEmbedder;
  return q ? { embedQuery: (text: string) => q.embedQuery(text) } : null;
}

async function buildVectors(store: Store, m: VectorModel | null): Promise<VectorIndex | null> {
  if (!m) return null;
  const { ids, vectors, dim } = await store.loadVectors(m.key);
  if (ids.length > 0 && dim !== m.dim) throw new Error(`stored vectors have ${dim} dimensions, the model has ${m.dim}`);
  // Big codebases: searchable at once by exact scan while the hnsw graph builds behind it.
  if (chooseIndexKind(ids.length) === 'hnsw') return TieredIndex.create(m.dim, ids, vectors, 'hnsw');
  const index = await createVectorIndex('exact', m.dim, { capacity: Math.max(1024, ids.length) });
  if (ids.length > 0) await index.add(ids, vectors);
  return index;
}

async function syncVectors(o: Open): Promise<void> {
  const key = model?.key ?? null;
  if (o.vectorsKey === key && o.vectors) return;
  o.vectors?.dispose();
  o.vectors = await buildVectors(o.store, model);
  o.vectorsKey = key;
  o.searcher.setVectorLeg(embedderForSearch(), o.vectors);
}

function get(id: string): Promise<Open> {
  let p = opened.get(id);
  if (!p) {
    p = (async () => {
      const store = await openOpfsStore(id);
      const o: Open = { store, searcher: new Searcher(store), vectors: null, vectorsKey: null, texts: new TextCache(DEFAULT_TEXT_CACHE_CHARS) };
      await syncVectors(o);
      return o;
    })();
    opened.set(id, p);
    p.catch(() => opened.delete(id));
  }
  return p;
}

async function info(id: string): Promise<CodebaseInfo> {
  const o = await get(id);
  const s = await o.store.stats();
  const [runState, merkleRoot, updatedAt, createdAt] = await Promise.all(([META.runState, META.merkleRoot, META.updatedAt, META.createdAt] as const).map((k) => o.store.getMeta(k)));
  const embedded = model ? await o.store.embeddedCount(model.key) : s.embeddedChunks;
  return {
    codebaseId: id,
    files: s.files,
    chunks: s.chunks,
    embedded,
    bytes: s.bytes,
    dbBytes: s.dbBytes,
    languages: Object.entries(s.languages)
      .map(([language, v]) => ({ language, files: v.files, bytes: v.bytes, chunks: v.chunks, structured: v.structured }))
      .sort((a, b) => b.chunks - a.chunks),
    kinds: Object.entries(s.kinds)
      .map(([kind, v]) => ({ kind, ...v }))
      .sort((a, b) => b.bytes - a.bytes),
    chunkTypes: Object.entries(s.chunkTypes)
      .map(([chunkType, chunks]) => ({ chunkType, chunks }))
      .sort((a, b) => b.chunks - a.chunks),
    runState,
    merkleRoot,
    updatedAt: updatedAt ?? s.lastIndexed,
    createdAt,
    schemaVersion: String(s.schemaVersion),
    vectorModel: s.model,
    vectorIndexKind: o.vectors ? `${o.vectors.kind} (${o.vectors.size})` : null,
    skipped: s.skipped,
  };
}

async function closeOne(id: string): Promise<void> {
  const p = opened.get(id);
  opened.delete(id);
  if (!p) return;
  const o = await p.catch(() => null);
  o?.vectors?.dispose();
  await o?.store.close();
}

function tagResults(codebaseId: string, r: Awaited<ReturnType<Searcher['search']>>): AppSearchResult[] {
  return r.results.map((x) => ({ ...x, codebaseId, explain: r.explain[x.id] ?? [], bm25Signals: r.bm25Signals[x.id] ?? null }));
}

const api: StoreWorkerApi = {
  open: (id) => info(id),
  info: (id) => info(id),
  structures: async (id) => (await get(id)).store.structureBytes(),
  close: (id) => closeOne(id),

  async remove(id) {
    await get(id).catch(() => null);
    await closeOne(id);
    await removeOpfsStoreFiles(id);
  },

  async connectWriter(id, port) {
    const o = await get(id);
    const s = o.store;
    const writer: WriterPortApi = {
      getMeta: (k) => s.getMeta(k),
      setMeta: (k, v) => s.setMeta(k, v),
      getFiles: () => s.getFiles(),
      writeFiles: (items) => s.writeFiles(items),
      deleteFiles: (paths) => s.deleteFiles(paths),
      renameFile: (from, to) => s.renameFile(from, to),
      chunkCount: () => s.chunkCount(),
      optimizeFts: () => s.optimizeFts(),
      flushTrigrams: () => s.flushTrigrams(),
      setBulkLoad: (on) => s.setBulkLoad(on),
      pendingEmbeddings: (m, limit, afterId) => s.pendingEmbeddings(m, limit, afterId),
      getChunks: (ids) => s.getChunks(ids),
      putEmbeddings: (m, items) => s.putEmbeddings(m, items),
      embeddedCount: (m) => s.embeddedCount(m),
      async addVectors(ids, vectors) {
        if (!o.vectors || !model) return;
        await o.vectors.add(ids, vectors);
      },
    };
    // Replaced chunks get new ids; their old vectors stay in the index (hits on unknown ids
    // are dropped by the searcher) until the page calls reloadVectors after the run.
    expose(writer, port);
  },

  async connectEmbedder(port, m) {
    queryEmbedder = port ? wrap<QueryEmbedder>(port) : null;
    model = m;
    for (const p of opened.values()) {
      const o = await p.catch(() => null);
      if (!o) continue;
      o.vectorsKey = null;
      await syncVectors(o);
    }
  },

  async reloadVectors(id) {
    const o = await get(id);
    o.vectorsKey = null;
    await syncVectors(o);
  },

  async search(req: AppSearchRequest, token: CancelToken): Promise<AppSearchResponse> {
    return cancels.run(token, async (signal) => {
      const t0 = performance.now();
      const ids = req.codebaseIds.length ? req.codebaseIds : [...opened.keys()];
      const responses = await Promise.all(
        ids.map(async (id) => {
          const o = await get(id);
          await syncVectors(o);
          if (signal.aborted) throw abortError();
          return { id, r: await o.searcher.search(req.query, req.options) };
        }),
      );
      if (signal.aborted) throw abortError();
      // One merge for every caller (search/results.ts): each list is one result per definition.
      const results = mergeRanked(responses.map(({ id, r }) => tagResults(id, r)), req.options.limit ?? DEFAULT_SEARCH_LIMIT);
      const legs: CodebaseLegs[] = responses.map(({ id, r }) => ({ codebaseId: id, ...r.legs }));
      const strategies = new Set(responses.map(({ r }) => r.strategy));
      const timings: Record<string, number> = {};
      for (const { r } of responses) for (const [k, v] of Object.entries(r.timings)) timings[k] = Math.max(timings[k] ?? 0, v);
      timings.total = performance.now() - t0;
      const ratios = responses.map(({ r }) => r.embeddedRatio);
      return {
        query: req.query,
        strategy: strategies.size === 1 ? [...strategies][0] : strategies.has('hybrid') ? 'hybrid' : responses[0]?.r.strategy ?? 'none',
        embeddedRatio: ratios.length ? ratios.reduce((a, b) => a + b, 0) / ratios.length : 0,
        results,
        legs,
        timings,
        weights: responses[0]?.r.weights ?? { bm25Weight: req.options.bm25Weight ?? BM25_WEIGHT, vectorWeight: req.options.vectorWeight ?? VECTOR_WEIGHT },
      };
    });
  },

  async grep(req: AppGrepRequest, token: CancelToken): Promise<AppGrepResponse> {
    return cancels.run(token, async (signal) => {
      const t0 = performance.now();
      const ids = req.codebaseIds.length ? req.codebaseIds : [...opened.keys()];
      const limit = Math.max(1, Math.min(MAX_GREP_LIMIT, req.limit ?? DEFAULT_GREP_LIMIT));
      const lines: AppGrepLine[] = [];
      let totalMatches = 0;
      let filesMatched = 0;
      let filesSearched = 0;
      try {
        // Codebases one after another, so the first `limit` lines come in a stable order.
        for (const id of ids) {
          const o = await get(id);
          const r = await grep(o.store, { pattern: req.pattern, mode: req.mode, ignoreCase: req.ignoreCase, limit: Math.max(1, limit - lines.length), path: req.pathGlob, languages: req.languages }, { signal, cache: o.texts });
          for (const l of r.results) if (lines.length < limit) lines.push({ ...l, codebaseId: id });
          totalMatches += r.totalMatches;
          filesMatched += r.filesMatched;
          filesSearched += r.filesSearched;
        }
      } catch (e) {
        if (e instanceof GrepPatternError) return { ok: false, pattern: req.pattern, message: e.message, offset: e.offset };
        throw e;
      }
      if (signal.aborted) throw abortError();
      return {
        ok: true, pattern: req.pattern, mode: req.mode, ignoreCase: req.ignoreCase, lines, totalMatches,
        truncated: totalMatches > lines.length, filesMatched, filesSearched, timings: { total: performance.now() - t0 },
      };
    });
  },

  async getChunks(id, ids) {
    return (await get(id)).store.getChunks(ids);
  },

  async getFile(id, path): Promise<FileRecord | null> {
    return (await get(id)).store.getFile(path);
  },

  async setMeta(id, key, value) {
    await (await get(id)).store.setMeta(key, value);
  },

  async exportIndex(id) {
    // Close the connection so the database file is whole and not held by a sync access
    // handle, read it, reopen. (VACUUM INTO a second OPFS file reports "database is locked"
    // under OPFSCoopSyncVFS.) The page offers export only when no job runs on the codebase.
    await get(id);
    await closeOne(id);
    try {
      const bytes = await readOpfsStoreFile(id);
      return transfer(bytes, [bytes.buffer as ArrayBuffer]);
    } finally {
      await get(id);
    }
  },

  async importIndex(id, bytes, expectModel): Promise<ImportResult> {
    if (!isSqliteFile(bytes)) return { ok: false, ...NOT_SQLITE };
    await closeOne(id);
    await writeOpfsStoreFile(id, bytes);
    let o: Open;
    try {
      o = await get(id);
    } catch (e) {
      await removeOpfsStoreFiles(id);
      return { ok: false, ...openProblem(e) };
    }
    const problem = await checkImportedStore(o.store, expectModel);
    if (problem) {
      await closeOne(id);
      await removeOpfsStoreFiles(id);
      return { ok: false, ...problem };
    }
    // An imported index has no folder: it can be searched but not rescanned.
    await o.store.setMeta(META.runState, 'complete');
    return { ok: true, info: await info(id), name: await o.store.getMeta(META.codebaseName) };
  },

  async agentTool(name: string, args: unknown, cbs: AgentCodebase[]): Promise<ToolAnswer> {
    const served: ToolCodebase[] = [];
    for (const c of cbs) {
      const o = await get(c.id);
      await syncVectors(o);
      served.push({
        name: c.name, root: null, store: o.store, searcher: o.searcher, texts: o.texts,
        progress: () => ({ state: c.indexing ? 'indexing' : 'ready', indexedShare: c.indexedShare }),
      });
    }
    return callTool({ codebases: () => served }, name, args);
  },

  cancel(token) {
    cancels.cancel(token);
  },
};

expose(api);
