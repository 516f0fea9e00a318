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
import { readdirSync, readFileSync, statSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import { chunkForStore, type PreparedFile } from '../src/core/index/indexer.ts';
import { openNodeStore } from '../src/core/store/open-node.ts';
import { NodeFsVFS } from '../src/core/store/node-vfs-node.ts';
import { nodeTextCodec } from '../src/core/store/text-codec-node.ts';
import { chunkListLength } from '../src/core/store/chunk-wire.ts';

const dirs = process.argv.slice(2, -1);
const configs = process.argv.at(-1)!.split(',');
const files: Array<{ path: string; text: string }> = [];
const walk = (root: string, d: string): void => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) walk(root, p);
    else if (statSync(p).size <= 1 << 20) files.push({ path: relative(root, p), text: readFileSync(p, 'utf8') });
  }
};
for (const d of dirs) walk(join(d, '..'), d);
const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
const prepared: PreparedFile[] = [];
for (const f of files) prepared.push(await chunkForStore(chunker, f.path, f.text, { codec: nodeTextCodec }));
console.log(`${files.length} files, ${prepared.reduce((n, p) => n + chunkListLength(p.chunks), 0)} chunks`);
const writes = new Map<string, { n: number; bytes: number }>();
const proto = NodeFsVFS.prototype as unknown as { jWrite(id: number, d: Uint8Array, o: number): number; jOpen(name: string | null, id: number, flags: number, pOut: DataView): number };
const names = new Map<number, string>();
const open0 = proto.jOpen;
proto.jOpen = function (name, id, flags, pOut) { names.set(id, String(name).replace(/.*\.sqlite/, 'db')); return open0.call(this, name, id, flags, pOut); };
const write0 = proto.jWrite;
proto.jWrite = function (id, d, o) { const k = names.get(id) ?? '?'; const w = writes.get(k) ?? { n: 0, bytes: 0 }; w.n++; w.bytes += d.byteLength; writes.set(k, w); return write0.call(this, id, d, o); };
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (const cfg of configs) {
  const file = `/tmp/opfs-sw-${cfg}.sqlite`;
  for (const s of ['', '-journal']) rmSync(file + s, { force: true });
  writes.clear();
  const store = await openNodeStore(file, { scratch: cfg.startsWith('scratch') });
  if (cfg.startsWith('unjournaled')) await store.setUnjournaled(true);
  const rowsPerBatch = cfg.includes('big') ? 16000 : 4000;
  const t0 = cpu();
  await store.setBulkLoad(true);
  let batch: Parameters<typeof store.writeFiles>[0] = [];
  let rows = 0;
  for (const [i, p] of prepared.entries()) {
    const f = files[i]!;
    batch.push({ file: { path: f.path, hash: String(i), size: f.text.length, mtime: 0, language: p.language }, chunks: p.chunks, text: f.text, packed: p.packed, grams: p.grams });
    rows += chunkListLength(p.chunks);
    if (rows >= rowsPerBatch) { await store.writeFiles(batch); batch = []; rows = 0; }
  }
  await store.writeFiles(batch);
  const t1 = cpu();
  await store.flushTrigrams();
  await store.setBulkLoad(false);
  const t2 = cpu();
  await store.optimizeFts();
  if (cfg.startsWith('unjournaled')) await store.setUnjournaled(false);
  const t3 = cpu();
  const size = statSync(file).size;
  await store.close();
  const w = [...writes].map(([k, v]) => `${k} ${v.n} writes ${(v.bytes / 2 ** 20).toFixed(0)} MiB`).join(', ');
  console.log(`${cfg}: write ${(t1 - t0).toFixed(0)} ms, flush ${(t2 - t1).toFixed(0)} ms, optimize ${(t3 - t2).toFixed(0)} ms CPU; file ${(size / 2 ** 20).toFixed(0)} MiB; ${w}`);
}
