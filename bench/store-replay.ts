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
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import { chunkForStore, BULK_BATCH_FACTOR, type PreparedFile } from '../src/core/index/indexer.ts';
import { NodeFsVFS } from '../src/core/store/node-vfs-node.ts';
import { openNodeStore } from '../src/core/store/open-node.ts';
import { nodeTextCodec } from '../src/core/store/text-codec-node.ts';
import { chunkListLength } from '../src/core/store/chunk-wire.ts';
import { WRITE_BATCH_ROWS } from '../src/core/config.ts';
import { nativeSha256 } from '../src/cli/node-hash.ts';

const args = process.argv.slice(2);
const keepAt = args.indexOf('--keep');
const keep = keepAt >= 0 ? args.splice(keepAt, 2)[1] : undefined;
const [cache, ...dirs] = args;
type Cached = { files: Array<{ path: string; text: string }>; prepared: PreparedFile[] };
let data: Cached;
if (existsSync(cache!)) data = deserialize(readFileSync(cache!)) as Cached;
else {
  const files: Cached['files'] = [];
  const walk = (root: string, d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(root, p);
      else if (statSync(p).size <= 1 << 20) files.push({ path: relative(root, p), text: readFileSync(p, 'utf8') });
    }
  };
  for (const d of dirs) walk(join(d, '..'), d);
  const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  const prepared: PreparedFile[] = [];
  for (const f of files) prepared.push(await chunkForStore(chunker, f.path, f.text, { codec: nodeTextCodec, sha256Hex: nativeSha256 }));
  data = { files, prepared };
  writeFileSync(cache!, serialize(data));
}
const { files, prepared } = data;
console.log(`${files.length} files, ${prepared.reduce((n, p) => n + chunkListLength(p.chunks), 0)} chunks`);
let nWrites = 0;
const proto = NodeFsVFS.prototype as unknown as { jWrite(id: number, d: Uint8Array, o: number): number };
const write0 = proto.jWrite;
proto.jWrite = function (id, d, o) { nWrites++; return write0.call(this, id, d, o); };
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const file = keep ?? '/tmp/store-replay.sqlite';
for (const s of ['', '-journal']) rmSync(file + s, { force: true });
const store = await openNodeStore(file, { scratch: true });
if (process.env.CACHE_KIB) await store.setPageCache(Number(process.env.CACHE_KIB));
const t0 = cpu();
await store.setBulkLoad(true);
if (process.env.FTS_PGSZ) await store.db.run(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('pgsz', ?)`, [Number(process.env.FTS_PGSZ)]);
if (process.env.FTS_HASHSIZE) await store.db.run(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('hashsize', ?)`, [Number(process.env.FTS_HASHSIZE)]);
let batch: Parameters<typeof store.writeFiles>[0] = [];
let rows = 0;
for (const [i, p] of prepared.entries()) {
  const f = files[i]!;
  batch.push({ file: { path: f.path, hash: String(i), size: f.text.length, mtime: 0, language: p.language }, chunks: p.chunks, text: f.text, packed: p.packed, grams: p.grams });
  rows += chunkListLength(p.chunks);
  if (rows >= Number(process.env.BATCH_ROWS ?? WRITE_BATCH_ROWS * BULK_BATCH_FACTOR)) { await store.writeFiles(batch); batch = []; rows = 0; }
}
await store.writeFiles(batch);
const t1 = cpu();
await store.flushTrigrams();
await store.setBulkLoad(false);
const t2 = cpu();
await store.optimizeFts();
const t3 = cpu();
await store.close();
console.log(`write ${(t1 - t0).toFixed(0)} ms, flush ${(t2 - t1).toFixed(0)} ms, optimize ${(t3 - t2).toFixed(0)} ms CPU (${(t3 - t0).toFixed(0)}); file ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB, ${nWrites} writes`);
if (!keep) rmSync(file, { force: true });
