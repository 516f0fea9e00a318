#!/usr/bin/env node
/**
 * Bundles the CLI (src/cli/main.ts and its chunk worker) into dist-cli/ with esbuild, so
 * `bin/sift` starts without loading TypeScript through tsx (issue 26: `sift --help` 0.3–0.5 s
 * through tsx). Runs on `npm install` (the `prepare` script) and by `npm run build:cli`.
 *
 * Lazily imported commands (index, grep, mcp, the embedder) become their own chunks, loaded
 * on use.
 * dist-cli/inputs.json lists every source file in the bundle with its size and mtime:
 * bin/sift falls back to tsx when one of them changed since (a stale bundle is never run).
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// `--out DIR` (tests): another folder; it must sit inside the repository, where node_modules is found.
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? resolve(process.argv[outArg + 1]) : join(root, 'dist-cli');
// Built beside, then swapped in, so a sift starting meanwhile sees the old bundle or the new one.
const tmp = `${out}.tmp-${process.pid}`;
const t0 = performance.now();

// Never fail an install over the bundle: without it bin/sift runs the sources through tsx.
function giveUp(why) {
  rmSync(tmp, { recursive: true, force: true });
  process.stderr.write(`sift: CLI not bundled (${why}); bin/sift runs the TypeScript sources through tsx instead\n`);
  process.exit(0);
}
const esbuild = await import('esbuild').catch(() => null);
if (!esbuild) giveUp('esbuild is not installed');

rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts', 'chunk-worker': 'src/cli/chunk-worker.ts', 'embed-worker': 'src/cli/embed-worker.ts', 'mcp-scan-worker': 'src/cli/mcp-scan-worker.ts' },
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Pure-JS packages go into the bundle (one file to parse instead of a resolution per
  // module: `sift --help` 203 → 129 ms median under load); packages with native code or
  // their own file loading stay in node_modules. Files they read (wasm) are resolved from
  // node_modules at run time (createRequire), as from the sources.
  external: ['@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-web', 'hnswlib-wasm', 'voy-search', 'tsx'],
  minify: process.env.SIFT_BUILD_NO_MINIFY !== "1",
  // No keepNames: it wraps every function made at run time in a __name() call, which made
  // re2js's regex scans 6x slower (a warm `^\s*$` grep over 1,000 files 0.3 → 2 s).
  outExtension: { '.js': '.mjs' },
  // Beside the entries: chunk-pool.ts finds chunk-worker.mjs, embed-worker.mjs and mcp-scan-worker.mjs next to its own chunk.
  chunkNames: '[name]-[hash]',
  metafile: true,
  sourcemap: 'linked',
  logLevel: 'warning',
}).catch((e) => giveUp(e instanceof Error ? e.message.split('\n')[0] : String(e)));
// The warm server's client (src/cli/serve-client.ts), which bin/sift loads before main: one
// file of its own (no shared chunks to resolve and load: ~5 ms of every served command).
const client = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { client: 'src/cli/serve-client.ts' },
  outdir: tmp,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: process.env.SIFT_BUILD_NO_MINIFY !== "1",
  outExtension: { '.js': '.mjs' },
  metafile: true,
  sourcemap: 'linked',
  logLevel: 'warning',
}).catch((e) => giveUp(e instanceof Error ? e.message.split('\n')[0] : String(e)));
const inputs = [...new Set([...Object.keys(result.metafile.inputs), ...Object.keys(client.metafile.inputs)])]
  .filter((p) => !p.split('/').includes('node_modules'))
  .map((p) => {
    const s = statSync(join(root, p));
    return { path: p, size: s.size, mtimeMs: s.mtimeMs };
  });
writeFileSync(join(tmp, 'inputs.json'), JSON.stringify({ built: new Date().toISOString(), inputs }) + '\n');
const old = `${out}.old-${process.pid}`;
if (existsSync(out)) renameSync(out, old);
renameSync(tmp, out);
rmSync(old, { recursive: true, force: true });
const bytes = [result, client].flatMap((r) => Object.values(r.metafile.outputs)).reduce((n, o) => n + o.bytes, 0);
process.stderr.write(`sift: CLI bundled into ${relative(process.cwd(), out) || out} (${inputs.length} sources, ${(bytes / 1024).toFixed(0)} KB) in ${Math.round(performance.now() - t0)} ms\n`);
