/**
 * End-to-end tests of `bin/sift` on a copy of test/fixtures/sample-repo: the real CLI
 * process, the real store on disk, the real chunker.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync, renameSync, unlinkSync, existsSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, runSift } from './run-sift.ts';
import { GRAMMARS } from '../../src/core/chunk/languages.ts';

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
    // session.ts, upload.py, kalloc.c, parser.go, broken.rs, guide.md, deploy.sh, .gitignore (every text file)
    expect(out.files.added).toBe(8);
    expect(out.chunks.total).toBeGreaterThan(7);
    expect(out.parse_fallbacks).toBe(1); // broken.rs is indexed as text, not dropped
  });

  it('finds an identifier by name, first', () => {
    const res = json<SearchJson>(['search', repo, 'getUserName', '--db', db, '--json']);
    expect(res.strategy).toBe('bm25_only');
    expect(res.results[0]).toMatchObject({ path: 'src/auth/session.ts', symbol: 'getUserName', chunk_type: 'function', rank: 1 });
    const keys = Object.keys(res.results[0]).sort();
    expect(keys).toEqual(['bm25_score', 'chunk_type', 'combined_score', 'content', 'context', 'context_line', 'def_line', 'end_line', 'file_more', 'kind', 'language', 'more', 'path', 'rank', 'start_line', 'symbol', 'vector_score'].sort());
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
    expect(s.files).toBe(8);
    expect(Object.keys(s.languages)).toEqual(expect.arrayContaining(['typescript', 'python', 'c', 'go']));
    const t = json<{ chunk_types: string[] }>(['types', repo, '--db', db, '--json']);
    expect(t.chunk_types).toEqual(expect.arrayContaining(['function', 'class', 'method']));
  });

  it('prints human output with path:lines', () => {
    const r = sift(['search', repo, 'kzalloc', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^lib\/kalloc\.c:\d+-\d+ {2}kzalloc/m);
  });

  it('says in human output where a result\'s folded definitions of its file are', () => {
    // One file whose every function matches, beside six files with one weaker match each: the
    // file's other functions fold into its first result rather than take the others' slots.
    const dir = join(work, 'folded');
    mkdirSync(join(dir, 'src'), { recursive: true });
    const fns = ['parse_header', 'parse_body', 'parse_query', 'parse_cookie', 'parse_form'];
    writeFileSync(join(dir, 'src/request.py'), ['"""Request parsing."""', '', ...fns.flatMap((f) => [`def ${f}(raw):`, `    """Parse the request ${f.slice(6)} from raw bytes."""`, '    return raw.split(b"\\n")', ''])].join('\n'));
    for (const name of ['response', 'session', 'router', 'server', 'client', 'cache']) {
      writeFileSync(join(dir, `src/${name}.py`), [`"""The ${name}."""`, '', `def handle_${name}(raw):`, `    """Parse the request for the ${name}."""`, '    return raw', ''].join('\n'));
    }
    const fdb = join(work, 'folded.db');
    json(['index', dir, '--db', fdb, '--no-embed', '--json']);
    const r = sift(['search', dir, 'parse request', '--db', fdb]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => /^src\/request\.py:\d+-\d+ {2}parse_\w+ .*\(\+\d+ more in this file\)/.test(l));
    expect(at).toBeGreaterThanOrEqual(0);
    // The next line lists them by lines and name, each a definition of that file at those lines.
    const also = /^ {4}also in this file: (.+)$/.exec(lines[at + 1] ?? '');
    expect(also).not.toBeNull();
    const text = readFileSync(join(dir, 'src/request.py'), 'utf8').split('\n');
    const named = also![1].split('; ').map((x) => /^(\d+)-(\d+) (\S+)$/.exec(x)!).filter((m) => !m[3].startsWith('('));
    expect(named.length).toBeGreaterThan(0);
    for (const [, a, , name] of named) expect(text[Number(a) - 1]).toContain(name);
  });

  it('shows a documented definition\'s line in human output, its long doc folded (the app\'s rule)', () => {
    const dir = join(work, 'documented');
    const doc = ['  @doc """', '  Sends a response.', '', '  The body is encoded as JSON.', '  It raises when a response was sent.', '  """'];
    mkdirSync(join(dir, 'lib'), { recursive: true });
    writeFileSync(join(dir, 'lib/conn.ex'), ['defmodule Conn do', ...doc, '  def send_response(conn, body) do', '    {conn, body}', '  end', 'end', ''].join('\n'));
    const ddb = join(work, 'documented.db');
    json(['index', dir, '--db', ddb, '--no-embed', '--json']);
    const r = sift(['search', dir, 'send_response', '--db', ddb]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('lib/conn.ex:2-'));
    expect(lines.slice(at + 1, at + 5)).toEqual([
      '        2    @doc """',
      '        3    Sends a response.',
      '           ⋯ 4 more doc lines',
      '        8    def send_response(conn, body) do',
    ]);
  });
});

describe('what is indexed: every text file, --include / --exclude, and stats on what was skipped', () => {
  let tree: string;
  let tdb: string;
  type Skipped = { total: number; by_reason: Record<string, number>; by_extension: Record<string, number>; examples: Array<{ path: string; reason: string; detail?: string }> };
  type Counts = { files: number; bytes: number; chunks: number };
  type Stats = {
    files: number; bytes: number; dbBytes: number; skipped: Skipped;
    languages: Record<string, Counts & { structured: boolean }>; kinds: Record<string, Counts>;
    structures: { total: number; freeBytes: number; structures: Record<string, number> };
  };
  beforeAll(() => {
    tree = join(work, 'polyglot');
    tdb = join(work, 'polyglot.db');
    const files: Record<string, string | Buffer> = {
      'lib/plug/conn.ex': 'defmodule Plug.Conn do\n  def send_resp(conn, status, body), do: {conn, status, body}\nend\n',
      'src/Parser.hs': 'module Parser where\n\nparseHeader :: String -> Maybe Header\nparseHeader = undefined\n',
      'src/alloc.zig': 'pub fn arenaAlloc(size: usize) ![]u8 {\n    return error.OutOfMemory;\n}\n',
      'bin/release': '#!/usr/bin/env bash\nrelease_the_kraken() { echo go; }\n',
      'flake.nix': '{ outputs = { self }: { packages.default = self; }; }\n',
      'test/conn_test.exs': 'defmodule ConnTest do\nend\n',
      'priv/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      'priv/blob.txt': Buffer.from([0x00, 0x01, 0x02, 0x00, 0xff]),
      'big.sql': 'SELECT 1;\n'.repeat(300),
    };
    for (const [p, body] of Object.entries(files)) {
      mkdirSync(dirname(join(tree, p)), { recursive: true });
      writeFileSync(join(tree, p), body);
    }
  });

  it('indexes Elixir, Haskell, Zig, Nix and an extension-less script; stats --json says what was skipped and why', () => {
    const out = json<{ files: Record<string, number>; skipped: Skipped }>(['index', tree, '--db', tdb, '--no-embed', '--json', '--max-file-size', '2000']);
    expect(out.files.added).toBe(6);
    const s = json<Stats>(['stats', tree, '--db', tdb, '--json']);
    expect(s.files).toBe(6);
    expect(s.skipped).toEqual(out.skipped);
    expect(s.skipped.total).toBe(3);
    expect(s.skipped.by_reason).toEqual({ binary: 2, 'too-large': 1 });
    expect(s.skipped.by_extension).toEqual({ '.png': 1, '.sql': 1, '.txt': 1 });
    // Grouped by reason; within one, in the order met (the walk skips the .png while the binary is being read).
    expect(s.skipped.examples.slice(0, 2)).toEqual(expect.arrayContaining([
      { path: 'priv/blob.txt', reason: 'binary', detail: 'binary content' },
      { path: 'priv/logo.png', reason: 'binary', detail: '.png file, not read' },
    ]));
    expect(s.skipped.examples[2]).toEqual({ path: 'big.sql', reason: 'too-large', detail: '3000 bytes > 2000' });
    // Languages without a grammar are named as such (their files are plain-text chunks).
    for (const [lang, v] of Object.entries(s.languages)) expect(v.structured, lang).toBe(Object.hasOwn(GRAMMARS, lang));
    expect(s.languages['elixir']?.files).toBe(2);
    // Files and source bytes by language and by kind (text/file-kind.ts), and the index's bytes by structure.
    const size = (...ps: string[]) => ps.reduce((a, p) => a + statSync(join(tree, p)).size, 0);
    expect(s.bytes).toBe(size('lib/plug/conn.ex', 'src/Parser.hs', 'src/alloc.zig', 'bin/release', 'flake.nix', 'test/conn_test.exs'));
    expect(s.languages['elixir']?.bytes).toBe(size('lib/plug/conn.ex', 'test/conn_test.exs'));
    expect(s.kinds).toEqual({
      code: { files: 4, bytes: size('lib/plug/conn.ex', 'src/Parser.hs', 'src/alloc.zig', 'bin/release'), chunks: expect.any(Number) },
      test: { files: 1, bytes: size('test/conn_test.exs'), chunks: 1 },
      config: { files: 1, bytes: size('flake.nix'), chunks: 1 },
    });
    expect(Object.values(s.kinds).reduce((a, k) => a + k.chunks, 0)).toBe(Object.values(s.languages).reduce((a, l) => a + l.chunks, 0));
    expect(s.structures.total).toBe(s.dbBytes);
    expect(Object.values(s.structures.structures).reduce((a, b) => a + b, 0)).toBe(s.dbBytes);
    for (const k of ['keyword', 'text', 'chunks', 'files']) expect(s.structures.structures[k], k).toBeGreaterThan(0);
    // A small index's files wait in trigram_pending, with no postings (LAZY_PENDING_BYTES): grep reads them whole.
    expect(s.structures.structures['trigram']).toBe(0);
    expect(json<SearchJson>(['search', tree, 'arenaAlloc', '--db', tdb, '--json']).results[0]).toMatchObject({ path: 'src/alloc.zig' });
    expect(json<SearchJson>(['search', tree, 'release_the_kraken', '--db', tdb, '--json']).results[0]).toMatchObject({ path: 'bin/release' });
    const text = sift(['stats', tree, '--db', tdb]);
    expect(text.stdout).toMatch(/not indexed: +3/);
    expect(text.stdout).toMatch(/binary +2/);
    expect(text.stdout).toMatch(/priv\/logo\.png +\(binary: \.png file, not read\)/);
    expect(text.stdout).toMatch(/kinds:\n +code +4 files/);
    expect(text.stdout).toMatch(/index bytes by structure .*\n +\w+ +[\d.]+ [KMG]?B +[\d.]+%/);
  });

  it('names the files indexed as text after a parse failure, a few lines at most, and says where all of them are', () => {
    const dir = join(work, 'parse-fallback');
    mkdirSync(dir, { recursive: true });
    const junk = Array.from({ length: 40 }, () => '}} ]] )) @@ #### $$ ::: <<<>>> '.repeat(3)).join('\n');
    for (const n of ['a', 'b', 'c', 'd']) writeFileSync(join(dir, `${n}.js`), junk);
    writeFileSync(join(dir, 'ok.js'), 'function ok() {\n  return 1;\n}\n');
    const db = join(work, 'parse-fallback.db');
    const out = sift(['index', dir, '--db', db, '--no-embed']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^4 warnings \(4 files indexed as text after a parse failure\):$/m);
    expect(out.stdout).toMatch(/^ {2}a\.js: parse-fallback: syntax errors cover \d+% of the file; chunked as text$/m);
    expect(out.stdout.match(/^ {2}\w\.js: parse-fallback: /gm)).toHaveLength(3);
    expect(out.stdout).toMatch(/^ {2}… 1 more: `sift index --json` lists them \(warning_details\)$/m);
    const details = json<{ warning_details: string[] }>(['rebuild', dir, '--db', db, '--no-embed', '--json']).warning_details;
    expect(details).toEqual(['a', 'b', 'c', 'd'].map((n) => expect.stringMatching(new RegExp(`^${n}\\.js: parse-fallback: syntax errors cover \\d+% of the file; chunked as text$`))));
  });

  it('--include keeps only matching paths, --exclude and --ignore drop paths; a later run without them indexes everything again', () => {
    const inc = json<{ files: Record<string, number>; skipped: Skipped }>(['index', tree, '--db', tdb, '--no-embed', '--json', '--include', '*.ex', '--include', '*.exs', '--exclude', 'test/']);
    expect(inc.files.total).toBe(1);
    expect(inc.files.deleted).toBe(5);
    // Ignore rules first (test/ is one folder), then --include (the .png and the binary too: never read).
    expect(inc.skipped.by_reason).toEqual({ 'not-included': 7, ignored: 1 });
    expect(inc.skipped.examples).toContainEqual({ path: 'test', reason: 'ignored' });
    const s = json<Stats>(['stats', tree, '--db', tdb, '--json']);
    expect(s.files).toBe(1);
    expect(s.skipped).toEqual(inc.skipped);
    const ign = json<{ files: Record<string, number> }>(['index', tree, '--db', tdb, '--no-embed', '--json', '--ignore', 'src/', '--exclude', 'bin/']);
    expect(ign.files.total).toBe(5); // conn.ex, conn_test.exs, flake.nix, big.sql and blob.txt (found binary when read)
    expect(ign.files.added).toBe(3);
    const all = json<{ files: Record<string, number>; skipped: Skipped }>(['index', tree, '--db', tdb, '--no-embed', '--json']);
    expect(all.files.total).toBe(8);
    expect(json<Stats>(['stats', tree, '--db', tdb, '--json']).files).toBe(7);
    expect(all.skipped.by_reason).toEqual({ binary: 2 });
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

describe('file kinds and intent', () => {
  let kdir: string;
  let kdb: string;
  beforeAll(() => {
    kdir = join(work, 'kinds');
    const files: Record<string, string> = {
      'router.go': 'package web\n\n// Route finds the handler of a path and calls it.\nfunc Route(path string, r *Request) {\n\th := lookupRoute(path)\n\th(r)\n}\n',
      'router_test.go': 'package web\n\nimport "testing"\n\n// TestRoute checks that a request path reaches its route handler, and that an\n// unknown request path reaches the not-found route handler.\nfunc TestRoute(t *testing.T) {\n\tRoute("/a", &Request{})\n\tRoute("/b", &Request{})\n}\n',
      'docs/routing.md': '# Routing\n\nEach request path is matched to a route handler. Route a request with `Route(path, req)`.\nThe route table maps a request path to its route handler; an unknown request path gets the not-found route handler.\nWhich route handler gets a request path: the longest route that matches the request path.\n',
    };
    // Unrelated files, so the query's words are rare (BM25's IDF needs a corpus).
    const topics = ['cache eviction keeps the newest entries', 'the logger writes lines with a timestamp', 'config values are read from the environment',
      'sessions expire after an idle timeout', 'the pool reuses database connections', 'uploads are streamed to a temporary file'];
    topics.forEach((t, i) => { files[`pkg${i}/impl${i}.go`] = `package pkg${i}\n\n// Run: ${t}.\nfunc Run${i}() int {\n\treturn ${i}\n}\n`; });
    for (const [p, text] of Object.entries(files)) {
      mkdirSync(dirname(join(kdir, p)), { recursive: true });
      writeFileSync(join(kdir, p), text);
    }
    kdb = join(work, 'kinds.db');
    json(['index', kdir, '--db', kdb, '--no-embed', '--json']);
  });

  const paths = (args: string[]) => json<SearchJson>(['search', kdir, ...args, '--db', kdb, '--mode', 'bm25', '--json']).results.map((r) => r.path);

  it('ranks the implementation first for a code question, the test first for a test question', () => {
    const q = 'which route handler gets a request path';
    // The same words, another order per intent (signals.test.ts checks a code question's demotion itself).
    const first = (args: string[]) => {
      const p = paths(args);
      return { first: p[0], all: p.join(' ') };
    };
    expect(first([q])).toMatchObject({ first: 'router.go' });
    expect(first([`tests for ${q}`])).toMatchObject({ first: 'router_test.go' });
    expect(first([q, '--intent', 'test'])).toMatchObject({ first: 'router_test.go' });
    expect(first([q, '--intent', 'docs'])).toMatchObject({ first: 'docs/routing.md' });
    // A function's doc comment asks for code, whatever its words ("Tests whether…" is no test question).
    expect(first(['Tests whether a request path reaches its route handler.'])).toMatchObject({ first: 'router.go' });
  });

  it('labels each result with its kind and filters by kind', () => {
    const res = json<SearchJson>(['search', kdir, 'request path route handler', '--db', kdb, '--mode', 'bm25', '--json']);
    expect(Object.fromEntries(res.results.map((r) => [r.path, r.kind]))).toEqual({ 'router.go': 'code', 'router_test.go': 'test', 'docs/routing.md': 'docs' });
    expect(new Set(paths(['request path route handler', '--kind', 'test,docs']))).toEqual(new Set(['router_test.go', 'docs/routing.md']));
  });

  it('refuses an unknown kind or intent with a clear message', () => {
    const r = sift(['search', kdir, 'route', '--db', kdb, '--kind', 'bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--kind must be one of code, test, docs, config, generated, example/);
    const i = sift(['search', kdir, 'route', '--db', kdb, '--intent', 'nope']);
    expect(i.code).toBe(2);
    expect(i.stderr).toMatch(/--intent must be one of/);
  });
});
