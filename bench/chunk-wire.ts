/**
 * What a chunk worker's reply costs to clone, per form: the prepared chunks as objects (what
 * postMessage cloned before) against the flat form of src/core/store/chunk-wire.ts (encoded in
 * the worker, decoded where the rows are written). Node's v8.serialize / deserialize is the
 * serializer Chromium's postMessage uses. CPU of this thread, after a warm-up pass.
 *
 *   npx tsx bench/chunk-wire.ts DIR [PASSES]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import { prepareChunks, type StoredChunkInput } from '../src/core/index/indexer.ts';
import { decodeChunks, encodeChunks } from '../src/core/store/chunk-wire.ts';

const dir = process.argv[2];
const passes = Number(process.argv[3] ?? 3);
if (!dir) throw new Error('usage: bench/chunk-wire.ts DIR [PASSES]');
const files: Array<{ path: string; text: string }> = [];
const walk = (d: string): void => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (statSync(p).size <= 1 << 20) files.push({ path: relative(dir, p), text: readFileSync(p, 'utf8') });
  }
};
walk(dir);
const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
const prepared: StoredChunkInput[][] = [];
for (const f of files) prepared.push(prepareChunks((await chunker.chunkFile(f.path, f.text)).chunks));
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const chunks = prepared.reduce((n, c) => n + c.length, 0);
console.log(`${files.length} files, ${chunks} chunks`);
for (let pass = 0; pass <= passes; pass++) {
  const t = { objSer: 0, objDe: 0, enc: 0, wireSer: 0, wireDe: 0, dec: 0 };
  for (const c of prepared) {
    let t0 = cpu();
    const b = serialize(c);
    t.objSer += cpu() - t0;
    t0 = cpu();
    deserialize(b);
    t.objDe += cpu() - t0;
    t0 = cpu();
    const w = encodeChunks(c)!;
    t.enc += cpu() - t0;
    t0 = cpu();
    const wb = serialize(w);
    t.wireSer += cpu() - t0;
    t0 = cpu();
    const w2 = deserialize(wb) as typeof w;
    t.wireDe += cpu() - t0;
    t0 = cpu();
    decodeChunks(w2);
    t.dec += cpu() - t0;
  }
  if (pass === 0) continue; // warm-up
  const f = (x: number) => x.toFixed(0).padStart(6);
  console.log(`pass ${pass}: objects serialize ${f(t.objSer)} deserialize ${f(t.objDe)} ms | wire encode ${f(t.enc)} serialize ${f(t.wireSer)} deserialize ${f(t.wireDe)} decode ${f(t.dec)} ms`);
}
