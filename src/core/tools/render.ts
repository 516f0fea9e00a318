/**
 * The text rendering of the agent tools' answers (the `text` content next to the structured
 * one): counts first, then entries in the shape agents and people read fastest — ripgrep's
 * `path:line:text` for grep, numbered lines for snippets and files. Control characters in
 * file text are shown as \xNN so an answer never carries terminal escapes.
 */
import type { GrepLine } from '../search/grep.ts';
import type { SearchResult } from '../types.ts';
import { foldedDefinitions, moreCounts } from '../search/results.ts';

/** Lines of a snippet kept in the brief level: its signature line and the best lines. */
const BRIEF_BEST_LINES = 3;
const BRIEF_LINE_CHARS = 200;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;
export function printable(s: string): string {
  return s.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

type Obj = Record<string, unknown>;

function compact(o: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

function numbered(first: number, lines: readonly string[], width: number): string {
  return lines.map((l, i) => `${String(first + i).padStart(width)}  ${printable(l)}\n`).join('');
}

function notesText(notes: readonly string[]): string {
  return notes.map((n) => `note: ${n}\n`).join('');
}

function cursorText(next: unknown, what: string): string {
  return typeof next === 'string' ? `next_cursor: ${next}  (${what}: call again with the same arguments and this cursor)\n` : '';
}

function share(s: Obj): string {
  const v = typeof s.indexed_share === 'number' ? s.indexed_share : 1;
  return v < 1 ? ` · index ${Math.floor(v * 100)}% built` : '';
}

// ---- search ----------------------------------------------------------------------------

export interface Entry {
  structured: Obj;
  text: string;
  detail: number;
}

export function searchEntry(r: SearchResult & { codebase: string }, multi: boolean): { levels: Entry[] } {
  const name = r.matchedName ?? r.symbol;
  const label = `${r.chunkType}${name ? ` ${name}` : ''}${r.parent && name !== r.parent ? ` (in ${r.parent})` : ''}`;
  const where = `${multi ? `[${r.codebase}] ` : ''}${r.path}:${r.startLine}-${r.endLine}`;
  const counts = moreCounts(r);
  // The file's other matching definitions folded into this result (diversity gave their slots to
  // other files): where they are, so an agent looking for one needs no second call.
  const folded = foldedDefinitions(r);
  const base = compact({
    rank: r.rank,
    codebase: multi ? r.codebase : undefined,
    path: r.path,
    start_line: r.startLine,
    end_line: r.endLine,
    language: r.language,
    kind: r.chunkType,
    symbol: name,
    container: r.parent,
    score: Number(r.combinedScore.toFixed(4)),
    more_matches: counts.definition || undefined,
    more_in_file: counts.inFile || undefined,
    also_in_file: folded.length ? folded.map((m) => compact({ start_line: m.startLine, end_line: m.endLine, kind: m.chunkType, symbol: m.symbol ?? undefined })) : undefined,
  });
  const title = `${r.rank}. ${printable(where)} · ${printable(label)} · ${r.language}${counts.definition ? ` · +${counts.definition} more matches in it` : ''}${counts.inFile ? ` · +${counts.inFile} more in this file` : ''}\n`
    + (folded.length ? `   also in this file: ${folded.map((m) => `${m.startLine}-${m.endLine} ${printable(`${m.chunkType}${m.symbol ? ` ${m.symbol}` : ''}`)}`).join('; ')}\n` : '');
  const lines = r.content.split('\n');
  const width = String(r.endLine).length;

  // Brief: the first non-empty line (its signature) and the lines with the most query hits.
  const starts: number[] = [];
  for (let i = 0, p = 0; i < lines.length; p += lines[i].length + 1, i++) starts.push(p);
  const hits = new Map<number, number>();
  for (const [s] of r.highlights) {
    let i = starts.length - 1;
    while (i > 0 && starts[i] > s) i--;
    hits.set(i, (hits.get(i) ?? 0) + 1);
  }
  const sig = Math.max(0, lines.findIndex((l) => l.trim() !== ''));
  const best = [...hits.entries()].filter(([i]) => i !== sig).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, BRIEF_BEST_LINES).map(([i]) => i);
  const keep = [sig, ...best].sort((a, b) => a - b);
  const briefLines = keep.map((i) => {
    const t = lines[i] ?? '';
    return { line: r.startLine + i, text: t.length > BRIEF_LINE_CHARS ? t.slice(0, BRIEF_LINE_CHARS) + '…' : t };
  });
  let briefText = '';
  keep.forEach((i, k) => {
    if (k > 0 && i > keep[k - 1] + 1) briefText += `${' '.repeat(width)}  …\n`;
    briefText += numbered(r.startLine + i, [briefLines[k].text], width);
  });

  return {
    levels: [
      { detail: 0, structured: { ...base, detail: 'full', content: r.content }, text: `${title}${numbered(r.startLine, lines, width)}\n` },
      { detail: 1, structured: { ...base, detail: 'brief', lines: briefLines }, text: `${title}${briefText}\n` },
      { detail: 2, structured: { ...base, detail: 'location' }, text: title },
    ],
  };
}

export function searchHeader(s: Obj): string {
  const shown = Number(s.shown);
  const offset = Number(s.offset);
  const strategy = s.strategy === 'bm25_only' ? 'keyword' : s.strategy === 'vector_only' ? 'semantic' : String(s.strategy);
  const range = shown ? `results ${offset + 1}–${offset + shown}: ${s.full} in full, ${s.brief} brief, ${s.locations} locations only` : 'no results shown';
  return `search "${printable(String(s.query))}" · ${s.total_found}${s.more_found ? '+' : ''} found · ${range} · ${strategy}${share(s)}\n`
    + notesText(s.notes as string[])
    + cursorText(s.next_cursor, 'more results, and the snippets of results shown as locations')
    + '\n';
}

// ---- grep ------------------------------------------------------------------------------

export function grepEntry(l: GrepLine & { codebase: string }, multi: boolean, shown: { text: string; clipped: boolean }): { levels: Entry[] } {
  const where = `${multi ? `[${l.codebase}] ` : ''}${printable(l.path)}:${l.line}`;
  const base = compact({ codebase: multi ? l.codebase : undefined, path: l.path, line: l.line });
  return {
    levels: [
      {
        detail: 0,
        structured: compact({ ...base, text: shown.text, clipped: shown.clipped || undefined, matches: l.matches.map((m) => [m.start, m.end]) }),
        text: `${where}:${printable(shown.text)}\n`,
      },
      { detail: 1, structured: base, text: `${where}\n` },
    ],
  };
}

export function grepHeader(s: Obj): string {
  const shown = Number(s.shown);
  const offset = Number(s.offset);
  const withText = Number(s.with_text);
  const flags = [s.regex ? 'regex' : 'exact', s.ignore_case ? 'ignore case' : ''].filter(Boolean).join(', ');
  const range = shown
    ? `lines ${offset + 1}–${offset + shown} shown${withText < shown ? ` (${withText} with text, ${shown - withText} as path:line only)` : ''}`
    : 'no lines shown';
  return `grep "${printable(String(s.pattern))}" (${flags}) · ${s.total_matches} matching lines in ${s.files_matched} files (${s.files_searched} searched) · ${range}${share(s)}\n`
    + notesText(s.notes as string[])
    + cursorText(s.next_cursor, 'more lines')
    + '\n';
}

// ---- read ------------------------------------------------------------------------------

export function readText(s: Obj, lines: readonly string[]): string {
  const start = Number(s.start_line);
  const end = Number(s.end_line);
  const width = String(Math.max(end, start)).length;
  const cb = typeof s.codebase === 'string' ? `[${s.codebase}] ` : '';
  const range = end >= start ? `lines ${start}–${end} of ${s.total_lines}` : `no lines fit (file has ${s.total_lines})`;
  const cont = s.next_start_line !== null ? ` · more: start_line ${s.next_start_line}` : '';
  return `${cb}${printable(String(s.path))} (${s.language}) · ${range}${cont}${share(s)}\n`
    + notesText(s.notes as string[])
    + cursorText(s.next_cursor, 'the rest of the range')
    + numbered(start, lines, width);
}

// ---- symbols ---------------------------------------------------------------------------

export function symbolEntry(
  r: { codebase: { name: string }; name: string; kind: string; container: string | null; path: string; language: string; startLine: number; endLine: number },
  signature: string | null,
  multi: boolean,
): { levels: Entry[] } {
  const base = compact({
    codebase: multi ? r.codebase.name : undefined,
    name: r.name,
    kind: r.kind,
    container: r.container,
    path: r.path,
    start_line: r.startLine,
    end_line: r.endLine,
    language: r.language,
  });
  const where = `${multi ? `[${r.codebase.name}] ` : ''}${printable(r.path)}:${r.startLine}-${r.endLine}`;
  const title = `${where}  ${r.kind} ${printable(r.name)}${r.container ? ` (in ${printable(r.container)})` : ''}`;
  const loc = { detail: 1, structured: base, text: `${title}\n` };
  if (signature === null) return { levels: [{ ...loc, detail: 0 }, loc] };
  return { levels: [{ detail: 0, structured: { ...base, signature }, text: `${title}\n    ${printable(signature)}\n` }, loc] };
}

export function symbolsHeader(s: Obj): string {
  const shown = Number(s.shown);
  const offset = Number(s.offset);
  const what = s.path !== null ? `outline of ${printable(String(s.path))}` : `definitions of "${printable(String(s.name))}"`;
  return `symbols: ${what} · ${s.total} found · ${shown ? `${offset + 1}–${offset + shown} shown` : 'none shown'}${share(s)}\n`
    + notesText(s.notes as string[])
    + cursorText(s.next_cursor, 'more definitions')
    + '\n';
}

// ---- status ----------------------------------------------------------------------------

export function statusText(s: { codebases: Obj[]; notes: string[] }): string {
  const out: string[] = [];
  for (const c of s.codebases) {
    const skipped = Object.entries(c.skipped as Record<string, number>).map(([k, v]) => `${k} ${v}`).join(', ');
    const langs = Object.entries(c.languages as Record<string, number>).map(([k, v]) => `${k} ${v}`).join(', ');
    out.push(
      `${printable(String(c.name))}${c.root ? ` (${printable(String(c.root))})` : ''}: ${c.state}${Number(c.indexed_share) < 1 ? `, ${Math.floor(Number(c.indexed_share) * 100)}% of files stored` : ''}`,
      `  files ${c.files} · chunks ${c.chunks} · embedded ${Math.round(Number(c.embedded_share) * 100)}%${c.model ? ` (${c.model}${c.model_family ? `, ${c.model_family}` : ''})` : ' (no model: keyword and exact search only)'}`,
      `  last indexed ${c.last_indexed ?? 'never'} · pending changes ${c.pending_changes ?? 'unknown'}`,
      `  skipped: ${skipped || 'none'}`,
      `  languages: ${langs || 'none'}`,
    );
    if (c.error) out.push(`  error: ${printable(String(c.error))}`);
  }
  return out.join('\n') + '\n' + notesText(s.notes);
}
