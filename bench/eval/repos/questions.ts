/**
 * Questions whose answers are files, for the repository eval (bench/eval/repos.ts).
 *
 * Two sources, both stored as committed JSON next to this module:
 * - commits.json: from each pinned repository's own history, a commit's subject is the
 *   question and the source files it changed are the answers. Written by
 *   `npx tsx bench/eval/repos.ts questions` (pickCommitQuestions), deterministic for a given
 *   mirror and seed.
 * - hand.json: a handful per repository, written by a person after reading the code
 *   (what implements a behaviour, how a part is built, where a named thing is), each tagged
 *   behaviour | architecture | symbol. Commit questions carry the category `change`.
 *
 * The commit filter (pure, tested in repos.test.ts):
 * - no merges, no bot authors; the subject is cleaned of issue references ("(#123)",
 *   "fixes #12", "GH-7"), leading "[tag]"s and one leading "word:" / "type(scope):" prefix;
 * - skipped when the subject (before cleaning) is about a release or version bump, a revert,
 *   typos/formatting/lint/style, CI, dependencies, docs/readme/changelog/comments/license, or
 *   when its conventional type is chore/ci/build/docs/style/test/release; or when the cleaned
 *   subject has fewer than MIN_WORDS words;
 * - answers = the changed files that are source files (a code extension, not a test, doc,
 *   example, benchmark, generated or vendored path): 1..MAX_ANSWERS of them, none deleted by the
 *   commit and every one present at the pinned commit; the commit may also touch tests, docs or
 *   changelogs (not answers) but no more than MAX_CHANGED files in all;
 * - one question per distinct cleaned subject (the newest commit keeps it); then, in a seeded
 *   order (sampleOrder: by a hash of seed and commit id, so a filter change moves only the
 *   commits it adds or drops), the first PER_REPO whose change still stands at the pinned
 *   commit: at least MIN_SURVIVAL of the lines it added (over its answers) are still lines of
 *   those files, and only the answers that keep at least one stay answers (survivingAnswers).
 */
import { createHash } from 'node:crypto';
import { run } from '../../util.ts';

export type Category = 'change' | 'behaviour' | 'architecture' | 'symbol';
export type Source = 'commit' | 'hand';
/**
 * The failure classes of issue 35 a hand-written question was written for: the concept is the
 * file in another word form (`concept-file`), a name behind a macro, attribute or sigil
 * (`macro-name`), a namespaced name in prose (`namespaced`); since the fourth round also a long
 * file that runs the whole process (`orchestrator`, class 4), a named type or option whose
 * behaviour lives in another file (`named-type`) and words the code does not use (`vocabulary`,
 * class 6).
 */
export type QuestionClass = 'concept-file' | 'macro-name' | 'namespaced' | 'orchestrator' | 'named-type' | 'vocabulary';

export interface Question {
  /** `<repo name>/c<n>` for commits, `<repo name>/h<n>` for hand-written ones. */
  id: string;
  repo: string;
  category: Category;
  source: Source;
  question: string;
  /** Paths relative to the repository root (1..3). */
  answers: string[];
  /** The commit a `commit` question comes from. */
  commit?: string;
  /** The issue 35 failure class a hand-written question tests (reported apart). */
  class?: QuestionClass;
}

export const MIN_WORDS = 4;
export const MAX_ANSWERS = 3;
export const MAX_CHANGED = 6;
export const PER_REPO = 40;
export const SEED = 42;

export const CODE_EXTENSIONS: readonly string[] = [
  'ex', 'exs', 'hs', 'lhs', 'zig', 'kt', 'kts', 'swift', 'scala', 'sc', 'lua', 'dart', 'rs', 'go', 'py', 'pyi',
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'java', 'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hxx', 'hh', 'ipp',
  'inl', 'rb', 'php', 'cs', 'fs', 'm', 'mm', 'vim', 'el', 'erl', 'ml', 'clj',
];

const TEST_SEGMENT = /^(tests?|specs?|__tests__|__mocks__|testdata|test-?data|testing|test-?suite|fixtures?|.*[._-]tests?|.*tests)$/i;
const TEST_FILE = /(^test_|^tests?\.|_tests?\.|\.tests?\.|\.spec\.|_spec\.|-spec\.|-test\.|^spec_|[a-z0-9]Tests?\.(swift|kt|kts|java|cs|scala|dart|php|m)$|[a-z0-9]Spec\.(scala|hs|kt|groovy)$|_test\.dart$)/;
/** Gradle/Kotlin source sets of tests: jvmTest, commonTest, androidTest, integrationTest. */
const SOURCE_SET_TEST = /^[a-z]+Test$/;
const TEST_HELPER = /^(Test[A-Z_]\w*|test_?helpers?|testutils?|test_?support)\.\w+$/;
const OTHER_SEGMENT = /^(docs?|documentation|examples?|samples?|demos?|bench|benches|benchmarks?|metrics|perf|\.github|\.circleci|vendor|vendored|third[_-]?party|external|deps|single_include|generated|node_modules|site|website|scripts?|tools?|ci)$/i;

export type FileRole = 'source' | 'test' | 'other';

/** What a changed file is: a source file (a possible answer), a test, or anything else. */
export function fileRole(path: string): FileRole {
  const parts = path.split('/');
  const base = parts[parts.length - 1];
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  const dirs = parts.slice(0, -1);
  if (dirs.some((d) => TEST_SEGMENT.test(d) || SOURCE_SET_TEST.test(d)) || TEST_FILE.test(base) || TEST_HELPER.test(base)) return 'test';
  if (!CODE_EXTENSIONS.includes(ext)) return 'other';
  if (dirs.some((d) => OTHER_SEGMENT.test(d))) return 'other';
  if (/\.(min|generated|g|pb|designer)\.[a-z]+$/i.test(base) || /benchmark/i.test(base) || /^setup\.py$|^conftest\.py$|^noxfile\.py$|^build\.(gradle\.kts|sbt|zig)$|^Package\.swift$|^mix\.exs$|^Setup\.hs$|^gulpfile|^Gruntfile|^rollup\.config|^vite\.config|^jest\.config|^webpack\.config/.test(base)) return 'other';
  return 'source';
}

const CONVENTIONAL_SKIP = /^(chore|ci|build|docs?|style|test|tests|release|revert|deps|bump|wip)(\([^)]*\))?!?:/i;
const SKIP_SUBJECT = new RegExp([
  String.raw`^merge\b`, String.raw`^revert\b`, String.raw`\breverts?\b`,
  String.raw`\bbump(s|ed|ing)?\b`, String.raw`\breleas(e|es|ed|ing)\b`, String.raw`^v?\d+\.\d+`, String.raw`\bversion \d`,
  String.raw`\bv\d+\.\d+`, String.raw`\bprepare (for )?(v|\d|the next|next)`, String.raw`\bversion (to |number )?v?\d`, String.raw`\b(assembly|package) version\b`,
  String.raw`^(misc|minor|cosmetic|nit|nits|cleanup|wip)\b`, String.raw`\bformatting (tweaks?|changes?|fixes|cleanup)\b`,
  String.raw`\b(mypy|pyright|flake8|pylint|ruff|black|isort|typecheck|type-check|rubocop|phpstan|phpcs|psalm|sonar\w*|codecov|coveralls)\b`,
  String.raw`\b(haddock|javadoc|kdoc|jsdoc|docblocks?|moduledoc|doc ?comments?|versionchanged|versionadded|since annotations?)\b`, String.raw`^document(s|ed|ing)?\b`,
  String.raw`\b(upgrade|update)\b.*\bto v?\d`,
  String.raw`\btypos?\b`, String.raw`\bspelling\b`, String.raw`\bmisspell`, String.raw`\bwhitespace\b`, String.raw`\bclang-format\b`,
  String.raw`\b(apply|run|code|source|auto)[ -]?format(ting|ter)?\b`, String.raw`\bfix(ed|es)? (the |code |source )?formatting$`, String.raw`\bformat(ted)? (the )?(code|sources?|files?)\b`,
  String.raw`\breformat`, String.raw`\b(cargo|go|mix|zig) (fmt|format)\b`, String.raw`\blint(s|er|ers|ing)?\b`, String.raw`\bclippy\b`, String.raw`\brustfmt\b`,
  String.raw`\bprettier\b`, String.raw`\beslint\b`, String.raw`\brubocop\b`, String.raw`\bcredo\b`, String.raw`\bhlint\b`, String.raw`\bswiftlint\b`,
  String.raw`\bktlint\b`, String.raw`\bscalafmt\b`, String.raw`\bgofmt\b`, String.raw`\bstylua\b`, String.raw`\bcode style\b`, String.raw`\bindentation\b`,
  String.raw`\bci\b`, String.raw`\btravis\b`, String.raw`\bappveyor\b`, String.raw`\bgithub actions?\b`, String.raw`\bworkflows?\b`, String.raw`\bcircleci\b`,
  String.raw`\bdeps\b`, String.raw`\bdependenc(y|ies)\b`, String.raw`\bdependabot\b`, String.raw`\brenovate\b`,
  String.raw`\bdocs?\b`, String.raw`\bdocumentation\b`, String.raw`\breadme\b`, String.raw`\bchangelog\b`, String.raw`\bchanges\.(md|txt)\b`,
  String.raw`\b(add|update|fix|improve|clarify|remove|tweak)\w* (the |some |code |more )?comments?\b`, String.raw`\bdocstrings?\b`,
  String.raw`\bcopyright\b`, String.raw`\blicen[cs]e\b`, String.raw`\bwip\b`,
  String.raw`\bcode review\b`, String.raw`\breview (comments|feedback|suggestions|remarks)\b`, String.raw`\bmerge\b.*\bbranch\b`, String.raw`\bresolve (merge )?conflicts\b`,
  String.raw`^update [\w./-]+\.\w+$`, String.raw`\bdart format\b`, String.raw`\bspacing\b`, String.raw`\bgrammar\b`,
  String.raw`\b(fix|fixes|fixed|fixing|suppress\w*|silenc\w*|remov\w*|resolv\w*|eliminat\w*|avoid\w*|address\w*)\b.*\bwarnings?\b`,
  String.raw`^add(ed|s)? (more |some |missing |a |new )?(units? )?tests?\b`, String.raw`\bmore (units? )?tests\b`, String.raw`\b(fix|improve|refactor|clean)\w* (the |flaky |broken )?tests?\b`,
].join('|'), 'i');
const BOT_AUTHOR = /\[bot\]|dependabot|renovate|github-actions|pre-commit-ci|greenkeeper/i;

/** The question a commit subject becomes, or null with the reason it is skipped. */
export function cleanSubject(subject: string): { text: string } | { skip: string } {
  const raw = subject.trim();
  if (CONVENTIONAL_SKIP.test(raw)) return { skip: 'conventional type' };
  if (SKIP_SUBJECT.test(raw)) return { skip: 'subject' };
  let s = raw
    .replace(/(^|\s):[a-z0-9_+-]+:(?=\s|$)/g, ' ')
    .replace(/\(\s*(?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see)\s+)?(?:[\w.-]+\/[\w.-]+)?#\d+(?:\s*,\s*#\d+)*\s*\)/gi, ' ')
    .replace(/\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?)\s+(?:[\w.-]+\/[\w.-]+)?#\d+/gi, ' ')
    .replace(/\[[^\]]*#\d+[^\]]*\]/g, ' ')
    .replace(/(?:^|\s)(?:[\w.-]+\/[\w.-]+)?#\d+\b/g, ' ')
    .replace(/\bGH-\d+\b/gi, ' ')
    .trim();
  s = s.replace(/^[-*+•>:;,.\s]+/, '');
  while (/^\[[^\]]*\]\s*/.test(s)) s = s.replace(/^\[[^\]]*\]\s*/, '');
  // The first sentence of a long subject ("Fix X. This changes Y to Z").
  s = s.split(/\.\s+(?=[A-Z])|\s+-(?=[A-Z])/)[0];
  s = s.replace(/^[\w./@*-]+(?:\([^)]*\))?!?:\s+/, '');
  s = s.replace(/\s+/g, ' ').replace(/[\s.:;,-]+$/, '').trim();
  // Again on the cleaned subject: `:white_check_mark: add tests`, `[x] Merge branch` start here.
  if (SKIP_SUBJECT.test(s)) return { skip: 'subject' };
  if (wordCount(s) < MIN_WORDS) return { skip: 'short' };
  return { text: s };
}

export function wordCount(s: string): number {
  return (s.match(/[\p{L}\p{N}_]+/gu) ?? []).length;
}

export interface CommitInfo {
  sha: string;
  author: string;
  subject: string;
  /** Name-status pairs, renames split into a delete and an add (`--no-renames`). */
  changes: Array<{ status: string; path: string }>;
}

/** Parse `git log --no-renames --name-status --format=%x00%H%x09%an%x09%s` output. */
export function parseLog(out: string): CommitInfo[] {
  const commits: CommitInfo[] = [];
  for (const block of out.split('\0')) {
    if (!block.trim()) continue;
    const lines = block.split('\n');
    const [sha, author, ...rest] = lines[0].split('\t');
    const changes = lines.slice(1).filter((l) => l.includes('\t')).map((l) => {
      const [status, ...p] = l.split('\t');
      return { status: status[0], path: p.join('\t') };
    });
    commits.push({ sha, author, subject: rest.join('\t'), changes });
  }
  return commits;
}

/** The question a commit gives (answers in path order), or null with why not. */
export function commitQuestion(c: CommitInfo, atHead: ReadonlySet<string>): { question: string; answers: string[] } | { skip: string } {
  if (BOT_AUTHOR.test(c.author)) return { skip: 'bot' };
  if (c.changes.length === 0) return { skip: 'no files' };
  if (c.changes.length > MAX_CHANGED) return { skip: 'too many files' };
  const source = c.changes.filter((x) => fileRole(x.path) === 'source');
  if (source.length === 0) return { skip: 'no source file' };
  if (source.length > MAX_ANSWERS) return { skip: 'too many source files' };
  if (source.some((x) => x.status === 'D' || !atHead.has(x.path))) return { skip: 'file gone' };
  const subject = cleanSubject(c.subject);
  if ('skip' in subject) return subject;
  return { question: subject.text, answers: [...new Set(source.map((x) => x.path))].sort() };
}

/**
 * The added lines of a `git show --format= -U0 --no-renames` diff, per new path (trimmed,
 * only lines with at least MIN_LINE_CHARS characters and 3 letters or digits: a brace or
 * `end` says nothing about where the change still stands).
 */
export function addedLines(diff: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let cur: string[] | null = null;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) cur = null;
    else if (line.startsWith('+++ ')) {
      const p = line.slice(4).replace(/\r$/, '');
      cur = p === '/dev/null' ? null : [];
      if (cur) out.set(p.startsWith('b/') ? p.slice(2) : p, cur);
    } else if (cur && line.startsWith('+')) {
      const t = line.slice(1).trim();
      if (t.length >= MIN_LINE_CHARS && (t.match(/[\p{L}\p{N}]/gu) ?? []).length >= 3) cur.push(t);
    }
  }
  return out;
}

export const MIN_LINE_CHARS = 8;
/** Share of a commit's added lines (over its answer files) that must still stand at the pinned commit. */
export const MIN_SURVIVAL = 0.5;

/**
 * Which answers of a commit still hold what it added: files with at least one of its added
 * lines still present (trimmed, as a whole line) in the file at the pinned commit; null when
 * fewer than MIN_SURVIVAL of all added lines are (the code moved on: an old subject about a
 * file rewritten since would ask about code that is no longer there).
 */
export function survivingAnswers(
  answers: readonly string[], added: ReadonlyMap<string, readonly string[]>, headText: (path: string) => string | null,
): string[] | null {
  let total = 0;
  let kept = 0;
  const out: string[] = [];
  for (const path of answers) {
    const lines = added.get(path) ?? [];
    const text = headText(path);
    const head = new Set((text ?? '').split('\n').map((l) => l.trim()));
    const n = lines.filter((l) => head.has(l)).length;
    total += lines.length;
    kept += n;
    if (n > 0) out.push(path);
  }
  if (total === 0 || kept / total < MIN_SURVIVAL || out.length === 0) return null;
  return out;
}

/**
 * Candidates in a seeded pseudo-random order that is stable under edits of the candidate list:
 * each is ranked by sha256(`<seed>:<commit>`), so a filter change that adds or drops a few
 * candidates moves only those, not the whole sample (a seeded shuffle by position would).
 */
export function sampleOrder<T extends { sha: string }>(items: readonly T[], seed: number): T[] {
  const key = (x: T) => createHash('sha256').update(`${seed}:${x.sha}`).digest('hex');
  return items.map((x) => ({ x, k: key(x) })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0)).map((e) => e.x);
}

/**
 * Pick up to `perRepo` commit questions: distinct subjects, seeded shuffle, then in that order
 * the first whose change still stands (`survives` gives the answers left, or null). Deterministic.
 */
export function pickCommitQuestions(
  repo: string, commits: readonly CommitInfo[], atHead: ReadonlySet<string>,
  survives: (sha: string, answers: string[]) => string[] | null,
  o: { perRepo?: number; seed?: number } = {},
): { questions: Question[]; candidates: number; skipped: Record<string, number> } {
  const skipped: Record<string, number> = {};
  const seen = new Set<string>();
  const candidates: Array<{ sha: string; question: string; answers: string[] }> = [];
  for (const c of commits) {
    const q = commitQuestion(c, atHead);
    if ('skip' in q) {
      skipped[q.skip] = (skipped[q.skip] ?? 0) + 1;
      continue;
    }
    const key = q.question.toLowerCase();
    if (seen.has(key)) {
      skipped['duplicate subject'] = (skipped['duplicate subject'] ?? 0) + 1;
      continue;
    }
    seen.add(key);
    candidates.push({ sha: c.sha, ...q });
  }
  const questions: Question[] = [];
  for (const p of sampleOrder(candidates, o.seed ?? SEED)) {
    if (questions.length >= (o.perRepo ?? PER_REPO)) break;
    const answers = survives(p.sha, p.answers);
    if (!answers) {
      skipped['code moved on'] = (skipped['code moved on'] ?? 0) + 1;
      continue;
    }
    questions.push({
      id: `${repo}/c${questions.length + 1}`, repo, category: 'change', source: 'commit', question: p.question, answers, commit: p.sha,
    });
  }
  return { questions, candidates: candidates.length, skipped };
}

/** `survives` for pickCommitQuestions over a mirror at the pinned commit. */
export function mirrorSurvival(gitDir: string, commit: string): (sha: string, answers: string[]) => string[] | null {
  const cache = new Map<string, string | null>();
  const headText = (path: string) => {
    if (!cache.has(path)) {
      const r = run('git', ['--git-dir', gitDir, 'cat-file', 'blob', `${commit}:${path}`]);
      cache.set(path, r.status === 0 ? r.stdout : null);
    }
    return cache.get(path)!;
  };
  return (sha, answers) => {
    const r = run('git', ['--git-dir', gitDir, 'show', '--format=', '-U0', '--no-renames', '--no-color', sha, '--', ...answers]);
    if (r.status !== 0) throw new Error(`git show ${sha} failed in ${gitDir}: ${r.stderr.slice(0, 500)}`);
    return survivingAnswers(answers, addedLines(r.stdout), headText);
  };
}

/** Read a mirror's history up to `commit` and the paths present at it. */
export function readHistory(gitDir: string, commit: string): { commits: CommitInfo[]; atHead: Set<string> } {
  const log = run('git', ['--git-dir', gitDir, 'log', '--no-merges', '--no-renames', '--name-status', '--format=%x00%H%x09%an%x09%s', commit]);
  if (log.status !== 0) throw new Error(`git log failed in ${gitDir}: ${log.stderr.slice(0, 500)}`);
  const tree = run('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', '-z', commit]);
  if (tree.status !== 0) throw new Error(`git ls-tree failed in ${gitDir}: ${tree.stderr.slice(0, 500)}`);
  return { commits: parseLog(log.stdout), atHead: new Set(tree.stdout.split('\0').filter(Boolean)) };
}

export type ResultKind = 'source' | 'test' | 'docs' | 'example/bench' | 'vendored/generated' | 'config/data' | 'other';

/** What kind of file a result is, for the report's "what fills the top 10" table. */
export function resultKind(path: string): ResultKind {
  const parts = path.split('/');
  const base = parts[parts.length - 1];
  const dirs = parts.slice(0, -1).map((d) => d.toLowerCase());
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  if (fileRole(path) === 'test') return 'test';
  if (dirs.some((d) => /^(vendor|vendored|third[_-]?party|external|single_include|generated|node_modules)$/.test(d)) || /\.(min|generated|g|pb|designer)\.[a-z]+$/i.test(base)) return 'vendored/generated';
  if (dirs.some((d) => /^(examples?|samples?|demos?|bench|benches|benchmarks?|metrics|perf)$/.test(d)) || /benchmark/i.test(base)) return 'example/bench';
  if (['md', 'mdx', 'markdown', 'rst', 'txt', 'adoc', 'asciidoc', 'html', 'htm', 'org', 'pod', 'rdoc', 'textile'].includes(ext) ||
    /^(readme|changelog|changes|history|license|licence|copying|authors|contributing|news)(\.|$)/i.test(base) ||
    (!CODE_EXTENSIONS.includes(ext) && dirs.some((d) => /^(docs?|documentation|site|website|guides?|manual)$/.test(d)))) return 'docs';
  if (CODE_EXTENSIONS.includes(ext)) return 'source';
  if (['json', 'yaml', 'yml', 'toml', 'xml', 'ini', 'cfg', 'conf', 'lock', 'csproj', 'sln', 'props', 'targets', 'gradle', 'properties', 'cabal', 'nix', 'plist', 'pbxproj', 'xcconfig', 'editorconfig', 'sbt', 'mill', 'rockspec', 'gemspec'].includes(ext) ||
    /^(makefile|dockerfile|gemfile|rakefile|podfile|cmakelists\.txt|package\.swift|build\.zig|mix\.exs)$/i.test(base)) return 'config/data';
  return 'other';
}
