/**
 * The FileSource contract as executable checks (test support, not shipped: nothing in the
 * app imports it). contract.test.ts runs every case against every source: Node fs, memory
 * and file list in Node, and File System Access (over OPFS) and file list (the browser's
 * own File objects) in Chromium through a bundled page. Plain code without a test
 * framework, so the same checks run in a page.
 *
 * Each case gets a source built over CONTRACT_TREE, and throws with a message when the
 * source breaks the contract in types.ts.
 */
import type { FileSource } from './types.ts';

/** Files of the tree every source is built over (directories exist as their ancestors). */
export const CONTRACT_TREE: Record<string, string | Uint8Array> = {
  'README.md': '# top\n',
  '.hidden': 'a dot file\n',
  'empty.txt': '',
  'src/a.ts': 'export const a = 1;\n',
  'src/deep/er/b.py': 'print("ü ✓")\n',
  'src/deep/sp ace ü.txt': 'a name with a space and a non-ASCII letter\n',
  'bin/blob.bin': Uint8Array.from([0, 1, 2, 255, 254, 0, 10, 13, 128]),
};

export interface ContractCase {
  name: string;
  run(src: FileSource): Promise<void>;
}

const encoder = new TextEncoder();

function bytesOf(v: string | Uint8Array): Uint8Array {
  return typeof v === 'string' ? encoder.encode(v) : v;
}

function fail(message: string): never {
  throw new Error(message);
}

function same(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) fail(`${what}: expected ${e}, got ${a}`);
}

async function listing(src: FileSource, dir: string): Promise<string[]> {
  return (await src.readDir(dir)).map((e) => `${e.name}:${e.kind}`).sort();
}

/** The error `p` rejects with, or a failure when it resolves. */
async function rejection(p: Promise<unknown>, what: string): Promise<{ name?: string; code?: string }> {
  try {
    await p;
  } catch (e) {
    return (e ?? {}) as { name?: string; code?: string };
  }
  return fail(`${what} resolved; it must reject`);
}

/** Missing entries: a DOM-style NotFoundError or a Node-style ENOENT (the walker and the viewer accept both). */
function isNotFound(e: { name?: string; code?: string }): boolean {
  return e.name === 'NotFoundError' || e.code === 'ENOENT';
}

const INVALID_PATHS = ['../x', '/README.md', 'src/../README.md', 'src//a.ts', './README.md', 'src/', 'src\\a.ts', 'a\u0000b'];

export const CONTRACT_CASES: ContractCase[] = [
  {
    name: 'has a non-empty name',
    async run(src) {
      if (typeof src.name !== 'string' || src.name === '') fail(`name is ${JSON.stringify(src.name)}`);
    },
  },
  {
    name: 'lists the root and nested directories with their kinds, dot files included',
    async run(src) {
      same(await listing(src, ''), ['.hidden:file', 'README.md:file', 'bin:directory', 'empty.txt:file', 'src:directory'], "readDir('')");
      same(await listing(src, 'src'), ['a.ts:file', 'deep:directory'], "readDir('src')");
      same(await listing(src, 'src/deep'), ['er:directory', 'sp ace ü.txt:file'], "readDir('src/deep')");
      same(await listing(src, 'src/deep/er'), ['b.py:file'], "readDir('src/deep/er')");
    },
  },
  {
    name: 'a recursive listing finds exactly the files of the tree',
    async run(src) {
      const found: string[] = [];
      const visit = async (dir: string): Promise<void> => {
        for (const e of await src.readDir(dir)) {
          const path = dir === '' ? e.name : `${dir}/${e.name}`;
          if (e.kind === 'directory') await visit(path);
          else found.push(path);
        }
      };
      await visit('');
      same(found.sort(), Object.keys(CONTRACT_TREE).sort(), 'files found');
    },
  },
  {
    name: 'reads every file byte for byte (empty, binary, non-ASCII names and content)',
    async run(src) {
      for (const [path, content] of Object.entries(CONTRACT_TREE)) {
        const got = await src.readFile(path);
        if (!(got instanceof Uint8Array)) fail(`readFile(${path}) is not a Uint8Array`);
        same(Array.from(got), Array.from(bytesOf(content)), `bytes of ${path}`);
      }
    },
  },
  {
    name: 'stat gives the byte size and a millisecond mtime',
    async run(src) {
      for (const [path, content] of Object.entries(CONTRACT_TREE)) {
        const info = await src.stat(path);
        same(info.size, bytesOf(content).length, `size of ${path}`);
        if (!Number.isFinite(info.mtime) || info.mtime < 0 || !Number.isInteger(info.mtime)) fail(`mtime of ${path} is ${info.mtime}`);
      }
    },
  },
  {
    name: 'the bytes returned belong to the caller (changing them changes nothing stored)',
    async run(src) {
      const first = await src.readFile('src/a.ts');
      first.fill(0);
      same(Array.from(await src.readFile('src/a.ts')), Array.from(bytesOf(CONTRACT_TREE['src/a.ts']!)), 'second read after changing the first');
    },
  },
  {
    name: 'a missing file or directory rejects as not found',
    async run(src) {
      const cases: Array<[string, () => Promise<unknown>]> = [
        ["readFile('src/nope.ts')", () => src.readFile('src/nope.ts')],
        ["stat('nope.txt')", () => src.stat('nope.txt')],
        ["readDir('nope')", () => src.readDir('nope')],
        ["readFile('nope/deeper.ts')", () => src.readFile('nope/deeper.ts')],
      ];
      for (const [what, call] of cases) {
        const e = await rejection(call(), what);
        if (!isNotFound(e)) fail(`${what} rejected with name ${e.name}, code ${e.code}; expected NotFoundError or ENOENT`);
      }
    },
  },
  {
    name: 'paths that are not clean and relative are refused with a TypeError',
    async run(src) {
      for (const p of INVALID_PATHS) {
        for (const [what, call] of [
          ['readFile', () => src.readFile(p)],
          ['stat', () => src.stat(p)],
          ['readDir', () => src.readDir(p)],
        ] as const) {
          const e = await rejection(call(), `${what}(${JSON.stringify(p)})`);
          if (e.name !== 'TypeError') fail(`${what}(${JSON.stringify(p)}) rejected with ${e.name}; expected TypeError`);
        }
      }
    },
  },
  {
    name: 'a directory is not a file and a file is not a directory',
    async run(src) {
      await rejection(src.readFile('src'), "readFile('src')");
      await rejection(src.readFile(''), "readFile('')");
      await rejection(src.readDir('src/a.ts'), "readDir('src/a.ts')");
    },
  },
];
