/**
 * Cursor walks over a tree-sitter tree, shared by the chunker's stages. Never recursive:
 * 100k-deep nesting must not overflow the stack. Every cursor is deleted before returning.
 */
import type { Node } from 'web-tree-sitter';
import { Cursor } from './tree-access.ts';

export { endRowOf } from './tree-access.ts';

/**
 * Pre-order walk of `root`'s subtree with one TreeCursor (deleted on return), no recursion.
 * `visit` sees the cursor on each node and its depth below `root` (0 = root) and returns
 * whether to descend into that node's children.
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

/** Share of the text covered by ERROR nodes (walks only into subtrees that contain errors). */
export function errorRatio(root: Node, length: number): number {
  if (!root.hasError || length === 0) return 0;
  let covered = 0;
  walkCursor(root, (cursor) => {
    if (cursor.nodeType !== 'ERROR') return cursor.nodeHasError;
    covered += cursor.endIndex - cursor.startIndex;
    return false;
  });
  return covered / length;
}
