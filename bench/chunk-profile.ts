/**
 * Where one chunk thread's CPU goes, by function: bundles bench/chunk-thread.ts with esbuild
 * (names kept, web-tree-sitter left external so its WASM resolves as in the CLI), runs it under
 * `node --cpu-prof`, and prints each function's share of the samples taken after the first pass
 * (the warm-up: JIT, grammar compiles), self and inclusive, for the functions named in the
 * table below and the heaviest others. The thread's own cpuUsage calls (chunk-thread.ts times
 * each stage) are left out of the shares' total.
 *
 *   npx tsx bench/chunk-profile.ts DIR[,DIR…] [PASSES] [--all] [--top=N] [--keep=DIR]
 *
 * PASSES (default 3) as chunk-thread.ts; --keep writes the .cpuprofile there (open it in
 * DevTools) instead of a temporary folder that is removed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const positional = args.filter((a) => !a.startsWith('--'));
if (!positional[0]) throw new Error('usage: tsx bench/chunk-profile.ts DIR[,DIR…] [PASSES] [--all] [--top=N] [--keep=DIR]');
const top = Number(flag('top') ?? 25);
const keep = flag('keep');
const work = mkdtempSync(join(tmpdir(), 'sift-chunk-profile-'));
// Inside the repository so that web-tree-sitter and the grammars resolve from its node_modules.
const bundleDir = join(here, 'tmp');
mkdirSync(bundleDir, { recursive: true });
const bundle = join(bundleDir, `chunk-thread-${process.pid}.mjs`);
const profDir = keep ? resolve(keep) : join(work, 'prof');
try {
  await build({
    entryPoints: [join(here, 'chunk-thread.ts')], bundle: true, platform: 'node', format: 'esm',
    outfile: bundle, external: ['web-tree-sitter'], keepNames: true, logLevel: 'error',
  });
  const out = execFileSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profDir}`, bundle, ...positional.slice(0, 2), ...(args.includes('--all') ? ['--all'] : [])], { encoding: 'utf8', maxBuffer: 1 << 26 });
  process.stdout.write(out);
  // The first pass's share of the thread's CPU: its samples are left out.
  const totals = [...out.matchAll(/cpu ms total (\d+)/g)].map((m) => Number(m[1]));
  const skip = totals.length > 1 ? totals[0]! / totals.reduce((a, b) => a + b, 0) : 0;
  const file = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).sort().pop()!;
  report(JSON.parse(readFileSync(join(profDir, file), 'utf8')) as Profile, skip);
} finally {
  rmSync(bundle, { force: true });
  rmSync(work, { recursive: true, force: true });
}

function report(p: Profile, skip: number): void {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
  const counts = new Map<number, number>();
  const end = p.timeDeltas.reduce((a, b) => a + b, 0);
  let at = 0;
  p.samples.forEach((id, i) => {
    at += p.timeDeltas[i]!;
    if (at >= skip * end) counts.set(id, (counts.get(id) ?? 0) + 1);
  });
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  let total = 0;
  for (const [id, c] of counts) {
    const leaf = byId.get(id)!;
    if (leaf.callFrame.functionName === 'cpuUsage') continue;
    total += c;
    self.set(name(leaf), (self.get(name(leaf)) ?? 0) + c);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = name(byId.get(cur)!);
      if (!seen.has(k)) incl.set(k, (incl.get(k) ?? 0) + c);
      seen.add(k);
    }
  }
  const pct = (v: number) => `${((100 * v) / total).toFixed(1).padStart(5)}%`;
  console.log(`\n${total} samples after the first pass (cpuUsage left out)`);
  console.log('\nINCLUSIVE (our functions and the runtime\'s entry points)');
  for (const [k, v] of [...incl].filter(([k]) => !k.startsWith('(root)') && !k.startsWith('wasm-function') && !k.includes('node:')).sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`);
  console.log('\nSELF');
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`);
}
