import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMITS_FILE, HAND_FILE, readQuestions } from './repos.ts';
import { MANIFEST, REPOS_DIR, readManifest } from './repos/corpus.ts';
import { plainQuery, plainSearch } from './repos/plain-bm25.ts';
import {
  addedLines, cleanSubject, commitQuestion, fileRole, parseLog, pickCommitQuestions, resultKind, sampleOrder, survivingAnswers, type CommitInfo,
} from './repos/questions.ts';
import { aggregate, distinctFiles, firstHit, ndcg, type ScoredQuestion } from './repos/score.ts';

describe('ndcg', () => {
  const d = (r: number) => 1 / Math.log2(r + 1);

  it('is 1 when every answer leads, in any order', () => {
    expect(ndcg(['a', 'b', 'x'], ['b', 'a'])).toBeCloseTo(1);
  });

  it('gives a repeated piece of an answered file no gain, and it still takes the slot', () => {
    // a at 1, a again at 2 (no gain), b at 3.
    expect(ndcg(['a', 'a', 'b'], ['a', 'b'])).toBeCloseTo((d(1) + d(3)) / (d(1) + d(2)));
    expect(ndcg(['a', 'a', 'a'], ['a', 'b'])).toBeCloseTo(d(1) / (d(1) + d(2)));
  });

  it('counts only the top k and caps the ideal at k', () => {
    const ranked = [...'xxxxxxxxxx'.split('').map((x, i) => `${x}${i}`), 'a'];
    expect(ndcg(ranked, ['a'])).toBe(0);
    expect(ndcg(['a'], ['a'], 1)).toBe(1);
    expect(ndcg(['b'], ['a', 'b'], 1)).toBe(1); // ideal DCG = min(2, 1) ones
  });

  it('scores a single answer at rank r as 1/log2(r+1)', () => {
    expect(ndcg(['x', 'y', 'a'], ['a'])).toBeCloseTo(0.5);
  });

  it('refuses a question without answers', () => {
    expect(() => ndcg(['a'], [])).toThrow();
  });

  it('firstHit and distinctFiles', () => {
    expect(firstHit(['x', 'a', 'a'], ['a'])).toBe(2);
    expect(firstHit(['x'], ['a'])).toBeNull();
    expect(distinctFiles(['a', 'a', 'b', 'c', 'b'])).toBe(3);
  });
});

describe('aggregate', () => {
  const q = (repo: string, language: string, category: string, n: number): ScoredQuestion =>
    ({ id: `${repo}/${Math.random()}`, repo, language, category, source: category === 'change' ? 'commit' : 'hand', ndcg: n, distinct: 5, firstHit: n > 0 ? 1 : null });

  it('weighs every repository the same in the headline, pools questions per category', () => {
    const a = aggregate([q('r1', 'go', 'change', 1), q('r1', 'go', 'change', 1), q('r1', 'go', 'symbol', 1), q('r2', 'c', 'change', 0)]);
    expect(a.repos.r1.ndcg).toBe(1);
    expect(a.repos.r2.ndcg).toBe(0);
    expect(a.overall).toBe(0.5);
    expect(a.pooled).toBe(0.75);
    expect(a.categories.change).toEqual({ questions: 3, ndcg: 2 / 3 });
    expect(a.languages.go).toEqual({ repos: 1, ndcg: 1 });
    expect(a.recall).toBe(0.75);
  });
});

describe('commit subjects', () => {
  it('strips issue references, tags and one prefix', () => {
    expect(cleanSubject('fix(router): handle empty path segments (#1234)')).toEqual({ text: 'handle empty path segments' });
    expect(cleanSubject('[core] Support HTTP 425 status code, fixes #12')).toEqual({ text: 'Support HTTP 425 status code' });
    expect(cleanSubject('Plug.Static: perform cache negotiation and return 304')).toEqual({ text: 'perform cache negotiation and return 304' });
    expect(cleanSubject(':bug: fixed integer overflow in dump function')).toEqual({ text: 'fixed integer overflow in dump function' });
    expect(cleanSubject('-Fixed error when writing unknown null value -Fixed other thing')).toEqual({ text: 'Fixed error when writing unknown null value' });
    expect(cleanSubject('Change number parsing to one loop. This changes it to return STRING')).toEqual({ text: 'Change number parsing to one loop' });
  });

  it('keeps qualified names intact', () => {
    expect(cleanSubject('Add missing clap::builder::OsStr impl')).toEqual({ text: 'Add missing clap::builder::OsStr impl' });
    expect(cleanSubject('Implement std::vector::push formatting')).toEqual({ text: 'Implement std::vector::push formatting' });
  });

  it('skips releases, bumps, reverts, typos, formatting, lint, CI, deps, docs and merges', () => {
    for (const s of [
      'Bump version to 1.2.3', 'Release 4.0.0', 'v2.1.0', 'Revert "Add retries to the client"', 'Fix typo in router',
      'Run cargo fmt on the workspace', 'Fix clippy warnings in parser', 'Update CI matrix for windows', 'chore(deps): update serde',
      'Update dependencies of the build', 'Improve docs for Router.match', 'Update README with examples', 'Merge branch main into feature',
      'docs: explain the retry policy', 'Incremented version to 4.5.5', 'Add tests for the parser',
    ]) expect(cleanSubject(s), s).toHaveProperty('skip');
  });

  it('keeps subjects that only look like skip words inside real work', () => {
    expect(cleanSubject('Fix format of negative zero in floats')).toHaveProperty('text');
    expect(cleanSubject('Support websocket upgrade for http handlers')).toHaveProperty('text');
  });

  it('needs at least four words', () => {
    expect(cleanSubject('Fix parser')).toEqual({ skip: 'short' });
    expect(cleanSubject('fix: parse empty header values')).toEqual({ text: 'parse empty header values' });
  });
});

describe('file roles', () => {
  it('tells sources from tests and everything else', () => {
    expect(fileRole('lib/plug/router.ex')).toBe('source');
    expect(fileRole('include/fmt/format.h')).toBe('source');
    expect(fileRole('Src/Newtonsoft.Json/JsonReader.cs')).toBe('source');
    expect(fileRole('Src/Newtonsoft.Json.Tests/JsonReaderTests.cs')).toBe('test');
    expect(fileRole('command_test.go')).toBe('test');
    expect(fileRole('tests/test_utils.py')).toBe('test');
    expect(fileRole('packages/zod/src/v4/classic/tests/string.test.ts')).toBe('test');
    expect(fileRole('Tests/SessionTests.swift')).toBe('test');
    expect(fileRole('spec/router_spec.rb')).toBe('test');
    expect(fileRole('CHANGELOG.md')).toBe('other');
    expect(fileRole('Cargo.lock')).toBe('other');
    expect(fileRole('examples/demo.rs')).toBe('other');
    expect(fileRole('single_include/nlohmann/json.hpp')).toBe('other');
    expect(fileRole('setup.py')).toBe('other');
  });

  it('result kinds: code under doc/ is source, prose is docs', () => {
    expect(resultKind('doc/man_docs.go')).toBe('source');
    expect(resultKind('docs/guide.md')).toBe('docs');
    expect(resultKind('README.md')).toBe('docs');
    expect(resultKind('args_test.go')).toBe('test');
    expect(resultKind('examples/basic.rs')).toBe('example/bench');
    expect(resultKind('single_include/nlohmann/json.hpp')).toBe('vendored/generated');
    expect(resultKind('package.json')).toBe('config/data');
  });
});

describe('commit questions', () => {
  const log = [
    '\0aaa\tAlice\tfix(static): serve brotli files when accepted (#10)', 'M\tlib/static.ex', 'M\ttest/static_test.exs', 'M\tCHANGELOG.md', '',
    '\0bbb\tBob\tSupport sessions stored in signed cookies', 'M\tlib/session.ex', 'D\tlib/old.ex', '',
    '\0ccc\tdependabot[bot]\tUpdate the parser to handle more headers', 'M\tlib/parser.ex', '',
    '\0ddd\tCarol\tRename a thing in all the places', 'M\ta.ex', 'M\tb.ex', 'M\tc.ex', 'M\td.ex', '',
    '\0eee\tDan\tOnly touch the tests for the router', 'M\ttest/router_test.exs', '',
  ].join('\n');
  const commits = parseLog(log);
  const atHead = new Set(['lib/static.ex', 'lib/session.ex', 'lib/parser.ex', 'a.ex', 'b.ex', 'c.ex', 'd.ex', 'test/router_test.exs']);

  it('parses name-status blocks', () => {
    expect(commits.map((c) => c.sha)).toEqual(['aaa', 'bbb', 'ccc', 'ddd', 'eee']);
    expect(commits[0].changes).toEqual([
      { status: 'M', path: 'lib/static.ex' }, { status: 'M', path: 'test/static_test.exs' }, { status: 'M', path: 'CHANGELOG.md' },
    ]);
  });

  it('answers are the changed source files; tests and changelogs ride along but are not answers', () => {
    expect(commitQuestion(commits[0], atHead)).toEqual({ question: 'serve brotli files when accepted', answers: ['lib/static.ex'] });
    expect(commitQuestion(commits[1], atHead)).toEqual({ skip: 'file gone' });
    expect(commitQuestion(commits[2], atHead)).toEqual({ skip: 'bot' });
    expect(commitQuestion(commits[3], atHead)).toEqual({ skip: 'too many source files' });
    expect(commitQuestion(commits[4], atHead)).toEqual({ skip: 'no source file' });
  });

  it('a change whose lines no longer stand is dropped; survivors keep only the files that still hold them', () => {
    const diff = [
      'diff --git a/lib/a.ex b/lib/a.ex', '--- a/lib/a.ex', '+++ b/lib/a.ex', '@@ -1 +1 @@', '-old', '+  def serve(conn, opts) do', '+end',
      'diff --git a/lib/b.ex b/lib/b.ex', '--- a/lib/b.ex', '+++ b/lib/b.ex', '@@ -1 +1 @@', '+  value = compute(thing)',
    ].join('\n');
    const added = addedLines(diff);
    expect(added.get('lib/a.ex')).toEqual(['def serve(conn, opts) do']); // `end` is too short to say anything
    const head = (texts: Record<string, string>) => (p: string) => texts[p] ?? null;
    // Half of the added lines stand (enough); b.ex keeps none of its own, so it is no answer.
    expect(survivingAnswers(['lib/a.ex', 'lib/b.ex'], added, head({ 'lib/a.ex': 'x\n  def serve(conn, opts) do\n', 'lib/b.ex': 'y' })))
      .toEqual(['lib/a.ex']);
    const more = addedLines(`${diff}\n+  other = compute(more)\n+  third = compute(again)`);
    expect(survivingAnswers(['lib/a.ex', 'lib/b.ex'], more, head({ 'lib/a.ex': 'def serve(conn, opts) do', 'lib/b.ex': '' }))).toBeNull(); // 1 of 4
    expect(survivingAnswers(['lib/a.ex'], added, head({ 'lib/a.ex': '  def serve(conn, opts) do' }))).toEqual(['lib/a.ex']);
    expect(survivingAnswers(['lib/a.ex'], added, head({ 'lib/a.ex': 'rewritten' }))).toBeNull();
  });

  it('sampling is seeded and deterministic, and skips changes that moved on', () => {
    const many: CommitInfo[] = Array.from({ length: 30 }, (_, i) => ({
      sha: `s${i}`, author: 'A', subject: `Handle case number ${i} in the parser`, changes: [{ status: 'M', path: 'lib/parser.ex' }],
    }));
    const keepEven = (sha: string, answers: string[]) => (Number(sha.slice(1)) % 2 === 0 ? answers : null);
    const a = pickCommitQuestions('r', many, atHead, keepEven, { perRepo: 5, seed: 7 });
    const b = pickCommitQuestions('r', many, atHead, keepEven, { perRepo: 5, seed: 7 });
    const c = pickCommitQuestions('r', many, atHead, keepEven, { perRepo: 5, seed: 8 });
    expect(a.questions).toEqual(b.questions);
    expect(a.questions.map((q) => q.commit)).not.toEqual(c.questions.map((q) => q.commit));
    expect(a.questions).toHaveLength(5);
    expect(a.questions.every((q) => Number(q.commit!.slice(1)) % 2 === 0)).toBe(true);
    expect(a.questions.map((q) => q.id)).toEqual(['r/c1', 'r/c2', 'r/c3', 'r/c4', 'r/c5']);
    expect(a.candidates).toBe(30);
  });
});

describe('plain BM25 reference', () => {
  it('ORs the lower-cased words once each, without stop words', () => {
    expect(plainQuery('Where are retries with Backoff handled, and where retries?')).toBe('"retries" OR "backoff" OR "handled"');
    expect(plainQuery('ArgMatches::get_one')).toBe('"argmatches" OR "get" OR "one"');
    expect(plainQuery('the and of')).toBe('');
  });

  it('asks the index for the top k chunk paths of each question, none for an empty one', async () => {
    const calls: unknown[][] = [];
    const db = { all: async <T>(sql: string, params?: Array<string | number>) => { calls.push([sql, params]); return [{ path: 'a.go' }, { path: 'a.go' }] as T[]; } };
    expect(await plainSearch(db, ['retry backoff', 'the'], 10)).toEqual([['a.go', 'a.go'], []]);
    expect(calls).toHaveLength(1);
    expect(String(calls[0][0])).toContain('bm25(chunks_fts)');
    expect(calls[0][1]).toEqual(['"retry" OR "backoff"', 10]);
  });
});

describe('committed question sets', () => {
  const manifest = readManifest();
  const questions = [...readQuestions(COMMITS_FILE), ...readQuestions(HAND_FILE)];

  it('cover at least 12 languages and every repository has questions', () => {
    expect(existsSync(MANIFEST)).toBe(true);
    expect(new Set(manifest.map((r) => r.language)).size).toBeGreaterThanOrEqual(12);
    for (const r of manifest) {
      expect(r.commit, r.name).toMatch(/^[0-9a-f]{40}$/);
      expect(questions.filter((q) => q.repo === r.name).length, r.name).toBeGreaterThanOrEqual(10);
    }
  });

  it('are well formed: unique ids, 1-3 relative answers, known categories and sources', () => {
    const ids = new Set<string>();
    for (const q of questions) {
      expect(ids.has(q.id), q.id).toBe(false);
      ids.add(q.id);
      expect(manifest.some((r) => r.name === q.repo), q.id).toBe(true);
      expect(q.answers.length, q.id).toBeGreaterThanOrEqual(1);
      expect(q.answers.length, q.id).toBeLessThanOrEqual(3);
      for (const a of q.answers) expect(a.startsWith('/') || a.includes('..'), `${q.id} ${a}`).toBe(false);
      expect(q.source === 'commit' ? q.category === 'change' && /^[0-9a-f]{40}$/.test(q.commit ?? '') : ['behaviour', 'architecture', 'symbol'].includes(q.category), q.id).toBe(true);
      expect(q.question.trim().length, q.id).toBeGreaterThan(0);
    }
  });

  it('hand-written answers exist in the checkouts that are present', () => {
    for (const q of readQuestions(HAND_FILE)) {
      const dir = join(REPOS_DIR, q.repo);
      if (!existsSync(`${dir}.commit`) || readFileSync(`${dir}.commit`, 'utf8').trim() !== manifest.find((r) => r.name === q.repo)!.commit) continue;
      for (const a of q.answers) expect(existsSync(join(dir, a)), `${q.id} ${a}`).toBe(true);
    }
  });
});

describe('sampleOrder', () => {
  it('is seeded, and adding a candidate does not reorder the others', () => {
    const items = Array.from({ length: 20 }, (_, i) => ({ sha: `c${i}` }));
    const a = sampleOrder(items, 1).map((x) => x.sha);
    expect(sampleOrder(items, 1).map((x) => x.sha)).toEqual(a);
    expect(sampleOrder(items, 2).map((x) => x.sha)).not.toEqual(a);
    const b = sampleOrder([...items, { sha: 'new' }], 1).map((x) => x.sha).filter((s) => s !== 'new');
    expect(b).toEqual(a);
  });
});

describe('more filters', () => {
  it('Kotlin test source sets and test helpers are tests', () => {
    expect(fileRole('okio/src/jvmTest/kotlin/okio/TestUtil.kt')).toBe('test');
    expect(fileRole('okio/src/commonTest/kotlin/okio/BufferedSourceFactory.kt')).toBe('test');
    expect(fileRole('test_helpers.go')).toBe('test');
    expect(fileRole('okio/src/jvmMain/kotlin/okio/Throttler.kt')).toBe('source');
  });

  it('checks the cleaned subject too, and drops review/merge/warning chores', () => {
    expect(cleanSubject(':white_check_mark: add tests for CBOR')).toHaveProperty('skip');
    expect(cleanSubject('Apply suggestions from code review')).toHaveProperty('skip');
    expect(cleanSubject('merge develop branch and resolve conflicts')).toHaveProperty('skip');
    expect(cleanSubject('Fix a shadowing warning in format.h')).toHaveProperty('skip');
    expect(cleanSubject('Add warning for selecting literal atoms')).toHaveProperty('text');
  });
});
