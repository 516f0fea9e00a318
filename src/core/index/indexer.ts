/**
 * The indexing pipeline: folder → files → chunks → rows. Owns the order of work and
 * the incremental rules; knows nothing about where files or rows live (a FileSource and
 * any object with the store's async methods — a Comlink remote works the same).
 *
 * Invariants:
 * - A file's record is written in the same transaction as its chunks, so an interrupted
 *   run leaves only whole files behind and a re-run resumes by skipping them.
 * - A file whose size and mtime match its record is not read (stat cache, as in git);
 *   `verify: true` re-hashes everything.
 * - Same hash at a new path, old path gone → rows are moved, nothing is re-chunked.
 * - Deletions are applied last, after every surviving file is stored.
 * - Nothing here throws for bad input files: they are skipped or indexed as text, and
 *   counted in `warnings`.
 * - Pipelined, in order: up to `concurrency` files are read, hashed and chunked ahead of the
 *   file being committed, and at most ONE batch write is in flight while the next batch is
 *   chunked. Results are consumed in walk order, so batches, renames and deletions reach
 *   the store in the same order as a sequential run; every other store call waits for the
 *   write in flight first.
 */
import type { Chunk, CodebaseStatus, FileRecord, IndexStage } from '../types.ts';
import type { FileSource } from '../source/types.ts';
import { walk, isProbablyBinary, type WalkOptions, type WalkSkip } from '../walk/walker.ts';
import { merkleRoot, sha256Hex, sha256HexSync } from '../hash/hash.ts';
import { detectLanguage } from '../chunk/languages.ts';
import { embeddingText } from '../chunk/embedding-text.ts';
import { identifierTokens } from '../text/identifiers.ts';
import { CHUNK_OVERLAP_CHARS, MAX_CHUNK_CHARS, MIN_CHUNK_CHARS, WRITE_BATCH_ROWS } from '../config.ts';
import { chunkText as chunkPlainText } from '../chunk/text.ts';
import { META, type MetaKey } from '../store/meta.ts';

/** The chunker's own text fallback, for a file the chunker itself faulted on. */
const TEXT_FALLBACK = { maxChunkChars: MAX_CHUNK_CHARS, minChunkChars: MIN_CHUNK_CHARS, overlapChars: CHUNK_OVERLAP_CHARS };
/** Flush the first batch early so the codebase is searchable within moments. */
const FIRST_BATCH_FILES = 25;
/** Flush at least this often (ms) so a slow folder still shows results. */
const FLUSH_INTERVAL_MS = 1000;
const PROGRESS_INTERVAL_MS = 100;
/**
 * Files read + hashed + chunked ahead of the one being committed. With an in-thread chunker
 * this overlaps file reads and the store's writes (a worker in the browser); with a chunker
 * pool (CLI) it keeps every pool worker busy.
 */
export const DEFAULT_CONCURRENCY = 4;

/**
 * A chunk ready for the store: the embedding cache key and, optionally, the FTS `tokens`
 * column precomputed (identifierTokens(content)) so the store's thread need not do it.
 */
export type StoredChunkInput = Chunk & { contentHash: string; ftsTokens?: string };

/** The subset of the store the indexer needs. All async so a worker proxy satisfies it. */
export interface IndexStore {
  getMeta(key: MetaKey): Promise<string | null>;
  setMeta(key: MetaKey, value: string): Promise<void>;
  getFiles(): Promise<Map<string, FileRecord>>;
  writeFiles(items: Array<{ file: FileRecord; chunks: StoredChunkInput[] }>): Promise<void>;
  deleteFiles(paths: string[]): Promise<void>;
  renameFile(from: string, to: FileRecord): Promise<void>;
  chunkCount(): Promise<number>;
}

/** What the indexer needs from a chunker (the tree-sitter Chunker satisfies it). */
export interface FileChunker {
  /** Chunks may come back already prepared (`prepareChunks`, e.g. by a worker pool). */
  chunkFile(path: string, text: string): Promise<{ language: string; chunks: Array<Chunk | StoredChunkInput>; parsed: boolean; warnings: string[] }>;
}

export interface IndexOptions {
  walk?: Omit<WalkOptions, 'signal' | 'onSkip'>;
  signal?: AbortSignal;
  onProgress?: (status: CodebaseStatus) => void;
  /** Called for every skipped file and every warning (parse fallbacks, unreadable files). */
  onWarning?: (warning: IndexWarning) => void;
  /** Re-read and re-hash every file, ignoring the size/mtime cache. */
  verify?: boolean;
  /** Called after each batch is committed (the app refreshes live search with it). */
  onBatch?: (info: { files: number; chunks: number }) => void;
  /** Files prepared ahead (read, hash, chunk); default DEFAULT_CONCURRENCY, 1 = sequential. */
  concurrency?: number;
}

export interface IndexWarning {
  path: string;
  kind: 'skipped' | 'parse-fallback' | 'unreadable' | 'binary';
  message: string;
}

/**
 * Milliseconds. read/hash/chunk/store are sums of per-file (per-batch for store) durations;
 * with pipelining they overlap each other, so they can add up to more than `total`.
 */
export interface IndexTimings {
  walk: number;
  read: number;
  hash: number;
  chunk: number;
  store: number;
  total: number;
}

export interface IndexSummary {
  status: CodebaseStatus;
  unchanged: boolean;
  files: { total: number; added: number; changed: number; deleted: number; renamed: number; unchanged: number; skipped: number };
  chunks: { written: number; total: number };
  bytes: number;
  warnings: number;
  parseFallbacks: number;
  timings: IndexTimings;
  /** ms from start until the first batch was committed (null if nothing was written). */
  firstSearchableMs: number | null;
}

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

function abortError(): DOMException {
  return new DOMException('Indexing was cancelled', 'AbortError');
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** Decode file bytes as text, honouring a UTF-16 BOM; invalid UTF-8 becomes U+FFFD. */
export function decodeText(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  const text = decoder.decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function isPrepared(c: Chunk | StoredChunkInput): c is StoredChunkInput {
  return typeof (c as StoredChunkInput).contentHash === 'string';
}

/**
 * Attach the embedding cache key (sha256 of the text the embedder sees) and the FTS tokens
 * column to each chunk. Synchronous pure-JS SHA-256: chunk texts are small, and one async
 * WebCrypto call per chunk cost more than the hashing itself (measured: see report).
 */
export function prepareChunks(chunks: ReadonlyArray<Chunk | StoredChunkInput>): StoredChunkInput[] {
  return chunks.map((c) => (isPrepared(c) ? c : { ...c, contentHash: sha256HexSync(embeddingText(c)), ftsTokens: identifierTokens(c.content) }));
}

export async function indexCodebase(
  deps: { source: FileSource; store: IndexStore; chunker: FileChunker },
  opts: IndexOptions = {},
): Promise<IndexSummary> {
  const { source, store, chunker } = deps;
  const { signal } = opts;
  const t0 = now();
  const timings: IndexTimings = { walk: 0, read: 0, hash: 0, chunk: 0, store: 0, total: 0 };
  const summary: IndexSummary['files'] = { total: 0, added: 0, changed: 0, deleted: 0, renamed: 0, unchanged: 0, skipped: 0 };
  let warnings = 0;
  let parseFallbacks = 0;
  let bytes = 0;
  let chunksWritten = 0;
  let firstSearchableMs: number | null = null;

  const status: CodebaseStatus = {
    path: source.name,
    status: 'indexing',
    progress: 0,
    currentStage: 'preparing',
    merkleRoot: null,
    totalFiles: 0,
    indexedFiles: 0,
    totalChunks: 0,
    embeddedChunks: 0,
    warnings: 0,
    lastUpdated: null,
    errorMessage: null,
  };
  let lastProgress = 0;
  const report = (force = false): void => {
    if (!opts.onProgress) return;
    const t = now();
    if (!force && t - lastProgress < PROGRESS_INTERVAL_MS) return;
    lastProgress = t;
    status.warnings = warnings;
    opts.onProgress({ ...status });
  };
  const setStage = (stage: IndexStage): void => {
    status.currentStage = stage;
    report(true);
  };
  const warn = (w: IndexWarning): void => {
    warnings++;
    opts.onWarning?.(w);
  };
  const checkAbort = (): void => {
    if (signal?.aborted) throw abortError();
  };
  /** The run's end, whether it did work or found the stored Merkle root still valid. */
  const finish = (end: { root: string; files: number; chunks: number; updatedAt: string | null; unchanged: boolean }): IndexSummary => {
    timings.total = now() - t0;
    Object.assign(status, { status: 'indexed', currentStage: 'complete', progress: 100, merkleRoot: end.root, indexedFiles: end.files, totalChunks: end.chunks, lastUpdated: end.updatedAt });
    report(true);
    return {
      status: { ...status },
      unchanged: end.unchanged,
      files: summary,
      chunks: { written: chunksWritten, total: end.chunks },
      bytes,
      warnings,
      parseFallbacks,
      timings,
      firstSearchableMs,
    };
  };

  // ---- preparing: walk + stat, compare with the stored records ----
  setStage('preparing');
  const stored = await store.getFiles();
  status.totalChunks = await store.chunkCount();
  const walked: Array<{ path: string; size: number; mtime: number }> = [];
  const tw = now();
  const onSkip = (s: WalkSkip): void => {
    if (s.reason === 'ignored' || s.reason === 'extension') return;
    summary.skipped++;
    warn({ path: s.path, kind: s.reason === 'unreadable' ? 'unreadable' : 'skipped', message: s.detail ?? s.reason });
  };
  for await (const f of walk(source, { ...opts.walk, signal, onSkip })) {
    walked.push(f);
    if (walked.length % 500 === 0) {
      status.totalFiles = walked.length;
      report();
    }
  }
  timings.walk = now() - tw;
  status.totalFiles = walked.length;
  summary.total = walked.length;

  const walkedPaths = new Set(walked.map((f) => f.path));
  const gone = [...stored.keys()].filter((p) => !walkedPaths.has(p));
  const pendingRun = (await store.getMeta(META.runState)) === 'indexing';
  // Files skipped as binary last time are remembered by size+mtime so they are not re-read.
  const skippedBefore = parseSkipped(await store.getMeta(META.skippedFiles));
  const skippedNow: Record<string, string> = {};
  const candidates = walked.filter((f) => {
    const rec = stored.get(f.path);
    if (!opts.verify && !rec && skippedBefore[f.path] === statKey(f)) {
      skippedNow[f.path] = statKey(f);
      return false;
    }
    return opts.verify || !rec || rec.size !== f.size || rec.mtime !== f.mtime;
  });
  const knownSkipped = Object.keys(skippedNow).length;
  summary.unchanged = walked.length - candidates.length - knownSkipped;
  summary.skipped += knownSkipped;

  // Nothing new, nothing gone, last run finished: the stored Merkle root still holds.
  const storedRoot = await store.getMeta(META.merkleRoot);
  if (candidates.length === 0 && gone.length === 0 && !pendingRun && storedRoot) {
    return finish({ root: storedRoot, files: walked.length, chunks: status.totalChunks, updatedAt: await store.getMeta(META.updatedAt), unchanged: true });
  }

  await store.setMeta(META.runState, 'indexing');
  if (!(await store.getMeta(META.createdAt))) await store.setMeta(META.createdAt, new Date().toISOString());

  // Rename candidates: stored files that vanished, by hash.
  const goneByHash = new Map<string, string[]>();
  for (const p of gone) {
    const h = stored.get(p)!.hash;
    const list = goneByHash.get(h);
    if (list) list.push(p);
    else goneByHash.set(h, [p]);
  }
  const renamedFrom = new Set<string>();

  // ---- chunking + indexing, streamed in short transactions ----
  setStage('chunking');
  const finalHashes = new Map<string, string>();
  for (const [p, rec] of stored) if (walkedPaths.has(p)) finalHashes.set(p, rec.hash);
  let batch: Array<{ file: FileRecord; chunks: StoredChunkInput[] }> = [];
  let batchRows = 0;
  let lastFlush = now();
  let processed = summary.unchanged;
  status.indexedFiles = processed;

  // At most one batch write in flight; `settle()` waits for it (and rethrows its failure).
  let inFlight: Promise<void> | null = null;
  const settle = async (): Promise<void> => {
    const p = inFlight;
    inFlight = null;
    if (p) await p;
  };
  const flush = async (): Promise<void> => {
    await settle();
    if (batch.length === 0) return;
    const items = batch;
    const rows = batchRows;
    batch = [];
    batchRows = 0;
    lastFlush = now();
    const ts = now();
    const write = store.writeFiles(items).then(() => {
      timings.store += now() - ts;
      chunksWritten += rows;
      if (firstSearchableMs === null) firstSearchableMs = now() - t0;
      opts.onBatch?.({ files: items.length, chunks: rows });
    });
    write.catch(() => undefined); // observed by the next settle(); never unhandled
    inFlight = write;
  };

  // Read + hash + (unless it looks like a rename or an untouched file) chunk, ahead of order.
  type Prepared =
    | { kind: 'unreadable'; error: unknown }
    | { kind: 'read'; data: Uint8Array; hash: string; chunked?: Promise<ChunkOutcome> };
  const chunkText = async (path: string, text: string, language: string): Promise<ChunkOutcome> => {
    const tc = now();
    try {
      const res = await chunker.chunkFile(path, text);
      return { language: res.language, chunks: prepareChunks(res.chunks), fallback: !res.parsed && res.warnings.length > 0 ? res.warnings.join('; ') : null };
    } catch (e) {
      // The chunker must never lose a file; if it faults anyway, keep the file as plain text chunks.
      return { language, chunks: prepareChunks(chunkPlainText(path, text, language, TEXT_FALLBACK)), fallback: e instanceof Error ? e.message : String(e) };
    } finally {
      timings.chunk += now() - tc;
    }
  };
  const prepare = async (f: { path: string }): Promise<Prepared> => {
    const tr = now();
    let data: Uint8Array;
    try {
      data = await source.readFile(f.path);
    } catch (error) {
      return { kind: 'unreadable', error };
    } finally {
      timings.read += now() - tr;
    }
    const th = now();
    const hash = await sha256Hex(data);
    timings.hash += now() - th;
    const prev = stored.get(f.path);
    const maybeRename = !prev && goneByHash.has(hash);
    if ((prev && prev.hash === hash) || maybeRename || isProbablyBinary(data)) return { kind: 'read', data, hash };
    const chunked = chunkText(f.path, decodeText(data), detectLanguage(f.path));
    chunked.catch(() => undefined);
    return { kind: 'read', data, hash, chunked };
  };

  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? DEFAULT_CONCURRENCY));
  const ahead: Array<Promise<Prepared>> = [];
  let next = 0;
  const fill = (): void => {
    while (ahead.length < concurrency && next < candidates.length) {
      const p = prepare(candidates[next++]!);
      p.catch(() => undefined);
      ahead.push(p);
    }
  };

  try {
    for (const f of candidates) {
      checkAbort();
      fill();
      const prep = await ahead.shift()!;
      if (prep.kind === 'unreadable') {
        const e = prep.error;
        warn({ path: f.path, kind: 'unreadable', message: e instanceof Error ? e.message : String(e) });
        summary.skipped++;
        finalHashes.delete(f.path);
        processed++;
        continue;
      }
      const { data, hash } = prep;
      bytes += data.byteLength;
      const language = detectLanguage(f.path);
      const record: FileRecord = { path: f.path, hash, size: f.size, mtime: f.mtime, language };
      const prev = stored.get(f.path);
      processed++;
      status.indexedFiles = processed;
      status.progress = Math.min(99, Math.round((processed / Math.max(1, walked.length)) * 100));

      if (prev && prev.hash === hash) {
        // Touched but unchanged: refresh the stat cache only (rename-safe: same path).
        await settle();
        await store.renameFile(f.path, record);
        finalHashes.set(f.path, hash);
        summary.unchanged++;
        report();
        continue;
      }
      const renameSource = !prev ? goneByHash.get(hash)?.shift() : undefined;
      if (renameSource) {
        await flush(); // keep ordering: the moved rows must not race a pending batch
        await settle();
        const ts = now();
        await store.renameFile(renameSource, record);
        timings.store += now() - ts;
        renamedFrom.add(renameSource);
        finalHashes.set(f.path, hash);
        summary.renamed++;
        report();
        continue;
      }
      if (isProbablyBinary(data)) {
        warn({ path: f.path, kind: 'binary', message: 'binary content, not indexed' });
        skippedNow[f.path] = statKey(f);
        summary.skipped++;
        if (prev) gone.push(f.path);
        continue;
      }
      // Chunked ahead unless it looked like a rename whose source another file took first.
      const outcome = await (prep.chunked ?? chunkText(f.path, decodeText(data), language));
      record.language = outcome.language;
      if (outcome.fallback !== null) {
        parseFallbacks++;
        warn({ path: f.path, kind: 'parse-fallback', message: outcome.fallback });
      }
      const hashed = outcome.chunks;
      if (prev) summary.changed++;
      else summary.added++;
      finalHashes.set(f.path, hash);
      batch.push({ file: record, chunks: hashed });
      batchRows += hashed.length;
      status.totalChunks += hashed.length;
      if (batchRows >= WRITE_BATCH_ROWS || (firstSearchableMs === null && inFlight === null && batch.length >= FIRST_BATCH_FILES) || now() - lastFlush > FLUSH_INTERVAL_MS) {
        status.currentStage = 'indexing';
        await flush();
        status.currentStage = 'chunking';
      }
      report();
    }
    checkAbort();
    setStage('indexing');
    await flush();
    await settle();
  } finally {
    // Never leave a write running behind the caller's back (an abort or a fault above).
    await settle().catch(() => undefined);
    await Promise.allSettled(ahead);
  }

  const toDelete = gone.filter((p) => !renamedFrom.has(p));
  if (toDelete.length > 0) {
    const ts = now();
    await store.deleteFiles(toDelete);
    timings.store += now() - ts;
  }
  summary.deleted = toDelete.filter((p) => stored.has(p)).length;

  const root = await merkleRoot([...finalHashes].map(([path, hash]) => ({ path, hash })));
  const updatedAt = new Date().toISOString();
  await store.setMeta(META.merkleRoot, root);
  await store.setMeta(META.skippedFiles, JSON.stringify(skippedNow));
  await store.setMeta(META.updatedAt, updatedAt);
  await store.setMeta(META.runState, 'complete');

  return finish({ root, files: finalHashes.size, chunks: await store.chunkCount(), updatedAt, unchanged: false });
}

interface ChunkOutcome {
  language: string;
  chunks: StoredChunkInput[];
  /** Why the file was indexed as text, or null. */
  fallback: string | null;
}

function statKey(f: { size: number; mtime: number }): string {
  return `${f.size}:${f.mtime}`;
}

function parseSkipped(raw: string | null): Record<string, string> {
  if (!raw) return {};
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}
