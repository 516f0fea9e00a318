/**
 * Language identification and the per-language tables the chunker reads.
 *
 * Owns: path → language id, language id → grammar file, and for each structurally
 * chunked language which tree-sitter node types are definitions (and of what kind),
 * which wrap a definition, which are transparent namespaces, and how comments look.
 *
 * Invariants: every key of GRAMMARS has a LANGUAGE_SPECS entry and vice versa; ids are
 * lower-case and stable (they are stored in the index and used by `lang:` filters).
 */
import type { ChunkType } from '../types.ts';

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

/** Language id for a `/`-separated path; 'text' when nothing matches. */
export function detectLanguage(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const byName = FILENAME_LANGUAGES[name] ?? FILENAME_LANGUAGES[name.toLowerCase()];
  if (byName) return byName;
  if (/^dockerfile\./i.test(name) || /\.dockerfile$/i.test(name)) return 'dockerfile';
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return 'text';
  return EXTENSION_LANGUAGES[name.slice(dot + 1).toLowerCase()] ?? 'text';
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
   * Constants the text defines that are no definition of their own (C/C++: object-like
   * `#define`s, see cObjectMacros), each with the index of its line's start. A chunk lists
   * the ones on its lines in `defines`, so a search for the name finds where it is defined.
   */
  constants?: (text: string) => ConstantDef[];
  /**
   * Constants the tree defines that are no definition of their own (enumerators; Go and Rust
   * `const`s and package-level `var`s; Java `static final` fields and interface constants, C#
   * `const` and `static readonly` fields; module-level JS/TS `const`s and Python UPPER_CASE
   * names, module-level or in a module-level class), listed in
   * `defines` like `constants`. Each query runs only on the nodes that own one of its keyword tokens
   * (the regex finds them in the text), or on the module's statements of one type, so a file
   * is not searched node by node (a whole-tree query cost a quarter of the parse).
   */
  constantQueries?: readonly ConstantQuery[];
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

/** The small part of web-tree-sitter's Node the tables need (keeps this module import-free). */
export interface SpecNode {
  type: string;
  childForFieldName(name: string): SpecNode | null;
  namedChild(index: number): SpecNode | null;
  namedChildCount: number;
}

const JS_COMMON = {
  defs: {
    function_declaration: 'function',
    generator_function_declaration: 'function',
    class_declaration: 'class',
    method_definition: 'method',
  },
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
const HAS_C_ANNOTATION = new RegExp(C_ANNOTATION_WORD);

/**
 * C/C++ parse input: annotation macros blanked (spaces) on lines that start in column 0
 * with a word — definition and declaration headers, `} __packed;` — never inside comments
 * or indented code, so comment and doc text read from the tree stay the file's own.
 */
export function maskCAnnotations(text: string): string {
  if (!HAS_C_ANNOTATION.test(text)) return text;
  return text.replace(/^[A-Za-z_}].*$/gm, (line) => line.replace(C_ANNOTATION, (m) => ' '.repeat(m.length)));
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
  for (const m of text.matchAll(C_DEFINE)) {
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

export const LANGUAGE_SPECS: Readonly<Record<string, LanguageSpec>> = {
  javascript: JS_COMMON,
  typescript: TS_COMMON,
  tsx: TS_COMMON,
  python: {
    defs: { function_definition: 'function', class_definition: 'class' },
    wrappers: { decorated_definition: 'skip' },
    namespaces: new Set(),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'docstring',
    lineComment: '#',
    // Module-level `NAME = …` / `NAME: T = …` with an UPPER_CASE name (PEP 8's constants), and
    // the same in a module-level class's body (`class HTTPStatus(IntEnum): NOT_FOUND = 404, …`).
    constantQueries: [{
      owners: { statement: 'expression_statement', lead: /_*[A-Z][A-Z0-9_]*\s*[:=]/y, inClasses: 'class_definition' },
      atOwner: true,
      query: '(expression_statement (assignment left: (identifier) @name))',
      name: /^_*[A-Z][A-Z0-9_]*$/,
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
    namespaces: new Set(['module']),
    ...NO_BINDINGS,
    comments: new Set(['comment']),
    attributes: new Set(),
    docStyle: 'preceding',
    lineComment: '#',
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
};

/** Chunk types whose bodies hold members (methods get this symbol as parent). */
export const CLASS_LIKE: ReadonlySet<ChunkType> = new Set(['class', 'struct', 'interface', 'enum']);

/** Line-comment prefix for a language id (used for markers), '//' when unknown. */
export function lineCommentFor(language: string): string {
  return LANGUAGE_SPECS[language]?.lineComment ?? '//';
}
