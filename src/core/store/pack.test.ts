// The pack contract (issue 27): a manifest this Sift cannot read is a clear PackError, never
// an exception from deep inside; a manifest can only name a pack beside it; only allowed
// origins are fetched.
import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64, PackError, packDatabaseBytes, packFileName, packHashTable, packUrl, packVectorsFit, parsePackManifest } from './pack.ts';
import { originAllowed, resolveManifestUrl } from './pack-http.ts';
import { SCHEMA_VERSION } from './schema.ts';
import { phraseTokens } from './open-pack.ts';

const sha = 'ab'.repeat(32);
function manifest(over: Record<string, unknown> = {}): string {
  const pageSize = 4096;
  const bytes = pageSize * 3;
  return JSON.stringify({
    format: 1, name: 'demo', commit: null, created: '2026-11-27T10:00:00.000Z', pack: `demo-${sha.slice(0, 16)}.sift`, bytes, sha256: sha,
    pageSize, pageHashes: encodeBase64(new Uint8Array(24)), schemaVersion: SCHEMA_VERSION, files: 2, chunks: 5, sourceBytes: 100,
    contains: { keyword: true, text: true, definitions: true, embeddings: null }, stats: {}, sift: '0.1.0', ...over,
  });
}

describe('parsePackManifest', () => {
  it('reads a well-formed manifest', () => {
    const m = parsePackManifest(manifest({ layout: { prefetch: [[1, 2]], tables: { chunks: 3 } } }), SCHEMA_VERSION);
    expect(m.name).toBe('demo');
    expect(m.layout).toEqual({ prefetch: [[1, 2]], tables: { chunks: 3 } });
    expect(m.stats.languages).toEqual({});
  });

  it('reads a format 2 manifest whose pack carries a copy of its layout pages after the database', () => {
    // 3 database pages, then a copy of pages 1 and 3.
    const m = parsePackManifest(manifest({ format: 2, bytes: 4096 * 5, layout: { prefetch: [[1, 1], [3, 1]], tables: {}, head: 4096 * 3 } }), SCHEMA_VERSION);
    expect(m.layout?.head).toBe(4096 * 3);
    expect(packDatabaseBytes(m)).toBe(4096 * 3);
    expect(packHashTable(m)).toBeNull(); // the hashes are in the manifest
    expect(packDatabaseBytes(parsePackManifest(manifest(), SCHEMA_VERSION))).toBe(4096 * 3);
  });

  it('reads a format 2 manifest whose pack keeps its page hashes (one padded page) before the copy', () => {
    const { pageHashes: _, ...rest } = JSON.parse(manifest()) as Record<string, unknown>;
    const m = parsePackManifest(JSON.stringify({ ...rest, format: 2, bytes: 4096 * 6, layout: { prefetch: [[1, 1], [3, 1]], tables: {}, head: 4096 * 3, hashes: 'cd'.repeat(32) } }), SCHEMA_VERSION);
    expect(m.pageHashes).toBeUndefined();
    expect(packHashTable(m)).toEqual({ at: 4096 * 3, bytes: 24, padded: 4096, sha256: 'cd'.repeat(32) });
    // Without the padded page of hashes the sizes do not add up.
    expect(() => parsePackManifest(JSON.stringify({ ...rest, format: 2, bytes: 4096 * 5, layout: { prefetch: [[1, 1], [3, 1]], tables: {}, head: 4096 * 3, hashes: 'cd'.repeat(32) } }), SCHEMA_VERSION)).toThrow(/"layout"/);
    // Neither in the manifest nor in the pack: refused.
    expect(() => parsePackManifest(JSON.stringify({ ...rest, format: 2, bytes: 4096 * 5, layout: { prefetch: [[1, 1], [3, 1]], tables: {}, head: 4096 * 3 } }), SCHEMA_VERSION)).toThrow(/"pageHashes"/);
    expect(() => parsePackManifest(JSON.stringify({ ...rest, format: 2, bytes: 4096 * 6, layout: { prefetch: [[1, 1], [3, 1]], tables: {}, head: 4096 * 3, hashes: 'nothex' } }), SCHEMA_VERSION)).toThrow(/"layout"/);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['no format', '{}', /not a Sift index manifest/],
    ['a newer format', manifest({ format: 3 }), /format 3 by a newer Sift.*formats 1–2.*Update the app/],
    ['an unknown format', manifest({ format: 0 }), /format 0.*formats 1–2/],
    ['a copy that is not the layout pages', manifest({ format: 2, bytes: 4096 * 5, layout: { prefetch: [[1, 1]], tables: {}, head: 4096 * 3 } }), /"layout"/],
    ['a copy inside the database', manifest({ format: 2, bytes: 4096 * 5, layout: { prefetch: [[1, 1], [3, 1]], tables: {}, head: 4096 * 2 + 1 } }), /"layout"/],
    ['page hashes for the copy too', manifest({ format: 2, bytes: 4096 * 5, pageHashes: encodeBase64(new Uint8Array(40)), layout: { prefetch: [[1, 1], [3, 1]], tables: {}, head: 4096 * 3 } }), /"pageHashes"/],
    ['a newer schema', manifest({ schemaVersion: SCHEMA_VERSION + 1 }), /newer Sift/],
    ['an older schema', manifest({ schemaVersion: SCHEMA_VERSION - 1 }), /older Sift.*again/],
    ['a pack in another folder', manifest({ pack: `../x-${sha.slice(0, 16)}.sift` }), /"pack"/],
    ['a pack URL', manifest({ pack: `https://evil.example/x-${sha.slice(0, 16)}.sift` }), /"pack"/],
    ['a pack name without its hash', manifest({ pack: 'demo-0000000000000000.sift' }), /does not carry its hash/],
    ['a size that is not whole pages', manifest({ bytes: 4097 }), /"bytes"/],
    ['page hashes of another length', manifest({ pageHashes: encodeBase64(new Uint8Array(16)) }), /"pageHashes"/],
    ['a layout page past the end', manifest({ layout: { prefetch: [[3, 2]], tables: {} } }), /"layout"/],
    ['a bad embeddings entry', manifest({ contains: { keyword: true, text: true, definitions: true, embeddings: { model: '', dim: 0 } } }), /contains.embeddings/],
  ])('refuses %s with a clear message', (_what, text, message) => {
    expect(() => parsePackManifest(text, SCHEMA_VERSION)).toThrow(PackError);
    expect(() => parsePackManifest(text, SCHEMA_VERSION)).toThrow(message);
  });
});

describe('which model a pack\'s vectors fit', () => {
  it('takes a model by its name whatever folder named it, with the same dtype, token limit and dimension', () => {
    const e = { model: 'all-MiniLM-L6-v2@q8/256', dim: 384 };
    expect(packVectorsFit(e, { key: 'all-MiniLM-L6-v2@q8/256', dim: 384 })).toBe(true);
    expect(packVectorsFit(e, { key: 'Xenova/all-MiniLM-L6-v2@q8/256', dim: 384 })).toBe(true);
    expect(packVectorsFit({ model: 'generated/minilm-shape@q8/256', dim: 384 }, { key: 'minilm-shape@q8/256', dim: 384 })).toBe(true);
    expect(packVectorsFit(e, { key: 'Xenova/all-MiniLM-L6-v2@fp32/256', dim: 384 })).toBe(false);
    expect(packVectorsFit(e, { key: 'Xenova/all-MiniLM-L6-v2@q8/512', dim: 384 })).toBe(false);
    expect(packVectorsFit(e, { key: 'Xenova/all-MiniLM-L6-v2@q8/256', dim: 768 })).toBe(false);
    expect(packVectorsFit(e, { key: 'Xenova/bge-small-en-v1.5@q8/256', dim: 384 })).toBe(false);
  });
});

describe('pack names and URLs', () => {
  it('names a pack by its content hash, with a safe base name', () => {
    expect(packFileName('linux', sha)).toBe(`linux-${sha.slice(0, 16)}.sift`);
    expect(packFileName('../a b/c', sha)).toBe(`a-b-c-${sha.slice(0, 16)}.sift`);
  });

  it('resolves the pack beside its manifest', () => {
    expect(packUrl('https://h.example/sift/packs/linux/sift-index.json', { pack: `linux-${sha.slice(0, 16)}.sift` })).toBe(`https://h.example/sift/packs/linux/linux-${sha.slice(0, 16)}.sift`);
  });

  it('base64 round trip', () => {
    const b = new Uint8Array(70_000).map((_, i) => i * 7);
    expect(decodeBase64(encodeBase64(b))).toEqual(b);
  });
});

describe('manifest URLs and origins', () => {
  const app = 'https://team.example/tools/sift/#q=x';
  it('resolves a URL relative to the app, and allows the app origin', () => {
    expect(resolveManifestUrl('packs/linux/sift-index.json', app, []).href).toBe('https://team.example/tools/sift/packs/linux/sift-index.json');
    expect(originAllowed(new URL('https://team.example/x'), 'https://team.example', [])).toBe(true);
  });
  it('refuses another origin unless the deploy listed it', () => {
    expect(() => resolveManifestUrl('https://packs.example/a/sift-index.json', app, [])).toThrow(/own site only.*SIFT_PACK_ORIGINS/);
    expect(resolveManifestUrl('https://packs.example/a/sift-index.json', app, ['https://packs.example']).origin).toBe('https://packs.example');
  });
  it('refuses what is not http(s)', () => {
    expect(() => resolveManifestUrl('javascript:alert(1)', app, [])).toThrow(/http/);
    expect(() => resolveManifestUrl('file:///etc/passwd', app, [])).toThrow(/http/);
  });
});

describe('phraseTokens (doclist prefetch of a pack)', () => {
  it('tokenizes phrases as unicode61 does and marks the last token of a prefix phrase', () => {
    expect(phraseTokens(['"atomic_inc"*', '"buffer"', '"Page"*', '"say ""hi"""'])).toEqual([
      { token: 'atomic', prefix: false }, { token: 'inc', prefix: true },
      { token: 'buffer', prefix: false },
      { token: 'page', prefix: true },
      { token: 'say', prefix: false }, { token: 'hi', prefix: false },
    ]);
    expect(phraseTokens(['""', '"_"*'])).toEqual([]);
  });

  it('reads a column-filtered phrase\'s quoted words, not its column names', () => {
    expect(phraseTokens(['path_words : "de"', '{names path_words tokens} : ("proxies" OR "proxied"*)'])).toEqual([
      { token: 'de', prefix: false },
      { token: 'proxies', prefix: false }, { token: 'proxied', prefix: true },
    ]);
  });
});
