/**
 * Pieces: what the structural chunker (file-chunker.ts) cuts a file into before they become
 * chunks — row ranges with the definition they belong to and the context they carry — how
 * adjacent pieces merge, and how a piece becomes a Chunk.
 *
 * Invariants: merging never joins pieces that carry context and never exceeds
 * maxChunkChars (a single over-long row aside); a chunk's content is exactly its rows (or
 * the column range of one row); the carried context travels in its own fields.
 */
import type { Node } from 'web-tree-sitter';
import type { Chunk, ChunkType, TextSpan } from '../types.ts';
import type { LineTable, RowPiece } from './lines.ts';

/** The size limits the chunker was created with. */
export interface ChunkSizes {
  maxChunkChars: number;
  minChunkChars: number;
  overlapChars: number;
}

export interface DefInfo {
  /** The node whose range is chunked (wrappers such as `export` or decorators included). */
  outer: Node;
  /** The definition node itself. */
  node: Node;
  /** The node that has the body (a binding's value, else `node`). */
  holder: Node;
  kind: ChunkType;
  name: string | null;
  /** Offset where the signature text starts. */
  sigStart: number;
  /** The parent its name carries (Lua `M` of `function M.f`, a Kotlin receiver type), from LanguageSpec.read. */
  qualifier?: string | null;
  /** The node holding its body when the holder has no `body` field (LanguageSpec.read, a Dart body sibling). */
  body?: Node | null;
}

export interface Item {
  kind: 'def' | 'code' | 'comment';
  startRow: number;
  endRow: number;
  /** Nodes of a code item (break scoring). */
  nodes: Node[];
  def?: DefInfo;
  /** Comments attached before a definition. */
  docNodes: Node[];
  parent: string | null;
  inClass: boolean;
  /** Further nodes of a definition grouped by name (Haskell equations, Elixir clauses), for break scoring. */
  group?: Node[];
}

export type MergeKind = 'module' | 'def' | 'none';

/**
 * The context a later piece of a split definition carries: the definition's signature rows,
 * exact file text, shown as a breadcrumb with its own line number — never part of the
 * piece's content. `budget` is what the carried context costs against maxChunkChars (the
 * signature plus a marker line, as when it was prepended to the content), so piece
 * boundaries do not depend on how the context is shown.
 */
export interface Context {
  text: string;
  /** 0-based row where `text` starts. */
  row: number;
  budget: number;
}

/** The fields every piece of one definition shares. */
export type PieceBase = Pick<Piece, 'chunkType' | 'symbol' | 'parent' | 'signature' | 'signatureSpan' | 'doc' | 'docSpan' | 'defRow'>;

export interface Piece extends RowPiece {
  chunkType: ChunkType;
  symbol: string | null;
  parent: string | null;
  signature: string | null;
  /** Where `signature` was read from (Chunk.signatureSpan). */
  signatureSpan: TextSpan | null;
  doc: string | null;
  docSpan: TextSpan | null;
  /** Carried context (later pieces of split bodies), or null. */
  context: Context | null;
  /** 0-based row of the signature of the definition this piece belongs to; null for module code. */
  defRow: number | null;
  /** Every name a run of merged small siblings defines (first = symbol); null for one definition. */
  names: string[] | null;
  merge: MergeKind;
}

export const budgetOf = (c: Context | null): number => c?.budget ?? 0;

/**
 * The piece of `base`'s definition (or module code) over `rows`. Every piece is made here, with
 * one shape (the same fields in the same order, `cols` undefined when absent): built by spreads
 * (`{ ...base, ...rows, … }`) the pieces had several shapes, the spreads and mergePieces' reads
 * went megamorphic, and those few lines were ~5% of a kernel chunk thread's CPU.
 */
export function makePiece(base: PieceBase, rows: RowPiece, context: Context | null, names: string[] | null, merge: MergeKind): Piece {
  return {
    chunkType: base.chunkType, symbol: base.symbol, parent: base.parent, signature: base.signature, signatureSpan: base.signatureSpan,
    doc: base.doc, docSpan: base.docSpan, defRow: base.defRow, startRow: rows.startRow, endRow: rows.endRow, cols: rows.cols, context, names, merge,
  };
}

const HAS_WORD = /[\p{L}\p{N}_]/u;

export function pieceSize(p: Piece, lines: LineTable): number {
  return p.cols ? p.cols[1] - p.cols[0] : lines.size(p.startRow, p.endRow) + budgetOf(p.context);
}

/**
 * Adjacent module pieces merge up to the max; tiny definitions of the same kind and parent merge (the first names it).
 * A joined piece counts the newline between the two (`+ 1`): its content must stay within the max.
 */
export function mergePieces(pieces: Piece[], lines: LineTable, opts: ChunkSizes): Piece[] {
  const out: Piece[] = [];
  const max = opts.maxChunkChars;
  const absorbed = new Set<Piece>();
  for (const p of pieces) {
    const prev = out[out.length - 1];
    const joinable = prev && !prev.cols && !p.cols && !prev.context && !p.context && prev.endRow < p.startRow;
    if (joinable && lines.size(prev.startRow, p.endRow) <= max) {
      if (prev.merge === 'module' && p.merge === 'module') {
        prev.endRow = p.endRow;
        prev.chunkType = 'module';
        continue;
      }
      if (prev.merge === 'def' && p.merge === 'def' && prev.parent === p.parent && prev.chunkType === p.chunkType) {
        prev.endRow = p.endRow;
        // Every sibling stays findable by name (`maxsize` merged into `qsize`).
        const names = [...(prev.names ?? (prev.symbol ? [prev.symbol] : [])), ...(p.names ?? (p.symbol ? [p.symbol] : []))];
        prev.names = names.length > 1 ? [...new Set(names)] : null;
        if (lines.size(prev.startRow, prev.endRow) >= opts.minChunkChars) prev.merge = 'none';
        continue;
      }
    }
    // A tiny one-row code piece after a definition (`EXPORT_SYMBOL(f);`, `#endif`) joins it;
    // one per definition, so a script's top-level statements do not pile onto a function.
    if (
      joinable && p.merge === 'module' && p.chunkType === 'module' && prev.merge !== 'module' && p.startRow === p.endRow && !absorbed.has(prev) &&
      lines.size(p.startRow, p.endRow) < opts.minChunkChars && pieceSize(prev, lines) + 1 + lines.size(prev.endRow + 1, p.endRow) <= max
    ) {
      prev.endRow = p.endRow;
      absorbed.add(prev);
      continue;
    }
    // Punctuation-only leftovers (`}`, `});`) join the previous piece.
    // Bounded like every merge: 100k lines of `]` must not become one chunk.
    if (
      prev && !prev.cols && !p.cols && p.chunkType === 'module' && prev.endRow < p.startRow &&
      !HAS_WORD.test(lines.slice(p.startRow, p.endRow)) && pieceSize(prev, lines) + 1 + lines.size(prev.endRow + 1, p.endRow) <= max
    ) {
      prev.endRow = p.endRow;
      continue;
    }
    out.push(p);
  }
  return out;
}

export function pieceToChunk(p: Piece, lines: LineTable, path: string, language: string): Chunk | null {
  const body = p.cols ? lines.line(p.startRow).slice(p.cols[0], p.cols[1]) : lines.slice(p.startRow, p.endRow);
  if (body.trim() === '') return null;
  return {
    path: path,
    startLine: p.startRow + 1,
    endLine: p.endRow + 1,
    language: language,
    chunkType: p.chunkType,
    symbol: p.symbol,
    parent: p.parent,
    signature: p.signature,
    signatureSpan: p.signatureSpan,
    doc: p.doc,
    docSpan: p.docSpan,
    content: body,
    context: p.context?.text ?? null,
    contextLine: p.context ? p.context.row + 1 : null,
    defLine: p.defRow === null ? null : p.defRow + 1,
    names: p.names && p.names.length > 1 ? p.names : null,
  };
}
