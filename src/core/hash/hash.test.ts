import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EMPTY_MERKLE_ROOT, merkleLeaf, merkleRoot, pathKey, sha256Hex, sha256HexSync, toHex } from './hash.ts';

const nodeSha = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

describe('sha256', () => {
  // Lengths around the 55/56/64-byte padding boundaries and multi-block inputs.
  const inputs: Array<[string, Uint8Array | string]> = [
    ['empty string', ''],
    ['abc', 'abc'],
    ['unicode', 'héllo ✓ 日本語 🚀'],
    ...[1, 55, 56, 63, 64, 65, 119, 120, 1000, 100_003].map((n): [string, Uint8Array] => [
      `${n} bytes`,
      Uint8Array.from({ length: n }, (_, i) => (i * 31 + 7) & 0xff),
    ]),
  ];

  it.each(inputs)('%s: WebCrypto, pure JS and node:crypto agree', async (_name, data) => {
    const expected = nodeSha(data);
    expect(await sha256Hex(data)).toBe(expected);
    expect(sha256HexSync(data)).toBe(expected);
  });

  it('known vector', async () => {
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes a view over a larger buffer by its own bytes only', async () => {
    const buf = new Uint8Array([9, 9, 0x61, 0x62, 0x63, 9]);
    expect(await sha256Hex(buf.subarray(2, 5))).toBe(nodeSha('abc'));
  });

  it('pathKey is the first 16 hex of sha256(path)', async () => {
    expect(await pathKey('/home/me/repo')).toBe(nodeSha('/home/me/repo').slice(0, 16));
    expect(await pathKey('/home/me/repo')).not.toBe(await pathKey('/home/me/repo2'));
  });
});

describe('merkleRoot', () => {
  const files = Array.from({ length: 7 }, (_, i) => ({ path: `src/f${i}.ts`, hash: nodeSha(`content ${i}`) }));

  it('empty set has a defined root', async () => {
    expect(await merkleRoot([])).toBe(EMPTY_MERKLE_ROOT);
    expect(EMPTY_MERKLE_ROOT).toBe(nodeSha(''));
  });

  it('one entry: the root is its leaf', async () => {
    const [f] = files;
    expect(await merkleRoot([f!])).toBe(nodeSha(`${f!.path}\0${f!.hash}`));
    expect(toHex(merkleLeaf(f!.path, f!.hash))).toBe(nodeSha(`${f!.path}\0${f!.hash}`));
  });

  it('matches an independent construction (3 entries: odd node promoted)', async () => {
    const leaves = files.slice(0, 3).map((f) => createHash('sha256').update(`${f.path}\0${f.hash}`).digest());
    const node = (l: Buffer, r: Buffer) => createHash('sha256').update(Buffer.concat([Buffer.of(1), l, r])).digest();
    expect(await merkleRoot(files.slice(0, 3))).toBe(node(node(leaves[0]!, leaves[1]!), leaves[2]!).toString('hex'));
  });

  it('is stable and independent of input order', async () => {
    const a = await merkleRoot(files);
    const shuffled = [files[3]!, files[0]!, files[6]!, files[2]!, files[5]!, files[1]!, files[4]!];
    expect(await merkleRoot(shuffled)).toBe(a);
    expect(await merkleRoot(new Set(files))).toBe(a);
  });

  it.each<[string, (fs: typeof files) => typeof files]>([
    ['a changed hash', (fs) => fs.map((f, i) => (i === 4 ? { ...f, hash: nodeSha('edited') } : f))],
    ['a renamed file', (fs) => fs.map((f, i) => (i === 2 ? { ...f, path: 'src/renamed.ts' } : f))],
    ['a removed file', (fs) => fs.slice(0, -1)],
    ['an added file', (fs) => [...fs, { path: 'z.ts', hash: nodeSha('z') }]],
    ['a duplicated last entry under a new path', (fs) => [...fs, { ...fs[6]!, path: 'src/f6.ts.copy' }]],
  ])('changes with %s', async (_name, edit) => {
    expect(await merkleRoot(edit(files))).not.toBe(await merkleRoot(files));
  });

  it('gives the same root with a native digest (the CLI passes node:crypto\'s)', async () => {
    const calls: number[] = [];
    const native = (data: Uint8Array | string): Uint8Array => (calls.push(1), createHash('sha256').update(data).digest());
    for (const n of [1, 2, 3, 7, 100]) {
      const many = Array.from({ length: n }, (_, i) => ({ path: `dir/ü${i}.go`, hash: nodeSha(`x${i}`) }));
      calls.length = 0;
      expect(await merkleRoot(many, native)).toBe(await merkleRoot(many));
      // Every leaf and every node went through the digest given (n leaves, n - 1 nodes).
      expect(calls).toHaveLength(2 * n - 1);
    }
  });

  it('rejects duplicate paths', async () => {
    await expect(merkleRoot([files[0]!, files[0]!])).rejects.toThrow(/duplicate/);
  });
});

describe('sha256HexSync at buffer boundaries', () => {
  // Lengths around the 64-byte block, the scratch buffer (8192) and the 3-bytes-per-unit
  // string fast path; ASCII, 2-, 3- and 4-byte UTF-8.
  const lengths = [0, 1, 55, 56, 63, 64, 119, 120, 2727, 2728, 2729, 8182, 8183, 8184, 8192, 20_000];
  const alphabets = ['a', 'é', '€', '😀'];
  it.each(alphabets)('agrees with WebCrypto for strings of %s', async (ch) => {
    for (const n of lengths) {
      const s = ch.repeat(Math.ceil(n / ch.length)).slice(0, n);
      expect(sha256HexSync(s), `${n} units`).toBe(await sha256Hex(s));
      const bytes = new TextEncoder().encode(s);
      expect(sha256HexSync(bytes), `${n} units as bytes`).toBe(await sha256Hex(bytes));
    }
  });
});
