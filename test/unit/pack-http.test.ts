// Several ranges per request over real HTTP (Node's fetch against test/support/static-server.ts):
// probeMultiRange tells a host that answers multipart/byteranges (as nginx does) from one that
// sends the whole file (as Express's `send` does) without downloading it, HttpRangeSource reads
// exact ranges either way, and PackPages fetches a query's scattered pages in one round of
// requests when it can.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStaticServer, type RunningStaticServer } from '../support/static-server.ts';
import { HttpRangeSource, multiplexedHost, probeMultiRange, readPackBody } from '../../src/core/store/pack-http.ts';
import { MULTIPLEXED_CONCURRENCY, PackPages, pageHashes, PREFETCH_CONCURRENCY } from '../../src/core/store/http-vfs.ts';

const PAGE = 4096;
const PAGES = 2048; // 8 MiB: big enough that a whole-file answer is noticed when it is cut off
const PACK = new Uint8Array(PAGE * PAGES).map((_, i) => (i * 7 + (i >> 12)) & 0xff);
let dir: string;
let multi: RunningStaticServer;
let single: RunningStaticServer;
const url = (s: RunningStaticServer) => `${s.url}/packs/p.sift`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sift-pack-http-'));
  writeFileSync(join(dir, 'p.sift'), PACK);
  const roots = [{ prefix: '/packs/', dir }];
  multi = await startStaticServer({ roots, multiRange: true });
  single = await startStaticServer({ roots, delayMs: 20 });
});

afterAll(async () => {
  await multi?.close();
  await single?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('several ranges per request', () => {
  it('probeMultiRange says yes to a multipart host and no to a whole-file host, with no body either way', async () => {
    multi.reset();
    single.reset();
    expect(await probeMultiRange(url(multi), PACK.length)).toBe(true);
    expect(await probeMultiRange(url(single), PACK.length)).toBe(false);
    expect(multi.stats().bytes + single.stats().bytes).toBe(0); // HEAD
    expect(await probeMultiRange(`${multi.url}/packs/missing.sift`, PACK.length)).toBe(false);
  });

  it('reads exact ranges from a multipart answer in one request', async () => {
    const src = new HttpRangeSource(url(multi), PACK.length);
    src.useMultiRange(true);
    multi.reset();
    const want: Array<[number, number]> = [[0, PAGE], [PAGE * 10, PAGE * 12], [PAGE * 2000, PAGE * 2001]];
    const got = await src.readRangesAsync!(want);
    expect(multi.stats().requests).toBe(1);
    got.forEach((b, i) => expect(Buffer.from(b!).equals(Buffer.from(PACK.subarray(...want[i]!)))).toBe(true));
  });

  it('a host that sends the whole file for several ranges is cut off at its headers, and the ranges are read one by one', async () => {
    const src = new HttpRangeSource(url(single), PACK.length);
    src.useMultiRange(true); // as if the probe had been wrong
    single.reset();
    const want: Array<[number, number]> = [[0, PAGE], [PAGE * 100, PAGE * 101]];
    expect(await src.readRangesAsync!(want)).toEqual([null, null]);
    expect(src.readRangesAsync).toBeUndefined(); // off for the rest of the session
    await new Promise((r) => setTimeout(r, 100));
    expect(single.stats().bytes).toBeLessThan(PACK.length / 2);
    const pages = new PackPages(src, { size: PACK.length, pageSize: PAGE, hashes: pageHashes(PACK, PAGE) });
    await pages.prefetch([1, 500, 1500]);
    expect([1, 500, 1500].every((p) => pages.has(p))).toBe(true);
  });

  it('PackPages fetches scattered pages in at most one request per connection, each checked against its hash', async () => {
    const src = new HttpRangeSource(url(multi), PACK.length);
    src.useMultiRange(await probeMultiRange(url(multi), PACK.length));
    const pages = new PackPages(src, { size: PACK.length, pageSize: PAGE, hashes: pageHashes(PACK, PAGE) });
    const want = Array.from({ length: 60 }, (_, i) => i * 33 + (i % 3)); // 60 runs, none touching
    multi.reset();
    await pages.prefetch(want);
    expect(multi.stats().requests).toBe(PREFETCH_CONCURRENCY);
    expect(pages.stats.requests).toBe(PREFETCH_CONCURRENCY);
    expect(multi.stats().bytes).toBeLessThan(60 * PAGE * 1.05); // the pages and the part headers, no gaps
    for (const p of want) {
      const out = new Uint8Array(PAGE);
      pages.read(out, p * PAGE);
      expect(Buffer.from(out).equals(Buffer.from(PACK.subarray(p * PAGE, (p + 1) * PAGE)))).toBe(true);
    }
    expect(multi.stats().requests).toBe(PREFETCH_CONCURRENCY); // every read above came from memory
  });

  it('one range per request: six requests at once by default (HTTP/1.1), all of a prefetch at once once the host is known to multiplex', async () => {
    const want = Array.from({ length: 40 }, (_, i) => i * 37 + 5); // 40 runs, none touching
    for (const [concurrency, most] of [[PREFETCH_CONCURRENCY, PREFETCH_CONCURRENCY], [MULTIPLEXED_CONCURRENCY, want.length]] as const) {
      const pages = new PackPages(new HttpRangeSource(url(single), PACK.length), { size: PACK.length, pageSize: PAGE, hashes: pageHashes(PACK, PAGE) });
      pages.concurrency = concurrency;
      single.reset();
      await pages.prefetch(want); // the server waits 20 ms per answer: requests sent together overlap
      expect(single.stats().requests).toBe(want.length);
      expect(single.stats().maxInFlight).toBe(most);
      expect(want.every((p) => pages.has(p))).toBe(true);
    }
  });

  it('multiplexedHost reads HTTP/2 or HTTP/3 from Resource Timing, and says no when unsure', () => {
    const real = performance.getEntriesByName.bind(performance);
    const entries = (protocols: string[]) => () => protocols.map((nextHopProtocol) => ({ nextHopProtocol })) as unknown as PerformanceEntryList;
    try {
      for (const [protocols, want] of [[['h2'], true], [['h3'], true], [['http/1.1'], false], [[], false], [[''], false], [['http/1.1', 'h2'], true]] as const) {
        performance.getEntriesByName = entries([...protocols]);
        expect(multiplexedHost('https://h.example/p.sift'), protocols.join(',')).toBe(want);
      }
      performance.getEntriesByName = () => {
        throw new Error('no timeline here');
      };
      expect(multiplexedHost('https://h.example/p.sift')).toBe(false);
    } finally {
      performance.getEntriesByName = real;
    }
  });
});

describe('downloading a whole pack (a host without ranges)', () => {
  it('readPackBody reads the real server\'s body with its progress, and refuses one longer than the manifest says', async () => {
    const seen: Array<{ loaded: number; total: number }> = [];
    const whole = await readPackBody(await fetch(url(single)), PACK.length, (p) => seen.push(p));
    expect(Buffer.from(whole).equals(Buffer.from(PACK))).toBe(true);
    expect(seen.at(-1)).toEqual({ loaded: PACK.length, total: PACK.length });
    expect(seen.every((p, i) => i === 0 || p.loaded >= seen[i - 1]!.loaded)).toBe(true);
    // The manifest says less than the server sends: stopped at the manifest's size.
    await expect(readPackBody(await fetch(url(single)), PACK.length - PAGE)).rejects.toMatchObject({ problem: 'size', message: expect.stringMatching(/larger than its manifest says/) });
    // Says more: returned short, for the caller's size and hash check.
    expect((await readPackBody(await fetch(url(single)), PACK.length + PAGE)).length).toBe(PACK.length);
  });
});
