/**
 * Cursor walks over a tree-sitter tree, shared by the chunker's stages. Never recursive:
 * 100k-deep nesting must not overflow the stack. Every cursor is deleted before returning.
 */
import type { Node } from 'web-tree-sitter';
import { Cursor } from './tree-access.ts';

export { endRowOf } from './tree-access.ts';

/** What a walkCursor visitor answers (true/false are ALL/SKIP). */
export const SKIP = 0;
export const ALL = 1;
/**
 * Descend, but the visitor is told (`leading`) that the children are in a region it narrowed:
 * it may answer STOP for one of them.
 */
export const LEADING = 2;
/** Skip this node, its children and its later siblings. */
export const STOP = 3;
export type Descend = typeof SKIP | typeof ALL | typeof LEADING | typeof STOP | boolean;

/**
 * Pre-order walk of `root`'s subtree with one TreeCursor (deleted on return), no recursion.
 * `visit` sees the cursor on each node, its depth below `root` (0 = root) and whether the node
 * is below one it answered LEADING for, and returns whether to descend into its children.
 */
export function walkCursor(root: Node, visit: (cursor: Cursor, depth: number, leading: boolean) => Descend): void {
  const cursor = new Cursor(root);
  /** Per depth: whether the nodes there are below a LEADING answer. */
  const leading: boolean[] = [false];
  try {
    let depth = 0;
    for (;;) {
      const inLead = leading[depth]!;
      const d = visit(cursor, depth, inLead);
      let rest = d !== STOP; // whether the siblings after this node are still visited
      if (rest && d !== false && d !== SKIP && cursor.gotoFirstChild()) {
        depth++;
        leading[depth] = inLead || d === LEADING;
        continue;
      }
      while (depth > 0 && !(rest && cursor.gotoNextSibling())) {
        cursor.gotoParent();
        depth--;
        rest = true;
      }
      if (depth === 0) break;
    }
  } finally {
    cursor.delete();
  }
}

/**
 * Share of the text in definitions (`isDefinition`) that hold no syntax error and lie outside
 * every ERROR node: what a tree with large ERROR regions still reads as it is written. Walks
 * the whole tree down to the first definition of each branch.
 */
export function cleanDefinitionShare(root: Node, length: number, isDefinition: (type: string) => boolean): number {
  if (length === 0) return 0;
  let clean = 0;
  walkCursor(root, (cursor) => {
    const type = cursor.nodeType;
    if (type === 'ERROR') return false;
    if (isDefinition(type) && !cursor.nodeHasError) {
      clean += cursor.endIndex - cursor.startIndex;
      return false;
    }
    return true;
  });
  return clean / length;
}

/**
 * Shares of the text covered by ERROR nodes (walks only into subtrees that contain errors):
 * `all`, and `unread`, which leaves out the error-free direct children of an ERROR node
 * whose type `recovered` accepts (definitions, comments). tree-sitter's recovery often
 * wraps the rest of a file, whole functions and all, in one ERROR node after a construct
 * it cannot read; those functions are still read.
 */
export function errorShares(root: Node, length: number, recovered: (type: string) => boolean): { all: number; unread: number } {
  if (!root.hasError || length === 0) return { all: 0, unread: 0 };
  let all = 0;
  let read = 0;
  walkCursor(root, (cursor) => {
    if (cursor.nodeType !== 'ERROR') return cursor.nodeHasError;
    all += cursor.endIndex - cursor.startIndex;
    // Its named children, read by a cursor of its own (a Node per child through the public
    // API cost ~1.5% of a kernel chunk thread).
    const children = new Cursor(cursor.currentNode);
    try {
      if (children.gotoFirstChild()) {
        do {
          if (children.nodeIsNamed && !children.nodeHasError && recovered(children.nodeType)) read += children.endIndex - children.startIndex;
        } while (children.gotoNextSibling());
      }
    } finally {
      children.delete();
    }
    return false;
  });
  return { all: all / length, unread: (all - read) / length };
}
