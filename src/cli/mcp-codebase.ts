/**
 * One codebase served by `sift mcp` (issue 26): its index (the CLI's, ~/.sift or --db), kept
 * fresh while the server runs, as a ToolCodebase for the core's agent tools.
 *
 * Freshness: a folder without an index is indexed in the background at start (keyword and
 * exact search first: nothing is embedded here). During that first index `grep` and `read`
 * serve every file the index will hold, stored or not (mcp-disk.ts DiskView: files not
 * stored yet, or edited since, are read from disk), and `search` answers as soon as files are
 * stored, saying what share is. Every directory a run walks is watched before it is listed
 * (fs.watch, one per directory, never node_modules or .git; mcp-disk.ts WatchedSource), so
 * a change made while a run walks is seen too; a change marks the index dirty and starts a
 * debounced incremental run (the indexer's stat cache: only changed files are read) — during
 * the first index the changed files are also stored at once (#storeTouched), ahead of the
 * walk's order. A call first lets pending file events in, then waits for a dirty index's run
 * (at most REFRESH_WAIT_MS), so an edit is in the next answer. Without working watchers, a
 * stat walk runs before a call when the last one is older than STAT_EVERY_MS.
 *
 * Writes are serialized: one run at a time per codebase, under the index's session lock (the
 * one `sift index` takes), so a concurrent `sift index` and this server never write at once
 * — when another process holds it, this server answers from the index as it is, and says so.
 *
 * Embeddings (`sift mcp --model M`, issue 36): after each run that changed the index (and at
 * start), the chunks without a vector for M are embedded in the background (embed-pass.ts),
 * under the same lock, in pages whose writes join the write queue; a run that is wanted stops
 * the pass at its next batch (the pass resumes after it: vectors are kept per content and
 * model), and the vector leg is reloaded after each pass. Answers never wait for embedding:
 * keyword search answers throughout, semantic search from the vectors written so far. Without
 * --model, the model the index records is loaded for queries only (never downloaded).
 */
import { existsSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { NodeFileSource } from '../core/source/node-source-node.ts';
import { decodeText, indexCodebase, planIndex, type FileChunker, type IndexStore } from '../core/index/indexer.ts';
import { IGNORE_FILES, isProbablyBinary } from '../core/walk/walker.ts';
import { Searcher } from '../core/search/search.ts';
import { namesCodeOf, processQuery } from '../core/search/query.ts';
import { DEFAULT_TEXT_CACHE_CHARS, TextCache } from '../core/search/grep.ts';
import type { Store, WriteItem } from '../core/store/store.ts';
import { META } from '../core/store/meta.ts';
import { DEFAULT_IGNORE_PATTERNS, DEFAULT_MAX_FILE_SIZE } from '../core/config.ts';
import { acquireSessionLock, type SessionLock } from '../core/store/lock-node.ts';
import type { CallWants, ToolCodebase, ToolProgress, ToolStore } from '../core/tools/run.ts';
import type { ToolName } from '../core/tools/contract.ts';
import { DiskTexts, DiskView, scanTerms, storedAheadItem, walkFiles, WatchedSource, type ScanFor } from './mcp-disk.ts';
import type { WalkedFile } from '../core/walk/walker.ts';
import { openIndex, type IndexPaths } from './context.ts';
import { WANTED_SCAN_BYTES, type FirstScan, type FirstScanItems } from './mcp-first-scan.ts';
import { createChunkPool, DEFAULT_POOL_SIZE } from './chunk-pool.ts';
import { nativeSha256, nativeSha256Digest } from './node-hash.ts';
import type { SiftEmbedder } from '../core/embed/embedder.ts';
import type { EmbedStore } from '../core/embed/embed-pass.ts';
import type { VectorIndex } from '../core/vector/types.ts';

/** Wait for a dirty index's incremental run before answering, at most this long. */
export const REFRESH_WAIT_MS = 4000;
/**
 * During the first index of a folder a call waits until the index is complete, or until some
 * files are stored and FIRST_ANSWER_BY_MS have passed since the server started (then it
 * answers from the stored share, and says so) — at most FIRST_WAIT_MAX_MS.
 */
export const FIRST_ANSWER_BY_MS = 1500;
export const FIRST_WAIT_MAX_MS = 8000;
/**
 * A `search` or `symbols` by name during the first index stores, ahead of the run, the files
 * that hold its words most (DiskView.filesHolding: at most WANTED_FILES, from a scan of the
 * files on disk, the first WANTED_SCAN_BYTES of them in walk order: a bound in bytes, not time,
 * so what is found does not depend on the machine's load), and answers once they are stored:
 * its answer does not wait for the run to reach them (#storeWanted).
 */
export const WANTED_FILES = 16;
export { WANTED_SCAN_BYTES };
/** At most this many edited files are stated again instead of a walk (#restated); more walk. */
const MAX_RESTATED = 256;
/** Files whose change changes what a walk lists (the walker's ignore files): a change of one walks. */
const IGNORE_FILE_NAMES: ReadonlySet<string> = new Set<string>(IGNORE_FILES);
/** Debounce of file events before an incremental run starts. */
export const WATCH_DEBOUNCE_MS = 100;
/** Without working watchers: a stat walk before a call when the last is older than this. */
export const STAT_EVERY_MS = 1500;
/** With watchers: a stat walk anyway (in the background) when the last is older than this (events can be lost). */
export const SAFETY_WALK_MS = 300_000;
/** Directories watched at most; past it, stat walks (STAT_EVERY_MS) keep the index fresh. */
export const MAX_WATCHED_DIRS = 8000;
/** Folders never watched (the walker's default ignores: tool, dependency and build folders), by name. */
const IGNORED_DIRS = DEFAULT_IGNORE_PATTERNS.filter((p) => p.endsWith('/') && !/[*?[]/.test(p)).map((p) => p.slice(0, -1));
// `venv` too: most often a Python environment being created (the walk then skips it by its
// pyvenv.cfg); a source folder of that name (CPython's Lib/venv) is watched once a walk reads it.
const UNWATCHED_DIRS: ReadonlySet<string> = new Set([...IGNORED_DIRS.filter((p) => !p.startsWith('/')), 'venv']);
/** The same, ignored only at the root (`/build/`). */
const UNWATCHED_ROOT_DIRS: ReadonlySet<string> = new Set(IGNORED_DIRS.filter((p) => p.startsWith('/')).map((p) => p.slice(1)));
/**
 * Files chunked on the main thread before the chunk pool starts: as `sift index` (16) for an
 * update; more on a first index, while its pool threads start (a 1,000-file repository, loaded
 * machine: 1 file stored 2.5 s after start with the pool from file 17, 65 files in-thread). A
 * first index also starts the pool's thread early (a tiny warm-up file, once no first answer is
 * being made: FIRST_CALL_GRACE_MS), so it is ready when the in-thread files end. (The first answers no longer wait for the run's first batch: the
 * files a call wants are stored ahead, #storeWanted.)
 */
const IN_THREAD_FIRST_FILES = 16;
const IN_THREAD_FIRST_FILES_OF_FIRST_INDEX = 64;
/**
 * A first index's chunking (in-thread and the pool's threads, whose start alone is ~0.3-0.45 s
 * of CPU each) waits while the first answer is made: for this long after the server starts, and
 * while a call's files are stored ahead (#storeWanted), so that the first answer does not share
 * the machine's cores with the run (#yieldToAnswer). The walk and the reads go on meanwhile.
 */
export const FIRST_CALL_GRACE_MS = 1500;
/** Files read ahead per chunk worker (as `sift index`). */
const FILES_AHEAD_PER_WORKER = 64;
/** FTS segments are merged after a run that wrote this many rows (as `sift index`). */
const OPTIMIZE_AFTER_ROWS = 20_000;

export interface ServeOptions {
  /** Walk options as `sift index` takes them. */
  maxFileSize?: number;
  ignore?: string[];
  include?: string[];
  /** Watch directories for changes (default true). */
  watch?: boolean;
  /** `--model`: embed new chunks with this model (a folder or Hub id) in the background. */
  model?: string;
  log: (line: string) => void;
}

function message(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
}

class Busy extends Error {
  constructor(readonly pid: number) {
    super(`another sift process (pid ${pid}) is writing this index`);
  }
}

/** Resolves with `p` or after `ms`, whichever comes first (never rejects). */
function waitAtMost(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    p.then(() => resolve(), () => resolve()).finally(() => clearTimeout(t));
  });
}

export class ServedCodebase implements ToolCodebase {
  /** The index. */
  #index: Store;
  searcher: Searcher;
  /** During the first index: the latest walk of the files as the tools see them (DiskView), and the #changes it was walked at. */
  #view: { view: Promise<DiskView>; changes: number } | null = null;
  /** The latest of them that is ready (and the #changes it was walked at): what `store` serves during the first index. */
  #ready: DiskView | null = null;
  #readyChanges = -1;
  /** Texts the views read from disk (kept until the first index ends). */
  #diskTexts: DiskTexts | null = null;
  /** Paths changed during the first index, stored ahead of the walk by #storeTouched. */
  #touched = new Set<string>();
  #storingTouched: Promise<void> | null = null;
  /** Every file the last run's walk listed (null before the first run ends). */
  #walkedFiles: Map<string, WalkedFile> | null = null;
  /**
   * Files the last walk listed that file events named since the last run began: the next run
   * states only these again instead of walking the folder (#restated). Null when an event
   * named anything else (the next run walks).
   */
  #edited: Set<string> | null = null;
  /** Files stored ahead of the first index's run (#storeAhead; a first answer may come from them: #waitFirst). */
  #storedAhead = 0;
  /** Files the first index's run has written (a wanted file it wrote is not stored ahead again: #storeWanted). */
  #storedByRun = new Set<string>();
  /** Files #storeWanted stored ahead, by path, with the stat they were read at. */
  #wantedStored = new Map<string, { size: number; mtime: number }>();
  /** Index writes, one at a time: the run's and #storeTouched's. */
  #writes: Promise<unknown> = Promise.resolve();
  readonly texts = new TextCache(DEFAULT_TEXT_CACHE_CHARS);
  #state: ToolProgress['state'] = 'ready';
  #share = 1;
  /** During the first index: files its walk has found so far, whether that walk has ended, files the run has stored (#shareNow). */
  #runWalked = 0;
  #runWalkDone = false;
  #runStored = 0;
  #error: string | null = null;
  /** Said in answers: why the index may lag (another writer, a failed run). */
  #lag: string | null = null;
  /**
   * File events seen, and how many of them the last finished run had seen when it started.
   * 1 at start: what changed while no server ran is found by the first run, which calls wait for.
   */
  #changes = 1;
  #indexedChanges = 0;
  #again = false;
  #lastWalk = 0;
  #running: Promise<void> | null = null;
  #ino: number;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #watchers = new Map<string, FSWatcher>();
  #watchOk: boolean;
  #closed = false;
  readonly #startedAt = Date.now();
  #semantic: string | null = 'the semantic leg is loading';
  /** The model: for queries, and with --model for the background embedding too. */
  #embedder: SiftEmbedder | null = null;
  #vectorIndex: VectorIndex | null = null;
  /** The background embedding (--model): the loop running, its pass's abort, and a wish to run again. */
  #embedding: Promise<void> | null = null;
  #embedAbort: AbortController | null = null;
  #embedAgain = false;
  #chunker: Promise<{ chunkFile: FileChunker['chunkFile']; dispose: () => void }> | null = null;
  /** What a first index's chunking waits for (FIRST_CALL_GRACE_MS, then a first answer being made); null: nothing. */
  #answering: Promise<unknown> | null = null;
  /** During the first index of a new folder: its scan thread (mcp-first-scan.ts), which a first search asks for its files. */
  #firstScan: FirstScan | null = null;

  private constructor(
    readonly name: string,
    readonly root: string,
    readonly paths: IndexPaths,
    store: Store,
    private readonly o: ServeOptions,
  ) {
    this.#index = store;
    this.searcher = new Searcher(store);
    this.#ino = statSync(paths.db).ino;
    this.#watchOk = o.watch !== false;
  }

  /** `firstScan`: the folder's scan thread, started when it had no index file (main.ts); kept for a first index only. */
  static async open(name: string, paths: IndexPaths, o: ServeOptions, firstScan: FirstScan | null = null): Promise<ServedCodebase> {
    let ctx;
    try {
      ctx = await openIndex(paths);
    } catch (e) {
      firstScan?.dispose();
      throw e;
    }
    const cb = new ServedCodebase(name, paths.dir, paths, ctx.store, o);
    const fresh = (await ctx.store.getMeta(META.merkleRoot)) === null;
    if (fresh) {
      cb.#state = 'indexing';
      cb.#share = 0;
      cb.#firstScan = firstScan;
    } else firstScan?.dispose();
    return cb;
  }

  /** What the tools read: the index, or during the first index the view of every file (DiskView). */
  get store(): ToolStore {
    return this.#state === 'indexing' && this.#ready ? this.#ready : this.#index;
  }

  progress(): ToolProgress {
    return { state: this.#state, indexedShare: this.#shareNow(), error: this.#state === 'error' ? this.#error : this.#lag, filesComplete: this.#state === 'indexing' && this.#ready !== null };
  }

  /**
   * The share of the folder's files stored. During the first index the run's walk goes on while
   * it stores (it waits for the reads): until it ends, the files it has found so far are not the
   * folder's files, so a complete walk of the folder (the latest view's, DiskView; one is walked
   * once the first answer is made: start) counts them — else a share of the files found so far
   * would read 99% while most of a big folder is not walked yet.
   */
  #shareNow(): number {
    if (this.#state !== 'indexing' || this.#share === 0 && this.#runStored === 0) return this.#share;
    let total = Math.max(this.#runWalked, this.#runStored, 1);
    if (!this.#runWalkDone && this.#ready) total = Math.max(total, this.#ready.fileCount);
    return Math.min(0.999, this.#runStored / total);
  }

  /** Starts the first run (index or catch up) and the semantic leg's loading, in the background. */
  start(): void {
    if (this.#state === 'indexing') {
      this.#answering = new Promise((r) => setTimeout(r, FIRST_CALL_GRACE_MS).unref());
      // Once no first answer is being made, a walk of the folder (the view grep and read serve)
      // counts its files for indexed_share while the run's own walk goes on (#shareNow).
      void this.#yieldToAnswer().then(() => {
        if (this.#state === 'indexing' && !this.#ready && !this.#closed) void this.#currentView();
      });
    }
    void this.refresh();
    void this.#loadVectorLeg();
  }

  /**
   * The semantic leg. Without --model: when the index has embeddings and their model is on
   * this machine (model.ts: the model recorded by `sift index`, never downloaded). With
   * --model: that model (downloaded when allowed, as `sift index` does), recorded in the index,
   * and new chunks are embedded in the background (#startEmbedding). Loaded in the background,
   * so no answer waits for it; until then, and without it, search is keyword only and says so.
   */
  async #loadVectorLeg(): Promise<void> {
    try {
      const { loadCliEmbedder, loadSearchEmbedder } = await import('./model.ts');
      const embed = this.o.model !== undefined;
      const choice = embed ? await loadCliEmbedder({ modelDir: this.o.model, store: this.#index }) : await loadSearchEmbedder({ store: this.#index });
      if ('unavailable' in choice) {
        this.#semantic = choice.unavailable;
        if (embed) this.o.log(`${this.name}: no embedding model (${choice.unavailable}); keyword search only`);
        return;
      }
      if (this.#closed) {
        await choice.embedder.dispose();
        return;
      }
      this.#embedder = choice.embedder;
      await this.#reloadVectors();
      if (embed) {
        this.o.log(`${this.name}: embedding new chunks in the background with ${choice.embedder.info.modelId} (${choice.embedder.info.family})`);
        this.#startEmbedding();
      } else if (!this.#vectorIndex) {
        this.#semantic = 'the index has no embeddings for its model';
      }
    } catch (e) {
      this.#semantic = `semantic search unavailable: ${message(e)}`;
    }
  }

  /** The vector index of the model's embeddings, as they are now, in place of the last one. */
  async #reloadVectors(): Promise<void> {
    const embedder = this.#embedder;
    if (!embedder || this.#closed) return;
    const { openVectorIndex } = await import('./vectors.ts');
    const v = await openVectorIndex(this.#index, this.paths, embedder.info.key);
    const old = this.#vectorIndex;
    if (this.#closed) {
      v?.index.dispose();
      return;
    }
    if (!v) {
      this.#semantic = this.o.model !== undefined ? 'no chunk is embedded yet (embedding in the background)' : 'the index has no embeddings for its model';
      return;
    }
    this.#vectorIndex = v.index;
    this.searcher.setVectorLeg(embedder, v.index);
    if (this.#semantic !== null) this.o.log(`${this.name}: semantic search on (${embedder.info.modelId}, ${v.index.size} vectors)`);
    this.#semantic = null;
    // A search may still be reading the old index: dispose of it later.
    if (old) setTimeout(() => old.dispose(), 5000).unref();
  }

  /** Starts the background embedding (--model), or asks the running loop for one more pass. */
  #startEmbedding(): void {
    if (!this.#embedder || this.o.model === undefined || this.#closed) return;
    if (this.#embedding) {
      this.#embedAgain = true;
      return;
    }
    this.#embedding = (async () => {
      do {
        this.#embedAgain = false;
        await this.#embedPass();
      } while (this.#embedAgain && !this.#closed);
    })().catch((e) => this.o.log(`${this.name}: embedding failed: ${message(e)}`)).finally(() => {
      this.#embedding = null;
    });
  }

  /** Stops the background pass at its next batch (a run is wanted) and waits for it. */
  async #stopEmbedding(): Promise<void> {
    this.#embedAbort?.abort();
    await this.#embedding;
  }

  /** One pass of embedPending under the session lock; the vectors are reloaded after it. */
  async #embedPass(): Promise<void> {
    const embedder = this.#embedder;
    // Never during a run (it stops this pass first and starts another after it) or the first index.
    if (!embedder || this.#running || this.#state !== 'ready' || this.#closed) return;
    let lock: SessionLock;
    try {
      lock = await acquireSessionLock(this.paths.db, { timeoutMs: 0, busy: (pid) => new Busy(pid) });
    } catch (e) {
      this.o.log(`${this.name}: embedding waits: ${message(e)}`);
      return;
    }
    const ac = new AbortController();
    this.#embedAbort = ac;
    const s = this.#index;
    const store: EmbedStore = {
      pendingEmbeddings: (m, limit, after) => s.pendingEmbeddings(m, limit, after),
      putEmbeddings: (m, items) => this.#exclusive(() => s.putEmbeddings(m, items)),
      embeddedCount: (m) => s.embeddedCount(m),
      chunkCount: () => s.chunkCount(),
    };
    let fresh = 0;
    try {
      const { embedPending } = await import('../core/embed/embed-pass.ts');
      const r = await embedPending({ store, embedder }, { signal: ac.signal });
      fresh = r.newlyEmbedded;
      if (fresh) this.o.log(`${this.name}: embedded ${fresh} chunks in ${Math.round(r.ms)} ms (${r.embedded}/${r.total} embedded)`);
    } catch (e) {
      if (!ac.signal.aborted) throw e;
      fresh = 1; // (stopped for a run: what it wrote is kept; reload below)
    } finally {
      this.#embedAbort = null;
      lock.release();
    }
    if (fresh || !this.#vectorIndex) await this.#reloadVectors();
  }

  /** Why semantic search is off, or null when it is on. */
  get semanticNote(): string | null {
    return this.#semantic;
  }

  /**
   * Before a call: let file events in, then wait (bounded) for a run that brings in the
   * changes seen — or, without watchers, for a stat walk when the last is older than
   * STAT_EVERY_MS. With watchers, the SAFETY_WALK_MS walk runs in the background: a call
   * never waits for a walk that no change asked for.
   */
  async beforeCall(tool?: ToolName, wants: CallWants = { words: null, path: null, intent: null }): Promise<void> {
    await new Promise((r) => setImmediate(r));
    this.#followRebuild();
    if (this.#state === 'indexing') {
      // grep and read answer at once, from every file; search and symbols from what is stored.
      if (tool === 'grep' || tool === 'read') return void (await this.#currentView());
      return this.#waitFirst(tool, wants);
    }
    const stale = Date.now() - this.#lastWalk;
    const unwatched = !this.#watchOk && stale > STAT_EVERY_MS;
    const changed = this.#changes > this.#indexedChanges;
    if (changed || unwatched || stale > SAFETY_WALK_MS) void this.refresh();
    if ((changed || unwatched) && this.#running) await waitAtMost(this.#running, REFRESH_WAIT_MS);
  }

  /**
   * During the first index: files changed meanwhile are stored first (#storeTouched); a call
   * that names what it wants gets those files stored (#storeWanted) and answers then, or when
   * the index is complete if that comes first. Otherwise see FIRST_ANSWER_BY_MS.
   */
  async #waitFirst(tool: ToolName | undefined, wants: CallWants): Promise<void> {
    const called = Date.now();
    // (#running and #state change while this waits.)
    const run = (): Promise<void> | null => this.#running;
    if (this.#touched.size) void this.#storeTouched();
    if (wants.words !== null || wants.path !== null) {
      const wanted = this.#storeWanted(tool, wants);
      this.#answering = wanted;
      for (let done = false, p = run(); p && !done && this.#state === 'indexing' && Date.now() - called < FIRST_WAIT_MAX_MS; p = run()) {
        await Promise.race([wanted.then(() => (done = true)), waitAtMost(p, 50)]);
      }
    } else {
      // This answer waits for the run's files: nothing to yield to.
      this.#answering = null;
      for (let p = run(); p && this.#state === 'indexing' && Date.now() - called < FIRST_WAIT_MAX_MS; p = run()) {
        if ((this.#share > 0 || this.#storedAhead > 0) && Date.now() - this.#startedAt >= FIRST_ANSWER_BY_MS) break;
        await waitAtMost(p, 50);
      }
    }
    if (this.#touched.size && this.#state === 'indexing') void this.#storeTouched();
    if (this.#storingTouched) await waitAtMost(this.#storingTouched, REFRESH_WAIT_MS);
  }

  /**
   * During the first index: store the files a call wants ahead of the run — the file a symbols
   * outline names, or the files that hold a search's (or symbols name's) words most
   * (DiskView.filesHolding over the files as the tools see them) — unless the run or an earlier
   * call stored them already as they are. symbols gets the tree-sitter chunker's chunks (its
   * definitions), search the plain text chunker's (no wait for tree-sitter's start).
   */
  async #storeWanted(tool: ToolName | undefined, wants: CallWants): Promise<void> {
    try {
      const t0 = performance.now();
      let files: Array<{ file: WalkedFile; text: string; item?: WriteItem }>;
      // The first scan thread's walk, while no file has changed since the server started (then a view's).
      const words = wants.words ?? '';
      const scanFor: ScanFor = { query: words, namesCode: namesCodeOf(processQuery(words)), intent: wants.intent };
      const scanned = wants.path === null && this.#changes === 1 ? await this.#firstScanFor(words, scanFor) : null;
      let tView = performance.now();
      if (scanned) {
        files = scanned.map(({ file, item }) => ({ file, text: item.text ?? '', item }));
      } else {
        // The latest walk that is ready, even if files changed since: changed files are stored by
        // #storeTouched, and a file whose stat is no longer the walk's is left to it (below).
        const view = this.#ready ?? (await this.#currentView());
        tView = performance.now();
        if (wants.path !== null) {
          const f = view.walkedFile(wants.path.replace(/^\.?\/+/, ''));
          const text = f ? await view.getFileText(f.path) : null;
          files = f && text !== null ? [{ file: f, text }] : [];
        } else {
          files = await view.filesHolding(scanTerms(words), WANTED_FILES, WANTED_SCAN_BYTES, scanFor);
        }
      }
      const fresh = (f: WalkedFile) => {
        const had = this.#wantedStored.get(f.path);
        return !this.#storedByRun.has(f.path) && !(had && had.size === f.size && had.mtime === f.mtime) && this.#sameStat(f);
      };
      const tScan = performance.now();
      files = files.filter((x) => fresh(x.file));
      if (!files.length || this.#state !== 'indexing') return;
      const skip = (p: string) => !fresh(files.find((x) => x.file.path === p)!.file);
      // search: the plain text chunker's chunks (the scan thread's items where it made them); symbols: tree-sitter's.
      const n = tool !== 'symbols' && files.every((x) => x.item)
        ? await this.#writeAhead(files.map((x) => x.item!), skip)
        : await this.#storeAhead(files, { chunkFile: tool === 'symbols' ? (await this.#inThread()).chunkFile : null, skip });
      for (const x of files) this.#wantedStored.set(x.file.path, { size: x.file.size, mtime: x.file.mtime });
      if (process.env.SIFT_MCP_LOG) {
        const ms = (a: number, b: number) => Math.round(b - a);
        const how = scanned ? `first scan thread ${ms(t0, tScan)} ms` : `walk ${ms(t0, tView)} ms, scan ${ms(tView, tScan)} ms`;
        this.o.log(`${this.name}: stored ${n} files ahead of the first index for ${tool} ${JSON.stringify(wants.words ?? wants.path)} (${how}, chunk + write ${ms(tScan, performance.now())} ms)`);
      }
    } catch (e) {
      this.o.log(`${this.name}: could not store the files a call wants ahead: ${message(e)}`);
    }
  }

  /** The first scan thread's files for `words` (FirstScan.filesHolding), or null without one (or when it fails: then it is stopped). */
  async #firstScanFor(words: string, scanFor: ScanFor): Promise<FirstScanItems | null> {
    const scan = this.#firstScan;
    if (!scan) return null;
    try {
      return await scan.filesHolding(scanTerms(words), WANTED_FILES, scanFor);
    } catch (e) {
      this.o.log(`${this.name}: ${message(e)}; the first answers walk and scan the folder here`);
      this.#stopFirstScan();
      return null;
    }
  }

  #stopFirstScan(): void {
    this.#firstScan?.dispose();
    this.#firstScan = null;
  }

  /** Whether the file on disk still has the size and mtime a walk saw. */
  #sameStat(f: WalkedFile): boolean {
    try {
      const st = statSync(join(this.root, f.path));
      return st.size === f.size && Math.trunc(st.mtimeMs) === f.mtime;
    } catch {
      return false;
    }
  }

  /**
   * Writes `files` to the index now, in one transaction among the run's (#exclusive), each as
   * storedAheadItem (mcp-disk.ts) says (so the run, or the run after it, chunks and records it again), with the
   * plain text chunker's chunks or `chunkFile`'s. `skip`: checked in that transaction, a file
   * left out (the run has written it meanwhile). Returns how many were written.
   */
  async #storeAhead(files: ReadonlyArray<{ file: WalkedFile; text: string }>, o: { chunkFile?: FileChunker['chunkFile'] | null; skip?: (path: string) => boolean } = {}): Promise<number> {
    const items: WriteItem[] = [];
    for (const { file: f, text } of files) {
      const chunked = o.chunkFile ? await o.chunkFile(f.path, text) : undefined;
      items.push(storedAheadItem(f, text, chunked));
    }
    return this.#writeAhead(items, o.skip);
  }

  /** Writes items made by storedAheadItem now, in one transaction among the run's (#exclusive); `skip` as #storeAhead's. */
  #writeAhead(items: readonly WriteItem[], skip?: (path: string) => boolean): Promise<number> {
    const queued = performance.now();
    return this.#exclusive(async () => {
      const kept = items.filter((x) => !skip?.(x.file.path));
      const t = performance.now();
      if (kept.length) await this.#index.writeFiles(kept);
      if (process.env.SIFT_MCP_LOG) this.o.log(`${this.name}: ${kept.length} files stored ahead: waited ${Math.round(t - queued)} ms for the run's writes, wrote in ${Math.round(performance.now() - t)} ms`);
      this.#storedAhead += kept.length;
      return kept.length;
    });
  }

  /**
   * The DiskView of the files as they are now: walked again when a file event came since the
   * last one was walked (or, without watchers, at every call).
   */
  #currentView(): Promise<DiskView> {
    const changes = this.#changes;
    if (!this.#view || this.#view.changes !== changes || !this.#watchOk) {
      // (Synchronous fs: the walk and the reads do not wait behind the run's work on this thread.)
      this.#diskTexts ??= new DiskTexts(DEFAULT_TEXT_CACHE_CHARS);
      const view = DiskView.open(this.#index, this.#source({ sync: true }), this.#diskTexts, this.#walkOptions());
      const entry = { view, changes };
      view.then((v) => {
        if (changes < this.#readyChanges) return;
        this.#ready = v;
        this.#readyChanges = changes;
      }, () => undefined);
      this.#view = entry;
    }
    return this.#view.view;
  }

  /** The folder as a FileSource whose walks watch every directory before listing it. */
  #source(o: { sync?: boolean } = {}): NodeFileSource {
    return this.o.watch === false ? new NodeFileSource(this.root, o) : new WatchedSource(this.root, (dir) => this.#watch(dir), o);
  }

  /** One write to the index at a time (a run's batches and #storeTouched's files). */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const turn = this.#writes.then(fn, fn);
    this.#writes = turn.catch(() => undefined);
    return turn;
  }

  /** The index as the indexer writes it: its writes wait for #storeTouched's (#exclusive). */
  #indexStore(): IndexStore {
    const s = this.#index;
    const x = <T>(fn: () => Promise<T>): Promise<T> => this.#exclusive(fn);
    return {
      getMeta: (k) => s.getMeta(k),
      setMeta: (k, v) => s.setMeta(k, v),
      getFiles: () => s.getFiles(),
      chunkCount: () => s.chunkCount(),
      writeFiles: (items) => x(async () => {
        const t = performance.now();
        // During the first index, a file changed or deleted since the run read it is left out:
        // #storeTouched stores it as it is now (or takes it out), and the run after this one reads it again.
        if (this.#state === 'indexing') items = items.filter((it) => this.#sameStat(it.file));
        await s.writeFiles(items);
        if (process.env.SIFT_MCP_LOG) this.o.log(`${this.name}: the run wrote ${items.length} files in ${Math.round(performance.now() - t)} ms`);
        if (this.#state === 'indexing') for (const it of items) this.#storedByRun.add(it.file.path);
      }),
      deleteFiles: (paths) => x(() => s.deleteFiles(paths)),
      renameFile: (from, to) => x(() => s.renameFile(from, to)),
      optimizeFts: () => x(() => s.optimizeFts()),
      setBulkLoad: (on) => x(() => s.setBulkLoad(on)),
      flushTrigrams: (o?: { unlessFew?: boolean }) => x(() => s.flushTrigrams(o)),
    };
  }

  /**
   * During the first index: store the files changed since it started (file events) now, not
   * when the walk's order reaches them, or after the run when the walk had passed them — so
   * `search` finds an edit made during the first index within moments. Only walked files
   * (the walker's rules) under a path a file event named.
   * Each is stored as storedAheadItem (mcp-disk.ts) says, so the run after this one chunks it again with the
   * tree-sitter chunker and records the Merkle root with it.
   */
  #storeTouched(): Promise<void> {
    if (this.#storingTouched) return this.#storingTouched;
    this.#storingTouched = (async () => {
      while (this.#touched.size && this.#state === 'indexing' && !this.#closed) {
        const touched = [...this.#touched];
        this.#touched.clear();
        // (The walk alone, not the index's records: a touched file stored again is harmless.)
        const source = this.#source({ sync: true });
        const under = (p: string) => touched.some((t) => p === t || p.startsWith(`${t}/`));
        const files: Array<{ file: WalkedFile; text: string }> = [];
        const walked = await walkFiles(source, this.#walkOptions());
        for (const f of walked.values()) {
          if (!under(f.path)) continue;
          let data: Uint8Array;
          try {
            data = await source.readFile(f.path);
          } catch {
            continue;
          }
          if (!isProbablyBinary(data)) files.push({ file: f, text: decodeText(data) });
        }
        const n = await this.#storeAhead(files);
        if (process.env.SIFT_MCP_LOG && n) this.o.log(`${this.name}: stored ${files.map((f) => f.file.path).join(', ')} ahead of the first index (changed)`);
        // A touched path the walk no longer lists (deleted, renamed away, a folder removed): its
        // stored files leave the index now too, so search stops finding them before the run ends.
        const missing = touched.filter((t) => !walked.has(t));
        if (missing.length) {
          const gone = [...(await this.#index.getFiles()).keys()].filter((p) => !walked.has(p) && missing.some((t) => p === t || p.startsWith(`${t}/`)));
          if (gone.length) {
            await this.#exclusive(() => this.#index.deleteFiles(gone));
            if (process.env.SIFT_MCP_LOG) this.o.log(`${this.name}: took ${gone.join(', ')} out of the index ahead of the first index (gone)`);
          }
        }
      }
    })().catch((e) => this.o.log(`${this.name}: could not store a changed file ahead: ${message(e)}`)).finally(() => {
      this.#storingTouched = null;
    });
    return this.#storingTouched;
  }

  /** One incremental run, or joins the one running (which then runs again). */
  refresh(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    // Nothing since the last run began (a debounced event a call's run already took in), the
    // watchers working and the safety walk not due: no run (it would walk for nothing).
    if (this.#state !== 'indexing' && this.#watchOk && this.#changes === this.#indexedChanges && Date.now() - this.#lastWalk <= SAFETY_WALK_MS) return Promise.resolve();
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#run();
        // Again only for changes the run began after (a call asked while it ran, for the change
        // it was indexing, is answered by it), or without watchers (a stat walk each time).
      } while (this.#again && !this.#closed && (this.#changes > this.#indexedChanges || !this.#watchOk));
    })().finally(() => {
      this.#running = null;
      // New chunks (and the first index's) get their vectors now, in the background.
      this.#startEmbedding();
    });
    return this.#running;
  }

  /**
   * Files changed on disk and not yet indexed: none when the watchers saw no change since the last
   * run's walk (the rule beforeCall trusts them by, within SAFETY_WALK_MS), else a stat walk
   * (nothing is read or written; ~1-3 s on the kernel subset's 11.7k files with fs/promises).
   */
  async statusExtra(): Promise<{ pendingChanges: number | null; skipped: Record<string, number>; notes?: string[] }> {
    const notes: string[] = [];
    if (this.#lag) notes.push(this.#lag);
    if (this.#state === 'indexing') return { pendingChanges: null, skipped: {}, notes };
    if (this.#watchOk && !this.#running && this.#changes === this.#indexedChanges && Date.now() - this.#lastWalk <= SAFETY_WALK_MS) return { pendingChanges: 0, skipped: {}, notes };
    try {
      const plan = await planIndex({ source: new NodeFileSource(this.root, { sync: true }), store: this.#index }, { walk: this.#walkOptions() });
      return { pendingChanges: plan.candidates.length + plan.gone.length, skipped: {}, notes };
    } catch (e) {
      notes.push(`could not compare the folder with the index: ${message(e)}`);
      return { pendingChanges: null, skipped: {}, notes };
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopFirstScan();
    if (this.#timer) clearTimeout(this.#timer);
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
    await this.#running?.catch(() => undefined);
    if (this.#chunker) (await this.#chunker).dispose();
    await this.#stopEmbedding().catch(() => undefined);
    this.#vectorIndex?.dispose();
    await this.#embedder?.dispose().catch(() => undefined);
    await this.#storingTouched?.catch(() => undefined);
    await this.#index.close().catch(() => undefined);
  }

  /**
   * The last walk's files with `paths` stated again (a file gone is left out), in the walk's
   * order; null when one of them is no longer a file the walk would list as it is (a folder now,
   * over the size limit, unreadable): then the run walks.
   */
  async #restated(paths: readonly string[]): Promise<WalkedFile[] | null> {
    const last = this.#walkedFiles;
    if (!last) return null;
    const files = new Map(last);
    const source = new NodeFileSource(this.root, { sync: true });
    const max = this.o.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
    for (const path of paths) {
      try {
        if (!statSync(join(this.root, path)).isFile()) return null;
        const info = await source.stat(path);
        if (info.size > max) return null;
        files.set(path, { path, size: info.size, mtime: info.mtime });
      } catch (e) {
        if ((e as NodeJS.ErrnoException)?.code !== 'ENOENT') return null;
        files.delete(path);
      }
    }
    return [...files.values()];
  }

  #walkOptions(): { maxFileSize?: number; extraIgnore?: string[]; include?: string[] } {
    return { maxFileSize: this.o.maxFileSize, extraIgnore: this.o.ignore, include: this.o.include };
  }

  /** `sift rebuild` swaps in a new database file: follow it. */
  #followRebuild(): void {
    let ino: number;
    try {
      ino = statSync(this.paths.db).ino;
    } catch {
      return;
    }
    if (ino === this.#ino || this.#running) return;
    this.#ino = ino;
    const old = this.#index;
    void openIndex(this.paths).then((ctx) => {
      this.#index = ctx.store;
      this.searcher = new Searcher(ctx.store);
      // (The vector leg is of the old index; a rebuilt one is searched by keywords until a restart.)
      this.#semantic = 'the index was rebuilt; restart the server for semantic search';
      // Calls in flight on the old connection finish first (its queue), then it closes.
      setTimeout(() => void old.close().catch(() => undefined), 5000).unref();
    }, (e) => this.o.log(`${this.name}: could not reopen the rebuilt index: ${message(e)}`));
  }

  /** The in-thread chunker, loaded once and kept (tree-sitter's start is ~0.3 s). */
  #inThread(): Promise<{ chunkFile: FileChunker['chunkFile']; dispose: () => void }> {
    this.#chunker ??= (async () => {
      const { Chunker } = await import('../core/chunk/chunker.ts');
      const { nodeWasmLoader } = await import('../core/chunk/grammars-node.ts');
      const c = await Chunker.create({ loadWasm: nodeWasmLoader });
      return { chunkFile: (p: string, t: string) => c.chunkFile(p, t), dispose: () => c.dispose() };
    })();
    return this.#chunker;
  }

  /**
   * The client is connected: during a first index, walk the folder for the view the first calls
   * read (grep and read serve it, a search scans it) now, while the client sends its first call,
   * instead of when that call comes. (start walks it anyway once the first answer is made, for
   * indexed_share.) The walk lets the event loop in as it goes (walkFiles), so no message waits for it.
   */
  prepare(): void {
    if (this.#state === 'indexing' && !this.#ready && !this.#closed) void this.#currentView().catch(() => undefined);
  }

  /** Resolves once no first answer is being made (#answering; the latest one set, in turn). */
  async #yieldToAnswer(): Promise<void> {
    for (let a = this.#answering; a; a = this.#answering) {
      await a.catch(() => undefined);
      if (this.#answering === a) this.#answering = null;
    }
  }

  async #run(): Promise<void> {
    if (this.#closed) return;
    // The background embedding holds the lock: stop it at its next batch (it resumes after the run).
    await this.#stopEmbedding();
    const changesSeen = this.#changes;
    const started = Date.now();
    let lock: SessionLock;
    try {
      lock = await acquireSessionLock(this.paths.db, { timeoutMs: 0, busy: (pid) => new Busy(pid) });
    } catch (e) {
      this.#lag = e instanceof Busy ? `${e.message}; answers come from the index as it is until it finishes` : `could not lock the index: ${message(e)}`;
      return;
    }
    const first = this.#state === 'indexing';
    const t0 = performance.now();
    const pool = createChunkPool(DEFAULT_POOL_SIZE, async () => {
      const c = await this.#inThread();
      return { chunkFile: c.chunkFile };
    }, (why) => this.o.log(`${this.name}: a chunk worker stopped (${why.split('\n')[0]}); its files are chunked on the main thread`));
    if (first) void this.#yieldToAnswer().then(() => pool.chunkFile('.sift-warm-up.txt', 'warm up')).catch(() => undefined);
    let seen = 0;
    const inThread = first ? IN_THREAD_FIRST_FILES_OF_FIRST_INDEX : IN_THREAD_FIRST_FILES;
    const chunker: FileChunker = {
      chunkFile: async (path, text) => {
        if (this.#answering) await this.#yieldToAnswer();
        return ++seen > inThread ? pool.chunkFile(path, text) : (await this.#inThread()).chunkFile(path, text);
      },
    };
    let walked = 0;
    let stored = 0;
    // Only files the last walk listed changed since (#edited): state them again, walk nothing.
    const edited = !first && this.#edited?.size ? [...this.#edited] : null;
    this.#edited = new Set();
    const restated = edited && edited.length <= MAX_RESTATED ? await this.#restated(edited) : null;
    try {
      if (first) this.o.log(`${this.name}: indexing ${this.root} (keyword and exact search; answers start as files are stored)`);
      const summary = await indexCodebase(
        { source: this.#source(), store: this.#indexStore(), chunker },
        {
          ...(restated ? { walked: async () => restated } : {}),
          onWalkList: (files) => {
            this.#walkedFiles = new Map(files.map((f) => [f.path, f]));
          },
          concurrency: Math.max(1, DEFAULT_POOL_SIZE) * FILES_AHEAD_PER_WORKER,
          optimizeAfterRows: OPTIMIZE_AFTER_ROWS,
          hashFile: nativeSha256,
          sha256Digest: nativeSha256Digest,
          walk: this.#walkOptions(),
          // The share answers may rely on: files committed (onBatch) over files walked so far.
          onProgress: (s) => {
            walked = Math.max(walked, s.totalFiles);
            if (first) {
              this.#runWalked = walked;
              this.#runWalkDone = s.walkDone;
            }
          },
          onBatch: (b) => {
            if (first && stored === 0 && process.env.SIFT_MCP_LOG) this.o.log(`${this.name}: first ${b.files} files stored ${Date.now() - this.#startedAt} ms after the server opened the index`);
            stored += b.files;
            if (first) {
              this.#runStored = stored;
              this.#share = Math.min(0.999, stored / Math.max(walked, stored, 1));
            }
          },
        },
      );
      // (A run that walked nothing leaves the safety walk due as it was.)
      if (!restated) this.#lastWalk = started;
      this.#indexedChanges = changesSeen;
      this.#lag = null;
      this.#error = null;
      if (first || !summary.unchanged) {
        const f = summary.files;
        this.o.log(`${this.name}: ${first ? 'indexed' : 'updated'} in ${Math.round(performance.now() - t0)} ms${restated ? ` (${edited!.length} edited files stated again, no walk)` : ''} — ${f.total} files (${f.added} added, ${f.changed} changed, ${f.renamed} renamed, ${f.deleted} deleted), ${summary.chunks.total} chunks`);
        await this.#syncWatchers();
      }
      this.#state = 'ready';
      this.#share = 1;
      this.#view = null;
      this.#ready = null;
      this.#readyChanges = -1;
      this.#diskTexts = null;
      this.#stopFirstScan();
      this.#storedByRun.clear();
      this.#wantedStored.clear();
    } catch (e) {
      this.#error = message(e);
      this.o.log(`${this.name}: indexing failed: ${this.#error}`);
      if (first) {
        this.#state = 'error';
        this.#stopFirstScan();
      }
      else this.#lag = `the last update of the index failed (${this.#error}); answers come from the index as it was`;
    } finally {
      lock.release();
      await pool.dispose().catch(() => undefined);
    }
  }

  // ---- watching ------------------------------------------------------------------------

  /** Watch every directory that holds an indexed file (and the root); stop watching the others. */
  async #syncWatchers(): Promise<void> {
    if (this.o.watch === false || this.#closed) return;
    const dirs = new Set<string>(['']);
    for (const path of (await this.#index.getFiles()).keys()) {
      for (let d = dirname(path); d !== '.' && d !== '' && !dirs.has(d); d = dirname(d)) dirs.add(d);
    }
    // Folders that are gone stop being watched; folders watched since they appeared stay.
    for (const [d, w] of this.#watchers) {
      if (!dirs.has(d) && !existsSync(join(this.root, d))) {
        w.close();
        this.#watchers.delete(d);
      }
    }
    for (const d of dirs) this.#watch(d);
  }

  #watch(rel: string): void {
    if (this.#watchers.has(rel) || this.#closed || this.o.watch === false) return;
    if (this.#watchers.size >= MAX_WATCHED_DIRS) {
      if (this.#watchOk) this.o.log(`${this.name}: more than ${MAX_WATCHED_DIRS} folders; changes are found by a stat walk before calls`);
      this.#watchOk = false;
      return;
    }
    const abs = rel ? join(this.root, rel) : this.root;
    let w: FSWatcher;
    try {
      w = watch(abs, { persistent: false }, (_event, name) => this.#onEvent(rel, name ? String(name) : null));
    } catch (e) {
      this.#watchFailed(rel, e);
      return;
    }
    w.on('error', (e) => {
      w.close();
      this.#watchers.delete(rel);
      // A deleted folder ends its watcher: that is a change, not a failure.
      if (existsSync(abs)) this.#watchFailed(rel, e);
      this.#edited = null;
      this.#changed();
    });
    this.#watchers.set(rel, w);
  }

  #watchFailed(rel: string, e: unknown): void {
    if (this.#watchOk) this.o.log(`${this.name}: cannot watch ${rel || '.'} (${message(e)}); changes are found by a stat walk before calls`);
    this.#watchOk = false;
  }

  #onEvent(dirRel: string, name: string | null): void {
    // The index's own files, when --db puts them inside the tree, are no change of the code.
    if (name && dirname(join(this.root, dirRel, name)) === dirname(this.paths.db) && name.startsWith(basename(this.paths.db))) return;
    // An edit or a removal of a file the last walk listed needs no walk: the next run states those
    // files again (#edited). Anything else (a new file, a folder, an ignore file's change) does.
    const edited = name ? (dirRel ? `${dirRel}/${name}` : name) : null;
    if (edited !== null && this.#edited && this.#walkedFiles?.has(edited) && !IGNORE_FILE_NAMES.has(name!)) this.#edited.add(edited);
    else this.#edited = null;
    if (name && !UNWATCHED_DIRS.has(name) && !(dirRel === '' && UNWATCHED_ROOT_DIRS.has(name))) {
      // A new folder: watch it at once, so files written into it are seen too.
      const rel = dirRel ? `${dirRel}/${name}` : name;
      if (this.#state === 'indexing') this.#touched.add(rel);
      try {
        if (!this.#watchers.has(rel) && statSync(join(this.root, rel)).isDirectory()) this.#watch(rel);
      } catch {
        // gone again, or unreadable: the run finds out
      }
    }
    this.#changed();
  }

  #changed(): void {
    this.#changes++;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#touched.size && this.#state === 'indexing') void this.#storeTouched();
      void this.refresh();
    }, WATCH_DEBOUNCE_MS);
  }
}

/** Unique display names for the served folders: their base names, numbered when repeated. */
export function codebaseNames(dirs: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return dirs.map((d) => {
    const base = basename(d) || d;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  });
}

