/**
 * Pick to results in the built app: a person opens Sift, types a query, then picks a folder
 * of PICK_FILES files; measured is the time from the pick (the folder picker returning its
 * handle) to the first result on the screen. The app is the real build (`vite build`, served
 * by `vite preview`), in headless Debian Chromium with a fresh profile per round (nothing
 * compiled or cached by an earlier round). Only the picker is replaced: it returns an OPFS
 * folder written before the round (untimed), a real FileSystemDirectoryHandle.
 *
 *   npx tsx bench/app-pick.ts [--dist=DIR[@ROOT],…] [--rounds=N] [--trace=FILE] [--folder=DIR --query=Q]
 *
 * `--folder`: pick every file of DIR instead (up to 1 MB each, `.git/` left out), e.g. a checkout
 * of 1,000-2,000 files, a bulk load; `--query`: what is typed before the pick (PICK_QUERY).
 *
 * SIFT_BENCH_CHROMIUM_ARGS adds Chromium switches for an experiment (as in bench/browser.ts).
 *
 * `--dist`: built app folders to compare, interleaved round by round (ROOT: the checkout
 * whose vite.config.ts serves it; default this one); default: a fresh build of this checkout
 * in bench/tmp/app-pick-dist. `--trace`: a CDP trace of the first round (user timings and
 * V8's WASM compile events on every thread, for bench/app-pick-trace.ts).
 *
 * Invariants: the same files, query and browser flags on every side; every round a new
 * browser profile; nothing is written outside bench/tmp/ and the temp folder.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, preview } from 'vite';
import { chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS } from '../playwright.config.ts';
import { CORPORA_DIR, REPO_DIR, TMP_DIR, listFiles } from './util.ts';

const CHROMIUM = process.env.SIFT_CHROMIUM ?? '/usr/bin/chromium';
/** The folder a person picks: this many files of the medium corpus (Go and JavaScript). */
export const PICK_FILES = 100;
/** What the person typed before picking (words of several of those files). */
export const PICK_QUERY = 'parse header';
/** SIFT_BENCH_CHROMIUM_ARGS: more Chromium switches for an experiment (as in bench/browser.ts), e.g. V8 flags. */
const EXPERIMENT_ARGS = (process.env.SIFT_BENCH_CHROMIUM_ARGS ?? '').split(' ').filter(Boolean);
const FIXTURE_ROOT = 'bench-pick';
const FOLDER = 'picked';

/** Every n-th file of the sorted medium corpus, so both languages and many folders are in it. */
export function pickFiles(): Array<{ path: string; b64: string }> {
  const dir = join(CORPORA_DIR, 'medium');
  const all = listFiles(dir);
  const step = Math.max(1, Math.floor(all.length / PICK_FILES));
  return all.filter((_, i) => i % step === 0).slice(0, PICK_FILES).map((path) => ({ path, b64: readFileSync(join(dir, path)).toString('base64') }));
}

export interface PickRound {
  /** With a trace: where the time went (pickBreakdown). */
  phases?: PickPhase[];
  /** Pick (the picker returned) → the first result element in the page, ms. */
  pickToResultsMs: number;
  /** CPU of the browser's processes from the click to the results seen (browserCpuMs), ms. */
  cpuMs: number | null;
  /** Pick → the codebase row shows the finished index, ms (null: not seen in time). */
  pickToIndexedMs: number | null;
  results: number;
}

/** Copies the files into OPFS and makes `showDirectoryPicker` return that folder, stamping the pick time. */
export async function installPicker(page: Page): Promise<void> {
  // tsx names nested functions with an `__name` helper that the page does not have.
  await page.addInitScript('globalThis.__name = (f) => f;');
  await page.addInitScript(({ root, folder }) => {
    (window as unknown as { showDirectoryPicker: unknown }).showDirectoryPicker = async () => {
      const base = await (await navigator.storage.getDirectory()).getDirectoryHandle(root);
      const dir = await base.getDirectoryHandle(folder);
      (window as unknown as { __pickedAt: number }).__pickedAt = performance.now();
      return dir;
    };
    // The first result and the end of the index, as the page shows them (a mutation observer:
    // no polling interval adds to the time).
    const w = window as unknown as { __firstResultAt?: number; __indexedAt?: number };
    new MutationObserver(() => {
      if (w.__firstResultAt === undefined && document.querySelector('[data-testid="result"]')) w.__firstResultAt = performance.now();
      if (w.__indexedAt === undefined && document.querySelector('[data-testid="codebase-stats"]:not([data-files="0"])') && !document.querySelector('[data-testid="progress"]')) {
        w.__indexedAt = performance.now();
      }
    }).observe(document, { subtree: true, childList: true, attributes: true });
  }, { root: FIXTURE_ROOT, folder: FOLDER });
}

export async function writeFolder(page: Page, all: Array<{ path: string; b64: string }>): Promise<void> {
  // In slices: a checkout of thousands of files is megabytes of arguments for one call.
  for (let i = 0; i < all.length; i += 200) await writeSlice(page, all.slice(i, i + 200));
}

async function writeSlice(page: Page, files: Array<{ path: string; b64: string }>): Promise<void> {
  await page.evaluate(async ({ files, root, folder }) => {
    const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
    const base = await (await navigator.storage.getDirectory()).getDirectoryHandle(root, { create: true });
    const dir = await base.getDirectoryHandle(folder, { create: true });
    for (const f of files) {
      const parts = f.path.split('/');
      let d = dir;
      for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create: true });
      const w = await (await d.getFileHandle(parts.at(-1)!, { create: true })).createWritable();
      await w.write(b64(f.b64));
      await w.close();
    }
  }, { files, root: FIXTURE_ROOT, folder: FOLDER });
}

/**
 * CPU time (ms, user + system) of the browser whose profile is `profile` and every process
 * under it, from /proc: what the round cost the machine, whatever else ran beside it (on a
 * loaded machine wall time measures the neighbours too). Linux only; null elsewhere.
 */
export function browserCpuMs(profile: string): number | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const parent = new Map<string, string>();
  const ticks = new Map<string, number>();
  let root: string | null = null;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(pid, f[1]!);
      ticks.set(pid, Number(f[11]) + Number(f[12]));
      if (!root && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`--user-data-dir=${profile}`)) root = pid;
    } catch {
      // gone meanwhile
    }
  }
  if (!root) return null;
  let sum = 0;
  for (const pid of ticks.keys()) {
    for (let p: string | undefined = pid; p && p !== '0'; p = parent.get(p)) {
      if (p === root) {
        sum += ticks.get(pid)!;
        break;
      }
    }
  }
  return (sum * 1000) / CLOCK_TICKS;
}
/** USER_HZ: /proc times are in 1/100 s on Linux. */
const CLOCK_TICKS = 100;

/**
 * Trace categories: user timings (performance.mark in any thread), V8's WASM compiles, thread
 * names, and V8's sampling profiler on every thread (bench/trace-summary.ts reads it).
 */
const TRACE_CATEGORIES = ['blink.user_timing', 'v8.wasm', 'disabled-by-default-v8.wasm.detailed', 'devtools.timeline', 'v8', 'disabled-by-default-v8.cpu_profiler', '__metadata'];

/**
 * Start a browser-wide CDP trace of `categories` from `page`'s session; `stop` writes it to a
 * file (the JSON object DevTools saves) and returns its bytes. (bench/browser.ts traces with it too.)
 */
export async function startTrace(page: Page, categories: readonly string[]): Promise<{ stop(file: string): Promise<Buffer> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Tracing.start', { transferMode: 'ReturnAsStream', traceConfig: { includedCategories: [...categories], recordMode: 'recordAsMuchAsPossible' } });
  return {
    async stop(file: string) {
      const done = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (e) => resolve(e.stream!)));
      await cdp.send('Tracing.end');
      const stream = await done;
      const parts: Buffer[] = [];
      for (;;) {
        const r = await cdp.send('IO.read', { handle: stream, size: 1 << 22 });
        parts.push(Buffer.from(r.data, r.base64Encoded ? 'base64' : 'utf8'));
        if (r.eof) break;
      }
      await cdp.send('IO.close', { handle: stream });
      await cdp.detach();
      const data = Buffer.concat(parts);
      writeFileSync(file, data);
      return data;
    },
  };
}

/** One round in a fresh browser profile: open the app, type the query, pick, wait for results. */
export async function pickRound(url: string, files: Array<{ path: string; b64: string }>, traceFile?: string, query = PICK_QUERY): Promise<PickRound> {
  const profile = mkdtempSync(join(tmpdir(), 'sift-pick-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...EXPERIMENT_ARGS], headless: true, viewport: { width: 1400, height: 900 } });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await installPicker(page);
    await page.goto(url);
    await writeFolder(page, files);
    const box = page.getByTestId('search-input');
    await box.fill(query);
    // The typed query's first answer (no codebase yet) has landed and the page is idle.
    await page.getByRole('button', { name: 'Open folder…' }).waitFor();
    await page.waitForTimeout(1500);
    // (Traced from here: V8's sampler starts on each thread at its first task after this, which
    // on the store worker took 0.3-0.6 s just after the pick in traced rounds. Traced from page
    // load instead, the round ran several times slower: compare traced rounds only with each other.)
    const tracing = traceFile ? await startTrace(page, TRACE_CATEGORIES) : null;
    let phases: PickPhase[] | undefined;
    const cpu0 = browserCpuMs(profile);
    await page.getByRole('button', { name: 'Open folder…' }).click();
    await page.waitForFunction(() => (window as unknown as { __firstResultAt?: number }).__firstResultAt !== undefined, null, { timeout: 60_000, polling: 50 });
    const cpu1 = browserCpuMs(profile);
    // The breakdown ends at the first result: the trace stops there (a big folder's whole index would make it huge).
    if (tracing) {
      const data = await tracing.stop(traceFile!);
      const parsed = JSON.parse(data.toString('utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
      const untilMs = await page.evaluate(() => {
        const w = window as unknown as { __pickedAt: number; __firstResultAt: number };
        return w.__firstResultAt - w.__pickedAt;
      });
      phases = pickBreakdown(Array.isArray(parsed) ? parsed : parsed.traceEvents ?? [], untilMs);
    }
    await page.waitForFunction(() => (window as unknown as { __indexedAt?: number }).__indexedAt !== undefined, null, { timeout: 90_000, polling: 50 }).catch(() => undefined);
    const t = await page.evaluate(() => {
      const w = window as unknown as { __pickedAt: number; __firstResultAt: number; __indexedAt?: number };
      return { picked: w.__pickedAt, first: w.__firstResultAt, indexed: w.__indexedAt ?? null, results: document.querySelectorAll('[data-testid="result"]').length };
    });
    return { cpuMs: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0, pickToResultsMs: t.first - t.picked, pickToIndexedMs: t.indexed === null ? null : t.indexed - t.picked, results: t.results, ...(phases ? { phases } : {}) };
  } finally {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
}

interface TraceEvent { name: string; cat?: string; ph: string; ts: number; dur?: number; pid: number; tid: number; id2?: { local?: string }; args?: { name?: string; data?: { type?: string } } }

/** One line of the breakdown: a phase on a thread, ms from the pick. */
export interface PickPhase { thread: string; what: string; startMs: number; ms: number }

/** WASM compile work a thread does itself (streaming, lazy per-function compiles, wrappers). */
const WASM_ON_THREAD = /^wasm\.(AsyncCompile|StartStreamingCompilation|OnBytesReceived|FinishStreaming|FinishAsyncCompile|CompileLazy|CompileJSToWasmWrapper|CompileWasmImportCallWrapper|SyncCompile)$/;

/**
 * Where pick → results went, from a trace of one round: the app's `sift:*` spans
 * (src/core/user-timing.ts) by thread, each worker's start (first event → its module
 * evaluated), WASM compiling on each thread, and V8's background tier-up compiles. Threads
 * are named by the spans they ran (store-open: store; tree-sitter: indexer; chunker-ready).
 */
export function pickBreakdown(events: TraceEvent[], untilMs: number): PickPhase[] {
  const click = events.find((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'click');
  if (!click) return [];
  const t0 = click.ts;
  const ms = (us: number) => us / 1000;
  const key = (e: TraceEvent) => `${e.pid}:${e.tid}`;
  const names = new Map<string, string>();
  const role: Record<string, string> = { 'sift:store-open': 'store', 'sift:search': 'store', 'sift:tree-sitter': 'indexer', 'sift:index': 'indexer', 'sift:chunker-ready': 'chunker' };
  let chunkers = 0;
  for (const e of events) {
    const r = role[e.name];
    if (r && e.ph === 'b' && !names.has(key(e))) names.set(key(e), r === 'chunker' ? `chunker ${++chunkers}` : r);
  }
  const out: PickPhase[] = [];
  // User timing spans: begin/end pairs by id.
  const open = new Map<string, TraceEvent>();
  for (const e of events) {
    if (!e.name.startsWith('sift:') || !e.cat?.includes('user_timing')) continue;
    const id = `${key(e)}:${e.id2?.local}:${e.name}`;
    if (e.ph === 'b') open.set(id, e);
    else if (e.ph === 'e' && open.has(id)) {
      const b = open.get(id)!;
      open.delete(id);
      if (ms(e.ts - t0) >= -1 && ms(b.ts - t0) <= untilMs) out.push({ thread: names.get(key(e)) ?? key(e), what: e.name.slice(5), startMs: ms(b.ts - t0), ms: ms(e.ts - b.ts) });
    }
  }
  for (const [k, name] of names) {
    const own = events.filter((e) => key(e) === k && e.ts >= t0 && ms(e.ts - t0) <= untilMs);
    const first = own.find((e) => e.ts >= t0);
    const evaluated = own.find((e) => e.name === 'v8.evaluateModule');
    if (first && evaluated) out.push({ thread: name, what: 'worker start (module loaded)', startMs: ms(first.ts - t0), ms: ms(evaluated.ts + (evaluated.dur ?? 0) - first.ts) });
    const wasm = own.filter((e) => e.ph === 'X' && WASM_ON_THREAD.test(e.name));
    if (wasm.length) out.push({ thread: name, what: 'WASM compile on the thread', startMs: ms(wasm[0]!.ts - t0), ms: ms(wasm.reduce((a, e) => a + (e.dur ?? 0), 0)) });
  }
  const tierUp = events.filter((e) => e.name === 'wasm.TopTierCompilation' && e.ts >= t0 && ms(e.ts - t0) <= untilMs);
  if (tierUp.length) out.push({ thread: 'V8 background', what: 'WASM tier-up (optimizing compiles)', startMs: ms(tierUp[0]!.ts - t0), ms: ms(tierUp.reduce((a, e) => a + (e.dur ?? 0), 0)) });
  return out.sort((a, b) => a.startMs - b.startMs);
}

/** Serves a built app folder with its checkout's vite.config.ts (as `vite preview` does). */
export async function serveApp(dist: string, root = REPO_DIR): Promise<{ url: string; close(): Promise<void> }> {
  const server = await preview({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'error', build: { outDir: dist }, preview: { host: '127.0.0.1', port: 0 } });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('vite preview did not report a URL');
  return { url, close: () => server.close() };
}

export async function buildApp(outDir: string, root = REPO_DIR): Promise<void> {
  await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'error', build: { outDir, emptyOutDir: true, sourcemap: false } });
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

if (process.argv[1] && /bench\/app-pick\.ts$/.test(process.argv[1])) {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const rounds = Number(arg('rounds') ?? 3);
  let sides = (arg('dist') ?? '').split(',').filter(Boolean).map((s) => {
    const [dist, root] = s.split('@');
    return { dist: dist!, root: root ?? REPO_DIR };
  });
  if (!sides.length) {
    const out = join(TMP_DIR, 'app-pick-dist');
    await buildApp(out);
    sides = [{ dist: out, root: REPO_DIR }];
  }
  const folder = arg('folder');
  const query = arg('query') ?? PICK_QUERY;
  const files = folder
    ? listFiles(folder, (rel) => !rel.split('/').includes('.git')).filter((rel) => statSync(join(folder, rel)).size <= 1 << 20).map((path) => ({ path, b64: readFileSync(join(folder, path)).toString('base64') }))
    : pickFiles();
  const servers = await Promise.all(sides.map((s) => serveApp(s.dist, s.root)));
  const got: PickRound[][] = sides.map(() => []);
  try {
    for (let r = 0; r < rounds; r++) {
      const order = sides.map((_, i) => i);
      if (r % 2) order.reverse();
      for (const i of order) {
        const trace = r === 0 && arg('trace') ? `${arg('trace')}.${i}.json` : undefined;
        const x = await pickRound(servers[i]!.url, files, trace, query);
        got[i]!.push(x);
        console.error(`${sides[i]!.dist} round ${r}: pick→results ${x.pickToResultsMs.toFixed(0)} ms (browser CPU ${x.cpuMs?.toFixed(0) ?? '?'} ms), pick→indexed ${x.pickToIndexedMs?.toFixed(0) ?? '?'} ms (${x.results} results)`);
        for (const p of x.phases ?? []) console.error(`  ${p.thread.padEnd(14)} ${p.what.padEnd(36)} at ${p.startMs.toFixed(0).padStart(6)} ms, ${p.ms.toFixed(0).padStart(6)} ms`);
      }
    }
  } finally {
    for (const s of servers) await s.close();
  }
  for (const [i, s] of sides.entries()) {
    const xs = got[i]!;
    console.log(`${s.dist}: pick→results median ${median(xs.map((x) => x.pickToResultsMs)).toFixed(0)} ms [${xs.map((x) => x.pickToResultsMs.toFixed(0)).join(', ')}], ` +
      `browser CPU median ${median(xs.map((x) => x.cpuMs ?? NaN)).toFixed(0)} ms, ` +
      `pick→indexed median ${median(xs.map((x) => x.pickToIndexedMs ?? NaN)).toFixed(0)} ms`);
  }
}
