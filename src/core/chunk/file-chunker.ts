/**
 * Structural chunking of one parsed file, in stages:
 *   items  — the named children of a container as definitions (with attached comments),
 *            code and comments; namespaces and `#if` blocks are looked through; containers
 *            of members (Rust `impl`, Swift `extension`) give their members as methods of
 *            the type they are for; definitions of one name next to each other are one
 *            (Haskell equations, Elixir clauses); rows no node holds are code;
 *   pieces — each item as row ranges within the size limit: small items whole, big classes
 *            (and, in the languages with LanguageSpec.splitMembers, every class with
 *            members) as header + members + field runs, long bodies cut at statement
 *            boundaries (later pieces carry the signature as context), nested definitions
 *            their own;
 *   merge  — adjacent small pieces joined (pieces.ts), then chunks.
 * What a definition node says (name, signature, doc, context) is read by definitions.ts.
 *
 * Invariants: see chunker.ts (file order, disjoint ranges, content = the file's rows,
 * context in its own fields, no recursion over the tree beyond MAX_NEST_DEPTH).
 */
import type { Node } from 'web-tree-sitter';
import type { Chunk, ChunkType } from '../types.ts';
import { CLASS_LIKE } from './languages.ts';
import type { LanguageSpec } from './languages.ts';
import { LineTable, packRows } from './lines.ts';
import type { RowPiece } from './lines.ts';
import { Definitions, type Namespace } from './definitions.ts';
import { budgetOf, makePiece, mergePieces, pieceSize, pieceToChunk, type ChunkSizes, type Context, type DefInfo, type Item, type MergeKind, type Piece, type PieceBase } from './pieces.ts';
import { Cursor, endRowOf, typeOf } from './tree-access.ts';

/** Where walkBreaks' nested rule looks for definitions (rows from..to) and the parent it gives them. */
interface NestRange {
  from: number;
  to: number;
  parent: string | null;
}
/** walkBreaks' nested rule at one node (FileChunker.nestedDef). */
const NOT_A_DEF = 0;
const NESTED_SKIPPED = 1;
const NESTED_FOUND = 2;
type NestedAnswer = typeof NOT_A_DEF | typeof NESTED_SKIPPED | typeof NESTED_FOUND;

/** A later piece of a definition carries no doc (only its first piece does). */
const NO_DOC = { doc: null, docSpan: null } as const;

/** Nesting of namespaces/classes we descend into; deeper definitions are split as code. */
const MAX_NEST_DEPTH = 24;
/** Break scoring: nodes this deep below the split node still propose cut rows. */
const MAX_BREAK_DEPTH = 8;
const BREAK_SCORE_TOP = 40;
const BREAK_SCORE_STEP = 4;
const BREAK_SCORE_AFTER_BLANK = 3;
/** A class's closing rows (`}`, `end`) this small join the last member chunk. */
const MAX_TAIL_CHARS = 24;
/**
 * C/C++ conditional-compilation blocks are transparent: the definitions inside `#ifdef X …
 * #endif` are chunked like their neighbours (kernel code keeps whole subsystems in them).
 * An ERROR node is transparent too (collectItems): after a construct tree-sitter cannot
 * read, its recovery may wrap the rest of the file in one ERROR node whose children are
 * whole, well-formed definitions (kernel net/core/dev.c: 353 functions).
 */
const TRANSPARENT_CONTAINERS: ReadonlySet<string> = new Set(['preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef']);
/** How deep a conditional statement is searched for a definition (`if` → `else` → block → def). */
const CONDITIONAL_DEF_DEPTH = 4;
/** Of a definition split into pieces, at most this share of its first piece is doc comment before the signature (splitLeadingDoc). */
const LEAD_DOC_SHARE = 0.5;
/** A block's closing directive row (`#endif // X`) this small joins the block's last item. */
const MAX_DIRECTIVE_TAIL_CHARS = 80;
/**
 * An oversized code item or definition body is searched this many levels deep for nested
 * definitions (`function isDirective` inside an ESLint rule's `create()`), which become
 * chunks of their own instead of anonymous pieces of the outer code.
 */
const MAX_NESTED_DEF_DEPTH = 6;

export class FileChunker {
  private readonly lines: LineTable;
  private readonly defs: Definitions;

  constructor(
    private readonly path: string,
    text: string,
    private readonly language: string,
    private readonly spec: LanguageSpec,
    private readonly opts: ChunkSizes,
  ) {
    this.lines = new LineTable(text);
    this.defs = new Definitions(text, this.lines, spec);
  }

  run(root: Node): Chunk[] {
    const items = this.withGaps(this.collectItems(root, null, 0, false));
    const pieces: Piece[] = [];
    for (const item of items) this.emitItem(item, 0, pieces);
    return mergePieces(pieces, this.lines, this.opts)
      .map((p) => pieceToChunk(p, this.lines, this.path, this.language))
      .filter((c): c is Chunk => c !== null);
  }

  // ---- items -------------------------------------------------------------------------

  /**
   * `items` with a code item for each run of non-blank rows no item holds: rows whose text the
   * parser did not read (C's retry input blanks `#if`/`#endif` lines, so a header's guard
   * lines were in no chunk) or that only anonymous tokens cover.
   */
  private withGaps(items: Item[], edges = true): Item[] {
    if (!edges && items.every((it, i) => i === 0 || it.startRow <= items[i - 1].endRow + 1)) return items;
    const out: Item[] = [];
    let next = edges ? 0 : (items[0]?.startRow ?? 0);
    const fill = (to: number, like: Item | undefined) => {
      let a = next;
      while (a <= to && this.lines.isBlank(a)) a++;
      if (a > to) return;
      let b = to;
      while (this.lines.isBlank(b)) b--;
      out.push({ kind: 'code', startRow: a, endRow: b, nodes: [], docNodes: [], parent: like?.parent ?? null, inClass: like?.inClass ?? false });
    };
    for (const item of items) {
      if (item.startRow > next) fill(item.startRow - 1, item);
      out.push(item);
      next = Math.max(next, item.endRow + 1);
    }
    if (edges) fill(this.lines.count - 1, undefined);
    return out;
  }

  /** The named children of `container` as items: definitions (with attached comments), code, comments. */
  private collectItems(container: Node, parent: string | null, depth: number, inClass: boolean): Item[] {
    const items: Item[] = [];
    let pending: Node[] = [];
    /** Items so far that are all leading file comments. */
    let commentItems = 0;
    const flush = () => {
      for (const n of pending) {
        const leading = depth === 0 && items.length === commentItems && this.spec.comments.has(typeOf(n));
        this.pushCode(items, n, leading ? 'comment' : 'code', parent, inClass);
        if (leading) commentItems++;
      }
      pending = [];
    };
    const cursor = new Cursor(container);
    try {
      if (!cursor.gotoFirstChild()) return items;
      do {
        if (!cursor.nodeIsNamed) {
          // Scala 3's `end Foo` closes the definition before it.
          const last = this.spec.closers?.has(cursor.nodeType) ? items[items.length - 1] : undefined;
          if (last && pending.length === 0) last.endRow = Math.max(last.endRow, cursor.endRow);
          continue;
        }
        const n = cursor.currentNode;
        const type = cursor.nodeType;
        const sr = n.startPosition.row;
        const last = items[items.length - 1];
        if (last && sr === last.endRow && last.startRow < sr && this.lines.startsRow(n.startIndex, sr)) {
          // The item before ends in this row's indentation (Scala's indented blocks take the
          // next line's leading blanks): it ends on the row before.
          last.endRow = sr - 1;
        }
        if (pending.length === 0 && last?.def && last.def.body === undefined && this.spec.bodySiblings?.has(type)) {
          // Dart: `void f()` then its body `{ … }` as the next sibling.
          last.def.body = n;
          last.endRow = Math.max(last.endRow, endRowOf(n));
          continue;
        }
        if (this.spec.conditional?.has(type) && depth < MAX_NEST_DEPTH && this.holdsDefinition(n, CONDITIONAL_DEF_DEPTH)) {
          // A conditional that holds definitions (LanguageSpec.conditional), even when it starts on
          // the row before them ends (Ruby's `then` after `if defined?(X)`): from the next row.
          flush();
          this.expandTransparent(items, n, parent, depth, inClass, last && sr <= last.endRow ? last.endRow + 1 : undefined);
          continue;
        }
        if (pending.length === 0 && last && sr <= last.endRow) {
          // Shares a row with the previous item (trailing comment, `a; b;`): part of it.
          last.endRow = Math.max(last.endRow, endRowOf(n));
          if (last.kind !== 'def') last.nodes.push(n);
          continue;
        }
        if ((TRANSPARENT_CONTAINERS.has(type) || type === 'ERROR' || this.spec.transparent?.has(type)) && depth < MAX_NEST_DEPTH) {
          flush();
          this.expandTransparent(items, n, parent, depth, inClass);
          continue;
        }
        const isComment = this.spec.comments.has(type);
        if (isComment || (this.spec.attributes.has(type) && (!this.spec.isAttribute || this.spec.isAttribute(n)))) {
          if (pending.length > 0 && endRowOf(pending[pending.length - 1]) + 1 < sr) flush();
          pending.push(n);
          continue;
        }
        const found = this.defs.classify(n, type);
        if (found && 'def' in found && this.spec.groupByName && last?.def && sameDefinition(last.def, found.def)) {
          // Another equation or clause of the definition before (comments between them included).
          last.endRow = Math.max(last.endRow, endRowOf(n));
          (last.group ??= []).push(...pending, n);
          pending = [];
          continue;
        }
        let attached = pending.length > 0 && (endRowOf(pending[pending.length - 1]) + 1 >= sr || this.docAcrossBlank(pending[pending.length - 1], sr)) ? pending : [];
        if (!found || attached.length === 0) flush();
        if (!found) {
          this.pushCode(items, n, 'code', parent, inClass);
          // Perl's `package Foo;`: the definitions after it are Foo's.
          const scope = this.spec.scopeOf?.(n);
          if (scope) parent = scope;
          continue;
        }
        if (attached.length === 0 && this.spec.splitMembers) attached = this.trailingDoc(items, sr);
        const startRow = attached.length > 0 ? attached[0].startPosition.row : sr;
        pending = [];
        if ('def' in found) {
          items.push({ kind: 'def', startRow, endRow: endRowOf(n), nodes: [], def: found.def, docNodes: attached, parent, inClass });
        } else {
          this.expandNamespace(items, found, n, startRow, parent, depth);
        }
      } while (cursor.gotoNextSibling());
      flush();
    } finally {
      cursor.delete();
    }
    // Rows between two items that no node holds (a C++ class's `#if` lines a retried parse blanked).
    return depth > 0 ? this.withGaps(items, false) : items;
  }

  /**
   * Does `n` hold a definition among its named children, or theirs down through the language's
   * conditional statements (LanguageSpec.conditional), within `levels`?
   */
  private holdsDefinition(n: Node, levels: number): boolean {
    for (let i = 0; i < n.namedChildCount; i++) {
      const c = n.namedChild(i);
      if (!c) continue;
      const t = c.type;
      if (t in this.spec.defs || t in this.spec.wrappers || this.spec.namespaces.has(t)) return true;
      if (levels > 1 && this.spec.conditional?.has(t) && this.holdsDefinition(c, levels - 1)) return true;
    }
    return false;
  }

  /** Is `comment` a block doc comment one blank row above row `row` (LanguageSpec.blockDocGap)? */
  private docAcrossBlank(comment: Node, row: number): boolean {
    return !!this.spec.blockDocGap && endRowOf(comment) + 2 === row && this.lines.line(row - 1).trim() === '' && comment.text.startsWith('/**');
  }

  /**
   * Doc comments a grammar put at the end of the code item before a definition on row `row`
   * (Kotlin's and Haskell's import lists end with the next declaration's comment): they become
   * the definition's, and the code item ends before them. [] when there are none.
   */
  private trailingDoc(items: Item[], row: number): Node[] {
    const prev = items[items.length - 1];
    if (!prev || prev.kind === 'def' || prev.endRow + 1 < row || prev.nodes.length === 0) return [];
    const isComments = (it: Item | undefined) => !!it && it.kind !== 'def' && it.nodes.length === 1 && this.spec.comments.has(it.nodes[0].type);
    if (isComments(prev)) {
      // Comments right before a transparent container (Haskell `declarations`) were flushed as items.
      const out: Node[] = [];
      for (let next = row; isComments(items[items.length - 1]) && items[items.length - 1].endRow + 1 >= next;) {
        const c = items.pop()!;
        out.unshift(c.nodes[0]);
        next = c.startRow;
      }
      return out;
    }
    let n: Node | null = prev.nodes[prev.nodes.length - 1];
    for (let level = 0; n && level < 4; level++) {
      const lastChild: Node | null = n.lastNamedChild;
      if (!lastChild) return [];
      if (this.spec.comments.has(lastChild.type)) {
        const out: Node[] = [];
        let next = row;
        for (let c: Node | null = lastChild; c && this.spec.comments.has(c.type) && endRowOf(c) + 1 >= next; c = c.previousNamedSibling) {
          if (!this.lines.startsRow(c.startIndex, c.startPosition.row)) break;
          out.unshift(c);
          next = c.startPosition.row;
        }
        if (out.length === 0 || next <= prev.startRow) return [];
        prev.endRow = next - 1;
        return out;
      }
      n = lastChild;
    }
    return [];
  }

  private pushCode(items: Item[], n: Node, kind: 'code' | 'comment', parent: string | null, inClass: boolean): void {
    items.push({ kind, startRow: n.startPosition.row, endRow: endRowOf(n), nodes: [n], docNodes: [], parent, inClass });
  }

  /**
   * A namespace's members are chunked like top-level items; its header and footer rows are
   * code. A container of members (Rust `impl`): its members are methods of the type it is for,
   * its header rows open the first member's chunk and small closing rows close the last one.
   */
  private expandNamespace(items: Item[], found: Namespace, outer: Node, startRow: number, parent: string | null, depth: number): void {
    const ns = found.ns;
    const body = found.body !== undefined ? found.body : ns.childForFieldName('body');
    const name = found.name !== undefined ? (found.name ?? parent) : (this.defs.nameOf(ns) ?? parent);
    const members = !!found.members;
    const endRow = endRowOf(outer);
    const inner = body && depth < MAX_NEST_DEPTH ? this.collectItems(body, name, depth + 1, members) : [];
    // A container's last member may end on its last row (Haskell's `instance … where` has no closing token).
    if (inner.length === 0 || inner[0].startRow <= startRow || inner[inner.length - 1].endRow >= endRow + (members ? 1 : 0)) {
      items.push({ kind: 'code', startRow, endRow, nodes: [outer], docNodes: [], parent, inClass: false });
      return;
    }
    if (members) {
      inner[0].startRow = startRow;
      items.push(...inner);
      const last = inner[inner.length - 1];
      if (last.endRow >= endRow || this.lines.size(last.endRow + 1, endRow) <= MAX_TAIL_CHARS) last.endRow = endRow;
      else items.push({ kind: 'code', startRow: last.endRow + 1, endRow, nodes: [], docNodes: [], parent, inClass: false });
      return;
    }
    items.push({ kind: 'code', startRow, endRow: inner[0].startRow - 1, nodes: [], docNodes: [], parent, inClass: false });
    items.push(...inner);
    items.push({ kind: 'code', startRow: inner[inner.length - 1].endRow + 1, endRow, nodes: [], docNodes: [], parent, inClass: false });
  }

  /** `#if…#endif`: its children are items of the enclosing container; the directive rows are code. */
  private expandTransparent(items: Item[], n: Node, parent: string | null, depth: number, inClass: boolean, fromRow?: number): void {
    let startRow = Math.max(n.startPosition.row, fromRow ?? 0);
    const endRow = endRowOf(n);
    const inner = this.collectItems(n, parent, depth + 1, inClass);
    if (inner.length === 0 || inner[0].startRow < startRow || inner[inner.length - 1].endRow > endRow) {
      items.push({ kind: 'code', startRow, endRow, nodes: [n], docNodes: [], parent, inClass });
      return;
    }
    const first = inner[0];
    if (this.spec.splitMembers && first.kind === 'def' && first.docNodes.length === 0 && first.startRow === startRow) {
      // Haskell: the first declaration's doc comment ends the import list before `declarations`.
      const doc = this.trailingDoc(items, startRow);
      if (doc.length) {
        first.docNodes = doc;
        first.startRow = startRow = doc[0].startPosition.row;
      }
    }
    if (inner[0].startRow > startRow) {
      items.push({ kind: 'code', startRow, endRow: inner[0].startRow - 1, nodes: [], docNodes: [], parent, inClass });
    }
    // Rows between two items hold only tokens no item took (an ERROR node's stray `{`): code.
    for (const [i, item] of inner.entries()) {
      const prev = inner[i - 1];
      if (prev && item.startRow > prev.endRow + 1 && this.lines.slice(prev.endRow + 1, item.startRow - 1).trim() !== '') {
        items.push({ kind: 'code', startRow: prev.endRow + 1, endRow: item.startRow - 1, nodes: [], docNodes: [], parent, inClass });
      }
      items.push(item);
    }
    const last = inner[inner.length - 1];
    if (last.endRow < endRow) {
      if (this.lines.size(last.endRow + 1, endRow) <= MAX_DIRECTIVE_TAIL_CHARS) last.endRow = endRow;
      else items.push({ kind: 'code', startRow: last.endRow + 1, endRow, nodes: [], docNodes: [], parent, inClass });
    }
  }

  /**
   * One cursor walk of `roots` for two answers: the break scores of rows from..to (the score
   * rule below) and, with `nest`, the definitions nested in `roots` within nest.from..nest.to
   * (the nested rule below). The nested rule sees exactly the nodes, in the same order, that a
   * walk of its own would, and so does the score rule but inside a nested definition found
   * (its rows are a piece of their own: their scores are never read, and the caller's rows
   * between the definitions score as before). A node is visited when either rule reaches it,
   * and per depth a flag says which rules are still on the path to it. (A walk per rule read
   * most nodes twice across the WASM boundary: ~9% of a kernel chunk thread for the two.)
   *
   * Score rule: rows where shallow named nodes start score highest (depth below the roots plus
   * `baseDepth`); a node is descended into while it is under MAX_BREAK_DEPTH and spans rows; a
   * blank row before adds a bonus.
   *
   * Nested rule: definitions nested in `roots` (not in each other), outermost first, as items:
   * each starts its own row, ends before the next starts, and lies within nest.from..nest.to.
   * A named definition is never looked inside; nothing under MAX_NESTED_DEF_DEPTH is.
   */
  private walkBreaks(roots: Node[], from: number, to: number, baseDepth: number, nest: NestRange | null): { scores: Int32Array; nested: Item[] } {
    const scores = new Int32Array(to - from + 2);
    const nested: Item[] = [];
    const spec = this.spec;
    const lines = this.lines;
    /** The row of the one-row node the nested rule is inside (see below). */
    let leadRow = -1;
    /** Per depth: the nodes there are on the score rule's walk / the nested rule's / below a one-row node of the nested rule's. */
    const onScore: boolean[] = [];
    const onNest: boolean[] = [];
    const leading: boolean[] = [];
    for (const root of roots) {
      const cursor = new Cursor(root);
      try {
        let depth = 0;
        onScore[0] = true;
        onNest[0] = nest !== null;
        leading[0] = false;
        for (;;) {
          const score = onScore[depth]!;
          const inNest = onNest[depth]!;
          const inLead = leading[depth]!;
          /** Reads of this node, each made once (-1: not read yet). */
          let row = -1;
          let endRow = -1;
          let named = -1;
          let descendScore = false;
          let descendNest = false;
          let leadBelow = false;
          let skipScores = false;
          if (inNest) {
            // Inside a one-row node, a definition that starts its row (the startsRow test below)
            // can only be where nothing but blanks precede it: at the first node that fails that,
            // neither it, its descendants nor its later siblings can hold one.
            if (inLead && !lines.startsRow(cursor.startIndex, leadRow)) {
              onNest[depth] = false;
            } else {
              let def = NOT_A_DEF;
              if (depth > 0) {
                // The type first: one read rules out most nodes, named or not.
                const t = cursor.nodeType;
                if (t in spec.defs || spec.bindings.has(t) || t in spec.wrappers) {
                  named = cursor.nodeIsNamed ? 1 : 0;
                  if (named === 1) def = this.nestedDef(cursor.currentNode, t, nest!, nested);
                }
              }
              // A nested definition found is a piece of its own: the scores of the rows inside it
              // are never read (emitAroundNested packs only the rows between such definitions).
              if (def === NESTED_FOUND) skipScores = true;
              if (def === NOT_A_DEF && depth < MAX_NESTED_DEF_DEPTH) {
                descendNest = true;
                if (!inLead) {
                  row = cursor.startRow;
                  endRow = cursor.endRow;
                  if (endRow === row) {
                    leadRow = row;
                    leadBelow = true;
                  }
                }
              }
            }
          }
          if (score && !skipScores) {
            if (row < 0) row = cursor.startRow;
            if (row > from && row <= to) {
              if (named < 0) named = cursor.nodeIsNamed ? 1 : 0;
              if (named === 1 && lines.startsRow(cursor.startIndex, row)) {
                const s = Math.max(1, BREAK_SCORE_TOP - BREAK_SCORE_STEP * (depth + baseDepth));
                if (s > scores[row - from]!) scores[row - from] = s;
              }
            }
            if (depth < MAX_BREAK_DEPTH) {
              if (endRow < 0) endRow = cursor.endRow;
              descendScore = endRow > row;
            }
          }
          if ((descendScore || descendNest) && cursor.gotoFirstChild()) {
            depth++;
            onScore[depth] = descendScore;
            onNest[depth] = descendNest;
            leading[depth] = inLead || leadBelow;
            continue;
          }
          // The next node either rule still visits: a later sibling, else one of an ancestor's.
          while (depth > 0 && !((onScore[depth] || onNest[depth]) && cursor.gotoNextSibling())) {
            cursor.gotoParent();
            depth--;
          }
          if (depth === 0) break;
        }
      } finally {
        cursor.delete();
      }
    }
    for (let r = from + 1; r <= to; r++) if (lines.isBlank(r - 1)) scores[r - from] += BREAK_SCORE_AFTER_BLANK;
    return { scores, nested };
  }

  /**
   * The nested rule at a named node of a definition's type: NOT_A_DEF, or a named definition
   * (the nested rule does not look inside it): one that starts its row within the range, after
   * the last one found, is added to `out` with the comments right before it (NESTED_FOUND),
   * any other is NESTED_SKIPPED.
   */
  private nestedDef(n: Node, t: string, nest: NestRange, out: Item[]): NestedAnswer {
    const found = this.defs.classify(n, t);
    if (!found || !('def' in found) || !found.def.name) return NOT_A_DEF;
    const row = n.startPosition.row;
    const last = out[out.length - 1];
    if (row > nest.from && endRowOf(n) <= nest.to && (!last || row > last.endRow) && this.lines.startsRow(n.startIndex, row)) {
      const docNodes: Node[] = [];
      let startRow = row;
      for (let p = n.previousNamedSibling; p && this.spec.comments.has(typeOf(p)) && endRowOf(p) + 1 >= startRow; p = p.previousNamedSibling) {
        if (p.startPosition.row <= (last?.endRow ?? nest.from) || !this.lines.startsRow(p.startIndex, p.startPosition.row)) break;
        docNodes.unshift(p);
        startRow = p.startPosition.row;
      }
      out.push({ kind: 'def', startRow, endRow: endRowOf(n), nodes: [], def: found.def, docNodes, parent: nest.parent, inClass: false });
      return NESTED_FOUND;
    }
    return NESTED_SKIPPED;
  }

  /**
   * Rows from..to holding `nested` definitions: the definitions become their own pieces, the
   * code between them is cut at statement boundaries (`scores`: from..to's break scores) with
   * `base`; pieces after the first carry `prefix`.
   */
  private emitAroundNested(
    from: number, to: number, scores: Int32Array, nested: Item[],
    base: PieceBase,
    prefix: Context | null, merge: MergeKind, depth: number, out: Piece[],
  ): void {
    const first = out.length;
    const gap = (a: number, b: number) => {
      while (b >= a && this.lines.isBlank(b)) b--;
      if (b < a) return;
      // A small gap (`},`, a one-line call) joins the definition before it.
      const prev = out.length > first ? out[out.length - 1] : undefined;
      if (prev && !prev.cols && this.lines.size(a, b) < this.opts.minChunkChars && pieceSize(prev, this.lines) + 1 + this.lines.size(prev.endRow + 1, b) <= this.opts.maxChunkChars) {
        prev.endRow = b;
        return;
      }
      for (const p of this.pack(a, b, scores.subarray(a - from), budgetOf(prefix), budgetOf(prefix))) {
        const head = out.length === first;
        out.push(makePiece(head ? base : { ...base, ...NO_DOC }, p, head ? null : prefix, null, merge));
      }
    };
    let cur = from;
    for (const item of nested) {
      gap(cur, item.startRow - 1);
      this.emitItem(item, depth + 1, out);
      cur = item.endRow + 1;
    }
    gap(cur, to);
  }



  // ---- pieces ------------------------------------------------------------------------

  private emitItem(item: Item, depth: number, out: Piece[]): void {
    if (item.kind === 'def' && item.def) {
      this.emitDef(item, item.def, depth, out);
      return;
    }
    const size = this.lines.size(item.startRow, item.endRow);
    const chunkType: ChunkType = item.kind === 'comment' ? 'comment' : 'module';
    const base: PieceBase = { chunkType, symbol: null, parent: null, signature: null, signatureSpan: null, doc: null, docSpan: null, defRow: null };
    if (size <= this.opts.maxChunkChars) {
      const merge: MergeKind = chunkType === 'module' || size < this.opts.minChunkChars ? 'module' : 'none';
      out.push(makePiece(base, item, null, null, merge));
      return;
    }
    const nest = depth < MAX_NEST_DEPTH ? { from: item.startRow - 1, to: item.endRow, parent: item.parent } : null;
    const { scores, nested } = this.walkBreaks(item.nodes, item.startRow, item.endRow, 0, nest);
    if (nested.length) {
      this.emitAroundNested(item.startRow, item.endRow, scores, nested, base, null, 'module', depth, out);
      return;
    }
    for (const p of this.pack(item.startRow, item.endRow, scores, 0)) out.push(makePiece(base, p, null, null, 'module'));
  }

  private emitDef(item: Item, d: DefInfo, depth: number, out: Piece[]): void {
    const from = out.length;
    this.emitDefPieces(item, d, depth, out);
    // `defmodule Plug.Conn`: the module is found by its last name too (`alias Plug.Conn` … `Conn`).
    const alias = d.name && CLASS_LIKE.has(d.kind) ? /(?:\.|::)([^.:]+)$/.exec(d.name)?.[1] : undefined;
    if (!alias) return;
    for (let i = from; i < out.length; i++) {
      const p = out[i];
      if (p.symbol === d.name && !p.context && !p.names) p.names = [d.name!, alias];
    }
  }

  private emitDefPieces(item: Item, d: DefInfo, depth: number, out: Piece[]): void {
    let kind = d.kind;
    let symbol = d.name;
    let parent = d.qualifier ?? item.parent;
    if (item.inClass && kind === 'function') kind = this.spec.memberFunction ?? 'method';
    if (this.language === 'go' && typeOf(d.node) === 'method_declaration') parent = this.defs.goReceiver(d.node) ?? parent;
    if ((kind === 'function' || kind === 'method') && symbol && symbol.includes('::')) {
      const i = symbol.lastIndexOf('::');
      parent = symbol.slice(0, i);
      symbol = symbol.slice(i + 2);
      kind = 'method';
    }
    const body = this.defs.bodyOf(d);
    const base: PieceBase = {
      chunkType: kind, symbol, parent, ...this.defs.signatureOf(d, body), ...this.defs.docOf(item, body), defRow: this.lines.rowOf(d.sigStart),
    };
    const size = this.lines.size(item.startRow, item.endRow);
    const whole = () => {
      const merge: MergeKind = size < this.opts.minChunkChars ? 'def' : 'none';
      out.push(makePiece(base, item, null, null, merge));
    };
    const classLike = CLASS_LIKE.has(kind) && body && depth < MAX_NEST_DEPTH;
    // splitMembers: a small class-like is cut into members too, when they start below its header.
    const small = size <= this.opts.maxChunkChars;
    if (small && !(classLike && this.spec.splitMembers)) return whole();
    if (!small) item = this.splitLeadingDoc(item, base.defRow!, out);
    const prefix = this.defs.contextPrefix(d, body);
    if (classLike) {
      const members = this.collectItems(body, symbol, depth + 1, true);
      const first = members.find((m) => m.kind === 'def');
      if (first && (!small || first.startRow > base.defRow!)) {
        this.emitClass(item, members, base, prefix, depth, out);
        return;
      }
      if (small) return whole();
    }
    // A long body with nested definitions: those are chunks of their own (parent = this).
    const roots = body ? [body] : [d.outer, ...(item.group ?? [])];
    const nest = depth < MAX_NEST_DEPTH ? { from: this.lines.rowOf(d.sigStart), to: item.endRow, parent: symbol } : null;
    const { scores, nested } = this.walkBreaks(roots, item.startRow, item.endRow, 0, nest);
    if (nested.length) {
      this.emitAroundNested(item.startRow, item.endRow, scores, nested, base, prefix, 'none', depth, out);
      return;
    }
    // A long body: cut at statement boundaries; later pieces carry the signature.
    this.pack(item.startRow, item.endRow, scores, prefix.budget).forEach((p, i) => {
      out.push(makePiece(base, p, i > 0 ? prefix : null, null, 'none'));
    });
  }

  /**
   * A definition too big for one chunk whose doc comment (and attributes) before its signature
   * take more than LEAD_DOC_SHARE of a chunk: the rows of it that do not fit beside the
   * signature become comment pieces of their own, with the definition's defLine (results keep
   * them with it), so the definition's first piece holds its signature — the piece a lookup of
   * its name shows (a Rust std function's first piece was often only doc comment). Returns the
   * item from the first row kept.
   */
  private splitLeadingDoc(item: Item, defRow: number, out: Piece[]): Item {
    const keep = this.opts.maxChunkChars * LEAD_DOC_SHARE;
    if (defRow <= item.startRow || this.lines.size(item.startRow, defRow) <= keep) return item;
    let cut = defRow;
    while (cut > item.startRow && this.lines.size(cut - 1, defRow) <= keep) cut--;
    const base: PieceBase = { chunkType: 'comment', symbol: null, parent: null, signature: null, signatureSpan: null, doc: null, docSpan: null, defRow };
    for (const p of this.pack(item.startRow, cut - 1, new Int32Array(cut - item.startRow + 1), 0)) out.push(makePiece(base, p, null, null, 'none'));
    return { ...item, startRow: cut };
  }

  /** A big class: header (signature, fields before the first member), then members, then field runs with context. */
  private emitClass(
    item: Item,
    members: Item[],
    base: PieceBase,
    prefix: Context,
    depth: number,
    out: Piece[],
  ): void {
    if (this.spec.splitMembers) members = this.absorbSmallRuns(members);
    const firstDef = members.findIndex((m) => m.kind === 'def');
    const headerEnd = members[firstDef].startRow - 1;
    const headerNodes = members.slice(0, firstDef).flatMap((m) => m.nodes);
    this.emitRun(item.startRow, headerEnd, headerNodes, base, prefix, false, out);
    let i = firstDef;
    while (i < members.length) {
      const m = members[i];
      if (m.kind === 'def') {
        this.emitItem(m, depth + 1, out);
        i++;
        continue;
      }
      let j = i;
      while (j + 1 < members.length && members[j + 1].kind !== 'def') j++;
      const run = members.slice(i, j + 1);
      this.emitRun(m.startRow, run[run.length - 1].endRow, run.flatMap((r) => r.nodes), { ...base, ...NO_DOC }, prefix, true, out);
      i = j + 1;
    }
    // Closing rows (`}`, `end`): join the last piece when tiny, else their own piece.
    const tailStart = members[members.length - 1].endRow + 1;
    if (tailStart <= item.endRow) {
      const last = out[out.length - 1];
      const tail = this.lines.size(tailStart, item.endRow);
      if (last && !last.cols && tail <= MAX_TAIL_CHARS && pieceSize(last, this.lines) + tail + 1 <= this.opts.maxChunkChars) {
        last.endRow = item.endRow;
      } else {
        this.emitRun(tailStart, item.endRow, [], { ...base, ...NO_DOC }, prefix, true, out);
      }
    }
  }

  /**
   * A class's members with each small run of code between or after its member definitions
   * (Elixir's `## Server` and `@impl true`, a Kotlin field between two methods) made part of
   * the definition after it (or, at the end, before it), instead of a piece of its own.
   */
  private absorbSmallRuns(members: Item[]): Item[] {
    const out: Item[] = [];
    let run: Item[] = [];
    const small = () => run.length > 0 && this.lines.size(run[0].startRow, run[run.length - 1].endRow) < this.opts.minChunkChars;
    for (const m of members) {
      if (m.kind !== 'def') {
        run.push(m);
        continue;
      }
      if (out.length > 0 && small()) m.startRow = run[0].startRow;
      else out.push(...run);
      run = [];
      out.push(m);
    }
    const last = out[out.length - 1];
    if (last?.kind === 'def' && small()) last.endRow = run[run.length - 1].endRow;
    else out.push(...run);
    return out;
  }

  /** Rows a..b of a class (header or fields) as pieces of the class; `prefixAll`: every piece carries context. */
  private emitRun(
    a: number,
    b: number,
    nodes: Node[],
    base: PieceBase,
    prefix: Context,
    prefixAll: boolean,
    out: Piece[],
  ): void {
    while (b > a && this.lines.isBlank(b)) b--;
    if (b < a || (a === b && this.lines.isBlank(a))) return;
    const scores = this.scoreBreaks(nodes, a, b, 1);
    const budgetFirst = prefixAll ? prefix.budget : 0;
    this.pack(a, b, scores, prefix.budget, budgetFirst).forEach((p, i) => {
      out.push(makePiece(base, p, prefixAll || i > 0 ? prefix : null, null, 'none'));
    });
  }

  private pack(from: number, to: number, scores: Int32Array, laterPrefix: number, firstPrefix = 0): RowPiece[] {
    return packRows(this.lines, {
      from,
      to,
      firstBudget: this.opts.maxChunkChars - firstPrefix,
      laterBudget: this.opts.maxChunkChars - laterPrefix,
      score: (row) => scores[row - from] ?? 0,
      overlapChars: 0,
    });
  }

  /** Cut preference per row of from..to (walkBreaks' score rule). */
  private scoreBreaks(nodes: Node[], from: number, to: number, baseDepth: number): Int32Array {
    return this.walkBreaks(nodes, from, to, baseDepth, null).scores;
  }

  // ---- signature, doc, context -------------------------------------------------------






  // ---- merge and output --------------------------------------------------------------



}

/** Two adjacent definitions that are one (LanguageSpec.groupByName): functions of one name. */
function sameDefinition(a: DefInfo, b: DefInfo): boolean {
  return a.name !== null && a.name === b.name && (a.kind === 'function' || a.kind === 'method') && (b.kind === 'function' || b.kind === 'method');
}
