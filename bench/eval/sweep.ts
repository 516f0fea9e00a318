/**
 * Several ranking settings over every question set in one process: the repos eval's questions
 * (commit subjects and hand-written ones apart) and every fresh-questions file
 * (bench/results/*-fresh-questions-*.jsonl), each setting scored on the same indexes, each
 * repository's index opened once for all settings. A setting is `base` (config.ts as it is) or a
 * tune-repos.ts `--set` spec (`rerank.bm25=1.25`, `factor=0.4,coverFiles=20`); knobs are reset
 * between settings. Prints, per setting, the mean over the fresh sets and each set's mean of
 * per-repository NDCG@10 (the same numbers tune-repos.ts prints per set); `--out FILE` keeps every
 * question's score per setting for a per-question diff.
 *
 * `--stop`: every question with a full stop added, as someone who writes a question as a sentence
 * would type it (a rule keyed on the stop is weighed against that: docs/ranking.md, session 24).
 *
 * Indexes: the repos eval's in `--repos-dbdir` (default bench/tmp/repos-eval/now, repos.ts's),
 * the fresh sets' in `--fresh-dbdir` (default bench/tmp/tune-repos, tune-repos.ts's) over the
 * checkouts in `--fresh-root`; a missing one is built first (bin/sift index).
 *
 * Usage: tsx bench/eval/sweep.ts [base|SETTING ...] [--sets repos,fresh] [--repos-dbdir DIR]
 *   [--fresh-root DIR] [--fresh-dbdir DIR] [--stop] [--out FILE]
 * One setting over all 4,362 questions takes ~85 s on the 2-core VM once the indexes exist; two
 * processes with half the settings each use both cores.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openNodeStore } from '../../src/core/store/open-node.ts';
import { Searcher } from '../../src/core/search/search.ts';
import { siftIndex } from '../sift.ts';
import { BENCH_DIR, TMP_DIR, isMain, parseArgs } from '../util.ts';
import { checkoutDir, readManifest } from './repos/corpus.ts';
import { COMMITS_FILE, EVAL_TMP, HAND_FILE, readQuestions } from './repos.ts';
import { ndcg, mean } from './repos/score.ts';
import { SET_KNOBS, applySet, readFreshQuestions } from './tune-repos.ts';

interface SweepQuestion {
  /** `s15`, …, or `repos-commit` / `repos-hand`. */
  set: string;
  repo: string;
  id: string;
  question: string;
  answers: string[];
}

/** The fresh-questions files' questions, each under its set's name (`s15` from `…-fresh-questions-s15.jsonl`). */
export function freshQuestions(dir = join(BENCH_DIR, 'results')): SweepQuestion[] {
  return readdirSync(dir).filter((f) => /-fresh-questions-.+\.jsonl$/.test(f)).sort().flatMap((f) => {
    const set = f.replace(/.*-fresh-questions-/, '').replace(/\.jsonl$/, '');
    return readFreshQuestions(join(dir, f)).map((q) => ({ set, repo: q.repo, id: q.id, question: q.question, answers: q.answers }));
  });
}

/** Per set, the mean of its repositories' mean scores (`scores` keyed `set|repo|id`). */
export function setMeans(scores: Readonly<Record<string, number>>): Record<string, number> {
  const per = new Map<string, Map<string, number[]>>();
  for (const [key, v] of Object.entries(scores)) {
    const [set, repo] = key.split('|');
    const repos = per.get(set) ?? new Map<string, number[]>();
    per.set(set, repos);
    repos.set(repo, [...repos.get(repo) ?? [], v]);
  }
  return Object.fromEntries([...per].map(([set, repos]) => [set, mean([...repos.values()].map(mean))]));
}

/** One index's questions: the index, the checkout it is built from, the questions asked of it. */
export interface SweepGroup {
  db: string;
  dir: string;
  qs: SweepQuestion[];
}

/**
 * Every question of the sets `--sets` names (repos, fresh), grouped by the index it runs on: the
 * repos eval's in `--repos-dbdir`, the fresh sets' in `--fresh-dbdir` over the checkouts in
 * `--fresh-root` (defaults as in the usage above).
 */
export function sweepGroups(flags: ReadonlyMap<string, string | true>): Map<string, SweepGroup> {
  const sets = String(flags.get('sets') ?? 'repos,fresh').split(',');
  const reposDb = String(flags.get('repos-dbdir') ?? join(EVAL_TMP, 'now'));
  const freshDb = String(flags.get('fresh-dbdir') ?? join(TMP_DIR, 'tune-repos'));
  const freshRoot = flags.get('fresh-root');
  const questions: SweepQuestion[] = [];
  if (sets.includes('repos')) {
    for (const q of [...readQuestions(COMMITS_FILE), ...readQuestions(HAND_FILE)]) {
      questions.push({ set: q.source === 'hand' ? 'repos-hand' : 'repos-commit', repo: q.repo, id: q.id, question: q.question, answers: q.answers });
    }
  }
  if (sets.includes('fresh')) {
    if (typeof freshRoot !== 'string') throw new Error('--sets fresh needs --fresh-root DIR (the fresh sets\' checkouts, as tune-repos.ts --root)');
    questions.push(...freshQuestions());
  }
  const manifest = new Map(readManifest().map((s) => [s.name, s]));
  // One index per repository and kind of set: open it once, run every setting on it.
  const groups = new Map<string, SweepGroup>();
  for (const q of questions) {
    const fresh = !q.set.startsWith('repos-');
    const key = `${fresh ? 'fresh' : 'repos'}:${q.repo}`;
    let g = groups.get(key);
    if (!g) {
      const spec = manifest.get(q.repo);
      const dir = fresh ? join(String(freshRoot), q.repo) : spec ? checkoutDir(spec) : '';
      g = { db: join(fresh ? freshDb : reposDb, `${q.repo}.db`), dir, qs: [] };
      groups.set(key, g);
    }
    g.qs.push(q);
  }
  return groups;
}

/** The group's index, built first (bin/sift index) when it is missing. */
export function ensureIndex(g: SweepGroup): void {
  if (existsSync(g.db)) return;
  if (!g.dir) throw new Error(`${g.db}: no index and no checkout to build it from`);
  siftIndex(g.dir, g.db);
}

async function main(): Promise<void> {
  const { flags, positional } = parseArgs(process.argv.slice(2), ['stop']);
  const settings = positional.length ? positional : ['base'];
  const stop = flags.has('stop');
  const groups = sweepGroups(flags);
  const defaults = SET_KNOBS.map((o) => ({ ...o }));
  const reset = () => SET_KNOBS.forEach((o, i) => Object.assign(o, defaults[i]));
  const scores: Record<string, Record<string, number>> = Object.fromEntries(settings.map((s) => [s, {}]));
  for (const g of groups.values()) {
    ensureIndex(g);
    const store = await openNodeStore(g.db, { existing: true });
    for (const setting of settings) {
      reset();
      if (setting !== 'base') applySet(setting);
      const searcher = new Searcher(store);
      for (const q of g.qs) {
        const res = await searcher.search(stop ? `${q.question}.` : q.question, { mode: 'bm25', limit: 10 });
        scores[setting][`${q.set}|${q.repo}|${q.id}`] = ndcg(res.results.map((r) => r.path), q.answers);
      }
    }
    await store.close();
  }
  reset();
  if (typeof flags.get('out') === 'string') writeFileSync(String(flags.get('out')), `${JSON.stringify({ settings, stop, scores })}\n`);
  for (const setting of settings) {
    const means = setMeans(scores[setting]);
    const fresh = Object.entries(means).filter(([k]) => !k.startsWith('repos-')).map(([, v]) => v);
    const all = Object.entries(means).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k} ${v.toFixed(4)}`).join('  ');
    console.log(`${setting.padEnd(32)} ${fresh.length ? `fresh ${mean(fresh).toFixed(4)}  ` : ''}${all}`);
  }
}

if (isMain(import.meta.url)) await main();
