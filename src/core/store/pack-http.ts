/**
 * A published pack over HTTP, in the browser's store worker: the manifest fetch, a probe that
 * the host serves byte ranges of the exact pack, the synchronous range reads PackPages makes
 * (a synchronous XMLHttpRequest: allowed in dedicated workers, and what the SYNC wa-sqlite
 * build needs), and the Cache Storage copy of every page read, so a query asked before works
 * offline.
 *
 * Invariants:
 * - Only origins the deploy allows are fetched (the app's own, plus the build's list).
 * - A host that ignores `Range`, compresses the pack, or serves another size is found by the
 *   probe, before SQLite reads a byte; the probe never downloads the whole pack.
 * - Pages in Cache Storage are keyed by the pack's URL (content-addressed: never stale) and
 *   checked against the manifest's hashes again when they are read back.
 */
import type { RangeSource } from './http-vfs.ts';
import { PackReadError, type PackPages } from './http-vfs.ts';
import { PackError, packUrl, parsePackManifest, type PackManifest } from './pack.ts';
import { formatBytes } from './errors.ts';
import { sha256Hex } from '../hash/hash.ts';
import { byterangesBoundary, coverRanges, parseByteranges, parseContentRange, rangesHeader } from './byteranges.ts';

/** Cache Storage cache of pack pages. */
export const PACK_PAGE_CACHE = 'sift-packs-v1';
/** At most this many bytes of one pack are kept in Cache Storage. */
export const PACK_PAGE_CACHE_BYTES = 64 * 1024 * 1024;

/** Whether `url` may be fetched: the app's origin or one the deploy listed (build-time `SIFT_PACK_ORIGINS`). */
export function originAllowed(url: URL, appOrigin: string, allowed: readonly string[]): boolean {
  return url.origin === appOrigin || allowed.includes(url.origin);
}

/** Resolve a manifest reference (absolute or relative to the app's URL) and check its origin. */
export function resolveManifestUrl(ref: string, appUrl: string, allowed: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(ref.trim(), appUrl);
  } catch {
    throw new PackError(`"${ref}" is not a URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new PackError(`An index URL must be http(s), not ${url.protocol}`);
  const app = new URL(appUrl);
  if (!originAllowed(url, app.origin, allowed)) {
    throw new PackError(`This Sift opens indexes from its own site${allowed.length ? ` and ${allowed.join(', ')}` : ''} only, not ${url.origin}. The deployer can allow more origins at build time (SIFT_PACK_ORIGINS; see docs/deploy.md).`);
  }
  url.hash = '';
  return url;
}

async function networkError(what: string, e: unknown): Promise<never> {
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  throw new PackReadError('network', `${what}: ${offline ? 'this device is offline' : `the network request failed (${e instanceof Error ? e.message : String(e)})`}.`);
}

/** Fetch and check `sift-index.json`. */
export async function fetchManifest(url: URL, schemaVersion: number, signal?: AbortSignal): Promise<{ manifest: PackManifest; text: string }> {
  let res: Response;
  try {
    res = await fetch(url, { cache: 'no-cache', credentials: 'same-origin', signal });
  } catch (e) {
    return networkError(`Could not fetch the index manifest ${url.href}`, e);
  }
  if (!res.ok) throw new PackReadError('http', `Could not fetch the index manifest ${url.href}: HTTP ${res.status}${res.status === 404 ? ' (not found — check the URL)' : ''}.`);
  const text = await res.text();
  return { manifest: parsePackManifest(text, schemaVersion), text };
}

/**
 * Checks that the host serves byte ranges of exactly this pack, uncompressed: asks for its
 * first page and reads the answer's headers, then that page (cancelling any whole-file body).
 * Returns the first page's bytes.
 */
export async function probePack(url: string, manifest: PackManifest, signal?: AbortSignal): Promise<Uint8Array> {
  const ctrl = new AbortController();
  signal?.addEventListener('abort', () => ctrl.abort(), { once: true });
  let res: Response;
  const size = formatBytes(manifest.bytes);
  try {
    res = await fetch(url, { headers: { Range: `bytes=0-${manifest.pageSize - 1}` }, cache: 'no-store', credentials: 'same-origin', signal: ctrl.signal });
  } catch (e) {
    // Chromium fails a range request whose answer is compressed outright: ask the headers alone.
    await hostProblem(url, size);
    return networkError(`Could not reach the index pack ${url}`, e);
  }
  if (res.status === 200) {
    ctrl.abort();
    throw new PackReadError('no-ranges', `The server sends the whole index pack (${size}) instead of the parts a search needs: it does not support byte-range requests. Download the whole pack into this browser instead, or serve it from a host that honours Range (docs/deploy.md).`);
  }
  if (res.status === 404) throw new PackReadError('http', `The index pack ${manifest.pack} is not on the server (HTTP 404): the manifest names a pack that was not deployed with it.`);
  if (res.status !== 206) throw new PackReadError('http', `The server answered HTTP ${res.status} for the index pack.`);
  const encoding = res.headers.get('content-encoding');
  if (encoding && encoding !== 'identity') {
    ctrl.abort();
    throw compressedError(encoding, size);
  }
  const total = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '')?.[1];
  if (total !== undefined && Number(total) !== manifest.bytes) {
    ctrl.abort();
    throw new PackReadError('size', `The index pack on the server is ${formatBytes(Number(total))}, its manifest says ${size}: it is truncated or another version. Publish it again.`);
  }
  const page = new Uint8Array(await res.arrayBuffer());
  if (page.length !== manifest.pageSize) throw new PackReadError('size', `The server sent ${page.length} bytes for the index pack's first page of ${manifest.pageSize}: the pack is truncated or the server does not honour ranges.`);
  return page;
}

function compressedError(encoding: string, size: string): PackReadError {
  return new PackReadError('compressed', `The server compresses the index pack (Content-Encoding: ${encoding}), so its byte ranges do not match the pack. Turn off compression for .sift files (docs/deploy.md), or download the whole pack (${size}) into this browser.`);
}

/** A page read answered with anything but 206 Partial Content. */
function rangeStatusError(status: number, start: number, end: number, size: number): PackReadError {
  if (status === 200) return new PackReadError('no-ranges', `The server stopped honouring byte ranges for the index pack (it sent all ${formatBytes(size)}).`);
  return new PackReadError('http', `Reading the shared index failed: HTTP ${status} for bytes ${start}–${end - 1}.`);
}

/** After a failed range request: a HEAD that shows a compressing or range-less host throws what is wrong; else returns. */
async function hostProblem(url: string, size: string): Promise<void> {
  let head: Response;
  try {
    head = await fetch(url, { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' });
  } catch {
    return;
  }
  const encoding = head.headers.get('content-encoding');
  if (head.ok && encoding && encoding !== 'identity') {
    throw compressedError(encoding, size);
  }
  if (head.ok && head.headers.get('accept-ranges') !== 'bytes') {
    throw new PackReadError('no-ranges', `The server does not say it supports byte-range requests for the index pack (${size}). Download the whole pack into this browser instead, or serve it from a host that honours Range (docs/deploy.md).`);
  }
}

/** A whole-pack download so far (readPackBody, the store worker's downloadPack). */
export interface DownloadProgress {
  loaded: number;
  total: number;
}

/** How often a whole-pack download reports its progress, at most (ms). */
const DOWNLOAD_PROGRESS_MS = 250;

/**
 * The body of a whole-pack download, read into one buffer of the manifest's size as it
 * arrives, with its progress: a body longer than the manifest says is stopped there (a wrong
 * or hostile file cannot fill memory). A shorter one is returned short: the caller's size and
 * hash check names the problem.
 */
export async function readPackBody(res: Response, expected: number, onProgress?: (p: DownloadProgress) => void): Promise<Uint8Array> {
  const out = new Uint8Array(expected);
  let loaded = 0;
  let last = 0;
  const reader = res.body?.getReader();
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (loaded + value.length > expected) {
        await reader.cancel();
        throw new PackReadError('size', `The index pack on the server is larger than its manifest says (${formatBytes(expected)}): it is another version. Publish it again.`);
      }
      out.set(value, loaded);
      loaded += value.length;
      const now = Date.now();
      if (onProgress && now - last >= DOWNLOAD_PROGRESS_MS) {
        last = now;
        onProgress({ loaded, total: expected });
      }
    }
  }
  onProgress?.({ loaded, total: expected });
  return out.subarray(0, loaded);
}

/**
 * Whether the host answers one request for several ranges with `multipart/byteranges` (nginx,
 * Apache and Caddy do; many Node servers and object stores send the whole file instead). Asked
 * with HEAD, so a host that would send the whole file sends no body; any doubt answers false.
 */
export async function probeMultiRange(url: string, size: number, signal?: AbortSignal): Promise<boolean> {
  if (size < 2) return false;
  try {
    const res = await fetch(url, { method: 'HEAD', headers: { Range: rangesHeader([[0, 1], [size - 1, size]]) }, cache: 'no-store', credentials: 'same-origin', signal });
    return res.status === 206 && byterangesBoundary(res.headers.get('content-type')) !== null;
  } catch {
    return false;
  }
}

/**
 * Whether the requests for `url` so far went over HTTP/2 or HTTP/3 (many requests at once on
 * one connection), from the Resource Timing entries of this worker or page; false when none
 * says so (no entry yet, a full timing buffer, another origin that hides it).
 */
export function multiplexedHost(url: string): boolean {
  try {
    return (performance.getEntriesByName(url, 'resource') as PerformanceResourceTiming[]).some((e) => /^h[23]/.test(e.nextHopProtocol ?? ''));
  } catch {
    return false;
  }
}

/**
 * A pack over HTTP: SQLite's reads with synchronous XMLHttpRequest (dedicated workers only),
 * prefetches with fetch, several ranges per request once `useMultiRange()` says the host
 * answers them (probeMultiRange). An answer that is not what was asked turns that off for the
 * session and its ranges are read one by one: a host's quirk costs round trips, never a page.
 */
export class HttpRangeSource implements RangeSource {
  readRangesAsync?: (ranges: ReadonlyArray<readonly [number, number]>) => Promise<Array<Uint8Array | null>>;

  constructor(readonly url: string, readonly size: number) {}

  useMultiRange(on: boolean): void {
    this.readRangesAsync = on ? (ranges) => this.#readRanges(ranges) : undefined;
  }

  async #readRanges(ranges: ReadonlyArray<readonly [number, number]>): Promise<Array<Uint8Array | null>> {
    const ctrl = new AbortController();
    let res: Response;
    try {
      res = await fetch(this.url, { headers: { Range: rangesHeader(ranges) }, cache: 'no-store', credentials: 'same-origin', signal: ctrl.signal });
    } catch (e) {
      return networkError('Reading the shared index failed', e);
    }
    const none = () => {
      this.useMultiRange(false);
      return ranges.map(() => null);
    };
    if (res.status !== 206) {
      ctrl.abort(); // a host that sends the whole pack for several ranges: stop it at the headers
      if (res.status === 200) return none();
      throw rangeStatusError(res.status, ranges[0]![0], ranges[ranges.length - 1]![1], this.size);
    }
    const body = new Uint8Array(await res.arrayBuffer());
    const boundary = byterangesBoundary(res.headers.get('content-type'));
    try {
      if (boundary) return coverRanges(parseByteranges(body, boundary), ranges);
      // One range back (a server may merge the ranges it was asked for, or answer only the first).
      const one = parseContentRange(res.headers.get('content-range'));
      if (one && body.length === one[1] - one[0]) return coverRanges([{ start: one[0], end: one[1], bytes: body }], ranges);
    } catch {
      // a malformed answer: read the ranges one by one
    }
    return none();
  }

  async readAsync(start: number, end: number): Promise<Uint8Array> {
    let res: Response;
    try {
      res = await fetch(this.url, { headers: { Range: `bytes=${start}-${end - 1}` }, cache: 'no-store', credentials: 'same-origin' });
    } catch (e) {
      return networkError('Reading the shared index failed', e);
    }
    if (res.status !== 206) {
      void res.body?.cancel();
      throw rangeStatusError(res.status, start, end, this.size);
    }
    return new Uint8Array(await res.arrayBuffer());
  }

  read(start: number, end: number): Uint8Array {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', this.url, false);
    xhr.responseType = 'arraybuffer';
    xhr.setRequestHeader('Range', `bytes=${start}-${end - 1}`);
    try {
      xhr.send();
    } catch (e) {
      const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
      throw new PackReadError('network', `Reading the shared index failed: ${offline ? 'this device is offline and this part of the index was not read before' : `network error (${e instanceof Error ? e.message : String(e)})`}. Try again when the connection is back.`);
    }
    if (xhr.status !== 206) throw rangeStatusError(xhr.status, start, end, this.size);
    return new Uint8Array(xhr.response as ArrayBuffer);
  }
}

// ---- Cache Storage copy of pages ------------------------------------------------------

function pageKey(packHref: string, first: number, count: number): string {
  return `${packHref}?sift-pages=${first}-${count}`;
}

function hashesKey(packHref: string): string {
  return `${packHref}?sift-hashes`;
}

/**
 * Puts the page hashes of `packHref` saved earlier (format 2 packs keep them in the pack) back
 * into `pages` when they still match the manifest's SHA-256; returns whether it did.
 */
export async function seedHashesFromCache(packHref: string, sha256: string, pages: PackPages): Promise<boolean> {
  if (typeof caches === 'undefined' || pages.hasHashes) return pages.hasHashes;
  try {
    const res = await (await caches.open(PACK_PAGE_CACHE)).match(hashesKey(packHref));
    if (!res) return false;
    const table = new Uint8Array(await res.arrayBuffer());
    if ((await sha256Hex(table)) !== sha256) return false;
    pages.setHashes(table);
    return true;
  } catch {
    return false; // storage unavailable or another size: read from the network
  }
}

/** Puts every page of `packHref` saved earlier back into `pages` (its page hashes at hand); returns the pages seeded. */
export async function seedFromCache(packHref: string, pages: PackPages): Promise<number> {
  if (typeof caches === 'undefined') return 0;
  try {
    const cache = await caches.open(PACK_PAGE_CACHE);
    const keys = (await cache.keys()).filter((r) => r.url.startsWith(`${packHref}?sift-pages=`));
    let n = 0;
    for (const req of keys) {
      const m = /sift-pages=(\d+)-(\d+)$/.exec(req.url);
      const res = m ? await cache.match(req) : undefined;
      if (!m || !res) continue;
      n += pages.seed(Number(m[1]), new Uint8Array(await res.arrayBuffer()));
    }
    return n;
  } catch {
    return 0; // storage unavailable: read from the network
  }
}

/** Saves fetched runs of pages to Cache Storage in the background, up to PACK_PAGE_CACHE_BYTES per pack. */
export class PageSaver {
  #queue: Promise<void> = Promise.resolve();
  #saved = 0;
  constructor(readonly packHref: string, readonly pageSize: number) {}

  /** Bytes of this pack already in Cache Storage (counted against the cap). */
  alreadySaved(bytes: number): void {
    this.#saved += bytes;
  }

  /** Saves the pack's page hashes (format 2 keeps them in the pack; needed to check saved pages offline). */
  saveHashes(table: Uint8Array): void {
    if (typeof caches === 'undefined') return;
    const copy = table.slice();
    this.#queue = this.#queue.then(async () => {
      try {
        await (await caches.open(PACK_PAGE_CACHE)).put(hashesKey(this.packHref), new Response(copy, { headers: { 'Content-Type': 'application/octet-stream' } }));
      } catch {
        // A full quota only costs the offline copy.
      }
    });
  }

  save(firstPage: number, bytes: Uint8Array): void {
    if (typeof caches === 'undefined' || this.#saved + bytes.length > PACK_PAGE_CACHE_BYTES) return;
    this.#saved += bytes.length;
    const copy = bytes.slice();
    this.#queue = this.#queue.then(async () => {
      try {
        const cache = await caches.open(PACK_PAGE_CACHE);
        await cache.put(pageKey(this.packHref, firstPage, copy.length / this.pageSize), new Response(copy, { headers: { 'Content-Type': 'application/octet-stream' } }));
      } catch {
        // A full quota only costs the offline copy.
      }
    });
  }

  flushed(): Promise<void> {
    return this.#queue;
  }
}

/** Deletes saved pages of every pack not in `keep` (pack URLs). */
export async function prunePageCache(keep: ReadonlySet<string>): Promise<void> {
  if (typeof caches === 'undefined') return;
  try {
    const cache = await caches.open(PACK_PAGE_CACHE);
    for (const req of await cache.keys()) {
      const pack = req.url.replace(/\?sift-(pages=.*|hashes)$/, '');
      if (!keep.has(pack)) await cache.delete(req);
    }
  } catch {
    // nothing to prune
  }
}

export { packUrl };
