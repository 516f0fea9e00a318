/**
 * The static (model2vec) family through the real `bin/sift` (issue 36), with the generated
 * potion-shape model (30,522-token WordPiece, 256 dims; npm run models, regenerated here when
 * missing): index, search with the recorded model, stats naming model and family, switching
 * models (only what the new model lacks is embedded), publish --embed, the Hub path (a local
 * HTTP server stands in for huggingface.co: the real download code runs, nothing leaves the
 * machine) and `sift mcp --model` embedding new chunks in the background.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, runSift } from './run-sift.ts';
import { ensureGeneratedModel } from '../../scripts/gen-models.ts';
import { parsePackManifest, PACK_MANIFEST_NAME } from '../../src/core/store/pack.ts';
import { SCHEMA_VERSION } from '../../src/core/store/schema.ts';

const MODELS = join(ROOT, 'models/generated');
const FIXTURE = join(ROOT, 'test/fixtures/sample-repo');
const KEY = 'potion-shape@static-float32/512';

let work: string;
let repo: string;
let potion: string;
let tiny: string;

type SearchJson = { strategy: string; embedded_ratio: number; results: Array<{ path: string; symbol: string | null; vector_score: number }> };
type IndexJson = { embedding: { embedded: number; total: number; newlyEmbedded: number; model: string; dtype: string } | { skipped: string } };

function sift(args: string[], home = join(work, 'home')) {
  return runSift(args, { home });
}
function json<T>(args: string[], home?: string): T {
  const r = sift(args, home);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/** bin/sift without waiting synchronously (the test process serves HTTP meanwhile). */
function siftAsync(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [join(ROOT, 'bin/sift'), ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sift-static-'));
  repo = join(work, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
  potion = await ensureGeneratedModel('potion-shape', MODELS);
  tiny = await ensureGeneratedModel('tiny', MODELS);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('sift with a static model (generated potion-shape)', () => {
  const db = () => join(work, 'static.db');

  it('index --model embeds every chunk; stats names the model and its family', () => {
    const out = json<IndexJson>(['index', repo, '--db', db(), '--model', potion, '--json']);
    expect(out.embedding).toMatchObject({ model: 'potion-shape', dtype: 'float32' });
    if (!('embedded' in out.embedding)) throw new Error('not embedded');
    expect(out.embedding.embedded).toBe(out.embedding.total);
    const stats = json<{ chunks: number; embeddedChunks: number; model: string; modelFamily: string }>(['stats', repo, '--db', db(), '--json']);
    expect(stats).toMatchObject({ embeddedChunks: stats.chunks, model: KEY, modelFamily: 'static' });
    const human = sift(['stats', repo, '--db', db()]).stdout;
    expect(human).toContain(`embedded:     ${stats.chunks}/${stats.chunks} (${KEY})`);
    expect(human).toContain('model:        potion-shape, static (model2vec) family');
  });

  it('search embeds the query with the recorded model: hybrid and vector-only answers', () => {
    const h = json<SearchJson>(['search', repo, 'retry failed upload', '--db', db(), '--json']);
    expect(h.strategy).toBe('hybrid');
    expect(h.embedded_ratio).toBe(1);
    expect(h.results[0]).toMatchObject({ symbol: 'retry_failed_upload' });
    const v = json<SearchJson>(['search', repo, 'retry failed upload', '--db', db(), '--mode', 'vector', '--json']);
    expect(v.strategy).toBe('vector_only');
    expect(v.results.length).toBeGreaterThan(0);
    expect(v.results.every((r) => r.vector_score !== 0)).toBe(true);
  });

  it('switching models embeds only what the new model lacks; keyword search answers throughout', () => {
    const tdb = join(work, 'switch.db');
    const first = json<IndexJson>(['index', repo, '--db', tdb, '--model', tiny, '--json']);
    if (!('embedded' in first.embedding)) throw new Error('not embedded');
    const total = first.embedding.total;
    // To the static model: every chunk is new for it.
    const toStatic = json<IndexJson>(['index', repo, '--db', tdb, '--model', potion, '--json']);
    expect(toStatic.embedding).toMatchObject({ newlyEmbedded: total, embedded: total, model: 'potion-shape' });
    expect(json<{ modelFamily: string }>(['stats', repo, '--db', tdb, '--json']).modelFamily).toBe('static');
    // A file added, then back to the transformer: only the new file's chunks are embedded
    // (the old chunks' tiny vectors are kept per content and model).
    writeFileSync(join(repo, 'src', 'added.py'), 'def brand_new_helper(x):\n    """A new function."""\n    return x * 2\n');
    try {
      const back = json<IndexJson>(['index', repo, '--db', tdb, '--model', tiny, '--json']);
      if (!('embedded' in back.embedding)) throw new Error('not embedded');
      expect(back.embedding.newlyEmbedded).toBeGreaterThan(0);
      expect(back.embedding.newlyEmbedded).toBeLessThan(total);
      expect(back.embedding.embedded).toBe(back.embedding.total);
      // Keyword search with either model recorded.
      const k = json<SearchJson>(['search', repo, 'brand_new_helper', '--db', tdb, '--mode', 'bm25', '--json']);
      expect(k.results[0]).toMatchObject({ symbol: 'brand_new_helper' });
      // And the static model's vectors are still there: switching again embeds the new file only.
      const again = json<IndexJson>(['index', repo, '--db', tdb, '--model', potion, '--json']);
      if (!('embedded' in again.embedding)) throw new Error('not embedded');
      expect(again.embedding.newlyEmbedded).toBe(back.embedding.newlyEmbedded);
    } finally {
      rmSync(join(repo, 'src', 'added.py'));
    }
  });

  it('publish --embed --model writes the static vectors (256 dims) and names the model in the pack', () => {
    const out = join(work, 'site');
    mkdirSync(out);
    const r = sift(['publish', repo, '--db', join(work, 'publish.db'), '--out', out, '--model', potion, '--embed', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const m = parsePackManifest(readFileSync(join(out, PACK_MANIFEST_NAME), 'utf8'), SCHEMA_VERSION);
    expect(m.contains.embeddings).toMatchObject({ model: KEY, dim: 256, vectors: m.chunks });
  });
});

describe('the Hub path, served locally', () => {
  const ID = 'sift-test/potion-shape';
  let server: Server;
  let url: string;
  const requests: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const m = /^\/sift-test\/potion-shape\/resolve\/main\/([\w.-]+)$/.exec(req.url ?? '');
      const file = m ? join(potion, m[1]!) : null;
      if (!file || !existsSync(file)) {
        res.writeHead(404).end('Entry not found');
        return;
      }
      const body = readFileSync(file);
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('downloads a static model into $SIFT_HOME/models/<id>/ once, then works offline', async () => {
    const home = join(work, 'home-hub');
    const hdb = join(work, 'hub.db');
    // Offline (the person has not agreed to downloads): nothing is requested.
    const off = await siftAsync(['index', repo, '--db', hdb, '--model', ID, '--json'], { SIFT_HOME: home, SIFT_OFFLINE: '1', SIFT_HUB_URL: url });
    expect(off.code, off.stderr).toBe(0);
    expect((JSON.parse(off.stdout) as IndexJson).embedding).toMatchObject({ skipped: expect.stringMatching(/downloads are off/) });
    expect(requests).toEqual([]);

    const r = await siftAsync(['index', repo, '--db', hdb, '--model', ID, '--json'], { SIFT_HOME: home, SIFT_OFFLINE: '0', SIFT_HUB_URL: url });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as IndexJson;
    expect(out.embedding).toMatchObject({ model: ID, dtype: 'float32' });
    expect(requests).toEqual(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => `/${ID}/resolve/main/${f}`));
    for (const f of ['config.json', 'model.safetensors', 'tokenizer.json']) {
      // (Buffer.equals: a deep toEqual over 31 MB takes minutes.)
      expect(readFileSync(join(home, 'models', ID, f)).equals(readFileSync(join(potion, f))), f).toBe(true);
    }
    // Later runs read the cached copy: no request, with or without downloads allowed.
    const s = await siftAsync(['search', repo, 'retry failed upload', '--db', hdb, '--json'], { SIFT_HOME: home, SIFT_OFFLINE: '1', SIFT_HUB_URL: url });
    expect(s.code, s.stderr).toBe(0);
    expect((JSON.parse(s.stdout) as SearchJson).strategy).toBe('hybrid');
    const again = await siftAsync(['index', repo, '--db', hdb, '--model', ID, '--json'], { SIFT_HOME: home, SIFT_OFFLINE: '0', SIFT_HUB_URL: url });
    expect(again.code, again.stderr).toBe(0);
    expect(requests.length).toBe(3);
    const st = await siftAsync(['stats', repo, '--db', hdb, '--json'], { SIFT_HOME: home });
    expect(JSON.parse(st.stdout)).toMatchObject({ model: `${ID}@static-float32/512`, modelFamily: 'static' });
  }, 120_000);

  it('a Hub that cannot be reached: keyword index kept, not asked again for a while, asked again after', async () => {
    const home = join(work, 'home-hub-down');
    const db = join(work, 'hub-down.db');
    // A port nothing listens on: the connection is refused.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const down = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    const first = await siftAsync(['index', repo, '--db', db, '--model', ID, '--json'], { SIFT_HOME: home, SIFT_OFFLINE: '0', SIFT_HUB_URL: down });
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as IndexJson).embedding).toMatchObject({ skipped: expect.stringMatching(/could not be reached \(fetch failed: ECONNREFUSED\)/) });
    const record = join(home, 'models', '.hub-unreachable.json');
    expect(JSON.parse(readFileSync(record, 'utf8'))).toMatchObject({ hub: down });
    // The next index does not ask (it would be refused again): it says when it asks next.
    const second = await siftAsync(['index', repo, '--db', db, '--model', ID, '--json'], { SIFT_HOME: home, SIFT_OFFLINE: '0', SIFT_HUB_URL: down });
    expect(second.code, second.stderr).toBe(0);
    expect((JSON.parse(second.stdout) as IndexJson).embedding).toMatchObject({ skipped: expect.stringMatching(/not downloaded — at \d\d:\d\d .*could not be reached.*asks it again from \d\d:\d\d/) });
    // Ten minutes later it asks again.
    writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), at: Date.now() - 11 * 60_000 }));
    const later = await siftAsync(['index', repo, '--db', db, '--model', ID, '--json'], { SIFT_HOME: home, SIFT_OFFLINE: '0', SIFT_HUB_URL: down });
    expect((JSON.parse(later.stdout) as IndexJson).embedding).toMatchObject({ skipped: expect.stringMatching(/^[^—]*could not be reached \(fetch failed: ECONNREFUSED\)/) });
    expect(Date.now() - (JSON.parse(readFileSync(record, 'utf8')) as { at: number }).at).toBeLessThan(60_000);
    // Another Hub address is asked (the record is for the one that failed); its download clears the record.
    const before = requests.length;
    const other = await siftAsync(['index', repo, '--db', db, '--model', ID, '--json'], { SIFT_HOME: home, SIFT_OFFLINE: '0', SIFT_HUB_URL: url });
    expect(other.code, other.stderr).toBe(0);
    expect((JSON.parse(other.stdout) as IndexJson).embedding).toMatchObject({ model: ID });
    expect(requests.length).toBeGreaterThan(before);
    expect(existsSync(record)).toBe(false);
  }, 120_000);

  it('a model the Hub does not have: a clear reason, keyword index kept', async () => {
    const home = join(work, 'home-hub-missing');
    const r = await siftAsync(['index', repo, '--db', join(work, 'hub-missing.db'), '--model', 'sift-test/nothing-here', '--json'], { SIFT_HOME: home, SIFT_OFFLINE: '0', SIFT_HUB_URL: url });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as IndexJson).embedding).toMatchObject({ skipped: expect.stringMatching(/config\.json is missing/) });
  }, 60_000);
});

describe('sift mcp --model (static)', () => {
  it('embeds the index and then new chunks in the background; answers never wait for it', async () => {
    const dir = join(work, 'mcp-repo');
    cpSync(FIXTURE, dir, { recursive: true });
    const home = join(work, 'home-mcp');
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'bin/sift'), 'mcp', dir, '--model', potion],
      env: { ...process.env, SIFT_HOME: home, SIFT_OFFLINE: '1' } as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const c = new Client({ name: 'sift-static-test', version: '1.0.0' });
    await c.connect(transport);
    type Search = { strategy: string; embedded_share: number; results: Array<{ path: string; symbol?: string }> };
    const search = async (args: Record<string, unknown>) => (await c.callTool({ name: 'search', arguments: args })).structuredContent as Search;
    const until = async (check: () => Promise<boolean>, ms: number): Promise<void> => {
      const t0 = Date.now();
      while (!(await check())) {
        if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms; server stderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      // Keyword answers come as the first index stores files (it needs no model).
      await until(async () => (await search({ query: 'getUserName', mode: 'keyword' })).results[0]?.path === 'src/auth/session.ts', 30_000);
      await until(async () => (await search({ query: 'retry failed upload' })).strategy === 'hybrid', 60_000);
      expect((await search({ query: 'retry failed upload' })).embedded_share).toBe(1);
      const status = (await c.callTool({ name: 'status', arguments: {} })).structuredContent as { codebases: Array<{ model: string; model_family: string }> };
      expect(status.codebases[0]).toMatchObject({ model: KEY, model_family: 'static' });
      // A new file: indexed on the next call, then embedded in the background.
      writeFileSync(join(dir, 'src', 'fresh.py'), 'def rotate_access_tokens(store):\n    """Replace every expired token."""\n    return store.rotate()\n');
      const fresh = await search({ query: 'rotate_access_tokens', mode: 'keyword' });
      expect(fresh.results[0]?.path).toBe('src/fresh.py');
      await until(async () => {
        const s = await search({ query: 'rotate access tokens', mode: 'semantic' });
        return s.embedded_share === 1 && s.results.some((r) => r.path === 'src/fresh.py');
      }, 60_000);
      expect(stderr).toMatch(/embedding new chunks in the background with potion-shape \(static\)/);
    } finally {
      await c.close();
    }
  }, 180_000);
});
