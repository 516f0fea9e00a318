/**
 * Fast in-process ranking loop for BM25 tuning: opens an eval index (the one run-eval.ts
 * built, or bench/tmp/tune-<set>[-suffix].db with --db-suffix / --reindex) through the
 * library (no CLI process), runs every (300/n)th query of each set through Searcher in
 * bm25 mode and prints MRR@10 / recall@10 (same hit rule as run-eval). Ranking code is
 * imported live, so a query-side change is measured without re-indexing. --n 150 takes the
 * even-numbered half: tune on it, confirm on --n 300. `--fails` lists misses with the top
 * results, `--seed` scores the seed baseline on the same subset, `--w b,name,cov,exact`
 * overrides RERANK_WEIGHTS for this run, `--set k=v,...` other knobs as tune-repos.ts does
 * (`--set maxPass=0,fileCoverWeight=0`).
 *
 * Usage: tsx bench/eval/tune.ts [kernel js go] [--n 150] [--db-suffix X] [--reindex] [--fails] [--seed] [--w 1,1,0,1] [--set k=v,...]
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openNodeStore } from '../../src/core/store/open-node.ts';
import { Searcher } from '../../src/core/search/search.ts';
import { RERANK_WEIGHTS } from '../../src/core/search/rerank.ts';
import { siftIndex } from '../sift.ts';
import { isMain, parseArgs, TMP_DIR } from '../util.ts';
import { applySet } from './tune-repos.ts';
import { EVAL_DIR, readQueries } from './build-set.ts';
import { EVAL_K, scoreQuery, summarize } from './score.ts';
import { searchWindows } from './seed-baseline.ts';

export async function tuneSet(name: string, o: { n: number; suffix: string; reindex: boolean; fails: boolean; seed?: boolean }): Promise<{ mrr: number; recall: number; ms: number }> {
  const dir = join(EVAL_DIR, name);
  // The eval's own index (run-eval.ts builds it), or a separate one under bench/tmp/.
  const db = o.suffix || o.reindex ? join(TMP_DIR, `tune-${name}${o.suffix}.db`) : join(dir, 'sift.db');
  if (o.reindex) {
    rmSync(db, { force: true }); // a chunker change leaves files unchanged: index from scratch
    const r = siftIndex(join(dir, 'tree'), db);
    console.log(`${name}: indexed ${r.value.chunks.total} chunks in ${(r.wallMs / 1000).toFixed(1)} s`);
  } else if (!existsSync(db)) {
    throw new Error(`${db} missing: run bench/eval/run-eval.ts ${name} first, or pass --reindex`);
  }
  const all = readQueries(name);
  // A fixed, spread-out subset: every (300/n)th query.
  const step = Math.max(1, Math.floor(all.length / o.n));
  const qs = all.filter((_, i) => i % step === 0).slice(0, o.n);
  const targets = qs.map((q) => ({ path: q.path, start: q.start_line, end: q.end_line }));
  if (o.seed) {
    const seed = searchWindows(join(dir, 'seed-windows.db'), qs.map((q) => q.query), EVAL_K);
    const s = summarize(seed.map((r, i) => scoreQuery(r, targets[i])));
    console.log(`${name.padEnd(7)} seed   MRR@10 ${s.mrr.toFixed(3)}  recall@10 ${s.recall.toFixed(3)}`);
  }
  const store = await openNodeStore(db);
  const searcher = new Searcher(store);
  const t0 = performance.now();
  const scores = [];
  for (const q of qs) {
    const res = await searcher.search(q.query, { mode: 'bm25', limit: EVAL_K });
    const spans = res.results.map((r) => ({ path: r.path, start: r.startLine, end: r.endLine }));
    const s = scoreQuery(spans, { path: q.path, start: q.start_line, end: q.end_line });
    scores.push(s);
    if (o.fails && s.firstHitRank !== 1) {
      console.log(`\n[${s.firstHitRank ?? '-'}] ${q.query}\n    want ${q.path}:${q.start_line}-${q.end_line} ${q.symbol}`);
      for (const r of res.results.slice(0, 3)) console.log(`    got  ${r.path}:${r.startLine}-${r.endLine} ${r.symbol ?? `(${r.chunkType})`} ${r.bm25Score?.toFixed(2)}`);
    }
  }
  const ms = performance.now() - t0;
  await store.close();
  const sum = summarize(scores);
  return { mrr: sum.mrr, recall: sum.recall, ms };
}

if (isMain(import.meta.url)) {
  const { flags, positional } = parseArgs(process.argv.slice(2), ['reindex', 'fails', 'seed']);
  const names = positional.length ? positional : ['kernel', 'js', 'go'];
  const n = Number(flags.get('n') ?? 150);
  const suffix = typeof flags.get('db-suffix') === 'string' ? `-${String(flags.get('db-suffix'))}` : '';
  const out: string[] = [];
  if (typeof flags.get('set') === 'string') applySet(String(flags.get('set')));
  if (typeof flags.get('w') === 'string') {
    const [b, nm, cov, ex] = String(flags.get('w')).split(',').map(Number);
    Object.assign(RERANK_WEIGHTS, { bm25: b, name: nm, coverage: cov, exact: ex });
  }
  for (const name of names) {
    const r = await tuneSet(name, { n, suffix, reindex: flags.has('reindex'), fails: flags.has('fails'), seed: flags.has('seed') });
    out.push(`${name.padEnd(7)} MRR@10 ${r.mrr.toFixed(3)}  recall@10 ${r.recall.toFixed(3)}  ${(r.ms / 1000).toFixed(1)} s`);
  }
  console.log(out.join('\n'));
}
