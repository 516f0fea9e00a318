/**
 * Cheap reads of a parsed tree: the few cursor and node reads the chunker repeats for every
 * node it walks, done against web-tree-sitter's WASM exports directly.
 *
 * Why: each public TreeCursor/Node read marshals the cursor or node into the runtime's
 * transfer buffer through `setValue` (a string switch and a DataView store per word), calls
 * the export, and unmarshals through `getValue`, allocating a {row, column} object for every
 * position; that wrapper cost was most of the chunker's own tree walk (kernel C, one thread).
 * Here the same words are stored with one Int32Array write each and positions are read as
 * numbers. The exports, their arguments and the transfer-buffer layout are exactly what the
 * public getters use (web-tree-sitter 0.27.1, pinned), so every value is the same.
 *
 * Invariants:
 * - Same answers as the public API: when the runtime's exports are not available (Parser.init
 *   was first called by someone else with another module object, or a future version renames
 *   them) every read falls back to the public getter.
 * - A Cursor keeps the wrapped TreeCursor's own state words current, so its public methods
 *   (`currentNode`, `nodeText`) read the same node; `delete()` frees it.
 * - The layout (4-word cursor, 5-word node, point = row, column) is web-tree-sitter's
 *   marshalTreeCursor / marshalNode / unmarshalPoint: a web-tree-sitter upgrade must pass
 *   tree-access.test.ts, which chunks every fixture both ways and compares.
 */
import type { Node, TreeCursor } from 'web-tree-sitter';

/** The web-tree-sitter module exports used here (the object handed to Parser.init gets them). */
interface TsRuntime {
  HEAP32: Int32Array;
  _ts_init(): number;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_current_node_is_named_wasm(tree: number): number;
  _ts_tree_cursor_start_position_wasm(tree: number): void;
  _ts_tree_cursor_end_position_wasm(tree: number): void;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_current_node_wasm(tree: number): void;
  _ts_node_symbol_wasm(tree: number): number;
  _ts_node_end_point_wasm(tree: number): void;
  _ts_node_has_error_wasm(tree: number): number;
}

const EXPORTS: ReadonlyArray<keyof TsRuntime> = [
  '_ts_init', '_ts_tree_cursor_goto_first_child_wasm', '_ts_tree_cursor_goto_next_sibling_wasm',
  '_ts_tree_cursor_goto_parent_wasm', '_ts_tree_cursor_current_node_type_id_wasm', '_ts_tree_cursor_current_node_is_named_wasm',
  '_ts_tree_cursor_start_position_wasm', '_ts_tree_cursor_end_position_wasm', '_ts_tree_cursor_start_index_wasm',
  '_ts_tree_cursor_end_index_wasm', '_ts_tree_cursor_current_node_wasm', '_ts_node_symbol_wasm', '_ts_node_end_point_wasm',
  '_ts_node_has_error_wasm',
];

/** The internal fields web-tree-sitter keeps on its objects (numeric handles + the tree). */
interface RawTree {
  0: number;
  language: { types: readonly string[] };
}
interface RawCursor {
  0: number;
  1: number;
  2: number;
  3: number;
  tree: RawTree;
}
interface RawNode {
  0: number;
  id: number;
  startIndex: number;
  startPosition: { row: number; column: number };
  tree: RawTree;
}

let rt: TsRuntime | null = null;
/** The transfer buffer's offset in 32-bit words. */
let tb = 0;

/**
 * Use the exports on `moduleArg`, the object given to Parser.init (Emscripten fills it in).
 * Anything missing leaves the public API in charge.
 */
export function bindTreeRuntime(moduleArg: unknown): void {
  const m = moduleArg as Partial<Record<keyof TsRuntime, unknown>> | null;
  if (!m || !(m.HEAP32 instanceof Int32Array) || EXPORTS.some((k) => typeof m[k] !== 'function')) {
    rt = null;
    return;
  }
  rt = m as unknown as TsRuntime;
  // ts_init only stores the language versions in the transfer buffer and returns its address.
  tb = rt._ts_init() >> 2;
}

/** Whether the fast path is in use (tests check both paths agree). */
export function treeRuntimeBound(): boolean {
  return rt !== null;
}

/** For tests: fall back to the public API until the returned function restores the binding. */
export function unbindTreeRuntime(): () => void {
  const saved = rt;
  rt = null;
  return () => {
    rt = saved;
  };
}

/** Stores `node` in the transfer buffer as marshalNode does; returns its tree's address. */
function putNode(r: TsRuntime, n: RawNode): number {
  const h = r.HEAP32;
  h[tb] = n.id;
  h[tb + 1] = n.startIndex;
  h[tb + 2] = n.startPosition.row;
  h[tb + 3] = n.startPosition.column;
  h[tb + 4] = n[0];
  return n.tree[0];
}

/** `node.type`. */
export function typeOf(node: Node): string {
  const r = rt;
  if (!r) return node.type;
  const n = node as unknown as RawNode;
  return n.tree.language.types[r._ts_node_symbol_wasm(putNode(r, n))] || 'ERROR';
}

/** The last row a node's text is on (a node ending at column 0 of a later row ends on the row before). */
export function endRowOf(node: Node): number {
  const r = rt;
  let row: number;
  let column: number;
  if (r) {
    r._ts_node_end_point_wasm(putNode(r, node as unknown as RawNode));
    const h = r.HEAP32;
    row = h[tb]! >>> 0;
    column = h[tb + 1]! >>> 0;
  } else {
    const end = node.endPosition;
    row = end.row;
    column = end.column;
  }
  const start = node.startPosition.row;
  return column === 0 && row > start ? row - 1 : row;
}

/**
 * A TreeCursor over `root` whose movement and per-node reads skip the public wrappers.
 * Call `delete()` when done.
 */
export class Cursor {
  readonly raw: TreeCursor;
  private readonly c: RawCursor;
  private readonly tree: number;
  private readonly types: readonly string[];

  constructor(root: Node) {
    this.raw = root.walk();
    this.c = this.raw as unknown as RawCursor;
    this.tree = this.c.tree[0];
    this.types = this.c.tree.language.types;
  }

  delete(): void {
    this.raw.delete();
  }

  /** Stores the cursor in the transfer buffer (marshalTreeCursor). */
  private put(r: TsRuntime): void {
    const h = r.HEAP32;
    const c = this.c;
    h[tb] = c[0];
    h[tb + 1] = c[1];
    h[tb + 2] = c[2];
    h[tb + 3] = c[3];
  }

  /** Reads the moved cursor back (unmarshalTreeCursor); HEAP32 is re-read: memory may have grown. */
  private take(r: TsRuntime): void {
    const h = r.HEAP32;
    const c = this.c;
    c[0] = h[tb]!;
    c[1] = h[tb + 1]!;
    c[2] = h[tb + 2]!;
    c[3] = h[tb + 3]!;
  }

  /** One cursor move through the export `go` (put the cursor, move, read it back). */
  private move(r: TsRuntime, go: (tree: number) => number): boolean {
    this.put(r);
    const ok = go(this.tree);
    this.take(r);
    return ok === 1;
  }

  gotoFirstChild(): boolean {
    const r = rt;
    return r ? this.move(r, r._ts_tree_cursor_goto_first_child_wasm) : this.raw.gotoFirstChild();
  }

  gotoNextSibling(): boolean {
    const r = rt;
    return r ? this.move(r, r._ts_tree_cursor_goto_next_sibling_wasm) : this.raw.gotoNextSibling();
  }

  gotoParent(): boolean {
    const r = rt;
    return r ? this.move(r, r._ts_tree_cursor_goto_parent_wasm) : this.raw.gotoParent();
  }

  get nodeType(): string {
    const r = rt;
    if (!r) return this.raw.nodeType;
    this.put(r);
    return this.types[r._ts_tree_cursor_current_node_type_id_wasm(this.tree)] || 'ERROR';
  }

  get nodeIsNamed(): boolean {
    const r = rt;
    if (!r) return this.raw.nodeIsNamed;
    this.put(r);
    return r._ts_tree_cursor_current_node_is_named_wasm(this.tree) === 1;
  }

  get startIndex(): number {
    const r = rt;
    if (!r) return this.raw.startIndex;
    this.put(r);
    return r._ts_tree_cursor_start_index_wasm(this.tree);
  }

  get endIndex(): number {
    const r = rt;
    if (!r) return this.raw.endIndex;
    this.put(r);
    return r._ts_tree_cursor_end_index_wasm(this.tree);
  }

  /** `startPosition.row`. */
  get startRow(): number {
    const r = rt;
    if (!r) return this.raw.startPosition.row;
    this.put(r);
    r._ts_tree_cursor_start_position_wasm(this.tree);
    return r.HEAP32[tb]! >>> 0;
  }

  /** `endPosition.row`. */
  get endRow(): number {
    const r = rt;
    if (!r) return this.raw.endPosition.row;
    this.put(r);
    r._ts_tree_cursor_end_position_wasm(this.tree);
    return r.HEAP32[tb]! >>> 0;
  }

  /**
   * `currentNode.hasError`, without making the Node: the current-node export leaves the node
   * in the transfer buffer, where the has-error export reads it.
   */
  get nodeHasError(): boolean {
    const r = rt;
    if (!r) return this.raw.currentNode.hasError;
    this.put(r);
    r._ts_tree_cursor_current_node_wasm(this.tree);
    return r._ts_node_has_error_wasm(this.tree) === 1;
  }

  get currentNode(): Node {
    return this.raw.currentNode;
  }

  get nodeText(): string {
    return this.raw.nodeText;
  }
}
