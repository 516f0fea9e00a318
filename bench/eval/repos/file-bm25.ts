/**
 * What BM25 over whole files (one FTS5 document per file) would buy the repository eval (issue 35,
 * session 10, filelevel): for each repository's index (bench/tmp/repos-eval/now, built by
 * repos.ts), a temporary FTS5 table with one row per file — its path words, the names its
 * pieces define, its whole text and its identifier parts, as chunks_fts writes them
 * (text/identifiers.ts) — is queried with each question's own MATCH (query.ts ftsQuery, the
 * same stems and expansions) and column weights (config.ts BM25_COLUMN_WEIGHTS). Reported per
 * repository: NDCG@10 of Sift (keyword mode, in process), of the file table alone (× the
 * file's kind factor for the question's intent), and of Sift's files re-ranked by reciprocal rank
 * fusion with the file table's (weight `--w`; `siftFiles`: Sift's files alone, each once, as the fusion lists them; `siftFill`: those, then Sift's next files from a list of 30); and where the file table ranks the answers of
 * Sift's misses. Nothing is written to the index (a TEMP table of the connection).
 *
 * Usage: npx tsx bench/eval/repos/file-bm25.ts [repo …] [--w 0.25,0.5,1] [--cols names,path_words,tokens] [--prose-only] [--keep-first] [--reorder-only] [--source pieces] [--out FILE]
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openNodeStore } from '../../../src/core/store/open-node.ts';
import { buildFileTable, fileLevelScores, readFileRanges } from './file-table.ts';
import { Searcher } from '../../../src/core/search/search.ts';
import { processQuery, readsAsDocComment } from '../../../src/core/search/query.ts';
import { intentOfQuery } from '../../../src/core/text/file-kind.ts';
import { kindFactor } from '../../../src/core/search/signals.ts';
import { BM25_COLUMN_WEIGHTS as W } from '../../../src/core/config.ts';
import { isMain, parseArgs } from '../../util.ts';
import { readManifest } from './corpus.ts';
import { COMMITS_FILE, EVAL_TMP, HAND_FILE, readQuestions } from '../repos.ts';
import { mean, ndcg } from './score.ts';
import { probeRows } from '../../../src/core/search/bm25.ts';

const RRF_K = 60;

const FILE_TOP = 20;
/** `--cols`: the file table's columns a question's MATCH may hit (all four by default). */
const ALL_COLS = ['names', 'path_words', 'content', 'tokens'];

function fuse(sift: readonly string[], files: readonly string[], w: number): string[] {
  const score = new Map<string, number>();
  const add = (list: readonly string[], weight: number) => {
    const seen = new Set<string>();
    list.forEach((p, i) => {
      if (seen.has(p)) return;
      seen.add(p);
      score.set(p, (score.get(p) ?? 0) + weight / (RRF_K + i + 1));
    });
  };
  add(sift, 1);
  add(files, w);
  return [...score].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([p]) => p);
}

async function main(): Promise<void> {
  const { positional, flags } = parseArgs(process.argv.slice(2), ['prose-only', 'keep-first', 'reorder-only']);
  const proseOnly = flags.has('prose-only');
  const keepFirst = flags.has('keep-first');
  const reorderOnly = flags.has('reorder-only');
  // --source pieces: the files ranked by the query-time leg over the pieces' doclists (file-table.ts fileLevelScores) instead of the table.
  const fromPieces = flags.get('source') === 'pieces';
  const cols = String(flags.get('cols') ?? ALL_COLS.join(',')).split(',');
  const ws = String(flags.get('w') ?? '0.25,0.5,1').split(',').map(Number);
  const specs = readManifest().filter((s) => positional.includes(s.name));
  const questions = [...readQuestions(COMMITS_FILE), ...readQuestions(HAND_FILE)];
  const perRepo: Record<string, Record<string, number>> = {};
  const perQuestion: unknown[] = [];
  const reach = { misses: 0, inTop10: 0, inTop20: 0 };
  /** The file table's build time and FTS bytes next to chunks_fts's, and query time next to Sift's search. */
  const cost = { buildMs: 0, fileBytes: 0, chunkBytes: 0, searchMs: 0, fileMs: 0 };
  for (const spec of specs) {
    const db = join(EVAL_TMP, 'now', `${spec.name}.db`);
    if (!existsSync(db)) continue;
    const qs = questions.filter((q) => q.repo === spec.name);
    const store = await openNodeStore(db, { existing: true });
    try {
      const q = store.db;
      let t0 = performance.now();
      const paths = await buildFileTable(q);
      cost.buildMs += performance.now() - t0;
      const size = async (table: string) => (await q.get<{ n: number | null }>(`SELECT sum(length(block)) AS n FROM ${table}`))?.n ?? 0;
      cost.fileBytes += await size('temp.files_fts_data');
      cost.chunkBytes += await size('chunks_fts_data');
      const searcher = new Searcher(store);
      const sums: Record<string, number[]> = { sift: [], siftFiles: [], siftFill: [], file: [] };
      for (const w of ws) sums[`fused${w}`] = [];
      for (const question of qs) {
        const pq = processQuery(question.question);
        t0 = performance.now();
        const res = await searcher.search(question.question, { mode: 'bm25', limit: 10 });
        cost.searchMs += performance.now() - t0;
        t0 = performance.now();
        const sift = res.results.map((r) => r.path);
        let ranked: string[] = [];
        // --prose-only: not for a question naming an identifier or reading as a doc comment (as the leg).
        if (pq.ftsQuery && !(proseOnly && (pq.identifiers.length > 0 || readsAsDocComment(question.question)))) {
          const intent = intentOfQuery(question.question, pq.isIdentifierLike || !!pq.declared || readsAsDocComment(question.question));
          let rows: Array<{ id: number; r: number }>;
          if (fromPieces) {
            const ranges = await readFileRanges(q);
            const fl = await fileLevelScores(q, pq.ftsGroups, ranges, probeRows(q));
            const index = new Map(paths.map((p, i) => [p, i + 1]));
            rows = [...fl.scores].map(([f, v]) => ({ id: index.get(ranges.paths[f]) ?? 0, r: -v })).filter((r) => r.id > 0).sort((a, b) => a.r - b.r);
          } else rows = await q.all<{ id: number; r: number }>(`SELECT rowid AS id, bm25(files_fts, 0, ${W.names}, ${W.pathWords}, ${W.content}, ${W.tokens}) AS r FROM temp.files_fts WHERE files_fts MATCH ? ORDER BY r LIMIT ?`, [cols.length === ALL_COLS.length ? pq.ftsQuery : `{${cols.join(' ')}} : (${pq.ftsQuery})`, FILE_TOP * 3]);
          ranked = rows.map((r) => ({ p: paths[r.id - 1], s: -r.r * kindFactor(paths[r.id - 1], '', intent) }))
            .sort((a, b) => b.s - a.s).slice(0, FILE_TOP).map((x) => x.p);
          cost.fileMs += performance.now() - t0;
        }
        const s = ndcg(sift, question.answers);
        sums.sift.push(s);
        sums.siftFiles.push(ndcg([...new Set(sift)], question.answers));
        // Sift's files each once, the slots repeats took filled from its own longer list (limit 30).
        const longer = (await searcher.search(question.question, { mode: 'bm25', limit: 30 })).results.map((r) => r.path);
        sums.siftFill.push(ndcg([...new Set([...new Set(sift), ...longer])], question.answers));
        sums.file.push(ndcg(ranked, question.answers));
        for (const w of ws) {
          // --reorder-only: the table only reorders Sift's files (none of its own enter).
          const fused = reorderOnly ? fuse(sift, ranked, w).filter((p) => sift.includes(p)) : fuse(sift, ranked, w);
          // --keep-first: Sift's first file stays first; the rest fuse.
          sums[`fused${w}`].push(ndcg(keepFirst && sift.length ? [sift[0], ...fused.filter((p) => p !== sift[0])] : fused, question.answers));
        }
        if (s === 0) {
          reach.misses++;
          const at = Math.min(...question.answers.map((a) => ranked.indexOf(a)).filter((i) => i >= 0));
          if (at < 10) reach.inTop10++;
          else if (at < 20) reach.inTop20++;
        }
        perQuestion.push({ id: question.id, question: question.question, category: question.category, class: question.class, ...Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v[v.length - 1]])), siftTop: [...new Set(sift)].slice(0, 5), fileTop: ranked.slice(0, 5), answers: question.answers });
      }
      perRepo[spec.name] = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, mean(v)]));
      console.log(`${spec.name.padEnd(18)} ${Object.entries(perRepo[spec.name]).map(([k, v]) => `${k} ${v.toFixed(3)}`).join('  ')}`);
    } finally {
      await store.close();
    }
  }
  const keys = Object.keys(Object.values(perRepo)[0] ?? {});
  console.log(`\nmean of per-repo NDCG@10 (${Object.keys(perRepo).length} repos): ${keys.map((k) => `${k} ${mean(Object.values(perRepo).map((r) => r[k])).toFixed(4)}`).join('  ')}`);
  console.log(`Sift misses (NDCG 0): ${reach.misses}; answer in the file table's top 10: ${reach.inTop10}, 11-20: ${reach.inTop20}`);
  console.log(`cost: file table build ${(cost.buildMs / 1000).toFixed(1)} s (JS tokens + FTS5 insert, in memory); FTS bytes files_fts ${(cost.fileBytes / 1e6).toFixed(1)} MB vs chunks_fts ${(cost.chunkBytes / 1e6).toFixed(1)} MB; query: Sift search ${(cost.searchMs / 1000).toFixed(1)} s, file ranking ${(cost.fileMs / 1000).toFixed(1)} s`);
  const out = flags.get('out');
  if (typeof out === 'string') writeFileSync(out, JSON.stringify({ perRepo, questions: perQuestion }, null, 1) + '\n');
}

if (isMain(import.meta.url)) await main();
