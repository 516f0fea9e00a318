/**
 * Several byte ranges in one HTTP request (RFC 9110 §14.6, `multipart/byteranges`): the
 * `Range` header for a list of ranges, and the answer's parts matched back to them. A pack
 * read over HTTP/1.1 has six connections to its host; one request per page a query needs
 * costs a round trip per six pages, one request for many ranges costs one.
 *
 * Invariants:
 * - Ranges are `[start, end)` (end exclusive) here, inclusive only in the header.
 * - An answer is trusted only as far as its Content-Range headers say: every part names the
 *   bytes it holds, and a range is returned only when one part (or a single-range answer)
 *   covers it whole; a range the answer does not cover comes back `null` (the caller asks for
 *   it on its own). A part whose length disagrees with its Content-Range, or a body that ends
 *   early, is an error, never a shifted page.
 */

/** `bytes=a-b,c-d,…` for `[start, end)` ranges. */
export function rangesHeader(ranges: ReadonlyArray<readonly [number, number]>): string {
  return `bytes=${ranges.map(([s, e]) => `${s}-${e - 1}`).join(',')}`;
}

/** The `boundary` parameter of a `multipart/byteranges` Content-Type, or null for any other type. */
export function byterangesBoundary(contentType: string | null): string | null {
  if (!contentType || !/^\s*multipart\/byteranges\s*(;|$)/i.test(contentType)) return null;
  const m = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** `bytes a-b/size` → `[a, b + 1)`; null when it does not parse. */
export function parseContentRange(value: string | null): [number, number] | null {
  const m = value ? /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(value) : null;
  if (!m) return null;
  const start = Number(m[1]);
  const end = Number(m[2]) + 1;
  return Number.isSafeInteger(start) && Number.isSafeInteger(end) && end > start ? [start, end] : null;
}

export interface BytePart {
  start: number;
  end: number;
  bytes: Uint8Array;
}

const CRLF_CRLF = [13, 10, 13, 10];

function indexOfSeq(hay: Uint8Array, needle: ArrayLike<number>, from: number): number {
  outer: for (let i = from; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * The parts of a `multipart/byteranges` body. Each part's length comes from its own
 * Content-Range (a part's bytes may hold anything, the boundary included). Throws on a
 * malformed body.
 */
export function parseByteranges(body: Uint8Array, boundary: string): BytePart[] {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const delim = enc.encode(`--${boundary}`);
  const parts: BytePart[] = [];
  let at = indexOfSeq(body, delim, 0);
  if (at < 0) throw new Error('multipart/byteranges answer without its boundary');
  for (;;) {
    at += delim.length;
    if (body[at] === 45 && body[at + 1] === 45) return parts; // "--": the closing delimiter
    const headEnd = indexOfSeq(body, CRLF_CRLF, at);
    if (headEnd < 0) throw new Error('multipart/byteranges part without the end of its headers');
    const head = dec.decode(body.subarray(at, headEnd));
    const cr = /^content-range\s*:\s*(.*)$/im.exec(head);
    const range = parseContentRange(cr ? cr[1]!.trim() : null);
    if (!range) throw new Error('multipart/byteranges part without a Content-Range');
    const from = headEnd + 4;
    const to = from + (range[1] - range[0]);
    if (to > body.length) throw new Error('multipart/byteranges answer ended inside a part');
    parts.push({ start: range[0], end: range[1], bytes: body.subarray(from, to) });
    at = indexOfSeq(body, delim, to);
    if (at < 0) throw new Error('multipart/byteranges answer without its closing boundary');
  }
}

/** Each wanted `[start, end)` range cut from the part that covers it whole, or null when none does. */
export function coverRanges(parts: readonly BytePart[], wanted: ReadonlyArray<readonly [number, number]>): Array<Uint8Array | null> {
  return wanted.map(([s, e]) => {
    const p = parts.find((q) => q.start <= s && q.end >= e);
    return p ? p.bytes.subarray(s - p.start, e - p.start) : null;
  });
}
