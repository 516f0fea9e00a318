/**
 * Parity of `sift search --mode exact|regex` with ripgrep (issue 11): for each pattern, the set
 * of (file, line) Sift returns equals `rg`'s on exactly the files Sift indexed. The tree holds
 * the hard cases: lines in chunk overlaps and outside every chunk, CRLF, multibyte UTF-8, tabs,
 * empty lines, ^/$, case folding, a literal full of metacharacters, a 2-character literal, the
 * catastrophic (a+)+$, an invalid pattern, and a file edited after indexing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSift } from './run-sift.ts';
import { openNodeStore } from '../../src/core/store/open-node.ts';

let work: string;
let repo: string;
let db: string;

const sift = (args: string[], input?: string) => runSift(args, { home: join(work, 'home'), input });

function prose(n: number): string {
  const out: string[] = ['# Notes', ''];
  for (let i = 1; i <= n; i++) {
    out.push(`Paragraph marker-${i} says something about the café and naïve résumé handling, number ${i * 7}.`);
    if (i % 3 === 0) out.push('');
  }
  return out.join('\n') + '\n';
}

function code(): string {
  const out: string[] = ['"""Module doc."""', 'import os', '', 'LIMIT = 42  # TODO: tune', ''];
  for (let i = 0; i < 40; i++) {
    out.push('', '', `def handler_${i}(request):`, `    """Handle request ${i}."""`, `    if request is None:`, `        raise ValueError("handler ${i}: no request")`, `    return request.value * ${i}`);
  }
  out.push('', '', '# FIXME: trailing module comment', 'if __name__ == "__main__":', '    handler_0(None)');
  return out.join('\n') + '\n';
}

const FILES: Record<string, string> = {
  'docs/notes.md': prose(120),
  'src/app.py': code(),
  'src/win.txt': 'first line\r\nfoo\r\n\r\n\tfoo bar\r\nlast foo',
  'src/utf8.txt': 'Ünïcödé ÉCOLE école\n😀 emoji 😀x\nΣίσυφος STRASSE straße\n中文字符 and 日本語\n\ttab\tsep\t\n\n  \n',
  'src/meta.txt': 'x = a.b*c(d)[e]{f}|g^h$ end\nab\nplain\n',
  'src/aaa.txt': `${'a'.repeat(50_000)}!\n${'a'.repeat(100)}\n`,
  'src/empty.txt': '',
  // Word boundaries next to letters outside ASCII: ripgrep's \b is Unicode.
  'src/i18n.txt': 'jöfn fn\nfuncționează\ncafé ok\nnaïve_fn x\nà la fn\nfnö\nüber alles\nτfn fnτ\n',
};

const EXACT = ['raise ValueError(', 'a.b*c(d)[e]{f}|g^h$', 'ab', 'é', '😀', '\t', 'marker-1', 'foo', ' ', 'request.value', 'ÉCOLE'];
const REGEX = [
  '^', '$', '^$', '^\\s*$', 'foo$', 'foo\\r$', '^\\t', '\\w+é', '(?i)straße', '[^\\x00-\\x7F]', '\\bdef \\w+\\(', 'TODO|FIXME',
  '(a+)+$', '\\d{2,}', '^.{80,}$', 'marker-\\d+$', '.*', '\\s+$', 'handler_(1|2)\\d?\\(', '^\\s+raise \\w+Error\\(', '[[:upper:]]{3,}',
  '\\p{Greek}+', 'é|ü', 'x$', '^[^#]*$', '(?i)école', '\\S+\\s\\S+$',
  '\\bfn\\b', '\\bfn\\b|\\bfunc\\b|function', 'caf\\w\\b', 'é\\b', '\\bü', '\\w+\\b', '\\bfn', 'fn\\b',
];

interface GrepJson {
  query: string;
  error?: string;
  results: Array<{ path: string; start_line: number; end_line: number; content: string; matches: Array<{ start: number; end: number }> }>;
  total_matches: number;
  truncated: boolean;
}

function siftLines(mode: 'exact' | 'regex', patterns: string[], ignoreCase: boolean): Map<string, string[]> {
  const r = sift(['search', repo, '--db', db, '--mode', mode, '--stdin', '--json', '--limit', '100000', ...(ignoreCase ? ['-i'] : [])], patterns.join('\n') + '\n');
  expect(r.code, r.stderr).toBe(0);
  const out = new Map<string, string[]>();
  for (const line of r.stdout.split('\n').filter(Boolean)) {
    const j = JSON.parse(line) as GrepJson;
    expect(j.error).toBeUndefined();
    expect(j.truncated).toBe(false);
    for (const x of j.results) expect(x.start_line).toBe(x.end_line);
    out.set(j.query, j.results.map((x) => `${x.path}:${x.start_line}`));
  }
  return out;
}

function rgLines(pattern: string, mode: 'exact' | 'regex', ignoreCase: boolean, files: string[]): string[] {
  const r = spawnSync('rg', ['--no-config', '-n', '--no-heading', '-H', ...(mode === 'exact' ? ['-F'] : []), ...(ignoreCase ? ['-i'] : []), '-e', pattern, '--', ...files], {
    cwd: repo, encoding: 'utf8', maxBuffer: 1 << 26,
  });
  if (r.status === 1) return [];
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean).map((l) => {
    const m = /^(.*?):(\d+):/.exec(l);
    if (!m) throw new Error(`unparsed rg line: ${l}`);
    return `${m[1]}:${m[2]}`;
  });
}

async function indexedFiles(): Promise<string[]> {
  const store = await openNodeStore(db);
  try {
    return (await store.grepFiles(null)).map((f) => f.path);
  } finally {
    await store.close();
  }
}

const sorted = (xs: string[]) => [...xs].sort();

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sift-grep-'));
  repo = join(work, 'repo');
  for (const [p, text] of Object.entries(FILES)) {
    mkdirSync(join(repo, p, '..'), { recursive: true });
    writeFileSync(join(repo, p), text);
  }
  db = join(work, 'index.db');
  const r = sift(['index', repo, '--db', db, '--no-embed', '--workers', '0']);
  expect(r.code, r.stderr).toBe(0);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('exact and regex search equal ripgrep on the indexed files', () => {
  it('indexes every fixture file, and the tree has lines in chunk overlaps and outside every chunk', async () => {
    expect(sorted(await indexedFiles())).toEqual(sorted(Object.keys(FILES)));
    const store = await openNodeStore(db);
    try {
      let overlap = 0;
      let outside = 0;
      for (const p of ['docs/notes.md', 'src/app.py']) {
        const chunks = await store.getFileChunks(p);
        const lines = (await store.getFileText(p))!.split('\n').length - 1;
        for (let l = 1; l <= lines; l++) {
          const n = chunks.filter((c) => c.startLine <= l && l <= c.endLine).length;
          if (n > 1) overlap++;
          if (n === 0) outside++;
        }
      }
      expect(overlap).toBeGreaterThan(0);
      expect(outside).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  for (const ignoreCase of [false, true]) {
    it(`literals${ignoreCase ? ' with -i' : ''}`, async () => {
      const files = await indexedFiles();
      const got = siftLines('exact', EXACT, ignoreCase);
      for (const p of EXACT) expect(sorted(got.get(p) ?? []), `${p}`).toEqual(sorted(rgLines(p, 'exact', ignoreCase, files)));
    });
    it(`regexes${ignoreCase ? ' with -i' : ''}`, async () => {
      const files = await indexedFiles();
      const got = siftLines('regex', REGEX, ignoreCase);
      for (const p of REGEX) expect(sorted(got.get(p) ?? []), `${p}`).toEqual(sorted(rgLines(p, 'regex', ignoreCase, files)));
    });
  }

  it('returns each line once with its text and the match ranges', () => {
    const r = sift(['search', repo, 'foo', '--db', db, '--mode', 'exact', '--json']);
    const j = JSON.parse(r.stdout) as GrepJson;
    expect(j.results.map((x) => [x.path, x.start_line, x.content, x.matches])).toEqual([
      ['src/win.txt', 2, 'foo', [{ start: 0, end: 3 }]],
      ['src/win.txt', 4, '\tfoo bar', [{ start: 1, end: 4 }]],
      ['src/win.txt', 5, 'last foo', [{ start: 5, end: 8 }]],
    ]);
  });

  it('an exact pattern written as a regex that finds nothing says what --mode regex finds', () => {
    const r = sift(['search', repo, '\\bfoo\\b', '--db', db, '--mode', 'exact']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no line holds this exact text; as a regex \(--mode regex\) it matches 3 lines in 1 file\n/);
    expect(sift(['search', repo, 'no such text', '--db', db, '--mode', 'exact']).stderr).not.toMatch(/as a regex/);
  });

  it('says what and where for an invalid pattern (exit 2), as rg refuses it too', () => {
    const r = sift(['search', repo, 'foo(bar', '--db', db, '--mode', 'regex']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid regex: .*missing closing \)/);
    expect(spawnSync('rg', ['--no-config', '-e', 'foo(bar', repo]).status).toBe(2);
    const lines = sift(['search', repo, '--db', db, '--mode', 'regex', '--stdin', '--json'], 'foo(bar\nfoo\n');
    expect(lines.code).toBe(0);
    const [bad, good] = lines.stdout.trim().split('\n').map((l) => JSON.parse(l) as GrepJson);
    expect(bad!.error).toMatch(/invalid regex/);
    expect(good!.total_matches).toBe(3);
  });

  it('finds a line added after indexing once re-indexed, and no longer the line it replaced', async () => {
    writeFileSync(join(repo, 'src/app.py'), FILES['src/app.py']!.replace('LIMIT = 42  # TODO: tune', 'CEILING = 43  # edited'));
    expect(sift(['index', repo, '--db', db, '--no-embed', '--workers', '0']).code).toBe(0);
    const files = await indexedFiles();
    const got = siftLines('exact', ['CEILING = 43', 'LIMIT = 42'], false);
    expect(got.get('CEILING = 43')).toEqual(['src/app.py:4']);
    expect(got.get('LIMIT = 42')).toEqual([]);
    expect(got.get('CEILING = 43')).toEqual(rgLines('CEILING = 43', 'exact', false, files));
    const re = siftLines('regex', ['TODO|FIXME'], false);
    expect(sorted(re.get('TODO|FIXME')!)).toEqual(sorted(rgLines('TODO|FIXME', 'regex', false, files)));
  });
});
