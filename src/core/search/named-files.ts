/**
 * Files a question names by their file names (issue 35, class 1: "compress a whole buffer in one
 * call" → `compress.c`). The keyword leg's candidates are the best rows by bm25; in a codebase
 * where the question's words are everywhere (zlib writes "compress" in most files) the file named
 * for them may hold none of the best rows. Its best piece is then a candidate too (bm25.ts
 * `namedFileCandidates`), and the file signals (signals.ts `path`, `file_name`) weigh it against
 * the others.
 *
 * A question word names a file-name word (signals.ts fileNameWords) as the `file_name` signal
 * reads it (namesWord, an abbreviation), starting as it does: every such word holds the first
 * three letters of the question word's stem, or is one of its abbreviations. So only the files
 * whose last two path segments hold one of those are matched word by word; the files are read
 * once per index generation (readFileNames).
 */
import type { Queryable } from '../store/sqlite.ts';
import { fileKind } from '../text/file-kind.ts';
import { fileNameWords, namesWord, type TermForm } from './signals.ts';

export interface NamedFile {
  path: string;
  /** Its pieces' ids: chunk_lo..chunk_hi. */
  lo: number;
  hi: number;
}

/** Most files named by one query word: a word that names more is no name of one thing (`test`, `util`). */
export const NAMED_FILES_PER_WORD = 12;
/** Most files a question names: one that names more (a long question of common words) names no one file, and adds none. */
export const NAMED_FILES_MAX = 3;
/** Most pieces of a named file read to find its best. */
export const NAMED_FILE_PIECES = 16;

/**
 * Does name word `w` stand for the question's word `f` (signals.ts namesWord, or an abbreviation),
 * starting as it does: not a word that only ends with it (`zfstream` is no name of "stream").
 */
function names(w: string, f: TermForm): boolean {
  return f.abbreviations.includes(w) || (w.slice(0, 3) === f.stem.slice(0, 3) && namesWord(w, f.t, f.stem));
}

/** The index's files, read once per index generation (bm25.ts KeywordCache.fileNames). */
export interface FileNames {
  files: Array<NamedFile & { language: string }>;
  /**
   * Per file, its last two path segments, lower case: where its file-name words come from
   * (signals.ts fileNameWords: its name's, or its folder's when the name is generic, `net/mod.rs`).
   */
  tails: string[];
  /** Per text a question looks for in the tails: the files whose tail holds it (filled as asked). */
  holding: Map<string, number[]>;
  /** Per file, its file-name words when it is code, null when not (filled as asked: the shared per-path caches turn over during a search). */
  codeWords: Array<readonly string[] | null | undefined>;
}

/** The last two segments of `path`, lower case: they hold its file-name words, a generic name's folder's too (FileNames.tails). */
function nameTail(path: string): string {
  return path.slice(path.lastIndexOf('/', path.lastIndexOf('/') - 1) + 1).toLowerCase();
}

/**
 * Every file of the index with pieces, in one aggregated row (a row per file costs ~10 µs across
 * the SQLite boundary: 30–90 ms for 2,835 files in a one-shot process; the one string, ~1 ms).
 * A path holding the separators is read row by row.
 */
export async function readFileNames(db: Queryable, parts?: readonly string[]): Promise<FileNames> {
  if (parts && !parts.length) return { files: [], tails: [], holding: new Map(), codeWords: [] };
  // `parts`: only the files whose path holds one (LIKE, in SQLite), all a question with those parts can name.
  const only = parts ? ` AND (${parts.map(() => `path LIKE ? ESCAPE '\\'`).join(' OR ')})` : '';
  const args = parts ? parts.map((p) => `%${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : [];
  const row = await db.get<{ t: string | null }>(
    `SELECT group_concat(path || char(31) || language || char(31) || chunk_lo || char(31) || chunk_hi, char(30)) AS t FROM files WHERE chunk_lo IS NOT NULL${only}`,
    args,
  );
  let files: FileNames['files'] = [];
  let whole = true;
  for (const rec of row?.t ? row.t.split('\x1e') : []) {
    const f = rec.split('\x1f');
    if (f.length !== 4 || !/^\d+$/.test(f[2]) || !/^\d+$/.test(f[3])) {
      whole = false;
      break;
    }
    files.push({ path: f[0], language: f[1], lo: Number(f[2]), hi: Number(f[3]) });
  }
  if (!whole) files = await db.all(`SELECT path, language, chunk_lo AS lo, chunk_hi AS hi FROM files WHERE chunk_lo IS NOT NULL${only}`, args);
  return { files, tails: files.map((f) => nameTail(f.path)), holding: new Map(), codeWords: [] };
}

/** What a file name a question word names holds, lower case: the first three letters of the word's stem, or one of its abbreviations. */
export function namedParts(forms: readonly TermForm[]): string[] {
  return [...new Set(forms.filter((f) => f.t.length >= 3).flatMap((f) => [f.stem.slice(0, 3), ...f.abbreviations]).filter((p) => p.length >= 2))];
}

/**
 * How many questions of one index generation read only the files their parts name (one LIKE
 * statement each, ~3 ms on 2,835 files) before all files are read once for the rest (~40 ms in a
 * fresh process, then nothing): a one-shot `sift search` asks once, a Searcher that lives asks many.
 */
export const NAMED_FILES_READ_ALL_AFTER = 3;

/**
 * The code files (text/file-kind.ts fileKind: a code question's answer is not the guide or the
 * changelog named for its words) every word of whose name a question word names (`compress.c`,
 * `BidirectionalDictionary.cs`), shortest path first; none when more than NAMED_FILES_MAX. A word
 * that names more than NAMED_FILES_PER_WORD files names none of them.
 */
export function filesNamedBy(fileNames: FileNames, forms: readonly TermForm[]): NamedFile[] {
  const asked = forms.filter((f) => f.t.length >= 3);
  const parts = namedParts(forms);
  if (!parts.length) return [];
  // A name word that a question word names holds one of `parts`: only those files are matched word by word.
  const matched = new Set<number>();
  for (const p of parts) {
    let list = fileNames.holding.get(p);
    if (!list) {
      list = [];
      for (let i = 0; i < fileNames.tails.length; i++) if (fileNames.tails[i].includes(p)) list.push(i);
      fileNames.holding.set(p, list);
    }
    for (const i of list) matched.add(i);
  }
  const files: NamedFile[] = [];
  const wordsOf: Array<readonly string[]> = [];
  for (const i of matched) {
    const f = fileNames.files[i];
    let words = fileNames.codeWords[i];
    if (words === undefined) words = fileNames.codeWords[i] = fileKind(f.path, f.language) === 'code' ? fileNameWords(f.path) : null;
    if (!words) continue;
    files.push({ path: f.path, lo: f.lo, hi: f.hi });
    wordsOf.push(words);
  }
  const hit = new Set<number>();
  for (const f of asked) {
    const mine = files.flatMap((_, i) => (wordsOf[i].some((w) => names(w, f)) ? [i] : []));
    if (mine.length <= NAMED_FILES_PER_WORD) for (const i of mine) hit.add(i);
  }
  const named = [...hit].filter((i) => wordsOf[i].every((w) => asked.some((f) => names(w, f)))).map((i) => files[i]);
  if (named.length > NAMED_FILES_MAX) return [];
  return named.sort((a, b) => a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
}
