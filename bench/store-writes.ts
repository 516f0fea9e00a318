/**
 * Page writes and CPU of a first index's bulk load through Store, per durability setting: the
 * files chunked once in this thread (chunkForStore), then written as the indexer's bulk load
 * writes them (setBulkLoad, 4,000-row batches, flushTrigrams, optimizeFts) into a fresh file on
 * NodeFsVFS, whose jWrite is counted per file (database, journal). Configurations, comma-separated:
 * `plain` (journaled, synced: a rescan's), `unjournaled` (Store.setUnjournaled around the load: the
 * app's first index), `scratch` (Store.open's scratch file: the CLI's small new index), and a
 * `-big` suffix for 16,000-row batches.
 *
 *   npx tsx bench/store-writes.ts DIR… plain,unjournaled
 */
import { rmSync, statSync } from 'node:fs';
import { openNodeStore } from '../src/core/store/open-node.ts';
import { NodeFsVFS } from '../src/core/store/node-vfs-node.ts';
import { chunkCount, prepareTreeFiles, readTreeFiles, replayBulkLoad } from './bulk-replay.ts';

const dirs = process.argv.slice(2, -1);
const configs = process.argv.at(-1)!.split(',');
const files = readTreeFiles(dirs);
const prepared = await prepareTreeFiles(files);
console.log(`${files.length} files, ${chunkCount(prepared)} chunks`);
const writes = new Map<string, { n: number; bytes: number }>();
const proto = NodeFsVFS.prototype as unknown as { jWrite(id: number, d: Uint8Array, o: number): number; jOpen(name: string | null, id: number, flags: number, pOut: DataView): number };
const names = new Map<number, string>();
const open0 = proto.jOpen;
proto.jOpen = function (name, id, flags, pOut) { names.set(id, String(name).replace(/.*\.sqlite/, 'db')); return open0.call(this, name, id, flags, pOut); };
const write0 = proto.jWrite;
proto.jWrite = function (id, d, o) { const k = names.get(id) ?? '?'; const w = writes.get(k) ?? { n: 0, bytes: 0 }; w.n++; w.bytes += d.byteLength; writes.set(k, w); return write0.call(this, id, d, o); };
for (const cfg of configs) {
  const file = `/tmp/opfs-sw-${cfg}.sqlite`;
  for (const s of ['', '-journal']) rmSync(file + s, { force: true });
  writes.clear();
  const store = await openNodeStore(file, { scratch: cfg.startsWith('scratch') });
  const unjournaled = cfg.startsWith('unjournaled');
  if (unjournaled) await store.setUnjournaled(true);
  const t = await replayBulkLoad(store, files, prepared, cfg.includes('big') ? 16000 : 4000, { end: unjournaled ? () => store.setUnjournaled(false) : undefined });
  const size = statSync(file).size;
  await store.close();
  const w = [...writes].map(([k, v]) => `${k} ${v.n} writes ${(v.bytes / 2 ** 20).toFixed(0)} MiB`).join(', ');
  console.log(`${cfg}: write ${t.write.toFixed(0)} ms, flush ${t.flush.toFixed(0)} ms, optimize ${t.optimize.toFixed(0)} ms CPU; file ${(size / 2 ** 20).toFixed(0)} MiB; ${w}`);
}
