/**
 * `sift index` / `sift rebuild`: walk → hash → chunk → store, then embed what is new.
 * Keyword search is usable as soon as the lexical pass commits; embedding follows and can
 * be interrupted and resumed (already-embedded chunks are cached by content hash).
 */
import { join } from 'node:path';
import { NodeFileSource } from '../core/source/node-source-node.ts';
import { Chunker } from '../core/chunk/chunker.ts';
import { nodeWasmLoader } from '../core/chunk/grammars-node.ts';
import { chunkForStore, indexCodebase, type FileChunker, type IndexSummary } from '../core/index/indexer.ts';
import { nativeSha256, nativeSha256Digest } from './node-hash.ts';
import { createChunkPool, DEFAULT_POOL_SIZE } from './chunk-pool.ts';
import { nodeTextCodec } from '../core/store/text-codec-node.ts';
import type { EmbedSummary } from '../core/embed/embed-pass.ts';
import { PAGE_CACHE_KIB, type Store } from '../core/store/store.ts';
import type { EmbedPool } from './embed-pool.ts';
import { safeText, type IndexPaths } from './context.ts';
import type { ModelChoice } from './model.ts';
import type { CodebaseStatus } from '../core/types.ts';
import { trace } from './trace.ts';
import { processIo, type CliIo } from './io.ts';

/** Warnings a human-readable `sift index` prints, each on its own line (all of them: `--json`). */
const WARNINGS_SHOWN = 3;

export interface IndexCliOptions {
  embed: boolean;
  modelDir?: string;
  verify: boolean;
  maxFileSize?: number;
  /** --exclude and --ignore: gitignore-syntax patterns applied after every ignore file. */
  ignore?: string[];
  /** --include: when given, only paths matching one of these gitignore-syntax patterns are indexed. */
  include?: string[];
  json: boolean;
  quiet: boolean;
  /** Chunking worker threads; 0 = chunk on the main thread. Default: env SIFT_CHUNK_WORKERS or DEFAULT_POOL_SIZE. */
  workers?: number;
  /** Why embedding is off when `embed` is false (default: "disabled (--no-embed)"). */
  embedOff?: string;
  /** Where output, notes and progress go (default: this process's streams; the warm server's client otherwise). */
  io?: CliIo;
  /**
   * Called when the keyword pass is done, before embedding: a new index built beside its final
   * name goes into place here (main.ts), so keyword search works while embedding runs. Returns
   * the store to embed into, or null when nothing more is written (no embedding asked for).
   */
  afterLexical?: (store: Store) => Promise<Store | null>;
}

/**
 * Files read and queued ahead per worker thread. A batch write holds the main thread for up
 * to seconds (SQLite runs synchronously there), and the workers must not run dry meanwhile:
 * with 4 files ahead the one chunk worker sat idle half the run (kernel subset, 2 cores:
 * 111 s; 128 ahead: 86 s).
 */
const FILES_AHEAD_PER_WORKER = 64;
/** Files chunked on the main thread before the worker pool is started. */
const IN_THREAD_FIRST_FILES = 16;
/**
 * A run that will chunk fewer bytes than this (the walk's sizes, FileChunker.expect) chunks
 * in-thread and starts no worker: a chunk thread's start (its isolate, the bundle, web-tree-sitter
 * and each grammar again) cost 0.3–0.45 s of CPU per thread, more than a small run's parsing.
 * Measured on the loaded 2-core machine (load 9–11, interleaved, CPU user+sys): 72 Python files
 * (1.3 MB) 3.0 s in-thread, 3.5 s with 1 worker, 4.0 s with 2; 490 Go/JS files (5.9 MB) 7.5 /
 * 7.8 / 9.1 s.
 */
const POOL_MIN_BYTES = 8 * 1024 * 1024;
/**
 * Merge the FTS index's segments after a run that wrote this many rows: keyword p95 on the
 * kernel subset (197k chunks) went 157 → 130 ms for a one-off rewrite of the FTS b-tree.
 */
const OPTIMIZE_AFTER_ROWS = 20_000;
/**
 * The embedding pass's page cache (Store.setPageCache): room for the kernel subset's
 * embeddings table and the chunk rows it pages through; filled only as far as needed.
 */
const EMBED_PAGE_CACHE_KIB = 256 * 1024;
/** Vectors in the pass's first write transaction; each next one doubles, up to the max (write-behind.ts). */
const EMBED_WRITE_GROUP = 4096;
const EMBED_WRITE_GROUP_MAX = 131_072;
/**
 * Pending chunks from which a static model embeds on worker threads (embed-pool.ts): below it,
 * starting the threads costs more than they save (the main thread embeds ~5–10k chunks/s).
 */
const EMBED_POOL_MIN_CHUNKS = 20_000;

/**
 * The chunker for this run: in-thread for a small run, else a worker pool too (core's
 * ChunkPool: a thread that dies or cannot start hands its files to the in-thread chunker). The
 * walk tells the size of the run (FileChunker.expect): below POOL_MIN_BYTES, with the walk
 * complete, no thread starts; otherwise the pool starts at once and gets every file after the
 * first IN_THREAD_FIRST_FILES, which are chunked here while the threads load. Either way a file
 * comes back as chunkForStore makes it (the worker's code), with Node's native hash and codec.
 */
async function createChunker(workers: number, quiet: boolean, io: CliIo): Promise<{ chunker: FileChunker; concurrency: number; dispose: () => Promise<void> }> {
  let local: Promise<Chunker> | null = null;
  const loadLocal = (): Promise<Chunker> => (local ??= Chunker.create({ loadWasm: nodeWasmLoader }));
  const inThread: FileChunker = {
    chunkFile: async (path, text) => chunkForStore(await loadLocal(), path, text, { codec: nodeTextCodec, sha256Hex: nativeSha256 }),
  };
  const pool = workers > 0
    ? createChunkPool(workers, async () => inThread, (why) => {
      // Same results, only slower: say so once per thread lost.
      if (!quiet) io.err(`sift: a chunk worker stopped (${why.split('\n')[0]}); its files are chunked on the main thread\n`);
    })
    : null;
  // Unknown until `expect` (a caller that never tells gets the pool after the first files).
  let usePool = pool !== null;
  let seen = 0;
  const chunker: FileChunker = {
    expect: (work) => {
      usePool = pool !== null && (!work.complete || work.bytes >= POOL_MIN_BYTES);
      if (usePool) pool!.start();
      trace(`chunking ${work.files} files, ${(work.bytes / 1e6).toFixed(1)} MB${work.complete ? '' : ' so far'}: ${usePool ? `${workers} worker threads` : 'in-thread'}`);
    },
    chunkFile: (path, text) => (usePool && ++seen > IN_THREAD_FIRST_FILES ? pool!.chunkFile(path, text) : inThread.chunkFile(path, text)),
  };
  return {
    chunker,
    concurrency: Math.max(1, workers) * FILES_AHEAD_PER_WORKER,
    dispose: async () => {
      await pool?.dispose();
      if (local) (await local).dispose();
    },
  };
}

function workerCount(o: IndexCliOptions): number {
  if (o.workers !== undefined) return o.workers;
  const env = Number.parseInt(process.env.SIFT_CHUNK_WORKERS ?? '', 10);
  return Number.isFinite(env) && env >= 0 ? env : DEFAULT_POOL_SIZE;
}

/**
 * Threads that embed for a static model when the pass is big enough to repay starting them
 * (each loads the model: ~0.6–1 s of CPU for potion-shape); null: embed on this thread. A pool
 * that cannot start is traced and skipped — the main thread embeds the same vectors.
 */
async function embedThreads(store: Store, choice: ModelChoice, threads: number): Promise<EmbedPool | null> {
  const info = choice.embedder.info;
  if (info.family !== 'static' || threads < 1) return null;
  const pending = (await store.chunkCount()) - (await store.embeddedCount(info.key));
  if (pending < EMBED_POOL_MIN_CHUNKS) return null;
  try {
    const { startEmbedPool } = await import('./embed-pool.ts');
    return await startEmbedPool({ dir: join(choice.source.localModelPath, choice.source.modelId), modelId: choice.source.modelId, info, size: threads });
  } catch (e) {
    trace(`embedding threads not started: ${e instanceof Error ? e.message : String(e)}`);
    return null;
  }
}

/** `sift index`'s progress line. While the walk goes on, its count is the files found so far: no total, no percent. */
export function progressLine(s: CodebaseStatus): string {
  const pct = s.walkDone ? `${String(s.progress).padStart(3)}%` : '   …';
  const files = s.walkDone ? `${s.indexedFiles}/${s.totalFiles}` : `${s.indexedFiles} of ${s.totalFiles}+ found so far`;
  return `${s.currentStage.padEnd(10)} ${pct}  files ${files}  chunks ${s.totalChunks}${s.warnings ? `  warnings ${s.warnings}` : ''}`;
}

/** What one `sift index` run did: its `--json` object and its human summary lines. */
export interface IndexReport {
  json: Record<string, unknown>;
  lines: string[];
  /** The embedding pass: what it did, or why it did not run. */
  embedding: (EmbedSummary & { model: string; device: string; dtype: string }) | { skipped: string };
  /** The store the run ended with (another than the one given after `afterLexical`), still open; null when that closed it. */
  store: Store | null;
}

/** `sift index`: update the index, print its summary, close the store. */
export async function runIndex(dir: string, store: Store, paths: IndexPaths, o: IndexCliOptions): Promise<number> {
  const report = await updateIndex(dir, store, paths, o);
  trace('index updated');
  const io = o.io ?? processIo;
  if (o.json) io.out(JSON.stringify(report.json, null, 2) + '\n');
  else if (!o.quiet) io.out(report.lines.join('\n') + '\n');
  if (report.store) await report.store.close();
  trace('index closed');
  return 0;
}

/**
 * Bring the index of `dir` up to date (walk, chunk, store; then embed unless `o.embed` is
 * false) and say what was done. Prints progress on a terminal only; leaves the store open
 * (`given`, or the one `afterLexical` returned: IndexReport.store).
 * `sift index` and `sift publish` both run it, under the index's writer lock.
 */
export async function updateIndex(dir: string, given: Store, paths: IndexPaths, o: IndexCliOptions): Promise<IndexReport> {
  let store: Store | null = given;
  const io = o.io ?? processIo;
  const show = (line: string): void => {
    if (!o.quiet) io.progress(line);
  };
  const warnings: string[] = [];
  const { chunker, concurrency, dispose } = await createChunker(workerCount(o), o.quiet, io);
  let lexical: IndexSummary;
  const ac = new AbortController();
  let stage = '';
  const onSigint = (): void => ac.abort();
  // Ctrl-C stops this process's own run; a run in the warm server (detached, another Io) has no terminal.
  const ownProcess = io === processIo;
  if (ownProcess) process.once('SIGINT', onSigint);
  try {
    lexical = await indexCodebase(
      // Synchronous fs calls: nothing else waits on this thread's event loop during a run, and
      // a promise fs call costs ~3x the CPU of a sync one (a stat + a read of each of kernel
      // fs/'s 2,123 files: 0.50-0.87 s CPU async, 0.15-0.25 s sync, 3 alternated rounds).
      { source: new NodeFileSource(dir, { sync: true }), store: given, chunker },
      {
        signal: ac.signal,
        verify: o.verify,
        concurrency,
        hashFile: nativeSha256,
        sha256Digest: nativeSha256Digest,
        // Merged inside the run (counted in its time); a bulk load always ends merged.
        optimizeAfterRows: OPTIMIZE_AFTER_ROWS,
        walk: { maxFileSize: o.maxFileSize, extraIgnore: o.ignore, include: o.include },
        onProgress: (s) => {
          if (s.currentStage !== stage) trace(`stage ${(stage = s.currentStage)}`);
          show(progressLine(s));
        },
        onWarning: (w) => warnings.push(`${w.path}: ${w.kind}: ${w.message}`),
      },
    );
  } finally {
    trace('lexical pass done');
    await dispose();
    trace('chunkers disposed');
  }
  show('');
  if (o.afterLexical) store = await o.afterLexical(given);
  const optimizeMs: number | null = lexical.timings.optimize > 0 ? lexical.timings.optimize : null;

  let embedding: (EmbedSummary & { model: string; device: string; dtype: string }) | { skipped: string } = { skipped: o.embedOff ?? 'disabled (--no-embed)' };
  let vectors: { kind: string; count: number; ms: number } | null = null;
  if (o.embed && store) {
    // The embedding pass's modules (the embedders, the tokenizer, the vector cache) are loaded
    // only when it runs: `--no-embed` does not parse them.
    const [{ loadCliEmbedder }, { embedPending }, { WriteBehindStore }, { rebuildVectorIndex }] = await Promise.all([
      import('./model.ts'), import('../core/embed/embed-pass.ts'), import('../core/embed/write-behind.ts'), import('./vectors.ts'),
    ]);
    const choice: ModelChoice | { unavailable: string } = await loadCliEmbedder({ modelDir: o.modelDir, store });
    if ('unavailable' in choice) {
      embedding = { skipped: choice.unavailable };
      if (!o.json && !o.quiet) io.err(`sift: no embedding model (${choice.unavailable}); keyword search only\n`);
    } else {
      try {
        // The pass's lookups and inserts stay in memory (Store.setPageCache), and its vectors are
        // written in growing transactions (write-behind.ts) — flushed when it stops, however.
        await store.setPageCache(EMBED_PAGE_CACHE_KIB);
        const writes = new WriteBehindStore(store, EMBED_WRITE_GROUP, EMBED_WRITE_GROUP_MAX);
        const pool = await embedThreads(store, choice, workerCount(o));
        let res: EmbedSummary;
        try {
          res = await embedPending(
            { store: writes, embedder: pool ?? choice.embedder },
            {
              signal: ac.signal,
              onProgress: (p) => show(`embedding ${p.embedded}/${p.total} chunks  ${p.rate.toFixed(1)} chunks/s`),
            },
          );
        } finally {
          await pool?.dispose();
          await writes.flush();
        }
        show('');
        const ph = res.phases;
        trace(`embedding pass done: ${res.newlyEmbedded} chunks (pending ${ph.pending.toFixed(0)} ms, embed ${ph.embed.toFixed(0)} ms, write ${ph.write.toFixed(0)} ms)`);
        embedding = { ...res, model: choice.embedder.info.modelId, device: choice.embedder.info.device, dtype: choice.embedder.info.dtype };
        try {
          vectors = await rebuildVectorIndex(store, paths, choice.embedder.info.key);
          trace(`vector cache written: ${vectors.count} vectors`);
        } catch (e) {
          // The vector file is a cache (search rebuilds it from the embeddings): warn, keep the index.
          const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
          warnings.push(`vector cache not saved: ${why}`);
          if (!o.json && !o.quiet) io.err(`sift: vector cache not saved (${safeText(why)}); search rebuilds it\n`);
        }
      } finally {
        await store.setPageCache(PAGE_CACHE_KIB);
        await choice.embedder.dispose();
      }
    }
  }
  if (ownProcess) process.off('SIGINT', onSigint);

  const json = {
    dir,
    db: paths.db,
    unchanged: lexical.unchanged,
    files: lexical.files,
    chunks: lexical.chunks,
    bytes: lexical.bytes,
    warnings: lexical.warnings,
    parse_fallbacks: lexical.parseFallbacks,
    skipped: lexical.skipped,
    timings: { ...lexical.timings, optimize: optimizeMs },
    first_searchable_ms: lexical.firstSearchableMs,
    merkle_root: lexical.status.merkleRoot,
    embedding,
    vectors,
    warning_details: warnings.slice(0, 200),
  };
  const f = lexical.files;
  const secs = (lexical.timings.total / 1000).toFixed(2);
  const lines = [
    lexical.unchanged
      ? `${dir}: unchanged (${f.total} files, ${lexical.chunks.total} chunks) — checked in ${secs}s`
      : `${dir}: ${f.total} files (${f.added} added, ${f.changed} changed, ${f.renamed} renamed, ${f.deleted} deleted, ${f.unchanged} unchanged), ${lexical.chunks.total} chunks in ${secs}s`,
  ];
  const sk = lexical.skipped;
  if (sk.total > 0) lines.push(`not indexed: ${sk.total} (${Object.entries(sk.by_reason).map(([r, n]) => `${n} ${r}`).join(', ')}) — sift stats lists them`);
  if (lexical.warnings) {
    // The files indexed as text first (the count names them), then the rest, a few lines at most.
    const fallback = (w: string) => w.includes(': parse-fallback: ');
    const shown = [...warnings.filter(fallback), ...warnings.filter((w) => !fallback(w))].slice(0, WARNINGS_SHOWN);
    lines.push(`${lexical.warnings} warnings (${lexical.parseFallbacks} files indexed as text after a parse failure)${shown.length ? ':' : ''}`);
    for (const w of shown) lines.push(`  ${w}`);
    if (lexical.warnings > shown.length) lines.push(`  … ${lexical.warnings - shown.length} more: \`sift index --json\` lists them (warning_details)`);
  }
  if ('embedded' in embedding) lines.push(`embeddings: ${embedding.embedded}/${embedding.total} chunks (${embedding.newlyEmbedded} new, ${embedding.rate.toFixed(1)} chunks/s, ${embedding.model} ${embedding.dtype} on ${embedding.device})`);
  else lines.push(`embeddings: skipped — ${embedding.skipped}`);
  lines.push(`index: ${paths.db}`);
  return { json, lines: lines.map(safeText), embedding, store };
}
