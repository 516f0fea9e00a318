/**
 * Line arithmetic shared by the structural chunker and the text fallback.
 *
 * Owns: the line table of one file (UTF-16 offsets, as JS strings and web-tree-sitter
 * use) and the greedy line packer that cuts a row range into pieces of at most a
 * budget of characters at the best-scored break rows.
 *
 * Invariants: rows are 0-based here (chunks are 1-based); a packed piece never exceeds
 * its budget unless it is a slice of a single over-long line, which is then cut into
 * column ranges; pieces come out in order and every row of the range is in one piece
 * (overlap aside).
 */

/** Fraction of the budget a piece must fill before a cut may be preferred for its score. */
export const MIN_FILL = 0.4;

export class LineTable {
  /** Offset of the first character of each row; one extra entry = text.length + 1. */
  private readonly starts: number[];
  readonly count: number;

  constructor(readonly text: string) {
    const starts = [0];
    let i = text.indexOf('\n');
    while (i !== -1) {
      starts.push(i + 1);
      i = text.indexOf('\n', i + 1);
    }
    // A trailing newline does not open another row.
    if (starts.length > 1 && starts[starts.length - 1] === text.length) starts.pop();
    this.count = text.length === 0 ? 0 : starts.length;
    starts.push(text.length + 1);
    this.starts = starts;
  }

  /** Offset where `row` starts. */
  start(row: number): number {
    return this.starts[row];
  }

  /** Offset just past the last content character of `row` (before `\r\n` / `\n`). */
  end(row: number): number {
    let e = Math.min(this.starts[row + 1] - 1, this.text.length);
    // The last row of a file ending in a newline: the newline is not content.
    if (e > this.starts[row] && this.text.charCodeAt(e - 1) === 10) e--;
    if (e > this.starts[row] && this.text.charCodeAt(e - 1) === 13) e--;
    return e;
  }

  /** Characters in rows a..b inclusive, counting the newlines between them. */
  size(a: number, b: number): number {
    return this.end(b) - this.starts[a];
  }

  line(row: number): string {
    return this.text.slice(this.starts[row], this.end(row));
  }

  /** Text of rows a..b inclusive (without the final newline). */
  slice(a: number, b: number): string {
    return this.text.slice(this.starts[a], this.end(b));
  }

  isBlank(row: number): boolean {
    for (let i = this.starts[row], e = this.end(row); i < e; i++) {
      const c = this.text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 12 && c !== 11) return false;
    }
    return true;
  }

  /** Row containing `offset` (binary search). */
  rowOf(offset: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** True when only whitespace precedes `offset` on its row. */
  startsRow(offset: number, row: number): boolean {
    const s = this.starts[row];
    if (offset - s > 256) return false;
    for (let i = s; i < offset; i++) {
      const c = this.text.charCodeAt(i);
      if (c !== 32 && c !== 9) return false;
    }
    return true;
  }
}

/** A packed piece: rows a..b, or (when `cols` is set) columns [s, e) of the single row a === b. */
export interface RowPiece {
  startRow: number;
  endRow: number;
  cols?: [number, number];
}

export interface PackOptions {
  from: number;
  to: number;
  /** Character budget of the first piece and of later pieces (later ones may carry a prefix). */
  firstBudget: number;
  laterBudget: number;
  /** Preference for starting a piece at `row` (higher is better; 0 = any line). */
  score: (row: number) => number;
  /** A row that must start a new piece (e.g. a markdown heading). */
  forced?: (row: number) => boolean;
  /** Characters of whole rows repeated at the start of the next piece after a soft cut. */
  overlapChars: number;
}

/**
 * Cuts `text` in [s, e) into column ranges of at most `budget` characters, never inside a
 * surrogate pair, consecutive ranges sharing `overlap` characters.
 */
export function splitColumns(text: string, s: number, e: number, budget: number, overlap: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const step = Math.max(1, budget - Math.min(overlap, Math.floor(budget / 2)));
  let a = s;
  while (a < e) {
    let b = Math.min(e, a + budget);
    if (b < e && isHighSurrogate(text.charCodeAt(b - 1))) b--;
    out.push([a, b]);
    if (b >= e) break;
    let next = Math.min(a + step, b);
    if (isHighSurrogate(text.charCodeAt(next - 1))) next--;
    a = next > a ? next : b;
  }
  return out;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Greedy packing of rows from..to into pieces (see module comment). */
export function packRows(lines: LineTable, o: PackOptions): RowPiece[] {
  const out: RowPiece[] = [];
  let start = o.from;
  while (start <= o.to) {
    const budget = Math.max(1, out.length === 0 ? o.firstBudget : o.laterBudget);
    // Skip leading blank rows of a piece: they carry nothing.
    while (start < o.to && lines.isBlank(start)) start++;
    if (lines.isBlank(start)) break;
    if (lines.size(start, start) > budget) {
      const s = lines.start(start);
      for (const cols of splitColumns(lines.text, s, lines.end(start), budget, o.overlapChars)) {
        out.push({ startRow: start, endRow: start, cols: [cols[0] - s, cols[1] - s] });
      }
      start++;
      continue;
    }
    let end = start;
    let hitForced = false;
    while (end < o.to && lines.size(start, end + 1) <= budget) {
      if (o.forced?.(end + 1)) {
        hitForced = true;
        break;
      }
      end++;
    }
    if (end === o.to || hitForced || o.forced?.(end + 1)) {
      out.push({ startRow: start, endRow: end });
      start = end + 1;
      continue;
    }
    // Choose where the next piece starts: best score among cuts that fill enough, latest on ties.
    const minSize = budget * MIN_FILL;
    let cut = end + 1;
    let best = -1;
    for (let c = end + 1; c > start; c--) {
      if (lines.size(start, c - 1) < minSize) break;
      const sc = o.score(c);
      if (sc > best) {
        best = sc;
        cut = c;
      }
    }
    out.push({ startRow: start, endRow: cut - 1 });
    let next = cut;
    if (o.overlapChars > 0) {
      while (next - 1 > start && lines.size(next - 1, cut - 1) <= o.overlapChars) next--;
    }
    start = next;
  }
  return out;
}
