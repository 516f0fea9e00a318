/**
 * `sift publish` (issue 27) end to end: the real bin/sift on a copy of test/fixtures/sample-repo,
 * then the pack read back the way a reader reads it (openNodePack: read-only, no migration).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runSift } from './run-sift.ts';
import { openNodePack, openNodeStore } from '../../src/core/store/open-node.ts';
import { packFileName, parsePackManifest, PACK_MANIFEST_NAME, type PackManifest } from '../../src/core/store/pack.ts';
import { SCHEMA_VERSION } from '../../src/core/store/schema.ts';
import { Searcher } from '../../src/core/search/search.ts';
import { grep, type GrepRequest } from '../../src/core/search/grep.ts';
import { openPackVectors } from '../../src/core/vector/pack-vectors.ts';
import type { Store } from '../../src/core/store/store.ts';

const FIXTURE = join(ROOT, 'test/fixtures/sample-repo');
const TINY = join(ROOT, 'models/generated/tiny');

interface PublishJson {
  manifest_path: string;
  pack_path: string;
  reused: boolean;
  manifest: PackManifest;
  older_packs: string[];
  previous_pack: string | null;
  pruned: string[];
  index: { unchanged: boolean };
}

let work: string;
let repo: string;
let db: string;
let out: string;
let first: PublishJson;
let pack: Store;
let source: Store;
let commit: string | null = null;

function sift(args: string[], input?: string) {
  return runSift(args, { home: join(work, 'home'), input });
}

function publish(args: string[]): PublishJson {
  const r = sift(['publish', repo, '--db', db, '--json', ...args]);
  expect(r.stderr, r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as PublishJson;
}

function git(args: string[]): string | null {
  const r = spawnSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sift-publish-'));
  repo = join(work, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
  db = join(work, 'index.db');
  out = join(work, 'site');
  // A git work tree (when git is here): the manifest names its commit.
  if (git(['init', '-q']) !== null && git(['add', '-A']) !== null && git(['commit', '-q', '-m', 'fixture']) !== null) commit = git(['rev-parse', 'HEAD']);
  first = publish(['--out', out]);
  pack = await openNodePack(first.pack_path, { chunks: first.manifest.chunks });
  source = await openNodeStore(db, { existing: true });
});

afterAll(async () => {
  await pack?.close();
  await source?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('sift publish', () => {
  it('writes a manifest a reader accepts, naming a pack whose bytes it describes', () => {
    const text = readFileSync(join(out, PACK_MANIFEST_NAME), 'utf8');
    const m = parsePackManifest(text, SCHEMA_VERSION);
    expect(m).toEqual(first.manifest);
    expect(first.manifest_path).toBe(join(out, PACK_MANIFEST_NAME));
    expect(first.pack_path).toBe(join(out, m.pack));
    expect(m.name).toBe('repo');
    expect(m.pack).toBe(packFileName('repo', m.sha256));
    expect(m.pack).toContain(m.sha256.slice(0, 16));
    expect(sha256(first.pack_path)).toBe(m.sha256);
    expect(statSync(first.pack_path).size).toBe(m.bytes);
    // Default page size, as SQLite's header says (bytes 16-17, big-endian; 1 means 65536).
    const header = readFileSync(first.pack_path).subarray(0, 100);
    const raw = header.readUInt16BE(16);
    expect(raw === 1 ? 65536 : raw).toBe(m.pageSize);
    expect(m.pageSize).toBe(4096); // the default (cmd-publish.ts DEFAULT_PACK_PAGE_SIZE, docs/cli.md)
    // The database (as many pages as SQLite's header counts: bytes 28-31), then its page hashes
    // (one 8-byte SHA-256 prefix per page, zero-padded to whole pages; the manifest has their
    // SHA-256, not them), then a copy of the layout's pages in run order.
    const bytes = readFileSync(first.pack_path);
    const dbPages = header.readUInt32BE(28);
    expect(m.format).toBe(2);
    expect(m.pageHashes).toBeUndefined();
    expect(m.layout?.head).toBe(dbPages * m.pageSize);
    const hashes = bytes.subarray(m.layout!.head!, m.layout!.head! + dbPages * 8);
    expect(createHash('sha256').update(hashes).digest('hex')).toBe(m.layout?.hashes);
    for (let p = 0; p < dbPages; p++) {
      const want = createHash('sha256').update(bytes.subarray(p * m.pageSize, (p + 1) * m.pageSize)).digest().subarray(0, 8);
      expect(hashes.subarray(p * 8, p * 8 + 8).equals(want)).toBe(true);
    }
    let at = m.layout!.head! + Math.ceil((dbPages * 8) / m.pageSize) * m.pageSize;
    expect(bytes.subarray(m.layout!.head! + dbPages * 8, at).every((b) => b === 0)).toBe(true);
    for (const [f, n] of m.layout!.prefetch) {
      expect(bytes.subarray(at, at + n * m.pageSize).equals(bytes.subarray((f - 1) * m.pageSize, (f - 1 + n) * m.pageSize))).toBe(true);
      at += n * m.pageSize;
    }
    expect(at).toBe(m.bytes);
    // The manifest stays small: no per-page data in it.
    expect(readFileSync(join(out, PACK_MANIFEST_NAME)).length).toBeLessThan(8192);
    expect(m.commit).toBe(commit);
    expect(m.schemaVersion).toBe(SCHEMA_VERSION);
    expect(m.sift).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect(m.contains).toEqual({ keyword: true, text: true, definitions: true, embeddings: null });
    // The sample repo's eight indexed files, in five-plus languages.
    expect(m.files).toBe(8);
    expect(m.chunks).toBeGreaterThan(7);
    expect(Object.keys(m.stats.languages)).toEqual(expect.arrayContaining(['typescript', 'python', 'c', 'go', 'rust', 'markdown']));
    expect(m.stats.symbols).toBeGreaterThan(0);
    expect(m.stats.skipped?.total).toBeGreaterThan(0);
    expect(m.sourceBytes).toBe(Object.values(m.stats.languages).reduce((a, l) => a + l.bytes, 0));
    expect(readFileSync(join(out, PACK_MANIFEST_NAME), 'utf8')).not.toMatch(/\.sift-publish-/);
  });

  it('lays the pack out for reading: page size, no auto-vacuum, no free pages, no journal, one FTS segment', async () => {
    const one = async <T>(sql: string) => Object.values((await pack.db.get<Record<string, T>>(sql)) ?? {})[0];
    expect(await one<number>('PRAGMA page_size')).toBe(first.manifest.pageSize);
    expect(await one<number>('PRAGMA auto_vacuum')).toBe(0);
    expect(await one<number>('PRAGMA freelist_count')).toBe(0);
    expect(await one<string>('PRAGMA journal_mode')).toBe('delete');
    expect(await one<number>('PRAGMA user_version')).toBe(SCHEMA_VERSION);
    expect(await one<number>('SELECT count(*) FROM embeddings')).toBe(0);
    expect(await pack.chunkCount()).toBe(first.manifest.chunks);
    expect(await one<number>('SELECT count(*) FROM chunks')).toBe(first.manifest.chunks);
    const meta = Object.fromEntries((await pack.db.all<{ key: string; value: string }>('SELECT key, value FROM meta')).map((r) => [r.key, r.value]));
    expect(meta).not.toHaveProperty('skipped_files');
    expect(meta).not.toHaveProperty('model_spec');
    expect(meta).not.toHaveProperty('vectors_stamp');
    expect(meta).not.toHaveProperty('model_key');
    expect(meta.codebase_name).toBe('repo');
    expect(meta.run_state).toBe('complete');
    expect(existsSync(`${first.pack_path}-journal`)).toBe(false);
    // Read-only: SQLite's own check (the FTS5 integrity-check is an INSERT; publish ran it before naming the pack).
    expect((await pack.db.all<{ integrity_check: string }>('PRAGMA integrity_check')).map((r) => r.integrity_check)).toEqual(['ok']);
    // Still one SQLite database to other tools, the copy after it ignored (Debian's sqlite3 where installed).
    const native = spawnSync('sqlite3', ['-readonly', first.pack_path, 'PRAGMA integrity_check; SELECT count(*) FROM chunks;'], { encoding: 'utf8' });
    if (!native.error) expect(native.stdout.trim().split('\n')).toEqual(['ok', String(first.manifest.chunks)]);
    // FTS5's structure record (chunks_fts_data id 10): 4-byte cookie, [v2 marker], nLevel, nSegment varints.
    const block = (await pack.db.get<{ block: Uint8Array }>('SELECT block FROM chunks_fts_data WHERE id = 10'))!.block;
    let at = block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1 ? 8 : 4;
    const varint = (): number => {
      let v = 0;
      for (;;) {
        const c = block[at++];
        v = v * 128 + (c & 0x7f);
        if (!(c & 0x80)) return v;
      }
    };
    varint(); // levels
    expect(varint()).toBe(1); // segments
  });

  it('ranks exactly as sift search does on the source index', async () => {
    const queries = ['getUserName', 'retry failed upload', 'parse config', 'allocate page', 'user name', 'deploy script', 'session token expiry'];
    const r = sift(['search', repo, '--db', db, '--stdin', '--json', '--limit', '10'], queries.join('\n') + '\n');
    expect(r.code, r.stderr).toBe(0);
    const cli = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { strategy: string; results: Array<{ path: string; start_line: number; end_line: number; symbol: string | null }> });
    expect(cli).toHaveLength(queries.length);
    const searcher = new Searcher(pack);
    const direct = new Searcher(source);
    for (const [i, q] of queries.entries()) {
      const got = await searcher.search(q, { limit: 10 });
      const want = cli[i].results.map((x) => [x.path, x.start_line, x.end_line, x.symbol]);
      expect(want.length, q).toBeGreaterThan(0);
      expect(got.results.map((x) => [x.path, x.startLine, x.endLine, x.symbol]), q).toEqual(want);
      // Same chunk ids as the source index (VACUUM keeps rowids).
      expect(got.results.map((x) => x.id), q).toEqual((await direct.search(q, { limit: 10 })).results.map((x) => x.id));
      expect(got.strategy).toBe(cli[i].strategy);
    }
  });

  it('greps the same lines as the source index', async () => {
    const requests: GrepRequest[] = [
      { pattern: 'def ', mode: 'exact' },
      { pattern: 'return', mode: 'exact', ignoreCase: true },
      { pattern: '^\\s*(func|fn|def|function)\\b', mode: 'regex' },
      { pattern: 'alloc\\w*', mode: 'regex', path: 'lib/**' },
    ];
    for (const req of requests) {
      const got = await grep(pack, req);
      const want = await grep(source, req);
      expect(got.results.length, req.pattern).toBeGreaterThan(0);
      expect(got.results, req.pattern).toEqual(want.results);
      expect(got.totalMatches).toBe(want.totalMatches);
      expect(got.filesIndexed).toBe(want.filesIndexed);
    }
  });

  it('is read-only: writes fail and the file is not writable', async () => {
    await expect(pack.db.run("INSERT INTO meta(key, value) VALUES ('x', 'y')")).rejects.toThrow();
    await expect(pack.db.run('DELETE FROM chunks')).rejects.toThrow();
    expect(statSync(first.pack_path).mode & 0o222).toBe(0);
    expect(sha256(first.pack_path)).toBe(first.manifest.sha256);
  });

  it('publishes an unchanged tree again to the same pack, with a valid manifest', () => {
    const again = publish(['--out', out]);
    expect(again.index.unchanged).toBe(true);
    expect(again.manifest.pack).toBe(first.manifest.pack);
    expect(again.reused).toBe(true);
    expect(again.older_packs).toEqual([]);
    expect(() => parsePackManifest(readFileSync(join(out, PACK_MANIFEST_NAME), 'utf8'), SCHEMA_VERSION)).not.toThrow();
    expect(sha256(first.pack_path)).toBe(first.manifest.sha256);
  });

  it('keeps older packs unless --prune, which keeps the new one and the previous manifest\'s', () => {
    const small = publish(['--out', out, '--page-size', '2048', '--name', 'sample']);
    expect(small.manifest.pageSize).toBe(2048);
    expect(small.manifest.name).toBe('sample');
    expect(small.manifest.pack).toMatch(/^sample-[0-9a-f]{16}\.sift$/);
    expect(small.manifest.bytes % 2048).toBe(0);
    expect(small.manifest.bytes).toBeLessThan(first.manifest.bytes);
    expect(small.older_packs).toEqual([first.manifest.pack]);
    expect(small.previous_pack).toBe(first.manifest.pack);
    expect(existsSync(first.pack_path)).toBe(true);

    writeFileSync(join(out, 'old-0000000000000000.sift'), 'x');
    const human = sift(['publish', repo, '--db', db, '--out', out, '--page-size', '8192', '--name', 'sample']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/pack: .*sample-[0-9a-f]{16}\.sift/);
    expect(human.stdout).toContain('page size 8192');
    expect(human.stdout).toContain(`manifest: ${join(out, PACK_MANIFEST_NAME)}`);
    expect(human.stdout).toContain(`${small.manifest.pack} (the previous manifest's)`);
    expect(human.stdout).toContain('old-0000000000000000.sift');

    const pruned = publish(['--out', out, '--page-size', '16384', '--name', 'sample', '--prune']);
    expect(pruned.pruned.sort()).toEqual([first.manifest.pack, small.manifest.pack, 'old-0000000000000000.sift'].sort());
    expect(pruned.older_packs).toHaveLength(1); // the 8 KB pack, named by the previous manifest
    expect(existsSync(pruned.pack_path)).toBe(true);
    expect(existsSync(join(out, pruned.older_packs[0]))).toBe(true);
  });

  it('keeps --out out of the index when it lies inside <dir>', () => {
    const inside = join(repo, 'public', 'index');
    const r = publish(['--out', inside]);
    expect(r.manifest.files).toBe(first.manifest.files);
    // Once --out exists, the walk counts it as ignored (skip stats change once), and indexes none of it.
    const again = publish(['--out', inside]);
    expect(again.manifest.files).toBe(first.manifest.files);
    expect(again.index.unchanged).toBe(true);
    expect(again.manifest.stats.skipped?.examples).toContainEqual({ path: 'public/index', reason: 'ignored' });
    const third = publish(['--out', inside]);
    expect(third.manifest.pack).toBe(again.manifest.pack);
    expect(third.reused).toBe(true);
  });

  it('fails with one clear line and a usage exit code on bad arguments', () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    const cases: Array<[string[], RegExp]> = [
      [['publish', repo], /missing --out/],
      [['publish', repo, '--out', file], /--out is not a folder/],
      [['publish', join(work, 'nope'), '--out', out], /no such folder/],
      [['publish', file, '--out', out], /not a folder/],
      [['publish', repo, '--out', repo], /must not be the published folder/],
      [['publish', repo, '--out', out, '--page-size', '3000'], /--page-size must be a power of two/],
      [['publish', repo, '--out', out, '--page-size', '131072'], /--page-size must be a power of two/],
      [['publish', repo, '--out', out, '--embed', '--no-embed'], /contradict/],
      [['publish', repo, '--out', out, '--name', ' '], /--name/],
    ];
    for (const [args, message] of cases) {
      const r = sift(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    expect(readdirSync(out).filter((f) => f.startsWith('.sift-publish-'))).toEqual([]);
  });

  it('--embed computes embeddings with the model and writes partitioned vectors', async () => {
    const eout = join(work, 'site-embed');
    mkdirSync(eout);
    const r = sift(['publish', repo, '--db', join(work, 'embed.db'), '--out', eout, '--model', TINY, '--embed', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout) as PublishJson;
    const m = parsePackManifest(readFileSync(join(eout, PACK_MANIFEST_NAME), 'utf8'), SCHEMA_VERSION);
    expect(m.contains.embeddings).toMatchObject({ model: expect.stringMatching(/tiny/), vectors: m.chunks });
    expect(m.contains.embeddings!.dim).toBeGreaterThan(0);
    expect(m.contains.embeddings!.partitions).toBeGreaterThanOrEqual(1);
    const p = await openNodePack(res.pack_path, { chunks: m.chunks });
    try {
      const tables = (await p.db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'pack_vector%'")).map((t) => t.name);
      expect(tables.length).toBeGreaterThan(0);
      expect((await p.db.get<{ n: number }>('SELECT count(*) AS n FROM embeddings'))?.n).toBe(0);
      expect(await p.getMeta('model_key')).toBe(m.contains.embeddings!.model);
      expect(await p.getMeta('model_spec')).toBeNull();
      // The reader's side opens them: every chunk's vector, and a query finds chunks of the pack.
      const dim = m.contains.embeddings!.dim;
      const vectors = await openPackVectors(p.db, dim);
      expect(vectors.size).toBe(m.contains.embeddings!.vectors);
      const q = new Float32Array(dim).fill(1 / Math.sqrt(dim));
      const hits = await vectors.search(q, 5);
      expect(hits.length).toBe(Math.min(5, m.chunks));
      const chunkIds = new Set((await p.db.all<{ id: number }>('SELECT id FROM chunks')).map((r) => r.id));
      expect(hits.every((h) => chunkIds.has(h.id))).toBe(true);
      vectors.dispose();
    } finally {
      await p.close();
    }
  });
});
