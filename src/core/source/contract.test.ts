/**
 * One FileSource contract (contract-cases.ts), run against all four sources: Node fs,
 * memory and file list here in Node; File System Access over a real OPFS directory and file
 * list over the browser's own File objects in Debian's Chromium (the cases are bundled with
 * esbuild, served from 127.0.0.1 because OPFS needs a secure context, and run in the page).
 * The browser part also walks the FSA source, as the indexer worker does. Skipped when
 * /usr/bin/chromium is absent.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_CASES, CONTRACT_TREE } from './contract-cases.ts';
import { FileListSource, MemoryFileSource } from './memory-source.ts';
import { NodeFileSource } from './node-source-node.ts';
import type { FileSource } from './types.ts';

const CHROMIUM = process.env.SIFT_CHROMIUM ?? '/usr/bin/chromium';
const MTIME = 1_700_000_000_000;

/** The tree as browser-style picked files: `proj/<path>` relative paths beside the Files. */
function pickedFiles(): { files: File[]; paths: string[] } {
  const entries = Object.entries(CONTRACT_TREE);
  return {
    files: entries.map(([p, c]) => new File([c as BlobPart], p.split('/').pop()!, { lastModified: MTIME })),
    paths: entries.map(([p]) => `proj/${p}`),
  };
}

const nodeSources: Array<[string, () => FileSource]> = [
  [
    'NodeFileSource',
    () => {
      const root = mkdtempSync(join(tmpdir(), 'sift-contract-'));
      roots.push(root);
      for (const [p, c] of Object.entries(CONTRACT_TREE)) {
        mkdirSync(dirname(join(root, p)), { recursive: true });
        writeFileSync(join(root, p), c);
      }
      return new NodeFileSource(root);
    },
  ],
  ['MemoryFileSource', () => new MemoryFileSource(CONTRACT_TREE, { mtime: MTIME })],
  [
    'FileListSource',
    () => {
      const { files, paths } = pickedFiles();
      return new FileListSource(files, paths);
    },
  ],
];
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

describe.each(nodeSources)('%s (Node)', (_name, make) => {
  it.each(CONTRACT_CASES.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    await c.run(make());
  });
});

const ENTRY = `
import { CONTRACT_CASES, CONTRACT_TREE } from './contract-cases.ts';
import { FsaFileSource } from './fsa-source.ts';
import { FileListSource } from './memory-source.ts';
import { walk } from '../walk/walker.ts';

async function runCases(src) {
  const out = {};
  for (const c of CONTRACT_CASES) {
    try { await c.run(src); out[c.name] = null; } catch (e) { out[c.name] = String(e && e.message || e); }
  }
  return out;
}

async function writeTree(root, tree) {
  for (const [path, body] of Object.entries(tree)) {
    const parts = path.split('/');
    let dir = root;
    for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p, { create: true });
    const w = await (await dir.getFileHandle(parts.at(-1), { create: true })).createWritable();
    await w.write(body);
    await w.close();
  }
}

window.runContract = async () => {
  const opfs = await navigator.storage.getDirectory();
  const name = 'contract-' + Math.random().toString(36).slice(2);
  const root = await opfs.getDirectoryHandle(name, { create: true });
  await writeTree(root, CONTRACT_TREE);
  const fsa = await runCases(new FsaFileSource(root));
  const entries = Object.entries(CONTRACT_TREE);
  const files = entries.map(([p, c]) => new File([c], p.split('/').pop(), { lastModified: ${MTIME} }));
  const fileList = await runCases(new FileListSource(files, entries.map(([p]) => 'proj/' + p)));
  await opfs.removeEntry(name, { recursive: true });

  // FSA specifics: handles resolve without the readDir cache; the walker honours ignores.
  const walkName = 'walk-' + Math.random().toString(36).slice(2);
  const wroot = await opfs.getDirectoryHandle(walkName, { create: true });
  await writeTree(wroot, { 'src/a.ts': 'export const a = 1;\\n', 'src/deep/b.py': 'print(1)\\n', 'node_modules/x/i.js': '', '.gitignore': '*.log\\n', 'debug.log': 'x' });
  const fresh = new TextDecoder().decode(await new FsaFileSource(wroot).readFile('src/deep/b.py'));
  const src = new FsaFileSource(wroot);
  const walked = [];
  const skips = [];
  for await (const f of walk(src, { onSkip: (s) => skips.push(s.path + ':' + s.reason) })) walked.push(f.path);
  // The handles the walk listed are kept: a file rewritten since reads its new text, one
  // deleted since fails as a fresh lookup would.
  await writeTree(wroot, { 'src/a.ts': 'export const a = 2;\\n' });
  await (await wroot.getDirectoryHandle('src')).getDirectoryHandle('deep').then((d) => d.removeEntry('b.py'));
  const afterEdit = new TextDecoder().decode(await src.readFile('src/a.ts'));
  const afterDelete = await src.readFile('src/deep/b.py').then(() => 'read', (e) => e.name);
  await opfs.removeEntry(walkName, { recursive: true });
  return { fsa, fileList, fsaName: src.name === walkName, fresh, walked, skips, afterEdit, afterDelete };
};
`;

interface BrowserRun {
  fsa: Record<string, string | null>;
  fileList: Record<string, string | null>;
  fsaName: boolean;
  fresh: string;
  walked: string[];
  skips: string[];
  afterEdit: string;
  afterDelete: string;
}

describe.skipIf(!existsSync(CHROMIUM))('in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let run: BrowserRun;

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
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(() => 'runContract' in window);
    run = await page.evaluate(() => (window as unknown as { runContract: () => Promise<BrowserRun> }).runContract());
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  describe.each(['fsa', 'fileList'] as const)('%s', (which) => {
    it.each(CONTRACT_CASES.map((c) => c.name))('%s', (name) => {
      expect(run[which][name]).toBeNull();
    });
  });

  it('FsaFileSource: named after its folder, resolves paths without the cache, and the walker honours ignores over it', () => {
    expect({ name: run.fsaName, fresh: run.fresh, walked: run.walked, skips: run.skips }).toEqual({
      name: true,
      fresh: 'print(1)\n',
      walked: ['.gitignore', 'src/a.ts', 'src/deep/b.py'],
      skips: ['debug.log:ignored', 'node_modules:ignored'],
    });
  });

  it('FsaFileSource: after a walk, a rewritten file reads its new text and a deleted one is NotFoundError', () => {
    expect({ afterEdit: run.afterEdit, afterDelete: run.afterDelete }).toEqual({ afterEdit: 'export const a = 2;\n', afterDelete: 'NotFoundError' });
  });
});
