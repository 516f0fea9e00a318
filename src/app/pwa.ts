/**
 * Page side of the service worker (src/sw.ts): registration, the "update available"
 * handshake, and the cross-origin-isolation setting. Browser main thread only.
 *
 * Invariants:
 * - sw.js sits next to index.html, so its scope is the app's folder under any sub-path.
 * - A new version never takes over by itself: `onUpdate` fires, the UI asks, and only
 *   `applyUpdate()` activates it; the page reloads once the new worker controls it.
 * - Cross-origin isolation (multi-threaded WASM) is on by default: the SW adds COOP/COEP
 *   to every response it serves, so every load it controls — the second visit on — is
 *   isolated. No reload is forced on the first visit (it runs single-threaded). An opt-out
 *   flag ('0') lives in Cache Storage (`sift-settings`), readable by the SW at fetch time.
 * - Where service workers are unavailable (insecure origin, private mode, blocked by
 *   policy, `vite dev`) registration resolves to a reason string, never throws: the app
 *   still works online, without offline use or threads.
 */

const SW_FILE = 'sw.js';
const SETTINGS_CACHE = 'sift-settings';
const COI_KEY = '__sift/coi';
/** How often an open tab asks the server for a new version. */
const UPDATE_CHECK_MS = 60 * 60 * 1000;

let registration: ServiceWorkerRegistration | null = null;
let reloadOnControllerChange = false;

/** Why service workers cannot run here, or '' when they can. */
export function serviceWorkerMissing(): string {
  if (import.meta.env.DEV) return 'the dev server has no service worker';
  if (typeof navigator === 'undefined' || !navigator.serviceWorker) {
    return typeof isSecureContext !== 'undefined' && !isSecureContext
      ? 'this page is not served over HTTPS (or localhost)'
      : 'this browser context does not allow service workers (private mode or a policy)';
  }
  return '';
}

export type Registration =
  | { ok: true; registration: ServiceWorkerRegistration }
  | { ok: false; reason: string };

function appUrl(path: string): string {
  return new URL(path, document.baseURI).href;
}

/**
 * Registers sw.js and calls `onUpdate` whenever a new version has installed and waits
 * (also for one that was already waiting at startup). Where service workers are
 * unavailable or registration fails, resolves to `{ ok: false, reason }` — the app still
 * works online.
 */
export async function registerServiceWorker(onUpdate: () => void): Promise<Registration> {
  const missing = serviceWorkerMissing();
  if (missing) return { ok: false, reason: missing };
  const container = navigator.serviceWorker;
  let reg: ServiceWorkerRegistration;
  try {
    reg = await container.register(appUrl(SW_FILE), { scope: appUrl('./'), updateViaCache: 'none' });
  } catch (err) {
    return { ok: false, reason: `registration failed (${err instanceof Error ? err.message : String(err)})` };
  }
  // Some blocking contexts resolve without a registration instead of rejecting.
  if (!reg) return { ok: false, reason: 'this browser context does not allow service workers (private mode or a policy)' };
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

  return { ok: true, registration: reg };
}

/** Activates the waiting version; the page reloads when it takes control. */
export function applyUpdate(): void {
  const waiting = registration?.waiting;
  if (!waiting) return;
  reloadOnControllerChange = true;
  waiting.postMessage({ type: 'SKIP_WAITING' });
}

/** The stored setting (not whether this page currently *is* isolated): on unless turned off. */
export async function getCrossOriginIsolationSetting(): Promise<boolean> {
  if (typeof caches === 'undefined') return false;
  const res = await (await caches.open(SETTINGS_CACHE)).match(appUrl(COI_KEY));
  return res ? (await res.text()) !== '0' : true;
}

/**
 * Persists the setting and tells the SW. It applies from the next load the SW controls:
 * pass `reload: true` to reload now.
 */
export async function setCrossOriginIsolation(enabled: boolean, reload = false): Promise<void> {
  if (typeof caches === 'undefined') return;
  const cache = await caches.open(SETTINGS_CACHE);
  await cache.put(appUrl(COI_KEY), new Response(enabled ? '1' : '0'));
  navigator.serviceWorker?.controller?.postMessage({ type: 'SETTINGS_CHANGED' });
  if (reload) location.reload();
}
