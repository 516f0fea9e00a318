/**
 * Per-thread CPU of a Chromium launched with `--user-data-dir=PROFILE`, from /proc: every
 * process under the browser's root (browser, renderers, GPU, utility), every thread of each,
 * user + system ticks. `startThreadSampler(profile)` re-reads them every `everyMs` while a
 * run goes on, so a thread that exits during the run (a chunker worker terminated at its end)
 * keeps what it had used at its last sample; `stop()` gives the rows sorted by CPU.
 *
 * A thread's name is its kernel `comm` (15 characters: Chromium's "DedicatedWorker thread"
 * reads "DedicatedWorker"); the process's is its `--type=` switch (no switch: the browser),
 * with `--utility-sub-type` for a utility process. Which worker a DedicatedWorker thread is
 * (store, indexer, chunker) is not in /proc: `--trace` (trace-summary.ts) tells by its code.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second (Linux USER_HZ; 100 on every Linux this runs on). */
const HZ = 100;

export interface ThreadCpu {
  pid: number;
  tid: number;
  process: string;
  thread: string;
  /** user + system CPU over the sampled span, ms. */
  cpuMs: number;
}

interface Snapshot {
  /** `pid:tid` → ticks (user + system). */
  ticks: Map<string, number>;
  names: Map<string, { process: string; thread: string }>;
  /** Every process's own ticks (its threads, live and exited), by pid. */
  procTicks: Map<number, number>;
}

function statTicks(stat: string): { ppid: number; ticks: number } {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
}

function processType(cmdline: string): string {
  // Chromium's children rewrite their command line into one space-separated string.
  const args = cmdline.split(/[\0 ]/);
  const type = args.find((a) => a.startsWith('--type='))?.slice(7);
  if (!type) return 'browser';
  const sub = args.find((a) => a.startsWith('--utility-sub-type='))?.slice(19);
  return sub ? `${type}:${sub.split('.').pop()}` : type;
}

/** The pids of the Chromium whose root process names `--user-data-dir=<profile>`, with their types. */
function chromiumPids(profile: string): Map<number, string> {
  const parent = new Map<number, number>();
  let root: number | null = null;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      parent.set(Number(d), statTicks(readFileSync(`/proc/${d}/stat`, 'utf8')).ppid);
      if (root === null && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(`--user-data-dir=${profile}`)) root = Number(d);
    } catch {
      // gone meanwhile
    }
  }
  const out = new Map<number, string>();
  if (root === null) return out;
  for (const pid of parent.keys()) {
    for (let p: number | undefined = pid; p && p > 1; p = parent.get(p)) {
      if (p !== root) continue;
      try {
        out.set(pid, processType(readFileSync(`/proc/${pid}/cmdline`, 'utf8')));
      } catch {
        // gone meanwhile
      }
      break;
    }
  }
  return out;
}

function snapshot(profile: string): Snapshot {
  const s: Snapshot = { ticks: new Map(), names: new Map(), procTicks: new Map() };
  for (const [pid, process] of chromiumPids(profile)) {
    try {
      s.procTicks.set(pid, statTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')).ticks);
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const key = `${pid}:${tid}`;
        s.ticks.set(key, statTicks(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')).ticks);
        s.names.set(key, { process, thread: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() });
      }
    } catch {
      // exited meanwhile
    }
  }
  return s;
}

export interface ThreadSampler {
  /** Per-thread CPU since the start, sorted by CPU; `totalMs` also counts threads that exited between samples. */
  stop(): { threads: ThreadCpu[]; totalMs: number };
}

export function startThreadSampler(profile: string, everyMs = 500): ThreadSampler {
  const first = snapshot(profile);
  const last = new Map(first.ticks);
  const names = new Map(first.names);
  const sample = () => {
    const s = snapshot(profile);
    for (const [k, t] of s.ticks) last.set(k, t);
    for (const [k, n] of s.names) names.set(k, n);
    return s;
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const end = sample();
      const threads: ThreadCpu[] = [];
      for (const [key, t] of last) {
        const [pid, tid] = key.split(':').map(Number) as [number, number];
        const n = names.get(key)!;
        const ms = ((t - (first.ticks.get(key) ?? 0)) * 1000) / HZ;
        if (ms > 0) threads.push({ pid, tid, process: n.process, thread: n.thread, cpuMs: ms });
      }
      threads.sort((a, b) => b.cpuMs - a.cpuMs);
      let totalTicks = 0;
      for (const [pid, t] of end.procTicks) totalTicks += t - (first.procTicks.get(pid) ?? 0);
      return { threads, totalMs: (totalTicks * 1000) / HZ };
    },
  };
}

/** One line per thread over `minMs` (the rest summed), for a bench log. */
export function threadCpuLines(r: { threads: ThreadCpu[]; totalMs: number }, minMs = 200): string[] {
  const shown = r.threads.filter((t) => t.cpuMs >= minMs);
  const rest = r.threads.filter((t) => t.cpuMs < minMs).reduce((a, t) => a + t.cpuMs, 0);
  return [
    ...shown.map((t) => `${(t.cpuMs / 1000).toFixed(2).padStart(8)} s  ${t.process} ${t.pid} / ${t.thread} ${t.tid}`),
    `${(rest / 1000).toFixed(2).padStart(8)} s  ${r.threads.length - shown.length} other threads`,
    `${(r.totalMs / 1000).toFixed(2).padStart(8)} s  all processes (exited threads included)`,
  ];
}
