/**
 * The installable, offline, static side of the built app (issue 4): manifest, service
 * worker precache, offline reload, sub-path deploy, update handshake, CSP, cross-origin
 * isolation, and "no request leaves the origin". Asserts only on stable things (title,
 * manifest, SW state, caches, network log), never on the app's components.
 * The built dist/ is served by a plain static server (fixtures/static-server.ts) mounted
 * at a sub-path, as a dumb static host would; SIFT_DIST names the build (default dist/).
 */
import { test, expect, type BrowserContext, type Page, type Request } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { serveStatic, type StaticServer } from './fixtures/static-server.ts';

const DIST = process.env.SIFT_DIST ?? 'dist';
const MOUNT = '/some/sub/path/';
/** Mirrors DEFAULT_PRECACHE_EXCLUDE in vite-plugins/sift-pwa.ts: emitted but cached on first use. */
const NOT_PRECACHED = /\.map$|ort-wasm-simd-threaded\.(asyncify|jsep|jspi)/;

function distFiles(): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) visit(join(d, e.name));
      else out.push(relative(DIST, join(d, e.name)).split('\\').join('/'));
    }
  };
  visit(DIST);
  return out;
}

/** Records CSP violations from the first byte of every page in the context. */
async function watchCsp(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      w.__csp.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
}

const cspViolations = (page: Page) => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);

/** Waits until the app's service worker is active and controls the page. */
async function swControlled(page: Page): Promise<{ scope: string; version: string }> {
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated');
  const version = await page.evaluate(
    () =>
      new Promise<string>((ok) => {
        const ch = new MessageChannel();
        ch.port1.onmessage = (e) => ok((e.data as { version: string }).version);
        navigator.serviceWorker.controller!.postMessage({ type: 'GET_VERSION' }, [ch.port2]);
      }),
  );
  return { scope, version };
}

/** The tests below check the SW itself; whether the app registers it is its own test. */
async function ensureRegistered(page: Page): Promise<void> {
  await page.evaluate(async () => {
    if (!(await navigator.serviceWorker.getRegistration())) await navigator.serviceWorker.register('./sw.js');
  });
}

let server: StaticServer;

test.beforeEach(async () => {
  server = await serveStatic(DIST, MOUNT);
});

test.afterEach(async () => {
  await server.close();
});

test('the app registers its service worker, scoped to its folder', async ({ page }) => {
  await page.goto(server.url);
  await expect(page).toHaveTitle('Sift');
  await expect
    .poll(() => page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.scope ?? null), {
      message: 'the app must call registerServiceWorker() from src/app/pwa.ts at startup',
      timeout: 20_000,
    })
    .toBe(server.url);
  expect((await swControlled(page)).scope).toBe(server.url);
});

test('manifest is linked, valid and its icons are served', async ({ page, request }) => {
  await page.goto(server.url);
  await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', /^#[0-9a-f]{6}$/i);
  const href = await page.locator('link[rel="manifest"]').evaluate((l: HTMLLinkElement) => l.href);
  expect(href).toBe(server.url + 'manifest.webmanifest');
  const res = await request.get(href);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toContain('manifest+json');
  const m = (await res.json()) as Record<string, unknown> & { icons: { src: string; sizes: string; type: string; purpose?: string }[] };
  expect(m).toMatchObject({ short_name: 'Sift', display: 'standalone', start_url: './', scope: './' });
  expect(new URL(m.start_url as string, href).href).toBe(server.url);
  // Installability in Chromium: 192 and 512 PNG icons, one of them maskable.
  const sizes = new Set(m.icons.filter((i) => i.type === 'image/png').map((i) => i.sizes));
  expect(sizes).toEqual(new Set(['192x192', '512x512']));
  expect(m.icons.some((i) => i.purpose === 'maskable')).toBe(true);
  for (const icon of m.icons) {
    const r = await request.get(new URL(icon.src, href).href);
    expect(r.status(), icon.src).toBe(200);
    const body = await r.body();
    if (icon.type === 'image/png') {
      expect(body.subarray(1, 4).toString()).toBe('PNG');
      const [w, h] = icon.sizes.split('x').map(Number);
      expect([body.readUInt32BE(16), body.readUInt32BE(20)], icon.src).toEqual([w, h]);
    } else {
      expect(body.toString()).toContain('<svg');
    }
  }
});

test('service worker precaches the shell and every WASM the app ships', async ({ page }) => {
  await page.goto(server.url);
  await ensureRegistered(page);
  const { version } = await swControlled(page);
  const cached = await page.evaluate(async (v) => {
    const cache = await caches.open('sift-precache-' + v);
    return (await cache.keys()).map((r) => r.url);
  }, version);
  const files = distFiles();
  const wasm = files.filter((f) => /\.(wasm|mjs)$/.test(f) && !NOT_PRECACHED.test(f));
  // The three WASM families of issue 4 must be in the build at all…
  expect(wasm.some((f) => /wa-sqlite.*\.wasm$/.test(f)), 'SQLite wasm in build').toBe(true);
  expect(wasm.some((f) => /web-tree-sitter.*\.wasm$/.test(f)), 'tree-sitter runtime in build').toBe(true);
  expect(wasm.filter((f) => /tree-sitter-\w+.*\.wasm$/.test(f)).length, 'grammars in build').toBeGreaterThan(5);
  expect(wasm.filter((f) => /ort-wasm-simd-threaded-[^.]*\.(wasm|mjs)$/.test(f)), 'ORT wasm+mjs in build').toHaveLength(2);
  // …and every one of them, plus the shell, is precached.
  for (const f of [...wasm, 'index.html', 'manifest.webmanifest']) expect(cached, f).toContain(server.url + f);
  expect(cached.some((u) => u.endsWith('.map'))).toBe(false);
});

test('after the first visit the app and its WASM load with the network off', async ({ page, context }) => {
  await page.goto(server.url);
  await ensureRegistered(page);
  const { version } = await swControlled(page);
  const wasmUrls = await page.evaluate(async (v) => {
    const keys = await (await caches.open('sift-precache-' + v)).keys();
    return keys.map((r) => r.url).filter((u) => u.endsWith('.wasm'));
  }, version);
  expect(wasmUrls.length).toBeGreaterThan(0);

  await context.setOffline(true);
  await server.close(); // really gone, not just emulated
  await page.reload();
  await expect(page).toHaveTitle('Sift');
  await expect(page.locator('#app')).not.toBeEmpty();
  const compiled = await page.evaluate(async (urls) => {
    const ok: string[] = [];
    for (const u of urls) {
      const bytes = await (await fetch(u)).arrayBuffer();
      await WebAssembly.compile(bytes);
      ok.push(u);
    }
    return ok.length;
  }, wasmUrls);
  expect(compiled).toBe(wasmUrls.length);
  // A deep link (query in the hash) also opens offline.
  await page.goto(server.url + '#q=offline');
  await expect(page).toHaveTitle('Sift');
  await context.setOffline(false);
  server = await serveStatic(DIST, MOUNT); // afterEach closes it
});

test('no request leaves the app origin or its sub-path during a session', async ({ page, context }) => {
  const requests: string[] = [];
  context.on('request', (r: Request) => requests.push(r.url()));
  await page.goto(server.url);
  await ensureRegistered(page);
  await swControlled(page);
  await page.reload();
  await page.keyboard.press('/');
  await page.keyboard.type('parse config');
  await page.waitForTimeout(500);
  expect(requests.length).toBeGreaterThan(3);
  const outside = requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:') && !u.startsWith('blob:'));
  expect(outside).toEqual([]);
  expect(server.requests.every((p) => p.startsWith(MOUNT))).toBe(true);
});

test('strict CSP is in the built page and nothing violates it', async ({ page, context }) => {
  await watchCsp(context);
  await page.goto(server.url);
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(csp).toMatch(/connect-src 'self'/);
  expect(csp).toContain("object-src 'none'");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  await ensureRegistered(page);
  await swControlled(page);
  await page.reload();
  await expect(page).toHaveTitle('Sift');
  expect(await cspViolations(page)).toEqual([]);

  // The policy is live: an injected inline script is refused and reported.
  const ran = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__pwned = true';
    document.body.append(s);
    await new Promise((r) => setTimeout(r, 100));
    return (window as unknown as { __pwned?: boolean }).__pwned === true;
  });
  expect(ran).toBe(false);
  expect((await cspViolations(page)).some((v) => v.startsWith('script-src'))).toBe(true);
});

test('a new deploy installs, waits, and takes over only when asked', async ({ page }) => {
  await page.goto(server.url);
  await ensureRegistered(page);
  const { version } = await swControlled(page);
  const sw = readFileSync(join(DIST, 'sw.js'), 'utf8');
  server.override('sw.js', sw.replaceAll(version, 'feedfacefeedface'));
  const waiting = await page.evaluate(async () => {
    const reg = (await navigator.serviceWorker.getRegistration())!;
    await reg.update();
    for (let i = 0; i < 200 && !reg.waiting; i++) await new Promise((r) => setTimeout(r, 50));
    return reg.waiting?.state ?? null;
  });
  expect(waiting).toBe('installed');
  // Still the old version in control until the page says so.
  expect((await swControlled(page)).version).toBe(version);
  await page.evaluate(async () => {
    const reg = (await navigator.serviceWorker.getRegistration())!;
    const changed = new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
    reg.waiting!.postMessage({ type: 'SKIP_WAITING' });
    await changed;
  });
  expect((await swControlled(page)).version).toBe('feedfacefeedface');
  const names = await page.evaluate(() => caches.keys());
  expect(names).toContain('sift-precache-feedfacefeedface');
  expect(names).not.toContain('sift-precache-' + version);
});

test('the app offers a new deploy and reloads into it when the user agrees', async ({ page }) => {
  await page.goto(server.url);
  await ensureRegistered(page);
  const { version } = await swControlled(page);
  const sw = readFileSync(join(DIST, 'sw.js'), 'utf8');
  server.override('sw.js', sw.replaceAll(version, 'cafebabecafebabe'));
  await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
  const prompt = page.getByRole('status').filter({ hasText: 'A new version of Sift is available.' });
  await expect(prompt).toBeVisible({ timeout: 20_000 });
  await page.screenshot({ path: 'test-results/screens/update-prompt.png' });
  expect((await swControlled(page)).version).toBe(version);
  await Promise.all([page.waitForEvent('load'), prompt.getByRole('button', { name: 'Reload to update' }).click()]);
  await expect.poll(async () => (await swControlled(page)).version, { timeout: 20_000 }).toBe('cafebabecafebabe');
});

test('cross-origin isolation via the service worker: on by default, no reload forced, opt-out flag', async ({ page }) => {
  await page.goto(server.url);
  await swControlled(page);
  // The first load was not served by the SW: not isolated, and the app does not reload itself.
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  // Every load the SW controls is isolated, and OPFS still works (the app's workers under
  // isolation: first-run-model.spec.ts indexes and searches by meaning in such a load).
  await page.reload();
  await expect(page).toHaveTitle('Sift');
  const isolated = await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const fh = await root.getFileHandle('coi-probe.txt', { create: true });
    const w = await fh.createWritable();
    await w.write('ok');
    await w.close();
    const opfs = await (await fh.getFile()).text();
    return { coi: crossOriginIsolated, sab: typeof SharedArrayBuffer === 'function', opfs };
  });
  expect(isolated.coi && isolated.sab).toBe(true);
  expect(isolated.opfs).toBe('ok');
  // What setCrossOriginIsolation(false) in src/app/pwa.ts does: the next load is not isolated.
  await page.evaluate(async () => {
    const cache = await caches.open('sift-settings');
    await cache.put(new URL('__sift/coi', document.baseURI).href, new Response('0'));
    navigator.serviceWorker.controller!.postMessage({ type: 'SETTINGS_CHANGED' });
  });
  await page.reload();
  await expect(page).toHaveTitle('Sift');
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
});

test('requests for published index packs (*.sift) go to the network without the service worker (static routing)', async ({ page, context }) => {
  await page.goto(server.url);
  await swControlled(page);
  await page.reload();
  await expect(page).toHaveTitle('Sift');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const seen = new Map<string, { fromServiceWorker: boolean; source?: string }>();
  cdp.on('Network.responseReceived', (e: { response: { url: string; fromServiceWorker?: boolean; serviceWorkerRouterInfo?: { matchedSourceType?: string } } }) => {
    seen.set(new URL(e.response.url).pathname, { fromServiceWorker: !!e.response.fromServiceWorker, source: e.response.serviceWorkerRouterInfo?.matchedSourceType });
  });
  await page.evaluate(async () => {
    await fetch('packs/demo/demo-0123456789abcdef.sift', { headers: { Range: 'bytes=0-99' } });
    await fetch('manifest.webmanifest');
  });
  await expect.poll(() => seen.size).toBe(2);
  const [pack, other] = [...seen.entries()].sort((a, b) => (a[0].endsWith('.sift') ? -1 : b[0].endsWith('.sift') ? 1 : 0));
  expect(pack![1]).toEqual({ fromServiceWorker: false, source: 'network' });
  expect(other![1].fromServiceWorker).toBe(true); // everything else still comes from the precache
});

test('dev/preview servers serve the generated test models under models/generated/', async ({ request, baseURL }) => {
  const res = await request.get(new URL('models/generated/tiny/config.json', baseURL).href);
  expect(res.status(), 'run `npm run models` first').toBe(200);
  expect(((await res.json()) as { model_type?: string }).model_type).toBeTruthy();
  const missing = await request.get(new URL('models/generated/no-such-model/config.json', baseURL).href);
  expect(missing.status()).toBe(404);
});
