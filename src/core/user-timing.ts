/**
 * User Timing spans for the app's own phases (store open, tree-sitter load, first batch,
 * search): `performance.measure('sift:<name>')`, in whichever thread runs the phase. They
 * show in DevTools' Performance panel and in a trace (bench/app-pick.ts reads them to break
 * pick-to-results down). The entry is cleared at once: the trace has it, and a long session
 * must not grow the timeline buffer by one entry per search.
 */
export function measureSince(name: string, start: number): void {
  const p = globalThis.performance;
  if (!p?.measure) return;
  try {
    p.measure(`sift:${name}`, { start, end: p.now() });
    p.clearMeasures(`sift:${name}`);
  } catch {
    // An environment without User Timing L3 options: nothing to record.
  }
}
