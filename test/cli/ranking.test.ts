/**
 * Ranking golden test (zoekt's internal/e2e idea): fixed queries on a copy of
 * test/fixtures/sample-repo through the real `bin/sift search --mode bm25`, and their top
 * results compared with test/cli/ranking.golden.json. A ranking change that moves any of
 * them fails here; when the change is intended, regenerate with UPDATE_GOLDEN=1 and read
 * the diff. The invariants that must never move (exact symbol first) are also asserted
 * directly, so a careless golden update cannot hide them.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runSift } from './run-sift.ts';

const FIXTURE = join(ROOT, 'test/fixtures/sample-repo');
const GOLDEN = join(__dirname, 'ranking.golden.json');
/** Results compared per query. */
const TOP = 3;

/** Queries: identifiers (exact match first), split identifiers, prose with stems and filler. */
const QUERIES = [
  'getUserName',
  'kalloc',
  'Tokenizer.ParseConfigLine',
  'user name',
  'allocates zeroed kernel memory',
  'retry a failed upload with backoff',
  'parses a config line',
  'split large files into parts and upload them',
  'deploy the static build to the server',
  'drops a session when it has expired',
];

type Golden = Record<string, string[]>;

let work: string;
let repo: string;
let db: string;
let actual: Golden;

function sift(args: string[], input?: string): string {
  const r = runSift(args, { home: join(work, 'home'), input });
  if (r.code !== 0) throw new Error(`sift ${args[0]} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sift-ranking-'));
  repo = join(work, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
  db = join(work, 'index.db');
  sift(['index', repo, '--db', db, '--no-embed', '--json']);
  const out = sift(['search', repo, '--stdin', '--json', '--mode', 'bm25', '--limit', String(TOP), '--db', db], QUERIES.join('\n') + '\n');
  const lines = out.split('\n').filter((l) => l.trim());
  actual = {};
  lines.forEach((l, i) => {
    const res = JSON.parse(l) as { results: Array<{ path: string; symbol: string | null; start_line: number }> };
    actual[QUERIES[i]] = res.results.map((r) => `${r.path}#${r.symbol ?? `L${r.start_line}`}`);
  });
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, JSON.stringify(actual, null, 2) + '\n');
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('ranking golden (bm25)', () => {
  it('puts exact symbol matches first for identifier queries', () => {
    expect(actual.getUserName[0]).toBe('src/auth/session.ts#getUserName');
    expect(actual.kalloc[0]).toBe('lib/kalloc.c#kalloc');
    expect(actual['Tokenizer.ParseConfigLine'][0]).toBe('lib/parser.go#ParseConfigLine');
  });

  it('finds functions from a prose description (stems, split identifiers, symbol-name match)', () => {
    expect(actual['user name'][0]).toBe('src/auth/session.ts#getUserName');
    expect(actual['allocates zeroed kernel memory'][0]).toBe('lib/kalloc.c#kzalloc');
    expect(actual['retry a failed upload with backoff'][0]).toBe('src/storage/upload.py#retry_failed_upload');
    expect(actual['parses a config line'][0]).toBe('lib/parser.go#ParseConfigLine');
  });

  it('matches the golden top results for every query', () => {
    expect(existsSync(GOLDEN), 'run with UPDATE_GOLDEN=1 to create the golden file').toBe(true);
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;
    expect(Object.keys(golden).sort()).toEqual([...QUERIES].sort());
    for (const q of QUERIES) expect(actual[q], q).toEqual(golden[q]);
  });
});
