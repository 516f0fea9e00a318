/**
 * In-process ranking loop for the repository eval (bench/eval/repos.ts): opens each
 * repository's index (built by repos.ts, or with --reindex into bench/tmp/tune-repos/), runs
 * the questions through Searcher in keyword mode with the live ranking code, and prints the
 * mean per-repository NDCG@10 (repos/score.ts), per source and category. `--set k=v,...`
 * tries other FILE_SIGNALS / DIVERSITY / KIND_FACTORS / RERANK_WEIGHTS (`rerank.name=0.5`) / CODE_CANDIDATES (`codeCandidates.rows=20`) values for this run, so a grid is one
 * command per point; `--half even|odd` tunes on one half of each repository's questions and
 * confirms on the other. `--fails N` prints N misses with the top results.
 *
 * `--out FILE` writes every question's NDCG@10 and top files (JSON), for diffing two runs.
 *
 * `--questions FILE.jsonl --root DIR` runs a fresh-questions file (bench/results/*-fresh-questions-*.jsonl) over
 * its checkouts in DIR instead (indexes in --dbdir, default bench/tmp/tune-repos, built on first use).
 *
 * Usage: tsx bench/eval/tune-repos.ts [repo ...] [--questions FILE --root DIR] [--dbdir DIR] [--reindex] [--source hand|commit] [--category behaviour|architecture|symbol|change] [--set pathWeight=0.6,factor=0.8,code.test=0.5] [--half even] [--fails 5] [--out FILE]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openNodeStore } from '../../src/core/store/open-node.ts';
import { Searcher } from '../../src/core/search/search.ts';
import { CODE_CANDIDATES, DIVERSITY, FILE_SIGNALS, FUNCTION_QUESTION, KIND_FACTORS, RERANK_WEIGHTS } from '../../src/core/config.ts';
import { siftIndex } from '../sift.ts';
import { isMain, parseArgs, TMP_DIR } from '../util.ts';
import { checkoutDir, readManifest, type RepoSpec } from './repos/corpus.ts';
import { COMMITS_FILE, EVAL_TMP, HAND_FILE, readQuestions } from './repos.ts';
import type { Question } from './repos/questions.ts';
import { ndcg, mean } from './repos/score.ts';

/** A fresh-questions file: one JSON question per line (id, repo, category, question, answers, class?, language?). */
export function readFreshQuestions(file: string): Array<Question & { language?: string }> {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => ({ source: 'fresh', ...JSON.parse(l) }));
}

/** Every object applySet writes (bench/eval/sweep.ts resets them between settings). */
export const SET_KNOBS: ReadonlyArray<Record<string, number>> = [FILE_SIGNALS, DIVERSITY, FUNCTION_QUESTION, RERANK_WEIGHTS as Record<string, number>, CODE_CANDIDATES, ...Object.values(KIND_FACTORS)];

/** Apply `name=value` overrides to the ranking's tunable objects (this process only). */
export function applySet(spec: string): void {
  for (const kv of spec.split(',').filter(Boolean)) {
    const [k, v] = kv.split('=');
    const n = Number(v);
    if (!Number.isFinite(n)) throw new Error(`--set ${kv}: not a number`);
    if (k in FILE_SIGNALS) (FILE_SIGNALS as Record<string, number>)[k] = n;
    else if (k in DIVERSITY) (DIVERSITY as Record<string, number>)[k] = n;
    else if (k in FUNCTION_QUESTION) (FUNCTION_QUESTION as Record<string, number>)[k] = n;
    else if (k.startsWith('rerank.')) (RERANK_WEIGHTS as Record<string, number>)[k.slice(7)] = n;
    else if (k.startsWith('codeCandidates.')) (CODE_CANDIDATES as Record<string, number>)[k.slice(15)] = n;
    else if (k.includes('.')) {
      const [intent, kind] = k.split('.');
      const row = (KIND_FACTORS as Record<string, Record<string, number>>)[intent];
      if (!row || !(kind in row)) throw new Error(`--set ${k}: no such kind factor`);
      row[kind] = n;
    } else throw new Error(`--set ${k}: unknown knob`);
  }
}

async function main(): Promise<void> {
  const { positional, flags: f } = parseArgs(process.argv.slice(2), ['reindex']);
  const flags = Object.fromEntries(f) as Record<string, string | true | undefined>;
  if (typeof flags.set === 'string') applySet(flags.set);
  // `--questions FILE.jsonl --root DIR`: a fresh-questions file (bench/eval/fresh-questions.py's
  // format) over checkouts in DIR/<repo>, indexed into --dbdir on first use, instead of the repos eval.
  const fresh = typeof flags.questions === 'string' ? readFreshQuestions(flags.questions) : null;
  const root = typeof flags.root === 'string' ? flags.root : null;
  if (fresh && !root) throw new Error('--questions needs --root DIR (the checkouts)');
  const specs: Array<Pick<RepoSpec, 'name' | 'language'>> = fresh
    ? [...new Set(fresh.map((q) => q.repo))].filter((r) => !positional.length || positional.includes(r)).map((name) => ({ name, language: fresh.find((q) => q.repo === name)!.language ?? '-' }))
    : readManifest().filter((s) => !positional.length || positional.includes(s.name));
  const dbdir = typeof flags.dbdir === 'string' ? flags.dbdir : flags.reindex || fresh ? join(TMP_DIR, 'tune-repos') : join(EVAL_TMP, 'now');
  mkdirSync(dbdir, { recursive: true });
  const questions = fresh ?? [...readQuestions(COMMITS_FILE), ...readQuestions(HAND_FILE)];
  const half = typeof flags.half === 'string' ? flags.half : null;
  const fails = Number(flags.fails ?? 0);
  const perRepo: Array<{ repo: string; language: string; n: number; ndcg: number }> = [];
  const perQuestion: Array<{ id: string; question: string; category: string; class?: string; answers: string[]; ndcg: number; top: string[] }> = [];
  const bySource: Record<string, number[]> = {};
  const byCategory: Record<string, number[]> = {};
  const byClass: Record<string, number[]> = {};
  for (const spec of specs) {
    const db = join(dbdir, `${spec.name}.db`);
    if (flags.reindex || !existsSync(db)) {
      if (!flags.reindex && !root) { console.log(`${spec.name}: no index at ${db} (pass --reindex)`); continue; }
      siftIndex(root ? join(root, spec.name) : checkoutDir(spec as RepoSpec), db);
    }
    let qs = questions.filter((q) => q.repo === spec.name);
    if (half) qs = qs.filter((_, i) => (i % 2 === 0) === (half === 'even'));
    if (typeof flags.source === 'string') qs = qs.filter((q) => q.source === flags.source);
    if (typeof flags.category === 'string') qs = qs.filter((q) => q.category === flags.category);
    if (!qs.length) continue;
    const store = await openNodeStore(db, { existing: true });
    const searcher = new Searcher(store);
    const scores: number[] = [];
    let shown = 0;
    for (const q of qs) {
      const res = await searcher.search(q.question, { mode: 'bm25', limit: 10 });
      const paths = res.results.map((r) => r.path);
      const s = ndcg(paths, q.answers);
      scores.push(s);
      perQuestion.push({ id: q.id, question: q.question, category: q.category, class: q.class, answers: q.answers, ndcg: s, top: [...new Set(paths)].slice(0, 5) });
      (bySource[q.source] ??= []).push(s);
      (byCategory[q.category] ??= []).push(s);
      if (q.class) (byClass[q.class] ??= []).push(s);
      if (s < 0.5 && shown < fails) {
        shown++;
        console.log(`  MISS ${q.id} "${q.question}" want ${q.answers.join(', ')}\n    got ${[...new Set(paths)].slice(0, 5).join(' | ')}`);
      }
    }
    await store.close();
    perRepo.push({ repo: spec.name, language: spec.language, n: qs.length, ndcg: mean(scores) });
    console.log(`${spec.name.padEnd(18)} ${spec.language.padEnd(11)} n=${String(qs.length).padStart(3)}  ndcg@10 ${mean(scores).toFixed(3)}`);
  }
  console.log(`\nmean of per-repo NDCG@10: ${mean(perRepo.map((r) => r.ndcg)).toFixed(4)} over ${perRepo.length} repos`);
  console.log(`by source: ${Object.entries(bySource).map(([k, v]) => `${k} ${mean(v).toFixed(3)} (${v.length})`).join('  ')}`);
  console.log(`by category: ${Object.entries(byCategory).map(([k, v]) => `${k} ${mean(v).toFixed(3)} (${v.length})`).join('  ')}`);
  console.log(`by class: ${Object.entries(byClass).map(([k, v]) => `${k} ${mean(v).toFixed(3)} (${v.length})`).join('  ')}`);
  const byLanguage: Record<string, number[]> = {};
  for (const r of perRepo) (byLanguage[r.language] ??= []).push(r.ndcg);
  console.log(`by language: ${Object.entries(byLanguage).sort().map(([k, v]) => `${k} ${mean(v).toFixed(3)}`).join('  ')}`);
  if (typeof flags.out === 'string') writeFileSync(flags.out, JSON.stringify({ perRepo, questions: perQuestion }, null, 1) + '\n');
}

if (isMain(import.meta.url)) await main();
