/**
 * Store: the index database of one codebase — files, chunks (+ FTS5), the embedding cache
 * and meta — behind one async API that runs the same in Node and in a browser worker.
 *
 * Invariants:
 * - A file's record and all its chunks change together: `writeFiles`, `deleteFiles` and
 *   `renameFile` each run in ONE transaction, so an interrupted run never leaves half a file.
 *   A file whose record is missing or stale is simply re-chunked on the next run (resume).
 * - chunks_fts always equals chunks (written with them; see schema.ts), and chunk_names holds
 *   exactly the nameKey of every merged name (symbols) and constant (defines) of every chunk,
 *   written and deleted in the same transaction (integrityCheck reports names of no chunk).
 * - Embeddings are keyed by (content_hash, model) and outlive chunks: unchanged text is never
 *   re-embedded. New vectors are stored int8-quantised with a per-vector scale (dim + 5 or 6
 *   bytes, see vectorToInt8Blob; cosine error ~1e-3); float32 BLOBs (4 × dim bytes) written by
 *   older versions are still read. Readers always get Float32Array.
 */
import type { Chunk, ChunkType, FileRecord, StoredChunk, TextSpan } from '../types.ts';
import { registerPathMatch } from '../text/path-glob.ts';
import { FILE_KIND_FUNCTION, fileKind, registerFileKind } from '../text/file-kind.ts';
import { countRemoved, noRemovedTotals, registerFtsTotals, subtractTotals, type RemovedTotals } from './fts-totals.ts';
import { identifierTokens, nameWords, pathWords } from '../text/identifiers.ts';
import { docText, signatureText } from '../text/decl-text.ts';
import { DATA_LANGUAGES, migrate, SCHEMA_VERSION } from './schema.ts';
import { insertRows, StoreError, type Db, type Queryable, type SqlValue } from './sqlite.ts';
import { META, type MetaKey } from './meta.ts';
import { packText, unpackText } from './text-codec.ts';
import { TrigramIndex } from './trigram-index.ts';
import { chunkArray, type ChunkList } from './chunk-wire.ts';
import { GRAMMARS } from '../chunk/languages.ts';
import { parseSkippedStats, type SkippedStats } from '../walk/skipped.ts';
import type { TrigramQuery } from '../text/trigram-keys.ts';

/**
 * Page size for NEW databases (no effect on an existing one). Measured on the eval kernel set
 * (28.5 MB source, 48k chunks, cold CLI index --no-embed): 4 KB → 16 KB pages made sift.db
 * 99.3 → 92.2 MB (fewer half-empty overflow pages for ~1 KB chunk rows: chunks table
 * 55.2 → 48.1 MB), store time 17.3 → 14.2 s, BM25 p50/p95 within noise (24–27 / 59–86 ms).
 */
export const PAGE_SIZE = 16384;

/** SQLite's page cache per connection, KiB (Store.setPageCache changes it for a bulk job). */
export const PAGE_CACHE_KIB = 16000;

/**
 * auto_vacuum mode for NEW databases. INCREMENTAL lets `optimizeFts` hand back the pages the
 * FTS merge frees (~5% of the file after a cold index) with `PRAGMA incremental_vacuum`,
 * without VACUUM's full copy (which, with temp_store = MEMORY, would hold the whole database
 * in WASM memory). Costs one pointer-map page per ~3,000 pages.
 */
export const AUTO_VACUUM = 'INCREMENTAL';

/** FTS5's own defaults (restored after a bulk load; see Store.setBulkLoad). */
export const FTS_AUTOMERGE = 4;
export const FTS_CRISISMERGE = 16;
/** Segments of one level before FTS5 merges them even in bulk mode (bounds query cost mid-run). */
export const FTS_BULK_CRISISMERGE = 200;

/** SQLite's default limit on bound parameters is 32766; stay far below it. */
export const MAX_PARAMS_PER_STATEMENT = 500;

/** Largest int8 code: vectors are stored as round(x / scale), scale = max|x| / INT8_MAX. */
export const INT8_MAX = 127;

export interface IndexStats {
  files: number;
  chunks: number;
  /** Source bytes of the indexed files (files.size). */
  bytes: number;
  /** `structured`: the language has a grammar (definitions, symbols); false: indexed as plain text windows. */
  languages: Record<string, { files: number; bytes: number; chunks: number; structured: boolean }>;
  /** Files, their bytes and chunks by file kind (text/file-kind.ts: code, test, docs, config, generated, example). */
  kinds: Record<string, { files: number; bytes: number; chunks: number }>;
  chunkTypes: Record<string, number>;
  /** Chunks that have a symbol name. */
  symbols: number;
  /** page_count × page_size (navigator.storage.estimate() is unreliable). */
  dbBytes: number;
  /** Latest files.indexed_at (ISO 8601), null when empty. */
  lastIndexed: string | null;
  /** meta model_key: the embedding model of this index, null when unset. */
  model: string | null;
  /** Chunks with an embedding for `model` (0 when no model). */
  embeddedChunks: number;
  schemaVersion: number;
  /** What the last index run did not index and why (meta skip_stats); null before the first run that recorded it. */
  skipped: SkippedStats | null;
}

/**
 * Parts of an index file (Store.structureBytes): keyword = the FTS5 index (chunks_fts), text =
 * the stored (deflated) file text, trigram = the exact/regex search's posting lists, chunks =
 * chunk rows, names = the definition-name lookup (chunk_names), embeddings = stored vectors,
 * files = file records (each with its b-tree index entries), other = page and cell overhead,
 * unused space in pages, small tables (meta, schema) and free pages.
 */
export const INDEX_STRUCTURES = ['keyword', 'text', 'trigram', 'chunks', 'names', 'embeddings', 'files', 'other'] as const;
export type IndexStructure = (typeof INDEX_STRUCTURES)[number];

export interface IndexStructures {
  /** page_count × page_size. */
  total: number;
  /** Bytes of pages on the free list (part of `other`). */
  freeBytes: number;
  structures: Record<IndexStructure, number>;
}

/**
 * A chunk without a vector: its id and hash, and every field `embeddingText` reads (the
 * chunk's lines as `text`, its signature resolved), so the pass reads each chunk once.
 */
export interface PendingEmbedding {
  id: number;
  contentHash: string;
  text: string;
  language: string;
  path: string;
  symbol: string | null;
  parent: string | null;
  signature: string | null;
  context: string | null;
}

interface ChunkRow {
  id: number;
  path: string;
  start_line: number;
  end_line: number;
  language: string;
  chunk_type: string;
  symbol: string | null;
  parent: string | null;
  signature: string | null;
  doc: string | null;
  content: string;
  content_hash: string;
  context: string | null;
  def_line: number | null;
  symbols: string | null;
  defines: string | null;
  text_start: number | null;
  text_len: number | null;
  sig_span: number | null;
  doc_span: number | null;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Float32Array → little-endian float32 bytes (a copy). The format of schema v1/v2 vectors. */
export function vectorToBlob(v: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
  const out = new Uint8Array(v.length * 4);
  const view = new DataView(out.buffer);
  v.forEach((x, i) => view.setFloat32(i * 4, x, true));
  return out;
}

/**
 * Float32Array → int8 vector blob: float32 LE scale (max|x| / 127), `dim` int8 codes
 * (round(x / scale)), then 1 or 2 trailing bytes whose last byte is their count — chosen so
 * the blob length is never a multiple of 4, which tells it apart from a float32 blob.
 * 384 dims: 389 bytes instead of 1,536.
 */
export function vectorToInt8Blob(v: Float32Array): Uint8Array {
  const dim = v.length;
  const tail = (4 + dim + 1) % 4 === 0 ? 2 : 1;
  const out = new Uint8Array(4 + dim + tail);
  let max = 0;
  for (let i = 0; i < dim; i++) max = Math.max(max, Math.abs(v[i]));
  const scale = Number.isFinite(max) && max > 0 ? max / INT8_MAX : 0;
  new DataView(out.buffer).setFloat32(0, scale, true);
  const stored = new DataView(out.buffer).getFloat32(0, true); // quantise with the scale as stored
  const codes = new Int8Array(out.buffer, 4, dim);
  if (stored > 0) {
    for (let i = 0; i < dim; i++) codes[i] = Math.max(-INT8_MAX, Math.min(INT8_MAX, Math.round(v[i] / stored)));
  }
  out[out.length - 1] = tail;
  return out;
}

/** Stored vector blob (int8, or float32 from schema v1/v2) → Float32Array (a copy, aligned). */
export function blobToVector(b: Uint8Array): Float32Array {
  const out = new Float32Array(blobDim(b));
  decodeVectorInto(b, out, 0);
  return out;
}

/** Dimensions of a stored vector blob (int8 with its scale and tail byte, or float32). */
export function blobDim(b: Uint8Array): number {
  if (b.byteLength % 4 === 0) return b.byteLength / 4;
  const tail = b.byteLength ? b[b.byteLength - 1] : 0;
  const dim = b.byteLength - 4 - tail;
  if ((tail !== 1 && tail !== 2) || dim < 0) throw new Error(`vector blob of ${b.byteLength} bytes is neither float32 nor int8`);
  return dim;
}

const SCALE_F32 = new Float32Array(1);
const SCALE_BYTES = new Uint8Array(SCALE_F32.buffer);

/** Decode a stored vector blob into out[at .. at + dim); returns dim. */
export function decodeVectorInto(b: Uint8Array, out: Float32Array, at: number): number {
  const dim = blobDim(b);
  if (b.byteLength % 4 !== 0) {
    // No view objects per blob (the vector cache decodes every stored vector: 267k on the kernel).
    SCALE_BYTES[0] = b[0];
    SCALE_BYTES[1] = b[1];
    SCALE_BYTES[2] = b[2];
    SCALE_BYTES[3] = b[3];
    const scale = LITTLE_ENDIAN ? SCALE_F32[0] : new DataView(SCALE_BYTES.buffer).getFloat32(0, true);
    for (let i = 0; i < dim; i++) out[at + i] = ((b[4 + i] << 24) >> 24) * scale;
  } else if (LITTLE_ENDIAN) {
    out.set(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)), at);
  } else {
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    for (let i = 0; i < dim; i++) out[at + i] = view.getFloat32(i * 4, true);
  }
  return dim;
}

/** The SQL function Store.loadVectors reads vectors through (registered on every Store's connection). */
const VECTOR_SINK_FUNCTION = 'sift_vector_sink';

/** Rows of (chunk id, vector blob) decoded into growing typed arrays, in the order given. */
class VectorSink {
  #ids: Int32Array;
  #vectors = new Float32Array(0);
  #dim = 0;
  #n = 0;
  #error: Error | null = null;

  /** `capacity`: rows expected (more grow the arrays). */
  constructor(capacity: number) {
    this.#ids = new Int32Array(Math.max(1, capacity));
  }

  push(id: number, blob: Uint8Array): void {
    if (this.#error) return;
    try {
      const dim = blobDim(blob);
      if (this.#n === 0) {
        this.#dim = dim;
        this.#vectors = new Float32Array(this.#ids.length * dim);
      } else if (dim !== this.#dim) {
        throw new Error(`embedding of chunk ${id} has ${dim} dims, expected ${this.#dim}`);
      }
      if (this.#n === this.#ids.length) {
        // (More rows than counted: written between the count and the read.)
        const ids = new Int32Array(this.#ids.length * 2);
        ids.set(this.#ids);
        this.#ids = ids;
        const vectors = new Float32Array(ids.length * dim);
        vectors.set(this.#vectors);
        this.#vectors = vectors;
      }
      this.#ids[this.#n] = id;
      decodeVectorInto(blob, this.#vectors, this.#n * dim);
      this.#n++;
    } catch (e) {
      this.#error = e instanceof Error ? e : new Error(String(e));
    }
  }

  result(): { ids: Int32Array; vectors: Float32Array; dim: number } {
    if (this.#error) throw this.#error;
    const n = this.#n;
    const dim = n ? this.#dim : 0;
    if (n === this.#ids.length) return { ids: this.#ids, vectors: this.#vectors, dim };
    // Views, not copies (the vectors of a big index are hundreds of MB).
    return { ids: this.#ids.subarray(0, n), vectors: this.#vectors.subarray(0, n * dim), dim };
  }
}

function chunked<T>(xs: readonly T[], size = MAX_PARAMS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

const CHUNK_COLUMNS = 'id, path, start_line, end_line, language, chunk_type, symbol, parent, signature, doc, content, content_hash, context, def_line, symbols, defines, text_start, text_len, sig_span, doc_span';
const INSERT_CHUNK = `INSERT INTO chunks (id, path, start_line, end_line, language, chunk_type, symbol, parent, signature, doc,
  content, content_hash, context, def_line, symbols, defines, text_start, text_len, sig_span, doc_span, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/** chunks_fts is contentless (schema 5): Store writes each row's FTS columns itself. */
const INSERT_FTS = 'INSERT INTO chunks_fts (rowid, names, path_words, sig_doc, content, tokens) VALUES (?, ?, ?, ?, ?, ?)';
/** chunk_names (schema 7): a chunk's names besides its symbol (merged siblings, defined constants), by nameKey. */
const INSERT_NAME = 'INSERT OR IGNORE INTO chunk_names (key, chunk_id) VALUES (?, ?)';
/** Rows per multi-row INSERT (under MAX_PARAMS_PER_STATEMENT parameters): 21, 6 and 2 parameters a row. */
const CHUNK_ROWS_PER_INSERT = 23;
const FTS_ROWS_PER_INSERT = 64;
const NAME_ROWS_PER_INSERT = 200;
/** Rows per multi-row INSERT into embeddings (3 parameters a row). */
const EMBEDDING_ROWS_PER_INSERT = 128;
/** The FTS rows of a file's chunks: its chunk range, rows re-checked for the path (see chunkRange). */
const CHUNK_IDS_OF_RANGE = 'SELECT id FROM chunks WHERE id BETWEEN ? AND ? AND path = ?';
const DELETE_FTS_OF_RANGE = `DELETE FROM chunks_fts WHERE rowid IN (${CHUNK_IDS_OF_RANGE})`;

/**
 * Delete the FTS rows of a file's chunk range (`params`: lo, hi, path), counting their sizes into
 * `removed` first: FTS5 leaves its totals as they were (fts-totals.ts), the caller takes them off.
 */
async function deleteFtsOfRange(tx: Queryable, params: SqlValue[], removed: RemovedTotals): Promise<void> {
  await countRemoved(tx, CHUNK_IDS_OF_RANGE, params, removed);
  await tx.run(DELETE_FTS_OF_RANGE, params);
}

/**
 * chunk_names' key of a name: ASCII A-Z folded to a-z, nothing else — what COLLATE NOCASE
 * compares and SQLite's lower() (migration 7) makes.
 */
export function nameKey(name: string): string {
  return name.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** The chunk_names rows of one chunk: the keys of its merged names and defined constants. */
function nameKeys(names: readonly string[] | null | undefined, defines: readonly string[] | null | undefined): Set<string> {
  const keys = new Set<string>();
  if (names) for (const n of names) keys.add(nameKey(n));
  if (defines) for (const n of defines) keys.add(nameKey(n));
  return keys;
}

/** A file's chunk ids: its chunks are the rows lo..hi (schema 8; written together, so consecutive). */
interface ChunkRange {
  lo: number;
  hi: number;
}

/** The chunk ids of `path` (files.chunk_lo/chunk_hi), or null when it has no chunks. */
async function chunkRange(tx: Queryable, path: string): Promise<ChunkRange | null> {
  const r = await tx.get<{ lo: number | null; hi: number | null }>('SELECT chunk_lo AS lo, chunk_hi AS hi FROM files WHERE path = ?', [path]);
  return r && r.lo !== null && r.hi !== null ? { lo: r.lo, hi: r.hi } : null;
}

/**
 * Delete `path`'s chunks with their FTS and chunk_names rows, found by the file's chunk range
 * (no index on chunks.path). Rows in the range are also checked for the path.
 */
async function deleteChunksOf(tx: Queryable, path: string, removed: RemovedTotals): Promise<void> {
  const range = await chunkRange(tx, path);
  if (!range) return;
  const params = [range.lo, range.hi, path];
  await deleteFtsOfRange(tx, params, removed);
  const rows = await tx.all<{ id: number; symbols: string | null; defines: string | null }>(
    'SELECT id, symbols, defines FROM chunks WHERE id BETWEEN ? AND ? AND path = ? AND (symbols IS NOT NULL OR defines IS NOT NULL)', params);
  for (const r of rows) {
    for (const key of nameKeys(r.symbols?.split(' '), r.defines?.split(' '))) {
      await tx.run('DELETE FROM chunk_names WHERE key = ? AND chunk_id = ?', [key, r.id]);
    }
  }
  await tx.run('DELETE FROM chunks WHERE id BETWEEN ? AND ? AND path = ?', params);
}

/**
 * Where `content` starts in the file's text (UTF-16 code units), or -1. Chunk content is the
 * file's lines start_line..end_line, so it starts where its first line does.
 */
function contentOffset(text: string, lineStarts: number[], c: { startLine: number; content: string }): number {
  const at = lineStarts[c.startLine - 1];
  return at !== undefined && text.startsWith(c.content, at) ? at : -1;
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** A signature's / doc's span longer than this is kept as text (the length has 16 bits). */
const SPAN_LEN_LIMIT = 0x10000;

/**
 * chunks.sig_span / doc_span (schema 8) of a chunk whose content starts at `base` in `text`:
 * `span` encoded as (start - base) * 65536 + length when `make` of that slice of the text
 * gives `value` back exactly; else null, and the row keeps `value` as text.
 */
function encodeSpan(text: string, base: number, span: TextSpan | null | undefined, value: string | null, make: (raw: string) => string | null): number | null {
  if (!span || value === null) return null;
  const [start, end] = span;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > text.length || end - start >= SPAN_LEN_LIMIT) return null;
  return make(text.slice(start, end)) === value ? (start - base) * SPAN_LEN_LIMIT + (end - start) : null;
}

/** The text a chunk row's span (encodeSpan) refers to, in its file's `text`; the row's content starts at `base`. */
function spanText(text: string, base: number, encoded: number): string {
  const len = ((encoded % SPAN_LEN_LIMIT) + SPAN_LEN_LIMIT) % SPAN_LEN_LIMIT;
  const start = base + (encoded - len) / SPAN_LEN_LIMIT;
  return text.slice(start, start + len);
}

/** The FTS columns of one chunk, as schema 1's generated/JS-computed chunk columns defined them. */
function ftsRow(id: number, pathText: string, c: { symbol: string | null; parent: string | null; signature: string | null; doc: string | null; content: string; names?: string[] | null; ftsTokens?: string }): SqlValue[] {
  return [
    id,
    nameWords(c.names?.length ? c.names.join(' ') : c.symbol, c.parent),
    pathText,
    `${c.signature ?? ''} ${c.doc ?? ''}`,
    c.content,
    // Precomputed by the indexer (off this thread) when given; must equal identifierTokens(content).
    typeof c.ftsTokens === 'string' ? c.ftsTokens : identifierTokens(c.content),
  ];
}

/** Stored texts of `paths` by path (absent: no text), those in `cache` from it, the others read and kept there. */
async function cachedTexts(db: Queryable, paths: readonly string[], cache?: TextLru): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const p of paths) {
    const t = cache?.get(p);
    if (t !== undefined) texts.set(p, t);
  }
  const missing = texts.size ? paths.filter((p) => !texts.has(p)) : paths;
  if (missing.length) {
    for (const [p, t] of await readTexts(db, 'path', missing)) {
      texts.set(p, t);
      cache?.set(p, t);
    }
  }
  return texts;
}

/**
 * Fill in `content` of chunk rows that refer into file_text (text_start set), reading each
 * file's text once, and their `signature` / `doc` kept as spans (schema 8) when the rows
 * carry those columns. Rows stored inline keep theirs. Works on any connection (the BM25 leg
 * reads candidates' content through it).
 */
export async function resolveChunkContent<T extends {
  path: string; content: string; text_start: number | null; text_len: number | null;
  signature?: string | null; doc?: string | null; sig_span?: number | null; doc_span?: number | null;
}>(db: Queryable, rows: T[], cache?: TextLru): Promise<T[]> {
  const paths = [...new Set(rows.filter((r) => r.text_start !== null).map((r) => r.path))];
  if (!paths.length) return rows;
  const texts = await cachedTexts(db, paths, cache);
  for (const r of rows) {
    if (r.text_start === null) continue;
    const text = texts.get(r.path);
    r.content = text === undefined ? '' : text.slice(r.text_start, r.text_start + (r.text_len ?? 0));
    if (text === undefined) continue;
    if (typeof r.sig_span === 'number') r.signature = signatureText(spanText(text, r.text_start, r.sig_span));
    if (typeof r.doc_span === 'number') r.doc = docText(spanText(text, r.text_start, r.doc_span));
  }
  return rows;
}
/**
 * The FTS columns (rowid, names, path_words, sig_doc, content, tokens) of up to `limit` stored
 * chunks after id `afterId`, remade from the rows as Store writes them (ftsRow): the contentless
 * chunks_fts cannot be read back. For a native FTS5 copy of an index (bench/query-latency.ts).
 */
export async function storedFtsRows(db: Queryable, afterId: number, limit: number): Promise<SqlValue[][]> {
  const rows = await resolveChunkContent(db, await db.all<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id > ? ORDER BY id LIMIT ?`, [afterId, limit]));
  return rows.map((r) => ftsRow(r.id, pathWords(r.path), { ...r, names: r.symbols ? r.symbols.split(' ') : null }));
}

/** Chunk rows read through one connection or transaction handle (Store.read hands one to a search). */
export interface ChunkReader {
  readonly db: Queryable;
  /**
   * Within one Store, the same number as long as the database is unchanged (Store.read): what
   * a reader's caller may key caches on. Absent: nothing may be kept between reads.
   */
  readonly generation?: number;
  /** As Store.getChunks. */
  getChunks(ids: number[], o?: { content?: boolean }): Promise<StoredChunk[]>;
  chunkCount(): Promise<number>;
  /** Stored texts of `paths`, by path (as readFileTexts), through the reader's cache of inflated texts when it has one. */
  fileTexts?(paths: readonly string[]): Promise<Map<string, string>>;
}

/** A file's size as recorded: its bytes and its pieces (chunks). */
export interface FileSize {
  bytes: number;
  pieces: number;
}

/**
 * Each of `paths`' size as recorded: bytes and pieces (files.chunk_lo..chunk_hi, one run of ids
 * since schema 8; 0 pieces when the file has none). Paths not in the index are left out.
 */
export async function readFileSizes(db: Queryable, paths: readonly string[]): Promise<Record<string, FileSize>> {
  const out: Record<string, FileSize> = {};
  for (const part of chunked([...new Set(paths)])) {
    // A pack over HTTP: the files' index leaves, then their rows, in two rounds.
    await db.prefetchTerms?.([], part.map((p) => ({ index: 'sqlite_autoindex_files_1', key: [p], table: 'files' })));
    const rows = await db.all<{ path: string; size: number; lo: number | null; hi: number | null }>(
      `SELECT path, size, chunk_lo AS lo, chunk_hi AS hi FROM files WHERE path IN (${marks(part.length)})`, part);
    for (const r of rows) out[r.path] = { bytes: r.size, pieces: r.lo === null || r.hi === null ? 0 : r.hi - r.lo + 1 };
  }
  return out;
}

/**
 * Store.getChunks on any connection or transaction handle (the keyword leg reads its candidates'
 * rows through it); `texts`: file texts known to be current (filled as read).
 */
export async function readChunks(db: Queryable, ids: readonly number[], o: { content?: boolean } = {}, texts?: TextLru): Promise<StoredChunk[]> {
  const byId = new Map<number, StoredChunk>();
  for (const part of chunked([...new Set(ids)])) {
    await db.prefetchRows?.('chunks', part); // a pack over HTTP: the rows' pages at once
    const rows = await db.all<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id IN (${marks(part.length)})`, part);
    if (o.content === false) for (const r of rows) r.content = '';
    for (const r of o.content === false ? rows : await resolveChunkContent(db, rows, texts)) byId.set(r.id, toStoredChunk(r));
  }
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * What tells whether a database changed since it was last read: a change made on this
 * connection moves total_changes(), one committed by another (a second tab, a CLI process)
 * moves data_version. Both are read without I/O.
 */
async function dbState(db: Queryable): Promise<string> {
  const s = await db.get<{ changes: number; version: number }>('SELECT total_changes() AS changes, (SELECT data_version FROM pragma_data_version) AS version');
  return `${s?.changes} ${s?.version}`;
}

/** Characters of file text Store.read keeps inflated between searches (UTF-16 units: ~2 bytes each). */
export const READ_TEXT_CACHE_CHARS = 4_000_000;

/** File texts by path, least recently used dropped past `maxChars` characters. */
class TextLru {
  readonly #map = new Map<string, string>();
  #chars = 0;
  constructor(private readonly maxChars: number) {}

  get(path: string): string | undefined {
    const t = this.#map.get(path);
    if (t !== undefined) {
      this.#map.delete(path);
      this.#map.set(path, t);
    }
    return t;
  }

  set(path: string, text: string): void {
    if (text.length > this.maxChars) return;
    const old = this.#map.get(path);
    if (old !== undefined) {
      this.#chars -= old.length;
      this.#map.delete(path);
    }
    this.#map.set(path, text);
    this.#chars += text.length;
    for (const [p, t] of this.#map) {
      if (this.#chars <= this.maxChars) break;
      this.#map.delete(p);
      this.#chars -= t.length;
    }
  }

  clear(): void {
    this.#map.clear();
    this.#chars = 0;
  }
}

const UPSERT_FILE = `INSERT INTO files (path, hash, size, mtime, language, indexed_at, chunk_lo, chunk_hi) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mtime = excluded.mtime,
  language = excluded.language, indexed_at = excluded.indexed_at, chunk_lo = excluded.chunk_lo, chunk_hi = excluded.chunk_hi`;

function toStoredChunk(r: ChunkRow): StoredChunk {
  return {
    id: r.id,
    path: r.path,
    startLine: r.start_line,
    endLine: r.end_line,
    language: r.language,
    chunkType: r.chunk_type as ChunkType,
    symbol: r.symbol,
    parent: r.parent,
    signature: r.signature,
    doc: r.doc,
    content: r.content,
    contentHash: r.content_hash,
    context: r.context,
    // The carried context is the definition's signature rows: it starts at def_line.
    contextLine: r.context !== null ? r.def_line : null,
    defLine: r.def_line,
    names: r.symbols ? r.symbols.split(' ') : null,
    defines: r.defines ? r.defines.split(' ') : null,
  };
}

/** One file for Store.writeFiles: its record, all its chunks, and its text. */
export interface WriteItem {
  file: FileRecord;
  /**
   * `ftsTokens`, when a chunk carries it, is the FTS tokens column (else computed here). Either
   * the objects or their flat form (chunk-wire.ts: what a browser worker posts).
   */
  chunks: ChunkList<Chunk & { contentHash: string; ftsTokens?: string }>;
  /** The decoded text the chunks were cut from (chunk rows refer into it). */
  text?: string;
  /** `text` packed for file_text.data (store/text-codec.ts packText), made off this thread; packed here when absent. */
  packed?: Uint8Array;
  /**
   * `text`'s distinct trigram keys (text/trigram-keys.ts), made off this thread; computed here when
   * absent; null: made from the stored text when the trigram segment is built (the file is pending
   * until then, and grep reads it whole: trigram-index.ts).
   */
  grams?: Uint32Array | null;
}

/** A file grep searches (see Store.grepFiles); `id` is its file_text id. */
export interface GrepFile {
  id: number;
  path: string;
  language: string;
  /** files.hash of the text's content ('' when unknown): a cache key that changes with the text. */
  hash: string;
}

/** Stored texts of `paths` (file_text), by path; paths without text are absent (Store.getFileTexts, for a reader's connection). */
export function readFileTexts(db: Queryable, paths: readonly string[]): Promise<Map<string, string>> {
  return readTexts(db, 'path', paths);
}

/** Stored texts by path or by file_text id (file_text.data unpacked); keys without text are absent. */
async function readTexts<K extends string | number>(db: Queryable, by: 'path' | 'id', keys: readonly K[]): Promise<Map<K, string>> {
  const out = new Map<K, string>();
  for (const part of chunked([...new Set(keys)])) {
    if (db.prefetchRows) {
      // A pack over HTTP: the rows' pages at once (their ids come from the path index alone).
      const ids = by === 'id' ? (part as readonly number[]) : (await db.all<{ id: number }>(`SELECT id FROM file_text WHERE path IN (${marks(part.length)})`, part)).map((r) => r.id);
      await db.prefetchRows('file_text', ids);
    }
    const rows = await db.all<{ k: K; data: Uint8Array }>(`SELECT ${by} AS k, data FROM file_text WHERE ${by} IN (${marks(part.length)})`, part);
    for (const r of rows) out.set(r.k, await unpackText(r.data));
  }
  return out;
}

/** Store a file's text (packed: file_text.data as text-codec.ts makes it). Returns its file_text id. */
async function putFileText(tx: Queryable, path: string, packed: Uint8Array): Promise<number> {
  const row = await tx.get<{ id: number }>('INSERT INTO file_text (path, data) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET data = excluded.data RETURNING id', [path, packed]);
  if (!row) throw new Error(`file_text: no id for ${path}`);
  return row.id;
}

async function moveFileText(tx: Queryable, from: string, to: string): Promise<void> {
  await tx.run('DELETE FROM file_text WHERE path = ?', [to]);
  await tx.run('UPDATE file_text SET path = ? WHERE path = ?', [to, from]);
}

const SET_META = 'INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value';

/** Write `file`'s record with the ids of its chunks (null: it has none). */
async function upsertFile(tx: Queryable, file: FileRecord, now: string, chunks: ChunkRange | null): Promise<void> {
  await tx.run(UPSERT_FILE, [file.path, file.hash, file.size, file.mtime, file.language, now, chunks?.lo ?? null, chunks?.hi ?? null]);
}

/** A scratch file's durability (Store.open `scratch`, Store.setUnjournaled): the rollback journal in memory, no sync. */
const UNJOURNALED = 'PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;';

export class Store {
  /** This connection's side of the trigram index (keys waiting for a flush; trigram-index.ts). */
  private readonly trigrams = new TrigramIndex();

  /** Where loadVectors' SQL function puts rows while its one statement runs; null otherwise. */
  #vectorSink: VectorSink | null = null;

  private constructor(readonly db: Db) {
    db.createFunction(VECTOR_SINK_FUNCTION, 2, (id, blob) => {
      this.#vectorSink?.push(Number(id), blob as Uint8Array);
      return null;
    });
  }

  /**
   * Wrap an open Db: apply pragmas and migrations. `scratch`: a file being built whole that no
   * other connection opens and that is thrown away unless complete (a rebuild's or a new index's,
   * renamed into place after one fsync): its commits need neither fsync, a journal on disk, nor
   * lock files (locking_mode EXCLUSIVE keeps the one lock; the journal lives in memory, so a
   * failed statement still rolls back).
   */
  static async open(db: Db, o: { scratch?: boolean } = {}): Promise<Store> {
    // page_size/auto_vacuum only for a new file: on an existing one `PRAGMA auto_vacuum = …` starts a
    // write (a reader then needs the write lock, and fails on a full disk).
    const fresh = ((await db.get<{ page_count: number }>('PRAGMA page_count'))?.page_count ?? 0) === 0;
    // Durability first: on a new file `PRAGMA auto_vacuum` commits the file's first page, which for
    // a scratch file must not make a journal on disk and three fsyncs (~10-25 ms of a small index).
    const durability = o.scratch ? `PRAGMA locking_mode = EXCLUSIVE; ${UNJOURNALED}` : 'PRAGMA synchronous = NORMAL;';
    await db.exec(`${durability} ${fresh ? `PRAGMA page_size = ${PAGE_SIZE}; PRAGMA auto_vacuum = ${AUTO_VACUUM}; ` : ''}PRAGMA foreign_keys = OFF; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -${PAGE_CACHE_KIB};`);
    registerFileKind(db); // migration 11 fills the kind column with it
    registerFtsTotals(db); // migration 18 recounts FTS5's totals with it
    await migrate(db);
    registerPathMatch(db);
    return new Store(db);
  }

  /**
   * Wrap a connection opened read-only on a published pack (store/pack.ts): no pragma that
   * writes, no migration. The pack must be at this code's schema version; `chunks` (from the
   * manifest) answers chunkCount without counting (count(*) reads an index of every row: over
   * HTTP, megabytes).
   */
  static async openReadOnly(db: Db, known: { chunks?: number } = {}): Promise<Store> {
    const version = (await db.get<{ user_version: number }>('PRAGMA user_version'))?.user_version ?? 0;
    if (version !== SCHEMA_VERSION) {
      throw new StoreError(`index schema version ${version} is not this Sift's (${SCHEMA_VERSION}): publish the index again with this version`, 1);
    }
    await db.exec(`PRAGMA query_only = 1; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -${PAGE_CACHE_KIB};`);
    registerFileKind(db);
    registerPathMatch(db);
    const store = new Store(db);
    if (known.chunks !== undefined) store.fixedChunkCount = known.chunks;
    return store;
  }

  /** A read-only pack's chunk count, known without counting. */
  private fixedChunkCount: number | null = null;

  // ---- meta --------------------------------------------------------------------------

  async getMeta(key: MetaKey): Promise<string | null> {
    return (await this.db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]))?.value ?? null;
  }

  async setMeta(key: MetaKey, value: string): Promise<void> {
    await this.db.run(SET_META, [key, value]);
  }

  /**
   * This connection's page cache, KiB (default PAGE_CACHE_KIB). A bulk embedding pass looks up
   * and inserts rows of the embeddings table at random hashes: with the table (~96 MB for the
   * kernel subset's 267k vectors) beyond the cache, nearly every lookup and insert read a page
   * back from the file. SQLite allocates cache pages only as it fills them.
   */
  async setPageCache(kib: number): Promise<void> {
    await this.db.exec(`PRAGMA cache_size = -${Math.max(1, Math.round(kib))}`);
  }

  /**
   * `on`: commits keep their rollback journal in memory and never sync, as a scratch file's
   * (Store.open): a bulk load then writes each page once per commit instead of once to the
   * journal and once to the file, and waits on no flush. A crash of this process in the middle
   * may leave the file damaged, so the caller uses it only where the file can be thrown away
   * after such a crash (workers/store: a first index, marked on disk while it runs). A failed
   * statement still rolls back (the journal is in memory). `off`: journaled and synced again,
   * and one synced commit makes everything written meanwhile durable.
   */
  async setUnjournaled(on: boolean): Promise<void> {
    if (on) {
      await this.db.exec(UNJOURNALED);
      return;
    }
    await this.db.exec('PRAGMA journal_mode = DELETE; PRAGMA synchronous = NORMAL;');
    // A commit that writes a page syncs the file: every earlier unsynced write with it.
    await this.db.run('UPDATE meta SET value = value');
  }

  /** Several meta values, in order, in ONE transaction (one commit: the indexer's closing state). */
  async setMetas(entries: ReadonlyArray<readonly [MetaKey, string]>): Promise<void> {
    if (!entries.length) return;
    await this.db.transaction(async (tx) => {
      for (const [key, value] of entries) await tx.run(SET_META, [key, value]);
    });
  }

  // ---- files and chunks --------------------------------------------------------------

  async getFiles(): Promise<Map<string, FileRecord>> {
    const rows = await this.db.all<FileRecord>('SELECT path, hash, size, mtime, language FROM files');
    return new Map(rows.map((r) => [r.path, { path: r.path, hash: r.hash, size: r.size, mtime: r.mtime, language: r.language }]));
  }

  /** Whether any file is indexed (a first index has none until its first batch). */
  async hasFiles(): Promise<boolean> {
    return !!(await this.db.get<{ x: number }>('SELECT EXISTS (SELECT 1 FROM files) AS x'))?.x;
  }

  /** One file's record, or null when the path is not indexed. */
  async getFile(path: string): Promise<FileRecord | null> {
    return (await this.db.get<FileRecord>('SELECT path, hash, size, mtime, language FROM files WHERE path = ?', [path])) ?? null;
  }

  /**
   * Replace each file's chunks and record, all in ONE transaction (callers batch ~1,000 chunk
   * rows per call). If anything fails, nothing of the batch is stored. `ftsTokens`, when a
   * chunk carries it, is used as the FTS tokens column instead of computing it here.
   */
  async writeFiles(items: WriteItem[]): Promise<void> {
    if (!items.length) return;
    const now = new Date().toISOString();
    // Pack before the transaction (an await on a codec must not hold the write lock); callers
    // normally send `packed` already, made where the file was chunked.
    const packed = await Promise.all(items.map((it) => (it.packed ?? (typeof it.text === 'string' ? packText(it.text) : null))));
    const removed = noRemovedTotals();
    try {
      await this.db.transaction(async (tx) => {
        // Ids are assigned here (AUTOINCREMENT's counter, never reused) so the FTS row can name its chunk.
        let nextId = ((await tx.get<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'chunks'"))?.seq ?? 0) + 1;
        // Rows are inserted after the batch's deletes, many per statement (insertRows); a path
        // named twice first gets its earlier rows in, so the later item replaces them as before.
        let chunkRows: SqlValue[][] = [];
        let ftsRows: SqlValue[][] = [];
        let nameRows: SqlValue[][] = [];
        const insertPending = async () => {
          await insertRows(tx, INSERT_CHUNK, CHUNK_ROWS_PER_INSERT, chunkRows);
          await insertRows(tx, INSERT_FTS, FTS_ROWS_PER_INSERT, ftsRows);
          await insertRows(tx, INSERT_NAME, NAME_ROWS_PER_INSERT, nameRows);
          chunkRows = [];
          ftsRows = [];
          nameRows = [];
        };
        const seen = new Set<string>();
        for (const [i, { file, chunks: list, text }] of items.entries()) {
          const chunks = chunkArray(list);
          if (seen.has(file.path)) await insertPending();
          seen.add(file.path);
          await deleteChunksOf(tx, file.path, removed);
          const pathText = pathWords(file.path);
          const kind = fileKind(file.path, file.language);
          const firstId = nextId;
          const lineStarts = typeof text === 'string' ? lineStartsOf(text) : null;
          for (const c of chunks) {
            if (c.path !== file.path) throw new Error(`chunk path ${c.path} does not belong to file ${file.path}`);
            const id = nextId++;
            // Text stored once: the row refers into file_text when its content is found there.
            const at = lineStarts ? contentOffset(text!, lineStarts, c) : -1;
            // Signature and doc too, when the chunker says where they were read from (schema 8).
            const sigSpan = at >= 0 ? encodeSpan(text!, at, c.signatureSpan, c.signature, signatureText) : null;
            const docSpan = at >= 0 ? encodeSpan(text!, at, c.docSpan, c.doc, docText) : null;
            chunkRows.push([
              id, c.path, c.startLine, c.endLine, c.language, c.chunkType, c.symbol, c.parent, sigSpan === null ? c.signature : null, docSpan === null ? c.doc : null,
              at >= 0 ? '' : c.content, c.contentHash, c.context ?? null, c.defLine ?? null, c.names?.length ? c.names.join(' ') : null,
              c.defines?.length ? c.defines.join(' ') : null, at >= 0 ? at : null, at >= 0 ? c.content.length : null, sigSpan, docSpan,
              kind,
            ]);
            ftsRows.push(ftsRow(id, pathText, c));
            if (c.names || c.defines) for (const key of nameKeys(c.names, c.defines)) nameRows.push([key, id]);
          }
          const data = packed[i];
          const grams = items[i]!.grams;
          if (data) await this.trigrams.stage(tx, await putFileText(tx, file.path, data), grams !== undefined ? grams : (text ?? null));
          // A file's chunks take consecutive ids: the record keeps the range (no index on chunks.path).
          await upsertFile(tx, file, now, nextId > firstId ? { lo: firstId, hi: nextId - 1 } : null);
        }
        await insertPending();
      });
    } catch (e) {
      this.trigrams.rolledBack();
      throw e;
    }
    this.trigrams.committed();
    await this.settleTotals(removed);
    if (this.trigrams.flushDue) await this.flushTrigrams();
  }

  /**
   * Take the deleted FTS rows off FTS5's totals (fts-totals.ts), in a transaction of its own: the
   * one that deleted them has committed, and with it FTS5's own copy of the totals.
   */
  private async settleTotals(removed: RemovedTotals): Promise<void> {
    if (removed[0]) await this.db.transaction((tx) => subtractTotals(tx, removed));
  }

  async deleteFiles(paths: string[]): Promise<void> {
    if (!paths.length) return;
    const removed = noRemovedTotals();
    await this.db.transaction(async (tx) => {
      for (const p of paths) {
        await deleteChunksOf(tx, p, removed);
        await tx.run('DELETE FROM files WHERE path = ?', [p]);
        await tx.run('DELETE FROM trigram_pending WHERE id IN (SELECT id FROM file_text WHERE path = ?)', [p]);
        await tx.run('DELETE FROM file_text WHERE path = ?', [p]);
      }
    });
    await this.settleTotals(removed);
  }

  /**
   * A file moved with unchanged content: move its rows, no re-chunk. The FTS rows are
   * re-written (path_words changed; a contentless table has no UPDATE of one column) from
   * the stored chunks and text.
   */
  async renameFile(from: string, to: FileRecord): Promise<void> {
    if (from === to.path) {
      // The chunks stay as they are, and so does the record's range of them.
      await this.db.transaction(async (tx) => upsertFile(tx, to, new Date().toISOString(), await chunkRange(tx, to.path)));
      return;
    }
    const removed = noRemovedTotals();
    await this.db.transaction(async (tx) => {
      await deleteChunksOf(tx, to.path, removed);
      const range = await chunkRange(tx, from);
      if (range) {
        const params = [range.lo, range.hi, from];
        const moved = await resolveChunkContent(tx, await tx.all<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id BETWEEN ? AND ? AND path = ?`, params));
        await deleteFtsOfRange(tx, params, removed);
        await tx.run('UPDATE chunks SET path = ?, kind = ? WHERE id BETWEEN ? AND ? AND path = ?', [to.path, fileKind(to.path, to.language), ...params]);
        const pathText = pathWords(to.path);
        for (const r of moved) {
          await tx.run(INSERT_FTS, ftsRow(r.id, pathText, { ...r, names: r.symbols ? r.symbols.split(' ') : null }));
        }
      }
      await tx.run('DELETE FROM files WHERE path = ?', [from]);
      await moveFileText(tx, from, to.path);
      await upsertFile(tx, to, new Date().toISOString(), range);
    });
    await this.settleTotals(removed);
  }

  /**
   * Chunks by id, in the order given; unknown ids are skipped. `{ content: false }` leaves every
   * row's `content` '' and reads no file text (metadata for ranking and grouping): `signature`
   * and `doc` are then null where the row keeps them as spans (schema 8).
   */
  getChunks(ids: number[], o: { content?: boolean } = {}): Promise<StoredChunk[]> {
    return readChunks(this.db, ids, o);
  }

  /**
   * `fn` with a reader whose statements all run in ONE read transaction (Db.read): one lock
   * and one change-counter check for a whole search instead of one per statement. The reader's
   * `db` is the transaction's handle; the Store's own methods must not be called inside `fn`.
   */
  read<T>(fn: (reader: ChunkReader) => Promise<T>): Promise<T> {
    return this.db.read(async (tx) => {
      // Inside the transaction: no other connection commits until it ends (rollback journal).
      const state = await dbState(tx);
      if (state !== this.readState) {
        this.readState = state;
        this.readGeneration++;
        this.texts.clear();
      }
      return fn({ db: tx, generation: this.readGeneration, getChunks: (ids, o) => readChunks(tx, ids, o, this.texts), chunkCount: () => this.chunkCountOn(tx), fileTexts: (paths) => cachedTexts(tx, [...new Set(paths)], this.texts) });
    });
  }

  /** The database state (dbState) Store.read last saw, and how many different ones it has seen. */
  private readState: string | null = null;
  private readGeneration = 0;
  /** File texts Store.read's readers inflated, kept while the database is unchanged (read checks). */
  private readonly texts = new TextLru(READ_TEXT_CACHE_CHARS);

  /** All chunks of one file, in line order. */
  async getFileChunks(path: string): Promise<StoredChunk[]> {
    const range = await chunkRange(this.db, path);
    if (!range) return [];
    const rows = await this.db.all<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id BETWEEN ? AND ? AND path = ? ORDER BY start_line, id`, [range.lo, range.hi, path]);
    return (await resolveChunkContent(this.db, rows)).map(toStoredChunk);
  }

  /** chunkCount's last answer, and the state of the database it was counted in. */
  private counted: { state: string; n: number } | null = null;

  /**
   * The number of chunks. count(*) reads an index of every row (6.4 MB on the kernel subset,
   * and as much of the page cache), so it runs once per change of the database (dbState).
   */
  chunkCount(): Promise<number> {
    return this.chunkCountOn(this.db);
  }

  private async chunkCountOn(db: Queryable): Promise<number> {
    if (this.fixedChunkCount !== null) return this.fixedChunkCount;
    const state = await dbState(db);
    const c = this.counted;
    if (c && c.state === state) return c.n;
    const n = (await db.get<{ n: number }>('SELECT count(*) AS n FROM chunks'))?.n ?? 0;
    this.counted = { state, n };
    return n;
  }

  // ---- file text (exact/regex search, issue 11) ---------------------------------------
  // Each indexed file's text, once (file_text), and its trigram index (trigram-index.ts). Written
  // by writeFiles with the chunks, moved by renameFile, deleted by deleteFiles.

  /** The stored text of one file (exactly what the chunker saw), or null. */
  async getFileText(path: string): Promise<string | null> {
    return (await readTexts(this.db, 'path', [path])).get(path) ?? null;
  }

  /** Stored texts of several files; paths without text are absent from the map. */
  async getFileTexts(paths: string[]): Promise<Map<string, string>> {
    return readTexts(this.db, 'path', paths);
  }

  /**
   * The files grep searches, in path order (SQLite BINARY collation): every file with stored
   * text, or with `query` (search/trigram.ts) only those the trigram index may find it in — the
   * postings' answer plus every pending file (trigram-index.ts): a superset of the files that
   * match, callers re-check every one.
   */
  async grepFiles(query: TrigramQuery | null): Promise<GrepFile[]> {
    const ids = query === null ? null : await this.trigrams.candidates(this.db, query);
    if (ids !== null && ids.length === 0) return [];
    if (ids !== null && this.db.prefetchTerms) {
      // A pack over HTTP: the candidates' paths come from file_text's path index (in memory since
      // the pack opened); their `files` rows, through that table's path index, are fetched in two
      // rounds instead of one request per row as the join below reads them.
      const named = await this.db.all<{ path: string }>(`SELECT t.path FROM file_text t INDEXED BY sqlite_autoindex_file_text_1 WHERE t.id IN (SELECT value FROM json_each(?))`, [JSON.stringify(Array.from(ids))]);
      await this.db.prefetchTerms([], named.map((r) => ({ index: 'sqlite_autoindex_files_1', key: [r.path], table: 'files' })));
    }
    // INDEXED BY the path index (which also holds the id): reading t.path from the table would
    // read each file's first text page — 16 KB a file, ~90 MB for 5.6k kernel files.
    const sql = `SELECT t.id, t.path, coalesce(f.language, '') AS language, coalesce(f.hash, '') AS hash
      FROM file_text t INDEXED BY sqlite_autoindex_file_text_1 LEFT JOIN files f ON f.path = t.path
      ${ids === null ? '' : 'WHERE t.id IN (SELECT value FROM json_each(?))'} ORDER BY t.path`;
    return this.db.all<GrepFile>(sql, ids === null ? [] : [JSON.stringify(Array.from(ids))]);
  }

  /**
   * Index the trigrams of every file written since the last flush (this connection's keys in
   * memory, any other pending file read back from file_text) into one new segment; merge the
   * segments when there are more than MAX_SEGMENTS. The indexer calls it at the end of a run
   * (`unlessFew`: not while the pending files are few, TrigramIndex.few: grep reads them whole
   * meanwhile); writeFiles calls it when FLUSH_KEYS keys wait in memory. Returns the files indexed.
   */
  async flushTrigrams(o: { unlessFew?: boolean } = {}): Promise<number> {
    if (o.unlessFew && (await this.trigrams.few(this.db))) return 0;
    const n = await this.db.transaction((tx) => this.trigrams.flush(tx));
    this.trigrams.flushed();
    await this.db.transaction((tx) => this.trigrams.merge(tx));
    return n;
  }

  /** Flush, then merge every trigram segment into one, dropping deleted files' ids (idle time). */
  async optimizeTrigrams(): Promise<void> {
    await this.flushTrigrams();
    await this.db.transaction((tx) => this.trigrams.merge(tx, true));
  }

  /** Stored texts by file_text id; unknown ids are absent. */
  async fileTextsById(ids: readonly number[]): Promise<Map<number, string>> {
    return readTexts(this.db, 'id', ids);
  }

  /** Files with stored text. */
  async fileTextCount(): Promise<number> {
    return (await this.db.get<{ n: number }>('SELECT count(*) AS n FROM file_text'))?.n ?? 0;
  }

  /** Files with stored text and the bytes they take packed (file_text.data, text-codec.ts). */
  async fileTextSize(): Promise<{ files: number; packedBytes: number }> {
    const r = await this.db.get<{ n: number; b: number | null }>('SELECT count(*) AS n, sum(length(data)) AS b FROM file_text');
    return { files: r?.n ?? 0, packedBytes: r?.b ?? 0 };
  }

  /** Indexed files that have no stored text yet (indexed before schema 3; the next index run fills them). */
  async filesWithoutText(): Promise<number> {
    return (await this.db.get<{ n: number }>('SELECT count(*) AS n FROM files f WHERE NOT EXISTS (SELECT 1 FROM file_text t WHERE t.path = f.path)'))?.n ?? 0;
  }

  // ---- embeddings --------------------------------------------------------------------

  async getEmbeddings(model: string, hashes: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const part of chunked([...new Set(hashes)])) {
      const rows = await this.db.all<{ content_hash: string; vector: Uint8Array }>(
        `SELECT content_hash, vector FROM embeddings WHERE model = ? AND content_hash IN (${marks(part.length)})`,
        [model, ...part],
      );
      for (const r of rows) out.set(r.content_hash, blobToVector(r.vector));
    }
    return out;
  }

  /**
   * Store vectors, in ONE transaction. Rows go in key order, EMBEDDING_ROWS_PER_INSERT to a
   * statement: the table is keyed by a random hash, so unsorted rows touched a b-tree page
   * apiece (each journalled and rewritten at commit); sorted, a page takes all its new rows at
   * once. Blobs are made before the transaction.
   */
  async putEmbeddings(model: string, items: Array<{ hash: string; vector: Float32Array }>): Promise<void> {
    await this.putEncodedEmbeddings(model, items.map(({ hash, vector }) => [hash, vectorToInt8Blob(vector)] as const));
  }

  /**
   * putEmbeddings with each vector already a stored blob (vectorToInt8Blob): the app's embedder
   * worker encodes them, so the store worker's thread only writes.
   */
  async putEncodedEmbeddings(model: string, items: ReadonlyArray<readonly [hash: string, blob: Uint8Array]>): Promise<void> {
    if (!items.length) return;
    const rows = items.map(([hash, blob]) => [hash, model, blob] as const);
    rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    await this.db.transaction(async (tx) => {
      await insertRows(tx, 'INSERT OR REPLACE INTO embeddings (content_hash, model, vector) VALUES (?, ?, ?)', EMBEDDING_ROWS_PER_INSERT, rows);
      // Every embedding goes through here, so the index always names its model (stats, import check).
      await tx.run('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [META.modelKey, model]);
    });
  }

  /**
   * Chunks whose content hash has no embedding for `model`: source code first, then data
   * and prose (DATA_LANGUAGES), each by id. Pass the last returned id as `afterId` to page
   * on without rescanning. Within one page, a content hash appears once.
   */
  async pendingEmbeddings(model: string, limit: number, afterId?: number): Promise<PendingEmbedding[]> {
    // Two runs over ids: code rows straight from the table, then data rows through the partial
    // index chunks_data (schema 8; an index over every row was 3.9 MB of the kernel index).
    let codeAfter = afterId ?? 0;
    let dataAfter = afterId ?? 0;
    if (afterId !== undefined) {
      const after = await this.db.get<{ is_data: number }>('SELECT is_data FROM chunks WHERE id = ?', [afterId]);
      if (after?.is_data) codeAfter = Number.MAX_SAFE_INTEGER; // the code run is over
      else if (after) dataAfter = 0; // the data run has not begun
    }
    type Row = {
      id: number; content_hash: string; content: string; language: string; path: string; text_start: number | null; text_len: number | null;
      symbol: string | null; parent: string | null; signature: string | null; context: string | null; sig_span: number | null;
    };
    const columns = 'c.id, c.content_hash, c.content, c.language, c.path, c.text_start, c.text_len, c.symbol, c.parent, c.signature, c.context, c.sig_span';
    const pending = 'NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.content_hash = c.content_hash AND e.model = ?)';
    const want = Math.max(0, limit);
    const rows = await this.db.all<Row>(
      `SELECT ${columns} FROM chunks c WHERE c.id > ? AND NOT c.is_data AND ${pending} ORDER BY c.id LIMIT ?`, [codeAfter, model, want]);
    if (rows.length < want) {
      rows.push(...await this.db.all<Row>(
        `SELECT ${columns} FROM chunks c INDEXED BY chunks_data WHERE c.is_data AND c.id > ? AND ${pending} ORDER BY c.id LIMIT ?`,
        [dataAfter, model, want - rows.length]));
    }
    const seen = new Set<string>();
    const out: PendingEmbedding[] = [];
    for (const r of await resolveChunkContent(this.db, rows)) {
      if (seen.has(r.content_hash)) continue;
      seen.add(r.content_hash);
      out.push({
        id: r.id, contentHash: r.content_hash, text: r.content, language: r.language, path: r.path,
        symbol: r.symbol, parent: r.parent, signature: r.signature, context: r.context,
      });
    }
    return out;
  }

  /** Chunks (not distinct hashes) that have an embedding for `model`. */
  async embeddedCount(model: string): Promise<number> {
    const row = await this.db.get<{ n: number }>(
      'SELECT count(*) AS n FROM chunks c JOIN embeddings e ON e.content_hash = c.content_hash AND e.model = ?',
      [model],
    );
    return row?.n ?? 0;
  }

  /**
   * Every chunk id with an embedding for `model`, ascending, vectors contiguous (row i = ids[i]).
   * One statement hands each row to a SQL function that decodes it in place (VectorSink): read
   * as rows, each one an async step, a row object and two blob copies, the kernel subset's
   * 267k vectors took 5–15 s on the loaded 2-core machine.
   */
  async loadVectors(model: string): Promise<{ ids: Int32Array; vectors: Float32Array; dim: number }> {
    // Room for every chunk (a cheap count; counting the join first cost as much as the read).
    const sink = new VectorSink(await this.chunkCount());
    this.#vectorSink = sink;
    try {
      await this.db.get(
        `SELECT count(${VECTOR_SINK_FUNCTION}(id, vector)) AS n FROM (SELECT c.id AS id, e.vector AS vector FROM chunks c JOIN embeddings e ON e.content_hash = c.content_hash AND e.model = ? ORDER BY c.id)`,
        [model],
      );
    } finally {
      this.#vectorSink = null;
    }
    return sink.result();
  }

  /** Delete cached embeddings no chunk refers to (e.g. after a model change or big deletes). */
  async pruneEmbeddings(): Promise<number> {
    const r = await this.db.run('DELETE FROM embeddings WHERE content_hash NOT IN (SELECT content_hash FROM chunks)');
    return r.changes;
  }

  // ---- stats -----------------------------------------------------------------------

  async stats(): Promise<IndexStats> {
    // The same database state as the last call (no write since, by this connection or another):
    // the same stats, without their scans of every chunk row (`sift mcp`'s status on a big index).
    const state = await dbState(this.db);
    if (this.statsCache?.state === state) return this.statsCache.stats;
    const stats = await this.readStats();
    this.statsCache = { state, stats };
    return stats;
  }

  /** The last stats() and the database state (dbState) they were read at. */
  private statsCache: { state: string; stats: IndexStats } | null = null;

  private async readStats(): Promise<IndexStats> {
    const db = this.db;
    let files = 0;
    let bytes = 0;
    const languages: IndexStats['languages'] = {};
    const kinds: IndexStats['kinds'] = {};
    const language = (l: string) => (languages[l] ??= { files: 0, bytes: 0, chunks: 0, structured: Object.hasOwn(GRAMMARS, l) });
    const kind = (k: string) => (kinds[k] ??= { files: 0, bytes: 0, chunks: 0 });
    // One pass over each table: a file's kind comes from its path and language (the function
    // chunks.kind was filled with), a chunk's from its row.
    for (const r of await db.all<{ l: string; k: string; n: number; b: number | null }>(
      `SELECT language AS l, ${FILE_KIND_FUNCTION}(path, language) AS k, count(*) AS n, sum(size) AS b FROM files GROUP BY 1, 2`)) {
      const b = r.b ?? 0;
      files += r.n;
      bytes += b;
      language(r.l).files += r.n;
      language(r.l).bytes += b;
      kind(r.k).files += r.n;
      kind(r.k).bytes += b;
    }
    const chunkTypes: Record<string, number> = {};
    for (const r of await db.all<{ l: string; t: string; k: string; n: number }>(
      'SELECT language AS l, chunk_type AS t, kind AS k, count(*) AS n FROM chunks GROUP BY 1, 2, 3')) {
      language(r.l).chunks += r.n;
      kind(r.k).chunks += r.n;
      chunkTypes[r.t] = (chunkTypes[r.t] ?? 0) + r.n;
    }
    const chunks = await this.chunkCount();
    const symbols = (await db.get<{ n: number }>('SELECT count(*) AS n FROM chunks WHERE symbol IS NOT NULL'))?.n ?? 0;
    const pageCount = (await db.get<{ page_count: number }>('PRAGMA page_count'))?.page_count ?? 0;
    const pageSize = (await db.get<{ page_size: number }>('PRAGMA page_size'))?.page_size ?? 0;
    const lastIndexed = (await db.get<{ t: string | null }>('SELECT max(indexed_at) AS t FROM files'))?.t ?? null;
    const model = await this.getMeta(META.modelKey);
    return {
      files,
      chunks,
      bytes,
      languages,
      kinds,
      chunkTypes,
      symbols,
      dbBytes: pageCount * pageSize,
      lastIndexed,
      model,
      embeddedChunks: model ? await this.embeddedCount(model) : 0,
      schemaVersion: SCHEMA_VERSION,
      skipped: parseSkippedStats(await this.getMeta(META.skipStats)),
    };
  }

  /**
   * Stored bytes per structure of the index: the payload of each structure's rows and of the
   * b-tree indexes on them (octet_length / length of the columns plus a per-row estimate of
   * record headers, integer columns and index entries, calibrated against sqlite3's dbstat on
   * real indexes; a blob's length is read from its record header, its overflow pages are not),
   * and `other` = the file's bytes less all of them: page and cell overhead, unused space in
   * pages, small tables, free pages. wa-sqlite has no dbstat table, so page counts per b-tree
   * are not available; this reads every table's leaf pages once (a second or so for a
   * kernel-sized index), so it is not part of stats().
   */
  async structureBytes(): Promise<IndexStructures> {
    const db = this.db;
    const one = async (sql: string) => Number((await db.get<{ b: number | null }>(sql))?.b ?? 0);
    const structures: Record<IndexStructure, number> = {
      keyword: await one('SELECT (SELECT coalesce(sum(length(block)), 0) FROM chunks_fts_data) + (SELECT coalesce(sum(length(sz) + 4), 0) FROM chunks_fts_docsize)'
        + ' + (SELECT coalesce(sum(octet_length(term) + 8), 0) FROM chunks_fts_idx) AS b'),
      // The row, and the unique index on path.
      text: await one('SELECT coalesce(sum(length(data) + 2 * octet_length(path) + 10), 0) AS b FROM file_text'),
      // The row (8 bytes besides the list) and its (seg, gram) index entry (10).
      trigram: await one('SELECT coalesce(sum(length(ids) + 18), 0) AS b FROM trigram_postings'),
      // The row (~36 bytes of header and integers besides the text columns) and the symbol index's entry.
      chunks: await one(`SELECT coalesce(sum(octet_length(path) + octet_length(language) + octet_length(chunk_type) + coalesce(octet_length(symbol) * 2 + 8, 0)
        + coalesce(octet_length(parent), 0) + coalesce(octet_length(signature), 0) + coalesce(octet_length(doc), 0) + octet_length(content)
        + octet_length(content_hash) + coalesce(octet_length(symbols), 0) + coalesce(octet_length(defines), 0) + octet_length(kind) + 36), 0) AS b FROM chunks`),
      names: await one('SELECT coalesce(sum(octet_length(key) + 6), 0) AS b FROM chunk_names'),
      embeddings: await one('SELECT coalesce(sum(length(vector) + 2 * octet_length(content_hash) + 2 * octet_length(model) + 8), 0) AS b FROM embeddings'),
      // The row, the unique index on path and the index on hash.
      files: await one('SELECT coalesce(sum(3 * octet_length(path) + 2 * octet_length(hash) + octet_length(language) + octet_length(indexed_at) + 27), 0) AS b FROM files'),
      other: 0,
    };
    const pages = await db.get<{ n: number; free: number; size: number }>(
      'SELECT (SELECT page_count FROM pragma_page_count) AS n, (SELECT freelist_count FROM pragma_freelist_count) AS free, (SELECT page_size FROM pragma_page_size) AS size');
    const total = (pages?.n ?? 0) * (pages?.size ?? 0);
    const payload = Object.values(structures).reduce((a, b) => a + b, 0);
    structures.other = Math.max(0, total - payload);
    return { total, freeBytes: (pages?.free ?? 0) * (pages?.size ?? 0), structures };
  }

  /** Chunk types present in this index (for filter menus and validation). */
  async chunkTypes(): Promise<string[]> {
    return (await this.db.all<{ t: string }>('SELECT DISTINCT chunk_type AS t FROM chunks ORDER BY t')).map((r) => r.t);
  }

  /**
   * Bulk-load mode for the keyword index, for runs that write many files: FTS5 stops merging
   * segments as it goes (automerge 0; a crisis merge only past FTS_BULK_CRISISMERGE segments
   * of one level), and the run ends with ONE optimize instead. Replaying 3,000 kernel files
   * (75k chunks) into fresh stores, same run: store CPU incl. the final optimize 12.2–12.6 s
   * with FTS5's defaults (automerge 4, crisismerge 16), 10.0 s in bulk mode. The settings are
   * stored in the index (FTS5 %_config), so every run sets the mode it wants; `false`
   * restores the defaults, which keep small incremental runs' segments merged.
   */
  async setBulkLoad(on: boolean): Promise<void> {
    this.trigrams.bulk = on;
    // Nothing to write when the FTS settings already are these (a new index: FTS5's defaults, no
    // rows): a write is a commit, and a small run's commits are most of its time.
    const set = new Map((await this.db.all<{ k: string; v: number }>(`SELECT k, v FROM chunks_fts_config WHERE k IN ('automerge', 'crisismerge')`)).map((r) => [r.k, r.v]));
    if ((set.get('automerge') ?? FTS_AUTOMERGE) === (on ? 0 : FTS_AUTOMERGE) && (set.get('crisismerge') ?? FTS_CRISISMERGE) === (on ? FTS_BULK_CRISISMERGE : FTS_CRISISMERGE)) return;
    await this.db.transaction(async (tx) => {
      await tx.run(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', ?)`, [on ? 0 : FTS_AUTOMERGE]);
      await tx.run(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('crisismerge', ?)`, [on ? FTS_BULK_CRISISMERGE : FTS_CRISISMERGE]);
    });
  }

  /**
   * Merge the FTS5 index into one segment. Worth it after a cold index or big changes, when
   * idle: on the kernel subset (197k chunks) BM25 p50/p95 went 65/157 → 55/130 ms; it costs a
   * rewrite of the FTS index (native sqlite3: 6 s for 140 MB). Results do not change. The
   * trigram index's segments are merged too (optimizeTrigrams).
   */
  async optimizeFts(): Promise<void> {
    await this.db.run(`INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')`);
    await this.optimizeTrigrams();
    await this.releaseFreePages();
  }

  /**
   * Shrink the file by its free pages (those left by deletes and FTS merges). Only databases
   * created with auto_vacuum = INCREMENTAL (AUTO_VACUUM) can; for others this is a no-op.
   * Returns the bytes released.
   */
  async releaseFreePages(): Promise<number> {
    const pages = async () => (await this.db.get<{ page_count: number }>('PRAGMA page_count'))?.page_count ?? 0;
    const before = await pages();
    await this.db.all('PRAGMA incremental_vacuum');
    const pageSize = (await this.db.get<{ page_size: number }>('PRAGMA page_size'))?.page_size ?? 0;
    return (before - (await pages())) * pageSize;
  }

  /** Whether the database has Sift's tables (an imported file may be any SQLite database). */
  async hasSiftTables(): Promise<boolean> {
    const row = await this.db.get<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('files', 'chunks', 'meta')");
    return (row?.n ?? 0) >= 3;
  }

  /**
   * 'ok', or the problems found: PRAGMA integrity_check; the FTS5 integrity-check (for the
   * contentless chunks_fts: its own structure); one FTS row per chunk and none without one
   * (the FTS row set is chunks_fts_docsize's ids); every chunk that refers into file_text
   * finds its file's text; every chunk_names row names a chunk; every chunk lies in its file's
   * chunk range (files.chunk_lo..chunk_hi) and every range holds only its file's chunks, with
   * no gap; every trigram posting list decodes to ascending ids (pending ids need no check:
   * one that names no file_text row is harmless, the next flush drops it).
   */
  async integrityCheck(): Promise<string> {
    const problems = (await this.db.all<{ integrity_check: string }>('PRAGMA integrity_check'))
      .map((r) => r.integrity_check)
      .filter((m) => m !== 'ok');
    try {
      await this.db.run(`INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')`);
      const count = async (sql: string) => (await this.db.get<{ n: number }>(sql))?.n ?? 0;
      const unindexed = await count('SELECT count(*) AS n FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunks_fts_docsize d WHERE d.id = c.id)');
      if (unindexed) problems.push(`chunks_fts: ${unindexed} chunks have no FTS row`);
      const orphans = await count('SELECT count(*) AS n FROM chunks_fts_docsize d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = d.id)');
      if (orphans) problems.push(`chunks_fts: ${orphans} FTS rows have no chunk`);
      const textless = await count('SELECT count(*) AS n FROM chunks c WHERE c.text_start IS NOT NULL AND NOT EXISTS (SELECT 1 FROM file_text t WHERE t.path = c.path)');
      if (textless) problems.push(`chunks: ${textless} chunks refer to a file text that is missing`);
      const nameless = await count('SELECT count(*) AS n FROM chunk_names n WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = n.chunk_id)');
      if (nameless) problems.push(`chunk_names: ${nameless} names belong to no chunk`);
      const astray = await count('SELECT count(*) AS n FROM chunks c LEFT JOIN files f ON f.path = c.path WHERE f.chunk_lo IS NULL OR c.id NOT BETWEEN f.chunk_lo AND f.chunk_hi');
      const ranges = await count('SELECT count(*) AS n FROM files WHERE chunk_lo IS NOT NULL AND chunk_hi - chunk_lo + 1 <> (SELECT count(*) FROM chunks c WHERE c.id BETWEEN files.chunk_lo AND files.chunk_hi AND c.path = files.path)');
      if (astray) problems.push(`chunks: ${astray} chunks lie outside their file's chunk range`);
      if (ranges) problems.push(`files: ${ranges} files' chunk ranges hold other rows or gaps`);
    } catch (e) {
      problems.push(`chunks_fts: ${e instanceof Error ? e.message : String(e)}`);
    }
    try {
      problems.push(...(await this.trigrams.check(this.db)));
    } catch (e) {
      problems.push(`trigram index: ${e instanceof Error ? e.message : String(e)}`);
    }
    return problems.length ? problems.join('\n') : 'ok';
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

export { DATA_LANGUAGES };
