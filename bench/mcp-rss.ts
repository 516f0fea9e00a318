/**
 * Peak RSS of `sift mcp` over its first index of a fresh ~1,000-file repository (issue 34: "peak
 * RSS no higher than at e804d1e, measured in the same run"), two checkouts alternated.
 *
 * Each run: a fresh copy of the repository (bench/mcp.ts's makeRepo: node_modules sources, or
 * Go's with --from go) and a fresh SIFT_HOME; spawn `bin/sift mcp REPO --quiet` with the SDK's
 * client, one `search`, then `status` every 50 ms until the first index is no longer running;
 * then the server's VmHWM (peak resident set of the whole process: main thread, worker threads,
 * WebAssembly memories) and VmRSS from /proc/<pid>/status, and its CPU (user + sys).
 *
 * Usage: tsx bench/mcp-rss.ts A_CHECKOUT B_CHECKOUT [--runs N] [--from go]
 * Prints one line per run and per checkout the median and range.
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makeRepo } from './mcp.ts';
import { TMP_DIR, median, parseArgs } from './util.ts';

interface Run { label: string; hwmMiB: number; rssMiB: number; cpuS: number; readyMs: number }

function procStatus(pid: number): { hwmMiB: number; rssMiB: number; cpuS: number } {
  const st = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(st)?.[1] ?? NaN);
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(/\s+/);
  return { hwmMiB: kb('VmHWM') / 1024, rssMiB: kb('VmRSS') / 1024, cpuS: (Number(f[11]) + Number(f[12])) / 100 };
}

async function once(label: string, checkout: string, template: string, dir: string): Promise<Run> {
  rmSync(dir, { recursive: true, force: true });
  const repo = join(dir, 'repo');
  cpSync(template, repo, { recursive: true });
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath, args: [join(checkout, 'bin/sift'), 'mcp', repo, '--quiet'],
    env: { ...process.env, SIFT_HOME: join(dir, 'home'), SIFT_OFFLINE: '1', SIFT_SERVER: '0' } as Record<string, string>, stderr: 'ignore',
  });
  const client = new Client({ name: 'sift-bench-rss', version: '1.0.0' });
  await client.connect(transport);
  try {
    await client.callTool({ name: 'search', arguments: { query: 'parse options' } });
    for (;;) {
      const st = await client.callTool({ name: 'status', arguments: {} });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the structured answer
      if ((st.structuredContent as any).codebases[0].state !== 'indexing') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const readyMs = performance.now() - t0;
    return { label, ...procStatus(transport.pid!), readyMs };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const { positional, flags } = parseArgs(process.argv.slice(2));
  const [a, b] = positional.map((p) => resolve(p));
  if (!a || !b) throw new Error('usage: tsx bench/mcp-rss.ts A_CHECKOUT B_CHECKOUT [--runs N] [--from go]');
  const runs = Number(flags.get('runs') ?? 3);
  const work = join(TMP_DIR, 'mcp-rss');
  const template = join(work, 'template');
  const c = makeRepo(template, flags.get('from') === 'go' ? 'go' : 'node');
  console.log(`repository: ${c.files} files, ${(c.bytes / 2 ** 20).toFixed(1)} MiB`);
  const out: Run[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [label, co] of (i % 2 ? [['B', b], ['A', a]] : [['A', a], ['B', b]]) as Array<[string, string]>) {
      const r = await once(label, co, template, join(work, 'run'));
      out.push(r);
      console.log(`${label} peak=${r.hwmMiB.toFixed(0)} MiB rss_at_ready=${r.rssMiB.toFixed(0)} MiB cpu=${r.cpuS.toFixed(2)} s ready=${(r.readyMs / 1000).toFixed(2)} s load=${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
    }
  }
  for (const label of ['A', 'B']) {
    const h = out.filter((r) => r.label === label).map((r) => r.hwmMiB);
    console.log(`${label} (${label === 'A' ? a : b}): peak RSS median ${median(h).toFixed(0)} MiB (${Math.min(...h).toFixed(0)}-${Math.max(...h).toFixed(0)}), ` +
      `cpu median ${median(out.filter((r) => r.label === label).map((r) => r.cpuS)).toFixed(2)} s, runs ${h.length}`);
  }
  rmSync(work, { recursive: true, force: true });
}

await main();
