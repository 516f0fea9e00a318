/**
 * A published index ("pack", issue 27): one read-only SQLite file laid out for reading over
 * HTTP byte ranges, and the manifest `sift-index.json` that names it. `sift publish` writes
 * both (src/cli/cmd-publish.ts); the app opens a manifest URL and reads the pack through the
 * range VFS (src/core/store/http-vfs.ts). This module is the one contract between them.
 *
 * Invariants:
 * - A pack is immutable and content-addressed: its file name carries the first 16 hex digits of
 *   its SHA-256, so a redeploy adds a new name and never changes the bytes behind an old one.
 * - The pack's name is a plain file name beside the manifest (`[\w.-]+\.sift`): a manifest can
 *   never point a reader at another folder or origin.
 * - `parsePackManifest` accepts only what this version can read; anything else is a
 *   PackError whose message says what is wrong, never an exception from deep inside.
 */
import type { SkippedStats } from '../walk/skipped.ts';

/**
 * The manifest format this Sift writes. 2 added `layout.head` (a copy of the pages every search
 * reads, after the database); this Sift also reads format 1, which has none.
 */
export const PACK_FORMAT = 2;
/** The oldest manifest format this Sift reads. */
const OLDEST_PACK_FORMAT = 1;
/** The manifest's file name in a publish folder. */
export const PACK_MANIFEST_NAME = 'sift-index.json';
/** A pack's file extension. */
export const PACK_EXTENSION = '.sift';

/** Embeddings in a pack: partitioned int8 vectors (src/core/vector/partitioned.ts). */
export interface PackEmbeddings {
  /** Model key (what `meta.model_key` holds), e.g. "Xenova/all-MiniLM-L6-v2:q8". */
  model: string;
  dim: number;
  /** Vectors stored (one per embedded chunk). */
  vectors: number;
  /** Partitions (k-means cells); 1 when small enough to read whole. */
  partitions: number;
}

/**
 * Whether a pack's vectors can answer queries embedded by `model` (its key, as the embedder
 * writes it: `<model id>@<dtype>/<max tokens>`, and its dimension). The model id is compared by
 * its last path segment: the CLI names a model folder by its own name (`--model
 * ~/.sift/models/Xenova/all-MiniLM-L6-v2` → `all-MiniLM-L6-v2`), the app by its Hub id or its
 * bundled folder's last two segments (`Xenova/all-MiniLM-L6-v2`), and both mean the same weights.
 * Dtype, token limit and dimension must be equal.
 */
export function packVectorsFit(e: Pick<PackEmbeddings, 'model' | 'dim'>, model: { key: string; dim: number }): boolean {
  if (e.dim !== model.dim) return false;
  const bare = (key: string) => {
    const at = key.lastIndexOf('@');
    const id = at < 0 ? key : key.slice(0, at);
    return `${id.slice(id.lastIndexOf('/') + 1)}${at < 0 ? '' : key.slice(at)}`;
  };
  return e.model === model.key || bare(e.model) === bare(model.key);
}

/** Per-pack statistics the app shows without reading the pack (Store.stats at publish time). */
export interface PackStats {
  languages: Record<string, { files: number; bytes: number; chunks: number; structured: boolean }>;
  kinds: Record<string, { files: number; bytes: number; chunks: number }>;
  chunkTypes: Record<string, number>;
  symbols: number;
  skipped: SkippedStats | null;
}

export interface PackManifest {
  format: number;
  /** Codebase name shown in the app (the folder's name unless `--name`). */
  name: string;
  /** `git rev-parse HEAD` of the published folder when it is a git work tree, else null. */
  commit: string | null;
  /** ISO 8601 time of publishing. */
  created: string;
  /** The pack's file name, beside the manifest: `<name>-<sha256 first 16 hex>.sift`. */
  pack: string;
  /** The pack's size in bytes. */
  bytes: number;
  /** Hex SHA-256 of the whole pack. */
  sha256: string;
  /** SQLite page size of the pack (bytes). */
  pageSize: number;
  /**
   * Base64 of the first 8 bytes of SHA-256 of every page, in page order
   * (store/http-vfs.ts `pageHashes`): a reader checks each page it fetches. Format 1; format 2
   * keeps them in the pack instead (`layout.hashes`), so the manifest stays a few kilobytes.
   */
  pageHashes?: string;
  /** Index schema version (src/core/store/schema.ts SCHEMA_VERSION) of the pack. */
  schemaVersion: number;
  files: number;
  chunks: number;
  /** Source bytes of the indexed files. */
  sourceBytes: number;
  contains: {
    keyword: boolean;
    /** File text for exact/regex search and the file viewer. */
    text: boolean;
    definitions: boolean;
    embeddings: PackEmbeddings | null;
  };
  stats: PackStats;
  /**
   * Where things are in the pack, for fewer round trips (store/btree.ts): `prefetch`, runs of
   * 1-based pages `[first, count]` worth fetching when the pack opens (every b-tree's interior
   * pages and the keyword index's small tables, which every keyword search reads), and the root
   * pages of tables whose rows a search fetches by rowid (`chunks`). Optional: without it a
   * reader just reads on demand.
   */
  layout?: PackLayout;
  /** The Sift version that wrote it (package.json version). */
  sift: string;
}

export interface PackLayout {
  prefetch: Array<[number, number]>;
  tables: Record<string, number>;
  /**
   * Byte offset of a copy of the `prefetch` pages, in run order, after the database's last page
   * (its size in bytes: SQLite's header counts only its own pages, so the file stays one SQLite
   * database). A reader fetches the copy as one range instead of a request per run; the pages
   * are checked against the page hashes as their originals would be. Absent: no copy.
   */
  head?: number;
  /**
   * Hex SHA-256 of the page hashes (8 bytes per database page, as `pageHashes` would hold
   * them), which the pack keeps at `head`, zero-padded to whole pages, before the copy. A reader
   * fetches them with the copy and checks them against this before any page.
   */
  hashes?: string;
}

/** Bytes of the SQLite database in the pack: all of it, or up to the layout's copy of its first reads. */
export function packDatabaseBytes(m: Pick<PackManifest, 'bytes' | 'layout'>): number {
  return m.layout?.head ?? m.bytes;
}

/** Bytes of the page hashes of a database of `dbBytes`, and the same padded to whole pages (as a pack keeps them). */
function hashTableBytes(dbBytes: number, pageSize: number): { bytes: number; padded: number } {
  const bytes = (dbBytes / pageSize) * PAGE_HASH_BYTES;
  return { bytes, padded: Math.ceil(bytes / pageSize) * pageSize };
}

/** Where a format 2 pack keeps its page hashes: at the copy's start, `bytes` long, padded to `padded`; null when the manifest has them. */
export function packHashTable(m: Pick<PackManifest, 'bytes' | 'layout' | 'pageSize'>): { at: number; bytes: number; padded: number; sha256: string } | null {
  const l = m.layout;
  if (l?.head === undefined || !l.hashes) return null;
  return { at: l.head, ...hashTableBytes(l.head, m.pageSize), sha256: l.hashes };
}

/** Bytes of each page's hash (a prefix of its SHA-256). */
export const PAGE_HASH_BYTES = 8;

export class PackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PackError';
  }
}

const PACK_NAME = /^[\w.-]{1,200}\.sift$/;

/** The pack file name for `name` and the pack's hex SHA-256. */
export function packFileName(name: string, sha256Hex: string): string {
  const base = name.replace(/[^\w.-]+/g, '-').replace(/^[.-]+/, '').slice(0, 80) || 'index';
  return `${base}-${sha256Hex.slice(0, 16)}${PACK_EXTENSION}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function count(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Parse and check a manifest's text. Throws PackError with a reader's message. */
export function parsePackManifest(text: string, schemaVersion: number): PackManifest {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    throw new PackError('This is not a Sift index manifest: it is not JSON (expected sift-index.json, written by `sift publish`).');
  }
  if (!isObject(m) || typeof m.format !== 'number') throw new PackError('This is not a Sift index manifest (no "format"; expected sift-index.json, written by `sift publish`).');
  if (m.format > PACK_FORMAT) throw new PackError(`This index was published in format ${m.format} by a newer Sift; this app reads formats ${OLDEST_PACK_FORMAT}–${PACK_FORMAT}. Update the app, or publish it with this version of Sift.`);
  if (!Number.isSafeInteger(m.format) || m.format < OLDEST_PACK_FORMAT) throw new PackError(`This index was published in format ${m.format}; this Sift reads formats ${OLDEST_PACK_FORMAT}–${PACK_FORMAT}. Publish it again with this version of Sift.`);
  const bad = (field: string) => new PackError(`The index manifest is damaged: "${field}" is missing or invalid.`);
  if (typeof m.name !== 'string' || !m.name.trim() || m.name.length > 200) throw bad('name');
  if (m.commit !== null && (typeof m.commit !== 'string' || !/^[0-9a-f]{7,64}$/i.test(m.commit))) throw bad('commit');
  if (typeof m.created !== 'string' || Number.isNaN(Date.parse(m.created))) throw bad('created');
  if (typeof m.pack !== 'string' || !PACK_NAME.test(m.pack) || m.pack.startsWith('.')) throw bad('pack');
  if (typeof m.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(m.sha256)) throw bad('sha256');
  if (!m.pack.includes(m.sha256.slice(0, 16))) throw new PackError(`The index manifest names pack ${m.pack}, which does not carry its hash ${m.sha256.slice(0, 16)}.`);
  if (!count(m.bytes) || m.bytes < 512) throw bad('bytes');
  if (!count(m.pageSize) || m.pageSize < 512 || m.pageSize > 65536 || (m.pageSize & (m.pageSize - 1)) !== 0) throw bad('pageSize');
  if (m.bytes % m.pageSize !== 0) throw bad('bytes');
  // The database's own bytes: the pack's, less the layout's copy of the pages every search reads.
  const head = isObject(m.layout) && m.format >= 2 ? m.layout.head : undefined;
  if (head !== undefined && (!count(head) || head < m.pageSize || head >= m.bytes || head % m.pageSize !== 0)) throw bad('layout');
  const dbBytes = head ?? m.bytes;
  // The page hashes: in the manifest (format 1, or format 2 without them in the pack), or in the pack at `head`.
  const hashes = head !== undefined && isObject(m.layout) ? m.layout.hashes : undefined;
  const inPack = hashes !== undefined;
  if (inPack && (typeof hashes !== 'string' || !/^[0-9a-f]{64}$/.test(hashes))) throw bad('layout');
  const table = hashTableBytes(dbBytes, m.pageSize);
  if (!inPack && (typeof m.pageHashes !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(m.pageHashes) || decodeBase64(m.pageHashes).length !== table.bytes)) throw bad('pageHashes');
  const tablePadded = inPack ? table.padded : 0;
  if (!count(m.schemaVersion)) throw bad('schemaVersion');
  if (m.schemaVersion !== schemaVersion) {
    throw new PackError(m.schemaVersion > schemaVersion
      ? `This index was published by a newer Sift (index schema ${m.schemaVersion}; this app reads ${schemaVersion}). Update the app, or publish with this version.`
      : `This index was published by an older Sift (index schema ${m.schemaVersion}; this app reads ${schemaVersion}). Publish it again with this version of Sift.`);
  }
  for (const f of ['files', 'chunks', 'sourceBytes'] as const) if (!count(m[f])) throw bad(f);
  const c = m.contains;
  if (!isObject(c) || typeof c.keyword !== 'boolean' || typeof c.text !== 'boolean' || typeof c.definitions !== 'boolean') throw bad('contains');
  let embeddings: PackEmbeddings | null = null;
  if (c.embeddings !== null && c.embeddings !== undefined) {
    const e = c.embeddings;
    if (!isObject(e) || typeof e.model !== 'string' || !e.model || !count(e.dim) || e.dim < 1 || e.dim > 4096 || !count(e.vectors) || !count(e.partitions) || e.partitions < 1) throw bad('contains.embeddings');
    embeddings = { model: e.model, dim: e.dim, vectors: e.vectors, partitions: e.partitions };
  }
  const s = isObject(m.stats) ? m.stats : {};
  const stats: PackStats = {
    languages: isObject(s.languages) ? (s.languages as PackStats['languages']) : {},
    kinds: isObject(s.kinds) ? (s.kinds as PackStats['kinds']) : {},
    chunkTypes: isObject(s.chunkTypes) ? (s.chunkTypes as PackStats['chunkTypes']) : {},
    symbols: count(s.symbols) ? s.symbols : 0,
    skipped: isObject(s.skipped) ? (s.skipped as unknown as SkippedStats) : null,
  };
  let layout: PackLayout | undefined;
  if (m.layout !== undefined) {
    const l = m.layout;
    const pages = dbBytes / m.pageSize;
    const run = (r: unknown) => Array.isArray(r) && r.length === 2 && count(r[0]) && count(r[1]) && r[0] >= 1 && r[1] >= 1 && r[0] + r[1] - 1 <= pages;
    if (!isObject(l) || !Array.isArray(l.prefetch) || !l.prefetch.every(run) || !isObject(l.tables) || !Object.values(l.tables).every((v) => count(v) && v >= 1 && v <= pages)) throw bad('layout');
    const prefetch = l.prefetch as Array<[number, number]>;
    // After the database: the page hashes when kept there, then the copy of exactly the listed pages.
    if (head !== undefined && tablePadded + prefetch.reduce((n, r) => n + r[1], 0) * m.pageSize !== m.bytes - head) throw bad('layout');
    layout = { prefetch, tables: l.tables as Record<string, number>, ...(head !== undefined ? { head } : {}), ...(inPack ? { hashes: hashes as string } : {}) };
  }
  return {
    ...(layout ? { layout } : {}),
    format: m.format,
    name: m.name,
    commit: (m.commit as string | null) ?? null,
    created: m.created,
    pack: m.pack,
    bytes: m.bytes,
    sha256: m.sha256,
    pageSize: m.pageSize,
    ...(inPack ? {} : { pageHashes: m.pageHashes as string }),
    schemaVersion: m.schemaVersion,
    files: m.files as number,
    chunks: m.chunks as number,
    sourceBytes: m.sourceBytes as number,
    contains: { keyword: c.keyword, text: c.text, definitions: c.definitions, embeddings },
    stats,
    sift: typeof m.sift === 'string' ? m.sift : '',
  };
}

/** Bytes of a base64 string (atob: Node 20 and browsers). */
export function decodeBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Base64 of bytes (btoa, in pieces: a kernel pack has ~26 KB of page hashes). */
export function encodeBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** The pack's URL: its file name resolved against the manifest's URL (same folder, same origin). */
export function packUrl(manifestUrl: string, manifest: Pick<PackManifest, 'pack'>): string {
  if (!PACK_NAME.test(manifest.pack)) throw new PackError(`invalid pack name ${JSON.stringify(manifest.pack)}`);
  return new URL(manifest.pack, manifestUrl).href;
}
