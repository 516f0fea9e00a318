/**
 * The one exact-symbol detector: does a chunk DEFINE an identifier written in the query, and
 * how well does it match? The keyword leg (bm25.ts: candidates, its boost, the rerank's
 * `exact` signal) and fusion (fuse.ts: the `definition` signal) both ask here, so they can
 * never split identifiers differently.
 *
 * Targets: every identifier of the query as typed, the whole query when it is one
 * identifier-shaped word (`maxsize`, `Compile`), and the name of a declaration query
 * (`struct page`, `def parse_args`: query.ts `declared`); `Foo::bar` / `Foo.bar` / `a->b` also
 * target symbol `bar` with parent `Foo`.
 *
 * Tiers (DEFINITION_TIERS, config.ts), best first: the exact-case name at the head of its
 * definition; the exact-case name in a later piece of it; another case at the head; another
 * case in a later piece. A chunk of merged small siblings matches by any name it lists, and
 * any chunk by a constant it defines (`defines`: C/C++ object-like `#define`s). For a
 * declaration query, a definition of another kind than its keyword names (the function
 * `page` for `struct page`, or a constant) keeps DECLARATION_OTHER_KIND of its tier, and a prose
 * piece (a Markdown section, named by its heading) DOCS_HEADING_TIER of its tier. Within a
 * tier, one in an implementation file ranks first, then a longer chunk (definitionRank:
 * DEFINITION_SIZE_STEP per step).
 *
 * Invariants: pure; a chunk that is not a definition of a target gets null; the tier of a
 * chunk never depends on other chunks.
 */
import type { ProcessedQuery, SymbolTarget } from './query-types.ts';
import { fileKind, isProseLanguage } from '../text/file-kind.ts';
import { splitIdentifier } from '../text/identifiers.ts';
import { DECLARATION_OTHER_KIND, DEFINITION_KIND_STEPS, DOCS_HEADING_TIER, DEFINITION_SIZE_LINES, DEFINITION_SIZE_STEP, DEFINITION_TIERS, MAX_SYMBOL_TARGETS, LOOKUP_OWNER_TIER, QUALIFIED_TIERS } from '../config.ts';

/** The separators of a qualified name (`Foo::bar`, `a->b`, `Foo.bar`, `Foo#bar`). */
export const QUALIFIER_RE = /::|->|[.#]/;
/** A qualifier that names a type (`JsonSerializer`, `Command`), not a package or a variable (`os`, `self`, `e`). */
const TYPE_SHAPED_RE = /^\p{Lu}[\p{L}\p{N}_]{2,}$/u;
/**
 * A qualifier that names a namespace, package or module alias (`z`, `fmt`, `std`, `tokio`), not
 * a type; the languages' words for the instance (`self.render`, `this.state`) name a member.
 */
const NAMESPACE_SHAPED_RE = /^(?!(?:self|this|cls|super)$)[\p{Ll}_][\p{L}\p{N}_]*$/u;
/** The qualifier that ends a qualified name's prefix (`Ecto.Schema.` → `Ecto.Schema`). */
const TRAILING_QUALIFIER_RE = /(?:::|->|[.#])$/;

export type { SymbolTarget } from './query-types.ts';

export interface DefinitionMatch {
  /** DEFINITION_TIERS value, in (0, 1]. */
  tier: number;
  /** The name of the chunk that matched (one of a merged chunk's names). */
  name: string;
  exactCase: boolean;
  head: boolean;
  /** Size step of the chunk (DEFINITION_SIZE_LINES: 0 below 4 lines … 3 from 25). */
  size: number;
  /** Its file is an implementation file (text/file-kind.ts 'code'): DEFINITION_KIND_STEPS more steps. */
  implementation?: boolean;
  /**
   * How well its place fits a qualified target (qualifiedScope: 1, or a QUALIFIED_TIERS share;
   * 1 for an unqualified one). QUALIFIED_TIERS.elsewhere: the name under another parent, in no
   * qualifier's path (`Error` of `TraceLevel` for `MissingMemberHandling.Error`).
   */
  scope: number;
}

/** What a chunk needs for matching (StoredChunk has it). */
export interface SymbolRow {
  symbol: string | null;
  parent: string | null;
  names?: readonly string[] | null;
  /** Constants defined on the chunk's lines (Chunk.defines). */
  defines?: readonly string[] | null;
  /** Non-null for a later piece of a split definition. */
  context?: string | null;
  /** The chunk's file, for qualified targets whose qualifier is a module path (`crate::parser::Parser`). */
  path?: string;
  /** The file's language, for its kind (text/file-kind.ts; none: judged by the path alone). */
  language?: string;
  /** The chunk's type (types.ts ChunkType), for targets with `kinds`. */
  chunkType?: string | null;
  /** The chunk's lines, for its size step (none: step 0). */
  startLine?: number;
  endLine?: number;
}

/** What a definition match ranks by: its tier, then its file's kind and its size (definitionSteps × DEFINITION_SIZE_STEP). */
export function definitionRank(m: Pick<DefinitionMatch, 'tier' | 'size' | 'implementation'>): number {
  return m.tier + DEFINITION_SIZE_STEP * definitionSteps(m);
}

/** Order steps within a tier: the size step, plus DEFINITION_KIND_STEPS in an implementation file. */
export function definitionSteps(m: Pick<DefinitionMatch, 'size' | 'implementation'>): number {
  return m.size + (m.implementation ? DEFINITION_KIND_STEPS : 0);
}

/** The size step of a chunk of `lines` lines. */
export function sizeStep(lines: number): number {
  let step = 0;
  while (step < DEFINITION_SIZE_LINES.length && lines >= DEFINITION_SIZE_LINES[step]) step++;
  return step;
}

/** Symbol (and required parent) pairs that count as a definition match for this query. */
export function symbolTargets(query: Omit<ProcessedQuery, 'targets'>): SymbolTarget[] {
  // An operator is one name as typed: `<.>` is no member `>` of `<`.
  if (query.literal) return [{ symbol: query.literal, parent: null, kinds: null }];
  /** Word → the kinds a declaration query asks for (null: any). */
  const words = new Map<string, readonly string[] | null>(query.identifiers.map((w) => [w, null]));
  if (query.isIdentifierLike) {
    const word = query.original.trim();
    if (word) words.set(word, null);
  }
  if (query.declared) words.set(query.declared.name, query.declared.kinds);
  const targets: SymbolTarget[] = [];
  for (const [w, kinds] of [...words].slice(0, MAX_SYMBOL_TARGETS)) {
    targets.push({ symbol: w, parent: null, kinds });
    const segments = w.split(QUALIFIER_RE).filter(Boolean);
    if (segments.length < 2) continue;
    const owner = segments[segments.length - 2];
    targets.push({ symbol: segments[segments.length - 1], parent: owner, kinds, qualifiers: segments.slice(0, -1) });
    // In prose, `JsonSerializer.Binder` or `Command::mut_args` is about a member of the type
    // `JsonSerializer`: its definition holds the member, which is often no chunk of its own (a
    // property, a field, an enum case). A type-shaped owner (capitalised) is a name the question
    // writes too, as precisely as written: `Ecto.Schema` (a module named in full) or `Schema`
    // under `Ecto`, not `Ecto.Adapter.Schema`. Not for a lookup, whose answer is the member's
    // own definition — unless the member has none (a method of a small class is no piece of its
    // own: `Mailbox.enqueue`), so a lookup takes the type too, below the member under its type or
    // in a qualifier's path, above the same name under another type (LOOKUP_OWNER_TIER).
    if (!TYPE_SHAPED_RE.test(owner)) continue;
    // (`.` joins a member to an object too: `CaptureUpdateAction.IMMEDIATELY`, whose owner is a
    // constant; `::` joins modules, which Ruby reopens in every file.)
    const lookup = wantsDefinitions(query) ? { lookupOwner: w.charAt(w.length - segments[segments.length - 1].length - 1) === '.' ? 'dot' as const : 'type' as const } : {};
    const prefix = w.slice(0, w.length - segments[segments.length - 1].length).replace(TRAILING_QUALIFIER_RE, '');
    targets.push({ symbol: prefix, parent: null, kinds: null, owner: true, ...lookup });
    if (segments.length >= 3) targets.push({ symbol: owner, parent: segments[segments.length - 3], kinds: null, qualifiers: segments.slice(0, -2), owner: true, ...lookup });
  }
  return targets;
}

/** What a lookup's owner (`Mailbox` of `Mailbox.enqueue`) may be defined as: a type, not a module. */
const OWNER_TYPES: ReadonlySet<string> = new Set(['class', 'struct', 'interface', 'enum', 'type']);

/** The query asks for definitions first: one identifier, a declaration (`struct page`), or an operator (`:<|>`). */
export function wantsDefinitions(query: Pick<ProcessedQuery, 'isIdentifierLike' | 'declared'> & Partial<Pick<ProcessedQuery, 'literal'>>): boolean {
  return query.isIdentifierLike || query.declared !== null || !!query.literal;
}

/**
 * The targets of a question that reads as a function's doc comment (query.ts
 * readsAsDocComment) that name its function: the name it opens with (Go: "NewReader returns a
 * new Reader…"). A later one is the type the function belongs to or works on ("Extracts the
 * value from the `MaybeUninit<T>` container.", "Removes the current element from the
 * `LinkedList`."), whose definition is not the answer. On the docstring sets a later identifier
 * was the answer's name in 2-6 of 300 questions (Go, Python, Rust, JavaScript); a first-word
 * identifier in 197 of 205 (Go).
 */
export function docCommentTargets(query: Pick<ProcessedQuery, 'original' | 'targets'>): SymbolTarget[] {
  // The first word as typed, without call parentheses or punctuation (`Foo.bar()`, `Foo:`).
  const first = /^\s*`?([^\s(`:,]+)/.exec(query.original)?.[1] ?? '';
  const firstName = first.split(QUALIFIER_RE).pop();
  return query.targets.filter((t) => t.symbol === first || t.symbol === firstName);
}

/** The best definition match of `row` for `targets`, or null when it defines none of them. */
export function matchDefinition(targets: readonly SymbolTarget[], row: SymbolRow): DefinitionMatch | null {
  if (targets.length === 0) return null;
  const own = row.symbol ? (row.names?.length ? row.names : [row.symbol]) : [];
  const names = row.defines?.length ? [...own, ...row.defines] : own;
  const head = !row.context;
  const size = row.startLine !== undefined && row.endLine !== undefined ? sizeStep(row.endLine - row.startLine + 1) : 0;
  // A prose piece is named by its heading: a section titled `Value.Diff` documents the name.
  const prose = row.language !== undefined && isProseLanguage(row.language);
  let best: DefinitionMatch | null = null;
  for (const t of targets) {
    // An owner's definition counts once, at its head: a long class's every piece is no more its definition.
    if (t.owner && !head) continue;
    const lowT = t.symbol.toLowerCase();
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (name.toLowerCase() !== lowT) continue;
      const scope = t.parent === null ? 1 : qualifiedScope(t, row);
      if (scope === 0) continue;
      const exactCase = name === t.symbol && (t.parent === null || scope < 1 || row.parent === t.parent || row.parent?.split(QUALIFIER_RE).pop() === t.parent);
      if (t.owner && !(exactCase && scope === 1)) continue;
      // A lookup's owner is a type that holds the member, not a namespace reopened in every file
      // (Ruby's `module Devise` for `Devise::Mailer`, whose class is written `class Devise::Mailer`);
      // after `.` also a constant a module piece defines (`export const X = {…}`).
      if (t.lookupOwner && !OWNER_TYPES.has(row.chunkType ?? '') && !(t.lookupOwner === 'dot' && row.chunkType === 'module' && i >= own.length)) continue;
      // A constant (names[i] from defines) is no struct, function, … of the keyword's kind.
      const otherKind = !!t.kinds && (i >= own.length || !t.kinds.includes(row.chunkType ?? ''));
      const tier = (exactCase
        ? head ? DEFINITION_TIERS.exactCaseHead : DEFINITION_TIERS.exactCaseTail
        : head ? DEFINITION_TIERS.otherCaseHead : DEFINITION_TIERS.otherCaseTail) * (otherKind ? DECLARATION_OTHER_KIND : 1) * scope * (prose ? DOCS_HEADING_TIER : 1) * (t.lookupOwner ? LOOKUP_OWNER_TIER : 1);
      if (!best || tier > best.tier) best = { tier, name, exactCase, head, size, scope };
    }
  }
  // The file's kind only for a row that defines a target (most candidates define none).
  if (best) best.implementation = row.path === undefined || fileKind(row.path, row.language ?? '') === 'code';
  return best;
}

/**
 * Lower-case words of a path: its directories and the file name without extension, whole
 * (`clap_lex`, a Rust crate a qualifier names) and split at `_`, `-` and `.` too.
 */
function pathWordsOf(path: string): Set<string> {
  const out = new Set<string>();
  for (const dir of path.toLowerCase().replace(/\.[^./]*$/, '').split('/')) {
    if (dir) out.add(dir);
    for (const seg of dir.split(/[._-]+/)) if (seg) out.add(seg);
  }
  return out;
}

/**
 * A qualifier that abbreviates a module by its initials, as a qualified import names it: fp-ts's
 * `O.fromNullable` (`import * as O from './Option'`), `RTE.asks` (ReaderTaskEither), Haskell's
 * `M.insert` (Data.Map), `BS.readFile` (Data.ByteString).
 */
const INITIALS_RE = /^[A-Z]{1,5}$/;

/** The initials of a file name's words, upper case: `ReaderTaskEither.ts` → `RTE`, `Map.hs` → `M`. */
function initialsOf(path: string): string {
  const stem = path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
  return splitIdentifier(stem).map((p) => p[0]!.toUpperCase()).join('');
}

/**
 * How well a row's place fits a qualified target (1: its parent is the last qualifier; lower:
 * QUALIFIED_TIERS), 0 when the target has a parent and the row cannot be it.
 */
function qualifiedScope(t: SymbolTarget, row: SymbolRow): number {
  const parent = row.parent?.toLowerCase() ?? null;
  const want = t.parent!.toLowerCase();
  // `Plug.Conn` as the parent of send_resp matches the qualifier `Conn` as well as `Plug.Conn`.
  if (parent !== null && (parent === want || parent.split(QUALIFIER_RE).pop() === want)) return 1;
  if (!t.qualifiers) return 0;
  const quals = t.qualifiers.map((q) => q.toLowerCase());
  if (parent !== null && parent.split(QUALIFIER_RE).some((p) => quals.includes(p))) return QUALIFIED_TIERS.otherQualifier;
  // A namespace, package or module alias (`z`, `fmt`, `std`, `clap`: lower case) qualifies what
  // it defines at its top level, not a member of some type (`z.array` is zod's function
  // `array`, not the method `ZodType.array`; `clap::arg!` the macro, not `ArgGroup::arg`).
  const member = parent !== null && NAMESPACE_SHAPED_RE.test(t.parent!) ? QUALIFIED_TIERS.otherMember : 1;
  const path = row.path;
  if (path) {
    const words = pathWordsOf(path);
    const snake = (q: string) => q.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
    if (t.qualifiers.some((q) => words.has(q.toLowerCase()) || words.has(snake(q)) || (INITIALS_RE.test(q) && q === initialsOf(path)))) return QUALIFIED_TIERS.inPath * member;
  }
  return QUALIFIED_TIERS.elsewhere * member;
}
