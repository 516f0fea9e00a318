/**
 * A file's prepared chunks in two flat parts for postMessage: every string field of every
 * chunk joined into ONE string, and their lengths and the numeric fields in ONE Float64Array.
 * Structured cloning costs per object and per field, not per byte (each chunk is ~20 fields;
 * the kernel subset ~265k chunks): a chunk worker's reply and the indexer worker's write
 * batch then clone two values per file instead of ~20 per chunk, and the Float64Array's
 * buffer can be transferred. Only the browser's workers use it (workers/chunker → indexer
 * worker → store worker); Store.writeFiles takes either form.
 *
 * Invariants:
 * - decodeChunks(encodeChunks(x)) equals x exactly: every field of Chunk and StoredChunkInput,
 *   an optional field absent stays absent and null stays null; strings are sliced from the
 *   joined string, so any UTF-16 content (lone surrogates included) comes back unchanged.
 * - encodeChunks returns null for chunks outside what the format carries (a span that is not
 *   two non-negative numbers): the caller sends the objects as they are.
 * - A chunk field this file does not list is not carried: adding one to Chunk means adding it
 *   here (the round-trip test compares real chunker output with toStrictEqual).
 */
import type { ChunkType, TextSpan } from '../types.ts';
import type { Chunk } from '../types.ts';

/** A chunk ready for the store (the indexer's StoredChunkInput; defined here to keep the store below the indexer). */
type WireChunk = Chunk & { contentHash: string; ftsTokens?: string };

export interface ChunkWire {
  /** Chunks encoded. */
  readonly count: number;
  /** Every string field, in the order the numbers say. */
  readonly strings: string;
  /** Per chunk: tags / lengths / numeric fields (see encodeChunks). */
  readonly nums: Float64Array;
}

/** Chunks as an array, or encoded. */
export type ChunkList<T extends WireChunk = WireChunk> = T[] | ChunkWire;

/** Tags in `nums` where a length or a number would be. */
const ABSENT = -2;
const NULL = -1;
/** A string equal to the previous chunk's same field (path, language, chunkType). */
const SAME = -3;

export function isChunkWire(x: ChunkWire | readonly unknown[]): x is ChunkWire {
  return !Array.isArray(x);
}

export function chunkListLength(x: ChunkWire | readonly unknown[]): number {
  return isChunkWire(x) ? x.count : x.length;
}

/** The chunks as objects (decoded when encoded). */
export function chunkArray(x: ChunkList): WireChunk[] {
  return isChunkWire(x) ? decodeChunks(x) : x;
}

function validSpan(s: TextSpan | null | undefined): boolean {
  return s === null || s === undefined || (Array.isArray(s) && s.length === 2 && s[0] >= 0 && s[1] >= 0);
}

/** `chunks` in the flat form, or null when one carries something the form does not (see the invariants). */
export function encodeChunks(chunks: readonly WireChunk[]): ChunkWire | null {
  const parts: string[] = [];
  const nums: number[] = [];
  const str = (s: string | null | undefined): void => {
    if (s === undefined) nums.push(ABSENT);
    else if (s === null) nums.push(NULL);
    else {
      nums.push(s.length);
      if (s.length) parts.push(s);
    }
  };
  const num = (n: number | null | undefined): void => {
    nums.push(n === undefined ? ABSENT : n === null ? NULL : n);
  };
  const list = (xs: string[] | null | undefined): void => {
    if (xs === undefined || xs === null) return num(xs);
    nums.push(xs.length);
    for (const s of xs) str(s);
  };
  let path: string | null = null;
  let language: string | null = null;
  let chunkType: string | null = null;
  for (const c of chunks) {
    if (!validSpan(c.signatureSpan) || !validSpan(c.docSpan)) return null;
    for (const n of [c.contextLine, c.defLine]) if (n !== undefined && n !== null && !(n >= 0)) return null;
    if (c.path === path) nums.push(SAME);
    else str((path = c.path));
    if (c.language === language) nums.push(SAME);
    else str((language = c.language));
    if (c.chunkType === chunkType) nums.push(SAME);
    else str((chunkType = c.chunkType));
    nums.push(c.startLine, c.endLine);
    str(c.symbol);
    str(c.parent);
    str(c.signature);
    str(c.doc);
    str(c.content);
    str(c.contentHash);
    str(c.ftsTokens);
    str(c.context);
    num(c.contextLine);
    num(c.defLine);
    for (const s of [c.signatureSpan, c.docSpan]) {
      if (s === undefined || s === null) num(s);
      else nums.push(s[0], s[1]);
    }
    list(c.names);
    list(c.defines);
  }
  return { count: chunks.length, strings: parts.join(''), nums: Float64Array.from(nums) };
}

/** The chunks encodeChunks was given, as new objects. */
export function decodeChunks(w: ChunkWire): WireChunk[] {
  const { strings, nums } = w;
  let at = 0;
  let i = 0;
  const str = (): string | null | undefined => {
    const n = nums[i++]!;
    if (n === ABSENT) return undefined;
    if (n === NULL) return null;
    const s = strings.slice(at, at + n);
    at += n;
    return s;
  };
  const num = (): number | null | undefined => {
    const n = nums[i++]!;
    return n === ABSENT ? undefined : n === NULL ? null : n;
  };
  const span = (): TextSpan | null | undefined => {
    const a = nums[i++]!;
    if (a === ABSENT) return undefined;
    if (a === NULL) return null;
    return [a, nums[i++]!];
  };
  const list = (): string[] | null | undefined => {
    const n = nums[i++]!;
    if (n === ABSENT) return undefined;
    if (n === NULL) return null;
    const out: string[] = [];
    for (let k = 0; k < n; k++) out.push(str() as string);
    return out;
  };
  const same = (prev: string): string => {
    if (nums[i] === SAME) {
      i++;
      return prev;
    }
    return str() as string;
  };
  const out: WireChunk[] = [];
  let path = '';
  let language = '';
  let chunkType = '';
  for (let k = 0; k < w.count; k++) {
    path = same(path);
    language = same(language);
    chunkType = same(chunkType);
    const startLine = nums[i++]!;
    const endLine = nums[i++]!;
    const c: WireChunk = {
      path, startLine, endLine, language, chunkType: chunkType as ChunkType,
      symbol: str() as string | null, parent: str() as string | null, signature: str() as string | null, doc: str() as string | null,
      content: str() as string, contentHash: str() as string,
    };
    const ftsTokens = str();
    if (ftsTokens !== undefined) c.ftsTokens = ftsTokens as string;
    const context = str();
    if (context !== undefined) c.context = context;
    const contextLine = num();
    if (contextLine !== undefined) c.contextLine = contextLine;
    const defLine = num();
    if (defLine !== undefined) c.defLine = defLine;
    const signatureSpan = span();
    if (signatureSpan !== undefined) c.signatureSpan = signatureSpan;
    const docSpan = span();
    if (docSpan !== undefined) c.docSpan = docSpan;
    const names = list();
    if (names !== undefined) c.names = names;
    const defines = list();
    if (defines !== undefined) c.defines = defines;
    out.push(c);
  }
  if (i !== nums.length || at !== strings.length) throw new Error(`chunk wire: ${nums.length - i} numbers and ${strings.length - at} characters left after ${w.count} chunks`);
  return out;
}
