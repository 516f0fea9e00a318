/**
 * `sift mcp` during a first index (issue 34): the files Sift indexes, whether stored yet or
 * not, for `grep` and `read`.
 *
 * DiskView is a ToolStore over one walk of the folder (the walker itself: the same ignore
 * rules, size limit and secret skips as the index run) whose file texts come from disk,
 * through the NodeFileSource (never outside the root; binary content skipped, as the indexer
 * does), kept between views by stat (DiskTexts). Stored or not yet, edited since or not, a
 * walked file is served as it is on disk, and a stored file the walk no longer finds is not
 * served; the index itself is not read for text (its connection is busy with the run's
 * writes). So grep's lines are ripgrep's over exactly the walked files, from the first call,
 * with grep.ts's line semantics (the core's grep runs over this view). Chunks, symbols and
 * stats still come from the index.
 *
 * WatchedSource starts a directory's watcher before the directory is listed: a file written
 * there afterwards raises an event, a file written before is in the listing — so no change
 * made while a walk runs (the index run's or a view's) goes unseen.
 */
import type { FileRecord } from '../core/types.ts';
import type { GrepFile, Store, WriteItem } from '../core/store/store.ts';
import type { TrigramQuery } from '../core/search/trigram.ts';
import type { ToolStore } from '../core/tools/run.ts';
import type { DirEntry } from '../core/source/types.ts';
import { NodeFileSource } from '../core/source/node-source-node.ts';
import { isProbablyBinary, walk, type WalkedFile, type WalkOptions } from '../core/walk/walker.ts';
import { decodeText, prepareChunks, type StoredChunkInput } from '../core/index/indexer.ts';
import type { ChunkWire } from '../core/store/chunk-wire.ts';
import { chunkText } from '../core/chunk/text.ts';
import { packUtf8 } from '../core/store/text-codec.ts';
import type { Chunk } from '../core/types.ts';
import { CHUNK_OVERLAP_CHARS, MAX_CHUNK_CHARS, MIN_CHUNK_CHARS } from '../core/config.ts';
import { nativeSha256 } from './node-hash.ts';
import { detectLanguage, languageNeedsText } from '../core/chunk/languages.ts';
import { rankScanned, termHits, termPatterns, termsIn, type ScannedFile } from '../core/text/scan-terms.ts';
import { codeNamedByPaths, fileKind, queryIntent, type SearchIntent } from '../core/text/file-kind.ts';
import { KIND_FACTORS } from '../core/config.ts';
export { scanTerms } from '../core/text/scan-terms.ts';

/** Files read from disk at once by a view. */
const DISK_READS_AT_ONCE = 32;


/**
 * Texts read from disk, kept between views by path with the stat they were read at (the
 * indexer's stat cache rule: same size and mtime, same text); null for binary content.
 */
export class DiskTexts {
  readonly #map = new Map<string, { size: number; mtime: number; text: string | null }>();
  #chars = 0;
  constructor(readonly maxChars: number) {}

  async get(source: NodeFileSource, f: WalkedFile): Promise<string | null> {
    const e = this.#map.get(f.path);
    if (e && e.size === f.size && e.mtime === f.mtime) return e.text;
    const text = await diskText(source, f.path);
    if (e) this.#chars -= e.text?.length ?? 0;
    if (this.#chars + (text?.length ?? 0) <= this.maxChars) {
      this.#map.set(f.path, { size: f.size, mtime: f.mtime, text });
      this.#chars += text?.length ?? 0;
    } else this.#map.delete(f.path);
    return text;
  }
}

/** How long a walk over synchronous fs calls runs before it lets the event loop in (walkFiles). */
const WALK_SLICE_MS = 25;

/**
 * The walker's files of `source`, by path, in walk order. Over synchronous fs calls the walk
 * would hold the event loop to its end (~1 s for 11k files): it lets it in every WALK_SLICE_MS.
 */
export async function walkFiles(
  source: NodeFileSource,
  o: Omit<WalkOptions, 'signal' | 'onSkip'>,
  sliceMs = WALK_SLICE_MS,
): Promise<Map<string, WalkedFile>> {
  const walked = new Map<string, WalkedFile>();
  let slice = performance.now();
  for await (const f of walk(source, o)) {
    walked.set(f.path, f);
    if (performance.now() - slice >= sliceMs) {
      await new Promise((r) => setImmediate(r));
      slice = performance.now();
    }
  }
  return walked;
}

/** A NodeFileSource that calls `beforeList(dir)` before it lists a directory. */
export class WatchedSource extends NodeFileSource {
  constructor(
    root: string,
    private readonly beforeList: (dir: string) => void,
    o: { sync?: boolean } = {},
  ) {
    super(root, o);
  }

  override async readDir(dir: string): Promise<DirEntry[]> {
    this.beforeList(dir);
    return super.readDir(dir);
  }
}

/** SQLite's BINARY order of TEXT (UTF-8 bytes), the order grep's files come in. */
function byUtf8(a: { key: Buffer }, b: { key: Buffer }): number {
  return Buffer.compare(a.key, b.key);
}

/** Text of a file read from disk, or null when its content is binary or it cannot be read. */
export async function diskText(source: NodeFileSource, path: string): Promise<string | null> {
  try {
    // (The bytes are the source's reused buffer: decoded at once.)
    return await source.readFileWith(path, (data) => (isProbablyBinary(data) ? null : decodeText(data)));
  } catch {
    return null;
  }
}

export class DiskView implements ToolStore {
  /** Walked files in SQLite's BINARY path order (as the index lists them); a file's id is its place here, from 1. */
  readonly #files: WalkedFile[];

  private constructor(
    private readonly store: Store,
    private readonly source: NodeFileSource,
    private readonly texts: DiskTexts,
    /** Walked files, by path. */
    private readonly walked: Map<string, WalkedFile>,
  ) {
    this.#files = [...walked.values()].map((f) => ({ f, key: Buffer.from(f.path) })).sort(byUtf8).map((x) => x.f);
  }

  /** Walk `source` now. */
  static async open(store: Store, source: NodeFileSource, texts: DiskTexts, o: Omit<WalkOptions, 'signal' | 'onSkip'>): Promise<DiskView> {
    return new DiskView(store, source, texts, await walkFiles(source, o));
  }

  get db(): Store['db'] {
    return this.store.db;
  }

  async getFile(path: string): Promise<FileRecord | null> {
    const f = this.walked.get(path);
    if (!f) return null;
    const text = await this.texts.get(this.source, f);
    if (text === null) return null;
    return { path, hash: '', size: f.size, mtime: f.mtime, language: detectLanguage(path, languageNeedsText(path) ? text : undefined) };
  }

  async getFileText(path: string): Promise<string | null> {
    const f = this.walked.get(path);
    return f ? this.texts.get(this.source, f) : null;
  }

  getFileChunks(path: string): ReturnType<Store['getFileChunks']> {
    return this.walked.has(path) ? this.store.getFileChunks(path) : Promise.resolve([]);
  }

  getChunks(ids: number[], o?: { content?: boolean }): ReturnType<Store['getChunks']> {
    return this.store.getChunks(ids, o);
  }

  stats(): ReturnType<Store['stats']> {
    return this.store.stats();
  }

  /** Every walked file (no trigram prefilter: grep's matcher decides), in path order. */
  async grepFiles(_query: TrigramQuery | null): Promise<GrepFile[]> {
    return this.#files.map((f, i) => ({ id: i + 1, path: f.path, language: detectLanguage(f.path), hash: '' }));
  }

  async fileTextsById(ids: readonly number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    for (let i = 0; i < ids.length; i += DISK_READS_AT_ONCE) {
      const part = ids.slice(i, i + DISK_READS_AT_ONCE);
      const texts = await Promise.all(part.map((id) => this.texts.get(this.source, this.#files[id - 1]!)));
      part.forEach((id, k) => {
        const t = texts[k];
        if (t !== null && t !== undefined) out.set(id, t);
      });
    }
    return out;
  }

  async fileTextCount(): Promise<number> {
    return this.fileCount;
  }

  /** Files the walk listed. */
  get fileCount(): number {
    return this.walked.size;
  }

  /** The walked file at `path`, or undefined when the walk did not list it. */
  walkedFile(path: string): WalkedFile | undefined {
    return this.walked.get(path);
  }

  /**
   * The files (at most `max`, with their texts) that hold the most of `terms` (scanTerms), for
   * the call `scanFor` describes — filesHoldingMost's rule over this view's walk and texts.
   * Kept per terms for this view's life.
   */
  filesHolding(terms: readonly string[], max: number, maxBytes: number, scanFor?: ScanFor): Promise<Array<{ file: WalkedFile; text: string }>> {
    const key = `${max}\u0000${maxBytes}\u0000${terms.join('\u0000')}\u0000${scanFor ? JSON.stringify(scanFor) : ''}`;
    let hit = this.#holding.get(key);
    if (!hit) {
      hit = this.#scan(terms, max, maxBytes, scanFor);
      this.#holding.set(key, hit);
    }
    return hit;
  }

  readonly #holding = new Map<string, Promise<Array<{ file: WalkedFile; text: string }>>>();

  #scan(terms: readonly string[], max: number, maxBytes: number, scanFor?: ScanFor): Promise<Array<{ file: WalkedFile; text: string }>> {
    return filesHoldingMost(this.walked.values(), (f) => this.texts.get(this.source, f), terms, max, maxBytes, scanFor);
  }
}

/**
 * What a call's files are picked for: its query, whether that names code (a name lookup, a
 * declaration, a doc comment: search/search.ts's `namesCode`) and an intent the call gives.
 */
export interface ScanFor {
  query: string;
  namesCode: boolean;
  intent: SearchIntent | null;
}

/**
 * DiskView.filesHolding's rule, over `files` in walk order and their texts (null: binary or
 * unreadable): files whose path holds some of `terms` are scanned first (most of them first,
 * then in walk order), then the rest in walk order, up to `maxBytes` (by stat size) in all, so
 * in a folder bigger than that, `mm/page_alloc.c` is read for "page allocator" wherever the walk
 * lists it. Of those, at most `max` by text/scan-terms.ts rankScanned's rule (the files holding
 * half the terms or more, the rarer terms counting more; none when no file holds half), each
 * weighed by its kind for the call's intent (`scanFor`: the search's KIND_FACTORS, its soft test
 * words judged by the walked paths, so a project's website that says every word of a code
 * question does not take its code's places; without `scanFor` every kind weighs the same); the
 * search then ranks them. The first index's scan thread (mcp-scan-worker.ts) runs the same function.
 */
export async function filesHoldingMost(
  files: Iterable<WalkedFile>,
  textOf: (f: WalkedFile) => Promise<string | null> | string | null,
  terms: readonly string[],
  max: number,
  maxBytes: number,
  scanFor?: ScanFor,
): Promise<Array<{ file: WalkedFile; text: string }>> {
  if (terms.length === 0 || max <= 0) return [];
  let bytes = 0;
  const patterns = termPatterns(terms);
  const all = [...files];
  const kindOf = (path: string, text?: string) => fileKind(path, detectLanguage(path, text));
  const intent: SearchIntent = !scanFor ? 'any' : scanFor.intent ?? (await queryIntent(scanFor.query, scanFor.namesCode, (words) => codeNamedByPaths(all.map((f) => f.path), words, kindOf)));
  const order = all.map((file, i) => ({ file, i, path: termsIn(file.path, patterns) }));
  order.sort((a, b) => b.path.distinct - a.path.distinct || a.i - b.i);
  const hits: Array<ScannedFile & { file: WalkedFile; text: string }> = [];
  let scanned = 0;
  for (const { file, path } of order) {
    bytes += file.size;
    if (bytes > maxBytes) break;
    const text = await textOf(file);
    if (text === null) continue;
    scanned++;
    const { distinct, count, which } = termHits(text, patterns, TERM_COUNT_CAP, path.held);
    if (distinct) hits.push({ file, text, path: file.path, which, distinct, count, inPath: path.distinct, factor: KIND_FACTORS[intent][kindOf(file.path, text)] });
  }
  return rankScanned(hits, terms.length, scanned).slice(0, max).map(({ file: { file, text } }) => ({ file, text }));
}

/**
 * The record of a file stored ahead of the first index's order (mcp-codebase.ts #storeAhead):
 * an mtime no stat matches and no hash, so the next run reads and chunks it again (the first
 * index itself replaces it when its walk comes to it) and records the Merkle root with it.
 */
const STORED_AHEAD = { mtime: -1, hash: '' } as const;
/** Its chunks, unless given: the plain text chunker's (the run's tree-sitter chunker is busy with the run's files). */
const STORED_AHEAD_CHUNKS = { maxChunkChars: MAX_CHUNK_CHARS, minChunkChars: MIN_CHUNK_CHARS, overlapChars: CHUNK_OVERLAP_CHARS };

/** A walked file and its text as the index stores it ahead of the first index's order, with `chunked`'s chunks or the plain text chunker's. */
export function storedAheadItem(f: WalkedFile, text: string, chunked?: { language: string; chunks: ReadonlyArray<Chunk | StoredChunkInput> | ChunkWire }): WriteItem {
  const language = chunked?.language ?? detectLanguage(f.path, text);
  const chunks = prepareChunks(chunked?.chunks ?? chunkText(f.path, text, language, STORED_AHEAD_CHUNKS), nativeSha256);
  // The run writes the file again (STORED_AHEAD): its text is not deflated, and its trigram keys are
  // made only if a segment is built before then (grep reads a pending file whole meanwhile).
  return { file: { path: f.path, size: f.size, language, ...STORED_AHEAD }, chunks, text, packed: packUtf8(text), grams: null };
}

/** Occurrences of one term counted per file at most (filesHolding): a long file full of one word does not outrank the rest. */
const TERM_COUNT_CAP = 50;
