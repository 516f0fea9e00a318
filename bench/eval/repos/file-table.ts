/**
 * The two file rankings of the file-level experiment (issue 35, session 10, filelevel), for
 * file-bm25.ts. Nothing here is part of the index or the search.
 *
 * - buildFileTable: a TEMP FTS5 table, one row per file (its whole text): BM25 over files.
 * - fileLevelScores: the same, gathered at query time from the pieces' doclists: every query
 *   term's doclist (its group's phrases OR-ed) read as rowids, each mapped to its file by the
 *   files' chunk id ranges (files.chunk_lo..chunk_hi, schema 8), and each file scored
 *     Σ_term idf_file(term) × tf / (tf + k1 × (1 − b + b × pieces / mean pieces))
 *   with tf = the file's pieces that hold the term. A term held by more than `maxRows` pieces is
 *   not read (low idf over files; its doclist is the cost). This was the query-time leg tried
 *   in the search (bench/results/2026-11-30-filelevel-leg.patch).
 */
import type { Queryable } from '../../../src/core/store/sqlite.ts';
import type { FtsPhrase } from '../../../src/core/search/query-types.ts';
import { unpackText } from '../../../src/core/store/text-codec.ts';
import { identifierTokens, nameWords, pathWords } from '../../../src/core/text/identifiers.ts';

/** The query-time leg's settings as measured (the patch's config.ts FILE_LEG). */
export const FILE_LEG = { maxRows: 800, k1: 1.2, b: 0.75, files: 20 };

/**
 * A TEMP FTS5 table `files_fts` on `q`'s connection, one row per stored file (rowid = its index in
 * the returned paths + 1): the names its pieces define, its path words, its whole text and that
 * text's identifier parts, as chunks_fts writes them. Nothing is written to the database file.
 */
export async function buildFileTable(q: Queryable): Promise<string[]> {
  await q.exec(`CREATE VIRTUAL TABLE temp.files_fts USING fts5(path UNINDEXED, names, path_words, content, tokens, tokenize='unicode61 remove_diacritics 2')`);
  const files = await q.all<{ path: string; data: Uint8Array }>('SELECT path, data FROM file_text');
  const names = new Map<string, string[]>();
  for (const r of await q.all<{ path: string; symbol: string | null; parent: string | null }>('SELECT path, symbol, parent FROM chunks WHERE symbol IS NOT NULL')) {
    const l = names.get(r.path) ?? [];
    l.push(nameWords(r.symbol, r.parent));
    names.set(r.path, l);
  }
  const paths: string[] = [];
  await q.exec('BEGIN');
  for (const f of files) {
    const text = await unpackText(f.data);
    paths.push(f.path);
    await q.run('INSERT INTO temp.files_fts (rowid, path, names, path_words, content, tokens) VALUES (?, ?, ?, ?, ?, ?)', [paths.length, f.path, (names.get(f.path) ?? []).join(' '), pathWords(f.path), text, identifierTokens(text)]);
  }
  await q.exec('COMMIT');
  return paths;
}

/** Every file with pieces, ordered by its first chunk id: the map from a rowid to its file. */
export interface FileRanges {
  paths: string[];
  lo: Float64Array;
  hi: Float64Array;
  /** Mean pieces per file. */
  meanPieces: number;
}

/** The files' chunk id ranges (one read of the files table). */
export async function readFileRanges(db: Queryable): Promise<FileRanges> {
  const rows = await db.all<{ path: string; lo: number; hi: number }>('SELECT path, chunk_lo AS lo, chunk_hi AS hi FROM files WHERE chunk_lo IS NOT NULL ORDER BY chunk_lo');
  const lo = new Float64Array(rows.length);
  const hi = new Float64Array(rows.length);
  let pieces = 0;
  rows.forEach((r, i) => {
    lo[i] = r.lo;
    hi[i] = r.hi;
    pieces += r.hi - r.lo + 1;
  });
  return { paths: rows.map((r) => r.path), lo, hi, meanPieces: rows.length ? pieces / rows.length : 1 };
}

/** The index (into ranges.paths) of the file holding chunk `id`, or -1. */
export function fileOf(ranges: FileRanges, id: number): number {
  let a = 0;
  let b = ranges.lo.length - 1;
  while (a <= b) {
    const m = (a + b) >> 1;
    if (ranges.lo[m] > id) b = m - 1;
    else if (ranges.hi[m] < id) a = m + 1;
    else return m;
  }
  return -1;
}

export interface FileLegResult {
  /** File index → its file-level BM25 score, for the FILE_LEG.files best files. */
  scores: Map<number, number>;
  /** File index → its pieces that hold a read term, each with the idf-weighted share of terms it holds. */
  pieces: Map<number, Map<number, number>>;
  /** Terms read (their doclists), of the query's groups. */
  termsRead: number;
}

/** The MATCH expression of one query term: its phrases OR-ed. */
export function groupMatch(group: readonly FtsPhrase[]): string {
  return group.map((p) => p.phrase).join(' OR ');
}

/**
 * File-level BM25 for the query's term groups (ProcessedQuery.ftsGroups). `count`: the pieces
 * a MATCH holds, up to a cap (bm25.ts probeRows, cached per database generation).
 */
export async function fileLevelScores(db: Queryable, groups: readonly (readonly FtsPhrase[])[], ranges: FileRanges, count: (match: string, cap: number) => Promise<number>): Promise<FileLegResult> {
  const empty: FileLegResult = { scores: new Map(), pieces: new Map(), termsRead: 0 };
  const files = ranges.paths.length;
  if (files === 0 || groups.length < 2) return empty;
  const read: Array<{ perFile: Map<number, number>; rows: number[] }> = [];
  for (const g of groups) {
    const match = groupMatch(g);
    if (!match) continue;
    const n = await count(match, FILE_LEG.maxRows + 1);
    if (n === 0 || n > FILE_LEG.maxRows) continue;
    const rows = (await db.all<{ id: number }>('SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH ?', [match])).map((r) => r.id);
    const perFile = new Map<number, number>();
    for (const id of rows) {
      const f = fileOf(ranges, id);
      if (f >= 0) perFile.set(f, (perFile.get(f) ?? 0) + 1);
    }
    read.push({ perFile, rows });
  }
  if (read.length < 2) return { ...empty, termsRead: read.length };
  const { k1, b } = FILE_LEG;
  const scores = new Map<number, number>();
  const idfs = read.map((t) => Math.log(1 + (files - t.perFile.size + 0.5) / (t.perFile.size + 0.5)));
  read.forEach((t, i) => {
    for (const [f, tf] of t.perFile) {
      const len = ranges.hi[f] - ranges.lo[f] + 1;
      const sat = tf / (tf + k1 * (1 - b + b * len / ranges.meanPieces));
      scores.set(f, (scores.get(f) ?? 0) + idfs[i] * sat);
    }
  });
  const best = [...scores].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, FILE_LEG.files);
  const kept = new Map(best);
  const idfSum = idfs.reduce((s, x) => s + x, 0);
  const pieces = new Map<number, Map<number, number>>();
  read.forEach((t, i) => {
    for (const id of t.rows) {
      const f = fileOf(ranges, id);
      if (!kept.has(f)) continue;
      let m = pieces.get(f);
      if (!m) pieces.set(f, (m = new Map()));
      m.set(id, (m.get(id) ?? 0) + idfs[i] / idfSum);
    }
  });
  return { scores: kept, pieces, termsRead: read.length };
}
