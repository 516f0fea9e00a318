/**
 * What the store benchmarks (store-writes.ts, store-replay.ts) share: the files of some folders
 * read and chunked once as a chunk thread does, then written into a Store as the indexer's bulk
 * load writes them (setBulkLoad, batches of whole files up to a row count, flushTrigrams,
 * optimizeFts), with the CPU of each step.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import { chunkForStore, type PreparedFile } from '../src/core/index/indexer.ts';
import { nodeTextCodec } from '../src/core/store/text-codec-node.ts';
import { chunkListLength } from '../src/core/store/chunk-wire.ts';
import type { Store } from '../src/core/store/store.ts';
import { nativeSha256 } from '../src/cli/node-hash.ts';

export interface TreeFile { path: string; text: string }

/** Files of each of `dirs` up to 1 MiB, by name at each level, each path relative to its folder's parent. */
export function readTreeFiles(dirs: readonly string[]): TreeFile[] {
  const files: TreeFile[] = [];
  const walk = (root: string, d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(root, p);
      else if (statSync(p).size <= 1 << 20) files.push({ path: relative(root, p), text: readFileSync(p, 'utf8') });
    }
  };
  for (const d of dirs) walk(join(d, '..'), d);
  return files;
}

/** `files` chunked in this thread as a CLI chunk thread does (chunkForStore with Node's codec and hash). */
export async function prepareTreeFiles(files: readonly TreeFile[]): Promise<PreparedFile[]> {
  const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  const prepared: PreparedFile[] = [];
  for (const f of files) prepared.push(await chunkForStore(chunker, f.path, f.text, { codec: nodeTextCodec, sha256Hex: nativeSha256 }));
  return prepared;
}

/** Chunks in all of `prepared`. */
export const chunkCount = (prepared: readonly PreparedFile[]): number => prepared.reduce((n, p) => n + chunkListLength(p.chunks), 0);

/** CPU ms (user + sys) of this process so far. */
export const cpuMs = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/**
 * Writes `prepared` (of `files`) into `store` as a bulk load in batches of at least `rowsPerBatch`
 * chunk rows; `beforeWrites` runs after setBulkLoad(true) (settings for the load), `end` after
 * the closing merge, inside its time. CPU ms of the writes, the trigram flush and the merge.
 */
export async function replayBulkLoad(
  store: Store, files: readonly TreeFile[], prepared: readonly PreparedFile[], rowsPerBatch: number,
  o: { beforeWrites?: () => Promise<void>; end?: () => Promise<void> } = {},
): Promise<{ write: number; flush: number; optimize: number }> {
  const t0 = cpuMs();
  await store.setBulkLoad(true);
  await o.beforeWrites?.();
  let batch: Parameters<Store['writeFiles']>[0] = [];
  let rows = 0;
  for (const [i, p] of prepared.entries()) {
    const f = files[i]!;
    batch.push({ file: { path: f.path, hash: String(i), size: f.text.length, mtime: 0, language: p.language }, chunks: p.chunks, text: f.text, packed: p.packed, grams: p.grams });
    rows += chunkListLength(p.chunks);
    if (rows >= rowsPerBatch) { await store.writeFiles(batch); batch = []; rows = 0; }
  }
  await store.writeFiles(batch);
  const t1 = cpuMs();
  await store.flushTrigrams();
  await store.setBulkLoad(false);
  const t2 = cpuMs();
  await store.optimizeFts();
  await o.end?.();
  const t3 = cpuMs();
  return { write: t1 - t0, flush: t2 - t1, optimize: t3 - t2 };
}
