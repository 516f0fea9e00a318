/**
 * The server's CPU up to its first answer (issue 34): `sift mcp` spawned by the MCP SDK's own
 * client on a fresh copy of a 1,000-file repository (bench/mcp.ts makeRepo) with a fresh index,
 * its first call a `search`; at the answer, the server process's CPU (all threads, and its main
 * thread) from /proc. Builds alternate round by round, so load changes hit each alike: on a
 * loaded 2-core machine wall times say little, CPU on the way to the answer does.
 *
 * Usage: tsx bench/mcp-first-cpu.ts --rounds N BIN [BIN...]   (BIN: a checkout's bin/sift)
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makeRepo } from './mcp.ts';
import { TMP_DIR, median } from './util.ts';

const TICK_MS = 10; // USER_HZ 100

function cpuMs(statPath: string): number {
  const f = readFileSync(statPath, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
}

interface Sample { wall: number; connect: number; cpu: number; main: number; results: number; load: number }

async function once(bin: string, template: string, work: string): Promise<Sample> {
  rmSync(work, { recursive: true, force: true });
  cpSync(template, join(work, 'repo'), { recursive: true });
  const load = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath, args: [bin, 'mcp', join(work, 'repo'), '--quiet'],
    env: { ...process.env, SIFT_HOME: join(work, 'home'), SIFT_OFFLINE: '1' } as Record<string, string>, stderr: 'ignore',
  });
  const client = new Client({ name: 'sift-bench', version: '1.0.0' });
  await client.connect(transport);
  const connect = performance.now() - t0;
  const r = await client.callTool({ name: 'search', arguments: { query: 'parse options' } });
  const wall = performance.now() - t0;
  const pid = transport.pid!;
  const cpu = cpuMs(`/proc/${pid}/stat`);
  const main = cpuMs(`/proc/${pid}/task/${pid}/stat`);
  await client.close();
  rmSync(work, { recursive: true, force: true });
  return { wall, connect, cpu, main, results: (r.structuredContent as { results: unknown[] }).results.length, load };
}

const args = process.argv.slice(2);
const ri = args.indexOf('--rounds');
const rounds = ri >= 0 ? Number(args.splice(ri, 2)[1]) : 5;
const bins = args;
const template = join(TMP_DIR, 'mcp-first-cpu', 'template');
const corpus = makeRepo(template, process.env.SIFT_FIRST_FROM === 'go' ? 'go' : 'node');
process.stderr.write(`repo: ${corpus.files} files, ${(corpus.bytes / 2 ** 20).toFixed(1)} MiB; ${rounds} rounds of ${bins.join(', ')}\n`);
const all: Sample[][] = bins.map(() => []);
for (let i = 0; i < rounds; i++) {
  for (const [b, bin] of bins.entries()) {
    const s = await once(bin, template, join(TMP_DIR, 'mcp-first-cpu', 'run'));
    all[b].push(s);
    process.stderr.write(`round ${i + 1} ${bin}: first search ${s.wall.toFixed(0)} ms after spawn (connect ${s.connect.toFixed(0)}), server CPU ${s.cpu} ms (main thread ${s.main}), ${s.results} results, load ${s.load}\n`);
  }
}
for (const [b, bin] of bins.entries()) {
  const m = (f: (s: Sample) => number) => median(all[b].map(f)).toFixed(0);
  console.log(`${bin}: median of ${rounds}: first search ${m((s) => s.wall)} ms after spawn (connect ${m((s) => s.connect)}), server CPU at the answer ${m((s) => s.cpu)} ms (main thread ${m((s) => s.main)})`);
}
rmSync(join(TMP_DIR, 'mcp-first-cpu'), { recursive: true, force: true });
