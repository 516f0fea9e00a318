/**
 * Cursor walks over a tree-sitter tree, shared by the chunker's stages. Never recursive:
 * 100k-deep nesting must not overflow the stack. Every cursor is deleted before returning.
 */
import type { Node } from 'web-tree-sitter';
import { Cursor } from './tree-access.ts';

export { endRowOf } from './tree-access.ts';

/**
 * Pre-order walk of `root`'s subtree with one TreeCursor (deleted on return), no recursion.
 * `visit` sees the cursor on each node and its depth below `root` (0 = root), and returns
 * whether to descend into its children. (The chunker's nested-definition and break-score walk,
 * which has two rules at once, is FileChunker.walkBreaks.)
 */
export function walkCursor(root: Node, visit: (cursor: Cursor, depth: number) => boolean): void {
  const cursor = new Cursor(root);
  try {
    let depth = 0;
    for (;;) {
      if (visit(cursor, depth) && cursor.gotoFirstChild()) {
        depth++;
        continue;
      }
      while (depth > 0 && !cursor.gotoNextSibling()) {
        cursor.gotoParent();
        depth--;
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
