/**
 * Summarise a Chromium trace written by `bench/browser.ts --trace=FILE`: for each thread that
 * ran JavaScript (main, workers), its sampled time split into idle / GC / WASM modules / our
 * source files / libraries, and its heaviest functions by self time.
 *
 *   npx tsx bench/trace-summary.ts FILE [--top=N] [--inclusive=name1,name2] [--window=FROM,TO]
 *
 * `--window`: only the samples from FROM to TO ms after the traced click (bench/app-pick.ts
 * traces from before its click: e.g. `--window=0,1500` is the first 1.5 s after the pick).
 * `--inclusive` also prints the time under each named function (each sample counted once per
 * name). The times are wall-clock samples of the thread: a thread that is runnable but not
 * running (2 cores, 4 busy threads) still accrues samples, so they add up to more than CPU.
 */
import { readFileSync } from 'node:fs';

interface CallFrame { functionName: string; url?: string; lineNumber?: number }
interface ProfileNode { id: number; callFrame: CallFrame; parent?: number }
interface TraceEvent {
  name: string; ph: string; pid: number; tid: number; id?: string;
  ts?: number;
  args?: { name?: string; data?: { type?: string; startTime?: number; cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] }; timeDeltas?: number[] } };
}

interface ThreadProfile { key: string; nodes: Map<number, ProfileNode>; selfUs: Map<number, number> }

/**
 * Merge a trace's ProfileChunk events into one profile per (pid, profile id); with `window`
 * (trace µs, inclusive), only the samples taken in it.
 */
export function threadProfiles(events: TraceEvent[], window?: readonly [number, number]): Array<ThreadProfile & { thread: string }> {
  /** Each profile's clock: its start, then advanced by every sample's delta (chunks in order). */
  const clock = new Map<string, number>();
  for (const e of events) if (e.name === 'Profile' && e.id && e.args?.data?.startTime !== undefined) clock.set(`${e.pid}:${e.id}`, e.args.data.startTime);
  const names = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name) names.set(`${e.pid}:${e.tid}`, e.args.name);
  const profiles = new Map<string, ThreadProfile & { thread: string }>();
  for (const e of events) {
    if (e.name !== 'ProfileChunk' || !e.id) continue;
    const key = `${e.pid}:${e.id}`;
    let p = profiles.get(key);
    if (!p) profiles.set(key, (p = { key, thread: names.get(`${e.pid}:${e.tid}`) ?? `${e.pid}:${e.tid}`, nodes: new Map(), selfUs: new Map() }));
    const data = e.args?.data;
    for (const n of data?.cpuProfile?.nodes ?? []) p.nodes.set(n.id, n);
    const samples = data?.cpuProfile?.samples ?? [];
    const deltas = data?.timeDeltas ?? [];
    let t = clock.get(key) ?? 0;
    samples.forEach((s, i) => {
      const d = deltas[i] ?? 0;
      t += d;
      if (!window || (t >= window[0] && t <= window[1])) p.selfUs.set(s, (p.selfUs.get(s) ?? 0) + Math.max(0, d));
    });
    clock.set(key, t);
  }
  return [...profiles.values()];
}

function category(f: CallFrame): string {
  const fn = f.functionName;
  const url = f.url ?? '';
  if (fn === '(idle)' || fn === '(garbage collector)' || fn === '(program)' || fn === '(root)') return fn;
  if (fn.startsWith('wasm-function') || url.startsWith('wasm://')) return `wasm ${url.split('/').pop()?.slice(0, 8) ?? ''}`;
  if (!url) return `native ${fn}`;
  const file = url.split('?')[0]!.split('/').pop()!;
  return url.includes('/node_modules/') ? `lib ${url.split('/node_modules/')[1]!.split('/')[0]}` : `js ${file}`;
}

function label(f: CallFrame): string {
  return `${f.functionName || '(anonymous)'} ${(f.url ?? '').split('?')[0]!.split('/').pop() ?? ''}:${f.lineNumber ?? -1}`;
}

function top(m: Map<string, number>, n: number): Array<[string, number]> {
  return [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
}

if (process.argv[1] && /trace-summary\.ts$/.test(process.argv[1])) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: trace-summary.ts FILE [--top=N] [--inclusive=a,b]');
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const n = Number(arg('top') ?? 20);
  const inclusive = (arg('inclusive') ?? '').split(',').filter(Boolean);
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(raw) ? raw : raw.traceEvents ?? [];
  const win = arg('window')?.split(',').map(Number);
  const click = events.find((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'click');
  if (win && !click) throw new Error('--window: the trace has no click to measure from');
  const range = win && click ? ([click.ts! + win[0]! * 1000, click.ts! + win[1]! * 1000] as const) : undefined;
  for (const p of threadProfiles(events, range)) {
    let total = 0;
    const cats = new Map<string, number>();
    const fns = new Map<string, number>();
    const incl = new Map<string, number>();
    for (const [id, us] of p.selfUs) {
      const node = p.nodes.get(id);
      if (!node) continue;
      total += us;
      cats.set(category(node.callFrame), (cats.get(category(node.callFrame)) ?? 0) + us);
      fns.set(label(node.callFrame), (fns.get(label(node.callFrame)) ?? 0) + us);
      const seen = new Set<string>();
      for (let x: ProfileNode | undefined = node; x; x = x.parent === undefined ? undefined : p.nodes.get(x.parent)) {
        const fn = x.callFrame.functionName;
        if (inclusive.includes(fn) && !seen.has(fn)) {
          seen.add(fn);
          incl.set(fn, (incl.get(fn) ?? 0) + us);
        }
      }
    }
    const idle = cats.get('(idle)') ?? 0;
    if (total - idle < (range ? 20_000 : 200_000)) continue;
    console.log(`== ${p.thread} (${p.key}): ${(total / 1e6).toFixed(1)} s sampled, ${((total - idle) / 1e6).toFixed(1)} s not idle`);
    for (const [k, us] of top(cats, 12)) console.log(`   ${(us / 1e6).toFixed(2).padStart(7)}  ${k}`);
    console.log('   -- functions (self)');
    for (const [k, us] of top(fns, n)) console.log(`   ${(us / 1e6).toFixed(2).padStart(7)}  ${k}`);
    if (inclusive.length) {
      console.log('   -- inclusive');
      for (const k of inclusive) console.log(`   ${((incl.get(k) ?? 0) / 1e6).toFixed(2).padStart(7)}  ${k}`);
    }
  }
}
