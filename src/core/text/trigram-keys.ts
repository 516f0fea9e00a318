/**
 * Trigram keys: the 32-bit numbers Sift's own trigram index (store/trigram-index.ts) files a
 * text under, and the key of one query trigram (search/trigram.ts). Pure, no allocation per
 * trigram: it runs on every indexed text (the kernel subset: 143 MB) off the store's thread.
 *
 * A trigram is three consecutive CODE POINTS of the text (a lone surrogate counts as one code
 * point, the same way Array.from splits a pattern). ASCII A–Z fold to a–z; nothing else folds.
 *
 *   three ASCII code points a, b, c  →  (a << 14) | (b << 7) | c        (exact, < 2^21)
 *   anything else                     →  2^21 + hash(a, b, c) mod (2^32 − 2^21)
 *
 * Invariants:
 * - Index and query agree: `trigramKey(t)` is the key `fileTrigramKeys` gives the trigram t
 *   wherever it occurs (same folding, same hash). A hash collision only joins two posting
 *   lists: extra candidates, which grep re-checks (sound).
 * - Trigrams that contain `\n` are not indexed: a match never spans lines, so search/trigram.ts
 *   never requires one (and `trigramKey` says so by returning -1).
 */

/**
 * A query over trigrams (built by search/trigram.ts, evaluated by store/trigram-index.ts).
 * `all`: AND of parts; `any`: OR of parts; `tri`: one trigram (three code points); `true`: no constraint.
 */
export type TrigramQuery =
  | { op: 'true' }
  | { op: 'tri'; t: string }
  | { op: 'all'; parts: TrigramQuery[] }
  | { op: 'any'; parts: TrigramQuery[] };

/** Keys below this are exact ASCII trigrams; the rest are hashed. */
export const ASCII_KEY_SPACE = 1 << 21;
const HASH_SPACE = 2 ** 32 - ASCII_KEY_SPACE;
const NL = 10;

/**
 * Which ASCII keys the current call has seen: one bit per key (256 KB, stays in cache), and
 * which of its 32-bit words hold any (one bit per word, 8 KB). The keys come out of the bitset
 * in ascending order by walking the summary, and both are cleared on the way: no sort of the
 * ASCII keys (kernel fs+mm, 51 MB: 0.60 -> 0.43 CPU-s, identical keys).
 */
let seen: Int32Array | null = null;
let seenWords: Int32Array | null = null;
/** Scratch buffer for hashed keys, reused across calls (grown as needed). */
let otherBuf = new Uint32Array(256);

const fold = (c: number): number => (c >= 65 && c <= 90 ? c | 32 : c);

function hashKey(a: number, b: number, c: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b ^ 0x5bd1e995, 0x85ebca77) ^ Math.imul(c ^ 0x27d4eb2f, 0xc2b2ae3d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 13;
  return ASCII_KEY_SPACE + ((h >>> 0) % HASH_SPACE);
}

/** Key of three (already folded) code points. */
function keyOf(a: number, b: number, c: number): number {
  return (a | b | c) < 128 ? (a << 14) | (b << 7) | c : hashKey(a, b, c);
}

/**
 * The DISTINCT trigram keys of `text`, sorted ascending (a fresh array the caller owns).
 * Empty for texts of fewer than three code points.
 */
export function fileTrigramKeys(text: string): Uint32Array {
  const n = text.length;
  if (n < 3) {
    // Two UTF-16 units hold at most two code points: no trigram.
    return new Uint32Array(0);
  }
  seen ??= new Int32Array(ASCII_KEY_SPACE >>> 5);
  seenWords ??= new Int32Array(ASCII_KEY_SPACE >>> 10);
  const bits = seen;
  const words = seenWords;
  let other = otherBuf;
  let na = 0;
  let no = 0;
  let a = 0;
  let b = 0;
  let have = 0; // code points since the last '\n' (capped at 2)
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c < 128) {
      if (c === NL) {
        have = 0;
        continue;
      }
      if (c >= 65 && c <= 90) c |= 32;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        i++;
      }
    }
    if (have < 2) {
      have++;
    } else if ((a | b | c) < 128) {
      const k = (a << 14) | (b << 7) | c;
      const w = k >>> 5;
      const m = 1 << (k & 31);
      const x = bits[w]!;
      if ((x & m) === 0) {
        if (x === 0) words[w >>> 5] = words[w >>> 5]! | (1 << (w & 31));
        bits[w] = x | m;
        na++;
      }
    } else {
      if (no === other.length) {
        const g = new Uint32Array(other.length * 2);
        g.set(other);
        other = otherBuf = g;
      }
      other[no++] = hashKey(a, b, c);
    }
    a = b;
    b = c;
  }
  // Hashed keys may repeat: sort and drop duplicates; they are all ≥ every ASCII key.
  let u = 0;
  const hs = no > 0 ? other.subarray(0, no).sort() : null;
  if (hs) for (let i = 0; i < no; i++) if (i === 0 || hs[i] !== hs[i - 1]) hs[u++] = hs[i]!;
  const out = new Uint32Array(na + u);
  let o = 0;
  for (let s = 0; s < words.length; s++) {
    let y = words[s]!;
    if (y === 0) continue;
    words[s] = 0;
    while (y !== 0) {
      const t = y & -y;
      const w = (s << 5) | (31 - Math.clz32(t));
      y ^= t;
      let x = bits[w]!;
      bits[w] = 0;
      const base = w << 5;
      while (x !== 0) {
        const b1 = x & -x;
        out[o++] = base | (31 - Math.clz32(b1));
        x ^= b1;
      }
    }
  }
  if (hs) out.set(hs.subarray(0, u), na);
  return out;
}

/**
 * The key of one query trigram (exactly three code points, as search/trigram.ts builds them),
 * or -1 when it cannot be in the index (it holds `\n`, or is not three code points): the
 * caller then drops that requirement, which only weakens the query.
 */
export function trigramKey(t: string): number {
  const cps: number[] = [];
  for (const ch of t) cps.push(fold(ch.codePointAt(0)!));
  if (cps.length !== 3 || cps.includes(NL)) return -1;
  return keyOf(cps[0]!, cps[1]!, cps[2]!);
}
