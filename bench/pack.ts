/**
 * Published index over HTTP (issue 27): what opening and searching a `.sift` pack costs in
 * the real app, in requests, bytes and time, against a local OPFS index of the same tree
 * searched in the same run.
 *
 * Sequence:
 * 1. A kernel subset (bench/corpora.ts: linux-source-6.1; --quick: mm + block) is copied to
 *    bench/tmp/pack/trees/<name> and published with `bin/sift publish <tree> --out
 *    bench/tmp/pack/packs/<name> --db bench/tmp/pack/publish-<name>.db` (→ sift-index.json +
 *    <name>-<hash16>.sift), from a cold index each run (never ~/.sift). No `--embed` unless
 *    `--publish-args` adds it; SIFT_OFFLINE=1 keeps publishing off the Hub.
 * 2. The app is built with `vite build` into bench/tmp/pack/dist (dist/ is never touched;
 *    `--dist DIR` reuses a build).
 * 3. One static server (test/support/static-server.ts) serves the build at `/` and the packs
 *    at `/packs/`, with byte ranges. Round trip model: DELAY_MS (50 ms) is waited before
 *    every response — app files, manifest and each range of the pack alike — so every HTTP
 *    exchange costs one 50 ms round trip; requests in flight at once overlap their waits
 *    (Chromium's six connections per host); bandwidth is loopback's and connection set-up is
 *    free. The browser's HTTP cache is kept out (`Cache-Control: no-store`), so the counters
 *    see every read the app makes.
 * 4. Pack side, three times — from a host that answers several ranges per request, one that
 *    answers one range per request, and the latter over HTTPS with HTTP/2 (as CDNs serve; the
 *    certificate of test/support/tls, accepted with --ignore-certificate-errors) — each in
 *    headless Debian Chromium with a fresh profile (playwright.config.ts's switches): navigate to `/#index=packs/<name>/sift-index.json`; time to the codebase row
 *    and to the first results of a keyword query (FIRST_QUERY, in Keyword mode); the server's
 *    requests and bytes until then. Then each keyword query and exact pattern (and semantic
 *    queries when the manifest lists embeddings) with the counters reset before it: .sift
 *    requests and bytes per query and latency p50/p95.
 * 5. Local side, in another fresh profile: the same tree written into OPFS and opened through
 *    the app's "Open folder…" (showDirectoryPicker replaced as in the e2e tests, see
 *    test/e2e/helpers/opfs-fixture.ts), indexed, then the same queries and patterns.
 * 6. Parity: keyword top 10 (path:lines, in order) and exact lines (path:line) and totals,
 *    pack against local.
 *
 * Latency is measured in the page: from the input event that types the query to the DOM
 * holding the answer for it (the summary carrying that query, "Searching…" gone), with a
 * MutationObserver. The query is set whole, as a paste, which the app searches at once (typed
 * one character at a time it waits 150 ms for a pause); rendering is included; the
 * worker's own time (the summary's "N ms") is reported beside it. Between queries the
 * harness waits until the server has been quiet for QUIET_MS, so a query's trailing reads
 * are not billed to the next one.
 *
 * Usage: tsx bench/pack.ts [--quick] [--subset mm,fs] [--dist DIR] [--delay MS] [--dev-pack] [--pack-only]
 *        [--publish-args="--embed --model DIR"] [--open-timeout S]  (the = form: a value that starts with -- is not read as one)
 *        (also the `pack` hook of `npm run bench`)
 * Writes bench/results/<date>-pack[-quick].{md,json} when both sides ran, else the same files
 * to bench/tmp/pack/ and exits 1. `--dev-pack` builds a stand-in pack from a `sift index` db
 * (VACUUM INTO, hand-written manifest) instead of `sift publish`, for working on the app side
 * before publish exists; its results say so and go to bench/tmp/pack/ only.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_ARGS } from '../playwright.config.ts';
import { startStaticServer, type RunningStaticServer, type ServerStats, type StaticServerOptions } from '../test/support/static-server.ts';
import { FIXTURE_ROOT, installPicker } from '../test/e2e/helpers/opfs-fixture.ts';
import { PACK_MANIFEST_NAME, PACK_EXTENSION, packFileName, parsePackManifest, type PackManifest } from '../src/core/store/pack.ts';
import { SCHEMA_VERSION } from '../src/core/store/schema.ts';
import { latencyStats } from './baselines.ts';
import { KERNEL_DIRS, prepareScale } from './corpora.ts';
import { SQLITE3 } from './eval/seed-baseline.ts';
import { LITERALS } from './shared.ts';
import { siftIndex } from './sift.ts';
import {
  REPO_DIR, RESULTS_DIR, SIFT_BIN, TMP_DIR, fmt, isMain, listFiles, machineInfo, machineMarkdown, mb, parseArgs, percentile, run, runOk,
  type MachineInfo,
} from './util.ts';

const WORK = join(TMP_DIR, 'pack');
const CHROMIUM = process.env.SIFT_CHROMIUM ?? '/usr/bin/chromium';
/** One simulated round trip, waited before every response (see the header). */
export const DELAY_MS = 50;
/** The server counts as quiet (a query's reads are over) after this long without a request. */
const QUIET_MS = 300;
const QUICK_SUBSET = ['mm', 'block'];
/** The query whose first results end the "open" measurement (not among KEYWORD_QUERIES). */
export const FIRST_QUERY = 'kfree';
export const KEYWORD_QUERIES = [
  'kmalloc', 'spin_lock_irqsave', 'copy_from_user', 'EXPORT_SYMBOL_GPL', 'mutex_lock', 'rcu_read_lock', 'list_for_each_entry',
  'atomic_inc', 'GFP_KERNEL', 'page table', 'reference count', 'write barrier', 'read lock', 'file descriptor',
  'free memory pages under pressure', 'allocate a buffer for network packets', 'schedule a task on another cpu',
  'handle a timeout when the connection is idle', 'struct bio', 'flush the workqueue',
];
/** The C literals of the grep bench's set (shared.ts), plus one that matches nothing. */
export const EXACT_PATTERNS = LITERALS.filter((p) => !['func (', 'if err != nil {', 'throw new Error(', '->'].includes(p));
const SEMANTIC_QUERIES = ['free memory pages under pressure', 'allocate a buffer for network packets', 'schedule a task on another cpu', 'copy data from user space', 'wait for a lock with a timeout'];
const OPEN_TIMEOUT_MS = 180_000;
const QUERY_TIMEOUT_MS = 120_000;
const INDEX_TIMEOUT_MS = 20 * 60_000;
/** Raw bytes per batch written into OPFS for the local side. */
const COPY_BATCH_BYTES = 8 << 20;
/** Keyword results compared (the app shows 20). */
const TOP = 10;

export interface BenchPackOptions {
  quick?: boolean;
  /** Kernel folders to publish (default: all of KERNEL_DIRS; --quick: mm, block). */
  subset?: string[];
  /** A built app to serve instead of building one. */
  dist?: string;
  delayMs?: number;
  /** Stand-in pack from a `sift index` db instead of `sift publish` (development only). */
  devPack?: boolean;
  /** Extra arguments for `sift publish`. */
  publishArgs?: string[];
  /** Skip the local OPFS side (pack only). */
  packOnly?: boolean;
  /** How long the pack may take to show its codebase row (default 180 s). */
  openTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface Answer {
  query: string;
  /** In-page latency: input event → answer in the DOM (includes the typing debounce). */
  ms: number;
  /** The worker's own time, from the summary ("… · N ms"). */
  workerMs: number | null;
  summary: string;
  /** Ranked: top results as `path:start–end`; exact: every shown line as `path:line`. */
  items: string[];
  /** Exact: matching lines and files in the summary (may exceed the lines shown). */
  totalMatches?: number;
  filesMatched?: number;
}

export interface PackAnswer extends Answer {
  siftRequests: number;
  siftBytes: number;
  /** Requests for anything but the pack during the query (should be 0). */
  otherRequests: number;
}

export interface ModeRun<A extends Answer> {
  mode: 'keyword' | 'exact' | 'semantic';
  answers: A[];
  errors: string[];
}

export interface PackSide {
  /** Navigation → the codebase row in the list. */
  openMs: number;
  rowLabel: string;
  /** Navigation → the first results of FIRST_QUERY in the DOM. */
  firstResultsMs: number;
  first: Answer;
  /** Server counters from navigation to the first results. */
  untilFirst: {
    sift: { requests: number; bytes: number };
    manifest: { requests: number; bytes: number };
    all: { requests: number; bytes: number };
    /** The app's own pack-read counters (row's pack-info), null when it shows none. */
    app: { requests: number; bytes: number } | null;
    /** The largest other paths fetched until then (app files, the service worker's precache). */
    top: Array<{ path: string; requests: number; bytes: number }>;
  };
  modes: Array<ModeRun<PackAnswer>>;
  /** The app's pack-read counters after every query (the whole session). */
  appAtEnd: { requests: number; bytes: number } | null;
}

export interface LocalSide {
  copy: { files: number; bytes: number; ms: number };
  /** Click on "Open folder…" → the row done (files counted, no progress). */
  indexMs: number;
  files: number;
  chunks: number;
  modes: Array<ModeRun<Answer>>;
}

export interface Parity {
  keyword: Array<{ query: string; sameOrder: boolean; overlap: number; pack: number; local: number }>;
  exact: Array<{ pattern: string; sameLines: boolean; sameTotals: boolean; pack: number; local: number }>;
}

export interface PackBench {
  markdown: string;
  machine: MachineInfo;
  delayMs: number;
  tree: { name: string; dirs: string[]; files: number; bytes: number };
  publish: { command: string; ms: number; dev: boolean };
  manifest: PackManifest;
  chromium: string;
  /** The pack from a host that answers several ranges per request (multipart/byteranges, as nginx does). */
  pack: PackSide | null;
  /** The same pack from a host that answers one range per request (several: the whole file, as Express's send does); absent when not run. */
  packSingle?: PackSide | null;
  /** The same pack from a host that answers one range per request over HTTP/2 (HTTPS, as CDNs serve); absent when not run. */
  packH2?: PackSide | null;
  local: LocalSide | null;
  parity: Parity | null;
  /** Parity of the single-range host's answers with the local index. */
  paritySingle?: Parity | null;
  parityH2?: Parity | null;
  errors: { pack?: string; packSingle?: string; packH2?: string; local?: string };
  notes: string[];
  /** Load average (1, 5, 15 min) when the run ended. */
  loadavgEnd: number[];
  /** Files of the app's sources (src/, workers/, vite-plugins/, …) that differ from the commit: the build is of the working tree. */
  uncommitted: string[];
}

/** Uncommitted changes to what the app build reads (git status of its source folders). */
function uncommittedAppFiles(): string[] {
  const r = run('git', ['-C', REPO_DIR, 'status', '--porcelain', '--', 'src', 'workers', 'vite-plugins', 'public', 'index.html', 'vite.config.ts', 'package.json']);
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean).map((l) => l.slice(3)) : [];
}

// ---------------------------------------------------------------- publishing

function copyTree(kernelDir: string, dirs: readonly string[], tree: string): { files: number; bytes: number } {
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  for (const d of dirs) cpSync(join(kernelDir, d), join(tree, d), { recursive: true });
  const files = listFiles(tree);
  return { files: files.length, bytes: files.reduce((a, f) => a + statSync(join(tree, f)).size, 0) };
}

function publish(tree: string, out: string, name: string, extra: string[]): { command: string; ms: number } {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // Its own index file (never ~/.sift), removed first: every run publishes from a cold index.
  const db = join(WORK, `publish-${name}.db`);
  for (const f of [db, `${db}-wal`, `${db}-shm`, `${db}.vectors`]) rmSync(f, { force: true });
  const args = ['publish', tree, '--out', out, '--db', db, ...extra];
  const r = run(SIFT_BIN, args, { env: { ...process.env, SIFT_OFFLINE: '1' }, cwd: REPO_DIR });
  if (r.status !== 0) throw new Error(`bin/sift ${args.join(' ')} exited ${r.status}: ${(r.stderr || r.stdout).slice(0, 1500)}`);
  return { command: `bin/sift ${args.map((a) => a.replace(REPO_DIR + '/', '')).join(' ')}`, ms: r.ms };
}

/** Development stand-in for `sift publish`: a `sift index --no-embed` db, vacuumed, content-addressed, with a manifest. */
function devPublish(tree: string, out: string, name: string): { command: string; ms: number } {
  const t0 = performance.now();
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const db = join(WORK, `dev-${name}.db`);
  const summary = siftIndex(tree, db).value;
  const tmp = join(out, 'pack.tmp');
  runOk(SQLITE3, [db, `VACUUM INTO '${tmp.replace(/'/g, "''")}'`]);
  const bytes = readFileSync(tmp);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const pack = packFileName(name, sha256);
  renameSync(tmp, join(out, pack));
  const q = (sql: string) => runOk(SQLITE3, ['-readonly', join(out, pack), sql]).stdout.trim();
  const pageSize = Number(q('PRAGMA page_size;'));
  // Per page, the first 8 bytes of its SHA-256 (the manifest's pageHashes, store/pack.ts).
  const hashes = Buffer.alloc((bytes.length / pageSize) * 8);
  for (let i = 0; i * pageSize < bytes.length; i++) createHash('sha256').update(bytes.subarray(i * pageSize, (i + 1) * pageSize)).digest().copy(hashes, i * 8, 0, 8);
  // Untyped on purpose: the manifest's type is still growing; parsePackManifest checks it below.
  const manifest = {
    format: 1, name, commit: null, created: new Date().toISOString(), pack, bytes: bytes.length, sha256,
    pageSize, pageHashes: hashes.toString('base64'), schemaVersion: SCHEMA_VERSION,
    files: summary.files.total, chunks: summary.chunks.total, sourceBytes: Number(q('SELECT coalesce(sum(size), 0) FROM files;')),
    contains: { keyword: true, text: true, definitions: true, embeddings: null },
    stats: { languages: {}, kinds: {}, chunkTypes: {}, symbols: 0, skipped: null }, sift: 'dev-pack (bench/pack.ts --dev-pack)',
  };
  writeFileSync(join(out, PACK_MANIFEST_NAME), JSON.stringify(manifest, null, 1) + '\n');
  return { command: `bench/pack.ts --dev-pack (sift index --no-embed + VACUUM INTO)`, ms: performance.now() - t0 };
}

// ---------------------------------------------------------------- the page

const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

/** Waits until the server has had no new request for QUIET_MS (at most 10 s). */
async function settle(server: RunningStaticServer): Promise<void> {
  const end = Date.now() + 10_000;
  let last = server.stats().requests;
  while (Date.now() < end) {
    await sleep(QUIET_MS);
    const now = server.stats().requests;
    if (now === last) return;
    last = now;
  }
}

async function newProfile(log: (l: string) => void, errors: string[], selfSigned = false): Promise<{ context: BrowserContext; page: Page; profile: string }> {
  const profile = mkdtempSync(join(tmpdir(), 'sift-bench-pack-'));
  // selfSigned: the HTTP/2 host's certificate (test/support/tls) is accepted.
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: selfSigned ? [...CHROMIUM_ARGS, '--ignore-certificate-errors'] : CHROMIUM_ARGS, headless: true });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => {
    log(`page error: ${e.message}`);
    if (errors.length < 10) errors.push(e.message.slice(0, 300));
  });
  // tsx (esbuild keepNames) wraps functions in __name(); page.evaluate callbacks run in the page.
  await page.addInitScript('globalThis.__name = (f) => f;');
  return { context, page, profile };
}

async function setMode(page: Page, label: 'Keyword' | 'Exact' | 'Semantic'): Promise<void> {
  await page.getByRole('radio', { name: label }).check({ force: true });
}

/** Empties the search box and waits until no answer is shown. */
async function clearQuery(page: Page, grep: boolean): Promise<void> {
  await page.evaluate(async ({ grep, timeoutMs }) => {
    const sel = grep ? '[data-testid=grep-summary], [data-testid=grep-error]' : '[data-testid=result-summary]';
    const input = document.querySelector<HTMLInputElement>('[data-testid=search-input]');
    if (!input) throw new Error('no search box ([data-testid=search-input])');
    input.value = '';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const end = performance.now() + timeoutMs;
    while (document.querySelector(sel)) {
      if (performance.now() > end) throw new Error('the previous answer stayed after clearing the query');
      await new Promise((ok) => setTimeout(ok, 20));
    }
  }, { grep, timeoutMs: 30_000 });
}

/** Types `query` and returns its answer as the DOM shows it, timed in the page. */
async function ask(page: Page, query: string, grep: boolean): Promise<Answer> {
  return page.evaluate(async ({ query, grep, top, timeoutMs }) => {
    const sel = grep ? '[data-testid=grep-summary], [data-testid=grep-error]' : '[data-testid=result-summary]';
    const input = document.querySelector<HTMLInputElement>('[data-testid=search-input]')!;
    const busy = () => [...document.querySelectorAll('[role=status]')].some((e) => e.textContent?.includes('Searching…'));
    const answered = () => document.querySelector(sel)?.getAttribute('data-query') === query && !busy();
    const t0 = performance.now();
    input.value = query;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise<void>((ok, fail) => {
      if (answered()) return ok();
      const timer = setTimeout(() => {
        mo.disconnect();
        fail(new Error(`no answer to ${JSON.stringify(query)} within ${timeoutMs} ms`));
      }, timeoutMs);
      const mo = new MutationObserver(() => {
        if (!answered()) return;
        mo.disconnect();
        clearTimeout(timer);
        ok();
      });
      mo.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    const ms = performance.now() - t0;
    const summaryEl = document.querySelector(sel)!;
    const summary = (summaryEl.textContent ?? '').replace(/\s+/g, ' ').trim();
    const worker = [...summary.matchAll(/(\d+) ms/g)].pop();
    const out = { query, ms, workerMs: worker ? Number(worker[1]) : null, summary, items: [] as string[], totalMatches: undefined as number | undefined, filesMatched: undefined as number | undefined };
    if (summaryEl.getAttribute('data-testid') === 'grep-error') throw new Error(`grep error for ${JSON.stringify(query)}: ${summary}`);
    if (grep) {
      for (const file of document.querySelectorAll('[data-testid=grep-file]')) {
        const path = file.querySelector('[data-testid=grep-file-path]')?.textContent?.trim() ?? '?';
        for (const line of file.querySelectorAll('[data-testid=grep-line]')) out.items.push(`${path}:${line.getAttribute('data-line')}`);
      }
      const num = (s: string | undefined) => (s === undefined ? undefined : Number(s.replace(/,/g, '')));
      const m = /(?:of )?([\d,]+) matching lines? in ([\d,]+) files?/.exec(summary);
      out.totalMatches = num(m?.[1]);
      out.filesMatched = num(m?.[2]);
    } else {
      out.items = [...document.querySelectorAll('[data-testid=result]')].slice(0, top)
        .map((card) => (card.querySelector('[data-testid=result-path]')?.parentElement?.textContent ?? '?').replace(/\s+/g, ' ').trim());
    }
    return out;
  }, { query, grep, top: TOP, timeoutMs: QUERY_TIMEOUT_MS });
}

/** The app's own count of pack reads (the row's pack-info line), when it shows one. */
async function appCounters(page: Page): Promise<{ requests: number; bytes: number } | null> {
  const info = page.getByTestId('pack-info').first();
  if (!(await info.count())) return null;
  return { requests: Number(await info.getAttribute('data-requests')), bytes: Number(await info.getAttribute('data-bytes-read')) };
}

function siftCounts(s: ServerStats): { requests: number; bytes: number } {
  const out = { requests: 0, bytes: 0 };
  for (const [p, v] of Object.entries(s.byPath)) {
    if (!p.endsWith(PACK_EXTENSION)) continue;
    out.requests += v.requests;
    out.bytes += v.bytes;
  }
  return out;
}

async function runModePack(page: Page, server: RunningStaticServer, mode: ModeRun<PackAnswer>['mode'], queries: readonly string[], log: (l: string) => void): Promise<ModeRun<PackAnswer>> {
  const grep = mode === 'exact';
  await setMode(page, mode === 'keyword' ? 'Keyword' : mode === 'exact' ? 'Exact' : 'Semantic');
  const out: ModeRun<PackAnswer> = { mode, answers: [], errors: [] };
  for (const q of queries) {
    try {
      await clearQuery(page, grep);
      await settle(server);
      server.reset();
      const a = await ask(page, q, grep);
      await settle(server);
      const st = server.stats();
      const sift = siftCounts(st);
      out.answers.push({ ...a, siftRequests: sift.requests, siftBytes: sift.bytes, otherRequests: st.requests - sift.requests });
      log(`pack ${mode} ${JSON.stringify(q)}: ${fmt(a.ms)} ms, ${sift.requests} requests, ${fmt(sift.bytes / 1024)} KiB, ${a.items.length} items`);
    } catch (e) {
      out.errors.push(`${q}: ${(e as Error).message.slice(0, 300)}`);
      log(`pack ${mode} ${JSON.stringify(q)} failed: ${(e as Error).message.slice(0, 300)}`);
    }
  }
  return out;
}

async function runModeLocal(page: Page, mode: ModeRun<Answer>['mode'], queries: readonly string[], log: (l: string) => void): Promise<ModeRun<Answer>> {
  const grep = mode === 'exact';
  await setMode(page, mode === 'keyword' ? 'Keyword' : 'Exact');
  const out: ModeRun<Answer> = { mode, answers: [], errors: [] };
  for (const q of queries) {
    try {
      await clearQuery(page, grep);
      const a = await ask(page, q, grep);
      out.answers.push(a);
      log(`local ${mode} ${JSON.stringify(q)}: ${fmt(a.ms)} ms, ${a.items.length} items`);
    } catch (e) {
      out.errors.push(`${q}: ${(e as Error).message.slice(0, 300)}`);
    }
  }
  return out;
}

async function packSide(server: RunningStaticServer, manifest: PackManifest, name: string, semantic: boolean, openTimeoutMs: number, log: (l: string) => void, pageErrors: string[]): Promise<PackSide> {
  const { context, page, profile } = await newProfile(log, pageErrors, server.url.startsWith('https:'));
  try {
    const url = `${server.url}/#index=packs/${encodeURIComponent(name)}/${PACK_MANIFEST_NAME}`;
    log(`pack: open ${url}`);
    await settle(server);
    server.reset();
    const t0 = performance.now();
    await page.goto(url);
    const row = page.getByTestId('codebase').first();
    // The row, or what the app says instead (an offer to download the whole pack, an error).
    const refusal = page.locator('[data-testid=pack-offer], .notice[role=alert]').first();
    await row.or(refusal).first().waitFor({ state: 'visible', timeout: openTimeoutMs });
    if (!(await row.isVisible())) throw new Error(`the app did not open the pack: ${((await refusal.textContent()) ?? '').replace(/\s+/g, ' ').trim().slice(0, 400)}`);
    const openMs = performance.now() - t0;
    const rowLabel = (await row.getAttribute('aria-label')) ?? '';
    log(`pack: row "${rowLabel}" after ${fmt(openMs)} ms`);
    await setMode(page, 'Keyword');
    const first = await ask(page, FIRST_QUERY, false);
    const firstResultsMs = performance.now() - t0;
    const st = server.stats();
    const manifestPath = Object.keys(st.byPath).find((p) => p.endsWith(`/${PACK_MANIFEST_NAME}`));
    const m = manifestPath ? st.byPath[manifestPath]! : { requests: 0, bytes: 0 };
    const untilFirst = { sift: siftCounts(st), manifest: { requests: m.requests, bytes: m.bytes }, all: { requests: st.requests, bytes: st.bytes }, app: await appCounters(page),
      top: Object.entries(st.byPath).filter(([path]) => !path.endsWith(PACK_EXTENSION)).map(([path, v]) => ({ path, ...v })).sort((a, b) => b.bytes - a.bytes).slice(0, 8),
    };
    log(`pack: first results (${first.items.length}) after ${fmt(firstResultsMs)} ms; .sift ${untilFirst.sift.requests} requests, ${fmt(untilFirst.sift.bytes / 1024)} KiB of ${fmt(manifest.bytes / 1024)} KiB`);
    if (first.items.length === 0) throw new Error(`no results for ${FIRST_QUERY} from the pack: ${first.summary}`);
    const modes = [
      await runModePack(page, server, 'keyword', KEYWORD_QUERIES, log),
      await runModePack(page, server, 'exact', EXACT_PATTERNS, log),
    ];
    if (semantic) modes.push(await runModePack(page, server, 'semantic', SEMANTIC_QUERIES, log));
    return { openMs, rowLabel, firstResultsMs, first, untilFirst, modes, appAtEnd: await appCounters(page) };
  } catch (e) {
    await page.screenshot({ path: join(WORK, 'pack-failure.png'), fullPage: true }).catch(() => undefined);
    throw e;
  } finally {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Writes the tree into OPFS `e2e-fixtures/<name>/` (where the test picker finds it), in batches. */
async function copyIntoOpfs(page: Page, tree: string, name: string): Promise<{ files: number; bytes: number; ms: number }> {
  const t0 = performance.now();
  const paths = listFiles(tree);
  let bytes = 0;
  let batch: Record<string, string> = {};
  let batchBytes = 0;
  const flush = async () => {
    await page.evaluate(async ({ root, name, files }) => {
      const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const base = await (await (await navigator.storage.getDirectory()).getDirectoryHandle(root, { create: true })).getDirectoryHandle(name, { create: true });
      for (const [path, data] of Object.entries(files)) {
        const parts = path.split('/');
        let d = base;
        for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create: true });
        const w = await (await d.getFileHandle(parts[parts.length - 1]!, { create: true })).createWritable();
        await w.write(b64(data));
        await w.close();
      }
    }, { root: FIXTURE_ROOT, name, files: batch });
    batch = {};
    batchBytes = 0;
  };
  for (const p of paths) {
    const data = readFileSync(join(tree, p));
    batch[p] = data.toString('base64');
    batchBytes += data.length;
    bytes += data.length;
    if (batchBytes >= COPY_BATCH_BYTES) await flush();
  }
  if (Object.keys(batch).length) await flush();
  return { files: paths.length, bytes, ms: performance.now() - t0 };
}

async function localSide(server: RunningStaticServer, tree: string, name: string, expectFiles: number, log: (l: string) => void, pageErrors: string[], notes: string[]): Promise<LocalSide> {
  const { context, page, profile } = await newProfile(log, pageErrors);
  try {
    await installPicker(page, { default: { name, files: {} } });
    await page.goto(`${server.url}/`);
    const copy = await copyIntoOpfs(page, tree, name);
    log(`local: copied ${copy.files} files (${fmt(mb(copy.bytes))} MiB) into OPFS in ${fmt(copy.ms / 1000, 1)} s`);
    const t0 = performance.now();
    await page.getByRole('button', { name: 'Open folder…' }).click();
    const row = page.getByRole('listitem', { name: `Codebase ${name}` });
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    const stats = row.getByTestId('codebase-stats');
    let files = 0;
    let stableSince = 0;
    for (;;) {
      if (performance.now() - t0 > INDEX_TIMEOUT_MS) throw new Error(`local index not done after ${INDEX_TIMEOUT_MS / 60_000} min (${files} files)`);
      const busy = (await row.getByTestId('progress').count()) > 0;
      const now = Number(await stats.getAttribute('data-files'));
      if (!busy && now === expectFiles) break;
      // Done but with another count than the pack's (the CLI and the app disagree): accept after 15 quiet seconds.
      if (!busy && now > 0 && now === files) {
        stableSince ||= performance.now();
        if (performance.now() - stableSince > 15_000) {
          notes.push(`the local index holds ${now} files, the pack ${expectFiles}`);
          break;
        }
      } else stableSince = 0;
      files = now;
      await sleep(250);
    }
    const indexMs = performance.now() - t0;
    const done = { files: Number(await stats.getAttribute('data-files')), chunks: Number(await stats.getAttribute('data-chunks')) };
    log(`local: indexed ${done.files} files, ${done.chunks} chunks in ${fmt(indexMs / 1000, 1)} s`);
    await setMode(page, 'Keyword');
    await clearQuery(page, false);
    await ask(page, FIRST_QUERY, false); // the same warm-up query as the pack side
    const modes = [await runModeLocal(page, 'keyword', KEYWORD_QUERIES, log), await runModeLocal(page, 'exact', EXACT_PATTERNS, log)];
    return { copy, indexMs, ...done, modes };
  } catch (e) {
    await page.screenshot({ path: join(WORK, 'local-failure.png'), fullPage: true }).catch(() => undefined);
    throw e;
  } finally {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
}

export function compare(pack: PackSide, local: LocalSide): Parity {
  const byQuery = <A extends Answer>(runs: Array<ModeRun<A>>, mode: string) => new Map((runs.find((r) => r.mode === mode)?.answers ?? []).map((a) => [a.query, a] as const));
  const pk = byQuery(pack.modes, 'keyword');
  const lk = byQuery(local.modes, 'keyword');
  const pe = byQuery(pack.modes, 'exact');
  const le = byQuery(local.modes, 'exact');
  const keyword: Parity['keyword'] = [];
  for (const q of KEYWORD_QUERIES) {
    const a = pk.get(q);
    const b = lk.get(q);
    if (!a || !b) continue;
    const set = new Set(b.items);
    keyword.push({ query: q, sameOrder: a.items.join('\n') === b.items.join('\n'), overlap: a.items.filter((x) => set.has(x)).length, pack: a.items.length, local: b.items.length });
  }
  const exact: Parity['exact'] = [];
  for (const q of EXACT_PATTERNS) {
    const a = pe.get(q);
    const b = le.get(q);
    if (!a || !b) continue;
    exact.push({
      pattern: q, sameLines: [...a.items].sort().join('\n') === [...b.items].sort().join('\n'),
      sameTotals: a.totalMatches === b.totalMatches && a.filesMatched === b.filesMatched, pack: a.totalMatches ?? a.items.length, local: b.totalMatches ?? b.items.length,
    });
  }
  return { keyword, exact };
}

// ---------------------------------------------------------------- report

const kib = (b: number) => fmt(b / 1024);
const esc = (s: string) => s.replace(/\|/g, '\\|');

function modeRows(r: Omit<PackBench, 'markdown'>): string[] {
  const L = ['| mode | side | queries | p50 ms | p95 ms | mean ms | worker p50 / p95 ms | .sift requests p50 / p95 / total | .sift KiB p50 / p95 / total |', '|---|---|---|---|---|---|---|---|---|'];
  const modes = new Set([...(r.pack?.modes ?? []), ...(r.local?.modes ?? [])].map((m) => m.mode));
  for (const mode of modes) {
    const sides = [
      [r.packSingle ? 'pack, multi-range host' : 'pack', r.pack?.modes.find((m) => m.mode === mode)],
      ['pack, single-range host', r.packSingle?.modes.find((m) => m.mode === mode)],
      ['pack, single-range host over HTTP/2', r.packH2?.modes.find((m) => m.mode === mode)],
      ['local OPFS', r.local?.modes.find((m) => m.mode === mode)],
    ] as const;
    for (const [side, run] of sides) {
      if (!run || !run.answers.length) continue;
      const s = latencyStats(run.answers.map((a) => a.ms));
      const w = run.answers.map((a) => a.workerMs).filter((x): x is number => x !== null);
      const p = side.startsWith('pack') ? (run.answers as PackAnswer[]) : null;
      const reqs = p?.map((a) => a.siftRequests) ?? [];
      const bytes = p?.map((a) => a.siftBytes) ?? [];
      const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
      L.push(`| ${mode} | ${side} | ${run.answers.length}${run.errors.length ? ` (+${run.errors.length} failed)` : ''} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${fmt(s.mean)} | ${fmt(percentile(w, 50))} / ${fmt(percentile(w, 95))} | ` +
        (p ? `${percentile(reqs, 50)} / ${percentile(reqs, 95)} / ${sum(reqs)} | ${kib(percentile(bytes, 50))} / ${kib(percentile(bytes, 95))} / ${kib(sum(bytes))} |` : '— | — |'));
    }
  }
  return L;
}

export function packMarkdown(r: Omit<PackBench, 'markdown'>): string {
  const m = r.manifest;
  const L: string[] = [
    `- Tree: ${r.tree.name} (kernel ${r.tree.dirs.join(', ')}), ${r.tree.files} files, ${fmt(mb(r.tree.bytes))} MiB`,
    `- Pack: ${m.pack}, ${fmt(mb(m.bytes))} MiB (${(m.bytes / r.tree.bytes).toFixed(2)}× source), page size ${m.pageSize}, ${m.files} files, ${m.chunks} chunks, ` +
      `embeddings: ${m.contains.embeddings ? `${m.contains.embeddings.vectors} × ${m.contains.embeddings.dim} (${m.contains.embeddings.model})` : 'none'}; ` +
      `published in ${fmt(r.publish.ms / 1000, 1)} s by \`${r.publish.command}\`${r.publish.dev ? ' — **a development stand-in, not `sift publish`**' : ''}`,
    ...(r.uncommitted.length ? [`- **The app measured is the working tree**: ${r.uncommitted.length} files under its sources differ from commit ${r.machine.gitCommit} (${r.uncommitted.slice(0, 6).join(', ')}${r.uncommitted.length > 6 ? ', …' : ''})`] : []),
    `- ${r.chromium}, headless, fresh profile per side; server: test/support/static-server.ts with ${r.delayMs} ms waited before every response ` +
      '(one round trip per HTTP request; parallel requests overlap; loopback bandwidth; `Cache-Control: no-store`)',
    `- Latency: in the page, input event → answer in the DOM; the query is set whole, as a paste (the app searches at once; typing one character at a time waits 150 ms for a pause), and rendering is included; "worker" is the summary's own time. ` +
      `Load average at the end: ${r.loadavgEnd?.map((x) => x.toFixed(2)).join(' ') ?? 'n/a'}`,
    '',
  ];
  const opened: Array<[string, PackSide | null | undefined]> = r.packSingle !== undefined
    ? [['a host that answers several ranges per request (multipart/byteranges, as nginx does)', r.pack], ['a host that answers one range per request (several ranges: the whole file, as Express\'s send does)', r.packSingle],
      ...(r.packH2 !== undefined ? [['the same one-range host over HTTPS with HTTP/2 (as CDNs serve: every request on one connection, at once)', r.packH2] as [string, PackSide | null | undefined]] : [])]
    : [['', r.pack]];
  for (const [host, p] of opened) {
    const title = host ? `### Opening the pack from ${host}` : '### Opening the pack';
    if (!p) {
      L.push(title, '', `not measured: ${r.errors.pack ?? 'skipped'}`, '');
      continue;
    }
    L.push(title, '', '| measure | value |', '|---|---|',
      `| navigation → codebase row ("${esc(p.rowLabel)}") | ${fmt(p.openMs)} ms |`,
      `| navigation → first results of \`${FIRST_QUERY}\` (keyword) | ${fmt(p.firstResultsMs)} ms (${p.first.items.length} shown; worker ${fmt(p.first.workerMs)} ms) |`,
      `| .sift until first results | ${p.untilFirst.sift.requests} requests, ${kib(p.untilFirst.sift.bytes)} KiB (${fmt((100 * p.untilFirst.sift.bytes) / m.bytes, 2)}% of the pack) |`,
      `| manifest | ${p.untilFirst.manifest.requests} requests, ${kib(p.untilFirst.manifest.bytes)} KiB |`,
      `| everything until first results (app files included) | ${p.untilFirst.all.requests} requests, ${kib(p.untilFirst.all.bytes)} KiB |`,
      `| the app's own count of pack reads (row), at first results / after all queries | ${p.untilFirst.app ? `${p.untilFirst.app.requests} requests, ${kib(p.untilFirst.app.bytes)} KiB` : 'not shown'} / ` +
        `${p.appAtEnd ? `${p.appAtEnd.requests} requests, ${kib(p.appAtEnd.bytes)} KiB` : 'not shown'} |`);
    if (p.untilFirst.top.length) L.push('', `Largest other files fetched until first results: ${p.untilFirst.top.map((t) => `\`${t.path}\` ${kib(t.bytes)} KiB${t.requests > 1 ? ` (${t.requests}×)` : ''}`).join(', ')}.`);
    L.push('');
  }
  if (r.local) {
    L.push('', `Local side: ${r.local.copy.files} files written into OPFS in ${fmt(r.local.copy.ms / 1000, 1)} s (not timed), then "Open folder…" → indexed in ` +
      `${fmt(r.local.indexMs / 1000, 1)} s (${r.local.files} files, ${r.local.chunks} chunks).`);
  } else L.push('', `Local side not measured: ${r.errors.local ?? 'skipped'}`);
  L.push('', '### Per query', '', 'Requests and bytes of the pack per query come from the server\'s counters, reset before each query (after the server was quiet ' +
    `${QUIET_MS} ms) and read after it answered and the server was quiet again; queries run once each, in order, after the first-results query.`, '', ...modeRows(r));
  if (r.parity) {
    const k = r.parity.keyword;
    const e = r.parity.exact;
    L.push('', `### Pack vs local${r.packSingle ? ' (multi-range host)' : ''}`, '',
      `- Keyword top ${TOP} (path:lines, in order) identical: ${k.filter((x) => x.sameOrder).length} of ${k.length} queries; mean overlap ${fmt(k.reduce((a, x) => a + x.overlap, 0) / Math.max(1, k.length))} of ${TOP}`,
      `- Exact: the same lines shown for ${e.filter((x) => x.sameLines).length} of ${e.length} patterns; the same totals (lines, files) for ${e.filter((x) => x.sameTotals).length} of ${e.length}`);
    const diff = [...k.filter((x) => !x.sameOrder).map((x) => `keyword \`${esc(x.query)}\`: overlap ${x.overlap}/${Math.max(x.pack, x.local)} (pack ${x.pack}, local ${x.local})`),
      ...e.filter((x) => !x.sameLines || !x.sameTotals).map((x) => `exact \`${esc(x.pattern)}\`: pack ${x.pack} lines, local ${x.local}`)];
    if (diff.length) L.push('', 'Differences:', '', ...diff.map((d) => `- ${d}`));
  }
  const parityLine = (host: string, p: Parity) =>
    `- ${host}: keyword top ${TOP} identical for ${p.keyword.filter((x) => x.sameOrder).length} of ${p.keyword.length} queries; the same exact lines for ${p.exact.filter((x) => x.sameLines).length} of ${p.exact.length} patterns`;
  if (r.paritySingle) L.push('', parityLine('Single-range host', r.paritySingle));
  if (r.parityH2) L.push(parityLine('Single-range host over HTTP/2', r.parityH2));
  const rows: string[] = [];
  for (const mode of ['keyword', 'exact', 'semantic'] as const) {
    const pa = new Map((r.pack?.modes.find((x) => x.mode === mode)?.answers ?? []).map((a) => [a.query, a] as const));
    const la = new Map((r.local?.modes.find((x) => x.mode === mode)?.answers ?? []).map((a) => [a.query, a] as const));
    for (const q of new Set([...pa.keys(), ...la.keys()])) {
      const a = pa.get(q);
      const b = la.get(q);
      const count = (x: Answer | undefined) => (x ? String(x.totalMatches ?? x.items.length) : '');
      rows.push(`| ${mode} | \`${esc(q)}\` | ${a ? fmt(a.ms) : ''} | ${b ? fmt(b.ms) : ''} | ${a?.siftRequests ?? ''} | ${a ? kib(a.siftBytes) : ''} | ${count(a)} | ${count(b)} |`);
    }
  }
  if (rows.length) L.push('', '| mode | query | pack ms | local ms | pack .sift requests | pack .sift KiB | pack results/lines | local results/lines |', '|---|---|---|---|---|---|---|---|', ...rows);
  const failed = [...(r.pack?.modes ?? []), ...(r.packSingle?.modes ?? []), ...(r.packH2?.modes ?? []), ...(r.local?.modes ?? [])].flatMap((x) => x.errors.map((e) => `${x.mode}: ${e}`));
  const notes = [...r.notes, ...failed, ...(r.errors.pack ? [`pack side failed: ${r.errors.pack}`] : []), ...(r.errors.packSingle ? [`single-range host side failed: ${r.errors.packSingle}`] : []), ...(r.errors.packH2 ? [`HTTP/2 host side failed: ${r.errors.packH2}`] : []), ...(r.errors.local ? [`local side failed: ${r.errors.local}`] : [])];
  if (notes.length) L.push('', '### Notes', '', ...notes.map((n) => `- ${n}`));
  return L.join('\n');
}

// ---------------------------------------------------------------- entry

export async function benchPack(o: BenchPackOptions = {}): Promise<PackBench> {
  const log = o.log ?? ((l: string) => console.error(`[pack] ${l}`));
  const quick = !!o.quick;
  const delayMs = o.delayMs ?? DELAY_MS;
  const dirs = o.subset?.length ? o.subset : quick ? QUICK_SUBSET : [...KERNEL_DIRS];
  const bad = dirs.filter((d) => !(KERNEL_DIRS as readonly string[]).includes(d));
  if (bad.length) throw new Error(`--subset: ${bad.join(', ')} not among ${KERNEL_DIRS.join(', ')}`);
  const name = o.subset?.length ? `kernel-${dirs.join('-')}` : quick ? 'kernel-quick' : 'kernel-subset';
  const notes: string[] = [];
  mkdirSync(WORK, { recursive: true });

  const kernel = prepareScale();
  const treeDir = join(WORK, 'trees', name);
  const tree = { name, dirs, ...copyTree(kernel.dir, dirs, treeDir) };
  log(`tree ${name}: ${tree.files} files, ${fmt(mb(tree.bytes))} MiB`);
  const packsDir = join(WORK, 'packs');
  const out = join(packsDir, name);
  const pub = o.devPack ? devPublish(treeDir, out, name) : publish(treeDir, out, name, o.publishArgs ?? []);
  const manifest = parsePackManifest(readFileSync(join(out, PACK_MANIFEST_NAME), 'utf8'), SCHEMA_VERSION);
  const packBytes = statSync(join(out, manifest.pack)).size;
  if (packBytes !== manifest.bytes) throw new Error(`${manifest.pack} is ${packBytes} bytes, the manifest says ${manifest.bytes}`);
  log(`published ${manifest.pack} (${fmt(mb(manifest.bytes))} MiB, ${manifest.chunks} chunks) in ${fmt(pub.ms / 1000, 1)} s`);

  let dist = o.dist;
  if (!dist) {
    dist = join(WORK, 'dist');
    log('build app');
    const saved = process.env.SIFT_BUNDLE_MODEL;
    delete process.env.SIFT_BUNDLE_MODEL;
    try {
      await build({ configFile: join(REPO_DIR, 'vite.config.ts'), root: REPO_DIR, logLevel: 'error', build: { outDir: dist, emptyOutDir: true, sourcemap: false } });
    } finally {
      if (saved !== undefined) process.env.SIFT_BUNDLE_MODEL = saved;
    }
  }
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist}/index.html missing: not a built app`);

  const roots = [{ prefix: '/', dir: dist }, { prefix: '/packs/', dir: packsDir }];
  const server = await startStaticServer({ roots, delayMs, multiRange: true });
  const pageErrors: string[] = [];
  const errors: PackBench['errors'] = {};
  let pack: PackSide | null = null;
  let packSingle: PackSide | null = null;
  let packH2: PackSide | null = null;
  let local: LocalSide | null = null;
  let chromiumVersion = 'Chromium';
  try {
    chromiumVersion = run(CHROMIUM, ['--version']).stdout.trim() || chromiumVersion;
    /** The pack side from `host`, or null with the first line of its error in errors[key]. */
    const side = async (host: RunningStaticServer, key: 'pack' | 'packSingle' | 'packH2', label: string): Promise<PackSide | null> => {
      try {
        return await packSide(host, manifest, name, !!manifest.contains.embeddings, o.openTimeoutMs ?? OPEN_TIMEOUT_MS, log, pageErrors);
      } catch (e) {
        errors[key] = (e as Error).message.split('\n')[0]!.slice(0, 500);
        log(`pack side${label} failed: ${errors[key]}`);
        return null;
      }
    };
    pack = await side(server, 'pack', '');
    // The same pack from a host that answers one range per request, then from the same host
    // over HTTPS with HTTP/2 (a self-signed certificate for 127.0.0.1).
    const tls = join(REPO_DIR, 'test', 'support', 'tls');
    const onHost = async (options: Partial<StaticServerOptions>, key: 'packSingle' | 'packH2', label: string) => {
      const host = await startStaticServer({ roots, delayMs, ...options });
      try {
        return await side(host, key, label);
      } finally {
        await host.close();
      }
    };
    packSingle = await onHost({}, 'packSingle', ' (single-range host)');
    packH2 = await onHost({ tls: { key: readFileSync(join(tls, 'key.pem')), cert: readFileSync(join(tls, 'cert.pem')) } }, 'packH2', ' (HTTP/2 host)');
    if (!manifest.contains.embeddings) notes.push('semantic not measured: the pack has no embeddings (published with SIFT_OFFLINE=1 and no model on disk)');
    if (!o.packOnly) {
      try {
        local = await localSide(server, treeDir, name, manifest.files, log, pageErrors, notes);
      } catch (e) {
        errors.local = (e as Error).message.split('\n')[0]!.slice(0, 500);
        log(`local side failed: ${errors.local}`);
      }
    }
  } finally {
    await server.close();
  }
  if (pageErrors.length) notes.push(`page errors: ${pageErrors.join(' | ')}`);
  const parity = pack && local ? compare(pack, local) : null;
  const paritySingle = packSingle && local ? compare(packSingle, local) : null;
  const parityH2 = packH2 && local ? compare(packH2, local) : null;
  const result: Omit<PackBench, 'markdown'> = {
    machine: machineInfo(), delayMs, tree, publish: { ...pub, dev: !!o.devPack }, manifest, chromium: chromiumVersion, pack, packSingle, packH2, local, parity, paritySingle, parityH2, errors, notes,
    uncommitted: o.dist ? [] : uncommittedAppFiles(), loadavgEnd: loadavg(),
  };
  if (o.dist) notes.push(`app served from ${o.dist} (--dist), not built by this run`);
  return { markdown: packMarkdown(result), ...result };
}

/** The `pack` hook of `npm run bench`: fails when the pack side could not be measured. */
export async function benchPackHook(quick: boolean): Promise<PackBench> {
  const r = await benchPack({ quick });
  if (!r.pack) throw new Error(`pack side not measured: ${r.errors.pack}`);
  return r;
}

if (isMain(import.meta.url)) {
  const { flags } = parseArgs(process.argv.slice(2), ['quick', 'dev-pack', 'pack-only']);
  const str = (k: string) => (typeof flags.get(k) === 'string' ? String(flags.get(k)) : undefined);
  const r = await benchPack({
    quick: flags.has('quick'), subset: str('subset')?.split(',').filter(Boolean), dist: str('dist'), delayMs: str('delay') ? Number(str('delay')) : undefined,
    devPack: flags.has('dev-pack'), publishArgs: str('publish-args')?.split(' ').filter(Boolean), packOnly: flags.has('pack-only'),
    openTimeoutMs: str('open-timeout') ? Number(str('open-timeout')) * 1000 : undefined,
  });
  const complete = !!r.pack && (!!r.local || flags.has('pack-only')) && !r.publish.dev;
  const dir = complete ? RESULTS_DIR : WORK;
  const base = join(dir, `${r.machine.date.slice(0, 10)}-pack${flags.has('quick') ? '-quick' : ''}`);
  mkdirSync(dir, { recursive: true });
  const md = `# Published index over HTTP (issue 27)\n\n${machineMarkdown(r.machine)}\n${r.markdown}\n`;
  writeFileSync(`${base}.md`, md);
  writeFileSync(`${base}.json`, JSON.stringify({ ...r, markdown: undefined }, null, 1) + '\n');
  process.stdout.write(md);
  console.error(`[pack] wrote ${base}.md${complete ? '' : ' (incomplete or a dev pack: kept out of bench/results/)'}`);
  if (!complete) process.exitCode = 1;
}
