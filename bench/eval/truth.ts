/**
 * Truthfulness of search results on real trees (issue 35's checks: 0 wrong lines, 0 duplicates):
 * for every question of a fresh set (bench/results/*-fresh-questions-*.jsonl), and a 3-word form
 * of each that is not a symbol, `Searcher.search(q, { mode: 'bm25', limit: 10 })` over the set's
 * index; every result and `more` piece must be the file's lines start..end as read from disk
 * (each line without its `\r`; a UTF-8 byte-order mark aside; a piece of one long line a part of
 * it), no piece twice, and no line of a file shown twice in one list.
 *
 * Usage: npx tsx bench/eval/truth.ts QUESTIONS.jsonl CHECKOUTS_DIR DB_DIR   (DB_DIR/<repo>.db, as tune-repos.ts builds)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openNodeStore } from '../../src/core/store/open-node.ts';
import { Searcher } from '../../src/core/search/search.ts';
const [qfile, root, dbdir] = process.argv.slice(2);
const qs = readFileSync(qfile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const repos = [...new Set(qs.map((q) => q.repo))];
let n = 0, bad = 0, dup = 0, overlap = 0;
for (const repo of repos) {
  const store = await openNodeStore(join(dbdir, `${repo}.db`), { existing: true });
  const s = new Searcher(store);
  const cache = new Map<string, string[]>();
  const lines = (p: string) => { if (!cache.has(p)) cache.set(p, readFileSync(join(root, repo, p), 'utf8').split('\n').map((l) => l.replace(/\r$/, ''))); return cache.get(p)!; };
  for (const q of qs.filter((x) => x.repo === repo)) {
    for (const query of [q.question, ...(q.category === 'symbol' ? [] : [q.question.split(' ').slice(0, 3).join(' ')])]) {
      const res = await s.search(query, { mode: 'bm25', limit: 10 });
      const seen = new Set<number>();
      const spans: Array<[string, number, number]> = [];
      for (const r of res.results) {
        for (const piece of [r, ...r.more]) {
          n++;
          const want = lines(r.path).slice(piece.startLine - 1, piece.endLine).join('\n');
          if (piece.content !== want && !(piece.startLine === piece.endLine && want.includes(piece.content)) && piece.content !== want.replace(/^\uFEFF/, '')) { bad++; if (bad < 6) console.log('WRONG', repo, r.path, piece.startLine, piece.endLine, JSON.stringify(piece.content.slice(0, 80)), JSON.stringify(want.slice(0, 80))); }
          if (seen.has(piece.id)) { dup++; console.log('DUP', repo, query, r.path, piece.startLine); }
          seen.add(piece.id);
          for (const [p, a, b] of spans) if (p === r.path && piece.startLine <= b && a <= piece.endLine) { overlap++; if (overlap < 400) console.log('OVERLAP', repo, JSON.stringify(query), p, a, b, piece.startLine, piece.endLine); }
          spans.push([r.path, piece.startLine, piece.endLine]);
        }
      }
    }
  }
  await store.close();
}
console.log(`pieces ${n}, wrong ${bad}, duplicate ${dup}, overlapping ${overlap}`);
