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
import { expose, finalizer, transfer, transferHandlers, wrap, type Remote } from 'comlink';
import type { AgentCodebase, OutlineEntry, AppGrepLine, AppGrepRequest, AppGrepResponse, AppSearchRequest, AppSearchResponse, AppSearchResult, CodebaseInfo, CodebaseLegs, ImportResult, StoreWorkerApi, VectorModel, WriterPortApi } from './api.ts';
import type { FileRecord } from '../../src/core/types.ts';
import { openOpfsStore } from '../../src/core/store/open-opfs.ts';
import { openMemoryStoreOn } from '../../src/core/store/open.ts';
import { indexCodebase, type FileChunker } from '../../src/core/index/indexer.ts';
import { MemoryFileSource } from '../../src/core/source/memory-source.ts';
import { chunkText } from '../../src/core/chunk/text.ts';
import type { Store } from '../../src/core/store/store.ts';
import { checkImportedStore, isSqliteFile, NOT_SQLITE, openProblem } from '../../src/core/store/import-check.ts';
import { beginUnjournaledLoad, discardUnfinishedLoad, readOpfsStoreFile, removeOpfsStoreFiles, writeOpfsStoreFile } from '../../src/core/store/opfs-files.ts';
import { Searcher, type QueryEmbedder } from '../../src/core/search/search.ts';
import { mergeRanked } from '../../src/core/search/results.ts';
import { BM25_WEIGHT, CHUNK_OVERLAP_CHARS, DEFAULT_SEARCH_LIMIT, MAX_CHUNK_CHARS, MIN_CHUNK_CHARS, VECTOR_WEIGHT } from '../../src/core/config.ts';
import { createVectorIndex, chooseIndexKind } from '../../src/core/vector/create.ts';
import type { VectorIndex } from '../../src/core/vector/types.ts';
import { TieredIndex } from '../../src/core/vector/tiered.ts';
import { CancelRegistry, abortError, type CancelToken } from '../../src/core/cancel.ts';
import { META } from '../../src/core/store/meta.ts';
import { errorFields, formatBytes } from '../../src/core/store/errors.ts';
import { callTool, fileDefinitions, type ToolAnswer, type ToolCodebase, type ToolProgress } from '../../src/core/tools/run.ts';
import { browserRuntime } from '../../src/core/store/open-opfs.ts';
import { openPackOn, packPages, prefetchLayout } from '../../src/core/store/open-pack.ts';
import { MULTIPLEXED_CONCURRENCY, PackReadError, type PackPages } from '../../src/core/store/http-vfs.ts';
import { PackError, packDatabaseBytes, packVectorsFit, packHashTable, packUrl, parsePackManifest, type PackManifest, type PackStats } from '../../src/core/store/pack.ts';
import { fetchManifest, HttpRangeSource, readPackBody, multiplexedHost, PageSaver, probeMultiRange, probePack, prunePageCache, resolveManifestUrl, seedFromCache, seedHashesFromCache } from '../../src/core/store/pack-http.ts';
import { SCHEMA_VERSION } from '../../src/core/store/schema.ts';
import { openPackVectors } from '../../src/core/vector/pack-vectors.ts';
import { sha256Hex } from '../../src/core/hash/hash.ts';
import { measureSince } from '../../src/core/user-timing.ts';
import { addAsRegex, grep, grepAsRegex, GrepPatternError, DEFAULT_GREP_LIMIT, type AsRegex, type GrepRequest, DEFAULT_TEXT_CACHE_CHARS, MAX_GREP_LIMIT, TextCache } from '../../src/core/search/grep.ts';

interface Open {
  store: Store;
  searcher: Searcher;
  vectors: VectorIndex | null;
  vectorsKey: string | null;
  /** File texts kept between exact/regex searches (keyed by content hash: never stale). */
  texts: TextCache;
  /** Set for a published index read over HTTP (issue 27). */
  pack?: OpenedPack;
}

/** A codebase opened by URL: its manifest and this session's reader. */
interface PackSource {
  manifestUrl: string;
  manifest: PackManifest;
  text: string;
  /** The manifest came from the saved copy (the network was down). */
  offline: boolean;
}
interface OpenedPack extends PackSource {
  packUrl: string;
  pages: PackPages;
  cachedPages: number;
}

/** Origins besides the app's own that this deploy may read packs from (build-time SIFT_PACK_ORIGINS). */
const PACK_ORIGINS: readonly string[] = typeof __SIFT_PACK_ORIGINS__ === 'undefined' ? [] : __SIFT_PACK_ORIGINS__;

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

/** What warm() indexes and searches: a few lines, enough for a chunk, its tokens and its trigrams. */
const WARM_TEXT = 'Parse the header of a request.\nfunction parseHeader(line) {\n  return line.split(":");\n}\n';

const cancels = new CancelRegistry();
const opened = new Map<string, Promise<Open>>();
/** Codebases that are published indexes (by id): get() opens these over HTTP, not from OPFS. */
const packs = new Map<string, PackSource>();
/** Ids of published indexes start with this (the page makes them): never a local database. */
const PACK_ID_PREFIX = 'pk-';
let queryEmbedder: Remote<QueryEmbedder> | null = null;
let model: VectorModel | null = null;

function embedderForSearch(): QueryEmbedder | null {
  const q = queryEmbedder;
  return q ? { embedQuery: (text: string) => q.embedQuery(text) } : null;
}

async function buildVectors(store: Store, m: VectorModel | null, pack?: OpenedPack): Promise<VectorIndex | null> {
  if (!m) return null;
  if (pack) {
    // A pack's vectors are partitioned and read a few cells per query (vector/partitioned.ts).
    const e = pack.manifest.contains.embeddings;
    if (!e || !packVectorsFit(e, m)) return null;
    return openPackVectors(store.db, e.dim);
  }
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
  o.vectors = await buildVectors(o.store, model, o.pack);
  o.vectorsKey = key;
  o.searcher.setVectorLeg(embedderForSearch(), o.vectors);
}

/** An open codebase as the agent tools see it (core/tools/run.ts). */
function toolCodebase(o: Open, name: string, progress: ToolProgress): ToolCodebase {
  return { name, root: null, store: o.store, searcher: o.searcher, texts: o.texts, remote: !!o.pack, progress: () => progress };
}

/**
 * Codebases whose first index is being loaded unjournaled (Store.setUnjournaled), with what
 * ends that: journaled and synced again, then the marker and lock gone (opfs-files.ts).
 */
const unjournaled = new Map<string, () => Promise<void>>();

/**
 * A bulk load into a codebase that holds no file yet (its first index) commits without a
 * journal on disk and without syncs: ~60% fewer page writes on OPFS (kernel fs: 19,383 → 8,210)
 * and no flush per commit. Crash safety is the scratch file's (the CLI's new small index): if
 * this worker dies mid-load, the next open finds the marker with its lock free and deletes
 * the database, and the next run starts over; nothing else was in it. True when begun.
 */
async function beginFirstLoad(id: string, store: Store): Promise<boolean> {
  if (unjournaled.has(id) || (await store.hasFiles())) return false;
  const end = await beginUnjournaledLoad(id);
  if (!end) return false;
  try {
    await store.setUnjournaled(true);
  } catch (e) {
    await end();
    throw e;
  }
  let ending: Promise<void> | null = null;
  unjournaled.set(id, () => {
    // Once at a time; a failed end (say a full quota at its synced commit) keeps the marker, the
    // lock and this entry, and the next end (the next run's start, a close) tries again.
    ending ??= (async () => {
      try {
        await store.setUnjournaled(false);
      } catch (e) {
        ending = null;
        throw e;
      }
      unjournaled.delete(id);
      await end();
    })();
    return ending;
  });
  return true;
}

/** End `id`'s unjournaled load, if one runs (the writer that began it is done, or the store closes). */
async function endFirstLoad(id: string): Promise<void> {
  await unjournaled.get(id)?.();
}

/** Databases made ahead for a codebase not added yet (api.prepare): not searched until first used. */
const prepared = new Map<string, Promise<Open>>();

function get(id: string): Promise<Open> {
  let p = opened.get(id) ?? prepared.get(id);
  prepared.delete(id);
  if (p) opened.set(id, p);
  else {
    p = (async () => {
      const source = packs.get(id);
      if (!source && id.startsWith(PACK_ID_PREFIX)) throw new PackError('This shared index is not open yet (its URL is opened first).');
      const t0 = performance.now();
      const pack = source ? await openPackReader(source) : undefined;
      // A first index whose writer died mid-load (unjournaled: maybe damaged) is started over.
      if (!pack && (await discardUnfinishedLoad(id))) console.warn(`sift: the first index of ${id} was cut short while loading; it starts over`);
      const store = pack ? pack.store : await openOpfsStore(id);
      measureSince('store-open', t0);
      const o: Open = { store, searcher: new Searcher(store), vectors: null, vectorsKey: null, texts: new TextCache(DEFAULT_TEXT_CACHE_CHARS), pack: pack?.opened };
      await syncVectors(o);
      return o;
    })();
    opened.set(id, p);
    p.catch(() => opened.delete(id));
  }
  return p;
}

/**
 * Opens a published pack over HTTP: probe the host (ranges, no compression, the right size;
 * skipped offline when pages were saved before), restore saved pages, open read-only.
 */
async function openPackReader(source: PackSource): Promise<{ store: Store; opened: OpenedPack }> {
  const href = packUrl(source.manifestUrl, source.manifest);
  const saver = new PageSaver(href, source.manifest.pageSize);
  const http = new HttpRangeSource(href, source.manifest.bytes);
  const pages = packPages(http, source.manifest, { onFetched: (first, bytes) => saver.save(first, bytes), onHashes: (table) => saver.saveHashes(table) });
  // Format 2 keeps the page hashes in the pack: the saved copy, else they come with the layout below.
  const table = packHashTable(source.manifest);
  if (table) await seedHashesFromCache(href, table.sha256, pages);
  const cachedPages = await seedFromCache(href, pages);
  saver.alreadySaved(cachedPages * source.manifest.pageSize);
  let offline = source.offline;
  let firstPage: Uint8Array | null = null;
  try {
    // The two probes at once: ranges at all (the first page), and several per request.
    const [first, multi] = await Promise.all([probePack(href, source.manifest), probeMultiRange(href, source.manifest.bytes)]);
    http.useMultiRange(multi);
    if (multiplexedHost(href)) pages.concurrency = MULTIPLEXED_CONCURRENCY;
    firstPage = first;
  } catch (e) {
    // Offline with the first page saved: go on, the pages read before answer again.
    if (!(e instanceof PackReadError && e.problem === 'network' && pages.has(0))) throw e;
    offline = true;
  }
  // What every search reads (interior pages, the keyword index's small tables), at once.
  await prefetchLayout(source.manifest, pages).catch((e: unknown) => {
    if (!(e instanceof PackReadError && e.problem === 'network')) throw e; // offline: saved pages only
  });
  // A probe's timing entry may land after its body: asked again once the layout is in.
  if (multiplexedHost(href)) pages.concurrency = MULTIPLEXED_CONCURRENCY;
  // The probe's first page, checked now that the page hashes are at hand.
  if (firstPage && !pages.has(0) && pages.seed(0, firstPage)) saver.save(0, firstPage);
  const { store } = await openPackOn(await browserRuntime(), source.manifest, pages);
  return { store, opened: { ...source, offline, packUrl: href, pages, cachedPages } };
}

/** The per-language, per-kind and per-chunk-type lists of CodebaseInfo, from an index's (or a manifest's) stats. */
function statLists(s: Pick<PackStats, 'languages' | 'kinds' | 'chunkTypes'>): Pick<CodebaseInfo, 'languages' | 'kinds' | 'chunkTypes'> {
  return {
    languages: Object.entries(s.languages)
      .map(([language, v]) => ({ language, files: v.files, bytes: v.bytes, chunks: v.chunks, structured: v.structured }))
      .sort((a, b) => b.chunks - a.chunks),
    kinds: Object.entries(s.kinds).map(([kind, v]) => ({ kind, ...v })).sort((a, b) => b.bytes - a.bytes),
    chunkTypes: Object.entries(s.chunkTypes).map(([chunkType, chunks]) => ({ chunkType, chunks })).sort((a, b) => b.chunks - a.chunks),
  };
}

/** A pack's info, from its manifest (counting rows over HTTP would read megabytes). */
function packInfo(id: string, o: Open, p: OpenedPack): CodebaseInfo {
  const m = p.manifest;
  const s = m.stats;
  const e = m.contains.embeddings;
  return {
    codebaseId: id,
    files: m.files,
    chunks: m.chunks,
    embedded: e && model && e.model === model.key ? e.vectors : 0,
    bytes: m.sourceBytes,
    dbBytes: m.bytes,
    ...statLists(s),
    runState: 'complete',
    merkleRoot: null,
    updatedAt: m.created,
    createdAt: m.created,
    schemaVersion: String(m.schemaVersion),
    vectorModel: e?.model ?? null,
    vectorIndexKind: o.vectors ? `${o.vectors.kind} (${o.vectors.size})` : null,
    skipped: s.skipped,
    pack: {
      manifestUrl: p.manifestUrl,
      packUrl: p.packUrl,
      name: m.name,
      commit: m.commit,
      created: m.created,
      bytes: m.bytes,
      pageSize: m.pageSize,
      embeddingsModel: e?.model ?? null,
      // Vectors for another model than the one loaded: search by meaning is off for this pack.
      otherModel: !!e && !!model && !packVectorsFit(e, model) ? model.key : null,
      reads: { ...p.pages.stats },
      cachedPages: p.cachedPages,
      offline: p.offline,
    },
  };
}

/** A refusal the page shows, from anything opening a pack threw. */
function packProblem(e: unknown, bytes: number | null): { ok: false; problem: string; message: string; bytes: number | null } {
  if (e instanceof PackReadError) return { ok: false, problem: e.problem, message: e.message, bytes };
  if (e instanceof PackError) return { ok: false, problem: 'manifest', message: e.message, bytes };
  const cause = (e as { cause?: unknown })?.cause;
  if (cause instanceof PackReadError) return { ok: false, problem: cause.problem, message: cause.message, bytes };
  return { ok: false, problem: 'damaged', message: `The shared index could not be opened: ${e instanceof Error ? e.message : String(e)}`, bytes };
}

async function info(id: string): Promise<CodebaseInfo> {
  const o = await get(id);
  if (o.pack) return packInfo(id, o, o.pack);
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
    ...statLists(s),
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
  await endFirstLoad(id).catch((e: unknown) => console.warn(`sift: ending the first load of ${id}:`, e));
  const o = await p.catch(() => null);
  o?.vectors?.dispose();
  await o?.store.close();
}

/** The app's grep request for one codebase: a shared index is read only as far as the lines asked for need. */
function grepRequest(req: AppGrepRequest, o: Open): GrepRequest {
  return { pattern: req.pattern, mode: req.mode, ignoreCase: req.ignoreCase, path: req.pathGlob, languages: req.languages, stopAtLimit: !!o.pack };
}

function tagResults(codebaseId: string, r: Awaited<ReturnType<Searcher['search']>>): AppSearchResult[] {
  return r.results.map((x) => ({ ...x, codebaseId, explain: r.explain[x.id] ?? [], bm25Signals: r.bm25Signals[x.id] ?? null }));
}

const api: StoreWorkerApi = {
  open: (id) => info(id),
  async prepare(id) {
    if (opened.has(id) || prepared.has(id) || packs.has(id) || id.startsWith(PACK_ID_PREFIX)) return;
    const p = get(id);
    opened.delete(id);
    prepared.set(id, p);
    p.catch(() => prepared.delete(id));
    await p;
  },
  info: (id) => info(id),
  async structures(id) {
    const o = await get(id);
    // structureBytes reads every table: over HTTP that is the whole pack.
    if (o.pack) throw new PackError(`not for a shared index: it would download the whole pack (${formatBytes(o.pack.manifest.bytes)})`);
    return o.store.structureBytes();
  },
  close: (id) => closeOne(id),

  async remove(id) {
    const pack = packs.get(id);
    if (pack) {
      await closeOne(id);
      packs.delete(id);
      await prunePageCache(new Set([...packs.values()].map((p) => packUrl(p.manifestUrl, p.manifest))));
      return;
    }
    await get(id).catch(() => null);
    await closeOne(id);
    await removeOpfsStoreFiles(id);
  },

  async openPack(id, manifestRef, savedManifest, fetchedManifest) {
    // SQLite's WebAssembly loads while the manifest, the probe and the layout are fetched.
    browserRuntime().catch(() => undefined);
    let source: PackSource;
    try {
      const url = resolveManifestUrl(manifestRef, self.location.href, PACK_ORIGINS);
      try {
        // The page's own fetch of this manifest (started at load, same origin): used when it
        // parses; anything else is fetched again here, for the same checks and messages.
        let early: PackManifest | null = null;
        try {
          early = fetchedManifest ? parsePackManifest(fetchedManifest, SCHEMA_VERSION) : null;
        } catch {
          early = null;
        }
        if (early && fetchedManifest) source = { manifestUrl: url.href, manifest: early, text: fetchedManifest, offline: false };
        else {
          const { manifest, text } = await fetchManifest(url, SCHEMA_VERSION);
          source = { manifestUrl: url.href, manifest, text, offline: false };
        }
      } catch (e) {
        if (!(e instanceof PackReadError && e.problem === 'network' && savedManifest)) throw e;
        source = { manifestUrl: url.href, manifest: parsePackManifest(savedManifest, SCHEMA_VERSION), text: savedManifest, offline: true };
      }
    } catch (e) {
      return packProblem(e, null);
    }
    // A new pack behind the same manifest (a redeploy) replaces the open one.
    const before = packs.get(id);
    if (before && before.manifest.sha256 !== source.manifest.sha256) await closeOne(id);
    packs.set(id, source);
    try {
      const o = await get(id);
      return { ok: true, info: packInfo(id, o, o.pack!), manifestText: source.text };
    } catch (e) {
      packs.delete(id);
      return packProblem(e, source.manifest.bytes);
    }
  },

  async downloadPack(id, manifestRef, onProgress): Promise<ImportResult> {
    let manifest: PackManifest;
    let bytes: Uint8Array;
    try {
      const url = resolveManifestUrl(manifestRef, self.location.href, PACK_ORIGINS);
      manifest = (await fetchManifest(url, SCHEMA_VERSION)).manifest;
      const res = await fetch(packUrl(url.href, manifest), { credentials: 'same-origin' });
      if (!res.ok) return { ok: false, reason: 'corrupt', message: `downloading the index pack failed: HTTP ${res.status}` };
      bytes = await readPackBody(res, manifest.bytes, onProgress);
    } catch (e) {
      return { ok: false, reason: 'corrupt', message: e instanceof Error ? e.message : String(e) };
    }
    if (bytes.length !== manifest.bytes || (await sha256Hex(bytes)) !== manifest.sha256) {
      return { ok: false, reason: 'corrupt', message: `the downloaded pack (${bytes.length} bytes) does not match its manifest (${manifest.bytes} bytes, SHA-256 ${manifest.sha256.slice(0, 16)}…): it was changed or damaged after publishing` };
    }
    // The database alone: the copy of its first reads after it serves only range readers.
    const res = await api.importIndex(id, bytes.subarray(0, packDatabaseBytes(manifest)), null);
    if (res.ok) await (await get(id)).store.setMeta(META.codebaseName, manifest.name);
    return res.ok ? { ...res, name: manifest.name } : res;
  },

  async connectWriter(id, port) {
    if (packs.has(id) || id.startsWith(PACK_ID_PREFIX)) throw new PackError('A shared index is read-only: it cannot be indexed or embedded here.');
    const o = await get(id);
    const s = o.store;
    /** This writer began the codebase's unjournaled first load (beginFirstLoad). */
    let began = false;
    const writer: WriterPortApi = {
      getMeta: (k) => s.getMeta(k),
      setMeta: (k, v) => s.setMeta(k, v),
      setMetas: (entries) => s.setMetas(entries),
      getFiles: () => s.getFiles(),
      writeFiles: (items) => s.writeFiles(items),
      deleteFiles: (paths) => s.deleteFiles(paths),
      renameFile: (from, to) => s.renameFile(from, to),
      chunkCount: () => s.chunkCount(),
      optimizeFts: () => s.optimizeFts(),
      flushTrigrams: () => s.flushTrigrams(),
      async setBulkLoad(on) {
        if (!began) {
          // Every run states its mode first: a load left unjournaled by a writer whose port was
          // never released (its worker stopped) is synced before this run writes more.
          await endFirstLoad(id);
          if (on) began = await beginFirstLoad(id, s);
        }
        await s.setBulkLoad(on);
      },
      pendingEmbeddings: (m, limit, afterId) => s.pendingEmbeddings(m, limit, afterId),
      putEmbeddings: (m, items) => s.putEmbeddings(m, items),
      setPageCache: (kib) => s.setPageCache(kib),
      putEmbeddingBlobs: (m, hashes, blobs, stride) => s.putEncodedEmbeddings(m, hashes.map((h, i) => [h, blobs.subarray(i * stride, (i + 1) * stride)] as const)),
      embeddedCount: (m) => s.embeddedCount(m),
      async addVectors(ids, vectors) {
        if (!o.vectors || !model) return;
        await o.vectors.add(ids, vectors);
      },
    };
    // The writer's proxy released (its run ended, however): a first load it began is synced now.
    (writer as WriterPortApi & { [finalizer]?: () => void })[finalizer] = () => {
      if (began) void endFirstLoad(id).catch((e: unknown) => console.warn(`sift: ending the first load of ${id}:`, e));
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
      measureSince('search', t0);
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
      let exhaustive = true;
      try {
        // Codebases one after another, so the first `limit` lines come in a stable order.
        for (const id of ids) {
          const o = await get(id);
          const r = await grep(o.store, { ...grepRequest(req, o), limit: Math.max(1, limit - lines.length) }, { signal, cache: o.texts });
          exhaustive &&= r.exhaustive;
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
      // An exact pattern written as a regex that found nothing: what Regex mode would find.
      let asRegex: AsRegex | null = null;
      if (totalMatches === 0 && req.mode === 'exact') {
        for (const id of ids) {
          const o = await get(id);
          asRegex = addAsRegex(asRegex, await grepAsRegex(o.store, grepRequest(req, o), { signal, cache: o.texts }));
        }
        if (signal.aborted) throw abortError();
      }
      return {
        ok: true, pattern: req.pattern, mode: req.mode, ignoreCase: req.ignoreCase, lines, totalMatches,
        truncated: totalMatches > lines.length || !exhaustive, exhaustive, filesMatched, filesSearched, timings: { total: performance.now() - t0 }, asRegex,
      };
    });
  },

  async getChunks(id, ids) {
    return (await get(id)).store.getChunks(ids);
  },

  async getFile(id, path): Promise<FileRecord | null> {
    return (await get(id)).store.getFile(path);
  },

  async getFileText(id, path) {
    return (await get(id)).store.getFileText(path);
  },

  async outline(id, path): Promise<OutlineEntry[]> {
    const rows = await fileDefinitions(toolCodebase(await get(id), id, { state: 'ready', indexedShare: 1 }), path);
    // A qualified name is indexed with its last part too (`Shop.Web.Conn` and `Conn`, for
    // lookups); the outline names the definition once, qualified.
    const qualified = new Set(rows.flatMap((r) => (/[.:]/.test(r.name) ? [`${r.startLine}\n${r.name.split(/::|\./).pop()}`] : [])));
    return rows
      .filter((r) => /[.:]/.test(r.name) || !qualified.has(`${r.startLine}\n${r.name}`))
      .map((r) => ({ name: r.name, kind: r.kind, container: r.container, startLine: r.startLine, endLine: r.endLine }));
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
      served.push(toolCodebase(o, c.name, { state: c.indexing ? 'indexing' : 'ready', indexedShare: c.indexedShare }));
    }
    return callTool({ codebases: () => served }, name, args);
  },

  async warm() {
    // V8 compiles a WASM function on its first call: one small file written and searched in
    // memory runs SQLite's write, FTS and query paths now, so the first folder's batch and
    // query find them compiled (under load that first compile took ~0.7 s of the store's open).
    const store = await openMemoryStoreOn(await browserRuntime());
    try {
      const sizes = { maxChunkChars: MAX_CHUNK_CHARS, minChunkChars: MIN_CHUNK_CHARS, overlapChars: CHUNK_OVERLAP_CHARS };
      const chunker: FileChunker = { chunkFile: async (path, text) => ({ language: 'text', chunks: chunkText(path, text, 'text', sizes), parsed: false, warnings: [] }) };
      await indexCodebase({ source: new MemoryFileSource({ 'warm/readme.txt': WARM_TEXT }), store, chunker });
      await new Searcher(store).search('parse header', { mode: 'bm25' });
    } finally {
      await store.close();
    }
  },

  cancel(token) {
    cancels.cancel(token);
  },
};

expose(api);
