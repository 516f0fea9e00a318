/**
 * A V8 code cache for the CLI's bundle (issue 34: a process's fixed costs). Node 20 has no
 * compile cache for ES modules (`module.enableCompileCache` is Node >= 22.1), so
 * scripts/build-cli.mjs also writes the CLI as one CommonJS file, dist-cli/main.cjs, and
 * bin/sift runs it through `vm.Script` with `cachedData`: V8 then deserializes the bytecode of
 * the bundle's top level and of every function an earlier run of the same command compiled,
 * instead of parsing and compiling them again (`sift --help` ~95 -> ~30 ms of CPU after Node's
 * start; docs/performance.md "sixth round").
 *
 * One cache file per command group and V8 flag set (bin/sift sets `--liftoff-only` for some
 * commands; V8 rejects a cache made under other flags), written after the first run of that
 * group that had none (lazily: the functions compiled by then are in it): into
 * dist-cli/code-cache/ beside the bundle, or $SIFT_HOME/code-cache/ where the install is
 * read-only. A file is used only when its header names this bundle's bytes, this Node and
 * these flags and its payload's SHA-256 matches; anything else (another build, another Node,
 * a torn or corrupt file) is ignored and replaced after the run, and V8's own check
 * (`cachedDataRejected`) is the last word. Node built-ins only: bin/sift loads this file
 * before the bundle (built as dist-cli/code-cache.mjs).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';
import { siftHome } from './home.ts';

/** What became of the cache on load: used, none found, or one found and not used (and why). */
export type CodeCacheState = 'hit' | 'none' | 'stale' | 'corrupt' | 'rejected';

export interface LoadedBundle<T> {
  /** The bundle's `module.exports`. */
  exports: T;
  state: CodeCacheState;
  /** Writes the cache when none was used (after the run: the functions it compiled are in it). Returns the file written, or null. */
  save(): string | null;
}

const MAGIC = Buffer.from('SIFT-V8C');
const HEAD = MAGIC.length + 64; // magic, SHA-256 of what it is for, SHA-256 of the payload

const sha256 = (b: Buffer | string): Buffer => createHash('sha256').update(b).digest();

/** Folders a cache is looked for in, in order; the first writable one gets it. */
export function codeCacheDirs(bundle: string): string[] {
  return [join(dirname(bundle), 'code-cache'), join(siftHome(), 'code-cache')];
}

// The bundle's few `import()`s of packages it does not contain (hnswlib-wasm) go to Node's own
// ESM loader (vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER), which Node 20 announces once per
// process as experimental on stderr; that one line is not Sift's output, so it is dropped.
const LOADER_WARNING = 'vm.USE_MAIN_CONTEXT_DEFAULT_LOADER';
function dropLoaderWarning(): void {
  const emit = process.emitWarning;
  process.emitWarning = function (warning: string | Error, ...rest: unknown[]): void {
    if (typeof warning === 'string' && warning.startsWith(LOADER_WARNING)) return;
    return (emit as (w: string | Error, ...r: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
}

/**
 * Runs the CommonJS bundle `bundle` (an absolute path) as Node's require would, with the code
 * cache for `group` (the command and the V8 flags bin/sift set) when there is a valid one.
 */
export function loadBundle<T>(bundle: string, group: string, dirs = codeCacheDirs(bundle)): LoadedBundle<T> {
  const source = readFileSync(bundle);
  // V8 checks a cache's Node/V8 version and flags, but of the source only its length: the
  // header adds the bytes, so a rebuilt bundle never runs an old one's code.
  const context = [process.version, process.arch, group, process.execArgv.join(' '), process.env.NODE_OPTIONS ?? ''].join('\0');
  const name = `main-${sha256(context).toString('hex').slice(0, 16)}.v8cache`;
  const id = sha256(`${context}\0${sha256(source).toString('hex')}`);
  let state: CodeCacheState = 'none';
  let cachedData: Buffer | undefined;
  for (const dir of dirs) {
    let file: Buffer;
    try {
      file = readFileSync(join(dir, name));
    } catch {
      continue;
    }
    if (file.length <= HEAD || !file.subarray(0, MAGIC.length).equals(MAGIC) || !file.subarray(MAGIC.length, MAGIC.length + 32).equals(id)) {
      state = 'stale';
      continue;
    }
    const payload = file.subarray(HEAD);
    if (!sha256(payload).equals(file.subarray(MAGIC.length + 32, HEAD))) {
      state = 'corrupt';
      continue;
    }
    cachedData = payload;
    state = 'hit';
    break;
  }
  dropLoaderWarning();
  const script = new vm.Script(Module.wrap(source.toString('utf8')), {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cachedData && script.cachedDataRejected) state = 'rejected';
  const module = { exports: {} as T };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return {
    exports: module.exports,
    state,
    save(): string | null {
      if (state === 'hit') return null;
      const payload = script.createCachedData();
      const bytes = Buffer.concat([MAGIC, id, sha256(payload), payload]);
      for (const dir of dirs) {
        const file = join(dir, name);
        const tmp = `${file}.${process.pid}.tmp`;
        try {
          mkdirSync(dir, { recursive: true });
          writeFileSync(tmp, bytes);
          renameSync(tmp, file); // whole or not at all, for a sift starting meanwhile
          return file;
        } catch {
          try {
            rmSync(tmp, { force: true });
          } catch {
            // no folder to leave it in
          }
        }
      }
      return null;
    },
  };
}
