/**
 * The seed-style BM25 reference, on native /usr/bin/sqlite3 FTS5: every indexable file is
 * cut into fixed WINDOW_LINES-line windows (no overlap, no parsing), stored in an
 * external-content FTS5 table over (content, path) as in the Codii seed, and a query
 * becomes each of its terms OR-ed as a prefix (`"page"* OR "table"* OR "walk"*`), ranked
 * by FTS5's default bm25(). No stop words, no identifier splitting, no weights.
 * This is the ≈0.42 MRR@10 reference that Sift's `--mode bm25` must beat.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_FILE_SIZE } from '../../src/core/config.ts';
import { listFiles, runOk } from '../util.ts';
import type { Span } from './score.ts';

export const WINDOW_LINES = 40;
export const SQLITE3 = 'sqlite3';

/**
 * The files this frozen baseline indexes: Sift's extension whitelist as it was when the
 * baseline was set (Sift itself now indexes every text file). Kept here so it never moves.
 */
const BASELINE_EXTENSIONS: readonly string[] = [
  '.py', '.pyi', '.js', '.jsx', '.mjs', '.cjs', '.ts', '.tsx', '.mts', '.cts',
  '.go', '.rs', '.java', '.kt', '.scala', '.c', '.cpp', '.cc', '.cxx', '.h', '.hpp', '.hxx', '.hh',
  '.cs', '.rb', '.php', '.swift', '.lua', '.svelte', '.vue',
  '.json', '.yaml', '.yml', '.toml', '.ini', '.cfg',
  '.md', '.mdx', '.rst', '.txt',
  '.sh', '.bash', '.zsh',
  '.sql', '.proto', '.graphql',
  '.html', '.htm', '.css', '.scss', '.less', '.xml',
];
const BASELINE_FILENAMES: readonly string[] = [
  'Makefile', 'Dockerfile', 'Kconfig', 'README', 'LICENSE', 'CMakeLists.txt', 'Gemfile', 'Rakefile',
];

export function indexable(rel: string): boolean {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return BASELINE_FILENAMES.includes(base) || (dot > 0 && BASELINE_EXTENSIONS.includes(base.slice(dot).toLowerCase()));
}

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** Query text → FTS5 expression of prefix terms OR-ed; '' when the query has no terms. */
export function seedQuery(query: string): string {
  const terms = [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []))];
  return terms.map((t) => `"${t}"*`).join(' OR ');
}

export interface WindowsDb {
  db: string;
  files: number;
  windows: number;
  buildMs: number;
}

/** Build the window index for every indexable file under `tree` into `db` (replaced). */
export function buildWindowsDb(tree: string, db: string): WindowsDb {
  rmSync(db, { force: true });
  const parts: string[] = [
    'PRAGMA journal_mode=OFF;', 'PRAGMA synchronous=OFF;',
    'CREATE TABLE windows(id INTEGER PRIMARY KEY, path TEXT, start_line INT, end_line INT, content TEXT);',
    "CREATE VIRTUAL TABLE windows_fts USING fts5(content, path, content='windows', content_rowid='id');",
    'BEGIN;',
  ];
  let files = 0;
  let windows = 0;
  for (const rel of listFiles(tree, indexable)) {
    const buf = readFileSync(join(tree, rel));
    if (buf.length > DEFAULT_MAX_FILE_SIZE || buf.includes(0)) continue;
    files++;
    const lines = buf.toString('utf8').split('\n');
    for (let s = 0; s < lines.length; s += WINDOW_LINES) {
      const e = Math.min(lines.length, s + WINDOW_LINES);
      parts.push(`INSERT INTO windows(path,start_line,end_line,content) VALUES(${sqlString(rel)},${s + 1},${e},${sqlString(lines.slice(s, e).join('\n'))});`);
      windows++;
    }
  }
  parts.push('COMMIT;', "INSERT INTO windows_fts(windows_fts) VALUES('rebuild');");
  const r = runOk(SQLITE3, [db], { input: parts.join('\n') });
  return { db, files, windows, buildMs: r.ms };
}

/** Top-`limit` windows per query, in rank order. */
export function searchWindows(db: string, queries: readonly string[], limit = 10): Span[][] {
  const sql = ['.mode list', '.separator "\\t"'];
  queries.forEach((q, i) => {
    const expr = seedQuery(q);
    if (!expr) return;
    sql.push(`SELECT ${i}, w.path, w.start_line, w.end_line FROM windows_fts f JOIN windows w ON w.id = f.rowid ` +
      `WHERE windows_fts MATCH ${sqlString(expr)} ORDER BY bm25(windows_fts) LIMIT ${limit};`);
  });
  const r = runOk(SQLITE3, ['-readonly', db], { input: sql.join('\n') });
  const out: Span[][] = queries.map(() => []);
  for (const line of r.stdout.split('\n')) {
    if (!line) continue;
    const [i, path, start, end] = line.split('\t');
    out[Number(i)].push({ path, start: Number(start), end: Number(end) });
  }
  return out;
}
