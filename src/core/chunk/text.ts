/**
 * Structure-aware text chunking: the path for every non-code file and for code that
 * could not be parsed.
 *
 * Owns: cutting a file into 'text' chunks of at most `maxChunkChars` (a single longer
 * line is cut by columns) with ~`overlapChars` of whole lines repeated after soft cuts.
 * Markdown headings and TOML/INI `[tables]` open sections (hard cuts; tiny sections are
 * merged with the next one); inside a section, cuts prefer blank lines, low indentation
 * and top-level keys.
 *
 * Invariants: chunks are in file order, cover every non-blank line, carry 1-based lines,
 * and are never empty.
 */
import type { Chunk } from '../types.ts';
import { LineTable, packRows } from './lines.ts';

/** Score bonuses for a row that may start a chunk. */
const SCORE_AFTER_BLANK = 6;
const SCORE_TOP_LEVEL_KEY = 8;
const SCORE_STATEMENT = 8;

export interface TextChunkOptions {
  maxChunkChars: number;
  minChunkChars: number;
  overlapChars: number;
}

interface Section {
  startRow: number;
  endRow: number;
  title: string | null;
}

const MD_HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const MD_FENCE = /^ {0,3}(```|~~~)/;
const TABLE_HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*$/;
const YAML_KEY = /^[A-Za-z0-9_"'][^:#]*:(\s|$)/;
const SQL_STATEMENT = /^\s*(create|alter|drop|insert|update|delete|select|with|begin|commit|grant)\b/i;

/** Section boundaries: rows that open a section, with its title. */
function findSections(lines: LineTable, language: string): Section[] {
  const opens: Array<{ row: number; title: string | null }> = [];
  if (language === 'markdown') {
    let inFence = false;
    for (let r = 0; r < lines.count; r++) {
      const line = lines.line(r);
      if (MD_FENCE.test(line)) inFence = !inFence;
      if (inFence) continue;
      const m = MD_HEADING.exec(line);
      if (m) opens.push({ row: r, title: m[2] || null });
    }
  } else if (language === 'toml' || language === 'ini') {
    for (let r = 0; r < lines.count; r++) {
      const m = TABLE_HEADER.exec(lines.line(r));
      if (m) opens.push({ row: r, title: m[1] });
    }
  }
  const sections: Section[] = [];
  let start = 0;
  let title: string | null = null;
  for (const o of opens) {
    if (o.row > start) sections.push({ startRow: start, endRow: o.row - 1, title });
    start = o.row;
    title = o.title;
  }
  if (start < lines.count) sections.push({ startRow: start, endRow: lines.count - 1, title });
  return sections;
}

function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i === line.length ? Infinity : i;
}

/** How good a row is as the first row of a chunk, for this language. */
function rowScorer(lines: LineTable, language: string): (row: number) => number {
  return (row) => {
    if (lines.isBlank(row)) return 1;
    const line = lines.line(row);
    const indent = indentOf(line);
    let score = indent === 0 ? 3 : indent <= 2 ? 2 : indent <= 4 ? 1 : 0;
    if (row > 0 && lines.isBlank(row - 1)) score += SCORE_AFTER_BLANK;
    if (language === 'yaml' && indent === 0 && (YAML_KEY.test(line) || line.startsWith('---'))) score += SCORE_TOP_LEVEL_KEY;
    if (language === 'json' && indent <= 2 && /^\s*"/.test(line)) score += SCORE_TOP_LEVEL_KEY;
    if (language === 'sql' && SQL_STATEMENT.test(line)) score += SCORE_STATEMENT;
    if ((language === 'css' || language === 'scss' || language === 'less') && indent === 0) score += SCORE_STATEMENT;
    return score;
  };
}

/** Chunks `text` as text. `language` is only a label and a hint for where to cut. */
export function chunkText(path: string, text: string, language: string, opts: TextChunkOptions): Chunk[] {
  const lines = new LineTable(text);
  if (lines.count === 0) return [];
  const sections = mergeSmallSections(lines, findSections(lines, language), opts);
  const score = rowScorer(lines, language);
  const chunks: Chunk[] = [];
  for (const sec of sections) {
    const pieces = packRows(lines, {
      from: sec.startRow,
      to: sec.endRow,
      firstBudget: opts.maxChunkChars,
      laterBudget: opts.maxChunkChars,
      score,
      overlapChars: opts.overlapChars,
    });
    for (const p of pieces) {
      const content = p.cols
        ? lines.line(p.startRow).slice(p.cols[0], p.cols[1])
        : lines.slice(p.startRow, p.endRow);
      if (content.trim() === '') continue;
      chunks.push({
        path,
        startLine: p.startRow + 1,
        endLine: p.endRow + 1,
        language,
        chunkType: 'text',
        symbol: sec.title,
        parent: null,
        signature: null,
        doc: null,
        content,
      });
    }
  }
  return chunks;
}

/** A section smaller than the minimum joins the next one when both fit in one chunk. */
function mergeSmallSections(lines: LineTable, sections: Section[], opts: TextChunkOptions): Section[] {
  const out: Section[] = [];
  for (const sec of sections) {
    const prev = out[out.length - 1];
    if (
      prev &&
      lines.size(prev.startRow, prev.endRow) < opts.minChunkChars &&
      lines.size(prev.startRow, sec.endRow) <= opts.maxChunkChars
    ) {
      prev.endRow = sec.endRow;
      prev.title ??= sec.title;
    } else {
      out.push({ ...sec });
    }
  }
  return out;
}
