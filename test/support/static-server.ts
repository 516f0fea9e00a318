/**
 * A static file server with byte ranges and a simulated round trip, for the published-index
 * work (issue 27): Playwright specs and bench scripts serve a built app and `.sift` packs
 * from it and read how many requests and bytes each file cost. Plain node:http, no
 * dependency.
 *
 * `startStaticServer({ roots: [{ prefix: '/', dir: 'dist' }, { prefix: '/packs/', dir }] })`
 *
 * Behaviour:
 * - The longest matching prefix wins. The rest of the path is percent-decoded and resolved
 *   against that root's folder; a path that resolves outside the folder (`/../`, `%2e%2e`,
 *   `..%2f`), holds a NUL, or cannot be decoded is a 404, like a missing file. A path ending
 *   in `/` (or naming a folder) serves that folder's index.html.
 * - GET and HEAD (HEAD: the same status and headers as GET, no body); any other method 405.
 * - Content-Type by extension (`.sift` is application/octet-stream); ETag (size + mtime)
 *   and Last-Modified; `If-None-Match` on a whole-file request answers 304. Cache-Control is
 *   `no-store` unless `headers` says otherwise, so the browser's HTTP cache never hides
 *   requests from the counters.
 * - `ranges` (default true): `Accept-Ranges: bytes`, and one range — `bytes=a-b`, `bytes=a-`,
 *   `bytes=-n` — answers 206 with Content-Range (an end past the file is clamped). A range
 *   that starts at or past the end, an empty suffix (`bytes=-0`), `a > b`, or any range of an
 *   empty file answers 416 with `Content-Range: bytes *\/<size>`. A multi-range request
 *   (`bytes=0-1,5-6`) answers 200
 *   with the whole file (RFC 9110 lets a server ignore Range); so does a header that is not
 *   `bytes=` or does not parse. `If-Range` is not honoured (the range is always served).
 * - `multiRange` (default false): a request for several ranges answers 206
 *   `multipart/byteranges` as nginx does — each range its own part, in the order asked, with
 *   its Content-Type and Content-Range; a range past the end is dropped, and 416 when none is
 *   left. Without it, several ranges answer 200 with the whole file (Express's `send` does
 *   that), which is what a client must survive.
 * - `ranges: false`: Range is ignored, every file answers 200 whole, no Accept-Ranges.
 * - `gzipSift`: a misconfigured host that compresses packs — a `.sift` answers 200 with
 *   `Content-Encoding: gzip` and the whole file gzipped, Range ignored, no Accept-Ranges
 *   (what an on-the-fly compressing proxy in front of a range-capable origin typically does).
 * - `delayMs`: waited before each response's head is written, every response (404, 304 and
 *   416 included): one simulated round trip per request. Requests in flight at once wait in
 *   parallel (as over a real link: the browser's six connections per host overlap their
 *   round trips). Bandwidth is loopback's; connection set-up costs nothing.
 * - `headers` are added to every response (e.g. COOP/COEP, CORS), overriding the defaults.
 * - `tls` (a key and certificate): HTTPS with HTTP/2 (HTTP/1.1 for clients that ask for it), as
 *   CDNs and most static hosts serve: a browser sends all its requests over one connection at
 *   once instead of six at a time. The URL is then `https://`.
 *
 * Counters: `stats()` counts every request (404s included) by its decoded path when it
 * arrives, and body bytes as they are handed to the socket (after compression; HEAD, 304 and
 * errors add 0). A client that aborts mid-body is counted for what was handed over before it
 * went away. `reset()` zeroes them; bytes of a response still being written after a reset
 * count in the new period (under the same path, with 0 requests there).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createSecureServer } from 'node:http2';
import type { Socket } from 'node:net';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { createGzip } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export interface StaticRoot {
  /** URL path prefix, starting and ending with '/' (e.g. '/', '/packs/'). */
  prefix: string;
  /** Folder served under the prefix. */
  dir: string;
}

export interface StaticServerOptions {
  roots: StaticRoot[];
  /** Answer single byte ranges with 206 (default true). */
  ranges?: boolean;
  /** Answer several ranges in one request with 206 multipart/byteranges (default false: 200, the whole file). */
  multiRange?: boolean;
  /** Milliseconds waited before each response (a simulated round trip; default 0). */
  delayMs?: number;
  /** Serve `.sift` files gzipped (Content-Encoding: gzip), whole, ignoring Range. */
  gzipSift?: boolean;
  /** Headers added to every response (override the defaults, e.g. Cache-Control). */
  headers?: Record<string, string>;
  /** Port to listen on (default 0: any free one). Always 127.0.0.1. */
  port?: number;
  /** Serve HTTPS with HTTP/2 (and HTTP/1.1 by ALPN) with this key and certificate (PEM). */
  tls?: { key: string | Buffer; cert: string | Buffer };
}

export interface PathStats {
  requests: number;
  bytes: number;
}

export interface ServerStats {
  requests: number;
  bytes: number;
  /** Requests answered with multipart/byteranges (several ranges at once). */
  multipart: number;
  /** The most requests in progress at once (arrived, response not finished). */
  maxInFlight: number;
  /** GET requests whose path and Range header were both asked before (since start or the last reset). */
  repeatedRanges: number;
  byPath: Record<string, PathStats>;
}

export interface RunningStaticServer {
  /** `http://127.0.0.1:<port>` (`https://` with `tls`; no trailing slash). */
  url: string;
  port: number;
  close(): Promise<void>;
  /** A copy of the counters since start or the last reset. */
  stats(): ServerStats;
  reset(): void;
}

export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.sift': 'application/octet-stream',
  '.onnx': 'application/octet-stream',
};

export function contentType(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

export type RangeAnswer = { kind: 'whole' } | { kind: 'range'; start: number; end: number } | { kind: 'unsatisfiable' };

/** Several inclusive ranges (`bytes=a-b,c-d`) that start inside the file, ends clamped; null when the header is not such a list. */
export function parseMultiRange(header: string | undefined, size: number): Array<{ start: number; end: number }> | null {
  const m = header ? /^\s*bytes\s*=\s*(.*)$/i.exec(header) : null;
  if (!m || !m[1]!.includes(',')) return null;
  const out: Array<{ start: number; end: number }> = [];
  for (const spec of m[1]!.split(',')) {
    const r = parseRange(`bytes=${spec}`, size);
    if (r.kind === 'whole') return null;
    if (r.kind === 'range') out.push({ start: r.start, end: r.end });
  }
  return out;
}

/**
 * What to answer to a Range header for a file of `size` bytes: the whole file (no header,
 * not `bytes=`, unparsable, or several ranges), one inclusive range, or 416.
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (!header) return { kind: 'whole' };
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return { kind: 'whole' };
  const spec = m[1]!.trim();
  if (spec.includes(',')) return { kind: 'whole' };
  const r = /^(\d*)\s*-\s*(\d*)$/.exec(spec);
  if (!r || (r[1] === '' && r[2] === '')) return { kind: 'whole' };
  if (r[1] === '') {
    const n = Number(r[2]);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(r[1]);
  const end = r[2] === '' ? size - 1 : Math.min(Number(r[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size || (r[2] !== '' && Number(r[2]) < start)) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end };
}

const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

/** The file behind a request path, or null when no root holds it (or it would leave its root). */
export function resolvePath(roots: readonly StaticRoot[], pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const root = [...roots].sort((a, b) => b.prefix.length - a.prefix.length).find((r) => decoded.startsWith(r.prefix));
  if (!root) return null;
  const base = resolve(root.dir);
  let rel = decoded.slice(root.prefix.length);
  if (rel === '' || rel.endsWith('/')) rel += 'index.html';
  const file = resolve(base, rel);
  return file.startsWith(base + sep) ? file : null;
}

export async function startStaticServer(o: StaticServerOptions): Promise<RunningStaticServer> {
  const ranges = o.ranges ?? true;
  const delayMs = o.delayMs ?? 0;
  let stats: ServerStats = { requests: 0, bytes: 0, multipart: 0, maxInFlight: 0, repeatedRanges: 0, byPath: {} };
  let inFlight = 0;
  let asked = new Set<string>();
  const counter = (path: string): PathStats => (stats.byPath[path] ??= { requests: 0, bytes: 0 });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = (req.url ?? '/').split('?')[0]!.split('#')[0]!;
    let key = raw;
    try {
      key = decodeURIComponent(raw);
    } catch {
      // counted under the raw path
    }
    const count = counter(key);
    stats.requests++;
    count.requests++;
    inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    if (req.method === 'GET' && req.headers.range) {
      const one = `${key} ${req.headers.range}`;
      if (asked.has(one)) stats.repeatedRanges++;
      asked.add(one);
    }
    res.once('close', () => inFlight--);
    const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
    const answer = async (status: number, extra: Record<string, string> = {}, body?: Readable) => {
      if (delayMs > 0) await sleep(delayMs);
      res.writeHead(status, { ...headers, ...extra, ...o.headers });
      if (!body || req.method === 'HEAD') {
        body?.destroy();
        res.end();
        return;
      }
      body.on('data', (chunk: Buffer) => {
        stats.bytes += chunk.length;
        counter(key).bytes += chunk.length;
      });
      body.on('error', () => res.destroy());
      res.on('close', () => body.destroy());
      body.pipe(res);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, { Allow: 'GET, HEAD' });
    let file = resolvePath(o.roots, raw);
    let info = file ? await stat(file).catch(() => null) : null;
    if (file && info?.isDirectory()) {
      file = join(file, 'index.html');
      info = await stat(file).catch(() => null);
    }
    if (!file || !info?.isFile()) return answer(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    const size = info.size;
    headers['Content-Type'] = contentType(file);
    headers['Last-Modified'] = info.mtime.toUTCString();
    headers.ETag = `"${size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    const gzip = !!o.gzipSift && extname(file).toLowerCase() === '.sift';
    if (ranges && !gzip) headers['Accept-Ranges'] = 'bytes';
    const multi = ranges && !gzip && o.multiRange ? parseMultiRange(req.headers.range, size) : null;
    if (multi) {
      if (!multi.length) return answer(416, { 'Content-Range': `bytes */${size}` });
      stats.multipart++;
      const boundary = `sift${Math.random().toString(16).slice(2)}`;
      const pieces: Array<Buffer | { start: number; end: number }> = [];
      for (const r of multi) {
        pieces.push(Buffer.from(`\r\n--${boundary}\r\nContent-Type: ${headers['Content-Type']}\r\nContent-Range: bytes ${r.start}-${r.end}/${size}\r\n\r\n`));
        pieces.push(r);
      }
      pieces.push(Buffer.from(`\r\n--${boundary}--\r\n`));
      const length = pieces.reduce((n, p) => n + (Buffer.isBuffer(p) ? p.length : p.end - p.start + 1), 0);
      return answer(206, { 'Content-Type': `multipart/byteranges; boundary=${boundary}`, 'Content-Length': String(length) },
        Readable.from((async function* () {
          for (const p of pieces) {
            if (Buffer.isBuffer(p)) yield p;
            else for await (const chunk of createReadStream(file, { start: p.start, end: p.end })) yield chunk as Buffer;
          }
        })()));
    }
    const range = ranges && !gzip ? parseRange(req.headers.range, size) : ({ kind: 'whole' } as const);
    if (range.kind === 'unsatisfiable') return answer(416, { 'Content-Range': `bytes */${size}` });
    if (range.kind === 'range') {
      const length = range.end - range.start + 1;
      return answer(206, { 'Content-Range': `bytes ${range.start}-${range.end}/${size}`, 'Content-Length': String(length) },
        createReadStream(file, { start: range.start, end: range.end }));
    }
    if (req.headers['if-none-match'] === headers.ETag) return answer(304);
    if (gzip) {
      headers.Vary = 'Accept-Encoding';
      return answer(200, { 'Content-Encoding': 'gzip' }, createReadStream(file).pipe(createGzip()));
    }
    return answer(200, { 'Content-Length': String(size) }, createReadStream(file));
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  };
  // HTTP/2's compatibility request and response have the members handle() uses.
  const server = o.tls
    ? createSecureServer({ key: o.tls.key, cert: o.tls.cert, allowHTTP1: true }, onRequest as unknown as Parameters<typeof createSecureServer>[1])
    : createServer(onRequest);
  const sockets = new Set<Socket>();
  server.on(o.tls ? 'secureConnection' : 'connection', (sock: Socket) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(o.port ?? 0, '127.0.0.1', () => ok());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${o.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    stats: () => structuredClone(stats),
    reset: () => {
      stats = { requests: 0, bytes: 0, multipart: 0, maxInFlight: inFlight, repeatedRanges: 0, byPath: {} };
      asked = new Set();
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const sock of sockets) sock.destroy();
        server.close(() => ok());
      }),
  };
}
