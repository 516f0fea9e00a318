/**
 * Page side of the service worker (src/sw.ts): registration, the "update available"
 * handshake, and the cross-origin-isolation setting. Browser main thread only.
 *
 * Invariants:
 * - sw.js sits next to index.html, so its scope is the app's folder under any sub-path.
 * - A new version never takes over by itself: `onUpdate` fires, the UI asks, and only
 *   `applyUpdate()` activates it; the page reloads once the new worker controls it.
 * - The isolation flag lives in Cache Storage (`sift-settings`), readable by the SW at
 *   fetch time; turning it on takes effect after one reload (done here, loop-guarded).
 * - In `vite dev` nothing is registered (there is no sw.js); every call is a safe no-op.
 */

const SW_FILE = 'sw.js';
const SETTINGS_CACHE = 'sift-settings';
const COI_KEY = '__sift/coi';
/** How often an open tab asks the server for a new version. */
const UPDATE_CHECK_MS = 60 * 60 * 1000;
/** sessionStorage guard so a browser that refuses isolation cannot reload-loop. */
const COI_RELOAD_GUARD = 'sift-coi-reloaded';

let registration: ServiceWorkerRegistration | null = null;
let reloadOnControllerChange = false;

function supported(): boolean {
  return typeof navigator !== 'undefined' && 'serviceWorker' in navigator && !import.meta.env.DEV;
}

function appUrl(path: string): string {
  return new URL(path, document.baseURI).href;
}

/**
 * Registers sw.js and calls `onUpdate` whenever a new version has installed and waits
 * (also for one that was already waiting at startup). Returns null where service workers
 * are unavailable (dev server, insecure origin, old browser) — the app still works online.
 */
export async function registerServiceWorker(onUpdate: () => void): Promise<ServiceWorkerRegistration | null> {
  if (!supported()) return null;
  const container = navigator.serviceWorker;
  const hadController = container.controller !== null;
  let reg: ServiceWorkerRegistration;
  try {
    reg = await container.register(appUrl(SW_FILE), { scope: appUrl('../lib/'), updateViaCache: 'none' });
  } catch (err) {
    console.warn('Sift: service worker registration failed; offline use is unavailable', err);
    return null;
  }
  registration = reg;

  const notifyIfWaiting = () => {
    if (reg.waiting && container.controller) onUpdate();
  };
  reg.addEventListener('updatefound', () => {
    const incoming = reg.installing;
    incoming?.addEventListener('statechange', () => {
      if (incoming.state === 'installed') notifyIfWaiting();
    });
  });
  notifyIfWaiting();

  container.addEventListener('controllerchange', () => {
    if (reloadOnControllerChange) location.reload();
  });
  const check = () => void reg.update().catch(() => undefined);
  setInterval(check, UPDATE_CHECK_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') check();
  });

  await maybeReloadForIsolation(hadController);
  return reg;
}

/** Activates the waiting version; the page reloads when it takes control. */
export function applyUpdate(): void {
  const waiting = registration?.waiting;
  if (!waiting) return;
  reloadOnControllerChange = true;
  waiting.postMessage({ type: 'SKIP_WAITING' });
}

/** The stored setting (not whether this page currently *is* isolated). */
export async function getCrossOriginIsolationSetting(): Promise<boolean> {
  if (typeof caches === 'undefined') return false;
  const res = await (await caches.open(SETTINGS_CACHE)).match(appUrl(COI_KEY));
  return res ? (await res.text()) === '1' : false;
}

/**
 * Persists the setting and tells the SW. Isolation (needed for multi-threaded WASM)
 * applies from the next load: pass `reload: true` to reload now.
 */
export async function setCrossOriginIsolation(enabled: boolean, reload = false): Promise<void> {
  if (typeof caches === 'undefined') return;
  const cache = await caches.open(SETTINGS_CACHE);
  await cache.put(appUrl(COI_KEY), new Response(enabled ? '1' : '0'));
  navigator.serviceWorker?.controller?.postMessage({ type: 'SETTINGS_CHANGED' });
  sessionStorage.removeItem(COI_RELOAD_GUARD);
  if (reload) location.reload();
}

/** Threads worth giving ONNX Runtime: >1 only when SharedArrayBuffer is usable. */
export function suggestedThreads(maxThreads = 4): number {
  if (typeof crossOriginIsolated === 'undefined' || !crossOriginIsolated) return 1;
  const cores = navigator.hardwareConcurrency || 1;
  return Math.max(1, Math.min(maxThreads, cores));
}

/**
 * With the setting on, a page loaded before the SW controlled it (first visit, or the
 * setting just turned on) is not isolated yet: reload once, under the SW's headers.
 */
async function maybeReloadForIsolation(hadController: boolean): Promise<void> {
  if (crossOriginIsolated || !(await getCrossOriginIsolationSetting().catch(() => false))) return;
  if (sessionStorage.getItem(COI_RELOAD_GUARD)) return;
  const reload = () => {
    sessionStorage.setItem(COI_RELOAD_GUARD, '1');
    location.reload();
  };
  if (hadController) reload();
  else navigator.serviceWorker.addEventListener('controllerchange', reload, { once: true });
}
