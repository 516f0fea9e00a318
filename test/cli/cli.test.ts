/**
 * End-to-end tests of `bin/sift` on a copy of test/fixtures/sample-repo: the real CLI
 * process, the real store on disk, the real chunker.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { cpSync, mkdtempSync, rmSync, writeFileSync, renameSync, unlinkSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runSift } from './run-sift.ts';

const FIXTURE = join(ROOT, 'test/fixtures/sample-repo');
const TINY = join(ROOT, 'models/generated/tiny');

let work: string;
let repo: string;
let db: string;

function sift(args: string[], input?: string) {
  return runSift(args, { home: join(work, 'home'), input });
}

function json<T = Record<string, unknown>>(args: string[], input?: string): T {
  const r = sift(args, input);
  expect(r.stderr, r.stderr).not.toMatch(/Error|error:/);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as T;
}

type SearchJson = { query: string; strategy: string; embedded_ratio: number; results: Array<Record<string, unknown>> };

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sift-cli-'));
  repo = join(work, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
  db = join(work, 'index.db');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('sift index / search / stats / types', () => {
  it('indexes the fixture and skips ignored, secret and binary files', () => {
    const out = json<{ files: Record<string, number>; chunks: { total: number }; warnings: number; parse_fallbacks: number; unchanged: boolean }>(['index', repo, '--db', db, '--no-embed', '--json']);
    expect(out.unchanged).toBe(false);
    // session.ts, upload.py, kalloc.c, parser.go, broken.rs, guide.md, deploy.sh, .gitignore? (not an indexed extension)
    expect(out.files.added).toBe(7);
    expect(out.chunks.total).toBeGreaterThan(7);
    expect(out.parse_fallbacks).toBe(1); // broken.rs is indexed as text, not dropped
  });

  it('finds an identifier by name, first', () => {
    const res = json<SearchJson>(['search', repo, 'getUserName', '--db', db, '--json']);
    expect(res.strategy).toBe('bm25_only');
    expect(res.results[0]).toMatchObject({ path: 'src/auth/session.ts', symbol: 'getUserName', chunk_type: 'function', rank: 1 });
    const keys = Object.keys(res.results[0]).sort();
    expect(keys).toEqual(['bm25_score', 'chunk_type', 'combined_score', 'content', 'context', 'context_line', 'def_line', 'end_line', 'language', 'more', 'path', 'rank', 'start_line', 'symbol', 'vector_score'].sort());
  });

  it('explains each result: the fused contributions and the keyword leg\'s own signals', () => {
    type Explained = { explain: { legs: string[]; bm25_rank: number; signals: Array<{ signal: string; contribution: number }>; bm25_signals: Record<string, number> } };
    const res = json<{ results: Array<Record<string, unknown> & Explained> }>(['search', repo, 'getUserName', '--db', db, '--json', '--explain']);
    const top = res.results[0];
    expect(top.explain.legs).toEqual(['bm25']);
    expect(top.explain.bm25_rank).toBe(1);
    const sum = top.explain.signals.reduce((a, s) => a + s.contribution, 0);
    expect(sum).toBeCloseTo(top.combined_score as number, 10);
    expect(top.explain.bm25_signals).toMatchObject({ name: expect.any(Number), exact: 1, definition_tier: 1 });
  });

  it('matches natural-language words against split identifiers', () => {
    const res = json<SearchJson>(['search', repo, 'user name', '--db', db, '--json']);
    expect(res.results.map((r) => r.symbol)).toContain('getUserName');
    const res2 = json<SearchJson>(['search', repo, 'retry failed upload', '--db', db, '--json']);
    expect(res2.results[0]).toMatchObject({ path: 'src/storage/upload.py', symbol: 'retry_failed_upload' });
  });

  it('applies filters', () => {
    const go = json<SearchJson>(['search', repo, 'parse config', '--db', db, '--json', '--lang', 'go']);
    expect(go.results.length).toBeGreaterThan(0);
    expect(go.results.every((r) => r.language === 'go')).toBe(true);
    const lib = json<SearchJson>(['search', repo, 'allocate', '--db', db, '--json', '--path', 'lib/**']);
    expect(lib.results.every((r) => String(r.path).startsWith('lib/'))).toBe(true);
    const fns = json<SearchJson>(['search', repo, 'session', '--db', db, '--json', '--type', 'method']);
    expect(fns.results.every((r) => r.chunk_type === 'method')).toBe(true);
  });

  it('answers one JSON line per stdin query, and survives hostile input', () => {
    const queries = ['kalloc', '"unbalanced', 'NEAR(a b', '*', 'AND OR NOT', 'x'.repeat(10_000), '🙂 emoji', 'content:foo'];
    const r = sift(['search', repo, '--stdin', '--json', '--db', db], queries.join('\n') + '\n');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as SearchJson);
    expect(lines).toHaveLength(queries.length);
    expect(lines[0].results[0]).toMatchObject({ symbol: 'kalloc', path: 'lib/kalloc.c' });
    for (const l of lines) expect(Array.isArray(l.results)).toBe(true);
  });

  it('reports stats and types', () => {
    const s = json<{ files: number; chunks: number; languages: Record<string, unknown> }>(['stats', repo, '--db', db, '--json']);
    expect(s.files).toBe(7);
    expect(Object.keys(s.languages)).toEqual(expect.arrayContaining(['typescript', 'python', 'c', 'go']));
    const t = json<{ chunk_types: string[] }>(['types', repo, '--db', db, '--json']);
    expect(t.chunk_types).toEqual(expect.arrayContaining(['function', 'class', 'method']));
  });

  it('prints human output with path:lines', () => {
    const r = sift(['search', repo, 'kzalloc', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^lib\/kalloc\.c:\d+-\d+ {2}kzalloc/m);
  });
});

describe('incremental indexing through the CLI', () => {
  it('recognises an unchanged folder at once', () => {
    const out = json<{ unchanged: boolean }>(['index', repo, '--db', db, '--no-embed', '--json']);
    expect(out.unchanged).toBe(true);
  });

  it('re-chunks only an edited file, moves a renamed one, drops a deleted one', () => {
    writeFileSync(join(repo, 'lib/parser.go'), readFileSync(join(repo, 'lib/parser.go'), 'utf8') + '\n// ParseAll parses every line.\nfunc ParseAll() {}\n');
    renameSync(join(repo, 'scripts/deploy.sh'), join(repo, 'scripts/ship.sh'));
    unlinkSync(join(repo, 'docs/guide.md'));
    writeFileSync(join(repo, 'src/new_module.py'), 'def brand_new_function():\n    """Says hello."""\n    return "hello"\n');
    const out = json<{ files: Record<string, number> }>(['index', repo, '--db', db, '--no-embed', '--json']);
    expect(out.files).toMatchObject({ added: 1, changed: 1, renamed: 1, deleted: 1 });
    expect(json<SearchJson>(['search', repo, 'ParseAll', '--db', db, '--json']).results[0]).toMatchObject({ symbol: 'ParseAll' });
    expect(json<SearchJson>(['search', repo, 'deploy_site', '--db', db, '--json']).results[0]).toMatchObject({ path: 'scripts/ship.sh' });
    expect(json<SearchJson>(['search', repo, 'exponential backoff', '--db', db, '--json', '--lang', 'markdown']).results).toHaveLength(0);
  });
});

describe('errors are one clear line and a non-zero exit', () => {
  it('no such folder', () => {
    const r = sift(['index', join(work, 'nope')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^sift: no such folder/);
  });
  it('index missing', () => {
    const r = sift(['search', repo, 'x', '--db', join(work, 'missing.db')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/run `sift index .*` first/);
  });
  it('corrupt database', () => {
    const bad = join(work, 'corrupt.db');
    writeFileSync(bad, 'this is not a database'.repeat(100));
    const r = sift(['search', repo, 'x', '--db', bad]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/corrupt.*sift rebuild/);
  });
  it('bad option', () => {
    const r = sift(['search', repo, 'x', '--mode', 'fuzzy', '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--mode must be/);
  });
});

describe('semantic search with the generated tiny model', () => {
  it.skipIf(!existsSync(join(TINY, 'config.json')))('embeds, then searches hybrid and vector-only', () => {
    const edb = join(work, 'embed.db');
    const out = json<{ embedding: { embedded: number; total: number } }>(['index', repo, '--db', edb, '--model', TINY, '--json']);
    expect(out.embedding.embedded).toBe(out.embedding.total);
    // stats reads the model key the embed pass recorded (it once read a key nothing wrote: 0/N, model null).
    const stats = json<{ chunks: number; embeddedChunks: number; model: string | null }>(['stats', repo, '--db', edb, '--json']);
    expect(stats.chunks).toBeGreaterThan(0);
    expect(stats.embeddedChunks).toBe(stats.chunks);
    expect(stats.model).toMatch(/tiny/);
    const human = sift(['stats', repo, '--db', edb]);
    expect(human.stdout).toContain(`embedded:     ${stats.chunks}/${stats.chunks} (${stats.model})`);
    const hybrid = json<SearchJson>(['search', repo, 'retry failed upload', '--db', edb, '--json']);
    expect(hybrid.strategy).toBe('hybrid');
    expect(hybrid.embedded_ratio).toBe(1);
    expect(hybrid.results[0]).toMatchObject({ symbol: 'retry_failed_upload' });
    const vec = json<SearchJson>(['search', repo, 'retry failed upload', '--db', edb, '--json', '--mode', 'vector']);
    expect(vec.strategy).toBe('vector_only');
    expect(vec.results.length).toBeGreaterThan(0);
    expect(vec.results.every((r) => (r.vector_score as number) !== 0)).toBe(true);
    // A second index run embeds nothing new: vectors are cached by content hash.
    const again = json<{ embedding: { newlyEmbedded: number } }>(['index', repo, '--db', edb, '--model', TINY, '--json']);
    expect(again.embedding.newlyEmbedded).toBe(0);
  });
});
