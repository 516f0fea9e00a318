/**
 * Runs the CodeSearchNet-style eval: for each set built by build-set.ts, indexes the
 * stripped tree with `bin/sift index --no-embed` (plus embeddings when a vector/hybrid
 * mode is asked for), sends all queries through `bin/sift search --stdin --json`, and
 * scores MRR@10 / recall@10 with the hit rule in score.ts: a result's `more` pieces count as its
 * lines, as in the held-out checks; the older rule (the result's own lines only) is reported
 * next to it (`ownLines`). The seed-style reference
 * (seed-baseline.ts, native sqlite3) is scored on the same tree with the same rule.
 * Writes bench/results/eval-<date>.{md,json} (per-query ranks included in the JSON).
 *
 * `--base DIR`: another checkout of Sift (a worktree of an older commit with node_modules
 * symlinked and its CLI built) indexes the same tree with its own bin/sift and answers the same
 * queries, scored next to this one in the same run. `--no-seed` skips the seed reference.
 *
 * Usage: tsx bench/eval/run-eval.ts [kernel|js|go|python|rust|go-alldocs|python-alldocs|… ...] [--modes bm25,hybrid] [--model DIR] [--no-sift] [--base DIR] [--no-seed] [--tag T]
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { siftIndex, siftSearchBatch, toSpans } from '../sift.ts';
import { RESULTS_DIR, fmt, isMain, machineInfo, machineMarkdown, parseArgs, siftAvailable, type MachineInfo } from '../util.ts';
import { EVAL_DIR, SETS, buildSet, readQueries, specFor } from './build-set.ts';
import { EVAL_K, scoreQuery, summarize, type EvalSummary } from './score.ts';
import { buildWindowsDb, searchWindows } from './seed-baseline.ts';

export interface SystemScore extends EvalSummary {
  system: string;
  /** Index build wall time (s) and search wall time for all queries (s). */
  indexSeconds: number;
  searchSeconds: number;
  ranks: Array<number | null>;
  /** The same results scored on each result's own lines only (score.ts HitRule 'ownLines'). */
  ownLines?: EvalSummary & { ranks: Array<number | null> };
}

export interface SetResult {
  set: string;
  queries: number;
  systems: SystemScore[];
  notes: string[];
}

export interface EvalReport {
  machine: MachineInfo;
  k: number;
  sets: SetResult[];
}

export function evalSet(name: string, o: { modes: string[]; model?: string; sift: boolean; base?: string; seed?: boolean }): SetResult {
  const dir = join(EVAL_DIR, name);
  if (!existsSync(join(dir, 'queries.jsonl'))) {
    const found = specFor(name);
    if (!found) throw new Error(`unknown eval set ${name}`);
    buildSet(found.spec, undefined, undefined, found.allDocs);
  }
  const tree = join(dir, 'tree');
  const queries = readQueries(name);
  const targets = queries.map((q) => ({ path: q.path, start: q.start_line, end: q.end_line }));
  const texts = queries.map((q) => q.query);
  const systems: SystemScore[] = [];
  const notes: string[] = [];

  if (o.seed !== false) {
    const win = buildWindowsDb(tree, join(dir, 'seed-windows.db'));
    const t0 = performance.now();
    const seedResults = searchWindows(win.db, texts, EVAL_K);
    const seedScores = seedResults.map((r, i) => scoreQuery(r, targets[i]));
    systems.push({
      system: 'seed BM25 (sqlite3 FTS5, 40-line windows, prefix-OR)', ...summarize(seedScores),
      indexSeconds: win.buildMs / 1000, searchSeconds: (performance.now() - t0) / 1000,
      ranks: seedScores.map((s) => s.firstHitRank),
    });
    notes.push(`seed index: ${win.files} files, ${win.windows} windows`);
  }

  if (o.sift && siftAvailable()) {
    // This checkout, then the base checkout's own CLI on its own index of the same tree.
    const sides: Array<{ label: string; bin?: string; db: string }> = [{ label: 'sift', db: join(dir, 'sift.db') }];
    if (o.base) sides.push({ label: 'base sift', bin: join(resolve(o.base), 'bin', 'sift'), db: join(dir, 'sift-base.db') });
    const wantsVectors = o.modes.some((m) => m !== 'bm25');
    const extra = wantsVectors ? (o.model ? ['--model', o.model] : []) : ['--no-embed'];
    for (const side of sides) {
      const idx = siftIndex(tree, side.db, extra, side.bin);
      notes.push(`${side.label} index: ${idx.value.files.total} files, ${idx.value.chunks.total} chunks, ${fmt(idx.wallMs / 1000)} s`);
      for (const mode of o.modes) {
        const res = siftSearchBatch(tree, side.db, texts, { mode, limit: EVAL_K, extra: o.model ? ['--model', o.model] : [], bin: side.bin });
        const spans = res.value.map((r) => toSpans(r));
        const scores = spans.map((r, i) => scoreQuery(r, targets[i]));
        const own = spans.map((r, i) => scoreQuery(r, targets[i], EVAL_K, 'ownLines'));
        const strategies = new Set(res.value.map((r) => r.strategy).filter(Boolean));
        systems.push({
          system: `${side.label} --mode ${mode}${strategies.size ? ` (${[...strategies].join(',')})` : ''}`, ...summarize(scores),
          indexSeconds: idx.wallMs / 1000, searchSeconds: res.wallMs / 1000, ranks: scores.map((s) => s.firstHitRank),
          ownLines: { ...summarize(own), ranks: own.map((s) => s.firstHitRank) },
        });
      }
    }
  } else if (o.sift) {
    notes.push('bin/sift not found: Sift not evaluated');
  }
  return { set: name, queries: queries.length, systems, notes };
}

export function evalMarkdown(r: EvalReport): string {
  const rows = ['| set | system | queries | MRR@10 | recall@10 | top-1 | own lines: MRR@10 / recall@10 | index s | search s |', '|---|---|---|---|---|---|---|---|---|'];
  for (const s of r.sets) {
    for (const x of s.systems) {
      const own = x.ownLines ? `${x.ownLines.mrr.toFixed(3)} / ${x.ownLines.recall.toFixed(3)}` : '';
      rows.push(`| ${s.set} | ${x.system} | ${x.queries} | ${x.mrr.toFixed(3)} | ${x.recall.toFixed(3)} | ${x.top1.toFixed(3)} | ${own} | ${fmt(x.indexSeconds)} | ${fmt(x.searchSeconds, 2)} |`);
    }
  }
  const notes = r.sets.flatMap((s) => s.notes.map((n) => `- ${s.set}: ${n}`));
  return [
    '# Sift search-quality eval (CodeSearchNet-style)', '', machineMarkdown(r.machine), '',
    'Query = first sentence of a real doc comment; the comment is blanked in the indexed copy; a hit is a',
    'result with a piece of ≤ 150 lines on the right file overlapping ≥ half the function or ≥ half the piece, or',
    'whose pieces together hold half the function; a result\'s pieces are its own lines and its `more` pieces',
    '(the held-out rule). "own lines" scores the result\'s own lines only (the older rule).', '',
    ...rows, '', ...notes, '',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const { flags, positional } = parseArgs(process.argv.slice(2), ['no-sift', 'no-seed']);
  const base = typeof flags.get('base') === 'string' ? String(flags.get('base')) : undefined;
  const modes = String(flags.get('modes') ?? 'bm25').split(',').filter(Boolean);
  const model = typeof flags.get('model') === 'string' ? String(flags.get('model')) : undefined;
  const names = positional.length ? positional : SETS.map((s) => s.name);
  const report: EvalReport = { machine: machineInfo(), k: EVAL_K, sets: [] };
  for (const name of names) {
    const r = evalSet(name, { modes, model, sift: !flags.has('no-sift'), base, seed: !flags.has('no-seed') });
    report.sets.push(r);
    for (const x of r.systems) {
      const own = x.ownLines ? `  (own lines: ${x.ownLines.mrr.toFixed(3)} / ${x.ownLines.recall.toFixed(3)})` : '';
      console.log(`${name.padEnd(7)} ${x.system.padEnd(58)} MRR@10 ${x.mrr.toFixed(3)}  recall@10 ${x.recall.toFixed(3)}${own}`);
    }
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const all = SETS.every((s) => names.includes(s.name));
  const tag = typeof flags.get('tag') === 'string' ? `-${String(flags.get('tag'))}` : '';
  const stamp = report.machine.date.slice(0, 10) + (all ? '' : `-${names.join('-')}`) + tag;
  writeFileSync(join(RESULTS_DIR, `eval-${stamp}.json`), JSON.stringify(report, null, 1) + '\n');
  writeFileSync(join(RESULTS_DIR, `eval-${stamp}.md`), evalMarkdown(report));
  console.log(`wrote ${join(RESULTS_DIR, `eval-${stamp}.md`)}`);
}
