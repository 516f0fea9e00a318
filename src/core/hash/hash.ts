/**
 * Content hashing and the codebase Merkle root. Runs unchanged in Node 20 and browser
 * workers: WebCrypto (`globalThis.crypto.subtle`) for file bytes, and a small pure-JS
 * SHA-256 for the many tiny inputs of a Merkle tree, where one async WebCrypto call
 * costs ~13–24 µs of overhead each (measured, Node 20) — far more than the hashing.
 *
 * Invariants: every hash is lower-case SHA-256 hex (64 chars); `sha256HexSync` and
 * `sha256Hex` agree byte for byte (tested); strings are hashed as UTF-8.
 *
 * Merkle tree (`merkleRoot`):
 *   - entries are sorted by path in UTF-16 code-unit order (locale independent);
 *     duplicate paths are an error;
 *   - leaf  = SHA-256(utf8(path + '\0' + hash));
 *   - node  = SHA-256(0x01 ‖ left ‖ right) over the raw 32-byte child digests
 *     (a node input is 65 bytes with no NUL-terminated path, so leaves and nodes
 *     live in different domains);
 *   - levels pair left to right; an odd last node is promoted unchanged (never
 *     duplicated, so [a,b,c] and [a,b,c,c] cannot share a root);
 *   - one entry: root = its leaf; no entries: root = SHA-256 of the empty input
 *     (EMPTY_MERKLE_ROOT).
 */

/** Length of the hex prefix used as an index directory name. */
export const PATH_KEY_HEX_CHARS = 16;
/** Node-hash domain separator (leaves contain a NUL byte; nodes start with this). */
const NODE_PREFIX = 0x01;

/** SHA-256 of no bytes: the root of an empty codebase. */
export const EMPTY_MERKLE_ROOT = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const encoder = new TextEncoder();
const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]!];
  return out;
}

function toBytes(data: Uint8Array | string): Uint8Array<ArrayBuffer> {
  if (typeof data === 'string') return encoder.encode(data);
  // WebCrypto refuses views over SharedArrayBuffer; copy only in that case.
  if (data.buffer instanceof ArrayBuffer) return data as Uint8Array<ArrayBuffer>;
  return new Uint8Array(data);
}

/** SHA-256 hex via WebCrypto. Use for file bytes (fast on large inputs). */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', toBytes(data));
  return toHex(new Uint8Array(digest));
}

/** Index directory name for a codebase: first 16 hex of SHA-256(absPath). The caller normalises the path. */
export async function pathKey(absPath: string): Promise<string> {
  return (await sha256Hex(absPath)).slice(0, PATH_KEY_HEX_CHARS);
}

// ---------------------------------------------------------------------------------
// Pure-JS SHA-256 (FIPS 180-4). Synchronous; for small inputs such as Merkle nodes and
// chunk texts, where it beats an async WebCrypto round trip.

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const W = new Uint32Array(64);
/** Scratch for inputs up to SCRATCH_BYTES - 9 bytes (chunk texts); safe because sha256Sync never yields. */
const SCRATCH_BYTES = 8192;
const SCRATCH = new Uint8Array(SCRATCH_BYTES);
const SCRATCH_VIEW = new DataView(SCRATCH.buffer);

/** SHA-256 digest (32 bytes), synchronous. */
export function sha256Sync(data: Uint8Array | string): Uint8Array {
  // Strings are UTF-8 encoded straight into the scratch buffer when they fit (≤ 3 bytes per
  // UTF-16 unit), avoiding one allocation per call — most chunk texts do.
  let padded: Uint8Array;
  let len: number;
  if (typeof data === 'string' && data.length * 3 + 9 <= SCRATCH_BYTES) {
    len = encoder.encodeInto(data, SCRATCH).written;
    padded = SCRATCH;
  } else {
    const msg = typeof data === 'string' ? encoder.encode(data) : data;
    len = msg.length;
    padded = len + 9 <= SCRATCH_BYTES ? SCRATCH : new Uint8Array(((len + 9 + 63) >>> 6) << 6);
    padded.set(msg);
  }
  // Message + 0x80 + zero padding + 64-bit big-endian bit length, to a multiple of 64 bytes.
  const paddedLen = ((len + 9 + 63) >>> 6) << 6;
  padded.fill(0, len, paddedLen);
  padded[len] = 0x80;
  const view = padded === SCRATCH ? SCRATCH_VIEW : new DataView(padded.buffer);
  view.setUint32(paddedLen - 8, Math.floor(len / 0x20000000), false);
  view.setUint32(paddedLen - 4, (len << 3) >>> 0, false);

  let h0 = 0x6a09e667, h1 = 0xbb67ae85, h2 = 0x3c6ef372, h3 = 0xa54ff53a;
  let h4 = 0x510e527f, h5 = 0x9b05688c, h6 = 0x1f83d9ab, h7 = 0x5be0cd19;
  for (let off = 0; off < paddedLen; off += 64) {
    for (let t = 0, o = off; t < 16; t++, o += 4) {
      W[t] = (padded[o]! << 24) | (padded[o + 1]! << 16) | (padded[o + 2]! << 8) | padded[o + 3]!;
    }
    for (let t = 16; t < 64; t++) {
      const w15 = W[t - 15]!, w2 = W[t - 2]!;
      const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
      const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
      W[t] = (W[t - 16]! + s0 + W[t - 7]! + s1) | 0;
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + K[t]! + W[t]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0;
      d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + h) | 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  outView.setUint32(0, h0 >>> 0); outView.setUint32(4, h1 >>> 0); outView.setUint32(8, h2 >>> 0); outView.setUint32(12, h3 >>> 0);
  outView.setUint32(16, h4 >>> 0); outView.setUint32(20, h5 >>> 0); outView.setUint32(24, h6 >>> 0); outView.setUint32(28, h7 >>> 0);
  return out;
}

/** SHA-256 hex, synchronous (pure JS). Same output as `sha256Hex`. */
export function sha256HexSync(data: Uint8Array | string): string {
  return toHex(sha256Sync(data));
}

// ---------------------------------------------------------------------------------
// Merkle root

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A synchronous SHA-256 digest (32 bytes; a string as its UTF-8 bytes): `sha256Sync`, or a
 * native one where the caller has it (the CLI: node:crypto's). The Merkle root takes one.
 */
export type Sha256Digest = (data: Uint8Array | string) => Uint8Array;

/** Leaf digest for one file: SHA-256(path + '\0' + hash). */
export function merkleLeaf(path: string, hash: string, digest: Sha256Digest = sha256Sync): Uint8Array {
  return digest(`${path}\0${hash}`);
}

/**
 * Root of the binary Merkle tree over `entries` (see the module comment for the exact
 * construction). Order-independent: entries are sorted by path first. `digest`: the SHA-256
 * used for leaves and nodes (same root whichever; the pure-JS one by default).
 * Async so that a WebCrypto-backed implementation can replace it without an API change.
 */
export async function merkleRoot(entries: Iterable<{ path: string; hash: string }>, digest: Sha256Digest = sha256Sync): Promise<string> {
  const sorted = [...entries].sort((x, y) => compareCodeUnits(x.path, y.path));
  if (sorted.length === 0) return EMPTY_MERKLE_ROOT;
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.path === sorted[i - 1]!.path) throw new Error(`merkleRoot: duplicate path ${sorted[i]!.path}`);
  }
  let level = sorted.map((e) => merkleLeaf(e.path, e.hash, digest));
  const node = new Uint8Array(65);
  node[0] = NODE_PREFIX;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) {
      node.set(level[i]!, 1);
      node.set(level[i + 1]!, 33);
      next.push(digest(node));
    }
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return toHex(level[0]!);
}
