/**
 * File-level search quality on real repositories (issue 25): NDCG@10 per repository for
 * questions whose answers are files, Sift's keyword mode next to plain BM25 over the same chunks.
 *
 * Corpora: the public repositories pinned in bench/eval/repos.json (≥ 12 languages), checked
 * out of fetched mirrors into bench/corpora/repos/<name>/ (repos/corpus.ts). Questions:
 * bench/eval/repos/commits.json (commit subjects → the source files they changed, filtered and
 * sampled by repos/questions.ts) and bench/eval/repos/hand.json (written by hand after reading
 * each repository; behaviour / architecture / symbol). Scoring: repos/score.ts.
 *
 * Per repository and per checkout of Sift ("now" = this one, "base" = --base DIR), a fresh
 * keyword-only index (`bin/sift index <dir> --no-embed` of that checkout, under bench/tmp),
 * then every question through that checkout's `bin/sift search <dir> --stdin --json
 * --mode bm25 --limit 10` (exactly what a user gets), and the plain BM25 reference
 * (repos/plain-bm25.ts) on the same index through that checkout's store code.
 *
 * Usage:
 *   npx tsx bench/eval/repos.ts prepare [names…]      check out the corpora (prints the fetch a missing mirror needs)
 *   npx tsx bench/eval/repos.ts questions [names…]    rewrite commits.json from the mirrors (deterministic)
 *   npx tsx bench/eval/repos.ts run [names…] [--base DIR] [--root DIR] [--tag T] [--reuse]
 * --base DIR: another checkout of Sift (e.g. `git worktree add /tmp/sift-base <commit>` with
 * node_modules symlinked) scored on its own fresh index next to this one. --root DIR: score
 * that checkout as "now" instead of this one (this file and the question sets still come from
 * here, so an older commit that lacks them can be measured). --reuse keeps an
 * index that exists (for iterating on the report only). --tag suffixes the result files.
 * Writes bench/results/<date>-repos-eval[-tag].{md,json}; every top 10 goes to
 * bench/tmp/repos-eval/<date>-repos-eval[-tag].tops.json.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RESULTS_DIR, REPO_DIR, TMP_DIR, fmt, isMain, listFiles, machineInfo, machineMarkdown, parseArgs, run, type MachineInfo } from '../util.ts';
import { MIRROR_ROOT, checkoutDir, mirrorDir, mirrorProblem, prepareRepo, readManifest, type RepoSpec } from './repos/corpus.ts';
import { mirrorSurvival, pickCommitQuestions, readHistory, resultKind, type Question } from './repos/questions.ts';
import { K, aggregate, distinctFiles, firstHit, ndcg, type Aggregate, type ScoredQuestion } from './repos/score.ts';
import { plainSearch } from './repos/plain-bm25.ts';

export const QUESTIONS_DIR = join(REPO_DIR, 'bench', 'eval', 'repos');
export const COMMITS_FILE = join(QUESTIONS_DIR, 'commits.json');
export const HAND_FILE = join(QUESTIONS_DIR, 'hand.json');
export const EVAL_TMP = join(TMP_DIR, 'repos-eval');

export function readQuestions(file: string): Question[] {
  if (!existsSync(file)) return [];
  return (JSON.parse(readFileSync(file, 'utf8')) as { questions: Question[] }).questions;
}

/** Every question of the named repositories, each checked against its checkout (answers must exist). */
export function loadQuestions(specs: readonly RepoSpec[]): Question[] {
  const names = new Set(specs.map((s) => s.name));
  const all = [...readQuestions(COMMITS_FILE), ...readQuestions(HAND_FILE)].filter((q) => names.has(q.repo));
  const problems: string[] = [];
  for (const q of all) {
    if (!q.answers.length || q.answers.length > 3) problems.push(`${q.id}: ${q.answers.length} answers`);
    for (const a of q.answers) if (!existsSync(join(checkoutDir(specs.find((s) => s.name === q.repo)!), a))) problems.push(`${q.id}: no file ${a}`);
  }
  if (problems.length) throw new Error(`questions whose answers are not files of the checkout:\n${problems.join('\n')}`);
  return all;
}

function prepareAll(specs: readonly RepoSpec[]): void {
  const problems = specs.map(mirrorProblem).filter((p): p is string => p !== null);
  const missing = specs.filter((s) => problems.some((p) => p.startsWith(`${s.name}:`)) && !existsSync(`${checkoutDir(s)}.commit`));
  for (const s of specs) {
    if (missing.includes(s)) continue;
    const r = prepareRepo(s);
    console.log(`${s.name.padEnd(16)} ${s.language.padEnd(11)} ${String(r.files).padStart(5)} files${r.fresh ? ' (checked out)' : ''}${r.missing?.length ? `; absent from the snapshot: ${r.missing.join(', ')}` : ''}`);
  }
  if (missing.length) {
    console.error(`missing mirrors under ${MIRROR_ROOT} (fetch them with the session's fetch tool, then rerun):`);
    for (const s of missing) console.error(`  ${problems.find((p) => p.startsWith(`${s.name}:`))}`);
    process.exitCode = 1;
  }
}

function writeCommitQuestions(specs: readonly RepoSpec[]): void {
  const keep = readQuestions(COMMITS_FILE).filter((q) => !specs.some((s) => s.name === q.repo));
  const out: Question[] = [...keep];
  const meta: Record<string, unknown> = {};
  for (const s of specs) {
    const problem = mirrorProblem(s);
    if (problem) throw new Error(problem);
    const h = readHistory(mirrorDir(s), s.commit);
    const r = pickCommitQuestions(s.name, h.commits, h.atHead, mirrorSurvival(mirrorDir(s), s.commit));
    out.push(...r.questions);
    meta[s.name] = { commits: h.commits.length, candidates: r.candidates, picked: r.questions.length, skipped: r.skipped };
    console.log(`${s.name.padEnd(16)} ${String(h.commits.length).padStart(5)} commits, ${String(r.candidates).padStart(4)} candidates, ${r.questions.length} picked`);
  }
  const order = readManifest().map((s) => s.name);
  out.sort((a, b) => order.indexOf(a.repo) - order.indexOf(b.repo) || Number(a.id.split('/c')[1]) - Number(b.id.split('/c')[1]));
  const old = existsSync(COMMITS_FILE) ? (JSON.parse(readFileSync(COMMITS_FILE, 'utf8')) as { extraction?: Record<string, unknown> }).extraction ?? {} : {};
  writeFileSync(COMMITS_FILE, JSON.stringify({
    comment: 'Commit subjects as questions, the source files the commit changed as answers; written by `npx tsx bench/eval/repos.ts questions` (bench/eval/repos/questions.ts). Do not edit by hand.',
    extraction: { ...old, ...meta },
    questions: out,
  }, null, 1) + '\n');
  console.log(`wrote ${COMMITS_FILE} (${out.length} questions)`);
}

interface SiftJson {
  results: Array<{ path: string }>;
}

interface Side {
  label: string;
  root: string;
  commit: string;
}

interface RepoRun {
  name: string;
  language: string;
  files: number;
  indexedFiles: number;
  chunks: number;
  skipped: number;
  indexSeconds: number;
  searchSeconds: number;
  /** Answer files (distinct, over the repo's questions) the index holds at all. */
  answersIndexed: number;
  answers: number;
}

export interface RepoEvalReport {
  machine: MachineInfo;
  k: number;
  sides: Array<Side & { repos: RepoRun[] }>;
  /** system name → aggregate. */
  systems: Record<string, Aggregate & { topKinds: Record<string, number> }>;
  questions: Array<{ id: string; category: string; source: string; class?: string; answers: number; ndcg: Record<string, number>; firstHit: Record<string, number | null> }>;
}

function siftBin(root: string): string {
  return join(root, 'bin', 'sift');
}

function dbFiles(db: string): string[] {
  return [db, `${db}-wal`, `${db}-shm`, `${db}-journal`];
}

async function runSide(side: Side, spec: RepoSpec, qs: readonly Question[], reuse: boolean): Promise<{ run: RepoRun; sift: string[][]; plain: string[][] }> {
  const dir = checkoutDir(spec);
  const db = join(EVAL_TMP, side.label, `${spec.name}.db`);
  mkdirSync(join(EVAL_TMP, side.label), { recursive: true });
  let indexSeconds = 0;
  let skipped = 0;
  if (!(reuse && existsSync(db))) {
    for (const f of dbFiles(db)) rmSync(f, { force: true });
    const r = run(process.execPath, [siftBin(side.root), 'index', dir, '--db', db, '--json', '--no-embed']);
    if (r.status !== 0) throw new Error(`${side.label}: sift index ${spec.name} exited ${r.status}: ${r.stderr.slice(-2000)}`);
    const summary = JSON.parse(r.stdout) as { files: { skipped: number } };
    indexSeconds = r.ms / 1000;
    skipped = summary.files.skipped;
  }
  const input = qs.map((q) => q.question.replace(/[\r\n]+/g, ' ')).join('\n') + '\n';
  const s = run(process.execPath, [siftBin(side.root), 'search', dir, '--stdin', '--json', '--db', db, '--mode', 'bm25', '--limit', String(K)], { input });
  if (s.status !== 0) throw new Error(`${side.label}: sift search ${spec.name} exited ${s.status}: ${s.stderr.slice(-2000)}`);
  const lines = s.stdout.split('\n').filter((l) => l.trim());
  if (lines.length !== qs.length) throw new Error(`${side.label}: sift search ${spec.name} gave ${lines.length} lines for ${qs.length} questions`);
  const sift = lines.map((l) => (JSON.parse(l) as SiftJson).results.map((r) => r.path));

  // The plain reference and the index's own counts, through this side's store code.
  const { openNodeStore } = await import(resolve(side.root, 'src/core/store/open-node.ts')) as typeof import('../../src/core/store/open-node.ts');
  const store = await openNodeStore(db, { existing: true });
  let plain: string[][];
  let indexed: Set<string>;
  let chunks: number;
  try {
    plain = await plainSearch(store.db, qs.map((q) => q.question), K);
    indexed = new Set((await store.db.all<{ path: string }>('SELECT path FROM files')).map((r) => r.path));
    chunks = (await store.db.get<{ n: number }>('SELECT count(*) AS n FROM chunks'))?.n ?? 0;
  } finally {
    await store.close();
  }
  const answers = new Set(qs.flatMap((q) => q.answers));
  return {
    run: {
      name: spec.name, language: spec.language, files: listFiles(dir).length, indexedFiles: indexed.size, chunks, skipped,
      indexSeconds, searchSeconds: s.ms / 1000, answersIndexed: [...answers].filter((a) => indexed.has(a)).length, answers: answers.size,
    },
    sift,
    plain,
  };
}

function kindShares(tops: readonly string[][]): Record<string, number> {
  const counts: Record<string, number> = {};
  let n = 0;
  for (const t of tops) for (const p of t.slice(0, K)) {
    const k = resultKind(p);
    counts[k] = (counts[k] ?? 0) + 1;
    n++;
  }
  for (const k of Object.keys(counts)) counts[k] /= n || 1;
  return counts;
}

export async function evalRepos(specs: readonly RepoSpec[], sides: readonly Side[], o: { reuse?: boolean } = {}): Promise<{ report: RepoEvalReport; tops: Record<string, Record<string, string[]>> }> {
  const questions = loadQuestions(specs);
  const report: RepoEvalReport = { machine: machineInfo(), k: K, sides: sides.map((s) => ({ ...s, repos: [] })), systems: {}, questions: [] };
  const scored = new Map<string, ScoredQuestion[]>();
  const tops: Record<string, Record<string, string[]>> = {};
  const systemTops = new Map<string, string[][]>();
  for (const spec of specs) {
    const qs = questions.filter((q) => q.repo === spec.name);
    if (!qs.length) continue;
    for (const [si, side] of sides.entries()) {
      const r = await runSide(side, spec, qs, !!o.reuse);
      report.sides[si].repos.push(r.run);
      for (const [system, ranked] of [[`sift ${side.label}`, r.sift], [`plain bm25 ${side.label}`, r.plain]] as const) {
        if (!scored.has(system)) scored.set(system, []);
        if (!systemTops.has(system)) systemTops.set(system, []);
        qs.forEach((q, i) => {
          scored.get(system)!.push({
            id: q.id, repo: q.repo, language: spec.language, category: q.category, source: q.source, ...(q.class ? { class: q.class } : {}),
            ndcg: ndcg(ranked[i], q.answers), distinct: distinctFiles(ranked[i]), firstHit: firstHit(ranked[i], q.answers),
          });
          (tops[q.id] ??= {})[system] = ranked[i];
          systemTops.get(system)!.push(ranked[i]);
        });
      }
      const a = aggregate(scored.get(`sift ${side.label}`)!.filter((q) => q.repo === spec.name)).overall;
      const b = aggregate(scored.get(`plain bm25 ${side.label}`)!.filter((q) => q.repo === spec.name)).overall;
      console.log(`${side.label.padEnd(5)} ${spec.name.padEnd(16)} ${String(qs.length).padStart(3)} questions  sift ${a.toFixed(3)}  plain ${b.toFixed(3)}  (${r.run.indexedFiles}/${r.run.files} files indexed, ${fmt(r.run.indexSeconds)} s)`);
    }
  }
  for (const [system, qs] of scored) report.systems[system] = { ...aggregate(qs), topKinds: kindShares(systemTops.get(system)!) };
  const systems = [...scored.keys()];
  for (const q of questions) {
    if (!tops[q.id]) continue;
    const byId = (s: string) => scored.get(s)!.find((x) => x.id === q.id)!;
    report.questions.push({
      id: q.id, category: q.category, source: q.source, ...(q.class ? { class: q.class } : {}), answers: q.answers.length,
      ndcg: Object.fromEntries(systems.map((s) => [s, Number(byId(s).ndcg.toFixed(4))])),
      firstHit: Object.fromEntries(systems.map((s) => [s, byId(s).firstHit])),
    });
  }
  return { report, tops };
}

const f3 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(3));

export function reposMarkdown(r: RepoEvalReport, o: { command: string }): string {
  const systems = Object.keys(r.systems);
  const now = r.sides[0];
  const rule = systems.map(() => '---|').join('');
  const lines: string[] = [
    '# File-level search quality on real repositories (NDCG@10)', '', machineMarkdown(r.machine), '',
    `Command: \`${o.command}\``, '',
    r.sides.map((s) => `- ${s.label}: ${s.root} at ${s.commit}`).join('\n'), '',
    'Questions whose answers are files: commit subjects of each repository\'s own history (answers: the source files the',
    'commit changed whose added lines still stand at the pinned commit; category `change`) and a hand-written set per',
    'repository (behaviour / architecture / symbol). Sift = `bin/sift search --mode bm25 --limit 10` on a fresh',
    '`--no-embed` index of each checkout; plain BM25 = FTS5 `bm25(chunks_fts)` over the same index\'s chunks for an OR of',
    'the question\'s words (stop words dropped, default column weights). NDCG@10, binary gains, only the first result of',
    'an answer file earns; the headline is the mean of per-repository NDCG (each repository weighs the same).', '',
    '## Overall', '',
    `| | ${systems.join(' | ')} |`, `|---|${rule}`,
    `| mean of per-repo NDCG@10 | ${systems.map((s) => `**${f3(r.systems[s].overall)}**`).join(' | ')} |`,
    `| pooled NDCG@10 (${r.systems[systems[0]].questions} questions) | ${systems.map((s) => f3(r.systems[s].pooled)).join(' | ')} |`,
    `| an answer in the top 10 | ${systems.map((s) => f3(r.systems[s].recall)).join(' | ')} |`,
    `| an answer first | ${systems.map((s) => f3(r.systems[s].top1)).join(' | ')} |`,
    `| distinct files in the top 10 (mean) | ${systems.map((s) => r.systems[s].distinct.toFixed(2)).join(' | ')} |`,
    '',
    '## Per repository', '',
    `| repo | language | files | indexed (now) | chunks (now) | questions (commit+hand) | answer files indexed (now) | ${systems.join(' | ')} | distinct files, sift ${now.label} |`,
    `|---|---|---|---|---|---|---|${rule}---|`,
  ];
  for (const repo of now.repos) {
    const qs = r.questions.filter((q) => q.id.startsWith(`${repo.name}/`));
    const c = qs.filter((q) => q.source === 'commit').length;
    lines.push(`| ${repo.name} | ${repo.language} | ${repo.files} | ${repo.indexedFiles} | ${repo.chunks} | ${qs.length} (${c}+${qs.length - c}) | ${repo.answersIndexed}/${repo.answers} | ` +
      `${systems.map((s) => f3(r.systems[s].repos[repo.name]?.ndcg)).join(' | ')} | ${r.systems[`sift ${now.label}`].repos[repo.name]?.distinct.toFixed(2)} |`);
  }
  lines.push('', '## Per language (mean of its repositories)', '', `| language | repos | ${systems.join(' | ')} |`, `|---|---|${rule}`);
  for (const lang of Object.keys(r.systems[systems[0]].languages).sort()) {
    lines.push(`| ${lang} | ${r.systems[systems[0]].languages[lang].repos} | ${systems.map((s) => f3(r.systems[s].languages[lang]?.ndcg)).join(' | ')} |`);
  }
  lines.push('', '## Per category and source (pooled questions)', '', `| | questions | ${systems.join(' | ')} |`, `|---|---|${rule}`);
  for (const [label, key] of [['category', 'categories'], ['source', 'sources'], ['class', 'classes']] as const) {
    for (const c of Object.keys(r.systems[systems[0]][key]).sort()) {
      lines.push(`| ${label} ${c} | ${r.systems[systems[0]][key][c].questions} | ${systems.map((s) => f3(r.systems[s][key][c]?.ndcg)).join(' | ')} |`);
    }
  }
  const kinds = [...new Set(systems.flatMap((s) => Object.keys(r.systems[s].topKinds)))].sort();
  lines.push('', '## What fills the top 10 (share of result slots by file kind)', '', `| kind | ${systems.join(' | ')} |`, `|---|${rule}`);
  for (const k of kinds) lines.push(`| ${k} | ${systems.map((s) => ((r.systems[s].topKinds[k] ?? 0) * 100).toFixed(1) + '%').join(' | ')} |`);
  lines.push('', '## Index runs', '', '| side | repo | files | indexed | skipped | chunks | index s | search s |', '|---|---|---|---|---|---|---|---|');
  for (const side of r.sides) for (const x of side.repos) lines.push(`| ${side.label} | ${x.name} | ${x.files} | ${x.indexedFiles} | ${x.skipped} | ${x.chunks} | ${fmt(x.indexSeconds)} | ${fmt(x.searchSeconds, 2)} |`);
  lines.push('');
  return lines.join('\n');
}

/** The checkout's commit, with "+ uncommitted changes" when its src/ or bin/ differ from it. */
function gitHead(root: string): string {
  const r = run('git', ['-C', root, 'rev-parse', '--short', 'HEAD']);
  if (r.status !== 0) return 'unknown';
  const dirty = run('git', ['-C', root, 'status', '--porcelain', '--', 'src', 'bin']).stdout.trim();
  return r.stdout.trim() + (dirty ? ' + uncommitted changes in src/ or bin/' : '');
}

function siftRoot(dir: string, flag: string): string {
  const root = resolve(dir);
  if (!existsSync(siftBin(root))) throw new Error(`${flag} ${root}: no bin/sift there`);
  if (!existsSync(join(root, 'node_modules'))) throw new Error(`${flag} ${root}: no node_modules (ln -s ${join(REPO_DIR, 'node_modules')} ${join(root, 'node_modules')})`);
  return root;
}

if (isMain(import.meta.url)) {
  const { flags, positional } = parseArgs(process.argv.slice(2), ['reuse']);
  const [cmd, ...names] = positional;
  const all = readManifest();
  const specs = names.length ? all.filter((s) => names.includes(s.name)) : all;
  if (names.length && specs.length !== names.length) throw new Error(`unknown repos: ${names.filter((n) => !all.some((s) => s.name === n)).join(', ')}`);
  if (cmd === 'prepare') prepareAll(specs);
  else if (cmd === 'questions') writeCommitQuestions(specs);
  else if (cmd === 'run') {
    prepareAll(specs);
    if (process.exitCode) throw new Error('corpora missing: see above');
    const nowRoot = typeof flags.get('root') === 'string' ? siftRoot(String(flags.get('root')), '--root') : REPO_DIR;
    const sides: Side[] = [{ label: 'now', root: nowRoot, commit: gitHead(nowRoot) }];
    const base = flags.get('base');
    if (typeof base === 'string') {
      const root = siftRoot(base, '--base');
      sides.push({ label: 'base', root, commit: gitHead(root) });
    }
    const { report, tops } = await evalRepos(specs, sides, { reuse: flags.has('reuse') });
    const tag = typeof flags.get('tag') === 'string' ? `-${String(flags.get('tag'))}` : '';
    const stamp = `${report.machine.date.slice(0, 10)}-repos-eval${tag}`;
    mkdirSync(RESULTS_DIR, { recursive: true });
    mkdirSync(EVAL_TMP, { recursive: true });
    const command = `npx tsx bench/eval/repos.ts ${process.argv.slice(2).join(' ')}`;
    const { questions, ...rest } = report;
    writeFileSync(join(RESULTS_DIR, `${stamp}.json`), JSON.stringify(rest, null, 1).replace(/\n}$/, ',\n "questions": [\n') +
      questions.map((q) => '  ' + JSON.stringify(q)).join(',\n') + '\n ]\n}\n');
    writeFileSync(join(RESULTS_DIR, `${stamp}.md`), reposMarkdown(report, { command }));
    writeFileSync(join(EVAL_TMP, `${stamp}.tops.json`), JSON.stringify(tops) + '\n');
    for (const [s, a] of Object.entries(report.systems)) console.log(`${s.padEnd(16)} NDCG@10 ${a.overall.toFixed(3)} (pooled ${a.pooled.toFixed(3)}), distinct files ${a.distinct.toFixed(2)}`);
    console.log(`wrote ${join(RESULTS_DIR, `${stamp}.md`)}`);
  } else {
    console.error('usage: npx tsx bench/eval/repos.ts prepare|questions|run [names…] [--base DIR] [--root DIR] [--tag T] [--reuse]');
    process.exitCode = 2;
  }
}
