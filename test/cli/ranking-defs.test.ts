/**
 * Golden ranking cases for results a developer trusts (issue 10), through the real
 * `bin/sift` on test/fixtures/ranking-defs: the content/line contract, one result per
 * definition, exact case first, merged small siblings found by name, the head of a split
 * definition for its name, and the vector leg's floor (tiny generated model). Top results
 * are compared with ranking-defs.golden.json (UPDATE_GOLDEN=1 rewrites it; read the diff);
 * the invariants are also asserted directly so a careless golden update cannot hide them.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runSift } from './run-sift.ts';

const FIXTURE = join(ROOT, 'test/fixtures/ranking-defs');
const GOLDEN = join(__dirname, 'ranking-defs.golden.json');
const MODEL = join(ROOT, 'models/generated/tiny');
const TOP = 3;
const QUERIES = ['Compile', 'compile', 'qsize', 'empty', 'parse_command_line', 'parse command line arguments', 'MustCompile'];

interface Result {
  path: string;
  start_line: number;
  end_line: number;
  symbol: string | null;
  content: string;
  context: string | null;
  context_line: number | null;
  def_line: number | null;
  matched_name?: string | null;
  more: Array<{ start_line: number; end_line: number; content: string; context: string | null; context_line: number | null; same_definition: boolean }>;
  vector_score: number;
  explain?: { vector_floor: number | null; vector_dropped: number; signals: Array<{ signal: string; value: number }> };
}
type Golden = Record<string, string[]>;

let work: string;
let repo: string;
let db: string;
const responses: Record<string, Result[]> = {};
let vectorRes: Result[] = [];
let actual: Golden;

function sift(args: string[], input?: string): string {
  const r = runSift(args, { home: join(work, 'home'), input });
  if (r.code !== 0) throw new Error(`sift ${args[0]} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

const label = (r: Result) => `${r.path}#${r.matched_name ?? r.symbol ?? ''}:${r.start_line}`;
const fileLines = (path: string) => readFileSync(join(repo, path), 'utf8').split('\n');

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sift-ranking-defs-'));
  repo = join(work, 'repo');
  cpSync(FIXTURE, repo, { recursive: true });
  db = join(work, 'index.db');
  sift(['index', repo, '--db', db, '--model', MODEL, '--json']);
  const out = sift(['search', repo, '--stdin', '--json', '--explain', '--mode', 'bm25', '--limit', '10', '--db', db], QUERIES.join('\n') + '\n');
  out.split('\n').filter((l) => l.trim()).forEach((l, i) => { responses[QUERIES[i]] = (JSON.parse(l) as { results: Result[] }).results; });
  actual = Object.fromEntries(QUERIES.map((q) => [q, responses[q].slice(0, TOP).map(label)]));
  const v = sift(['search', repo, '--json', '--explain', '--mode', 'vector', '--model', MODEL, '--db', db, 'parse command line arguments']);
  vectorRes = (JSON.parse(v) as { results: Result[] }).results;
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, JSON.stringify(actual, null, 2) + '\n');
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('results a developer trusts (golden, bm25)', () => {
  it("every result's content is exactly the file's lines; context is the file's line at context_line", () => {
    for (const q of [...QUERIES]) {
      for (const r of [...responses[q], ...vectorRes]) {
        const lines = fileLines(r.path);
        expect(r.content, `${q}: ${r.path}:${r.start_line}`).toBe(lines.slice(r.start_line - 1, r.end_line).join('\n'));
        for (const m of r.more) expect(m.content).toBe(lines.slice(m.start_line - 1, m.end_line).join('\n'));
        if (r.context) expect(lines[r.context_line! - 1]).toBe(r.context.split('\n')[0]);
      }
    }
  });

  it('lists a definition once, with its other matching pieces as more', () => {
    const res = responses['parse command line arguments'];
    const defs = res.filter((r) => r.def_line !== null).map((r) => `${r.path}:${r.def_line}`);
    expect(new Set(defs).size).toBe(defs.length);
    const pcl = res.filter((r) => r.symbol === 'parse_command_line');
    expect(pcl).toHaveLength(1);
    expect(pcl[0].more.length).toBeGreaterThan(0);
    // Later pieces carry the signature (line 4) as context; the head itself carries none. (Other
    // definitions of the file folded in by diversity, same_definition false, carry their own.)
    for (const m of [pcl[0], ...pcl[0].more.filter((p) => p.same_definition)]) {
      if (m.start_line > 4) expect([m.context, m.context_line]).toEqual(['def parse_command_line(self):', 4]);
      else expect(m.context).toBeNull();
    }
  });

  it('puts the exact-case definition first, then the other case', () => {
    expect(actual.Compile.slice(0, 2)).toEqual(['regexp/regexp.go#Compile:3', 'regexp/compile.go#compile:3']);
    expect(actual.compile.slice(0, 2)).toEqual(['regexp/compile.go#compile:3', 'regexp/regexp.go#Compile:3']);
  });

  it('finds merged small siblings by each name and names the one that matched', () => {
    expect(actual.qsize[0]).toBe('asyncio/queues.py#qsize:4');
    expect(actual.empty[0]).toBe('asyncio/queues.py#empty:11');
  });

  it('answers a split definition\'s name with its head', () => {
    const top = responses.parse_command_line[0];
    expect(top.start_line).toBe(4);
    expect(top.context).toBeNull();
    expect(top.explain?.signals.find((s) => s.signal === 'definition')?.value).toBe(1);
  });

  it('keeps only vector hits above the floor, and says where it was', () => {
    expect(vectorRes.length).toBeGreaterThan(0);
    const floor = vectorRes[0].explain!.vector_floor!;
    expect(floor).toBeGreaterThanOrEqual(0.2);
    for (const r of vectorRes) expect(r.vector_score).toBeGreaterThanOrEqual(floor);
    expect(vectorRes[0].explain!.vector_dropped).toBeGreaterThan(0);
  });

  it('matches the golden top results for every query', () => {
    expect(existsSync(GOLDEN), 'run with UPDATE_GOLDEN=1 to create the golden file').toBe(true);
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;
    expect(Object.keys(golden).sort()).toEqual([...QUERIES].sort());
    for (const q of QUERIES) expect(actual[q], q).toEqual(golden[q]);
  });
});
