/**
 * What a result's preview shows of its lines, in the app's cards and in `sift search`'s human
 * output: presentation only — a result's `content` stays the file's exact lines, and every
 * line shown keeps its own number.
 *
 * A documented definition whose doc comment comes first (Elixir `@doc """…"""`, Rust `///`, Go
 * and JS comments above a function) shows its definition line: a doc of more than
 * DOC_FOLD_MIN lines is folded to its first DOC_HEAD_LINES, then the lines from the definition
 * (`def`, `fn`, `func`) on, so the signature is in the preview and not 14 lines of prose.
 */

/** Lines a collapsed card shows (the CLI passes its own `maxLines`). */
export const PREVIEW_LINES = 14;
/** A leading doc longer than this is folded in the preview. */
export const DOC_FOLD_MIN = 4;
/** Lines of a folded doc that stay in view. */
export const DOC_HEAD_LINES = 2;

type Range = readonly [number, number];

export interface SnippetBlock {
  code: string;
  /** Line number of the block's first line in the file. */
  firstLine: number;
  /** Marks as offsets into `code`. */
  marks: Array<[number, number]>;
}

export interface Snippet {
  /** The first lines of a folded doc, or null when nothing is folded. */
  head: SnippetBlock | null;
  /** Doc lines hidden between `head` and `body` (0: none). */
  folded: number;
  body: SnippetBlock;
  /** Lines of the result not shown (below the preview, or folded). */
  hidden: number;
}

export interface SnippetSource {
  content: string;
  startLine: number;
  /** Line of the definition the result is (a piece of); null for module code. */
  defLine: number | null;
  highlights: ReadonlyArray<Range>;
}

/** `marks` that fall in content[from, to), as offsets from `from`. */
function marksIn(marks: ReadonlyArray<Range>, from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [a, b] of marks) if (b > from && a < to) out.push([Math.max(a, from) - from, Math.min(b, to) - from]);
  return out;
}

/** Lines [a, b) of `lines` as a block (offsets of `starts`). */
function block(r: SnippetSource, lines: readonly string[], starts: readonly number[], a: number, b: number): SnippetBlock {
  const code = lines.slice(a, b).join('\n');
  return { code, firstLine: r.startLine + a, marks: marksIn(r.highlights, starts[a], starts[a] + code.length) };
}

/**
 * The preview of `r`: everything when `whole` (an expanded card), else at most `maxLines` lines,
 * with a long leading doc folded unless `docOpen`.
 */
export function snippet(r: SnippetSource, opts: { whole: boolean; docOpen?: boolean; maxLines?: number }): Snippet {
  const lines = r.content.split('\n');
  const starts: number[] = [];
  for (let i = 0, p = 0; i < lines.length; p += lines[i].length + 1, i++) starts.push(p);
  if (opts.whole) return { head: null, folded: 0, body: block(r, lines, starts, 0, lines.length), hidden: 0 };
  const max = opts.maxLines ?? PREVIEW_LINES;
  const doc = r.defLine != null && r.defLine > r.startLine && r.defLine - r.startLine < lines.length ? r.defLine - r.startLine : 0;
  if (!opts.docOpen && doc > DOC_FOLD_MIN) {
    const end = Math.min(lines.length, doc + Math.max(1, max - DOC_HEAD_LINES));
    return {
      head: block(r, lines, starts, 0, DOC_HEAD_LINES),
      folded: doc - DOC_HEAD_LINES,
      body: block(r, lines, starts, doc, end),
      hidden: lines.length - (end - doc) - DOC_HEAD_LINES,
    };
  }
  const end = Math.min(lines.length, max);
  return { head: null, folded: 0, body: block(r, lines, starts, 0, end), hidden: lines.length - end };
}
