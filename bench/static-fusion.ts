/**
 * Hybrid that never hurts keyword (issue 36): on real repositories, every name lookup (a
 * function name exactly as defined) is searched in keyword mode and in hybrid mode with a
 * generated model of each family's shape — potion-shape (static) and minilm-shape
 * (transformer), seeded random weights, i.e. a semantic leg that is noise — and the first
 * results are compared. Also reports what the noise does to the rest of the top 10, and to the
 * repository's prose questions (bench/eval/repos/hand.json): how often their first result
 * changes, and whether answers found by meaning alone still come back in hybrid.
 *
 * Usage: [SIFT_BIN=other/bin/sift] tsx bench/static-fusion.ts [repo ...] [--per-repo 150] [--families static,transformer]
 *   repos are folders of bench/corpora/repos (default cobra click requests hiredis).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureGeneratedModel } from '../scripts/gen-models.ts';
import { listFiles } from './util.ts';

const ROOT = decodeURIComponent(new URL('../', import.meta.url).pathname);
const MODELS = join(ROOT, 'models/generated');
/** The CLI under test: this checkout's, or SIFT_BIN (another checkout's bin/sift, for a before/after). */
const SIFT = process.env.SIFT_BIN ?? join(ROOT, 'bin/sift');
const DEF_RE: Record<string, RegExp> = {
  '.go': /^func (?:\([^)]*\) )?([A-Za-z_]\w*)\(/gm,
  '.py': /^\s*def ([A-Za-z_]\w*)\(/gm,
  '.js': /^(?:export )?(?:async )?function\*? ?([A-Za-z_$][\w$]*)\(/gm,
  '.ts': /^(?:export )?(?:async )?function\*? ?([A-Za-z_$][\w$]*)\(/gm,
  // A C function definition: at column 0, a return type, the name, '(' and no ';' on the line.
  '.c': /^(?:static |inline |const |unsigned |struct )*[A-Za-z_]\w*[\s*]+([A-Za-z_]\w*)\([^;]*$/gm,
};

interface Hit { path: string; start_line: number; explain?: { legs: string[] } }

function sift(args: string[], home: string, input?: string): string {
  const r = spawnSync(process.execPath, [SIFT, ...args], { encoding: 'utf8', input, env: { ...process.env, SIFT_HOME: home, SIFT_OFFLINE: '1' }, maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`sift ${args.slice(0, 3).join(' ')}: ${r.stderr.slice(-400)}`);
  return r.stdout;
}

/** Names defined in the tree (seeded sample, sorted for a stable order). */
function names(dir: string, max: number): string[] {
  const seen = new Set<string>();
  for (const f of listFiles(dir).sort()) {
    const re = DEF_RE[f.slice(f.lastIndexOf('.'))];
    if (!re || /(^|\/)(vendor|testdata|node_modules)\//.test(f)) continue;
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(re)) if (m[1]!.length >= 4) seen.add(m[1]!);
  }
  const all = [...seen].sort();
  const step = Math.max(1, all.length / max);
  return Array.from({ length: Math.min(max, all.length) }, (_, i) => all[Math.floor(i * step)]!);
}

function searchAll(dir: string, db: string, home: string, queries: string[], mode: string): Hit[][] {
  const out = sift(['search', dir, '--stdin', '--json', '--db', db, '--mode', mode, '--explain', '--limit', '10'], home, queries.join('\n') + '\n');
  return out.trim().split('\n').map((l) => (JSON.parse(l) as { results: Hit[] }).results);
}

/** The repository's hand-written prose questions (bench/eval/repos/hand.json). */
function proseQuestions(repo: string): string[] {
  const hand = JSON.parse(readFileSync(join(ROOT, 'bench/eval/repos/hand.json'), 'utf8')) as { questions: Array<{ repo: string; question: string }> };
  return hand.questions.filter((q) => q.repo === repo).map((q) => q.question);
}

const same = (a: Hit | undefined, b: Hit | undefined): boolean => !!a && !!b && a.path === b.path && a.start_line === b.start_line;

export async function staticFusionCheck(repos: string[], perRepo: number, families: string[]): Promise<string> {
  const models: Record<string, string> = {
    static: await ensureGeneratedModel('potion-shape', MODELS),
    transformer: await ensureGeneratedModel('minilm-shape', MODELS),
  };
  const L = ['| repo | family | name lookups | first result changed | keyword top-1 still in hybrid top 3 | hybrid top-10 rows from the vector leg only | keyword top-10 rows kept in hybrid top 10 | prose questions | prose: first result changed | prose: with a vector-only row in the top 10 |', '|---|---|---|---|---|---|---|---|---|---|'];
  const changedExamples: string[] = [];
  for (const repo of repos) {
    const dir = join(ROOT, 'bench/corpora/repos', repo);
    const work = mkdtempSync(join(tmpdir(), 'sift-fusion-'));
    try {
      const home = join(work, 'home');
      const qs = names(dir, perRepo);
      const prose = proseQuestions(repo);
      const base = join(work, 'kw.db');
      sift(['index', dir, '--db', base, '--no-embed', '--quiet'], home);
      const kw = searchAll(dir, base, home, qs, 'bm25');
      const kwProse = prose.length ? searchAll(dir, base, home, prose, 'bm25') : [];
      for (const fam of families) {
        const db = join(work, `${fam}.db`);
        sift(['index', dir, '--db', db, '--model', models[fam]!, '--quiet'], home);
        const hy = searchAll(dir, db, home, qs, 'hybrid');
        const hyProse = prose.length ? searchAll(dir, db, home, prose, 'hybrid') : [];
        let changed = 0;
        let vecOnly = 0;
        let rows = 0;
        let top3 = 0;
        let kept = 0;
        let kwRows = 0;
        qs.forEach((q, i) => {
          const a = kw[i]![0];
          const b = hy[i]![0];
          if (a && !same(a, b)) {
            changed++;
            if (changedExamples.length < 10) changedExamples.push(`${repo}/${fam}: "${q}" keyword ${a.path}:${a.start_line} → hybrid ${b ? `${b.path}:${b.start_line}` : 'none'}`);
          }
          if (a && hy[i]!.slice(0, 3).some((h) => same(h, a))) top3++;
          for (const h of hy[i]!) {
            rows++;
            if (h.explain && !h.explain.legs.includes('bm25')) vecOnly++;
          }
          for (const h of kw[i]!) {
            kwRows++;
            if (hy[i]!.some((x) => same(x, h))) kept++;
          }
        });
        let proseChanged = 0;
        let proseWithVector = 0;
        prose.forEach((_, i) => {
          if (kwProse[i]![0] && !same(kwProse[i]![0], hyProse[i]![0])) proseChanged++;
          if (hyProse[i]!.some((h) => h.explain && !h.explain.legs.includes('bm25'))) proseWithVector++;
        });
        L.push(`| ${repo} | ${fam} | ${qs.length} | ${changed} | ${top3}/${qs.filter((_, i) => kw[i]![0]).length} | ${rows ? ((100 * vecOnly) / rows).toFixed(1) : '0'}% | ${kwRows ? ((100 * kept) / kwRows).toFixed(1) : '0'}% | ${prose.length} | ${proseChanged} | ${proseWithVector} |`);
        console.error(L[L.length - 1]); // rows as they come: a transformer run takes minutes per repository
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return [...L, '', ...(changedExamples.length ? ['Changed first results:', ...changedExamples.map((e) => `- ${e}`)] : ['No first result changed.'])].join('\n');
}

const argv = process.argv.slice(2);
if (process.argv[1] && /static-fusion\.ts$/.test(process.argv[1])) {
  const per = argv.indexOf('--per-repo');
  const fam = argv.indexOf('--families');
  const skip = new Set([...(per >= 0 ? [per, per + 1] : []), ...(fam >= 0 ? [fam, fam + 1] : [])]);
  const repos = argv.filter((a, i) => !skip.has(i) && !a.startsWith('--'));
  console.log(await staticFusionCheck(repos.length ? repos : ['cobra', 'click', 'requests', 'hiredis'], per >= 0 ? Number(argv[per + 1]) : 150, fam >= 0 ? argv[fam + 1]!.split(',') : ['static', 'transformer']));
}
