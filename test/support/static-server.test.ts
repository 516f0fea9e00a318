// The static server of the published-index tests and bench (static-server.ts): ranges,
// suffix ranges, 416, traversal, the no-range and gzip modes, HEAD, the delay and the byte
// counters. Requests go through node:http with the path exactly as written (fetch would
// normalise `/../` away before the server saw it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, constants as h2 } from 'node:http2';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseRange, resolvePath, startStaticServer, type RunningStaticServer } from './static-server.ts';
import { byterangesBoundary, parseByteranges } from '../../src/core/store/byteranges.ts';

interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
}

function get(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Got> {
  const u = new URL(base);
  const t0 = performance.now();
  return new Promise((ok, fail) => {
    const req = request({ host: u.hostname, port: u.port, path, method, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts), ms: performance.now() - t0 }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

let tmp: string;
let app: string;
let packs: string;
/** 1,000 bytes: byte i is i % 251, so any slice says where it came from. */
const PACK = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
const slice = (a: number, b: number) => PACK.subarray(a, b + 1);

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'sift-static-'));
  app = join(tmp, 'app');
  packs = join(tmp, 'packs');
  mkdirSync(join(app, 'assets'), { recursive: true });
  mkdirSync(join(packs, 'demo'), { recursive: true });
  writeFileSync(join(app, 'index.html'), '<!doctype html><title>app</title>');
  writeFileSync(join(app, 'assets', 'a.js'), 'export {};');
  writeFileSync(join(app, 'assets', 'm.wasm'), Buffer.from([0, 97, 115, 109]));
  writeFileSync(join(app, 'manifest.webmanifest'), '{}');
  writeFileSync(join(packs, 'demo', 'sift-index.json'), '{"format":1}');
  writeFileSync(join(packs, 'demo', 'demo-0123456789abcdef.sift'), PACK);
  writeFileSync(join(packs, 'demo', 'empty.sift'), '');
  writeFileSync(join(tmp, 'secret.txt'), 'outside every root');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const PACK_PATH = '/packs/demo/demo-0123456789abcdef.sift';
let server: RunningStaticServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});
async function start(o: Omit<Parameters<typeof startStaticServer>[0], 'roots'> = {}): Promise<RunningStaticServer> {
  server = await startStaticServer({ roots: [{ prefix: '/', dir: app }, { prefix: '/packs/', dir: packs }], ...o });
  return server;
}

describe('parseRange', () => {
  it.each([
    [undefined, { kind: 'whole' }],
    ['bytes=0-99', { kind: 'range', start: 0, end: 99 }],
    ['bytes=990-5000', { kind: 'range', start: 990, end: 999 }],
    ['bytes=500-', { kind: 'range', start: 500, end: 999 }],
    ['bytes=-10', { kind: 'range', start: 990, end: 999 }],
    ['bytes=-5000', { kind: 'range', start: 0, end: 999 }],
    ['bytes=1000-', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    ['bytes=9-3', { kind: 'unsatisfiable' }],
    ['bytes=0-1,5-6', { kind: 'whole' }],
    ['items=0-1', { kind: 'whole' }],
    ['bytes=x-y', { kind: 'whole' }],
    ['bytes=-', { kind: 'whole' }],
  ])('%s', (h, want) => expect(parseRange(h, 1000)).toEqual(want));
  it('any range of an empty file is unsatisfiable', () => {
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-1', 0)).toEqual({ kind: 'unsatisfiable' });
  });
});

describe('resolvePath', () => {
  const roots = [{ prefix: '/', dir: '/srv/app' }, { prefix: '/packs/', dir: '/srv/packs' }];
  it('picks the longest prefix and refuses to leave a root', () => {
    expect(resolvePath(roots, '/packs/a/b.sift')).toBe('/srv/packs/a/b.sift');
    expect(resolvePath(roots, '/assets/x.js')).toBe('/srv/app/assets/x.js');
    expect(resolvePath(roots, '/')).toBe('/srv/app/index.html');
    expect(resolvePath(roots, '/packs/../../etc/passwd')).toBeNull();
    expect(resolvePath(roots, '/packs/%2e%2e/%2e%2e/etc/passwd')).toBeNull();
    expect(resolvePath(roots, '/%2E%2E%2Fsecret')).toBeNull();
    expect(resolvePath(roots, '/a%00.js')).toBeNull();
    expect(resolvePath(roots, '/%E0%A4%A')).toBeNull();
  });
});

describe('startStaticServer', () => {
  it('serves files with their content types', async () => {
    const s = await start();
    const html = await get(s.url, '/');
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.body.toString()).toContain('<title>app</title>');
    const types: Record<string, string> = {
      '/assets/a.js': 'text/javascript; charset=utf-8', '/assets/m.wasm': 'application/wasm', '/manifest.webmanifest': 'application/manifest+json',
      '/packs/demo/sift-index.json': 'application/json', [PACK_PATH]: 'application/octet-stream',
    };
    for (const [p, t] of Object.entries(types)) expect((await get(s.url, p)).headers['content-type'], p).toBe(t);
    const whole = await get(s.url, PACK_PATH);
    expect(whole.status).toBe(200);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['content-length']).toBe('1000');
    expect(whole.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(whole.headers['last-modified']).toBeTruthy();
    expect(whole.body.equals(PACK)).toBe(true);
    expect((await get(s.url, PACK_PATH, { 'If-None-Match': String(whole.headers.etag) })).status).toBe(304);
    expect((await get(s.url, '/nope.js')).status).toBe(404);
    expect((await get(s.url, '/assets/a.js', {}, 'POST')).status).toBe(405);
  });

  it('answers one byte range with 206 and Content-Range, suffix and open ranges included', async () => {
    const s = await start();
    const cases: Array<[string, number, number]> = [['bytes=0-99', 0, 99], ['bytes=100-', 100, 999], ['bytes=-24', 976, 999], ['bytes=900-5000', 900, 999]];
    for (const [h, a, b] of cases) {
      const r = await get(s.url, PACK_PATH, { Range: h });
      expect(r.status, h).toBe(206);
      expect(r.headers['content-range'], h).toBe(`bytes ${a}-${b}/1000`);
      expect(r.headers['content-length'], h).toBe(String(b - a + 1));
      expect(r.body.equals(slice(a, b)), h).toBe(true);
    }
  });

  it('answers an unsatisfiable range with 416 and bytes */size', async () => {
    const s = await start();
    for (const h of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0', 'bytes=9-3']) {
      const r = await get(s.url, PACK_PATH, { Range: h });
      expect(r.status, h).toBe(416);
      expect(r.headers['content-range'], h).toBe('bytes */1000');
      expect(r.body.length, h).toBe(0);
    }
    const empty = await get(s.url, '/packs/demo/empty.sift', { Range: 'bytes=0-' });
    expect(empty.status).toBe(416);
    expect(empty.headers['content-range']).toBe('bytes */0');
  });

  it('answers a multi-range request with the whole file (200)', async () => {
    const s = await start();
    const r = await get(s.url, PACK_PATH, { Range: 'bytes=0-1,10-20' });
    expect(r.status).toBe(200);
    expect(r.body.equals(PACK)).toBe(true);
  });

  it('with multiRange, answers several ranges with multipart/byteranges as nginx does; ranges past the end dropped, 416 when none is left', async () => {
    const s = await start({ multiRange: true });
    const r = await get(s.url, PACK_PATH, { Range: 'bytes=0-1,10-20,990-5000,2000-2100' });
    expect(r.status).toBe(206);
    expect(s.stats().multipart).toBe(1);
    const boundary = byterangesBoundary(String(r.headers['content-type']));
    expect(boundary).toBeTruthy();
    const parts = parseByteranges(new Uint8Array(r.body), boundary!);
    expect(parts.map((p) => [p.start, p.end])).toEqual([[0, 2], [10, 21], [990, 1000]]);
    parts.forEach((p) => expect(Buffer.from(p.bytes).equals(slice(p.start, p.end - 1))).toBe(true));
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect((await get(s.url, PACK_PATH, { Range: 'bytes=2000-2001,3000-3001' })).status).toBe(416);
    const head = await get(s.url, PACK_PATH, { Range: 'bytes=0-0,999-999' }, 'HEAD');
    expect([head.status, head.body.length]).toEqual([206, 0]);
    expect((await get(s.url, PACK_PATH, { Range: 'bytes=5-9' })).body.equals(slice(5, 9))).toBe(true); // one range: as before
  });

  it('never serves a file outside its roots: /../, %2e%2e and ..%2f are 404', async () => {
    const s = await start();
    for (const p of ['/../secret.txt', '/packs/../../secret.txt', '/%2e%2e/secret.txt', '/packs/%2e%2e/%2e%2e/secret.txt', '/packs/..%2f..%2fsecret.txt', '/%2E%2E%2Fsecret.txt', '/assets/..%5c..%5csecret.txt']) {
      const r = await get(s.url, p);
      expect(r.status, p).toBe(404);
      expect(r.body.toString(), p).not.toContain('outside');
    }
    // Inside the root, dot segments are fine.
    expect((await get(s.url, '/packs/demo/../demo/sift-index.json')).status).toBe(200);
  });

  it('HEAD: the headers of GET and no body', async () => {
    const s = await start();
    const r = await get(s.url, PACK_PATH, {}, 'HEAD');
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBe('1000');
    expect(r.headers['accept-ranges']).toBe('bytes');
    expect(r.body.length).toBe(0);
    const ranged = await get(s.url, PACK_PATH, { Range: 'bytes=0-9' }, 'HEAD');
    expect(ranged.status).toBe(206);
    expect(ranged.headers['content-range']).toBe('bytes 0-9/1000');
    expect(s.stats().byPath[PACK_PATH]).toEqual({ requests: 2, bytes: 0 });
  });

  it('ranges: false ignores Range and answers 200 whole without Accept-Ranges', async () => {
    const s = await start({ ranges: false });
    const r = await get(s.url, PACK_PATH, { Range: 'bytes=0-9' });
    expect(r.status).toBe(200);
    expect(r.headers['accept-ranges']).toBeUndefined();
    expect(r.headers['content-range']).toBeUndefined();
    expect(r.body.equals(PACK)).toBe(true);
    expect((await get(s.url, PACK_PATH, { Range: 'bytes=5000-' })).status).toBe(200);
  });

  it('gzipSift: packs come whole and gzipped, Range ignored; other files untouched', async () => {
    const s = await start({ gzipSift: true });
    const r = await get(s.url, PACK_PATH, { Range: 'bytes=0-9', 'Accept-Encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers['accept-ranges']).toBeUndefined();
    expect(gunzipSync(r.body).equals(PACK)).toBe(true);
    expect(s.stats().byPath[PACK_PATH]!.bytes).toBe(r.body.length);
    const js = await get(s.url, '/assets/a.js', { Range: 'bytes=0-5' });
    expect(js.status).toBe(206);
    expect(js.headers['content-encoding']).toBeUndefined();
  });

  it('waits delayMs before every response, 404s included; parallel requests wait together', async () => {
    const s = await start({ delayMs: 120 });
    // Slack below the delay: timers may fire a millisecond early relative to performance.now().
    expect((await get(s.url, PACK_PATH, { Range: 'bytes=0-9' })).ms).toBeGreaterThanOrEqual(115);
    expect((await get(s.url, '/missing')).ms).toBeGreaterThanOrEqual(115);
    const t0 = performance.now();
    await Promise.all([0, 1, 2, 3].map((i) => get(s.url, PACK_PATH, { Range: `bytes=${i * 10}-${i * 10 + 9}` })));
    expect(performance.now() - t0).toBeLessThan(4 * 120);
  });

  it('with tls, serves HTTP/2 over HTTPS: ranges as over HTTP/1.1, many requests at once on one connection', async () => {
    const tlsDir = join(import.meta.dirname, 'tls');
    const s = await start({ delayMs: 60, tls: { key: readFileSync(join(tlsDir, 'key.pem')), cert: readFileSync(join(tlsDir, 'cert.pem')) } });
    expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const session = connect(s.url, { ca: readFileSync(join(tlsDir, 'cert.pem')) });
    try {
      const ask = (range: string) => new Promise<{ status: number; range: string; body: Buffer }>((ok, fail) => {
        const req = session.request({ [h2.HTTP2_HEADER_PATH]: PACK_PATH, range });
        const parts: Buffer[] = [];
        let head: { status: number; range: string } = { status: 0, range: '' };
        req.on('response', (h) => (head = { status: Number(h[h2.HTTP2_HEADER_STATUS]), range: String(h['content-range']) }));
        req.on('data', (c: Buffer) => parts.push(c));
        req.on('end', () => ok({ ...head, body: Buffer.concat(parts) }));
        req.on('error', fail);
        req.end();
      });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(`bytes=${i * 100}-${i * 100 + 9}`)));
      answers.forEach((a, i) => {
        expect(a.status).toBe(206);
        expect(a.range).toBe(`bytes ${i * 100}-${i * 100 + 9}/1000`);
        expect(a.body.equals(slice(i * 100, i * 100 + 9))).toBe(true);
      });
      // Ten requests on one connection, all in progress at once (HTTP/1.1 would need ten connections).
      expect(s.stats().maxInFlight).toBe(10);
    } finally {
      session.close();
    }
  });

  it('counts requests and body bytes per path, and reset() zeroes them', async () => {
    const s = await start({ headers: { 'Cross-Origin-Opener-Policy': 'same-origin' } });
    const h = await get(s.url, PACK_PATH, { Range: 'bytes=0-99' });
    expect(h.headers['cross-origin-opener-policy']).toBe('same-origin');
    await get(s.url, PACK_PATH, { Range: 'bytes=-50' });
    await get(s.url, PACK_PATH, { Range: 'bytes=2000-' });
    await get(s.url, '/packs/demo/sift-index.json');
    await get(s.url, '/nope');
    const st = s.stats();
    expect(st.byPath[PACK_PATH]).toEqual({ requests: 3, bytes: 150 });
    expect(st.byPath['/packs/demo/sift-index.json']).toEqual({ requests: 1, bytes: 12 });
    expect(st.byPath['/nope']).toEqual({ requests: 1, bytes: 0 });
    expect(st.requests).toBe(5);
    expect(st.bytes).toBe(162);
    // A GET for a path and range asked before is a repeat; a HEAD is not.
    expect(st.repeatedRanges).toBe(0);
    await get(s.url, PACK_PATH, { Range: 'bytes=-50' }, 'HEAD');
    expect(s.stats().repeatedRanges).toBe(0);
    await get(s.url, PACK_PATH, { Range: 'bytes=-50' });
    expect(s.stats().repeatedRanges).toBe(1);
    s.reset();
    expect(s.stats()).toEqual({ requests: 0, bytes: 0, multipart: 0, maxInFlight: 0, repeatedRanges: 0, byPath: {} });
    await get(s.url, PACK_PATH);
    expect(s.stats().byPath[PACK_PATH]).toEqual({ requests: 1, bytes: 1000 });
  });
});
