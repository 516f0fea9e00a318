/**
 * The chunker: turns one file's text into chunks, structurally (tree-sitter) for the
 * languages in GRAMMARS and as structure-aware text for everything else. This module owns
 * the runtime, grammars and the parse; the structural stages are file-chunker.ts (items,
 * pieces), definitions.ts (names, signatures, docs, context) and pieces.ts (merge, output).
 *
 * Owns: the web-tree-sitter runtime (initialised once per realm behind a cached promise),
 * grammars (loaded lazily per language, cached per Chunker), one Parser per Chunker, and the
 * compiled constant queries (per language, deleted with the Chunker).
 *
 * Invariants:
 * - Runs unchanged in Node and in a browser worker: WASM bytes come from `loadWasm`.
 * - Never drops a file: no grammar, a parse over its work limit, a failed parse or a tree that is
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
import { Language, Parser, Query } from 'web-tree-sitter';
import type { Node, Tree } from 'web-tree-sitter';
import type { Chunk } from '../types.ts';
import { CHUNK_OVERLAP_CHARS, MAX_CHUNK_CHARS, MIN_CHUNK_CHARS } from '../config.ts';
import { GRAMMARS, LANGUAGE_SPECS, RUNTIME_WASM, detectLanguage, type ConstantDef, type ConstantQuery, type LanguageSpec } from './languages.ts';
import { chunkText } from './text.ts';
import { FileChunker } from './file-chunker.ts';
import type { ChunkSizes } from './pieces.ts';
import { LineTable } from './lines.ts';
import { cleanDefinitionShare, errorShares } from './tree-walk.ts';
import { bindTreeRuntime } from './tree-access.ts';

/**
 * The parse budget, in tree-sitter's progress callbacks (one per 100 parse operations: the same
 * count for the same file on any machine at any load). A deadline in wall time made the chunks
 * depend on the machine's load: at 2,000 ms/MB on a busy 2-core box the Python stdlib's
 * tkinter/__init__.py, pathlib.py … timed out into text chunks, and at 6,000 ms/MB (at least 4 s)
 * one kernel run at load 15–20 still chunked some files differently from the next run of the
 * same build. Real files need 4–12 callbacks per KB (median per language) and at most 44 (a
 * Dart test table) over 8,800 files in 22 languages (`bench/parse-ops.ts`: Python's standard
 * library, Go's net and go, kernel mm + block, the eval repositories, the medium corpus); a
 * callback is 30–100 µs of parse CPU here (10–41 per ms by language). So the budget is 150 a KB,
 * at least 40,000: 3× the worst real file, a few seconds of one core at most.
 */
const PARSE_CALLS_PER_KB = 150;
const MIN_PARSE_CALLS = 40_000;
/**
 * A tree whose ERROR nodes, less the definitions they hold (errorShares), cover more than this
 * share of the file is chunked as text, unless definitions read with no error outside them cover
 * at least MIN_CLEAN_DEFINITIONS of it (tree-walk.ts cleanDefinitionShare): a file of functions
 * with one table the grammar cannot read (Linux's lib/test_bpf.c: 330 functions, 24% of the file,
 * beside a 131 KB initializer read as one ERROR node, whose first error is an `#ifdef` inside a
 * row) keeps its functions, the table becomes pieces of text. Of 19,583 files (kernel subset, eval repositories, medium
 * corpus, Python's standard library, Go's net) 20 are over the ratio; that one file is over 0.2,
 * the next 0.12 (an ACPI header of macro-wrapped structs).
 */
const MAX_ERROR_RATIO = 0.5;
const MIN_CLEAN_DEFINITIONS = 0.2;
/** A line this long that is also most of the file marks minified/generated code: chunked as text without parsing. */
const MINIFIED_LINE_CHARS = 20_000;

/**
 * A WASM file by name: its bytes, or a module compiled already (the browser's indexer worker
 * compiles each file once and hands the module to its chunker workers: compiled code, tier-up
 * included, is shared instead of redone per worker).
 */
export type WasmLoader = (file: string) => Promise<Uint8Array | WebAssembly.Module>;

export interface ChunkerOptions {
  loadWasm: WasmLoader;
  maxChunkChars?: number;
  minChunkChars?: number;
  overlapChars?: number;
  /**
   * Parse work allowed for one file, in tree-sitter progress callbacks (100 parse operations
   * each), shared by its readings (retry, macro-blanked); default PARSE_CALLS_PER_KB of text, at
   * least MIN_PARSE_CALLS. A file over it is chunked as text.
   */
  parseBudget?: number;
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
    const wasm = await loadWasm(RUNTIME_WASM);
    // Emscripten fills this object in with the runtime's exports: tree-access.ts reads them.
    // A compiled module is instantiated through Emscripten's instantiateWasm hook.
    let failed: (e: unknown) => void = () => undefined;
    const instantiateFailed = new Promise<never>((_, reject) => (failed = reject));
    const moduleArg = wasm instanceof WebAssembly.Module
      ? {
        instantiateWasm(imports: WebAssembly.Imports, ok: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
          WebAssembly.instantiate(wasm, imports).then((instance) => ok(instance, wasm), failed);
          return {};
        },
      }
      : { wasmBinary: wasm };
    await Promise.race([Parser.init(moduleArg as unknown as Parameters<typeof Parser.init>[0]), instantiateFailed]);
    bindTreeRuntime(moduleArg);
  })().catch((err: unknown) => {
    runtimeReady = null;
    throw err;
  });
  return runtimeReady;
}

interface Resolved extends ChunkSizes {
  parseBudget: number | undefined;
}

export class Chunker {
  private readonly grammars = new Map<string, Promise<Language | string>>();
  /** Compiled constantQueries by language and index (null: the query did not compile for the grammar). */
  private readonly constantQueries = new Map<string, Query | null>();
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
      parseBudget: opts.parseBudget,
    });
  }

  /** Chunks one file. `path` is relative and `/`-separated; it picks the language (with the text: a C++ `.h`, a `#!` line). */
  async chunkFile(path: string, text: string): Promise<ChunkFileResult> {
    if (this.disposed) throw new Error('Chunker is disposed');
    const language = detectLanguage(path, text);
    const spec = LANGUAGE_SPECS[language];
    const asText = (warning?: string): ChunkFileResult => ({
      language,
      chunks: withConstants(chunkText(path, text, language, this.opts), text, spec?.constants),
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
    const budget = this.opts.parseBudget ?? Math.max(MIN_PARSE_CALLS, Math.ceil((text.length / 1024) * PARSE_CALLS_PER_KB));
    /** Progress callbacks so far, over every reading of this file. */
    let calls = 0;
    const progressCallback = () => ++calls > budget;
    const parse = (input: string): Tree | string => {
      try {
        const t = this.parser.parse(input, null, { progressCallback });
        if (t) return t;
        this.parser.reset();
        return `parse stopped at its work limit (${budget * 100} operations)`;
      } catch (err) {
        this.parser.reset();
        return `parse error (${String(err)})`;
      }
    };
    const input = spec.parseInput ? spec.parseInput(text) : text;
    const recovered = (type: string) => type in spec.defs || type in spec.wrappers || spec.namespaces.has(type) || spec.comments.has(type);
    let tree = parse(input);
    if (typeof tree === 'string') return asText(`${tree}; chunked as text`);
    /** The input the kept tree was read from. */
    let read = input;
    try {
      let errors = errorShares(tree.rootNode, text.length, recovered);
      if (errors.all > MAX_ERROR_RATIO && spec.parseRetry) {
        // A second reading (same length, same indices) for a tree that is mostly errors, even
        // when the definitions inside them could be read: it may read the broken one too.
        const retryInput = spec.parseRetry(input);
        const retry = parse(retryInput);
        if (typeof retry !== 'string') {
          const retryErrors = errorShares(retry.rootNode, text.length, recovered);
          if (retryErrors.unread < errors.unread) {
            tree.delete();
            tree = retry;
            read = retryInput;
            errors = retryErrors;
          } else retry.delete();
        }
      }
      const alternative = spec.parseAlternative?.(read);
      if (alternative !== undefined && alternative !== read) {
        // A reading with the project's own macros blanked: kept when it reads as well or better.
        const alt = parse(alternative);
        if (typeof alt !== 'string') {
          const altErrors = errorShares(alt.rootNode, text.length, recovered);
          if (altErrors.unread < errors.unread || (altErrors.unread === errors.unread && altErrors.all <= errors.all)) {
            tree.delete();
            tree = alt;
            errors = altErrors;
          } else alt.delete();
        }
      }
      if (errors.unread > MAX_ERROR_RATIO && cleanDefinitionShare(tree.rootNode, text.length, (type) => type in spec.defs) < MIN_CLEAN_DEFINITIONS) {
        return asText(`syntax errors cover ${Math.round(errors.unread * 100)}% of the file; chunked as text`);
      }
      const chunks = withConstants(new FileChunker(path, text, language, spec, this.opts).run(tree.rootNode), text, spec.constants, this.treeConstants(language, grammar, spec, tree.rootNode, text));
      return { language, chunks, parsed: true, warnings: [] };
    } finally {
      tree.delete();
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const q of this.constantQueries.values()) q?.delete();
    this.constantQueries.clear();
    this.parser.delete();
    this.grammars.clear();
  }

  /**
   * The constants spec.constantQueries capture under their owners (the nodes that own one of
   * a query's keyword tokens — a keyword in a comment or a string owns none — or the module's
   * statements of its type), in text order; names read from `text`.
   */
  private treeConstants(language: string, grammar: Language, spec: LanguageSpec, root: Node, text: string): ConstantDef[] {
    const out: ConstantDef[] = [];
    const names = new Set<number>();
    (spec.constantQueries ?? []).forEach((cq, i) => {
      const query = this.constantQuery(`${language}#${i}`, grammar, cq.query);
      if (!query) return;
      for (const owner of constantOwners(cq, spec, root, text)) {
        for (const { name, node } of query.captures(owner, cq.atOwner ? { maxStartDepth: 0 } : {})) {
          if (name !== 'name' || names.has(node.startIndex)) continue;
          const constant = text.slice(node.startIndex, node.endIndex);
          if (cq.name && !cq.name.test(constant)) continue;
          names.add(node.startIndex);
          out.push({ name: constant, lineStart: node.startIndex });
        }
      }
    });
    return out.sort((a, b) => a.lineStart - b.lineStart);
  }

  /** A compiled constant query, cached under `key` (null: the grammar lacks its node types). */
  private constantQuery(key: string, grammar: Language, source: string): Query | null {
    let query = this.constantQueries.get(key);
    if (query === undefined) {
      try {
        query = new Query(grammar, source);
      } catch {
        query = null; // a grammar without these node types: no constants from the tree
      }
      this.constantQueries.set(key, query);
    }
    return query;
  }

  /** The grammar for `language`, or the reason it could not be loaded (cached either way). */
  private grammar(language: string): Promise<Language | string> {
    let p = this.grammars.get(language);
    if (!p) {
      p = this.loadWasm(GRAMMARS[language])
        .then((wasm) => (wasm instanceof WebAssembly.Module ? Language.loadSync(wasm) : Language.load(wasm)))
        .catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
      this.grammars.set(language, p);
    }
    return p;
  }
}

/** ConstantQuery.ownerType: how many levels above the keyword token its owner may be. */
const OWNER_LEVELS = 3;

/** The nodes a constant query runs on (ConstantQuery.owners, ownerType, topLevel), each once. */
function constantOwners(cq: ConstantQuery, spec: LanguageSpec, root: Node, text: string): Node[] {
  if (!(cq.owners instanceof RegExp)) {
    const { statement, lead, inClasses } = cq.owners;
    const scopes: Node[] = [root];
    for (const top of inClasses ? root.namedChildren : []) {
      // A decorated class (`@dataclass class …`) is the wrapper's definition.
      const def = top && top.type in spec.wrappers ? top.childForFieldName('definition') : top;
      const body = def && def.type === inClasses ? def.childForFieldName('body') : null;
      if (body) scopes.push(body);
    }
    return scopes.flatMap((scope) => scope.namedChildren.filter((c): c is Node => {
      if (c?.type !== statement) return false;
      lead.lastIndex = c.startIndex;
      return lead.test(text);
    }));
  }
  const owners = new Map<number, Node>();
  const keyword = new RegExp(cq.owners.source, `${cq.owners.flags.replace('g', '')}g`);
  for (let m = keyword.exec(text); m; m = keyword.exec(text)) {
    const word = m.find((g, i) => i > 0 && g !== undefined) ?? m[0];
    const at = m.index + m[0].length - word.length;
    const token = root.descendantForIndex(at, at + word.length);
    let owner = token?.type === word ? token.parent : null;
    for (let up = 1; owner && cq.ownerType && owner.type !== cq.ownerType; up++) owner = up < OWNER_LEVELS ? owner.parent : null;
    if (!owner || owners.has(owner.id)) continue;
    if (cq.topLevel) {
      const up = owner.parent;
      const atTop = up?.id === root.id || (!!up && up.type in spec.wrappers && up.parent?.id === root.id);
      if (!atTop) continue;
    }
    owners.set(owner.id, owner);
  }
  return [...owners.values()];
}

/**
 * `chunks` (in line order) with `defines`: the constants (spec.constants, and `fromTree`,
 * spec.constantQueries') defined on each one's lines. Text chunks may overlap; a constant on a
 * shared line is listed by both.
 */
function withConstants(chunks: Chunk[], text: string, constants: ((text: string) => ConstantDef[]) | undefined, fromTree: ConstantDef[] = []): Chunk[] {
  const fromText = constants ? constants(text) : [];
  const found = fromTree.length ? [...fromText, ...fromTree].sort((a, b) => a.lineStart - b.lineStart) : fromText;
  if (!found.length || !chunks.length) return chunks;
  const lines = new LineTable(text);
  let first = 0;
  for (const { name, lineStart } of found) {
    const line = lines.rowOf(lineStart) + 1;
    while (first < chunks.length && chunks[first]!.endLine < line) first++;
    for (let k = first; k < chunks.length && chunks[k]!.startLine <= line; k++) {
      const c = chunks[k]!;
      if (c.endLine < line) continue;
      if (!c.defines) c.defines = [name];
      else if (!c.defines.includes(name)) c.defines.push(name);
    }
  }
  return chunks;
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
