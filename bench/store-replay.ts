/**
 * CPU of the writer alone in a CLI first index: the files of DIR… chunked once as a chunk thread
 * chunks them (chunkForStore with Node's hash and codec; cached in CACHE with v8.serialize, so a
 * rerun skips the parse), then written into a fresh scratch store (the CLI's new index) as the
 * indexer's bulk load writes them (setBulkLoad, WRITE_BATCH_ROWS × BULK_BATCH_FACTOR-row batches,
 * flushTrigrams, optimizeFts). Prints the CPU of the writes, the trigram flush and the closing
 * merge, the file's size and its page writes. Run under `node --cpu-prof --import tsx` for the
 * writer's own profile without the chunkers'. `--keep F` keeps the database.
 *
 *   npx tsx bench/store-replay.ts CACHE DIR… [--keep F]
 *
 * Knobs for experiments (environment): BATCH_ROWS (rows per writeFiles), CACHE_KIB (page cache),
 * FTS_PGSZ / FTS_HASHSIZE (FTS5's 'pgsz' / 'hashsize' set before the load).
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import { BULK_BATCH_FACTOR, type PreparedFile } from '../src/core/index/indexer.ts';
import { NodeFsVFS } from '../src/core/store/node-vfs-node.ts';
import { openNodeStore } from '../src/core/store/open-node.ts';
import { WRITE_BATCH_ROWS } from '../src/core/config.ts';
import { chunkCount, prepareTreeFiles, readTreeFiles, replayBulkLoad, type TreeFile } from './bulk-replay.ts';

const args = process.argv.slice(2);
const keepAt = args.indexOf('--keep');
const keep = keepAt >= 0 ? args.splice(keepAt, 2)[1] : undefined;
const [cache, ...dirs] = args;
type Cached = { files: TreeFile[]; prepared: PreparedFile[] };
let data: Cached;
if (existsSync(cache!)) data = deserialize(readFileSync(cache!)) as Cached;
else {
  const files = readTreeFiles(dirs);
  data = { files, prepared: await prepareTreeFiles(files) };
  writeFileSync(cache!, serialize(data));
}
const { files, prepared } = data;
console.log(`${files.length} files, ${chunkCount(prepared)} chunks`);
let nWrites = 0;
const proto = NodeFsVFS.prototype as unknown as { jWrite(id: number, d: Uint8Array, o: number): number };
const write0 = proto.jWrite;
proto.jWrite = function (id, d, o) { nWrites++; return write0.call(this, id, d, o); };
const file = keep ?? '/tmp/store-replay.sqlite';
for (const s of ['', '-journal']) rmSync(file + s, { force: true });
const store = await openNodeStore(file, { scratch: true });
if (process.env.CACHE_KIB) await store.setPageCache(Number(process.env.CACHE_KIB));
const t = await replayBulkLoad(store, files, prepared, Number(process.env.BATCH_ROWS ?? WRITE_BATCH_ROWS * BULK_BATCH_FACTOR), {
  beforeWrites: async () => {
    if (process.env.FTS_PGSZ) await store.db.run(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('pgsz', ?)`, [Number(process.env.FTS_PGSZ)]);
    if (process.env.FTS_HASHSIZE) await store.db.run(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('hashsize', ?)`, [Number(process.env.FTS_HASHSIZE)]);
  },
});
await store.close();
console.log(`write ${t.write.toFixed(0)} ms, flush ${t.flush.toFixed(0)} ms, optimize ${t.optimize.toFixed(0)} ms CPU (${(t.write + t.flush + t.optimize).toFixed(0)}); file ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB, ${nWrites} writes`);
if (!keep) rmSync(file, { force: true });
