/**
 * The chunker: turns one file's text into chunks, structurally (tree-sitter) for the
 * languages in GRAMMARS and as structure-aware text for everything else.
 *
 * Owns: the web-tree-sitter runtime (initialised once per realm behind a cached promise),
 * grammars (loaded lazily per language, cached per Chunker), one Parser per Chunker.
 *
 * Invariants:
 * - Runs unchanged in Node and in a browser worker: WASM bytes come from `loadWasm`.
 * - Never drops a file: no grammar, a parse timeout, a failed parse or a tree that is
 *   mostly ERROR nodes all fall back to text chunks with `parsed: false` and a warning.
 * - Never recurses over the tree: walks use a TreeCursor; recursion over definitions
 *   (namespaces, classes) stops at MAX_NEST_DEPTH, deeper code is split as plain code.
 * - Every Tree and TreeCursor is deleted before chunkFile returns.
 * - Structural chunks are in file order with disjoint line ranges; only the text path
 *   overlaps. A chunk never exceeds maxChunkChars (a split body's carried signature is
 *   budgeted in), except that a single line longer than the limit is cut into column ranges.
 * - `content` is exactly the file's rows startLine..endLine (or the column range of one
 *   over-long row). What a later piece of a split definition carries — the definition's
 *   signature rows — is `context`, with its own `contextLine`, never part of `content`.
 *   Every piece of one definition has the same `defLine`.
 */
import { Language, Parser } from 'web-tree-sitter';
import type { Node, Tree, TreeCursor } from 'web-tree-sitter';
import type { Chunk, ChunkType } from '../types.ts';
import { CHUNK_OVERLAP_CHARS, MAX_CHUNK_CHARS, MIN_CHUNK_CHARS } from '../config.ts';
import { CLASS_LIKE, GRAMMARS, LANGUAGE_SPECS, RUNTIME_WASM, detectLanguage } from './languages.ts';
import type { LanguageSpec } from './languages.ts';
import { LineTable, packRows } from './lines.ts';
import type { RowPiece } from './lines.ts';
import { chunkText } from './text.ts';

/** Parse time allowed per MB of source, and the floor. */
const PARSE_MS_PER_MB = 2000;
const MIN_PARSE_TIMEOUT_MS = 1000;
/** A tree whose ERROR nodes cover more than this share of the file is chunked as text. */
const MAX_ERROR_RATIO = 0.5;
/** A line this long that is also most of the file marks minified/generated code: chunked as text without parsing. */
const MINIFIED_LINE_CHARS = 20_000;
/** Nesting of namespaces/classes we descend into; deeper definitions are split as code. */
const MAX_NEST_DEPTH = 24;
/** Break scoring: nodes this deep below the split node still propose cut rows. */
const MAX_BREAK_DEPTH = 8;
const BREAK_SCORE_TOP = 40;
const BREAK_SCORE_STEP = 4;
const BREAK_SCORE_AFTER_BLANK = 3;
/** Carried context of a split body: at most this many signature rows / characters. */
const MAX_PREFIX_ROWS = 6;
const MAX_PREFIX_CHARS = 300;
/** A class's closing rows (`}`, `end`) this small join the last member chunk. */
const MAX_TAIL_CHARS = 24;
const MAX_SIGNATURE_CHARS = 400;
const MAX_DOC_CHARS = 2000;
const MAX_NAME_CHARS = 200;
/**
 * C/C++ conditional-compilation blocks are transparent: the definitions inside `#ifdef X …
 * #endif` are chunked like their neighbours (kernel code keeps whole subsystems in them).
 */
const TRANSPARENT_CONTAINERS: ReadonlySet<string> = new Set(['preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef']);
/** A block's closing directive row (`#endif // X`) this small joins the block's last item. */
const MAX_DIRECTIVE_TAIL_CHARS = 80;
/**
 * An oversized code item or definition body is searched this many levels deep for nested
 * definitions (`function isDirective` inside an ESLint rule's `create()`), which become
 * chunks of their own instead of anonymous pieces of the outer code.
 */
const MAX_NESTED_DEF_DEPTH = 6;

export type WasmLoader = (file: string) => Promise<Uint8Array>;

export interface ChunkerOptions {
  loadWasm: WasmLoader;
  maxChunkChars?: number;
  minChunkChars?: number;
  overlapChars?: number;
  /** Parse time limit; default 2 s per MB of text, at least 1 s. */
  parseTimeoutMs?: number;
}

export interface ChunkFileResult {
  language: string;
  chunks: Chunk[];
  /** True when the file was chunked from a tree-sitter tree. */
  parsed: boolean;
  warnings: string[];
}

let runtimeReady: Promise<void> | null = null;

/** web-tree-sitter's Emscripten module is per realm: initialise it once. */
function initRuntime(loadWasm: WasmLoader): Promise<void> {
  runtimeReady ??= (async () => {
    const wasmBinary = await loadWasm(RUNTIME_WASM);
    await Parser.init({ wasmBinary } as unknown as Parameters<typeof Parser.init>[0]);
  })().catch((err: unknown) => {
    runtimeReady = null;
    throw err;
  });
  return runtimeReady;
}

interface Resolved {
  maxChunkChars: number;
  minChunkChars: number;
  overlapChars: number;
  parseTimeoutMs: number | undefined;
}

export class Chunker {
  private readonly grammars = new Map<string, Promise<Language | string>>();
  private disposed = false;

  private constructor(
    private readonly parser: Parser,
    private readonly loadWasm: WasmLoader,
    private readonly opts: Resolved,
  ) {}

  static async create(opts: ChunkerOptions): Promise<Chunker> {
    await initRuntime(opts.loadWasm);
    const maxChunkChars = opts.maxChunkChars ?? MAX_CHUNK_CHARS;
    if (!(maxChunkChars >= 200)) throw new RangeError('maxChunkChars must be at least 200');
    return new Chunker(new Parser(), opts.loadWasm, {
      maxChunkChars,
      minChunkChars: Math.min(opts.minChunkChars ?? MIN_CHUNK_CHARS, maxChunkChars),
      overlapChars: Math.min(opts.overlapChars ?? CHUNK_OVERLAP_CHARS, Math.floor(maxChunkChars / 2)),
      parseTimeoutMs: opts.parseTimeoutMs,
    });
  }

  /** Chunks one file. `path` is relative and `/`-separated; it picks the language. */
  async chunkFile(path: string, text: string): Promise<ChunkFileResult> {
    if (this.disposed) throw new Error('Chunker is disposed');
    const language = detectLanguage(path);
    const spec = LANGUAGE_SPECS[language];
    const asText = (warning?: string): ChunkFileResult => ({
      language,
      chunks: chunkText(path, text, language, this.opts),
      parsed: false,
      warnings: warning ? [`${path}: ${warning}`] : [],
    });
    if (!spec || !GRAMMARS[language]) return asText();
    if (text.trim() === '') return { language, chunks: [], parsed: true, warnings: [] };
    if (looksMinified(text)) return asText('very long lines (minified or generated); chunked as text');

    const grammar = await this.grammar(language);
    if (this.disposed) throw new Error('Chunker is disposed');
    if (typeof grammar === 'string') return asText(`grammar unavailable (${grammar}); chunked as text`);

    this.parser.setLanguage(grammar);
    const timeoutMs = this.opts.parseTimeoutMs ?? Math.max(MIN_PARSE_TIMEOUT_MS, (text.length / 1e6) * PARSE_MS_PER_MB);
    const deadline = performance.now() + timeoutMs;
    let tree: Tree | null = null;
    try {
      tree = this.parser.parse(text, null, { progressCallback: () => performance.now() > deadline });
    } catch (err) {
      this.parser.reset();
      return asText(`parse error (${String(err)}); chunked as text`);
    }
    if (!tree) {
      this.parser.reset();
      return asText(`parse timed out after ${Math.round(timeoutMs)} ms; chunked as text`);
    }
    try {
      const ratio = errorRatio(tree.rootNode, text.length);
      if (ratio > MAX_ERROR_RATIO) {
        return asText(`syntax errors cover ${Math.round(ratio * 100)}% of the file; chunked as text`);
      }
      const chunks = new FileChunker(path, text, language, spec, this.opts).run(tree.rootNode);
      return { language, chunks, parsed: true, warnings: [] };
    } finally {
      tree.delete();
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.parser.delete();
    this.grammars.clear();
  }

  /** The grammar for `language`, or the reason it could not be loaded (cached either way). */
  private grammar(language: string): Promise<Language | string> {
    let p = this.grammars.get(language);
    if (!p) {
      p = this.loadWasm(GRAMMARS[language])
        .then((bytes) => Language.load(bytes))
        .catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
      this.grammars.set(language, p);
    }
    return p;
  }
}

function looksMinified(text: string): boolean {
  if (text.length < MINIFIED_LINE_CHARS) return false;
  let longest = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    longest = Math.max(longest, end - start);
    start = end + 1;
  }
  return longest > MINIFIED_LINE_CHARS && longest * 2 > text.length;
}

/**
 * Pre-order walk of `root`'s subtree with one TreeCursor (deleted on return), no recursion.
 * `visit` sees the cursor on each node and its depth below `root` (0 = root) and returns
 * whether to descend into that node's children.
 */
function walkCursor(root: Node, visit: (cursor: TreeCursor, depth: number) => boolean): void {
  const cursor = root.walk();
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
function errorRatio(root: Node, length: number): number {
  if (!root.hasError || length === 0) return 0;
  let covered = 0;
  walkCursor(root, (cursor) => {
    if (cursor.nodeType !== 'ERROR') return cursor.currentNode.hasError;
    covered += cursor.endIndex - cursor.startIndex;
    return false;
  });
  return covered / length;
}

// ---------------------------------------------------------------------------------------
// Structural chunking of one parsed file.

interface DefInfo {
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
}

interface Item {
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
}

type MergeKind = 'module' | 'def' | 'none';

/**
 * The context a later piece of a split definition carries: the definition's signature rows,
 * exact file text, shown as a breadcrumb with its own line number — never part of the
 * piece's content. `budget` is what the carried context costs against maxChunkChars (the
 * signature plus a marker line, as when it was prepended to the content), so piece
 * boundaries do not depend on how the context is shown.
 */
interface Context {
  text: string;
  /** 0-based row where `text` starts. */
  row: number;
  budget: number;
}

/** The fields every piece of one definition shares. */
type PieceBase = Pick<Piece, 'chunkType' | 'symbol' | 'parent' | 'signature' | 'doc' | 'defRow'>;

interface Piece extends RowPiece {
  chunkType: ChunkType;
  symbol: string | null;
  parent: string | null;
  signature: string | null;
  doc: string | null;
  /** Carried context (later pieces of split bodies), or null. */
  context: Context | null;
  /** 0-based row of the signature of the definition this piece belongs to; null for module code. */
  defRow: number | null;
  /** Every name a run of merged small siblings defines (first = symbol); null for one definition. */
  names: string[] | null;
  merge: MergeKind;
}

const budgetOf = (c: Context | null): number => c?.budget ?? 0;

const IDENTIFIER = /identifier$|^(name|constant|word|operator_name|destructor_name)$/;
const HAS_WORD = /[\p{L}\p{N}_]/u;

function endRowOf(node: Node): number {
  const end = node.endPosition;
  const start = node.startPosition.row;
  return end.column === 0 && end.row > start ? end.row - 1 : end.row;
}

function clip(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) : s;
}

class FileChunker {
  private readonly lines: LineTable;

  constructor(
    private readonly path: string,
    private readonly text: string,
    private readonly language: string,
    private readonly spec: LanguageSpec,
    private readonly opts: Resolved,
  ) {
    this.lines = new LineTable(text);
  }

  run(root: Node): Chunk[] {
    const items = this.collectItems(root, null, 0, false);
    const pieces: Piece[] = [];
    for (const item of items) this.emitItem(item, 0, pieces);
    return this.merge(pieces)
      .map((p) => this.toChunk(p))
      .filter((c): c is Chunk => c !== null);
  }

  // ---- items -------------------------------------------------------------------------

  /** The named children of `container` as items: definitions (with attached comments), code, comments. */
  private collectItems(container: Node, parent: string | null, depth: number, inClass: boolean): Item[] {
    const items: Item[] = [];
    let pending: Node[] = [];
    /** Items so far that are all leading file comments. */
    let commentItems = 0;
    const flush = () => {
      for (const n of pending) {
        const leading = depth === 0 && this.spec.comments.has(n.type) && items.length === commentItems;
        this.pushCode(items, n, leading ? 'comment' : 'code', parent, inClass);
        if (leading) commentItems++;
      }
      pending = [];
    };
    const cursor = container.walk();
    try {
      if (!cursor.gotoFirstChild()) return items;
      do {
        if (!cursor.nodeIsNamed) continue;
        const n = cursor.currentNode;
        const sr = n.startPosition.row;
        const last = items[items.length - 1];
        if (pending.length === 0 && last && sr <= last.endRow) {
          // Shares a row with the previous item (trailing comment, `a; b;`): part of it.
          last.endRow = Math.max(last.endRow, endRowOf(n));
          if (last.kind !== 'def') last.nodes.push(n);
          continue;
        }
        if (TRANSPARENT_CONTAINERS.has(n.type) && depth < MAX_NEST_DEPTH) {
          flush();
          this.expandTransparent(items, n, parent, depth, inClass);
          continue;
        }
        const isComment = this.spec.comments.has(n.type);
        if (isComment || this.spec.attributes.has(n.type)) {
          if (pending.length > 0 && endRowOf(pending[pending.length - 1]) + 1 < sr) flush();
          pending.push(n);
          continue;
        }
        const found = this.classify(n);
        const attached = pending.length > 0 && endRowOf(pending[pending.length - 1]) + 1 >= sr ? pending : [];
        if (!found || attached.length === 0) flush();
        if (!found) {
          this.pushCode(items, n, 'code', parent, inClass);
          continue;
        }
        const startRow = attached.length > 0 ? attached[0].startPosition.row : sr;
        pending = [];
        if ('def' in found) {
          items.push({
            kind: 'def', startRow, endRow: endRowOf(n), nodes: [], def: found.def,
            docNodes: attached.filter((a) => this.spec.comments.has(a.type)), parent, inClass,
          });
        } else {
          this.expandNamespace(items, found.ns, n, startRow, parent, depth);
        }
      } while (cursor.gotoNextSibling());
      flush();
    } finally {
      cursor.delete();
    }
    return items;
  }

  private pushCode(items: Item[], n: Node, kind: 'code' | 'comment', parent: string | null, inClass: boolean): void {
    items.push({ kind, startRow: n.startPosition.row, endRow: endRowOf(n), nodes: [n], docNodes: [], parent, inClass });
  }

  /** A namespace's members are chunked like top-level items; its header and footer rows are code. */
  private expandNamespace(items: Item[], ns: Node, outer: Node, startRow: number, parent: string | null, depth: number): void {
    const body = ns.childForFieldName('body');
    const endRow = endRowOf(outer);
    const inner = body && depth < MAX_NEST_DEPTH ? this.collectItems(body, this.nameOf(ns) ?? parent, depth + 1, false) : [];
    if (inner.length === 0 || inner[0].startRow <= startRow || inner[inner.length - 1].endRow >= endRow) {
      items.push({ kind: 'code', startRow, endRow, nodes: [outer], docNodes: [], parent, inClass: false });
      return;
    }
    items.push({ kind: 'code', startRow, endRow: inner[0].startRow - 1, nodes: [], docNodes: [], parent, inClass: false });
    items.push(...inner);
    items.push({ kind: 'code', startRow: inner[inner.length - 1].endRow + 1, endRow, nodes: [], docNodes: [], parent, inClass: false });
  }

  /** `#if…#endif`: its children are items of the enclosing container; the directive rows are code. */
  private expandTransparent(items: Item[], n: Node, parent: string | null, depth: number, inClass: boolean): void {
    const startRow = n.startPosition.row;
    const endRow = endRowOf(n);
    const inner = this.collectItems(n, parent, depth + 1, inClass);
    if (inner.length === 0 || inner[0].startRow < startRow || inner[inner.length - 1].endRow > endRow) {
      items.push({ kind: 'code', startRow, endRow, nodes: [n], docNodes: [], parent, inClass });
      return;
    }
    if (inner[0].startRow > startRow) {
      items.push({ kind: 'code', startRow, endRow: inner[0].startRow - 1, nodes: [], docNodes: [], parent, inClass });
    }
    items.push(...inner);
    const last = inner[inner.length - 1];
    if (last.endRow < endRow) {
      if (this.lines.size(last.endRow + 1, endRow) <= MAX_DIRECTIVE_TAIL_CHARS) last.endRow = endRow;
      else items.push({ kind: 'code', startRow: last.endRow + 1, endRow, nodes: [], docNodes: [], parent, inClass });
    }
  }

  /**
   * Definitions nested in `roots` (not in each other), outermost first, as items, or [] when
   * none: each starts its own row, ends before the next starts, and lies within from..to.
   */
  private nestedDefs(roots: Node[], from: number, to: number, parent: string | null): Item[] {
    const out: Item[] = [];
    const spec = this.spec;
    for (const root of roots) {
      walkCursor(root, (cursor, depth) => {
        if (depth > 0 && cursor.nodeIsNamed) {
          const t = cursor.nodeType;
          if (t in spec.defs || spec.bindings.has(t) || t in spec.wrappers) {
            const n = cursor.currentNode;
            const found = this.classify(n);
            if (found && 'def' in found && found.def.name) {
              const row = n.startPosition.row;
              const last = out[out.length - 1];
              if (row > from && endRowOf(n) <= to && (!last || row > last.endRow) && this.lines.startsRow(n.startIndex, row)) {
                const docNodes: Node[] = [];
                let startRow = row;
                for (let p = n.previousNamedSibling; p && spec.comments.has(p.type) && endRowOf(p) + 1 >= startRow; p = p.previousNamedSibling) {
                  if (p.startPosition.row <= (last?.endRow ?? from) || !this.lines.startsRow(p.startIndex, p.startPosition.row)) break;
                  docNodes.unshift(p);
                  startRow = p.startPosition.row;
                }
                out.push({ kind: 'def', startRow, endRow: endRowOf(n), nodes: [], def: found.def, docNodes, parent, inClass: false });
              }
              return false; // never look inside a named definition
            }
          }
        }
        return depth < MAX_NESTED_DEF_DEPTH;
      });
    }
    return out;
  }

  /**
   * Rows from..to holding `nested` definitions: the definitions become their own pieces, the
   * code between them is cut at statement boundaries with `base`; pieces after the first
   * carry `prefix`.
   */
  private emitAroundNested(
    from: number, to: number, nodes: Node[], nested: Item[],
    base: PieceBase,
    prefix: Context | null, merge: MergeKind, depth: number, out: Piece[],
  ): void {
    const first = out.length;
    const gap = (a: number, b: number) => {
      while (b >= a && this.lines.isBlank(b)) b--;
      if (b < a) return;
      // A small gap (`},`, a one-line call) joins the definition before it.
      const prev = out.length > first ? out[out.length - 1] : undefined;
      if (prev && !prev.cols && this.lines.size(a, b) < this.opts.minChunkChars && this.pieceSize(prev) + this.lines.size(prev.endRow + 1, b) <= this.opts.maxChunkChars) {
        prev.endRow = b;
        return;
      }
      const scores = this.scoreBreaks(nodes, a, b, 0);
      for (const p of this.pack(a, b, scores, budgetOf(prefix), budgetOf(prefix))) {
        out.push({ ...base, ...p, doc: out.length === first ? base.doc : null, context: out.length === first ? null : prefix, names: null, merge });
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

  /** Is `n` a definition (possibly wrapped or bound to a variable) or a namespace? */
  private classify(n: Node): { def: DefInfo } | { ns: Node } | null {
    const spec = this.spec;
    let node = n;
    let sigStart = n.startIndex;
    for (let i = 0; i < 4 && spec.wrappers[node.type]; i++) {
      const mode = spec.wrappers[node.type];
      const inner =
        node.childForFieldName('declaration') ??
        node.childForFieldName('definition') ??
        node.namedChildren.find((c) => c !== null && (c.type in spec.defs || spec.bindings.has(c.type) || spec.namespaces.has(c.type))) ??
        null;
      if (!inner) return null;
      if (mode === 'skip') sigStart = inner.startIndex;
      node = inner;
    }
    if (spec.namespaces.has(node.type)) return { ns: node };
    const base = spec.defs[node.type];
    if (base) {
      // `struct x;` / `enum e` used as a type are not definitions.
      if (/_specifier$/.test(node.type) && !node.childForFieldName('body')) return null;
      const kind = spec.refine?.(node) ?? base;
      return { def: { outer: n, node, holder: node, kind, name: this.nameOf(node), sigStart } };
    }
    if (spec.bindings.has(node.type)) {
      const declarators = node.type.endsWith('field_definition')
        ? [node]
        : node.namedChildren.filter((c) => c !== null && c.type === 'variable_declarator');
      if (declarators.length !== 1 || !declarators[0]) return null;
      const decl = declarators[0];
      const value = decl.childForFieldName('value');
      const kind = value ? spec.bindingValues[value.type] : undefined;
      if (!value || !kind) return null;
      const nameNode = decl.childForFieldName('name') ?? decl.childForFieldName('property');
      const name = nameNode ? clip(nameNode.text, MAX_NAME_CHARS) : null;
      return { def: { outer: n, node, holder: value, kind, name, sigStart } };
    }
    return null;
  }

  /** Name of a definition: its `name` field, else down the `declarator` chain (C), impl types (Rust), type specs (Go). */
  private nameOf(node: Node): string | null {
    let n: Node | null = node;
    for (let i = 0; i < 12 && n; i++) {
      if (IDENTIFIER.test(n.type)) return clip(n.text, MAX_NAME_CHARS);
      const name = n.childForFieldName('name');
      if (name) return clip(name.text.replace(/^(['"`])(.*)\1$/s, '$2'), MAX_NAME_CHARS);
      n =
        n.childForFieldName('declarator') ??
        (n.type === 'impl_item' || n.type === 'generic_type' ? n.childForFieldName('type') : null) ??
        (n.type === 'type_declaration' ? n.namedChild(0) : null);
    }
    return null;
  }

  // ---- pieces ------------------------------------------------------------------------

  private emitItem(item: Item, depth: number, out: Piece[]): void {
    if (item.kind === 'def' && item.def) {
      this.emitDef(item, item.def, depth, out);
      return;
    }
    const size = this.lines.size(item.startRow, item.endRow);
    const chunkType: ChunkType = item.kind === 'comment' ? 'comment' : 'module';
    const base = { chunkType, symbol: null, parent: null, signature: null, doc: null, defRow: null, context: null, names: null };
    if (size <= this.opts.maxChunkChars) {
      const merge: MergeKind = chunkType === 'module' || size < this.opts.minChunkChars ? 'module' : 'none';
      out.push({ ...base, startRow: item.startRow, endRow: item.endRow, merge });
      return;
    }
    const nested = depth < MAX_NEST_DEPTH ? this.nestedDefs(item.nodes, item.startRow - 1, item.endRow, item.parent) : [];
    if (nested.length) {
      this.emitAroundNested(item.startRow, item.endRow, item.nodes, nested, base, null, 'module', depth, out);
      return;
    }
    const scores = this.scoreBreaks(item.nodes, item.startRow, item.endRow, 0);
    for (const p of this.pack(item.startRow, item.endRow, scores, 0)) out.push({ ...base, ...p, merge: 'module' });
  }

  private emitDef(item: Item, d: DefInfo, depth: number, out: Piece[]): void {
    let kind = d.kind;
    let symbol = d.name;
    let parent = item.parent;
    if (item.inClass && kind === 'function') kind = 'method';
    if (d.node.type === 'method_declaration' && this.language === 'go') parent = this.goReceiver(d.node) ?? parent;
    if ((kind === 'function' || kind === 'method') && symbol && symbol.includes('::')) {
      const i = symbol.lastIndexOf('::');
      parent = symbol.slice(0, i);
      symbol = symbol.slice(i + 2);
      kind = 'method';
    }
    const body = this.bodyOf(d);
    const base: PieceBase = {
      chunkType: kind, symbol, parent, signature: this.signatureOf(d, body), doc: this.docOf(item, body), defRow: this.lines.rowOf(d.sigStart),
    };
    const size = this.lines.size(item.startRow, item.endRow);
    if (size <= this.opts.maxChunkChars) {
      const merge: MergeKind = size < this.opts.minChunkChars ? 'def' : 'none';
      out.push({ ...base, startRow: item.startRow, endRow: item.endRow, context: null, names: null, merge });
      return;
    }
    const prefix = this.contextPrefix(d, body);
    if (CLASS_LIKE.has(kind) && body && depth < MAX_NEST_DEPTH) {
      const members = this.collectItems(body, symbol, depth + 1, true);
      if (members.some((m) => m.kind === 'def')) {
        this.emitClass(item, members, base, prefix, depth, out);
        return;
      }
    }
    // A long body with nested definitions: those are chunks of their own (parent = this).
    const roots = body ? [body] : [d.outer];
    const nested = depth < MAX_NEST_DEPTH ? this.nestedDefs(roots, this.lines.rowOf(d.sigStart), item.endRow, symbol) : [];
    if (nested.length) {
      this.emitAroundNested(item.startRow, item.endRow, roots, nested, base, prefix, 'none', depth, out);
      return;
    }
    // A long body: cut at statement boundaries; later pieces carry the signature.
    const scores = this.scoreBreaks(body ? [body] : [d.outer], item.startRow, item.endRow, 0);
    this.pack(item.startRow, item.endRow, scores, prefix.budget).forEach((p, i) => {
      out.push({ ...base, ...p, context: i > 0 ? prefix : null, names: null, merge: 'none' });
    });
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
      this.emitRun(m.startRow, run[run.length - 1].endRow, run.flatMap((r) => r.nodes), { ...base, doc: null }, prefix, true, out);
      i = j + 1;
    }
    // Closing rows (`}`, `end`): join the last piece when tiny, else their own piece.
    const tailStart = members[members.length - 1].endRow + 1;
    if (tailStart <= item.endRow) {
      const last = out[out.length - 1];
      const tail = this.lines.size(tailStart, item.endRow);
      if (last && !last.cols && tail <= MAX_TAIL_CHARS && this.pieceSize(last) + tail + 1 <= this.opts.maxChunkChars) {
        last.endRow = item.endRow;
      } else {
        this.emitRun(tailStart, item.endRow, [], { ...base, doc: null }, prefix, true, out);
      }
    }
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
      out.push({ ...base, ...p, context: prefixAll || i > 0 ? prefix : null, names: null, merge: 'none' });
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

  /** Cut preference per row of from..to: rows where shallow nodes start score highest; a blank row before adds a bonus. */
  private scoreBreaks(nodes: Node[], from: number, to: number, baseDepth: number): Int32Array {
    const scores = new Int32Array(to - from + 2);
    for (const root of nodes) {
      walkCursor(root, (cursor, depth) => {
        const row = cursor.startPosition.row;
        if (cursor.nodeIsNamed && row > from && row <= to && this.lines.startsRow(cursor.startIndex, row)) {
          const s = Math.max(1, BREAK_SCORE_TOP - BREAK_SCORE_STEP * (depth + baseDepth));
          if (s > scores[row - from]) scores[row - from] = s;
        }
        return depth < MAX_BREAK_DEPTH && cursor.endPosition.row > row;
      });
    }
    for (let r = from + 1; r <= to; r++) if (this.lines.isBlank(r - 1)) scores[r - from] += BREAK_SCORE_AFTER_BLANK;
    return scores;
  }

  // ---- signature, doc, context -------------------------------------------------------

  private bodyOf(d: DefInfo): Node | null {
    return (
      d.holder.childForFieldName('body') ??
      (d.node.type === 'type_definition' ? (d.node.childForFieldName('type')?.childForFieldName('body') ?? null) : null)
    );
  }

  /** Declaration text without the body, whitespace collapsed, e.g. `def f(a) -> int:` or `function f(a)`. */
  private signatureOf(d: DefInfo, body: Node | null): string | null {
    const startRow = this.lines.rowOf(d.sigStart);
    const end = body && body.startIndex > d.sigStart ? body.startIndex : this.lines.end(startRow);
    const sig = this.text
      .slice(d.sigStart, Math.min(end, d.sigStart + MAX_SIGNATURE_CHARS * 4))
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/\s*\{$/, '');
    return sig === '' ? null : clip(sig, MAX_SIGNATURE_CHARS);
  }

  /** Signature rows, carried (as context, not content) by later pieces of a split body. */
  private contextPrefix(d: DefInfo, body: Node | null): Context {
    const sigRow = this.lines.rowOf(d.sigStart);
    let endRow = sigRow;
    if (body) {
      const bodyRow = body.startPosition.row;
      endRow = bodyRow > sigRow && this.lines.startsRow(body.startIndex, bodyRow) ? bodyRow - 1 : bodyRow;
    }
    endRow = Math.min(endRow, sigRow + MAX_PREFIX_ROWS - 1);
    const sig = clip(this.lines.slice(sigRow, endRow), MAX_PREFIX_CHARS);
    const indent = /^[ \t]*/.exec(this.lines.line(sigRow))?.[0] ?? '';
    // Budgeted as the signature plus a `… ` marker line, as when the context was prepended.
    return { text: sig, row: sigRow, budget: `${sig}\n${indent}    ${this.spec.lineComment} …\n`.length };
  }

  private docOf(item: Item, body: Node | null): string | null {
    if (this.spec.docStyle === 'docstring' && body) {
      const first = body.firstNamedChild;
      const str = first?.type === 'expression_statement' ? first.firstNamedChild : null;
      if (str && str.type === 'string') return cleanDocstring(str.text);
    }
    if (item.docNodes.length === 0) return null;
    const doc = item.docNodes.map((n) => cleanComment(n.text)).join('\n').trim();
    return doc === '' ? null : clip(doc, MAX_DOC_CHARS);
  }

  private goReceiver(node: Node): string | null {
    const receiver = node.childForFieldName('receiver');
    if (!receiver) return null;
    const cursor = receiver.walk();
    try {
      for (let steps = 0; steps < 64; steps++) {
        if (cursor.nodeType === 'type_identifier') return cursor.nodeText;
        if (!cursor.gotoFirstChild()) {
          while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return null;
        }
      }
    } finally {
      cursor.delete();
    }
    return null;
  }

  // ---- merge and output --------------------------------------------------------------

  private pieceSize(p: Piece): number {
    return p.cols ? p.cols[1] - p.cols[0] : this.lines.size(p.startRow, p.endRow) + budgetOf(p.context);
  }

  /** Adjacent module pieces merge up to the max; tiny definitions of the same kind and parent merge (the first names it). */
  private merge(pieces: Piece[]): Piece[] {
    const out: Piece[] = [];
    const max = this.opts.maxChunkChars;
    const absorbed = new Set<Piece>();
    for (const p of pieces) {
      const prev = out[out.length - 1];
      const joinable = prev && !prev.cols && !p.cols && !prev.context && !p.context && prev.endRow < p.startRow;
      if (joinable && this.lines.size(prev.startRow, p.endRow) <= max) {
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
          if (this.lines.size(prev.startRow, prev.endRow) >= this.opts.minChunkChars) prev.merge = 'none';
          continue;
        }
      }
      // A tiny one-row code piece after a definition (`EXPORT_SYMBOL(f);`, `#endif`) joins it;
      // one per definition, so a script's top-level statements do not pile onto a function.
      if (
        joinable && p.merge === 'module' && p.chunkType === 'module' && prev.merge !== 'module' && p.startRow === p.endRow && !absorbed.has(prev) &&
        this.lines.size(p.startRow, p.endRow) < this.opts.minChunkChars && this.pieceSize(prev) + this.lines.size(prev.endRow + 1, p.endRow) <= max
      ) {
        prev.endRow = p.endRow;
        absorbed.add(prev);
        continue;
      }
      // Punctuation-only leftovers (`}`, `});`) join the previous piece.
      // Bounded like every merge: 100k lines of `]` must not become one chunk.
      if (
        prev && !prev.cols && !p.cols && p.chunkType === 'module' && prev.endRow < p.startRow &&
        !HAS_WORD.test(this.lines.slice(p.startRow, p.endRow)) && this.pieceSize(prev) + this.lines.size(prev.endRow + 1, p.endRow) <= max
      ) {
        prev.endRow = p.endRow;
        continue;
      }
      out.push(p);
    }
    return out;
  }

  private toChunk(p: Piece): Chunk | null {
    const body = p.cols ? this.lines.line(p.startRow).slice(p.cols[0], p.cols[1]) : this.lines.slice(p.startRow, p.endRow);
    if (body.trim() === '') return null;
    return {
      path: this.path,
      startLine: p.startRow + 1,
      endLine: p.endRow + 1,
      language: this.language,
      chunkType: p.chunkType,
      symbol: p.symbol,
      parent: p.parent,
      signature: p.signature,
      doc: p.doc,
      content: body,
      context: p.context?.text ?? null,
      contextLine: p.context ? p.context.row + 1 : null,
      defLine: p.defRow === null ? null : p.defRow + 1,
      names: p.names && p.names.length > 1 ? p.names : null,
    };
  }
}

/** Comment text without markers: `/** … *\/`, `//`, `///`, `//!`, `#`, leading `*`. */
function cleanComment(raw: string): string {
  let s = raw.trim();
  if (s.startsWith('/*')) s = s.replace(/^\/\*+!?/, '').replace(/\*+\/$/, '');
  return s
    .split('\n')
    .map((l) => l.trim().replace(/^(\/\/[/!]?|#+|\*+(?!\/))\s?/, '').trimEnd())
    .join('\n')
    .trim();
}

/** Python docstring without quotes and prefixes, lines trimmed. */
function cleanDocstring(raw: string): string | null {
  const s = raw.replace(/^[rRbBuUfF]*("""|'''|"|')/, '').replace(/("""|'''|"|')$/, '');
  const doc = s
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .trim();
  return doc === '' ? null : clip(doc, MAX_DOC_CHARS);
}
