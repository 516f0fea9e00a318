/**
 * The CLI's chunk workers: core's ChunkPool (src/core/index/chunk-pool.ts) over Node worker
 * threads running chunk-worker.ts, so the CLI parses and chunks on other cores while its main
 * thread writes SQLite. This file only spawns a thread and maps its events onto the pool's;
 * the browser's twin is workers/chunker/ (dedicated workers spawned by the indexer worker).
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ChunkPool, defaultPoolSize, type ChunkWorkerEvents, type ChunkWorkerHandle } from '../core/index/chunk-pool.ts';
import type { FileChunker } from '../core/index/indexer.ts';
import { trace } from './trace.ts';

export const DEFAULT_POOL_SIZE = defaultPoolSize(availableParallelism());

/** Running from the bundle (scripts/build-cli.mjs, dist-cli/*.mjs) rather than the TypeScript sources. */
const BUNDLED = import.meta.url.endsWith('.mjs');

/** The URL of a CLI worker thread's module (`name`: 'chunk-worker', 'embed-worker', 'mcp-scan-worker'): the bundled .mjs beside this chunk, or the source. */
export function cliWorkerEntry(name: 'chunk-worker' | 'embed-worker' | 'mcp-scan-worker'): string {
  return new URL(BUNDLED ? `./${name}.mjs` : `./${name}.ts`, import.meta.url).href;
}

/**
 * The worker runs TypeScript: a tiny eval'd bootstrap registers tsx's ESM hooks inside the
 * thread (module hooks and `--import` in execArgv do not reach worker threads in Node 20),
 * then imports chunk-worker.ts (or `entry`). A failed import is reported as `{ failed }`.
 * From the bundle it imports the bundled chunk-worker.mjs, with no loader.
 */
export function workerBootstrap(entry = cliWorkerEntry('chunk-worker')): string {
  const fail = `.catch((e) => { require('node:worker_threads').parentPort.postMessage({ failed: String(e && e.stack || e) }); });`;
  if (BUNDLED && entry.endsWith('.mjs')) return `import(${JSON.stringify(entry)})${fail}`;
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(require.resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
  return `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })${fail}`;
}

/** Start one chunk worker thread running `bootstrap` and report its messages and death to the pool. */
export function spawnChunkThread(events: ChunkWorkerEvents, bootstrap = workerBootstrap()): ChunkWorkerHandle {
  const worker = new Worker(bootstrap, { eval: true });
  trace(`chunk thread ${worker.threadId} spawned`);
  worker.on('message', (m: Parameters<ChunkWorkerEvents['message']>[0]) => {
    if ('ready' in m) trace(`chunk thread ${worker.threadId} ready`);
    events.message(m);
  });
  worker.on('messageerror', () => events.lost('a reply could not be deserialized'));
  worker.on('error', (e: Error) => events.lost(e.message));
  worker.on('exit', (code: number) => events.lost(`exit code ${code}`));
  return { post: (req) => worker.postMessage(req), terminate: () => worker.terminate() };
}

/** A pool of `size` chunk threads; `fallback` chunks what no live thread can (see ChunkPool). */
export function createChunkPool(size: number, fallback: () => Promise<FileChunker>, onWorkerLost?: (why: string) => void, bootstrap = workerBootstrap()): ChunkPool {
  return new ChunkPool({ size, fallback, onWorkerLost, spawn: (events) => spawnChunkThread(events, bootstrap) });
}
