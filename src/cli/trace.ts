/**
 * SIFT_TRACE=1: one line on stderr per phase of a command — wall ms since the process started
 * and the process's CPU ms so far (every thread) — so where a short command's time goes can be
 * read without a profiler (docs/performance.md, "Where the time goes"). Off, it costs one
 * comparison per call.
 */
const ON = process.env.SIFT_TRACE === '1';

/** Print `phase` with the time now, or with `at` (a sample taken earlier, e.g. by bin/sift before the bundle loaded). */
export function trace(phase: string, at?: { ms: number; cpu: NodeJS.CpuUsage }): void {
  if (!ON) return;
  const ms = at?.ms ?? performance.now();
  const cpu = at?.cpu ?? process.cpuUsage();
  process.stderr.write(`sift-trace ${ms.toFixed(1).padStart(8)} ms  cpu ${((cpu.user + cpu.system) / 1000).toFixed(0).padStart(5)} ms  ${phase}\n`);
}
