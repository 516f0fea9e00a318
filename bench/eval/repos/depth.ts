/**
 * Candidate depth (issue 35, ninth round): for every question of the repos eval, where the
 * answer file's best piece stands in the keyword leg's FTS candidate order (bm25.ts
 * plannedCandidates, sorted as searchBm25 keeps them), before any rerank: in the best 100, 200 or
 * 400 rows, or not. Joined with a run's top 10s (bench/tmp/repos-eval/<stamp>.tops.json) to say
 * how many of the misses a deeper candidate list could reach at all.
 *
 * Usage: [DEPTH_SYSTEM='sift base'] npx tsx bench/eval/repos/depth.ts <db dir> <tops.json> [--skip name,name] [names…]
 * (db dir: a repos eval side's indexes, e.g. bench/tmp/repos-eval/now).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { plannedCandidates } from '../../../src/core/search/bm25.ts';
import { processQuery } from '../../../src/core/search/query.ts';
import { openNodeStore } from '../../../src/core/store/open-node.ts';
import { readManifest } from './corpus.ts';
import { loadQuestions } from '../repos.ts';

const DEPTHS = [100, 200, 400] as const;
const [dbDir, topsFile, ...rest] = process.argv.slice(2);
const skipAt = rest.indexOf('--skip');
const skip = new Set(skipAt >= 0 ? rest[skipAt + 1].split(',') : []);
const names = rest.filter((a, i) => a !== '--skip' && i !== skipAt + 1);
/** Per question id, per system (`sift now`, …), the top 10 paths (repos.ts writes them). */
/** Which system's top 10s to read: `sift now` unless DEPTH_SYSTEM names another (`sift base`). */
const system = process.env.DEPTH_SYSTEM ?? 'sift now';
const tops = JSON.parse(readFileSync(topsFile, 'utf8')) as Record<string, Record<string, string[]>>;
const specs = readManifest().filter((s) => !skip.has(s.name) && (!names.length || names.includes(s.name)));
type Row = { repo: string; files: number; inTop10: boolean; rank: number | null; chunks: number };
const out: Row[] = [];
for (const spec of specs) {
  const db = join(dbDir, `${spec.name}.db`);
  if (!existsSync(db)) { console.error(`no ${db}`); continue; }
  const store = await openNodeStore(db, { existing: true });
  try {
    const chunks = (await store.db.get<{ n: number }>('SELECT count(*) AS n FROM chunks'))?.n ?? 0;
    const files = (await store.db.get<{ n: number }>('SELECT count(*) AS n FROM files'))?.n ?? 0;
    for (const q of loadQuestions([spec])) {
      const pq = processQuery(q.question);
      const top10 = tops[q.id]?.[system] ?? [];
      const inTop10 = q.answers.some((a) => top10.slice(0, 10).includes(a));
      let rank: number | null = null;
      if (pq.ftsQuery) {
        const rows = (await plannedCandidates(store.db, pq, '', [], [], DEPTHS[DEPTHS.length - 1])).sort((a, b) => a.r - b.r || a.id - b.id);
        const ids = rows.slice(0, DEPTHS[DEPTHS.length - 1]).map((r) => r.id);
        const paths = ids.length ? await store.db.all<{ id: number; path: string }>(`SELECT id, path FROM chunks WHERE id IN (${ids.join(',')})`) : [];
        const pathOf = new Map(paths.map((p) => [p.id, p.path]));
        const at = ids.findIndex((id) => q.answers.includes(pathOf.get(id) ?? ''));
        rank = at >= 0 ? at + 1 : null;
      }
      out.push({ repo: spec.name, files, inTop10, rank, chunks });
    }
  } finally {
    await store.close();
  }
}
const line = (label: string, rows: Row[]) => {
  const cells = DEPTHS.map((d) => `${rows.filter((r) => r.rank !== null && r.rank <= d).length}`);
  const mid = rows.filter((r) => r.rank !== null && r.rank > DEPTHS[0]).length;
  console.log(`| ${label} | ${rows.length} | ${cells.join(' | ')} | ${rows.filter((r) => r.rank === null).length} | ${mid} |`);
};
console.log(`| questions | n | answer's best piece in FTS top ${DEPTHS.join(' | top ')} | in none | beyond ${DEPTHS[0]} but within ${DEPTHS[DEPTHS.length - 1]} |`);
console.log(`|---|---:|${DEPTHS.map(() => '---:').join('|')}|---:|---:|`);
line('all', out);
line('answer in top 10', out.filter((r) => r.inTop10));
line('answer not in top 10', out.filter((r) => !r.inTop10));
line('not in top 10, ≥ 5k pieces', out.filter((r) => !r.inTop10 && r.chunks >= 5000));
line('not in top 10, < 5k pieces', out.filter((r) => !r.inTop10 && r.chunks < 5000));
const byRepo = new Map<string, Row[]>();
for (const r of out) byRepo.set(r.repo, [...(byRepo.get(r.repo) ?? []), r]);
console.log('\nper repository (pieces; misses: within 100 / 101-200 / 201-400 / none)');
for (const [repo, rows] of byRepo) {
  const m = rows.filter((r) => !r.inTop10);
  const c = (lo: number, hi: number) => m.filter((r) => r.rank !== null && r.rank > lo && r.rank <= hi).length;
  console.log(`${repo.padEnd(16)} ${String(rows[0].chunks).padStart(6)}  ${m.length} misses: ${c(0, 100)} / ${c(100, 200)} / ${c(200, 400)} / ${m.filter((r) => r.rank === null).length}`);
}
