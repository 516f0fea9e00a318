/**
 * The corpora of the repository eval (bench/eval/repos.ts): public repositories pinned in
 * bench/eval/repos.json (name, owner/name, language, commit), each checked out from a bare
 * mirror that the session tool `fetch` put under /work/.mirror/<owner>+<name>/repo into the
 * git-ignored bench/corpora/repos/<name>/. Nothing here downloads anything: a missing mirror
 * or commit is reported with the fetch that brings it. The code of these repositories is
 * never committed to this project.
 *
 * A checkout is the commit's whole tree (read-tree + checkout-index into a private index
 * file, so the mirror is not written to and .gitattributes export-ignore rules, which drop
 * tests from `git archive`, do not apply). bench/corpora/repos/<name>.commit records what
 * the folder holds; `prepare` re-checks out a folder whose marker names another commit.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, CORPORA_DIR, TMP_DIR, listFiles, run } from '../../util.ts';

export const MANIFEST = join(BENCH_DIR, 'eval', 'repos.json');
export const REPOS_DIR = join(CORPORA_DIR, 'repos');
export const MIRROR_ROOT = process.env.SIFT_MIRROR_ROOT ?? '/work/.mirror';

export interface RepoSpec {
  /** Short unique name: the checkout folder and the prefix of question ids. */
  name: string;
  /** owner/name on GitHub. */
  repo: string;
  /** The repository's main language (one per repo, for the per-language table). */
  language: string;
  /** Full commit id the corpus is pinned at. */
  commit: string;
}

export function readManifest(): RepoSpec[] {
  return (JSON.parse(readFileSync(MANIFEST, 'utf8')) as { repos: RepoSpec[] }).repos;
}

export function mirrorDir(spec: RepoSpec): string {
  return join(MIRROR_ROOT, spec.repo.replace('/', '+'), 'repo');
}

export function checkoutDir(spec: RepoSpec): string {
  return join(REPOS_DIR, spec.name);
}

function git(gitDir: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return run('git', ['--git-dir', gitDir, ...args], { env: { ...process.env, ...env } });
}

/** Why the mirror cannot give the pinned commit (with the fetch that would), or null when it can. */
export function mirrorProblem(spec: RepoSpec): string | null {
  const g = mirrorDir(spec);
  if (!existsSync(g)) return `${spec.name}: no mirror at ${g}; fetch github:${spec.repo}`;
  if (git(g, ['cat-file', '-e', `${spec.commit}^{commit}`]).status !== 0) {
    return `${spec.name}: ${g} lacks commit ${spec.commit}; fetch github:${spec.repo} again (or re-pin repos.json)`;
  }
  return null;
}

/** Check out `spec` into bench/corpora/repos/<name>/ unless it is there already. Returns the file count. */
export function prepareRepo(spec: RepoSpec): { dir: string; files: number; fresh: boolean; missing?: string[] } {
  const dir = checkoutDir(spec);
  const marker = `${dir}.commit`;
  if (existsSync(dir) && existsSync(marker) && readFileSync(marker, 'utf8').trim() === spec.commit) {
    return { dir, files: listFiles(dir).length, fresh: false };
  }
  const problem = mirrorProblem(spec);
  if (problem) throw new Error(problem);
  rmSync(dir, { recursive: true, force: true });
  rmSync(marker, { force: true });
  mkdirSync(dir, { recursive: true });
  mkdirSync(TMP_DIR, { recursive: true });
  const index = join(TMP_DIR, `repos-checkout-${spec.name}.index`);
  rmSync(index, { force: true });
  const env = { GIT_INDEX_FILE: index };
  const g = mirrorDir(spec);
  const ok = (args: string[], input?: string) => {
    const r = input === undefined ? git(g, args, env) : run('git', ['--git-dir', g, ...args], { env: { ...process.env, ...env }, input });
    if (r.status !== 0) throw new Error(`${spec.name}: git ${args.join(' ')} failed: ${r.stderr.slice(0, 1000)}`);
    return r.stdout;
  };
  ok(['read-tree', spec.commit]);
  // Snapshots lack blobs of 4 MiB and more: leave those paths out (Sift skips files over 1 MB).
  const entries = ok(['ls-files', '-s']).split('\n').filter(Boolean).map((l) => {
    const tab = l.indexOf('\t');
    return { sha: l.split(' ')[1], path: l.slice(tab + 1) };
  });
  const check = ok(['cat-file', '--batch-check'], entries.map((e) => e.sha).join('\n') + '\n').split('\n');
  const missing = entries.filter((_, i) => check[i]?.endsWith(' missing')).map((e) => e.path);
  if (missing.length) ok(['update-index', '--force-remove', '-z', '--stdin'], missing.join('\0') + '\0');
  ok(['--work-tree', dir, 'checkout-index', '-a', '-f']);
  rmSync(index, { force: true });
  writeFileSync(marker, spec.commit + '\n');
  return { dir, files: listFiles(dir).length, fresh: true, missing };
}
