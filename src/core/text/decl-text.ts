/**
 * A definition's signature and doc comment as the chunker reports them, made from the raw
 * slice of the file they were read from. Pure functions of that slice, shared by the chunker
 * (which makes `Chunk.signature` / `Chunk.doc` with them) and the store (which keeps the
 * slice's offsets instead of the text when these functions give the text back, and remakes
 * it when the row is read).
 */

/** A signature is at most this long (characters), its raw slice at most 4× that. */
export const MAX_SIGNATURE_CHARS = 400;
export const MAX_DOC_CHARS = 2000;

export function clip(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) : s;
}

/** Declaration text without the body, whitespace collapsed, e.g. `def f(a) -> int:` or `function f(a)`. */
export function signatureText(raw: string): string | null {
  const sig = raw
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\s*\{$/, '')
    // A C macro's first row ends in its line continuation.
    .replace(/\s*\\$/, '');
  return sig === '' ? null : clip(sig, MAX_SIGNATURE_CHARS);
}

/** Comment text without markers: `/** … *\/`, `//`, `///`, `//!`, `#`, R's `#'`, Lisp's `;`, leading `*`; Lua and Haskell `--`, `--[[ … ]]`, `{- … -}`. */
export function cleanComment(raw: string): string {
  let s = raw.trim();
  if (s.startsWith('--') || s.startsWith('{-')) return cleanDashComment(s);
  if (s.startsWith('/*')) s = s.replace(/^\/\*+!?/, '').replace(/\*+\/$/, '');
  return s
    .split('\n')
    .map((l) => l.trim().replace(/^(\/\/[/!]?|#+'?|;+|\*+(?!\/))\s?/, '').trimEnd())
    .join('\n')
    .trim();
}

/** Lua (`--`, `---`, `--[[ … ]]`) and Haskell (`-- |`, `-- ^`, `{-| … -}`) comments without markers. */
function cleanDashComment(s: string): string {
  const body = s.replace(/^--\[(=*)\[([\s\S]*?)\]\1\]$/, '$2').replace(/^\{-[ \t]*[|^]?([\s\S]*?)-\}$/, '$1');
  return body
    .split('\n')
    .map((l) => l.trim().replace(/^-{2,}[ \t]?(?:[|^][ \t]?)?/, '').trimEnd())
    .join('\n')
    .trim();
}

const DOCSTRING_OPEN = /^[rRbBuUfF]*("""|'''|"|')/;

/** Python docstring without quotes and prefixes, lines trimmed. */
export function docstringText(raw: string): string | null {
  const s = raw.replace(DOCSTRING_OPEN, '').replace(/("""|'''|"|')$/, '');
  const doc = s
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .trim();
  return doc === '' ? null : clip(doc, MAX_DOC_CHARS);
}

/** Doc comments (one or more, cleaned and joined by newlines), clipped; null when empty. */
export function commentDocText(comments: readonly string[]): string | null {
  const doc = comments.map(cleanComment).join('\n').trim();
  return doc === '' ? null : clip(doc, MAX_DOC_CHARS);
}

/**
 * The doc of one raw slice: a docstring when it opens with a string quote, else comments.
 * Equals what the chunker made only when the slice is one docstring or one comment (or line
 * comments that read the same joined) — the store checks that before it keeps offsets.
 */
export function docText(raw: string): string | null {
  return DOCSTRING_OPEN.test(raw) ? docstringText(raw) : commentDocText([raw]);
}
