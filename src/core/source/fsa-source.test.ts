/**
 * FsaFileSource in a real browser: the module (with the walker) is bundled with esbuild,
 * served from 127.0.0.1 (OPFS needs a secure context) and run in Debian's Chromium over
 * an OPFS directory tree. Skipped when /usr/bin/chromium is absent.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = process.env.SIFT_CHROMIUM ?? '/usr/bin/chromium';

const ENTRY = `
import { FsaFileSource } from './fsa-source.ts';
import { walk } from '../walk/walker.ts';
window.runFsa = async () => {
  const opfs = await navigator.storage.getDirectory();
  const root = await opfs.getDirectoryHandle('fsa-test-' + Math.random().toString(36).slice(2), { create: true });
  const put = async (path, body) => {
    const parts = path.split('/');
    let dir = root;
    for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p, { create: true });
    const w = await (await dir.getFileHandle(parts.at(-1), { create: true })).createWritable();
    await w.write(body);
    await w.close();
  };
  await put('src/a.ts', 'export const a = 1;\\n');
  await put('src/deep/b.py', 'print(1)\\n');
  await put('node_modules/x/i.js', '');
  await put('.gitignore', '*.log\\n');
  await put('debug.log', 'x');
  const src = new FsaFileSource(root);
  const entries = (await src.readDir('src')).map((e) => e.name + ':' + e.kind).sort();
  const text = new TextDecoder().decode(await src.readFile('src/deep/b.py'));
  const stat = await src.stat('src/a.ts');
  const fresh = new FsaFileSource(root); // no cached handles: resolves segment by segment
  const freshText = new TextDecoder().decode(await fresh.readFile('src/deep/b.py'));
  const walked = [];
  const skips = [];
  for await (const f of walk(src, { onSkip: (s) => skips.push(s.path + ':' + s.reason) })) walked.push(f.path);
  let missing = '';
  try { await src.readFile('src/nope.ts'); } catch (e) { missing = e.name; }
  let traversal = '';
  try { await src.readFile('../x'); } catch (e) { traversal = e.name; }
  await opfs.removeEntry(root.name, { recursive: true });
  return { name: src.name.startsWith('fsa-test-'), entries, text, freshText, size: stat.size, mtimeOk: stat.mtime > 0, walked, skips, missing, traversal };
};
`;

describe.skipIf(!existsSync(CHROMIUM))('FsaFileSource over OPFS in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let url: string;

  beforeAll(async () => {
    const out = await build({
      stdin: { contents: ENTRY, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'ts' },
      bundle: true, format: 'esm', write: false, platform: 'browser', target: 'es2022',
    });
    const js = out.outputFiles[0]!.text;
    server = createServer((req, res) => {
      if (req.url === '/bundle.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<script type="module" src="/bundle.js"></script>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it('lists, reads, stats and walks a directory handle', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(() => 'runFsa' in window);
    const r = await page.evaluate(() => (window as unknown as { runFsa: () => Promise<Record<string, unknown>> }).runFsa());
    expect(r).toEqual({
      name: true,
      entries: ['a.ts:file', 'deep:directory'],
      text: 'print(1)\n',
      freshText: 'print(1)\n',
      size: 20,
      mtimeOk: true,
      walked: ['src/a.ts', 'src/deep/b.py'],
      skips: ['.gitignore:extension', 'debug.log:ignored', 'node_modules:ignored'],
      missing: 'NotFoundError',
      traversal: 'TypeError',
    });
  }, 60_000);
});
