/**
 * The indexing pipeline: folder → files → chunks → rows, in two steps.
 *
 * 1. `planIndex` (walk + diff): walks the folder, reads the stored file records and decides
 *    what must be read — new and stat-changed files — and what is gone. The diff itself,
 *    `diffWalk`, is a pure function. No file is read in this step.
 * 2. `applyPlan` (the pipelined writer): reads, hashes and chunks the candidates ahead of
 *    order, detects renames by hash, streams whole files to the store in batches, then
 *    deletes what is gone and records the Merkle root.
 *
 * Knows nothing about where files or rows live (a FileSource and any object with the
 * store's async methods — a Comlink remote works the same).
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
import { SKIP_REASON_TEXT, SkipTally, type SkippedStats } from '../walk/skipped.ts';
import { merkleRoot, sha256Hex, type Sha256Digest } from '../hash/hash.ts';
import { detectLanguage, languageNeedsText } from '../chunk/languages.ts';
import { contentHashOf } from '../chunk/embedding-text.ts';
import { identifierTokens } from '../text/identifiers.ts';
import { CHUNK_OVERLAP_CHARS, KIND_FACTORS, MAX_CHUNK_CHARS, MIN_CHUNK_CHARS, WRITE_BATCH_ROWS } from '../config.ts';
import { chunkText as chunkPlainText } from '../chunk/text.ts';
import { META, type MetaKey } from '../store/meta.ts';
import { packText, type TextCodec } from '../store/text-codec.ts';
import { chunkListLength, decodeChunks, encodeChunks, isChunkWire, type ChunkList, type ChunkWire } from '../store/chunk-wire.ts';
import { fileTrigramKeys } from '../text/trigram-keys.ts';
import { rankScanned, scanTerms, termHits, termPatterns, termsIn, type ScannedFile } from '../text/scan-terms.ts';
import { codeNamedByPaths, fileKind, queryIntent } from '../text/file-kind.ts';
import { measureSince } from '../user-timing.ts';

/** The chunker's own text fallback, for a file the chunker itself faulted on. */
const TEXT_FALLBACK = { maxChunkChars: MAX_CHUNK_CHARS, minChunkChars: MIN_CHUNK_CHARS, overlapChars: CHUNK_OVERLAP_CHARS };

/** `text` as the chunker's text fallback windows, with what a store write needs of the file (no parser). */
async function textWindows(path: string, text: string, language: string): Promise<{ chunks: StoredChunkInput[]; text: string; packed: Uint8Array; grams: Uint32Array }> {
  return { chunks: prepareChunks(chunkPlainText(path, text, language, TEXT_FALLBACK)), text, packed: await packText(text), grams: fileTrigramKeys(text) };
}
/**
 * Flush the first batch early so the codebase is searchable within moments: at FIRST_BATCH_FILES
 * files, or with what is chunked once FIRST_FLUSH_MS have passed since the run started (a slow
 * start — grammars loading, a loaded machine — would otherwise keep a typed query or an agent's
 * first call waiting for 25 files, or for the bulk load's flush interval).
 */
const FIRST_BATCH_FILES = 25;
const FIRST_FLUSH_MS = 250;
/** Flush at least this often (ms) so a slow folder still shows results. */
const FLUSH_INTERVAL_MS = 1000;
/**
 * While a write is still running, a due batch keeps growing (up to this many × WRITE_BATCH_ROWS)
 * instead of waiting: when the store is the bottleneck, transactions get bigger and fewer
 * (each commit costs fsyncs and journal work), and chunking never stalls behind a write.
 */
const MAX_BATCH_FACTOR = 8;
const PROGRESS_INTERVAL_MS = 100;
/**
 * A run with at least this many files to read loads the keyword index in bulk mode
 * (Store.setBulkLoad) and ends with one merge of it; smaller runs keep FTS5's own merging.
 */
export const BULK_LOAD_FILES = 1000;
/**
 * Batch rows and the flush interval × this in a bulk load: fewer, bigger transactions. Each
 * commit syncs the journal and the database (fsync was 4.5 s of the CLI main thread's wall
 * time on the kernel subset at 1,000-row batches); the first batch is still flushed early
 * (FIRST_BATCH_FILES), later ones become searchable every few seconds instead of every one.
 */
export const BULK_BATCH_FACTOR = 4;
/**
 * For this long from a run's start a bulk load writes at the usual cadence (WRITE_BATCH_ROWS,
 * FLUSH_INTERVAL_MS): a person who types a query, or an agent's first call, waits on the files
 * chunked in the first seconds. Later batches are BULK_BATCH_FACTOR times bigger. (At 4 s per
 * batch from the start, a 1,022-file folder had one file searchable until 5.1 s.) Not when a
 * waiting query's files went first (IndexOptions.firstFor): its answers are in already, and the
 * extra commits cost the run ~0.4 s of 5.5 (that folder in Chromium).
 */
export const BULK_EARLY_MS = 5000;
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
  /** Several meta values in ONE transaction (one commit instead of one each; absent: setMeta each). */
  setMetas?(entries: ReadonlyArray<readonly [MetaKey, string]>): Promise<void>;
  getFiles(): Promise<Map<string, FileRecord>>;
  /**
   * `text`: the file's decoded text, stored once for exact/regex search (issue 11); `packed`:
   * the same text packed for storage (store/text-codec.ts), made here, off the store's thread.
   */
  writeFiles(items: Array<{ file: FileRecord; chunks: ChunkList<StoredChunkInput>; text?: string; packed?: Uint8Array; grams?: Uint32Array }>): Promise<void>;
  deleteFiles(paths: string[]): Promise<void>;
  renameFile(from: string, to: FileRecord): Promise<void>;
  chunkCount(): Promise<number>;
  /** Merge the keyword index's segments (see IndexOptions.optimizeAfterRows). */
  optimizeFts?(): Promise<void>;
  /** Keyword index bulk-load mode (Store.setBulkLoad): on for a big run, off at its end. */
  setBulkLoad?(on: boolean): Promise<void>;
  /** Write the trigram keys of the files written so far to the trigram index (end of a run; Store.flushTrigrams). */
  flushTrigrams?(o?: { unlessFew?: boolean }): Promise<number>;
}

/** The work a run will hand its chunker, as far as the walk knows it (FileChunker.expect). */
export interface ChunkWork {
  /** Files to read (some may turn out unchanged, renamed or binary and are never chunked). */
  files: number;
  /** Their bytes (stat sizes). */
  bytes: number;
  /** False while the walk is still running: more may follow. */
  complete: boolean;
}

/** What the indexer needs from a chunker (the tree-sitter Chunker satisfies it). */
export interface FileChunker {
  /**
   * Chunks may come back already prepared (`prepareChunks`, e.g. by a worker pool), and then
   * also in the flat form a worker posts (store/chunk-wire.ts), passed to the store as they are.
   */
  chunkFile(path: string, text: string): Promise<{ language: string; chunks: Array<Chunk | StoredChunkInput> | ChunkWire; parsed: boolean; warnings: string[]; packed?: Uint8Array; grams?: Uint32Array }>;
  /**
   * Told once, before the first chunkFile, what the run will chunk at most, so a chunker can
   * decide whether starting worker threads pays (a small run is chunked in-thread).
   */
  expect?(work: ChunkWork): void;
}

export interface IndexOptions {
  walk?: Omit<WalkOptions, 'signal' | 'onSkip'>;
  /**
   * The folder's files as a walk with `walk` would list them, given instead of walking it
   * (`sift mcp` after edits of files its last walk listed, each stated again). The run's skip
   * stats are then the last walk's, kept as stored.
   */
  walked?: () => Promise<WalkedFile[]>;
  /** Every file the run's walk (or `walked`) listed, once it is known. */
  onWalkList?: (files: readonly WalkedFile[]) => void;
  signal?: AbortSignal;
  onProgress?: (status: CodebaseStatus) => void;
  /**
   * Called for every warning: a file skipped for a reason worth a look (too large, a secret, a
   * link), unreadable, or indexed as text after a parse failure. Files skipped by the ignore
   * rules, include patterns or as binary are only counted (IndexSummary.skipped).
   */
  onWarning?: (warning: IndexWarning) => void;
  /** Re-read and re-hash every file, ignoring the size/mtime cache. */
  verify?: boolean;
  /** Called after each batch is committed (the app refreshes live search with it). */
  onBatch?: (info: { files: number; chunks: number }) => void;
  /** Files prepared ahead (read, hash, chunk); default DEFAULT_CONCURRENCY, 1 = sequential. */
  concurrency?: number;
  /**
   * After a run that wrote at least this many chunk rows, merge the keyword index into one
   * segment (`store.optimizeFts`), inside the run so its time is counted. Unset: never (the
   * CLI optimizes on its own after the run).
   */
  optimizeAfterRows?: number;
  /**
   * What the person (or agent) is searching for while this run goes: in a small run (the walk
   * complete, at most FIRST_FOR_MAX_FILES files and FIRST_FOR_MAX_BYTES), the files holding
   * most of its words are chunked and committed first, so the first batch already answers it.
   */
  firstFor?: string;
  /**
   * `firstFor` names code (search/query.ts namesCodeOf: one identifier, a declaration, a doc
   * comment): its files are weighed for code whatever its words (text/file-kind.ts queryIntent).
   * The caller works it out: the index layer does not read queries.
   */
  firstForNamesCode?: boolean;
  /**
   * files.hash of a file's bytes: lower-case hex SHA-256, as `sha256Hex` (WebCrypto, the
   * default) makes it. The CLI passes Node's one-shot native hash: WebCrypto's digest is a
   * thread-pool job and a promise per file, ~3× the CPU (kernel fs/, 2,078 files: 100–190 ms
   * against 31–36 ms) and ~8% of the CLI main thread's samples in a kernel fs/ index.
   */
  hashFile?: (data: Uint8Array) => string;
  /** The Merkle root's SHA-256 (hash.ts Sha256Digest; same root whichever): the CLI passes Node's native one. */
  sha256Digest?: Sha256Digest;
}

/**
 * files.hash of a file written as text windows ahead of its parse (the first answer to a
 * waiting query, replaced in the same run): never a real hash, so a run cut short before the
 * replacement leaves a file that the next run sees as changed and chunks again.
 */
export const PROVISIONAL_HASH = 'provisional';

/** Runs up to this size read every file before chunking, to put `firstFor`'s files first. */
const FIRST_FOR_MAX_FILES = 2000;
const FIRST_FOR_MAX_BYTES = 16 << 20;
/**
 * How long a run that has walked BULK_LOAD_FILES files, and whose reading has found no file
 * holding every word of the waiting query yet, waits for the walk's end so that the query's files
 * can go first (IndexOptions.firstFor): a folder of 1,000-2,000 files ends its walk within moments
 * (a Chromium folder walk: ~1.5-3k files/s). A reading that has found such a file answers at once.
 */
const FIRST_FOR_WAIT_MS = 500;
/** Files a waiting query's reading has in flight at once. */
const FIRST_FOR_READS = 16;

/** What a waiting query's reading found (QueryReading.answer). */
interface QueryFirst {
  /**
   * The files walked when it answered, the query's best first: a permutation of the run's
   * candidates[0, order.length) (the walk may go on past them).
   */
  order: WalkedFile[];
  /** Every file read, by path (the run takes each from here instead of reading it again). */
  data: Map<string, Uint8Array>;
  /** The first `firstUntil` of `order` are the query's best: the run's first parsed batch. */
  firstUntil: number;
  /** Whether the best file holds every word of the query. */
  allWords: boolean;
  readMs: number;
}

/**
 * The first answer comes before the parser: a query's best files, new to the store, as text
 * windows (the chunker's own fallback; no WASM, no grammar to load), written at once and searched
 * by the store as any rows are (files.hash = PROVISIONAL_HASH). Their parsed chunks replace them
 * in the run's first batch.
 */
type EarlyFile = { file: FileRecord; chunks: StoredChunkInput[]; text: string; packed: Uint8Array; grams: Uint32Array };

/**
 * A query typed while the run starts (IndexOptions.firstFor): the run's files are read as the
 * walk finds them (FIRST_FOR_READS at a time, at most FIRST_FOR_MAX_FILES files and
 * FIRST_FOR_MAX_BYTES), each checked for the query's scan terms. It asks the store nothing, so
 * it runs beside the run's first store calls (on a first visit, beside the new database's open)
 * and its walk. `whole` is true once every file of a walk that ended within those limits has
 * been read (false: the walk went past them, it failed, or the reading was stopped); `answer()`
 * orders the files walked by then by what has been read of them.
 */
class QueryReading {
  /** Every file read, by path (handed to the run, so nothing is read twice). */
  readonly data = new Map<string, Uint8Array>();
  readonly whole: Promise<boolean>;
  readonly #hits: Array<ScannedFile & { language: string }> = [];
  /** How many of the words each file read holds. */
  readonly #held = new Map<string, number>();
  readonly #patterns: RegExp[];
  readonly #t0 = now();
  #next = 0;
  #bytes = 0;
  #stopped = false;

  constructor(
    private readonly plan: IndexPlan,
    private readonly source: FileSource,
    private readonly query: string,
    private readonly namesCode: boolean,
    private readonly words: readonly string[],
  ) {
    this.#patterns = termPatterns(words);
    this.whole = this.#read().catch(() => false); // a failed walk is the run's to report
  }

  /** No more files are read (those in flight are kept). */
  stop(): void {
    this.#stopped = true;
  }

  async #read(): Promise<boolean> {
    const { plan } = this;
    let over = false;
    const decoder = new TextDecoder();
    const reader = async (): Promise<void> => {
      for (;;) {
        while (!this.#stopped && this.#next >= plan.candidates.length && plan.feed && !plan.feed.done) await plan.feed.more();
        if (this.#stopped || over || this.#next >= plan.candidates.length) return;
        const f = plan.candidates[this.#next]!;
        if (this.#next >= FIRST_FOR_MAX_FILES || this.#bytes + f.size > FIRST_FOR_MAX_BYTES) {
          over = true;
          return;
        }
        this.#next++;
        this.#bytes += f.size;
        const bytes = await this.source.readFile(f.path).catch(() => null);
        if (!bytes) continue;
        this.data.set(f.path, bytes);
        const text = decoder.decode(bytes);
        const path = termsIn(f.path, this.#patterns);
        const { distinct, count, which } = termHits(text, this.#patterns, 1, path.held);
        this.#held.set(f.path, distinct);
        if (distinct) this.#hits.push({ path: f.path, which, distinct, count, inPath: path.distinct, factor: 1, language: detectLanguage(f.path, languageNeedsText(f.path) ? text : undefined) });
      }
    };
    await Promise.all(Array.from({ length: FIRST_FOR_READS }, reader));
    const whole = !over && !this.#stopped && (!plan.feed || plan.feed.done);
    if (whole) measureSince('read-for-query', this.#t0);
    return whole;
  }

  /**
   * The files walked by now, ordered for the query by what has been read of them: first the
   * files holding half of the words or more, best first by text/scan-terms.ts rankScanned's rule
   * (the rule `sift mcp` picks a first answer's files by: the rarer words count more, each file
   * weighed by its kind for the query's intent), then the rest holding more of the words first,
   * ties in walk order; the best are those tied at the best weight, at most FIRST_BATCH_FILES.
   * Null when that many files are all there is (the first batch holds them).
   */
  async answer(): Promise<QueryFirst | null> {
    const files = this.plan.candidates.slice();
    if (files.length <= FIRST_BATCH_FILES) return null;
    const kindOf = (p: string) => fileKind(p, detectLanguage(p));
    const intent = await queryIntent(this.query, this.namesCode, (w) => codeNamedByPaths(files.map((f) => f.path), w, kindOf));
    const hits = this.#hits.slice();
    for (const h of hits) h.factor = KIND_FACTORS[intent][fileKind(h.path, h.language)];
    const ranked = rankScanned(hits, this.words.length, this.data.size);
    const first = new Set(ranked.map((r) => r.file.path));
    const byPath = new Map(files.map((f) => [f.path, f]));
    const rest = files.map((f, i) => ({ f, i, s: this.#held.get(f.path) ?? 0 })).filter((x) => !first.has(x.f.path)).sort((a, b) => b.s - a.s || a.i - b.i);
    const top = ranked[0]?.weight;
    const best = top === undefined ? 0 : ranked.filter((r) => r.weight === top).length;
    const order = [...ranked.map((r) => byPath.get(r.file.path)!), ...rest.map((x) => x.f)];
    return { order, data: this.data, firstUntil: Math.min(best, FIRST_BATCH_FILES), allWords: ranked[0]?.file.distinct === this.words.length, readMs: now() - this.#t0 };
  }

  /** `files` (the answer's best the run writes first), those new to the store, as text windows (EarlyFile). */
  async early(files: readonly WalkedFile[]): Promise<EarlyFile[]> {
    const out: EarlyFile[] = [];
    for (const f of files) {
      const data = this.data.get(f.path);
      if (!data || this.plan.stored.has(f.path) || isProbablyBinary(data)) continue;
      const text = decodeText(data);
      const language = detectLanguage(f.path, languageNeedsText(f.path) ? text : undefined);
      out.push({ file: { path: f.path, hash: PROVISIONAL_HASH, size: f.size, mtime: f.mtime, language }, ...(await textWindows(f.path, text, language)) });
    }
    return out;
  }
}

/** Warnings a summary lists (the count goes on past them). */
export const MAX_WARNING_DETAILS = 200;

export interface IndexWarning {
  path: string;
  kind: 'skipped' | 'parse-fallback' | 'unreadable';
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
  /** Keyword index merge at the end (optimizeAfterRows); 0 when not run. */
  optimize: number;
  total: number;
}

export interface IndexSummary {
  status: CodebaseStatus;
  unchanged: boolean;
  files: { total: number; added: number; changed: number; deleted: number; renamed: number; unchanged: number; skipped: number };
  chunks: { written: number; total: number };
  bytes: number;
  warnings: number;
  /** The first MAX_WARNING_DETAILS warnings of the run, in the order they came. */
  warningDetails: IndexWarning[];
  parseFallbacks: number;
  timings: IndexTimings;
  /** ms from start until the first batch was committed (null if nothing was written). */
  firstSearchableMs: number | null;
  /** What this run did not index and why (also stored as META.skipStats). */
  skipped: SkippedStats;
}

/** A file the walk found, with the stat the cache compares. */
export interface WalkedFile {
  path: string;
  size: number;
  mtime: number;
}

/** What a walk changes against the stored records (the pure part of a plan). */
export interface FileDiff {
  /** New or stat-changed files (all files with `verify`), in walk order: they must be read. */
  candidates: WalkedFile[];
  /** Stored paths the walk did not find: deleted, or the source of a rename. */
  gone: string[];
  /** `gone` by stored hash: a candidate with one of these hashes is a rename. */
  goneByHash: Map<string, string[]>;
  /** Files skipped as binary before whose size+mtime still match (not read again). */
  skippedNow: Record<string, string>;
  /** Walked files whose record still matches their stat. */
  unchanged: number;
}

/** planIndex's answer: the diff plus what the apply step and the summary need. */
export interface IndexPlan extends FileDiff {
  walked: WalkedFile[];
  stored: Map<string, FileRecord>;
  /** The stored Merkle root still holds (nothing new, nothing gone, last run finished). */
  upToDate: boolean;
  storedRoot: string | null;
  /** Chunks stored before this run. */
  storedChunks: number;
  /**
   * Set on a first index (planStreaming): the walk is still running and appends to `walked`
   * and `candidates`; `more()` resolves once either grew or the walk ended (rejects with the
   * walk's error), `done` says whether it ended.
   */
  feed?: { more(): Promise<void>; readonly done: boolean; stop(): void };
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
 * column to each chunk. Synchronous pure-JS SHA-256 by default: chunk texts are small, and
 * one async WebCrypto call per chunk cost more than the hashing itself; a Node chunk worker
 * passes its native one (`sha256Hex`: lower-case hex of the UTF-8 bytes, same result).
 *
 * The chunks are taken over: each gets its two fields set in place and is returned in a new
 * array (every caller passes a chunker's fresh result). A copy of each chunk (`{ ...c }`) was
 * ~2% of a CLI chunk thread's CPU on the kernel subset, and its garbage more.
 */
export function prepareChunks(chunks: ReadonlyArray<Chunk | StoredChunkInput> | ChunkWire, sha256Hex?: (text: string) => string): StoredChunkInput[] {
  // The flat form carries prepared chunks only (a worker's chunkForStore made it).
  if (isChunkWire(chunks)) return decodeChunks(chunks);
  return chunks.map((c) => {
    if (isPrepared(c)) return c;
    const p = c as StoredChunkInput;
    p.contentHash = contentHashOf(c, sha256Hex);
    p.ftsTokens = identifierTokens(c.content);
    return p;
  });
}

/** A file as a chunk worker hands it back: chunks prepared, its text packed, its trigram keys. */
export interface PreparedFile {
  language: string;
  /** Flat (store/chunk-wire.ts) when the worker was asked to (`wire`). */
  chunks: ChunkList<StoredChunkInput>;
  parsed: boolean;
  warnings: string[];
  /** `text` packed for file_text (store/text-codec.ts). */
  packed: Uint8Array;
  /** `text`'s distinct trigram keys (text/trigram-keys.ts). */
  grams: Uint32Array;
}

/**
 * Everything a chunk worker (the CLI's and the browser's) does for one file, so its result
 * equals an in-thread run's: chunk, prepareChunks, pack the text, make its trigram keys.
 * `codec` / `sha256Hex`: a faster native one where the thread has it (Node).
 */
export async function chunkForStore(
  chunker: { chunkFile(path: string, text: string): Promise<{ language: string; chunks: Array<Chunk | StoredChunkInput>; parsed: boolean; warnings: string[] }> },
  path: string,
  text: string,
  o: { codec?: TextCodec; sha256Hex?: (text: string) => string; wire?: boolean } = {},
): Promise<PreparedFile> {
  const res = await chunker.chunkFile(path, text);
  const chunks = prepareChunks(res.chunks, o.sha256Hex);
  return { ...res, chunks: (o.wire && encodeChunks(chunks)) || chunks, packed: await packText(text, o.codec), grams: fileTrigramKeys(text) };
}

/** The buffers of a PreparedFile a worker transfers instead of copying (all fresh and whole). */
export function preparedBuffers(r: PreparedFile): ArrayBuffer[] {
  const out = [r.packed.buffer as ArrayBuffer, r.grams.buffer as ArrayBuffer];
  if (isChunkWire(r.chunks)) out.push(r.chunks.nums.buffer as ArrayBuffer);
  return out;
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

/** Pure: compare a walk with the stored records. Nothing is read; renames need hashes, so
 *  they are only candidates here (`goneByHash`) and settled while applying. */
export function diffWalk(walked: readonly WalkedFile[], stored: ReadonlyMap<string, FileRecord>, skippedBefore: Readonly<Record<string, string>>, verify = false): FileDiff {
  const walkedPaths = new Set(walked.map((f) => f.path));
  const gone = [...stored.keys()].filter((p) => !walkedPaths.has(p));
  const skippedNow: Record<string, string> = {};
  const candidates = walked.filter((f) => {
    const rec = stored.get(f.path);
    if (!verify && !rec && skippedBefore[f.path] === statKey(f)) {
      skippedNow[f.path] = statKey(f);
      return false;
    }
    return verify || !rec || rec.size !== f.size || rec.mtime !== f.mtime;
  });
  const goneByHash = new Map<string, string[]>();
  for (const p of gone) {
    const h = stored.get(p)!.hash;
    const list = goneByHash.get(h);
    if (list) list.push(p);
    else goneByHash.set(h, [p]);
  }
  const unchanged = walked.length - candidates.length - Object.keys(skippedNow).length;
  return { candidates, gone, goneByHash, skippedNow, unchanged };
}

/**
 * The bookkeeping one run shares between planning and applying: status and throttled
 * progress, warnings, per-stage timings and the file counts of the summary.
 */
class RunLog {
  readonly t0 = now();
  readonly timings: IndexTimings = { walk: 0, read: 0, hash: 0, chunk: 0, store: 0, optimize: 0, total: 0 };
  readonly files: IndexSummary['files'] = { total: 0, added: 0, changed: 0, deleted: 0, renamed: 0, unchanged: 0, skipped: 0 };
  warnings = 0;
  readonly warningDetails: IndexWarning[] = [];
  parseFallbacks = 0;
  bytes = 0;
  chunksWritten = 0;
  firstSearchableMs: number | null = null;
  /** Every path not indexed, by reason and extension (walk skips, binary content, unreadable). */
  readonly skips = new SkipTally();
  readonly status: CodebaseStatus;
  #lastProgress = 0;

  constructor(
    name: string,
    private readonly opts: IndexOptions,
  ) {
    this.status = {
      path: name, status: 'indexing', progress: 0, currentStage: 'preparing', merkleRoot: null, totalFiles: 0, walkDone: false, indexedFiles: 0,
      totalChunks: 0, embeddedChunks: 0, warnings: 0, lastUpdated: null, errorMessage: null,
    };
  }

  report(force = false): void {
    if (!this.opts.onProgress) return;
    const t = now();
    if (!force && t - this.#lastProgress < PROGRESS_INTERVAL_MS) return;
    this.#lastProgress = t;
    this.status.warnings = this.warnings;
    this.opts.onProgress({ ...this.status });
  }

  stage(stage: IndexStage): void {
    this.status.currentStage = stage;
    this.report(true);
  }

  warn(w: IndexWarning): void {
    this.warnings++;
    if (this.warningDetails.length < MAX_WARNING_DETAILS) this.warningDetails.push(w);
    this.opts.onWarning?.(w);
  }

  checkAbort(): void {
    if (this.opts.signal?.aborted) throw abortError();
  }

  /** The run's end, whether it did work or found the stored Merkle root still valid. */
  finish(end: { root: string; files: number; chunks: number; updatedAt: string | null; unchanged: boolean }): IndexSummary {
    this.timings.total = now() - this.t0;
    Object.assign(this.status, { status: 'indexed', currentStage: 'complete', progress: 100, merkleRoot: end.root, indexedFiles: end.files, totalChunks: end.chunks, lastUpdated: end.updatedAt });
    this.report(true);
    return {
      status: { ...this.status }, unchanged: end.unchanged, files: this.files, chunks: { written: this.chunksWritten, total: end.chunks },
      bytes: this.bytes, warnings: this.warnings, warningDetails: this.warningDetails, parseFallbacks: this.parseFallbacks, timings: this.timings, firstSearchableMs: this.firstSearchableMs,
      skipped: this.skips.result(),
    };
  }
}

/** Step 1: walk + stat, compare with the stored records. Reads no file content. */
export async function planIndex(
  deps: { source: FileSource; store: Pick<IndexStore, 'getFiles' | 'getMeta' | 'chunkCount'> },
  opts: Pick<IndexOptions, 'walk' | 'signal' | 'verify'> & {
    onSkip?: (s: WalkSkip) => void;
    onWalked?: (count: number) => void;
    /** A walk already under way with these options (indexCodebase starts it before asking the store anything). */
    walking?: () => Promise<WalkedFile[]>;
  } = {},
): Promise<IndexPlan> {
  const { source, store } = deps;
  const stored = await store.getFiles();
  const storedChunks = await store.chunkCount();
  let walked: WalkedFile[] = [];
  if (opts.walking) walked = await opts.walking();
  else {
    for await (const f of walk(source, { ...opts.walk, signal: opts.signal, onSkip: opts.onSkip })) {
      walked.push(f);
      if (walked.length % 500 === 0) opts.onWalked?.(walked.length);
    }
  }
  const diff = diffWalk(walked, stored, parseSkipped(await store.getMeta(META.skippedFiles)), opts.verify);
  const pendingRun = (await store.getMeta(META.runState)) === 'indexing';
  const storedRoot = await store.getMeta(META.merkleRoot);
  const upToDate = diff.candidates.length === 0 && diff.gone.length === 0 && !pendingRun && !!storedRoot;
  return { ...diff, walked, stored, upToDate, storedRoot, storedChunks };
}

interface ChunkOutcome {
  language: string;
  /** As objects, or flat as a chunk worker posted them (passed on to the store as they are). */
  chunks: ChunkList<StoredChunkInput>;
  /** Why the file was indexed as text, or null. */
  fallback: string | null;
  /** issue 11: the decoded text the chunks were cut from, byte-exact, stored once as file_text. */
  text: string;
  /** `text` packed for file_text (by a chunk worker, or here: never on the store's thread). */
  packed: Uint8Array;
  /** `text`'s distinct trigram keys for grep's prefilter (made where `packed` is). */
  grams: Uint32Array;
}

type Prepared =
  | { kind: 'unreadable'; error: unknown }
  | { kind: 'read'; data: Uint8Array; hash: string; chunked?: Promise<ChunkOutcome> };

/**
 * Step 2's writer: whole files in, batches out, at most one batch write in flight. Every
 * other store call must `settle()` first so the store sees a sequential run's order.
 */
class BatchWriter {
  #batch: Array<{ file: FileRecord; chunks: ChunkList<StoredChunkInput>; text?: string; packed?: Uint8Array; grams?: Uint32Array }> = [];
  #rows = 0;
  #lastFlush = now();
  #inFlight: Promise<void> | null = null;
  /** The write in flight has finished (settle() has not collected it yet). */
  #writeDone = true;
  /**
   * The run says when its first parsed batch is due (the files holding a waiting query's
   * words): FIRST_BATCH_FILES / FIRST_FLUSH_MS do not cut it short.
   */
  holdFirst = false;

  constructor(
    private readonly store: IndexStore,
    private readonly log: RunLog,
    private readonly onBatch: IndexOptions['onBatch'],
    /** Rows that make a batch due (WRITE_BATCH_ROWS, more in a bulk load). */
    private readonly batchRows = WRITE_BATCH_ROWS,
    /** A smaller batch is due after this long (FLUSH_INTERVAL_MS, longer in a bulk load). */
    private readonly flushIntervalMs = FLUSH_INTERVAL_MS,
    /** Until this long after the run's start, batches are due at WRITE_BATCH_ROWS / FLUSH_INTERVAL_MS (BULK_EARLY_MS). */
    private readonly earlyMs = 0,
  ) {}

  get busy(): boolean {
    return this.#inFlight !== null;
  }

  /**
   * Queue a file; true when the batch is due: the first results, or size / time once the
   * previous write has finished (or the batch reached MAX_BATCH_FACTOR × WRITE_BATCH_ROWS).
   */
  add(file: FileRecord, chunks: ChunkList<StoredChunkInput>, outcome?: { text: string; packed: Uint8Array; grams: Uint32Array }): boolean {
    this.#batch.push({ file, chunks, text: outcome?.text, packed: outcome?.packed, grams: outcome?.grams }); // issue 11: text → file_text
    this.#rows += chunkListLength(chunks);
    if (this.holdFirst) return false;
    if (this.log.firstSearchableMs === null && this.#inFlight === null && (this.#batch.length >= FIRST_BATCH_FILES || now() - this.log.t0 >= FIRST_FLUSH_MS)) return true;
    const early = now() - this.log.t0 < this.earlyMs;
    const rows = early ? WRITE_BATCH_ROWS : this.batchRows;
    if (this.#rows >= rows * MAX_BATCH_FACTOR) return true;
    return this.#writeDone && (this.#rows >= rows || now() - this.#lastFlush > (early ? FLUSH_INTERVAL_MS : this.flushIntervalMs));
  }

  /** Wait for the write in flight (rethrowing its failure). */
  async settle(): Promise<void> {
    const p = this.#inFlight;
    this.#inFlight = null;
    if (p) await p;
  }

  /**
   * Write `items` at once, alone, and wait for it: rows searchable now that later batches of
   * the run replace (a store write replaces a path's rows). Not counted as the run's chunks.
   */
  async writeNow(items: EarlyFile[]): Promise<void> {
    await this.settle();
    if (items.length === 0) return;
    const ts = now();
    await this.store.writeFiles(items);
    this.log.timings.store += now() - ts;
    this.#written(ts);
    this.onBatch?.({ files: items.length, chunks: items.reduce((n, it) => n + chunkListLength(it.chunks), 0) });
  }

  /** A write begun at `ts` is committed: the run's first one makes its rows searchable. */
  #written(ts: number): void {
    if (this.log.firstSearchableMs !== null) return;
    this.log.firstSearchableMs = now() - this.log.t0;
    measureSince('first-write', ts);
  }

  /** Start writing the queued batch (after the previous write finished). */
  async flush(): Promise<void> {
    await this.settle();
    if (this.#batch.length === 0) return;
    const items = this.#batch;
    const rows = this.#rows;
    this.#batch = [];
    this.#rows = 0;
    this.#lastFlush = now();
    const ts = now();
    const log = this.log;
    this.#writeDone = false;
    const write = this.store.writeFiles(items).finally(() => (this.#writeDone = true)).then(() => {
      log.timings.store += now() - ts;
      log.chunksWritten += rows;
      this.#written(ts);
      this.onBatch?.({ files: items.length, chunks: rows });
    });
    write.catch(() => undefined); // observed by the next settle(); never unhandled
    this.#inFlight = write;
  }
}

/**
 * Step 2: read, hash and chunk the plan's candidates (ahead of order), settle renames,
 * stream whole files to the store, delete what is gone, record the new Merkle root.
 */
async function applyPlan(
  plan: IndexPlan,
  deps: { source: FileSource; store: IndexStore; chunker: FileChunker },
  opts: IndexOptions,
  log: RunLog,
): Promise<IndexSummary> {
  const { source, store, chunker } = deps;
  const { stored, goneByHash, skippedNow } = plan;
  const gone = [...plan.gone];
  const { timings, files: summary, status } = log;

  // A query waiting for this run: its reading needs no store, so it starts beside the store calls below.
  const words = opts.firstFor ? scanTerms(opts.firstFor).slice(0, 16) : [];
  const reading = words.length > 0 ? new QueryReading(plan, source, opts.firstFor ?? '', opts.firstForNamesCode === true, words) : null;
  await store.setMeta(META.runState, 'indexing');
  // Every run states the mode it wants: one cut short in bulk mode leaves it set.
  // A first index decides once it has walked BULK_LOAD_FILES files or the whole folder.
  while (plan.feed && !plan.feed.done && plan.candidates.length < BULK_LOAD_FILES) await plan.feed.more();
  const bulk = plan.candidates.length >= BULK_LOAD_FILES;
  let bytes = 0;
  for (const f of plan.candidates) bytes += f.size;
  chunker.expect?.({ files: plan.candidates.length, bytes, complete: !plan.feed || plan.feed.done });
  await store.setBulkLoad?.(bulk);
  if (!(await store.getMeta(META.createdAt))) await store.setMeta(META.createdAt, new Date().toISOString());

  log.stage('chunking');
  measureSince('plan', log.t0);
  const renamedFrom = new Set<string>();
  const finalHashes = new Map<string, string>();
  const walkedPaths = new Set(plan.walked.map((f) => f.path));
  for (const [p, rec] of stored) if (walkedPaths.has(p)) finalHashes.set(p, rec.hash);
  let processed = summary.unchanged;
  status.indexedFiles = processed;

  const chunkText = async (path: string, text: string, language: string): Promise<ChunkOutcome> => {
    const tc = now();
    try {
      const res = await chunker.chunkFile(path, text);
      return {
        // The chunker's warnings open with the path; the warning made of them carries it apart.
        language: res.language, chunks: isChunkWire(res.chunks) ? res.chunks : prepareChunks(res.chunks), fallback: !res.parsed && res.warnings.length > 0 ? res.warnings.map((w) => (w.startsWith(`${path}: `) ? w.slice(path.length + 2) : w)).join('; ') : null,
        text, packed: res.packed ?? (await packText(text)), grams: res.grams ?? fileTrigramKeys(text),
      };
    } catch (e) {
      // The chunker must never lose a file; if it faults anyway, keep the file as plain text chunks.
      return { language, ...(await textWindows(path, text, language)), fallback: e instanceof Error ? e.message : String(e) };
    } finally {
      timings.chunk += now() - tc;
    }
  };
  // A query waiting for this run: its files go first (IndexOptions.firstFor). `order` is the run's
  // candidates in the order they are taken: a permutation of plan.candidates[0, order.length), the
  // walk's later files after it in walk order (fileAt).
  let order: readonly WalkedFile[] = plan.candidates;
  const fileAt = (i: number): WalkedFile => (i < order.length ? order[i]! : plan.candidates[i]!);
  let readAlready: Map<string, Uint8Array> | null = null;
  /** The query's best files lead `order`: only they are chunked until they are written. */
  let firstUntil = 0;
  /**
   * The run started on an answer from a reading not yet whole: once it is, its answer orders
   * what the run has not taken yet (`ready`; `answer` null: it never became whole).
   */
  const late = { ready: false, answer: null as QueryFirst | null };
  let r: QueryFirst | null = null;
  if (reading) {
    if (!plan.feed || plan.feed.done) {
      r = (await reading.whole) ? await reading.answer() : null;
    } else {
      // The walk goes on: an answer from the files read so far when one holds every word;
      // else the walk's end is waited for, up to FIRST_FOR_WAIT_MS (a folder of a little over
      // BULK_LOAD_FILES files), and whatever was read then answers.
      r = await reading.answer();
      let whole = false;
      if (!r?.allWords) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        whole = await Promise.race([reading.whole, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), FIRST_FOR_WAIT_MS)))]);
        clearTimeout(timer);
        r = await reading.answer();
      }
      if (!whole) {
        void reading.whole.then(async (ok) => {
          late.answer = ok ? await reading.answer() : null;
          late.ready = true;
        });
      }
    }
    if (!r) reading.stop();
  }
  const writer = bulk
    ? new BatchWriter(store, log, opts.onBatch, WRITE_BATCH_ROWS * BULK_BATCH_FACTOR, FLUSH_INTERVAL_MS * BULK_BATCH_FACTOR, r && r.firstUntil > 0 ? 0 : BULK_EARLY_MS)
    : new BatchWriter(store, log, opts.onBatch);
  if (reading && r) {
    timings.read += r.readMs;
    order = r.order;
    readAlready = r.data;
    firstUntil = r.firstUntil;
    writer.holdFirst = firstUntil > 0;
    await writer.writeNow(await reading.early(order.slice(0, firstUntil)));
  }
  // Read + hash + (unless it looks like a rename or an untouched file) chunk, ahead of order.
  const prepare = async (f: WalkedFile): Promise<Prepared> => {
    const tr = now();
    let data: Uint8Array;
    try {
      const early = readAlready?.get(f.path);
      if (early) readAlready!.delete(f.path);
      data = early ?? (await source.readFile(f.path));
    } catch (error) {
      return { kind: 'unreadable', error };
    } finally {
      timings.read += now() - tr;
    }
    const th = now();
    const hash = opts.hashFile ? opts.hashFile(data) : await sha256Hex(data);
    timings.hash += now() - th;
    const prev = stored.get(f.path);
    const maybeRename = !prev && goneByHash.has(hash);
    if ((prev && prev.hash === hash) || maybeRename || isProbablyBinary(data)) return { kind: 'read', data, hash };
    // The language given is the fallback's: the chunker reads it from the path and the text.
    const chunked = chunkText(f.path, decodeText(data), detectLanguage(f.path));
    chunked.catch(() => undefined);
    return { kind: 'read', data, hash, chunked };
  };

  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? DEFAULT_CONCURRENCY));
  const ahead: Array<Promise<Prepared>> = [];
  let next = 0;
  const fill = (i: number): void => {
    const end = i < firstUntil ? firstUntil : plan.candidates.length;
    while (ahead.length < concurrency && next < end) {
      const p = prepare(fileAt(next++));
      p.catch(() => undefined);
      ahead.push(p);
    }
  };

  try {
    for (let i = 0; ; i++) {
      // A first index consumes the walk as it goes (plan.feed); otherwise the list is whole.
      while (plan.feed && !plan.feed.done && i >= plan.candidates.length) await plan.feed.more();
      if (late.ready && !writer.holdFirst) {
        // The reading became whole after the run had started on an earlier answer: the files
        // not taken yet follow its order, its best first (as text windows at once, then parsed).
        late.ready = false;
        const answer = late.answer;
        if (answer && reading) {
          const taken = new Set<string>();
          const head: WalkedFile[] = [];
          for (let j = 0; j < next; j++) {
            head.push(fileAt(j));
            taken.add(head[j]!.path);
          }
          const best = new Set(answer.order.slice(0, answer.firstUntil).map((f) => f.path));
          const left = answer.order.filter((f) => !taken.has(f.path));
          let lead = 0;
          while (lead < left.length && best.has(left[lead]!.path)) lead++;
          order = [...head, ...left];
          if (lead > 0) {
            firstUntil = next + lead;
            writer.holdFirst = true;
            await writer.writeNow(await reading.early(left.slice(0, lead)));
          }
        }
      }
      if (i === firstUntil && writer.holdFirst) {
        // The query's best files are in: they are written (and searchable) before any other
        // file is read ahead or chunked, so nothing competes with that first write.
        writer.holdFirst = false;
        status.currentStage = 'indexing';
        await writer.flush();
        await writer.settle();
        status.currentStage = 'chunking';
      }
      if (i >= plan.candidates.length) break;
      const f = fileAt(i);
      log.checkAbort();
      fill(i);
      const prep = await ahead.shift()!;
      if (prep.kind === 'unreadable') {
        const e = prep.error;
        log.warn({ path: f.path, kind: 'unreadable', message: e instanceof Error ? e.message : String(e) });
        log.skips.add({ path: f.path, reason: 'unreadable', detail: e instanceof Error ? e.message : String(e) });
        summary.skipped++;
        finalHashes.delete(f.path);
        processed++;
        continue;
      }
      const { data, hash } = prep;
      log.bytes += data.byteLength;
      // A `.h` or a script without extension: the text says (C++ header, `#!` line). A file
      // chunked ahead gets the chunker's answer below; an unchanged one keeps its own.
      const kept = stored.get(f.path);
      const language = kept?.hash === hash ? kept.language
        : detectLanguage(f.path, !prep.chunked && languageNeedsText(f.path) ? decodeText(data) : undefined);
      const record: FileRecord = { path: f.path, hash, size: f.size, mtime: f.mtime, language };
      const prev = stored.get(f.path);
      processed++;
      status.indexedFiles = processed;
      status.progress = Math.min(99, Math.round((processed / Math.max(1, plan.walked.length)) * 100));

      if (prev && prev.hash === hash) {
        // Touched but unchanged: refresh the stat cache only (rename-safe: same path).
        await writer.settle();
        await store.renameFile(f.path, record);
        finalHashes.set(f.path, hash);
        summary.unchanged++;
        log.report();
        continue;
      }
      const renameSource = !prev ? goneByHash.get(hash)?.shift() : undefined;
      if (renameSource) {
        await writer.flush(); // keep ordering: the moved rows must not race a pending batch
        await writer.settle();
        const ts = now();
        await store.renameFile(renameSource, record);
        timings.store += now() - ts;
        renamedFrom.add(renameSource);
        finalHashes.set(f.path, hash);
        summary.renamed++;
        log.report();
        continue;
      }
      if (isProbablyBinary(data)) {
        // Expected of a folder's files (every file is read): counted in the stats, not a warning.
        log.skips.add({ path: f.path, reason: 'binary', detail: BINARY_CONTENT });
        skippedNow[f.path] = statKey(f);
        summary.skipped++;
        if (prev) gone.push(f.path);
        continue;
      }
      // Chunked ahead unless it looked like a rename whose source another file took first.
      const outcome = await (prep.chunked ?? chunkText(f.path, decodeText(data), language));
      record.language = outcome.language;
      if (outcome.fallback !== null) {
        log.parseFallbacks++;
        log.warn({ path: f.path, kind: 'parse-fallback', message: outcome.fallback });
      }
      if (prev) summary.changed++;
      else summary.added++;
      finalHashes.set(f.path, hash);
      status.totalChunks += chunkListLength(outcome.chunks);
      if (writer.add(record, outcome.chunks, outcome)) {
        status.currentStage = 'indexing';
        await writer.flush();
        status.currentStage = 'chunking';
      }
      log.report();
    }
    log.checkAbort();
    log.stage('indexing');
    await writer.flush();
    await writer.settle();
  } finally {
    plan.feed?.stop();
    reading?.stop(); // an ended or failed run reads nothing more for its query
    // Never leave a write running behind the caller's back (an abort or a fault above).
    await writer.settle().catch(() => undefined);
    await Promise.allSettled(ahead);
  }

  const toDelete = gone.filter((p) => !renamedFrom.has(p));
  if (toDelete.length > 0) {
    const ts = now();
    await store.deleteFiles(toDelete);
    timings.store += now() - ts;
  }
  summary.deleted = toDelete.filter((p) => stored.has(p)).length;

  // The run's files go into the trigram index now (until then grep treats them as candidates),
  // unless the files pending are few enough that grep reads them whole (store/trigram-index.ts LAZY_PENDING_BYTES).
  if (store.flushTrigrams && log.chunksWritten + toDelete.length > 0) {
    const ts = now();
    await store.flushTrigrams({ unlessFew: true });
    timings.store += now() - ts;
  }

  if (bulk) await store.setBulkLoad?.(false);
  // A bulk load left its segments unmerged: merge them now, whatever optimizeAfterRows says.
  if (((opts.optimizeAfterRows !== undefined && log.chunksWritten >= opts.optimizeAfterRows) || (bulk && store.setBulkLoad)) && store.optimizeFts) {
    log.stage('optimizing');
    const to = now();
    await store.optimizeFts();
    timings.optimize = now() - to;
  }

  const root = await merkleRoot([...finalHashes].map(([path, hash]) => ({ path, hash })), opts.sha256Digest);
  const updatedAt = new Date().toISOString();
  // The run's closing state in one commit (each commit syncs the journal and the database).
  const skipStats = JSON.stringify(log.skips.result());
  await setMetas(store, [
    [META.merkleRoot, root],
    [META.skippedFiles, JSON.stringify(skippedNow)],
    // (A run given its files walked nothing: the last walk's skip stats stand.)
    ...(walksFolder(opts) && (await store.getMeta(META.skipStats)) !== skipStats ? [[META.skipStats, skipStats] as const] : []),
    [META.updatedAt, updatedAt],
    [META.runState, 'complete'],
  ]);

  return log.finish({ root, files: finalHashes.size, chunks: await store.chunkCount(), updatedAt, unchanged: false });
}

/**
 * A first index (a store no run ever started in: no run state, no Merkle root, hence no file
 * records and no skipped-file memo) needs no diff: every walked file is a candidate and
 * nothing is gone. So the apply step starts on the walk's first files instead of after the
 * whole walk (kernel subset in Chromium: walk 3.5-8 s of a 4.9-11 s first-searchable).
 */
function planStreaming(
  source: FileSource,
  walkOpts: Parameters<typeof walk>[1],
  onWalked: (count: number) => void,
  onWalkEnd: () => void,
): IndexPlan {
  const walked: WalkedFile[] = [];
  const stop = new AbortController();
  const outer = walkOpts?.signal;
  const signal = outer ? AbortSignal.any([outer, stop.signal]) : stop.signal;
  /** Who waits for the next file (the run, and a waiting query's reading: IndexOptions.firstFor). */
  let waiting: Array<() => void> = [];
  let done = false;
  let failure: unknown = null;
  const ping = (): void => {
    const w = waiting;
    waiting = [];
    for (const wake of w) wake();
  };
  void (async () => {
    try {
      for await (const f of walk(source, { ...walkOpts, signal })) {
        walked.push(f);
        if (walked.length % 500 === 0) onWalked(walked.length);
        ping();
      }
    } catch (e) {
      failure = e;
    } finally {
      done = true;
      onWalkEnd();
      ping();
    }
  })();
  const feed = {
    get done() {
      if (done && failure) throw failure;
      return done;
    },
    more: () => (done ? (failure ? Promise.reject(failure) : Promise.resolve()) : new Promise<void>((r) => waiting.push(r))),
    stop: () => stop.abort(),
  };
  // `candidates` IS `walked`: the same growing list.
  return { candidates: walked, gone: [], goneByHash: new Map(), skippedNow: {}, unchanged: 0, walked, stored: new Map(), upToDate: false, storedRoot: null, storedChunks: 0, feed };
}

/** Every file of a streaming plan's walk, once it has ended (its failure rethrown). */
async function walkedAll(plan: IndexPlan): Promise<WalkedFile[]> {
  while (!plan.feed!.done) await plan.feed!.more();
  return plan.walked;
}

/** Detail of a file skipped as binary by its first bytes (isProbablyBinary). */
const BINARY_CONTENT = 'binary content';

/** Store the run's skip stats (META.skipStats), unless they are what is stored already. */
/** `entries` in order: in one transaction when the store can (IndexStore.setMetas). */
async function setMetas(store: Pick<IndexStore, 'setMeta' | 'setMetas'>, entries: ReadonlyArray<readonly [MetaKey, string]>): Promise<void> {
  if (store.setMetas) return store.setMetas(entries);
  for (const [key, value] of entries) await store.setMeta(key, value);
}

async function saveSkipStats(store: Pick<IndexStore, 'getMeta' | 'setMeta'>, log: RunLog): Promise<void> {
  const json = JSON.stringify(log.skips.result());
  if ((await store.getMeta(META.skipStats)) !== json) await store.setMeta(META.skipStats, json);
}

/** Does a run with `opts` walk the folder: not when given its files (`walked`), unless it verifies every file. */
function walksFolder(opts: Pick<IndexOptions, 'walked' | 'verify'>): boolean {
  return !opts.walked || !!opts.verify;
}

/** Plan, then apply (or return at once when the stored Merkle root still holds). */
export async function indexCodebase(
  deps: { source: FileSource; store: IndexStore; chunker: FileChunker },
  opts: IndexOptions = {},
): Promise<IndexSummary> {
  const log = new RunLog(deps.source.name, opts);
  const { status, files: summary, timings } = log;

  log.stage('preparing');
  const tw = now();
  const onSkip = (s: WalkSkip): void => {
    log.skips.add(s);
    // Rules the user set, and files binary by their extension: counted in stats, not warned about.
    if (s.reason === 'ignored' || s.reason === 'not-included' || s.reason === 'binary') return;
    summary.skipped++;
    log.warn({ path: s.path, kind: s.reason === 'unreadable' ? 'unreadable' : 'skipped', message: s.detail ?? SKIP_REASON_TEXT[s.reason] });
  };
  const onWalked = (n: number): void => {
    status.totalFiles = n;
    log.report();
  };
  // The walk starts at once, beside the store's first answers: on a first visit the store is
  // still opening the new database when the run starts (app pick: ~300 ms of walk overlapped).
  // A run given the folder's files (opts.walked) walks nothing.
  const given = walksFolder(opts) ? null : opts.walked!;
  const walking = given ? null : planStreaming(deps.source, { ...opts.walk, signal: opts.signal, onSkip }, onWalked, () => {
    timings.walk = now() - tw;
    status.totalFiles = walking!.walked.length;
    status.walkDone = true;
    summary.total = walking!.walked.length;
  });
  let firstRun: boolean;
  try {
    const [runState, root] = opts.verify ? [null, null] : await Promise.all([deps.store.getMeta(META.runState), deps.store.getMeta(META.merkleRoot)]);
    firstRun = !opts.verify && runState === null && root === null;
  } catch (e) {
    walking?.feed!.stop();
    throw e;
  }
  if (firstRun && walking) {
    const first = await applyPlan(walking, deps, opts, log);
    opts.onWalkList?.(walking.walked);
    return first;
  }
  let plan: IndexPlan;
  try {
    plan = await planIndex(deps, { walk: opts.walk, signal: opts.signal, verify: opts.verify, walking: given ?? (() => walkedAll(walking!)) });
  } catch (e) {
    walking?.feed!.stop();
    throw e;
  }
  opts.onWalkList?.(plan.walked);
  if (given) status.walkDone = true;
  timings.walk = now() - tw;
  status.totalFiles = plan.walked.length;
  status.totalChunks = plan.storedChunks;
  summary.total = plan.walked.length;
  summary.unchanged = plan.unchanged;
  summary.skipped += Object.keys(plan.skippedNow).length;
  for (const path of Object.keys(plan.skippedNow)) log.skips.add({ path, reason: 'binary', detail: BINARY_CONTENT });

  if (plan.upToDate) {
    // The files are as stored, but the rules (ignore files, include/exclude) may skip other paths now.
    if (!given) await saveSkipStats(deps.store, log);
    return log.finish({ root: plan.storedRoot!, files: plan.walked.length, chunks: plan.storedChunks, updatedAt: await deps.store.getMeta(META.updatedAt), unchanged: true });
  }
  return applyPlan(plan, deps, opts, log);
}
