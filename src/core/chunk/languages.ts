/**
 * Language identification and the per-language tables the chunker reads.
 *
 * Owns: path (and, where the path cannot tell, text: a C++ `.h`, a `#!` script) → language
 * id, language id → grammar file, and for each structurally chunked language which
 * tree-sitter node types are definitions (and of what kind), which wrap a definition, which
 * are transparent namespaces or containers of members, and how comments look. What the
 * tables cannot say (names without fields, definitions that are calls) is read by the
 * LanguageSpec.read hooks in language-hooks.ts.
 *
 * Invariants: every key of GRAMMARS has a LANGUAGE_SPECS entry and vice versa; ids are
 * lower-case and stable (they are stored in the index and used by `lang:` filters).
 * Grammars are loaded on the first file of their language (chunker.ts, and the browser's
 * workers/indexer/wasm-loader.ts, which lists the same files).
 */
import type { ChunkType } from '../types.ts';
import type { SpecNode, SpecRead } from './spec-node.ts';
import { looksLikeCppHeader } from './cpp-header.ts';
import { needleLineMatches, replaceLineMatches, someLineMatches } from './line-scan.ts';
import {
  clojureBodyDoc, clojureScope, elixirAttributeDoc, elixirBodyDoc, elixirIsAttribute, perlScope, readClojure, readDart,
  readElixir, readElm, readGleam, readHaskell, readJs, readKotlin, readLua, readPerl, readR, readRust, readScala, readSwift, readZig,
} from './language-hooks.ts';

/** Extension (lower-case, no dot) → language id. */
const EXTENSION_LANGUAGES: Readonly<Record<string, string>> = {
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  ts: 'typescript', mts: 'typescript', cts: 'typescript', tsx: 'tsx',
  py: 'python', pyi: 'python', pyw: 'python',
  go: 'go', rs: 'rust', java: 'java', kt: 'kotlin', kts: 'kotlin', scala: 'scala', sc: 'scala',
  c: 'c', h: 'c', cpp: 'cpp', cc: 'cpp', cxx: 'cpp', 'c++': 'cpp', hpp: 'cpp', hxx: 'cpp', hh: 'cpp',
  ipp: 'cpp', inl: 'cpp', cs: 'csharp', rb: 'ruby', rake: 'ruby', gemspec: 'ruby', php: 'php',
  phtml: 'php', swift: 'swift', lua: 'lua', dart: 'dart', ex: 'elixir', exs: 'elixir', hs: 'haskell',
  zig: 'zig', nix: 'nix', r: 'r', pl: 'perl', pm: 'perl', tf: 'hcl', hcl: 'hcl', m: 'objc', mm: 'objc',
  sbt: 'scala', elm: 'elm', gleam: 'gleam', clj: 'clojure', cljs: 'clojure', cljc: 'clojure',
  svelte: 'svelte', vue: 'vue',
  sh: 'bash', bash: 'bash', zsh: 'bash', ksh: 'bash',
  json: 'json', jsonc: 'json', json5: 'json', yaml: 'yaml', yml: 'yaml', toml: 'toml',
  ini: 'ini', cfg: 'ini', conf: 'ini', properties: 'properties',
  md: 'markdown', mdx: 'markdown', markdown: 'markdown', rst: 'rst', txt: 'text', text: 'text',
  sql: 'sql', proto: 'protobuf', graphql: 'graphql', gql: 'graphql',
  html: 'html', htm: 'html', xhtml: 'html', css: 'css', scss: 'scss', sass: 'scss', less: 'less',
  xml: 'xml', xsd: 'xml', xsl: 'xml', svg: 'xml', plist: 'xml', csv: 'csv', tsv: 'csv',
  cmake: 'cmake', mk: 'make', dockerfile: 'dockerfile', gradle: 'groovy', groovy: 'groovy',
};

/** Whole file names (exact, then lower-cased) → language id. */
const FILENAME_LANGUAGES: Readonly<Record<string, string>> = {
  Makefile: 'make', makefile: 'make', GNUmakefile: 'make', Dockerfile: 'dockerfile',
  'CMakeLists.txt': 'cmake', Gemfile: 'ruby', Rakefile: 'ruby', Vagrantfile: 'ruby', Podfile: 'ruby',
  Kconfig: 'kconfig', Jenkinsfile: 'groovy', README: 'text', LICENSE: 'text', COPYING: 'text',
  '.bashrc': 'bash', '.bash_profile': 'bash', '.zshrc': 'bash', '.profile': 'bash',
  '.gitignore': 'text', '.gitattributes': 'text', '.editorconfig': 'ini',
};

/** Interpreter of a `#!` line (version suffix dropped: python3.11 → python) → language id. */
const SHEBANG_LANGUAGES: Readonly<Record<string, string>> = {
  python: 'python', pypy: 'python', node: 'javascript', nodejs: 'javascript', bun: 'javascript',
  deno: 'typescript', 'ts-node': 'typescript', tsx: 'typescript',
  sh: 'bash', bash: 'bash', zsh: 'bash', ksh: 'bash', mksh: 'bash', dash: 'bash', ash: 'bash',
  ruby: 'ruby', jruby: 'ruby', perl: 'perl', php: 'php', lua: 'lua', luajit: 'lua', elixir: 'elixir',
  swift: 'swift', kotlin: 'kotlin', kscript: 'kotlin', scala: 'scala', amm: 'scala',
  runghc: 'haskell', runhaskell: 'haskell', stack: 'haskell', rscript: 'r', dart: 'dart', make: 'make',
  clojure: 'clojure', bb: 'clojure',
};

/** Is `ext` (no dot, any case) the extension of a language Sift knows (`ts`, `rs`, `json`, `md`)? */
export function isKnownExtension(ext: string): boolean {
  return Object.hasOwn(EXTENSION_LANGUAGES, ext.toLowerCase());
}

/**
 * Language of a script by its `#!` line (`#!/usr/bin/env python3`, `#!/bin/sh`, `#!/usr/bin/env
 * -S deno run`), or null when the text has none or names no interpreter we know.
 */
export function shebangLanguage(text: string): string | null {
  if (!text.startsWith('#!')) return null;
  const end = text.indexOf('\n');
  const words = text.slice(2, end < 0 ? 200 : Math.min(end, 200)).trim().split(/[ \t]+/);
  let prog = words[0] ?? '';
  prog = prog.slice(prog.lastIndexOf('/') + 1);
  if (prog === 'env') {
    // `env [-S] [-i] [NAME=value …] program args`
    prog = words.slice(1).find((w) => !w.startsWith('-') && !w.includes('=')) ?? '';
  }
  prog = prog.toLowerCase().replace(/[\d.]+$/, '').replace(/-$/, '');
  return SHEBANG_LANGUAGES[prog] ?? null;
}

/**
 * Language id for a `/`-separated path: by file name, then extension; 'text' when nothing
 * matches. With the file's `text`: a `.h` holding C++ is 'cpp' (cpp-header.ts), and a file
 * without a known extension is named by its `#!` line.
 */
export function detectLanguage(path: string, text?: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const byName = FILENAME_LANGUAGES[name] ?? FILENAME_LANGUAGES[name.toLowerCase()];
  if (byName) return byName;
  if (/^dockerfile\./i.test(name) || /\.dockerfile$/i.test(name)) return 'dockerfile';
  const dot = name.lastIndexOf('.');
  const ext = dot <= 0 || dot === name.length - 1 ? '' : name.slice(dot + 1).toLowerCase();
  const byExt = ext ? EXTENSION_LANGUAGES[ext] : undefined;
  if (byExt) return ext === 'h' && text !== undefined && looksLikeCppHeader(text) ? 'cpp' : byExt;
  return (text !== undefined ? shebangLanguage(text) : null) ?? 'text';
}

/**
 * Whether detectLanguage may answer differently with the file's text than without it (a
 * `.h`, or a name without a known extension): callers that have only the bytes decode them
 * for these paths alone.
 */
export function languageNeedsText(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (FILENAME_LANGUAGES[name] ?? FILENAME_LANGUAGES[name.toLowerCase()]) return false;
  const dot = name.lastIndexOf('.');
  const ext = dot <= 0 || dot === name.length - 1 ? '' : name.slice(dot + 1).toLowerCase();
  return ext === 'h' || !EXTENSION_LANGUAGES[ext];
}

/** Language id → grammar wasm file (in @cursorless/tree-sitter-wasms/out/). Only languages we chunk structurally. */
export const GRAMMARS: Readonly<Record<string, string>> = {
  javascript: 'tree-sitter-javascript.wasm',
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
  python: 'tree-sitter-python.wasm',
  go: 'tree-sitter-go.wasm',
  rust: 'tree-sitter-rust.wasm',
  java: 'tree-sitter-java.wasm',
  c: 'tree-sitter-c.wasm',
  cpp: 'tree-sitter-cpp.wasm',
  csharp: 'tree-sitter-c_sharp.wasm',
  ruby: 'tree-sitter-ruby.wasm',
  php: 'tree-sitter-php.wasm',
  bash: 'tree-sitter-bash.wasm',
  kotlin: 'tree-sitter-kotlin.wasm',
  swift: 'tree-sitter-swift.wasm',
  scala: 'tree-sitter-scala.wasm',
  dart: 'tree-sitter-dart.wasm',
  lua: 'tree-sitter-lua.wasm',
  elixir: 'tree-sitter-elixir.wasm',
  haskell: 'tree-sitter-haskell.wasm',
  zig: 'tree-sitter-zig.wasm',
  perl: 'tree-sitter-perl.wasm',
  r: 'tree-sitter-r.wasm',
  elm: 'tree-sitter-elm.wasm',
  gleam: 'tree-sitter-gleam.wasm',
  clojure: 'tree-sitter-clojure.wasm',
};

/** The web-tree-sitter runtime file every loader must also serve. */
export const RUNTIME_WASM = 'web-tree-sitter.wasm';

/** Every wasm file a loader may be asked for (runtime first). */
export const ALL_WASM_FILES: readonly string[] = [RUNTIME_WASM, ...new Set(Object.values(GRAMMARS))];

/**
 * How a wrapper node relates to the definition inside it. `keep`: the wrapper's own text
 * is part of the signature (`export`, `template <…>`, `declare`); `skip`: it is not
 * (decorators), so the signature starts at the inner definition.
 */
export type WrapperMode = 'keep' | 'skip';

/** Doc comment convention: comments before the symbol, or (Python) a docstring first in the body. */
export type DocStyle = 'preceding' | 'docstring';

export interface LanguageSpec {
  /** Definition node type → chunk type. Functions inside a class-like become 'method'. */
  defs: Readonly<Record<string, ChunkType>>;
  /** Nodes wrapping one definition (the wrapper's range is the chunk's range). */
  wrappers: Readonly<Record<string, WrapperMode>>;
  /** Namespace-like nodes: their body's children are chunked as if top-level, parent = namespace name. */
  namespaces: ReadonlySet<string>;
  /** Variable declarations that may bind a function or class (`const f = () => …`). */
  bindings: ReadonlySet<string>;
  /** Value node types that make a binding a function ('function') or a class ('class'). */
  bindingValues: Readonly<Record<string, ChunkType>>;
  /** Comment node types. */
  comments: ReadonlySet<string>;
  /** Sibling nodes that belong to the definition that follows them (Rust `#[…]`). */
  attributes: ReadonlySet<string>;
  docStyle: DocStyle;
  /**
   * A block doc comment (`/**`) one blank row above a definition is still its doc (JavaScript:
   * express and its kin write `/** … *\/`, a blank line, then `app.use = function use(fn) {…}`).
   */
  blockDocGap?: boolean;
  /** Line-comment prefix used for the `… ` marker in split bodies. */
  lineComment: string;
  /** Refines a definition's chunk type from its node (Go `type X struct`, C typedefs). */
  refine?: (node: SpecNode) => ChunkType | null;
  /**
   * What the parser reads instead of the file's text: the same length, every character at
   * the same index, so positions, lines and names hold for the file's text (C: annotation
   * macros blanked, see maskCAnnotations).
   */
  parseInput?: (text: string) => string;
  /**
   * A second parse input (same contract) for when the first tree's ERROR nodes cover most of
   * the file (C: conditional-compilation lines blanked, see blankCConditionals).
   */
  parseRetry?: (input: string) => string;
  /**
   * Another parse input (same contract), tried on every file it changes; the tree with fewer
   * unread errors is kept, the first on a tie of none (C/C++: a project's macros around definitions
   * blanked, see blankCMacros).
   */
  parseAlternative?: (input: string) => string;
  /**
   * Constants the text defines that are no definition of their own (C/C++: object-like
   * `#define`s, see cObjectMacros), each with the index of its line's start. A chunk lists
   * the ones on its lines in `defines`, so a search for the name finds where it is defined.
   */
  constants?: (text: string) => ConstantDef[];
  /**
   * Constants the tree defines that are no definition of their own (enumerators; Go and Rust
   * `const`s and package-level `var`s; Java `static final` fields and interface constants, C#
   * `const` and `static readonly` fields; module-level JS/TS `const`s, Python UPPER_CASE names
   * (module-level or in a module-level class) and typed module-level Python names), listed in
   * `defines` like `constants`. Each query runs only on the nodes that own one of its keyword tokens
   * (the regex finds them in the text), or on the module's statements of one type, so a file
   * is not searched node by node (a whole-tree query cost a quarter of the parse).
   */
  constantQueries?: readonly ConstantQuery[];
  /**
   * Reads a node of a `defs` type that the tables cannot: its kind, name, qualifier and body
   * (Kotlin names without fields, Lua `function M.f`, Elixir `def` calls, Zig `const X =
   * struct {…}`), that it holds members but is no definition itself (Rust `impl`, Swift
   * `extension`), or (null) that it is no definition. undefined: the tables decide (`refine`,
   * the `name` field, the `body` field).
   */
  read?: (node: SpecNode) => SpecRead | null | undefined;
  /**
   * A class-like definition with members on rows after its header is always cut into header
   * and members, so every member is a definition of its own (a small class is otherwise one
   * chunk whose methods cannot be looked up by name).
   */
  splitMembers?: boolean;
  /** What a function inside a class-like is (default 'method'; Elixir functions stay 'function'). */
  memberFunction?: ChunkType;
  /** Adjacent definitions of one name are one definition (Haskell: signature and equations; Elixir clauses). */
  groupByName?: boolean;
  /** Node types that continue the definition before them as its body (Dart: `function_body` after a signature). */
  bodySiblings?: ReadonlySet<string>;
  /** Node types whose children are items of the container that holds them (Haskell `declarations`). */
  transparent?: ReadonlySet<string>;
  /**
   * Statements that are transparent when a definition is among their children or their blocks'
   * (CONDITIONAL_DEF_DEPTH levels): Python's `if sys.platform == "win32": def spawn(…)` and `try:
   * … except ImportError: def fast(…)`, Ruby's `if defined?(ActionMailer) class Devise::Mailer …`.
   * The parse holds those definitions; without this the whole statement was one piece of code.
   */
  conditional?: ReadonlySet<string>;
  /** Of the nodes of an `attributes` type, those that attach to the definition after them (Elixir `@doc`, `@spec`). */
  isAttribute?: (node: SpecNode) => boolean;
  /** The string an attached attribute documents the definition with (Elixir `@doc """…"""`). */
  attributeDoc?: (node: SpecNode) => SpecNode | null;
  /** The docstring a definition's body opens with (Elixir `@moduledoc`). */
  bodyDoc?: (body: SpecNode) => SpecNode | null;
  /** Anonymous tokens that close the item before them (Scala 3's `end Foo`). */
  closers?: ReadonlySet<string>;
  /** The name a statement gives the definitions after it in its container as their parent (Perl `package X;`), else null. */
  scopeOf?: (node: SpecNode) => string | null;
}



export interface ConstantQuery {
  /**
   * Where the query runs: the parents of these keyword tokens (matched globally, with the
   * regex's other flags; the token is the match's first group that matched, which must end
   * the match, if it has groups, else the match), or `{ statement, lead }`: the root's children of that node
   * type whose text starts with `lead` (sticky; Python has no keyword for an assignment).
   */
  owners: RegExp | {
    statement: string;
    lead: RegExp;
    /** Also the statements of the bodies of module-level definitions of this node type (Python classes). */
    inClasses?: string;
  };
  /** Tree-sitter query; its `@name` captures are the constants (other captures are for predicates). */
  query: string;
  /** The owner is the keyword token's nearest ancestor of this type (at most 3 levels up), not its parent (Java / C# field modifiers). */
  ownerType?: string;
  /** Only owners at module level: children of the root, or of a `wrappers` node that is one (`export const`). */
  topLevel?: boolean;
  /** Match the query at the owner itself only (not at nodes inside it, e.g. a function's local `const`s). */
  atOwner?: boolean;
  /** Only names like this (Python: UPPER_CASE, the convention for a module constant). */
  name?: RegExp;
}

/** A constant's name and an index (into the file's text) on the line it is defined on. */
export interface ConstantDef {
  name: string;
  lineStart: number;
}

const ENUM_KEYWORD = /\benum\b/g;
/** Enumerators of C and C++ enums (named, anonymous, `enum class`). */
const C_ENUMERATORS: ConstantQuery = { owners: ENUM_KEYWORD, query: '(enumerator name: (identifier) @name)' };
/** TypeScript enum members (`A`, `B = 2`). */
const TS_ENUM_MEMBERS: ConstantQuery = {
  owners: ENUM_KEYWORD,
  query: '(enum_body [(property_identifier) @name (enum_assignment name: (property_identifier) @name)])',
};
/**
 * Values that make a module-level `const` a constant: literals, objects, arrays, expressions
 * and calls (`Object.freeze({…})`, `createContext()`), not `require(…)` (an import). Functions
 * and classes bound to a const are definitions already (`bindingValues`).
 */
const JS_CONST_VALUES = '(number) (string) (template_string) (object) (array) (true) (false) (null) (regex) (new_expression) (binary_expression) (unary_expression) (member_expression) (subscript_expression)';
const jsConsts = (extra: string): ConstantQuery => ({
  // Only a `const` that starts its line (after `export`): a module-level one does, and the
  // many local consts are not looked up in the tree.
  owners: /^(?:export[ \t]+)?(const)\b/gm,
  topLevel: true,
  atOwner: true,
  query: `(lexical_declaration (variable_declarator name: (identifier) @name value: [${JS_CONST_VALUES}${extra}]))
    (lexical_declaration (variable_declarator name: (identifier) @name value: (call_expression function: (_) @callee) (#not-eq? @callee "require")))`,
});
/** Module-level `const X = …` (JavaScript). */
const JS_CONSTS = jsConsts('');
/** Module-level `const X = …` (TypeScript: also `… as const`, `… satisfies T`). */
const TS_CONSTS = jsConsts(' (as_expression) (satisfies_expression)');


const JS_COMMON = {
  defs: {
    function_declaration: 'function',
    generator_function_declaration: 'function',
    class_declaration: 'class',
    method_definition: 'method',
    // `app.use = function use(fn) {…}`: readJs (a function or class assigned to a member).
    expression_statement: 'function',
  },
  read: readJs,
  wrappers: { export_statement: 'keep' },
  namespaces: new Set<string>(),
  bindings: new Set(['lexical_declaration', 'variable_declaration', 'field_definition', 'public_field_definition']),
  bindingValues: {
    arrow_function: 'function',
    function_expression: 'function',
    function: 'function',
    generator_function: 'function',
    class: 'class',
  },
  comments: new Set(['comment']),
  attributes: new Set<string>(),
  docStyle: 'preceding',
  blockDocGap: true,
  lineComment: '//',
  constantQueries: [JS_CONSTS],
} satisfies LanguageSpec;

const TS_COMMON: LanguageSpec = {
  ...JS_COMMON,
  defs: {
    ...JS_COMMON.defs,
    abstract_class_declaration: 'class',
    interface_declaration: 'interface',
    type_alias_declaration: 'type',
    enum_declaration: 'enum',
    function_signature: 'function',
    abstract_method_signature: 'method',
  },
  wrappers: { export_statement: 'keep', ambient_declaration: 'keep' },
  namespaces: new Set(['internal_module', 'module']),
  constantQueries: [TS_ENUM_MEMBERS, TS_CONSTS],
};

/** Go `type X struct {…}` / `interface {…}` / other. */
function refineGo(node: SpecNode): ChunkType | null {
  if (node.type !== 'type_declaration') return null;
  const spec = node.namedChild(0);
  const type = spec?.childForFieldName('type')?.type;
  if (type === 'struct_type') return 'struct';
  if (type === 'interface_type') return 'interface';
  return 'type';
}

/** C/C++ `typedef struct {…} x;` is a struct, `typedef enum …` an enum, other typedefs types. */
function refineC(node: SpecNode): ChunkType | null {
  if (node.type !== 'type_definition') return null;
  const inner = node.childForFieldName('type');
  if (inner?.childForFieldName('body')) {
    if (inner.type === 'struct_specifier' || inner.type === 'union_specifier') return 'struct';
    if (inner.type === 'enum_specifier') return 'enum';
    if (inner.type === 'class_specifier') return 'class';
  }
  return 'type';
}

/**
 * Annotation macros of C code (Linux's compiler_attributes.h, init.h, linkage.h and the GCC
 * attribute shorthands other projects copy). tree-sitter does not expand macros, so
 * `static int __init foo_init(void)` parses as the declaration `int __init` followed by
 * junk, and `__alloc_size(1) void *kmalloc(…)` as a function named `__alloc_size`: the
 * definition gets no name or a wrong one. Only names that are never a type or a function.
 */
const C_ANNOTATIONS = [
  'asmlinkage', '__visible', 'notrace', 'noinline', 'nokprobe_inline', '__always_inline', '__noinline', '__inline',
  '__init', '__exit', '__initdata', '__exitdata', '__initconst', '__init_or_module', '__meminit', '__meminitdata',
  '__ref', '__refdata', '__net_init', '__net_exit', '__sched', '__kprobes', '__cpuidle', '__irq_entry', '__ro_after_init',
  '__cold', '__hot', '__weak', '__must_check', '__maybe_unused', '__always_unused', '__used', '__pure', '__malloc',
  '__noreturn', '__latent_entropy', '__flatten', '__attribute_const__', '__deprecated', '__read_mostly', '__packed',
  '__iomem', '__user', '__rcu', '__percpu', '__force', '__bitwise', '__must_hold', '__acquires', '__releases',
  '__printf', '__scanf', '__alloc_size', '__assume_aligned', '__section', '__aligned', '__cacheline_aligned',
];
const C_ANNOTATION_WORD = `\\b(?:${C_ANNOTATIONS.join('|')})\\b`;
/** An annotation, with its `( … )` arguments (one nesting level) when it has them. */
const C_ANNOTATION = new RegExp(`${C_ANNOTATION_WORD}(?:[ \\t]*\\((?:[^()\\n]|\\([^()\\n]*\\))*\\))?`, 'g');

/**
 * A reserved name (two or more leading underscores), with its `( … )` arguments, other than
 * GNU C's own `__attribute__` / `__declspec` (the grammar reads those).
 */
const C_RESERVED_NAME = /(?<![\w$])_{2,}(?!attribute__\b|declspec\b)[A-Za-z]\w*(?:[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))?/g;
/** What may stay on a `}` line once its annotations are gone: `;`, an attribute, a comment. */
const C_BRACE_REST = /^\}[ \t;]*(?:__attribute__.*|\/[/*].*)?$/;
const blank = (m: string) => ' '.repeat(m.length);

/**
 * C/C++ parse input: annotation macros blanked (spaces) on lines that start in column 0
 * with a word — definition and declaration headers, `} __packed;` — never inside comments
 * or indented code, so comment and doc text read from the tree stay the file's own.
 * After the closing brace of a type (`} __randomize_layout;`, `} ____cacheline_aligned_in_smp;`,
 * a project's own `} __ec_align4;`), any reserved name is an annotation: the grammar would read
 * it as a variable of the struct's type, and the struct would get no name. Only when nothing but
 * `;`, an attribute or a comment is left, so `} __x = { … };` stays a variable.
 */
export function maskCAnnotations(text: string): string {
  // The annotations first: they are read on lines that start in column 0, which blanking a
  // head macro (`STATIC int __init`) would no longer.
  return maskCHeadMacros(maskCAnnotationLines(maskCTypeMacros(text)));
}

/** A line maskCAnnotationLines may change: it starts in column 0 with a word or a `}`. */
const C_ANNOTATION_LINE = /^[A-Za-z_}].*$/gm;
const wordOrBrace = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 125;

/** maskCAnnotations' line pass: the lines of C_ANNOTATION_LINE with their annotations blanked. */
function maskCAnnotationLines(text: string): string {
  // The lines are found a line at a time (line-scan.ts), not by trying C_ANNOTATION_LINE at
  // every offset of the text.
  return replaceLineMatches(text, C_ANNOTATION_LINE, wordOrBrace, ([line]) => {
    const masked = line.replace(C_ANNOTATION, blank);
    if (!masked.startsWith('}')) return masked;
    const braced = masked.replace(C_RESERVED_NAME, blank);
    return C_BRACE_REST.test(braced) ? braced : masked;
  });
}

/** A module line, or a constant assigned (`Worker = Job`, `Point = Struct.new(:x, :y)`, `VERSION = "1.0"`): not `==`, `=~`, `=>`. */
const RUBY_MODULE_OR_CONSTANT = /^([ \t]*)(?:module[ \t]+((?:::)?[A-Z]\w*(?:::[A-Z]\w*)*)|([A-Z]\w*)[ \t]*=(?![=~>]))/gm;

/**
 * Ruby modules and constants. A module is a namespace of its members and a definition of its own
 * name (`module MultiRoute`, `module Sinatra` reopened in every file of a gem, `module
 * Rack::Protection`). Each is listed by its name and by its qualified name (`Sinatra::Helpers`:
 * the modules it is written inside, read from indentation, which Ruby code keeps), so a lookup
 * of `Sinatra::Helpers` finds base.rb's `module Helpers`, not `RespondWith::Helpers`. A constant
 * assigned at a module's or class's level defines its name the same way (sidekiq's `Worker =
 * Job` is `Sidekiq::Worker`; a `Struct.new` or `Class.new` value is a class): the parse names
 * only methods, classes and modules. A constant is qualified by the modules around it (a class
 * between them is not tracked).
 */
export function rubyModules(text: string): ConstantDef[] {
  const out: ConstantDef[] = [];
  const open: Array<{ indent: number; name: string }> = [];
  for (const m of text.matchAll(RUBY_MODULE_OR_CONSTANT)) {
    const indent = m[1]!.replace(/\t/g, '  ').length;
    while (open.length && open[open.length - 1]!.indent >= indent) open.pop();
    const written = (m[2] ?? m[3]!).replace(/^::/, '');
    const qualified = [...open.map((o) => o.name), written].join('::');
    const last = written.slice(written.lastIndexOf(':') + 1);
    for (const name of new Set([last, written, qualified])) out.push({ name, lineStart: m.index! });
    if (m[2]) open.push({ indent, name: written });
  }
  return out;
}

/**
 * LuaLS / EmmyLua type annotations, Lua's only type declarations: `---@class LazyPlugin: Base`,
 * `---@class (exact) Opts`, `---@alias PluginOpts table|fun(…)`, `---@enum Kind`. The parse sees
 * comments and names nothing, so a lookup of `LazyPlugin` found a user of the type (a function's
 * `---@param plugin LazyPlugin`) before the annotation that declares it. A dotted name
 * (`---@class vim.lsp.Client`) is listed as written and by its last segment when that is a type's
 * capitalised name (not `opts` of `telescope.builtin.find_files.opts`).
 */
const LUA_TYPE_ANNOTATION = /^[ \t]*---[ \t]*@(?:class|alias|enum)[ \t]+(?:\([^)\n]*\)[ \t]*)?([A-Za-z_][\w.]*\w)/gm;

export function luaTypeAnnotations(text: string): ConstantDef[] {
  const out: ConstantDef[] = [];
  if (!text.includes('---')) return out;
  for (const m of text.matchAll(LUA_TYPE_ANNOTATION)) {
    const written = m[1]!;
    // `vim.lsp.Client` is also `Client`; `telescope.builtin.find_files.opts` is not `opts`.
    const last = written.slice(written.lastIndexOf('.') + 1);
    for (const name of new Set([/^\p{Lu}/u.test(last) ? last : written, written])) out.push({ name, lineStart: m.index! });
  }
  return out;
}

/**
 * C/C++ second reading (parseAlternative): a project's own macro statement lines blanked
 * (maskCMacroLines). Unlike the annotations these are not known names, and blanking one of a
 * pair (`FMT_BEGIN_NAMESPACE` … `FMT_END_NAMESPACE`) can turn a local error into one that
 * covers the file, so the chunker keeps this reading only when it parses no worse.
 */
export function blankCMacros(input: string): string {
  return maskCMacroLines(input);
}

/**
 * An export or attribute macro between `class` / `struct` / `union` and the name
 * (`class PROTOBUF_EXPORT Message : public MessageLite`, `class FMT_SO_VISIBILITY("default") format_error`,
 * `struct PACKED hdr {`): upper case, then the name, then what a definition head goes on with
 * (`final`, `:`, `{`, `<`, the end of the line). The grammar reads the macro as the name, or
 * the base class as the name; blanked, the name is the type's.
 */
const C_TYPE_MACRO = /^([ \t]*(?:template[ \t]*<.*>[ \t]*)?(?:class|struct|union)[ \t]+)([A-Z][A-Z0-9_]*[A-Z0-9_](?:\([^()\n]*\))?)(?=[ \t]+[A-Za-z_]\w*[ \t]*(?:final\b[ \t]*)?(?::(?!:)|\{|<|$|\/[/*]))/gm;

/**
 * Upper-case macros that open a declaration before a specifier or a built-in type
 * (`FMT_CONSTEXPR auto parse(…)`, `FMT_NODISCARD FMT_INLINE auto format(…)`, `FMT_API void
 * vprint(…)`, `JSON_HEDLEY_RETURNS_NON_NULL static const char* type_name()`, `STATIC int INIT
 * unlzma(…)`, after a `template <…>` on the same line): an attribute, an export or a
 * `constexpr` spelled for old compilers. No type name goes before `static`, `inline`, `void`,
 * `auto`, … , so the word is no type; unexpanded, the grammar reads it as the declaration's
 * type and the real one as an error, and enough of them turn the file into one ERROR node
 * (fmt's ranges.h: `join_view` and `is_container_adaptor` were no definitions). `const` is left
 * out (`T const&`), and so are one- and two-letter words (template parameters).
 */
const C_HEAD_MACRO_WORD = String.raw`[A-Z_][A-Z0-9_]*[A-Z0-9_]`;
/** The words that may follow such macros: no type name goes before them. */
const C_HEAD_KEYWORDS = '(?:static|inline|constexpr|consteval|constinit|virtual|explicit|friend|extern|void|auto|bool|char|int|float|double|template|class|struct|union|typename)\\b';
const C_HEAD_MACRO = new RegExp(
  String.raw`^([ \t]*(?:template[ \t]*<.*>[ \t]*)?)((?:(?=[A-Z_][A-Z0-9_]{2})${C_HEAD_MACRO_WORD}(?:[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))?[ \t]+)+)` +
    `(?=${C_HEAD_KEYWORDS})`,
  'gm',
);
/** A cheap test for a text with neither C_HEAD_MACRO's nor C_IF_MACRO's form (most files): left as it is. */
const C_HEAD_HINT = new RegExp(String.raw`[A-Z0-9_)][ \t]+${C_HEAD_KEYWORDS}|\bif[ \t]+[A-Z_]`);
/** `if FMT_CONSTEXPR20 (…)`: `if constexpr` spelled as a macro, which the grammar cannot read. */
const C_IF_MACRO = /(?<!#[ \t]*)(\bif[ \t]+)([A-Z_][A-Z0-9_]*[A-Z0-9_])(?=[ \t]*\()/g;

/** The first letter of C_TYPE_MACRO's line: `template`, `class`, `struct` or `union`. */
const typeHeadLetter = (c: number) => c === 116 || c === 99 || c === 115 || c === 117;

function maskCTypeMacros(text: string): string {
  return replaceLineMatches(text, C_TYPE_MACRO, typeHeadLetter, ([, head, macro]) => head! + blank(macro!));
}

function maskCHeadMacros(typed: string): string {
  if (!C_HEAD_HINT.test(typed)) return typed;
  const learned = new Set<string>();
  const heads = typed.replace(C_HEAD_MACRO, (_, head: string, macros: string) => {
    for (const w of macros.match(/[A-Z_][A-Z0-9_]*/g) ?? []) learned.add(w);
    return head + blank(macros);
  });
  const masked = heads.replace(C_IF_MACRO, (_, head: string, macro: string) => head + blank(macro));
  if (learned.size === 0) return masked;
  // The same words before a constructor or a user-defined return type (`FMT_CONSTEXPR
  // join_view(It b, …)`, `FMT_API format_error(…)`), once the file has shown them to be annotations.
  return masked.replace(C_LEARNED_HEAD, (all: string, head: string, words: string) =>
    words.split(/[ \t]+/).filter(Boolean).every((w) => learned.has(w.replace(/\(.*$/s, ''))) ? head + blank(words) : all);
}

/** One or more upper-case words (with arguments) opening a line before a name (C_HEAD_MACRO's learned words). */
const C_LEARNED_HEAD = new RegExp(
  String.raw`^([ \t]*(?:template[ \t]*<.*>[ \t]*)?)((?:${C_HEAD_MACRO_WORD}(?:[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))?[ \t]+)+)(?=~?[A-Za-z_]\w*(?:[ \t]*\(|[ \t]*<|[ \t]*::|[ \t]+[A-Za-z_*&]))`,
  'gm',
);

/**
 * A line that is one upper-case name alone (a trailing comment allowed): a macro used as a
 * statement, or as an access specifier (`JSON_PRIVATE_UNLESS_TESTED:`).
 */
const C_MACRO_LINE = /^[ \t]*[A-Z_][A-Z0-9_]*[A-Z0-9][ \t]*(?::(?!:)[ \t]*)?(?:\/\/.*|\/\*.*\*\/[ \t]*)?$/m;

/**
 * Lines that hold one upper-case macro name and nothing else (`NLOHMANN_JSON_NAMESPACE_BEGIN`,
 * `FMT_BEGIN_NAMESPACE`, `G_BEGIN_DECLS`, `NLOHMANN_BASIC_JSON_TPL_DECLARATION`, `Q_OBJECT`) are
 * the access-specifier macros of a class (`JSON_PRIVATE_UNLESS_TESTED:`, an ERROR node that
 * took the whole class with it) and macro calls alone at the start of a line without a `;`
 * (`FMT_PRAGMA_CLANG(diagnostic ignored "…")`, not before a `{`: `TEST(a, b)` then its body)
 * are blanked where a declaration may start: after a line that ends a statement, a block or a
 * comment (`;`, `{`, `}`, `:`, `*\/`), a preprocessor line, or nothing, and not before `}`, `,`
 * or `=`. Unexpanded, the grammar glues the macro to the next declaration (`namespace detail`
 * named as a declaration of type NLOHMANN_JSON_NAMESPACE_BEGIN, the class after it named by
 * its base class). An enumerator alone on its line follows a `,` or comes before the `}`: kept.
 */
/** A macro call alone at the start of a line, no `;` (`FMT_PRAGMA_CLANG(diagnostic push)`). */
const C_MACRO_CALL_LINE = /^[A-Z_][A-Z0-9_]*[ \t]*\([^;{}\n]*\)[ \t]*(?:\/\/.*)?$/m;

/** A character a C_MACRO_LINE / C_MACRO_CALL_LINE line starts its text with: `A`–`Z` or `_`. */
const upperOrUnderscore = (c: number) => (c >= 65 && c <= 90) || c === 95;

function maskCMacroLines(text: string): string {
  if (!someLineMatches(text, [C_MACRO_LINE, C_MACRO_CALL_LINE], upperOrUnderscore)) return text;
  const lines = text.split('\n');
  const code = (line: string) => line.replace(/\/\/.*$/, '').replace(/\/\*.*?\*\/[ \t]*$/, '').trim();
  let prev = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const c = code(line);
    const call = C_MACRO_CALL_LINE.test(line);
    if (c && (call || C_MACRO_LINE.test(line)) && !/\\$/.test(prev) && (prev === '' || prev.startsWith('#') || /(?:[;{}:]|\*\/)$/.test(prev))) {
      let next = '';
      for (let j = i + 1; j < lines.length && !next; j++) next = code(lines[j]);
      if (!(call ? /^[{},=]/ : /^[},=]/).test(next)) {
        lines[i] = blank(line.replace(/\r$/, '')) + (line.endsWith('\r') ? '\r' : '');
        continue;
      }
    }
    if (c) prev = c;
  }
  return lines.join('\n');
}

/**
 * C/C++ retry input: `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` lines blanked.
 * tree-sitter reads a conditional only where a whole statement or declaration fits, so an
 * `#ifdef` inside an expression (`if (\n#ifdef CONFIG_KEYS\n a &&\n#endif\n b)`) turns the
 * rest of the file into one ERROR node; without the lines the parser sees both branches
 * as plain code, which usually parses (measured on the kernel subset: about half of the
 * files that fell back to text parse this way).
 */
export function blankCConditionals(text: string): string {
  return text.replace(/^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b.*$/gm, (line) => ' '.repeat(line.length));
}

/** An attribute on one line (`#[inline]`, `#[cfg_attr(x, y)]`), brackets nested one deep. */
const RUST_ATTRIBUTE = /#!?\[(?:[^[\]\n]|\[[^[\]\n]*\])*\]/g;

/**
 * A second reading of a Rust file whose tree is mostly errors (chunker.ts parseRetry), same
 * length and line breaks: the nightly syntax the standard library writes and the grammar does not
 * read is blanked — `~const` bounds (`A: ~const Allocator`), `box x`, and an attribute with code
 * before or after it on its line (on a generic parameter, `#[unstable(…)] A: Allocator = Global`;
 * on an expression, `(#[cfg_attr(…)] Box::new(x))`). An attribute alone on its line (an item's)
 * stays. `alloc/boxed.rs` of Rust 1.63 (Box and its 40 documented functions) was all text.
 */
export function maskRustGaps(text: string): string {
  const lines = text.replace(/~const\b/g, blank).split('\n').map((line) => (line.includes('#') ? line.replace(RUST_ATTRIBUTE, (m, at: number) => {
    const after = line.slice(at + m.length).trimStart();
    return line.slice(0, at).trim() || (after && !after.startsWith('//') && !after.startsWith('#[')) ? blank(m) : m;
  }) : line));
  return lines.join('\n').replace(/(?<![\p{L}\p{N}_.])box(?=[ \t]+[\p{L}\p{N}_([{&*|])/gu, blank);
}

/**
 * A second reading of a TSX file whose tree is mostly errors (chunker.ts parseRetry), same length
 * and same line breaks: `typeof this` in a type (`let d: (typeof this._deferred)[number]`), which
 * the grammar does not read, becomes `typeof self` (xstate's `createActor.ts`, its Actor class,
 * was all text).
 */
export function maskTsxGaps(text: string): string {
  return text.replace(/\btypeof(\s+)this\b/g, 'typeof$1self');
}

/**
 * A second reading of a TypeScript file whose tree is mostly errors: maskTsxGaps, and a member
 * written on a line that opens with `<` (an interface's call signature `<T>(text: T): R` after
 * another member) is read by the grammar as the previous line's type continued (`R<T>…`), and
 * the whole file becomes one ERROR node (hono's `context.ts` and `types.ts`). The indent's first
 * character becomes `;` when the previous line ends a member (not with `,`, an opening bracket or
 * an operator). Not for TSX, where such a line is JSX.
 */
export function maskTsGaps(text: string): string {
  return maskTsxGaps(text).replace(/(?<=[^\s,({[<|&=:?]\n)[ \t](?=[ \t]*<)/g, ';');
}

/**
 * A second reading of a Kotlin file whose tree is mostly errors (chunker.ts parseRetry): the
 * grammar's gaps that turn a whole file into one ERROR node are blanked, same length and
 * same line breaks, so every index stays the file's own:
 * - an assignment to a property or an element of a call's result (`res().contentType = x`,
 *   `f()[0] = x`): `.contentType =` becomes `;` and spaces, two statements it reads
 *   (javalin's `http/Context.kt`, its central interface, was all text);
 * - `fun interface` (a functional interface): `fun` blanked;
 * - a delegation in an object expression (`object : Source by buffer {`): ` by buffer` blanked.
 */
export function maskKotlinGaps(text: string): string {
  return text
    .replace(/(?<=\))[ \t]*(?:\.[ \t]*[\p{L}_][\p{L}\p{N}_]*|\[[^\]\n]*\])[ \t]*=(?![=>])/gu, (m) => `;${blank(m.slice(1))}`)
    .replace(/\bfun(?=[ \t]+interface\b)/g, blank)
    .replace(/(?<=\bobject[ \t]*:[ \t]*[\p{L}\p{N}_.<>, ]+?)[ \t]+by[ \t]+[\p{L}\p{N}_.]+(?=[ \t]*\{)/gu, blank);
}

const C_DEFINE = /^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)(\(?)([^\n]*)/gm;
const C_GUARD = /^[ \t]*#[ \t]*(?:ifndef[ \t]+([A-Za-z_][A-Za-z0-9_]*)|if[ \t]+!?[ \t]*defined[ \t]*\(?[ \t]*([A-Za-z_][A-Za-z0-9_]*))/;

/**
 * C/C++ constants: every object-like `#define NAME …` (no `(` right after the name) at the
 * start of a line, except include guards (`#ifndef X` / `#if !defined(X)` on the line before
 * an empty `#define X`). Function-like macros are definitions already (C_DEFS).
 */
export function cObjectMacros(text: string): ConstantDef[] {
  const out: ConstantDef[] = [];
  if (!text.includes('define')) return out;
  for (const m of needleLineMatches(text, C_DEFINE, 'define')) {
    if (m[2]) continue;
    const name = m[1]!;
    const lineStart = m.index!;
    if (m[3]!.trim() === '' && isGuard(text, lineStart, name)) continue;
    out.push({ name, lineStart });
  }
  return out;
}

/** Is the last non-blank line before `lineStart` `#ifndef name` (or `#if !defined(name)`)? */
function isGuard(text: string, lineStart: number, name: string): boolean {
  let end = lineStart - 1;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    if (line.trim() !== '') {
      const g = C_GUARD.exec(line);
      return !!g && (g[1] ?? g[2]) === name;
    }
    end = start - 1;
  }
  return false;
}

const C_DEFS: Record<string, ChunkType> = {
  function_definition: 'function',
  struct_specifier: 'struct',
  union_specifier: 'struct',
  enum_specifier: 'enum',
  type_definition: 'type',
  // Function-like macros are what C code calls like functions (`list_for_each_entry`,
  // `min_t`): definitions with their own name. Object-like `#define`s stay in module chunks.
  preproc_function_def: 'function',
};

const NO_BINDINGS = { bindings: new Set<string>(), bindingValues: {} };

/** The common part of the languages whose class-likes are always cut into members (LanguageSpec.splitMembers). */
const MEMBER_LANGUAGE = {
  wrappers: {},
  namespaces: new Set<string>(),
  ...NO_BINDINGS,
  attributes: new Set<string>(),
  docStyle: 'preceding',
  lineComment: '//',
  splitMembers: true,
} satisfies Omit<LanguageSpec, 'defs' | 'comments'>;

export const LANGUAGE_SPECS: Readonly<Record<string, LanguageSpec>> = {
  javascript: JS_COMMON,
  typescript: { ...TS_COMMON, parseRetry: maskTsGaps },
  tsx: { ...TS_COMMON, parseRetry: maskTsxGaps },
  python: {
    defs: { function_definition: 'function', class_definition: 'class' },
    wrappers: { decorated_definition: 'skip' },
    conditional: new Set(['if_statement', 'elif_clause', 'else_clause', 'try_statement', 'except_clause', 'finally_clause', 'block']),
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'docstring',
    lineComment: '#',
    // Module-level `NAME = …` / `NAME: T = …` with an UPPER_CASE name (PEP 8's constants), and
    // the same in a module-level class's body (`class HTTPStatus(IntEnum): NOT_FOUND = 404, …`).
    // And any module-level name declared with a type (`current_app: FlaskProxy = LocalProxy(…)`,
    // `_registry: dict[str, Codec] = {}`): a lookup of Flask's `current_app` found its users, never
    // `globals.py`. Not every binding: `getstate = _inst.getstate` (random.py) and `help =
    // Helper()` (pydoc.py) would take those names' lookups from their `def`s (session 18).
    constantQueries: [{
      owners: { statement: 'expression_statement', lead: /_*[A-Z][A-Z0-9_]*\s*[:=]/y, inClasses: 'class_definition' },
      atOwner: true,
      query: '(expression_statement (assignment left: (identifier) @name))',
      name: /^_*[A-Z][A-Z0-9_]*$/,
    }, {
      owners: { statement: 'expression_statement', lead: /[A-Za-z_][A-Za-z0-9_]*\s*:/y },
      atOwner: true,
      query: '(expression_statement (assignment left: (identifier) @name type: (_)))',
    }],
  },
  go: {
    defs: { function_declaration: 'function', method_declaration: 'method', type_declaration: 'type' },
    wrappers: {},
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '//',
    refine: refineGo,
    constantQueries: [
      { owners: /\bconst\b/g, query: '(const_spec (identifier) @name)' },
      // Package-level `var`s (`var ErrShutdown = errors.New(…)`, `var ( … )`), not a function's.
      { owners: /^(var)\b/gm, topLevel: true, atOwner: true, query: '(var_declaration (var_spec (identifier) @name))' },
    ],
  },
  rust: {
    defs: {
      function_item: 'function',
      function_signature_item: 'function',
      struct_item: 'struct',
      union_item: 'struct',
      enum_item: 'enum',
      trait_item: 'interface',
      impl_item: 'class',
      type_item: 'type',
      macro_definition: 'function',
    },
    wrappers: {},
    namespaces: new Set(['mod_item']),
    ...NO_BINDINGS,
    comments: new Set(['line_comment', 'block_comment']),
    attributes: new Set(['attribute_item']),
    // An `impl` defines nothing itself: its functions are methods of the type it is for.
    read: readRust,
    parseRetry: maskRustGaps,
    docStyle: 'preceding',
    lineComment: '//',
    constantQueries: [{
      owners: /\b(?:enum|const|static)\b/g,
      query: '(enum_variant name: (identifier) @name) (const_item name: (identifier) @name) (static_item name: (identifier) @name)',
    }],
  },
  java: {
    defs: {
      class_declaration: 'class',
      record_declaration: 'class',
      interface_declaration: 'interface',
      annotation_type_declaration: 'interface',
      enum_declaration: 'enum',
      method_declaration: 'method',
      constructor_declaration: 'method',
    },
    wrappers: {},
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['line_comment', 'block_comment', 'comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '//',
    constantQueries: [
      { owners: ENUM_KEYWORD, query: '(enum_constant name: (identifier) @name)' },
      // `static final` fields (`public static final int MAX_SIZE = 10;`, or `final static`),
      // not locals: `final` alone is on most locals.
      {
        owners: /\b(?:static\s+(final)|final\s+(static))\b/g,
        ownerType: 'field_declaration',
        atOwner: true,
        query: '(field_declaration declarator: (variable_declarator name: (identifier) @name))',
      },
      // An interface's fields are constants, with or without `static final`.
      { owners: /\b(interface)\b/g, query: '(interface_body (constant_declaration declarator: (variable_declarator name: (identifier) @name)))' },
    ],
  },
  c: {
    defs: C_DEFS,
    wrappers: {},
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '//',
    refine: refineC,
    parseInput: maskCAnnotations,
    parseRetry: blankCConditionals,
    parseAlternative: blankCMacros,
    constants: cObjectMacros,
    constantQueries: [C_ENUMERATORS],
  },
  cpp: {
    defs: { ...C_DEFS, class_specifier: 'class' },
    wrappers: { template_declaration: 'keep' },
    namespaces: new Set(['namespace_definition', 'linkage_specification']),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '//',
    refine: refineC,
    parseInput: maskCAnnotations,
    parseRetry: blankCConditionals,
    parseAlternative: blankCMacros,
    constants: cObjectMacros,
    constantQueries: [C_ENUMERATORS],
  },
  csharp: {
    defs: {
      class_declaration: 'class',
      record_declaration: 'class',
      struct_declaration: 'struct',
      record_struct_declaration: 'struct',
      interface_declaration: 'interface',
      enum_declaration: 'enum',
      delegate_declaration: 'type',
      method_declaration: 'method',
      constructor_declaration: 'method',
      destructor_declaration: 'method',
      operator_declaration: 'method',
      local_function_statement: 'function',
    },
    wrappers: {},
    namespaces: new Set(['namespace_declaration']),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '//',
    constantQueries: [
      { owners: ENUM_KEYWORD, query: '(enum_member_declaration name: (identifier) @name)' },
      // `const` fields (`public const int Max = 5;`), not local consts.
      {
        owners: /\b(const)\b/g,
        ownerType: 'field_declaration',
        atOwner: true,
        query: '(field_declaration (modifier) @m (variable_declaration (variable_declarator (identifier) @name)) (#eq? @m "const"))',
      },
      // `static readonly` fields (`public static readonly TimeSpan DefaultTimeout = …;`), C#'s
      // constants of types `const` cannot hold.
      {
        owners: /\b(readonly)\b/g,
        ownerType: 'field_declaration',
        atOwner: true,
        query: '(field_declaration (modifier) @s (modifier) @r (variable_declaration (variable_declarator (identifier) @name)) (#eq? @s "static") (#eq? @r "readonly"))',
      },
    ],
  },
  ruby: {
    defs: { method: 'function', singleton_method: 'function', class: 'class' },
    wrappers: {},
    conditional: new Set(['if', 'unless', 'then', 'else', 'elsif', 'begin', 'rescue', 'ensure']),
    namespaces: new Set(['module']),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '#',
    constants: rubyModules,
  },
  php: {
    defs: {
      function_definition: 'function',
      method_declaration: 'method',
      class_declaration: 'class',
      trait_declaration: 'class',
      interface_declaration: 'interface',
      enum_declaration: 'enum',
    },
    wrappers: {},
    namespaces: new Set(['namespace_definition']),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '//',
  },
  bash: {
    defs: { function_definition: 'function' },
    wrappers: {},
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '#',
  },
  kotlin: {
    ...MEMBER_LANGUAGE,
    // Kotlin's grammar has no name or body fields: readKotlin finds them.
    defs: {
      class_declaration: 'class', object_declaration: 'class', companion_object: 'class',
      function_declaration: 'function', type_alias: 'type',
    },
    comments: new Set(['line_comment', 'multiline_comment']),
    read: readKotlin,
    parseRetry: maskKotlinGaps,
    constantQueries: [
      { owners: ENUM_KEYWORD, query: '(enum_entry (simple_identifier) @name)' },
      // `const val MAX = 8` (top level, objects, companions).
      { owners: /\bconst\s+(val)\b/g, ownerType: 'property_declaration', atOwner: true, query: '(property_declaration (variable_declaration (simple_identifier) @name))' },
    ],
  },
  swift: {
    ...MEMBER_LANGUAGE,
    defs: {
      class_declaration: 'class', protocol_declaration: 'interface', function_declaration: 'function',
      protocol_function_declaration: 'function', typealias_declaration: 'type',
    },
    comments: new Set(['comment', 'multiline_comment']),
    read: readSwift,
    constantQueries: [{ owners: /\b(case)\b/g, query: '(enum_entry name: (simple_identifier) @name)' }],
  },
  scala: {
    ...MEMBER_LANGUAGE,
    defs: {
      class_definition: 'class', object_definition: 'class', trait_definition: 'interface', enum_definition: 'enum',
      function_definition: 'function', function_declaration: 'function', type_definition: 'type', extension_definition: 'method',
    },
    comments: new Set(['comment', 'block_comment']),
    closers: new Set(['end', '_end_ident']),
    read: readScala,
  },
  dart: {
    ...MEMBER_LANGUAGE,
    defs: {
      class_definition: 'class', mixin_declaration: 'class', extension_declaration: 'class', enum_declaration: 'enum',
      type_alias: 'type', function_signature: 'function', method_signature: 'method', declaration: 'method',
    },
    comments: new Set(['comment', 'documentation_comment']),
    attributes: new Set(['annotation']),
    // A Dart function is a signature node followed by a sibling body node.
    bodySiblings: new Set(['function_body']),
    read: readDart,
    constantQueries: [{ owners: ENUM_KEYWORD, query: '(enum_constant name: (identifier) @name)' }],
  },
  lua: {
    defs: { function_declaration: 'function', variable_declaration: 'function', assignment_statement: 'function' },
    wrappers: {},
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '--',
    read: readLua,
    constants: luaTypeAnnotations,
    // A module's tables (`M.defaults = { … }`, `actions.select_default = { … }`): what a caller names.
    constantQueries: [{
      owners: { statement: 'assignment_statement', lead: /[A-Za-z_]\w*\.[A-Za-z_]\w*[ \t]*=[ \t]*\{/y },
      atOwner: true,
      query: '(assignment_statement (variable_list name: (dot_index_expression field: (identifier) @name)) (expression_list value: (table_constructor)))',
    }],
  },
  elixir: {
    ...MEMBER_LANGUAGE,
    // Every definition is a call (`defmodule`, `def`, …): readElixir tells which.
    defs: { call: 'function' },
    comments: new Set(['comment']),
    attributes: new Set(['unary_operator']),
    isAttribute: elixirIsAttribute,
    attributeDoc: elixirAttributeDoc,
    bodyDoc: elixirBodyDoc,
    memberFunction: 'function',
    groupByName: true,
    lineComment: '#',
    read: readElixir,
  },
  haskell: {
    ...MEMBER_LANGUAGE,
    defs: {
      function: 'function', bind: 'function', signature: 'function', data_type: 'type', newtype: 'type',
      type_synomym: 'type', type_family: 'type', data_family: 'type', class: 'interface', instance: 'class',
      pattern_synonym: 'function',
    },
    transparent: new Set(['declarations']),
    comments: new Set(['comment', 'haddock']),
    groupByName: true,
    lineComment: '--',
    read: readHaskell,
  },
  zig: {
    ...MEMBER_LANGUAGE,
    defs: { function_declaration: 'function', variable_declaration: 'struct' },
    comments: new Set(['comment']),
    read: readZig,
  },
  perl: {
    defs: { function_definition: 'function', package_statement: 'class' },
    wrappers: {},
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['comments', 'pod_statement']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '#',
    memberFunction: 'function',
    read: readPerl,
    scopeOf: perlScope,
  },
  r: {
    defs: { binary_operator: 'function', call: 'function' },
    wrappers: {},
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '#',
    read: readR,
  },
  elm: {
    defs: {
      value_declaration: 'function', type_annotation: 'function', port_annotation: 'function',
      type_declaration: 'type', type_alias_declaration: 'type',
    },
    wrappers: {},
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['line_comment', 'block_comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '--',
    groupByName: true,
    read: readElm,
  },
  gleam: {
    defs: { function: 'function', type_definition: 'enum', type_alias: 'type' },
    wrappers: {},
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['comment', 'statement_comment', 'module_comment']),
    attributes: new Set(['attribute']),
    docStyle: 'preceding',
    lineComment: '//',
    read: readGleam,
    constantQueries: [{ owners: /\b(const)\b/g, atOwner: true, query: '(constant name: (identifier) @name)' }],
  },
  clojure: {
    // Every definition is a list: readClojure tells which (`defn`, `defrecord`, …).
    defs: { list_lit: 'function' },
    wrappers: {},
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: ';;',
    read: readClojure,
    bodyDoc: clojureBodyDoc,
    scopeOf: clojureScope,
    // `(def max-size 10)`, `(defonce state (atom {}))` at the top level.
    constantQueries: [{
      owners: { statement: 'list_lit', lead: /\((?:def|defonce)\s/y },
      atOwner: true,
      query: '(list_lit . (sym_lit name: (sym_name) @kw) . (sym_lit name: (sym_name) @name) (#match? @kw "^def(once)?$"))',
    }],
  },
};

/** Chunk types whose bodies hold members (methods get this symbol as parent). */
export const CLASS_LIKE: ReadonlySet<ChunkType> = new Set(['class', 'struct', 'interface', 'enum']);

/** Line-comment prefix for a language id (used for markers), '//' when unknown. */
export function lineCommentFor(language: string): string {
  return LANGUAGE_SPECS[language]?.lineComment ?? '//';
}
