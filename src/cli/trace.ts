/**
 * SIFT_TRACE=1: one line on stderr per phase of a command — wall ms since the process started,
 * the process's CPU ms so far (every thread) and, where Linux tells it, the main thread's own
 * (its run time from /proc/thread-self/schedstat, ns) — so where a short command's time goes can
 * be read without a profiler (docs/performance.md, "Where the time goes"). The main thread's
 * time is what a small command's wall is made of on an idle machine; the rest of the CPU is V8's
 * helper threads (optimizing compiles, GC) and worker threads. Off, it costs one comparison per call.
 */
import { readFileSync } from 'node:fs';

const ON = process.env.SIFT_TRACE === '1';

/** The calling thread's CPU ms so far (Linux), or null. */
function threadCpuMs(): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

/** Print `phase` with the time now, or with `at` (a sample taken earlier, e.g. by bin/sift before the bundle loaded). */
export function trace(phase: string, at?: { ms: number; cpu: NodeJS.CpuUsage }): void {
  if (!ON) return;
  const ms = at?.ms ?? performance.now();
  const cpu = at?.cpu ?? process.cpuUsage();
  const own = at ? null : threadCpuMs();
  process.stderr.write(`sift-trace ${ms.toFixed(1).padStart(8)} ms  cpu ${((cpu.user + cpu.system) / 1000).toFixed(0).padStart(5)} ms  ${own === null ? '' : `main ${own.toFixed(0).padStart(5)} ms  `}${phase}\n`);
}
