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
import { readFileSizes, readFileTexts, type Store } from '../../src/core/store/store.ts';
import { Searcher } from '../../src/core/search/search.ts';
import { rankGroups } from '../../src/core/search/results.ts';
import { ORDER_FEATURES, movable, orderFeatures, ordersList, questionPairs } from '../../src/core/search/order.ts';
import { LEARNED_ORDER } from '../../src/core/config.ts';
import { isMain, parseArgs } from '../util.ts';
import { processQuery, fileNameTerms } from '../../src/core/search/query.ts';
import { namesWord } from '../../src/core/search/signals.ts';
import { splitIdentifier } from '../../src/core/text/identifiers.ts';
import { lightStem } from '../../src/core/text/word-forms.ts';
import { ensureIndex, sweepGroups } from './sweep.ts';

/** Candidate features measured before they go into order.ts (`--extra`): appended to each row. */
const EXTRA = ['x_names_share', 'x_text_idf_share', 'x_text_share'];

/** Per listed file: the share of the question's terms its definitions' names name, and of its text's words (plain and idf-weighted). */
async function extraFeatures(store: Store, question: string, paths: readonly string[], df: Map<string, number>, total: number): Promise<number[][]> {
  const pq = processQuery(question);
  const terms = [...new Set(fileNameTerms(pq).filter((t) => t.length >= 3))];
  const stems = terms.map((t) => lightStem(t));
  const texts = await store.getFileTexts([...new Set(paths)]);
  const rowsOf = new Map<string, Array<{ symbol: string | null; parent: string | null }>>();
  for (const p of new Set(paths)) rowsOf.set(p, await store.db.all<{ symbol: string | null; parent: string | null }>('SELECT symbol, parent FROM chunks WHERE path = ?', [p]));
  const idf = (t: string) => Math.log(1 + total / (1 + (df.get(t) ?? 0)));
  const idfSum = terms.reduce((a, t) => a + idf(t), 0) || 1;
  return paths.map((p) => {
    if (!terms.length) return [0, 0, 0];
    const parts = new Set<string>();
    for (const r of rowsOf.get(p) ?? []) for (const n of [r.symbol, r.parent]) if (n) for (const x of splitIdentifier(n)) parts.add(x.toLowerCase());
    const named = terms.filter((t, i) => [...parts].some((w) => namesWord(w, t, stems[i])));
    const text = (texts.get(p) ?? '').toLowerCase();
    // ASCII letters and digits of the stem at a word's start (a stem with none, e.g. a CJK word, counts as not found).
    const inText = terms.filter((_, i) => {
      const ascii = stems[i].replace(/[^a-z0-9]/g, '');
      return ascii.length > 0 && new RegExp(`\\b${ascii}`).test(text);
    });
    return [named.length / terms.length, inText.reduce((a, t) => a + idf(t), 0) / idfSum, inText.length / terms.length];
  });
}
async function main(): Promise<void> {
  const { flags } = parseArgs(process.argv.slice(2), ['extra']);
  const out = flags.get('out');
  if (typeof out !== 'string') throw new Error('--out FILE.jsonl is required');
  const groups = sweepGroups(flags);
  const limit = Number(flags.get('limit') ?? 10);
  const extra = flags.has('extra');
  const depth = LEARNED_ORDER.depth;
  LEARNED_ORDER.depth = 0;
  const lines: string[] = [];
  try {
    for (const g of groups.values()) {
      ensureIndex(g);
      const store = await openNodeStore(g.db, { existing: true });
      const searcher = new Searcher(store);
      // Document frequencies of the questions' terms in this index (pieces holding the stem as a prefix), for `--extra`.
      const df = new Map<string, number>();
      const total = extra ? ((await store.db.all<{ n: number }>('SELECT count(*) AS n FROM chunks'))[0]?.n ?? 1) : 1;
      if (extra) {
        for (const q of g.qs) for (const t of fileNameTerms(processQuery(q.question))) {
          if (df.has(t) || t.length < 3) continue;
          const stem = lightStem(t).replace(/"/g, '');
          df.set(t, (await store.db.all<{ n: number }>('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?', [`"${stem}"*`]))[0]?.n ?? 0);
        }
      }
      for (const q of g.qs) {
        const res = await searcher.search(q.question, { mode: 'bm25', limit });
        const legs = res.legs;
        const list = rankGroups(legs, res.weights, limit);
        const applies = ordersList(legs);
        // The sizes of the listed files (search.ts reads those of the first LEARNED_ORDER.depth: 0 here).
        const paths = list.map((x) => legs.fileOf?.[x.id] ?? '');
        legs.fileSizeOf = await readFileSizes(store.db, paths);
        legs.fileTextOf = await readFileTexts(store.db, paths);
        legs.questionPairs = questionPairs(q.question);
        let x = orderFeatures(list, legs);
        if (extra) {
          const more = await extraFeatures(store, q.question, paths, df, total);
          x = x.map((row, i) => [...row, ...more[i]]);
        }
        lines.push(JSON.stringify({
          set: q.set, repo: q.repo, id: q.id, question: q.question, answers: q.answers, applies,
          paths, movable: movable(list, legs), x,
        }));
      }
      await store.close();
    }
  } finally {
    LEARNED_ORDER.depth = depth;
  }
  const features = extra ? [...ORDER_FEATURES, ...EXTRA] : ORDER_FEATURES;
  writeFileSync(out, `${JSON.stringify({ features })}\n${lines.join('\n')}\n`);
  console.log(`${lines.length} questions, ${features.length} features → ${out}`);
}

if (isMain(import.meta.url)) await main();
