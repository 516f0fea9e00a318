/**
 * What a published pack costs per keyword query over a simulated link, in Node, for choosing
 * `sift publish --page-size` (docs/cli.md "Page size"). The reader is the app's own
 * (PackPages, PackVFS, the prefetch hooks, Searcher); the range source is the pack file with a
 * fixed wait per request: a synchronous read (SQLite's miss) blocks for it, prefetch requests
 * overlap, and a host that answers several ranges per request (`--multi`) costs one wait per
 * request however many ranges it carries. Bandwidth is the disk's. The browser's end-to-end
 * numbers are bench/pack.ts's.
 *
 *   npx tsx bench/pack-pages.ts <published folder>… [--multi | --h2] [--rtt 50]
 *
 * `--h2`: one range per request, all of a prefetch's requests at once (what the app does once
 * it sees HTTP/2).
 *
 * Prints one row per folder: open + first query, and keyword p50/p95 latency, bytes and requests
 * over KEYWORD_QUERIES (bench/pack.ts).
 */
import { openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { nodeRuntime } from '../src/core/store/open-node.ts';
import { openPackOn, packPages, prefetchLayout } from '../src/core/store/open-pack.ts';
import { PACK_MANIFEST_NAME, parsePackManifest } from '../src/core/store/pack.ts';
import { SCHEMA_VERSION } from '../src/core/store/schema.ts';
import { Searcher } from '../src/core/search/search.ts';
import { MULTIPLEXED_CONCURRENCY, type RangeSource } from '../src/core/store/http-vfs.ts';
import { grep } from '../src/core/search/grep.ts';
import { EXACT_PATTERNS, FIRST_QUERY, KEYWORD_QUERIES } from './pack.ts';
import { fmt, isMain, parseArgs, percentile } from './util.ts';

export interface PagesRow {
  pageSize: number;
  multi: boolean;
  /** One range per request, all of a prefetch's requests at once (HTTP/2: MULTIPLEXED_CONCURRENCY). */
  h2: boolean;
  openFirstMs: number;
  openFirstBytes: number;
  p50Ms: number;
  p95Ms: number;
  p50Bytes: number;
  p95Bytes: number;
  p50Requests: number;
  /** Exact search as the app runs it on a pack (200 lines, stopping once they are found). */
  exactP50Ms: number;
  exactP95Ms: number;
  exactP50Bytes: number;
}

/** A pack file read with `rttMs` waited per request (see the header). */
function slowFile(path: string, rttMs: number, multi: boolean): RangeSource {
  const fd = openSync(path, 'r');
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const rd = (s: number, e: number) => {
    const b = new Uint8Array(e - s);
    readSync(fd, b, 0, e - s, s);
    return b;
  };
  const sleep = () => new Promise((r) => setTimeout(r, rttMs));
  return {
    read(s, e) {
      Atomics.wait(wait, 0, 0, rttMs);
      return rd(s, e);
    },
    readAsync: async (s, e) => (await sleep(), rd(s, e)),
    readRangesAsync: multi ? async (ranges) => (await sleep(), ranges.map(([s, e]) => rd(s, e))) : undefined,
  };
}

export async function measurePack(dir: string, o: { multi: boolean; rttMs: number; h2?: boolean }): Promise<PagesRow> {
  const m = parsePackManifest(readFileSync(join(dir, PACK_MANIFEST_NAME), 'utf8'), SCHEMA_VERSION);
  const pages = packPages(slowFile(join(dir, m.pack), o.rttMs, o.multi && !o.h2), m);
  if (o.h2) pages.concurrency = MULTIPLEXED_CONCURRENCY;
  const t0 = performance.now();
  await prefetchLayout(m, pages);
  const { store } = await openPackOn(await nodeRuntime(), m, pages);
  const s = new Searcher(store);
  await s.search(FIRST_QUERY, { limit: 10 });
  const openFirstMs = performance.now() - t0;
  const openFirstBytes = pages.stats.bytes;
  const ms: number[] = [];
  const bytes: number[] = [];
  const reqs: number[] = [];
  for (const q of KEYWORD_QUERIES) {
    const a = { ...pages.stats };
    const t = performance.now();
    await s.search(q, { limit: 10 });
    ms.push(performance.now() - t);
    bytes.push(pages.stats.bytes - a.bytes);
    reqs.push(pages.stats.requests - a.requests);
  }
  const ems: number[] = [];
  const ebytes: number[] = [];
  for (const pattern of EXACT_PATTERNS) {
    const a = pages.stats.bytes;
    const t = performance.now();
    await grep(store, { pattern, mode: 'exact', limit: 200, stopAtLimit: true });
    ems.push(performance.now() - t);
    ebytes.push(pages.stats.bytes - a);
  }
  await store.db.close();
  return {
    exactP50Ms: percentile(ems, 50), exactP95Ms: percentile(ems, 95), exactP50Bytes: percentile(ebytes, 50),
    pageSize: m.pageSize, multi: o.multi && !o.h2, h2: !!o.h2, openFirstMs, openFirstBytes,
    p50Ms: percentile(ms, 50), p95Ms: percentile(ms, 95), p50Bytes: percentile(bytes, 50), p95Bytes: percentile(bytes, 95), p50Requests: percentile(reqs, 50),
  };
}

export function pagesTable(rows: readonly PagesRow[], rttMs: number): string {
  const kib = (b: number) => fmt(b / 1024, 0);
  return [
    `Keyword queries (${KEYWORD_QUERIES.length}) and exact patterns (${EXACT_PATTERNS.length}, 200 lines each) of bench/pack.ts, in Node, ${rttMs} ms per request; bytes and requests are the pack's.`,
    '',
    '| page size | host | open + first query | keyword p50 / p95 | keyword KiB p50 / p95 | keyword requests p50 | exact p50 / p95 | exact KiB p50 |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.pageSize} | ${r.multi ? 'several ranges per request' : r.h2 ? 'one range per request, HTTP/2' : 'one range per request'} | ${fmt(r.openFirstMs, 0)} ms, ${kib(r.openFirstBytes)} KiB | ${fmt(r.p50Ms, 0)} / ${fmt(r.p95Ms, 0)} ms | ${kib(r.p50Bytes)} / ${kib(r.p95Bytes)} | ${r.p50Requests} | ${fmt(r.exactP50Ms, 0)} / ${fmt(r.exactP95Ms, 0)} ms | ${kib(r.exactP50Bytes)} |`),
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const { flags, positional } = parseArgs(process.argv.slice(2), ['multi', 'h2']);
  const rttMs = flags.get('rtt') ? Number(flags.get('rtt')) : 50;
  if (!positional.length) {
    console.error('usage: npx tsx bench/pack-pages.ts <published folder>… [--multi] [--rtt 50]');
    process.exit(2);
  }
  const rows: PagesRow[] = [];
  for (const dir of positional) rows.push(await measurePack(dir, { multi: flags.has('multi'), h2: flags.has('h2'), rttMs }));
  console.log(pagesTable(rows, rttMs));
}
