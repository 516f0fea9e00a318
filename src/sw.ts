/**
 * Sift's service worker: precaches the app shell and all WASM, serves the app offline,
 * and makes the app cross-origin isolated without server headers (on unless the page
 * stored the opt-out flag '0'), so ONNX Runtime can use several threads.
 *
 * Built by vite-plugins/sift-pwa.ts, which transpiles this file on its own (no imports
 * allowed) and substitutes __SIFT_SW_MANIFEST__ with the build's precache list.
 * Invariants:
 * - Every URL is resolved against the registration scope, so the app works under any
 *   sub-path. The scope is the folder holding index.html and sw.js.
 * - A new version installs fully (or not at all) into its own cache, then *waits*: the
 *   page asks the user and sends SKIP_WAITING. Old version caches are deleted on activate.
 * - Hashed files (assets/…) never change: cache-first. index.html: network-first with the
 *   cached copy as the offline fallback. models/…: cache-first in a cache that survives
 *   app updates (models are large; replace a model by shipping it under a new folder).
 * - Cross-origin requests are never touched.
 */

interface SwManifest {
  /** Content hash of the precached files: names the cache. */
  version: string;
  /** Paths relative to the scope, e.g. 'index.html', 'assets/app-1a2b3c4d.js'. */
  precache: string[];
  /** Prefix (relative to scope) of content-hashed, immutable files. */
  immutablePrefix: string;
  /** Policy the SW adds as a header to navigations and worker scripts ('' = none). */
  csp: string;
}

declare const __SIFT_SW_MANIFEST__: SwManifest;

const MANIFEST: SwManifest = __SIFT_SW_MANIFEST__;
const CACHE_PREFIX = 'sift-precache-';
const PRECACHE = CACHE_PREFIX + MANIFEST.version;
const MODELS_CACHE = 'sift-models-v1';
const SETTINGS_CACHE = 'sift-settings';
/** Key (relative to scope) of the cross-origin-isolation flag; the page writes it ('0' = off). */
const COI_KEY = '__sift/coi';
const NAVIGATION_TIMEOUT_MS = 4000;
const INSTALL_CONCURRENCY = 6;
/** Headers added when cross-origin isolation is on (the coi-serviceworker technique). */
const COI_HEADERS: Record<string, string> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const sw = globalThis as unknown as ServiceWorkerGlobalScope;
const scope = new URL(sw.registration.scope);
const abs = (path: string) => new URL(path, scope).href;
const precacheUrls = new Set(MANIFEST.precache.map(abs));
const indexUrl = abs('index.html');
const immutableBase = abs(MANIFEST.immutablePrefix);
const modelsBase = abs('models/');

let coiFlag: Promise<boolean> | null = null;
function readCoiFlag(): Promise<boolean> {
  coiFlag = caches
    .open(SETTINGS_CACHE)
    .then((c) => c.match(abs(COI_KEY)))
    .then(async (r) => (r ? (await r.text()) !== '0' : true))
    .catch(() => true);
  return coiFlag;
}

sw.addEventListener('install', (event) => {
  // Published index packs (issue 27) go to the network without waking this worker, where the
  // browser has the Static Routing API (Chromium 123+): a search's range requests then skip a
  // trip through this thread, busy precaching after a first visit. The fetch handler below lets
  // them through too, for other browsers.
  const e = event as ExtendableEvent & { addRoutes?: (rules: unknown) => Promise<void> };
  const Pattern = (globalThis as { URLPattern?: new (init: { pathname: string }) => unknown }).URLPattern;
  if (typeof e.addRoutes === 'function' && Pattern) {
    event.waitUntil(e.addRoutes([{ condition: { urlPattern: new Pattern({ pathname: '*.sift' }) }, source: 'network' }]).catch(() => undefined));
  }
  event.waitUntil(precacheAll());
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(names.filter((n) => n.startsWith(CACHE_PREFIX) && n !== PRECACHE).map((n) => caches.delete(n)));
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener('message', (event) => {
  const data = event.data as { type?: string } | null;
  if (data?.type === 'SKIP_WAITING') void sw.skipWaiting();
  else if (data?.type === 'SETTINGS_CHANGED') void readCoiFlag();
  else if (data?.type === 'GET_VERSION') event.ports[0]?.postMessage({ version: MANIFEST.version, precache: MANIFEST.precache.length });
});

/** Fills this version's cache. Immutable files already cached by an older version are copied, not refetched. */
async function precacheAll(): Promise<void> {
  const cache = await caches.open(PRECACHE);
  const queue = [...precacheUrls];
  const worker = async () => {
    for (let url = queue.shift(); url; url = queue.shift()) {
      if (url.startsWith(immutableBase)) {
        const old = await caches.match(url);
        if (old) {
          await cache.put(url, old);
          continue;
        }
      }
      const res = await fetch(url, { cache: 'no-cache' });
      if (!res.ok) throw new Error(`precache ${url}: HTTP ${res.status}`);
      await cache.put(url, res);
    }
  };
  await Promise.all(Array.from({ length: INSTALL_CONCURRENCY }, worker));
}

sw.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  // Byte ranges of a published index (issue 27) go straight to the network: the page reader
  // keeps its own copy in Cache Storage, and a whole-file answer must never land in a cache.
  if (req.headers.has('range')) return;
  const url = new URL(req.url);
  if (url.origin !== scope.origin || !url.href.startsWith(scope.href)) return;
  url.hash = '';
  const key = url.search ? url.href : url.origin + url.pathname;

  if (req.mode === 'navigate') {
    event.respondWith(navigation(req).then((r) => decorate(r, true)));
  } else if (precacheUrls.has(key) || key.startsWith(immutableBase)) {
    event.respondWith(cacheFirst(req, key, PRECACHE).then((r) => decorate(r, isWorkerScript(req))));
  } else if (key.startsWith(modelsBase)) {
    event.respondWith(cacheFirst(req, key, MODELS_CACHE).then((r) => decorate(r, false)));
  } else {
    event.respondWith(networkFirst(req, key).then((r) => decorate(r, isWorkerScript(req))));
  }
});

function isWorkerScript(req: Request): boolean {
  return req.destination === 'worker' || req.destination === 'sharedworker';
}

async function navigation(req: Request): Promise<Response> {
  readCoiFlag();
  const isShell = req.url.split(/[?#]/)[0] === scope.href || req.url.split(/[?#]/)[0] === indexUrl;
  try {
    const res = await fetchWithTimeout(req, NAVIGATION_TIMEOUT_MS);
    if (res.ok && isShell) {
      const cache = await caches.open(PRECACHE);
      await cache.put(indexUrl, res.clone());
    }
    return res;
  } catch {
    const cached = (await caches.match(indexUrl)) ?? (await caches.match(scope.href));
    return cached ?? Response.error();
  }
}

async function cacheFirst(req: Request, key: string, cacheName: string): Promise<Response> {
  const cache = await caches.open(cacheName);
  const hit = (await cache.match(key)) ?? (cacheName === PRECACHE ? await caches.match(key) : undefined);
  if (hit) return hit;
  const res = await fetch(req);
  // Only whole, successful responses are worth keeping (no 404s, no partial ranges).
  if (res.ok && res.status === 200) await cache.put(key, res.clone());
  return res;
}

async function networkFirst(req: Request, key: string): Promise<Response> {
  try {
    const res = await fetch(req);
    if (res.ok && res.status === 200) {
      const cache = await caches.open(PRECACHE);
      await cache.put(key, res.clone());
    }
    return res;
  } catch (err) {
    const hit = await caches.match(key);
    if (hit) return hit;
    throw err;
  }
}

async function fetchWithTimeout(req: Request, ms: number): Promise<Response> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), ms);
  try {
    return await fetch(req, { signal: ctrl.signal });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Adds the cross-origin-isolation headers (when enabled) to every same-origin response,
 * and the CSP header to documents and worker scripts: a worker's policy comes from its
 * own response, not from the page's <meta>, so this extends the policy to workers.
 */
async function decorate(res: Response, withCsp: boolean): Promise<Response> {
  if (res.type === 'opaque' || res.type === 'error' || res.status === 0) return res;
  const coi = await (coiFlag ?? readCoiFlag());
  if (!coi && !(withCsp && MANIFEST.csp)) return res;
  const headers = new Headers(res.headers);
  if (coi) for (const [k, v] of Object.entries(COI_HEADERS)) headers.set(k, v);
  if (withCsp && MANIFEST.csp) headers.set('Content-Security-Policy', MANIFEST.csp);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
