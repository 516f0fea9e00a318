/**
 * `sift mcp`'s `status` on a big folder: for each given bin/sift (a checkout's), a fresh server and
 * SIFT_HOME on DIR, status polled until the first index is ready, one search, then 5 status calls
 * timed (pending changes printed once). Usage: `npx tsx bench/mcp-status.ts DIR BIN [BIN…]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from './mcp.ts';
const [dir, ...bins] = process.argv.slice(2);
for (const bin of bins) {
  const home = mkdtempSync(join(tmpdir(), 'sift-st-'));
  const c = await connect(dir, home, bin);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- reads of the structured answer
  const st = async () => (await c.callTool({ name: 'status', arguments: {} })).structuredContent as any;
  const t0 = performance.now();
  while ((await st()).codebases[0].state !== 'ready') await new Promise((r) => setTimeout(r, 500));
  const ready = performance.now() - t0;
  await c.callTool({ name: 'search', arguments: { query: 'open file' } });
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const s = await st();
    times.push(performance.now() - t);
    if (i === 0) console.log('  pending', s.codebases[0].pending_changes);
  }
  console.log(bin, 'ready', Math.round(ready), 'ms; status', times.map((t) => Math.round(t)).join(' '), 'ms');
  await c.close();
  rmSync(home, { recursive: true, force: true });
}
