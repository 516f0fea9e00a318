/**
 * How a file's text is stored in file_text.data (schema 6): one tag byte, then the payload.
 *
 *   TAG_UTF8    (0): the text's UTF-8 bytes (short texts, where deflate does not pay)
 *   TAG_DEFLATE (1): deflate-raw (RFC 1951) of the text's UTF-8 bytes
 *
 * Source code deflates to ~0.28× (kernel subset: 143 MB of text → 40 MB), which is most of
 * what took the index from 2.55× to under 2× the source (issue 12).
 *
 * Packing happens where the file is chunked (the indexer worker, a CLI chunk worker), never on
 * the store's thread; unpacking happens where text is read (grep, chunk content, rename).
 * The default codec is the web's CompressionStream / DecompressionStream (browsers and Node
 * ≥ 20); Node entry points install a zlib-backed codec with `setTextCodec` (3× faster to
 * inflate there: 474 vs 137 MB/s on mm/page_alloc.c).
 *
 * Invariant: unpack(pack(t)) === t for every string t (lone surrogates excepted: UTF-8 cannot
 * hold them; decodeText never produces them — invalid input is already U+FFFD).
 */

export const TAG_UTF8 = 0;
export const TAG_DEFLATE = 1;
/** Texts shorter than this (UTF-16 units) are stored as plain UTF-8: deflate's gain is a few bytes. */
export const MIN_DEFLATE_CHARS = 256;

export interface TextCodec {
  /** Raw deflate of `bytes`. */
  deflate(bytes: Uint8Array): Promise<Uint8Array> | Uint8Array;
  /** Inverse of deflate. */
  inflate(bytes: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

/**
 * Run `bytes` through a (de)compression stream: write once, read the parts. Measured in
 * Chromium on 26 kernel files (574 KB inflated): 5–9 ms this way, 23–25 ms through
 * Blob.stream().pipeThrough() and Response.arrayBuffer() — the keyword leg inflates its
 * candidates' files on every query.
 */
async function through(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const writer = stream.writable.getWriter();
  const written = writer.write(bytes as Uint8Array<ArrayBuffer>).then(() => writer.close());
  written.catch(() => undefined); // a failure surfaces on the reading side
  const reader = stream.readable.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.byteLength;
  }
  await written;
  if (parts.length === 1) return parts[0]!;
  return joinBytes(parts, size);
}

/** `parts` one after another in one new array of `size` bytes (their total). */
export function joinBytes(parts: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** The web platform's codec (CompressionStream 'deflate-raw'). */
export const webTextCodec: TextCodec = {
  deflate: (bytes) => through(bytes, new CompressionStream('deflate-raw')),
  inflate: (bytes) => through(bytes, new DecompressionStream('deflate-raw')),
};

let codec: TextCodec = webTextCodec;

/** Replace the codec of this thread (Node entry points install zlib's). */
export function setTextCodec(c: TextCodec): void {
  codec = c;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** A text → its file_text.data bytes. */
export async function packText(text: string, c: TextCodec = codec): Promise<Uint8Array> {
  const utf8 = encoder.encode(text);
  if (text.length >= MIN_DEFLATE_CHARS) {
    const z = await c.deflate(utf8);
    if (z.byteLength < utf8.byteLength) return tagged(TAG_DEFLATE, z);
  }
  return tagged(TAG_UTF8, utf8);
}

/**
 * A text → file_text.data bytes without deflate (TAG_UTF8 at any length): for a text stored
 * for a moment, which a later write replaces (mcp-disk.ts storedAheadItem), where deflating it
 * would be work thrown away.
 */
export function packUtf8(text: string): Uint8Array {
  return tagged(TAG_UTF8, encoder.encode(text));
}

function tagged(tag: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.byteLength + 1);
  out[0] = tag;
  out.set(payload, 1);
  return out;
}

/** file_text.data bytes → the text. Throws on an unknown tag (a damaged row). */
export async function unpackText(data: Uint8Array, c: TextCodec = codec): Promise<string> {
  const tag = data[0];
  const payload = data.subarray(1);
  if (tag === TAG_UTF8) return decoder.decode(payload);
  if (tag === TAG_DEFLATE) return decoder.decode(await c.inflate(payload));
  throw new Error(`stored file text has unknown encoding ${String(tag)}`);
}
