/**
 * Benchmark corpora under bench/corpora/ (git-ignored), prepared idempotently:
 *   scale  — kernel subset of Debian's linux-source-6.1 (installed with apt when missing);
 *   medium — Go standard-library sources (Debian golang-1.19-src) plus TS/JS package
 *            sources copied out of node_modules (a few thousand files);
 *   small  — test/fixtures, used in place.
 * A corpus is complete once its `.sift-bench-ready` stamp exists; a half-copied corpus
 * (no stamp) is deleted and rebuilt. Corpora are read-only inputs: benches that edit
 * files work on copies under bench/tmp/.
 *
 * Usage: tsx bench/corpora.ts [scale|medium|small ...]
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPORA_DIR, REPO_DIR, dirSize, isMain, mb, runOk } from './util.ts';

export const KERNEL_TARBALL = '/usr/src/linux-source-6.1.tar.xz';
export const KERNEL_PACKAGE = 'linux-source-6.1';
export const KERNEL_TOP = 'linux-source-6.1';
export const KERNEL_DIRS = ['kernel', 'mm', 'fs', 'net', 'include', 'lib', 'block', 'security', 'crypto'] as const;

export const GO_PACKAGE = 'golang-1.19-src';
export const GO_SRC = '/usr/share/go-1.19/src';
/** Go packages in the medium corpus (test files kept: a real tree has them; testdata dropped). */
export const GO_DIRS = [
  'net/http', 'net/url', 'net/mail', 'net/textproto', 'crypto/tls', 'crypto/x509', 'encoding', 'go/ast', 'go/parser',
  'go/printer', 'go/types', 'text/template', 'html/template', 'strings', 'bytes', 'strconv', 'sort', 'bufio',
  'io', 'os', 'fmt', 'time', 'sync', 'context', 'path', 'regexp', 'compress', 'archive', 'image', 'math',
] as const;
/** Package source folders copied from node_modules (unminified JS/TS with JSDoc). */
export const JS_DIRS = [
  'svelte/src', 'eslint/lib', '@huggingface/transformers/src', 'protobufjs/src', 'comlink/src', 'ignore',
  'picomatch/lib', 'idb-keyval/dist', 'highlight.js/lib/languages', 'source-map-js/lib', 'eslint-scope/lib',
] as const;

const STAMP = '.sift-bench-ready';
/**
 * TypeScript sources are left out of the copied corpora: tsconfig.json includes all of
 * bench/, so .ts files under bench/corpora would be type-checked by `npm run check`.
 * Drop this once tsconfig excludes bench/corpora and bench/tmp.
 */
const SKIP_IN_CORPUS = /\.[cm]?tsx?$/;

export interface CorpusInfo {
  name: 'scale' | 'medium' | 'small';
  dir: string;
  files: number;
  bytes: number;
  /** Seconds this call spent preparing (0 when it was already there). */
  prepareSeconds: number;
}

function aptInstall(pkg: string): void {
  runOk('apt-get', ['install', '-y', '--no-install-recommends', pkg], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function ensureTool(path: string, pkg: string): void {
  if (existsSync(path)) return;
  console.error(`[corpora] ${path} missing: apt-get install ${pkg}`);
  try {
    aptInstall(pkg);
  } catch (e) {
    throw new Error(`cannot install ${pkg} (run as root: apt-get install -y ${pkg}): ${(e as Error).message}`);
  }
}

function withStamp(dir: string, build: () => void): number {
  if (existsSync(join(dir, STAMP))) return 0;
  const t0 = performance.now();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  build();
  // The stamp is a dot-file the walker may index; keep it tiny and outside the counted tree.
  writeFileSync(join(dir, STAMP), new Date().toISOString() + '\n');
  return (performance.now() - t0) / 1000;
}

function info(name: CorpusInfo['name'], dir: string, prepareSeconds: number): CorpusInfo {
  const { files, bytes } = dirSize(dir);
  const stamp = existsSync(join(dir, STAMP)) ? 1 : 0;
  return { name, dir, files: files - stamp, bytes, prepareSeconds };
}

export function prepareScale(): CorpusInfo {
  const dir = join(CORPORA_DIR, 'kernel');
  const secs = withStamp(dir, () => {
    ensureTool(KERNEL_TARBALL, KERNEL_PACKAGE);
    runOk('tar', ['-xJf', KERNEL_TARBALL, '-C', dir, '--strip-components=1', ...KERNEL_DIRS.map((d) => `${KERNEL_TOP}/${d}`)]);
  });
  return info('scale', dir, secs);
}

export function prepareMedium(): CorpusInfo {
  const dir = join(CORPORA_DIR, 'medium');
  const secs = withStamp(dir, () => {
    ensureTool(GO_SRC, GO_PACKAGE);
    for (const d of GO_DIRS) {
      cpSync(join(GO_SRC, d), join(dir, 'go', d), {
        recursive: true,
        filter: (src) => !src.includes('/testdata'),
      });
    }
    for (const d of JS_DIRS) {
      // node_modules/ is ignored by Sift's walker, so packages are copied out under js/.
      cpSync(join(REPO_DIR, 'node_modules', d), join(dir, 'js', d.replace(/\/(src|lib|dist)$/, '')), {
        recursive: true,
        filter: (src) => !SKIP_IN_CORPUS.test(src) &&
          !/\/(node_modules|test|tests|__tests__)(\/|$)/.test(src.slice(join(REPO_DIR, 'node_modules').length)),
      });
    }
  });
  return info('medium', dir, secs);
}

export function prepareSmall(): CorpusInfo {
  return info('small', join(REPO_DIR, 'test', 'fixtures'), 0);
}

export function prepareCorpora(names: readonly string[] = ['scale', 'medium', 'small']): CorpusInfo[] {
  const out: CorpusInfo[] = [];
  if (names.includes('small')) out.push(prepareSmall());
  if (names.includes('medium')) out.push(prepareMedium());
  if (names.includes('scale')) out.push(prepareScale());
  return out;
}

if (isMain(import.meta.url)) {
  const names = process.argv.slice(2);
  for (const c of prepareCorpora(names.length ? names : undefined)) {
    console.log(`${c.name.padEnd(7)} ${String(c.files).padStart(6)} files ${mb(c.bytes).toFixed(1).padStart(7)} MB  ${c.dir}` +
      (c.prepareSeconds ? `  (prepared in ${c.prepareSeconds.toFixed(1)} s)` : ''));
  }
}
