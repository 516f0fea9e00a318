/**
 * Dumps the learned order's features (src/core/search/order.ts) for every question of the
 * repository evals — the repos eval's commit subjects and hand-written questions, and every
 * fresh-questions set — in the pipeline's own order (LEARNED_ORDER.depth 0), keyword mode,
 * limit 10, each list as `sift search --json` would rank it before the learned order.
 * bench/eval/learn-order.py fits the weights on this file.
 *
 * Indexes as bench/eval/sweep.ts finds them (built first where missing).
 *
 * Usage: tsx bench/eval/order-features.ts --out FILE.jsonl [--fresh-root DIR] [--sets repos,fresh]
 *   [--repos-dbdir DIR] [--fresh-dbdir DIR] [--limit 10]
 * `--limit N`: lists of N groups (to measure an order deeper than the ten the product orders).
 */
import { writeFileSync } from 'node:fs';
import { openNodeStore } from '../../src/core/store/open-node.ts';
import { readFileSizes } from '../../src/core/store/store.ts';
import { Searcher } from '../../src/core/search/search.ts';
import { rankGroups } from '../../src/core/search/results.ts';
import { ORDER_FEATURES, movable, orderFeatures, ordersList } from '../../src/core/search/order.ts';
import { LEARNED_ORDER } from '../../src/core/config.ts';
import { isMain, parseArgs } from '../util.ts';
import { ensureIndex, sweepGroups } from './sweep.ts';

async function main(): Promise<void> {
  const { flags } = parseArgs(process.argv.slice(2), []);
  const out = flags.get('out');
  if (typeof out !== 'string') throw new Error('--out FILE.jsonl is required');
  const groups = sweepGroups(flags);
  const limit = Number(flags.get('limit') ?? 10);
  const depth = LEARNED_ORDER.depth;
  LEARNED_ORDER.depth = 0;
  const lines: string[] = [];
  try {
    for (const g of groups.values()) {
      ensureIndex(g);
      const store = await openNodeStore(g.db, { existing: true });
      const searcher = new Searcher(store);
      for (const q of g.qs) {
        const res = await searcher.search(q.question, { mode: 'bm25', limit });
        const legs = res.legs;
        const list = rankGroups(legs, res.weights, limit);
        const applies = ordersList(legs);
        // The sizes of the listed files (search.ts reads those of the first LEARNED_ORDER.depth: 0 here).
        legs.fileSizeOf = await readFileSizes(store.db, list.map((x) => legs.fileOf?.[x.id] ?? ''));
        lines.push(JSON.stringify({
          set: q.set, repo: q.repo, id: q.id, question: q.question, answers: q.answers, applies,
          paths: list.map((x) => legs.fileOf?.[x.id] ?? ''), movable: movable(list, legs), x: orderFeatures(list, legs),
        }));
      }
      await store.close();
    }
  } finally {
    LEARNED_ORDER.depth = depth;
  }
  writeFileSync(out, `${JSON.stringify({ features: ORDER_FEATURES })}\n${lines.join('\n')}\n`);
  console.log(`${lines.length} questions, ${ORDER_FEATURES.length} features → ${out}`);
}

if (isMain(import.meta.url)) await main();
