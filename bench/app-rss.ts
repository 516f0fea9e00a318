/**
 * The app's memory through a first index, against another build in the same run (issue 34:
 * "peak RSS no higher than at e804d1e"). A person opens the built app (`vite build`, served by
 * `vite preview`) in headless Debian Chromium with a fresh profile, picks a folder (every file
 * of a corpus, written into OPFS before the round, untimed; only the picker is replaced, as in
 * bench/app-pick.ts) and waits for the index to finish. The browser's whole process tree (browser,
 * renderer with the app's workers, GPU, utility processes) is sampled from /proc every 200 ms
 * from the pick until the codebase row shows the finished index: its summed PSS (each shared
 * page counted once, split between its sharers) and summed RSS (shared pages counted in every
 * process: an upper bound). Reported: the peak of each, the baseline before the pick, and the
 * pick → indexed time. Linux only.
 *
 *   npx tsx bench/app-rss.ts --dist=A[@ROOT],B[@ROOT] [--corpus=medium] [--rounds=N] [--out=NAME]
 *
 * Sides alternate round by round (A B, B A, …). Writes bench/results/NAME.md when --out is given.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS } from '../playwright.config.ts';
import { CORPORA_DIR, REPO_DIR, RESULTS_DIR, listFiles } from './util.ts';
import { installPicker, median, serveApp, writeFolder } from './app-pick.ts';

const CHROMIUM = process.env.SIFT_CHROMIUM ?? '/usr/bin/chromium';
const SAMPLE_MS = 200;
/** Files per page.evaluate while writing the folder (each carries its bytes as base64). */
const WRITE_BATCH = 200;

/** The pids of the browser started with `profile` and every process under it. */
function processTree(profile: string): string[] {
  const parent = new Map<string, string>();
  let root: string | null = null;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]!);
      if (!root && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`--user-data-dir=${profile}`)) root = pid;
    } catch {
      // gone meanwhile
    }
  }
  if (!root) return [];
  return [...parent.keys()].filter((pid) => {
    for (let p: string | undefined = pid; p && p !== '0'; p = parent.get(p)) if (p === root) return true;
    return false;
  });
}

/** Summed PSS and RSS (bytes) of those processes, from smaps_rollup. */
function memoryOf(pids: string[]): { pss: number; rss: number } {
  let pss = 0;
  let rss = 0;
  for (const pid of pids) {
    try {
      const s = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      pss += Number(/^Pss:\s+(\d+) kB/m.exec(s)?.[1] ?? 0) * 1024;
      rss += Number(/^Rss:\s+(\d+) kB/m.exec(s)?.[1] ?? 0) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return { pss, rss };
}

interface Round { basePss: number; peakPss: number; peakRss: number; indexedMs: number | null; files: number }

async function round(url: string, files: Array<{ path: string; b64: string }>): Promise<Round> {
  const profile = mkdtempSync(join(tmpdir(), 'sift-rss-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: [...CHROMIUM_ARGS], headless: true, viewport: { width: 1400, height: 900 } });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await installPicker(page);
    await page.goto(url);
    for (let i = 0; i < files.length; i += WRITE_BATCH) await writeFolder(page, files.slice(i, i + WRITE_BATCH));
    await page.getByRole('button', { name: 'Open folder…' }).waitFor();
    await page.waitForTimeout(1500);
    const base = memoryOf(processTree(profile));
    if (process.env.SIFT_RSS_DETAIL) {
      for (const pid of processTree(profile)) {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
        const type = cmd.find((a) => a.startsWith('--type='))?.slice(7) ?? 'browser';
        const sub = cmd.find((a) => a.startsWith('--utility-sub-type='))?.slice(19) ?? '';
        console.error(`  ${pid} ${type} ${sub}: PSS ${mib(memoryOf([pid]).pss)} MiB`);
      }
    }
    let peak = { ...base };
    const perPid = new Map<string, number>();
    const timer = setInterval(() => {
      const pids = processTree(profile);
      const m = memoryOf(pids);
      peak = { pss: Math.max(peak.pss, m.pss), rss: Math.max(peak.rss, m.rss) };
      if (process.env.SIFT_RSS_DETAIL) for (const pid of pids) perPid.set(pid, Math.max(perPid.get(pid) ?? 0, memoryOf([pid]).pss));
    }, SAMPLE_MS);
    try {
      await page.getByRole('button', { name: 'Open folder…' }).click();
      await page.waitForFunction(() => (window as unknown as { __indexedAt?: number }).__indexedAt !== undefined, null, { timeout: 600_000, polling: 250 });
    } finally {
      clearInterval(timer);
    }
    if (process.env.SIFT_RSS_DETAIL) console.error(`  each process's peak PSS: ${[...perPid.values()].map(mib).join(', ')} MiB`);
    const t = await page.evaluate(() => {
      const w = window as unknown as { __pickedAt: number; __indexedAt: number };
      return { ms: w.__indexedAt - w.__pickedAt, files: Number(document.querySelector('[data-testid="codebase-stats"]')?.getAttribute('data-files') ?? 0) };
    });
    return { basePss: base.pss, peakPss: peak.pss, peakRss: peak.rss, indexedMs: t.ms, files: t.files };
  } finally {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
}

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const sides = (arg('dist') ?? '').split(',').filter(Boolean).map((s) => {
  const [dist, root] = s.split('@');
  return { dist: dist!, root: root ?? REPO_DIR };
});
if (!sides.length) throw new Error('usage: npx tsx bench/app-rss.ts --dist=A[@ROOT],B[@ROOT] [--corpus=medium] [--rounds=N] [--out=NAME]');
const corpus = arg('corpus') ?? 'medium';
const rounds = Number(arg('rounds') ?? 2);
const dir = join(CORPORA_DIR, corpus);
const files = listFiles(dir).map((path) => ({ path, b64: readFileSync(join(dir, path)).toString('base64') }));
const servers = await Promise.all(sides.map((s) => serveApp(s.dist, s.root)));
const got: Round[][] = sides.map(() => []);
const mib = (b: number) => (b / 2 ** 20).toFixed(0);
try {
  for (let r = 0; r < rounds; r++) {
    const order = sides.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) {
      const x = await round(servers[i]!.url, files);
      got[i]!.push(x);
      console.error(`${sides[i]!.dist} round ${r}: peak PSS ${mib(x.peakPss)} MiB (before the pick ${mib(x.basePss)}), peak RSS sum ${mib(x.peakRss)} MiB, pick→indexed ${x.indexedMs?.toFixed(0)} ms, ${x.files} files`);
    }
  }
} finally {
  for (const s of servers) await s.close();
}
const lines = [`# The app's memory through a first index (${corpus}, ${files.length} files)`, '', `\`npx tsx bench/app-rss.ts ${process.argv.slice(2).join(' ')}\`, ${new Date().toISOString()}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`, '',
  '| build | rounds | peak PSS, median (each) | before the pick | peak RSS sum (each) | pick → indexed (each) |', '|---|---|---|---|---|---|'];
for (const [i, s] of sides.entries()) {
  const xs = got[i]!;
  lines.push(`| ${s.dist} | ${xs.length} | ${mib(median(xs.map((x) => x.peakPss)))} MiB (${xs.map((x) => mib(x.peakPss)).join(', ')}) | ${mib(median(xs.map((x) => x.basePss)))} MiB | ${mib(median(xs.map((x) => x.peakRss)))} MiB (${xs.map((x) => mib(x.peakRss)).join(', ')}) | ${xs.map((x) => ((x.indexedMs ?? NaN) / 1000).toFixed(1)).join(', ')} s |`);
}
console.log(lines.join('\n'));
const out = arg('out');
if (out) writeFileSync(join(RESULTS_DIR, `${out}.md`), lines.join('\n') + '\n');
