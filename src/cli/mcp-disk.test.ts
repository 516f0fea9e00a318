/**
 * The first index's scan for the files a search is about (mcp-disk.ts scanTerms and
 * DiskView.filesHolding), over a real folder and a real store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskTexts, DiskView, scanTerms, walkFiles, type ScanFor } from './mcp-disk.ts';
import { NodeFileSource } from '../core/source/node-source-node.ts';
import { openNodeStore } from '../core/store/open-node.ts';
import type { Store } from '../core/store/store.ts';

let dir: string;
let store: Store;
let view: DiskView;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sift-mcp-disk-'));
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src/a.py'), 'def parse_options(argv):\n    return argv\n');
  writeFileSync(join(repo, 'src/b.py'), 'def parse(x):\n    return x\n');
  writeFileSync(join(repo, 'src/c.ts'), 'export function parseOptions(o: Options) {\n  // options parsed: parse, parse, parse\n  return o;\n}\n');
  writeFileSync(join(repo, 'src/d.bin'), Buffer.concat([Buffer.from('parse options'), Buffer.alloc(16), Buffer.from('parse options')]));
  writeFileSync(join(repo, 'aaa.txt'), 'nothing to see\n'.repeat(20));
  mkdirSync(join(repo, 'lib/options'), { recursive: true });
  writeFileSync(join(repo, 'lib/options/read.py'), 'def read_all(zebra):\n    return zebra\n');
  writeFileSync(join(repo, '.gitignore'), 'gen/\n');
  mkdirSync(join(repo, 'gen'));
  writeFileSync(join(repo, 'gen/e.py'), 'parse options parse options parse options\n');
  // A project website's page that says every word of a code question, and the code it documents.
  mkdirSync(join(repo, 'website/mock'), { recursive: true });
  writeFileSync(join(repo, 'website/mock/behavior.html'), '<p>Simulating network delay for a mock server: the delay of each network call to the server.</p>\n');
  mkdirSync(join(repo, 'src/mock'), { recursive: true });
  writeFileSync(join(repo, 'src/mock/behavior.py'), 'def network_delay(server):\n    return server.delay\n');
  store = await openNodeStore(join(dir, 'index.db'));
  view = await DiskView.open(store, new NodeFileSource(repo, { sync: true }), new DiskTexts(1 << 20), {});
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('scanTerms', () => {
  it('splits identifiers and drops a common ending, as the keyword index stems', () => {
    expect(scanTerms('parseOptions for HTTPServer')).toEqual(['pars', 'option', 'http', 'serv']);
    // One identifier: its parts, and the name as written (held only by the files that write it).
    expect(scanTerms('retry_failed_upload')).toEqual(['retry', 'fail', 'upload', 'retry_failed_upload']);
    expect(scanTerms('thenReturn')).toEqual(['return', 'thenreturn']);
    expect(scanTerms('parse')).toEqual(['pars']);
    expect(scanTerms('a + b')).toEqual([]);
  });

  it('drops English function words, as the keyword query does, unless every word is one', () => {
    expect(scanTerms('how the page allocator picks a free page')).toEqual(['pag', 'allocator', 'pick', 'fre']);
    expect(scanTerms('where is it')).toEqual(['wher', 'is', 'it']);
  });
});

describe('DiskView.filesHolding', () => {
  it('the walked text files holding half the terms or more, those holding the most first; none binary or ignored', async () => {
    const files = await view.filesHolding(scanTerms('parse options'), 16, 1 << 30);
    // Both terms, the most occurrences first; then one of the two ('options' in read.py's path).
    expect(files.map((f) => f.file.path)).toEqual(['src/c.ts', 'src/a.py', 'lib/options/read.py', 'src/b.py']);
    expect(files[1].text).toBe('def parse_options(argv):\n    return argv\n');
    expect((await view.filesHolding(scanTerms('parse options'), 1, 1 << 30)).map((f) => f.file.path)).toEqual(['src/c.ts']);
  });

  it('a rare term counts more than a common one (BM25 idf over the files scanned)', async () => {
    // Four files hold two of the three terms; only read.py holds 'zebra', three hold 'parse'.
    const files = await view.filesHolding(scanTerms('parse return zebra'), 16, 1 << 30);
    expect(files[0].file.path).toBe('lib/options/read.py');
    expect(files.map((f) => f.file.path).sort()).toEqual(['lib/options/read.py', 'src/a.py', 'src/b.py', 'src/c.ts']);
  });

  it('a file whose path holds the terms is scanned first and counts them as held', async () => {
    // 'options' is in no text of the folder but in this path: with 'read' in its text it holds both.
    expect((await view.filesHolding(scanTerms('read options'), 16, 1 << 30)).map((f) => f.file.path)[0]).toBe('lib/options/read.py');
    // Within a budget of one file (the walk lists aaa.txt first), that file is the path's.
    const size = view.walkedFile('lib/options/read.py')!.size;
    expect((await view.filesHolding(scanTerms('zebra options'), 16, size)).map((f) => f.file.path)).toEqual(['lib/options/read.py']);
  });

  it('scans no more than maxBytes of files', async () => {
    expect(await view.filesHolding(scanTerms('parse options'), 16, 0)).toEqual([]);
  });

  it("weighs each file by its kind for the call's intent, the search's rule (KIND_FACTORS)", async () => {
    const q = 'network delay for a mock server';
    const forCode: ScanFor = { query: q, namesCode: false, intent: null };
    const paths = async (scanFor?: ScanFor) => (await view.filesHolding(scanTerms(q), 16, 1 << 30, scanFor)).map((f) => f.file.path);
    // Both hold every term (the code file 'mock' in its path); every kind weighs the same without a
    // call's intent, and the page says them more often.
    expect(await paths()).toEqual(['website/mock/behavior.html', 'src/mock/behavior.py']);
    // A code question: 'mock' is a soft test word, but this codebase names code with it, so the
    // question asks for code, and the page (docs) weighs less than the code.
    expect(await paths(forCode)).toEqual(['src/mock/behavior.py', 'website/mock/behavior.html']);
    // Asked for docs, the page first.
    expect(await paths({ ...forCode, intent: 'docs' })).toEqual(['website/mock/behavior.html', 'src/mock/behavior.py']);
  });

  it('none when no file holds half the terms', async () => {
    expect(await view.filesHolding(scanTerms('parse quokka walrus narwhal'), 16, 1 << 30)).toEqual([]);
    expect((await view.filesHolding(scanTerms('parse quokka'), 16, 1 << 30)).map((f) => f.file.path)).toEqual(['src/c.ts', 'src/a.py', 'src/b.py']);
  });
});

describe('walkFiles over synchronous fs calls', () => {
  it('lets the event loop in while it walks, and lists every file', async () => {
    const big = join(dir, 'big');
    for (let i = 0; i < 3000; i++) {
      if (i % 100 === 0) mkdirSync(join(big, `d${i / 100}`), { recursive: true });
      writeFileSync(join(big, `d${Math.floor(i / 100)}`, `f${i}.txt`), `${i}\n`);
    }
    const walkCounting = async (sliceMs?: number): Promise<{ files: Map<string, unknown>; ticks: number; ms: number }> => {
      let ticks = 0;
      let done = false;
      const tick = (): void => {
        if (done) return;
        ticks++;
        setImmediate(tick);
      };
      setImmediate(tick);
      const t0 = performance.now();
      const files = await walkFiles(new NodeFileSource(big, { sync: true }), {}, sliceMs);
      const ms = performance.now() - t0;
      done = true;
      return { files, ticks, ms };
    };
    // Letting the loop in after every file: a tick for each (a walk that held the loop would see one).
    const each = await walkCounting(0);
    expect(each.files.size).toBe(3000);
    expect(each.ticks).toBeGreaterThanOrEqual(1500);
    // Every 25 ms: a slice can run past 25 ms (one directory's listing), so at least one tick every
    // two slices' time.
    const sliced = await walkCounting();
    expect(sliced.files.size).toBe(3000);
    expect(sliced.ticks, `${sliced.ms.toFixed(0)} ms walk`).toBeGreaterThanOrEqual(Math.floor(sliced.ms / 50));
  });
});
